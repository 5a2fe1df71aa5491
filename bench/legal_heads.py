"""Issue 40: what reading a document's head costs raw_documents (preview,
identity, legal detection), and the structure the corpus's legal documents
get when dropped in with no profile — article sections, chunks holding two
articles, chunks under a footnote heading, chunks with no heading trail.

    .venv/bin/python bench/legal_heads.py [--profile detected|generic|legal] [--repeat 3]

``detected`` (the default) reads each document as raw_documents does with no
collection.toml. Run it on two trees (PYTHONPATH) to compare them.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from duocthu_assets.chunking import build_chunks
from duocthu_assets.evaluation.runner import default_corpus_dirs
from duocthu_assets.formats import detect_format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

LEGAL = ("vn__nghi_dinh_99-2022-ND-CP.docx", "vn__nghi_dinh_19-2019-ND-CP.docx", "diepxuan__49-2026-ND-CP.pdf",
         "diepxuan__50-2026-ND-CP.pdf", "vn__bo_luat_dan_su_91-2015-QH13.docx", "vn__an_le_so_43-2021-AL.pdf")
SUFFIXES = {".pdf", ".docx", ".xlsx", ".csv"}


def settings_for(data: bytes, profile: str) -> Settings:
    if profile != "detected":
        return Settings(profile=profile)
    from duocthu_assets.parse.preview import read_preview
    from duocthu_assets.parse.profiles.detect import apply_detection

    fmt = detect_format(data)
    return apply_detection(Settings(), read_preview(data, fmt, Settings()).lines)[0]


def head_cost(corpus: Path, repeat: int) -> None:
    from duocthu_assets.sources import read_head

    files = sorted(p for p in corpus.iterdir() if p.suffix.lower() in SUFFIXES)
    costs = []
    for path in files:
        data = path.read_bytes()
        fmt = detect_format(data)
        read_head(data, fmt, Settings())
        t0 = time.process_time()
        for _ in range(repeat):
            read_head(data, fmt, Settings())
        costs.append(((time.process_time() - t0) / repeat * 1000, path.name))
    costs.sort(reverse=True)
    print(f"head read: {sum(c for c, _ in costs):.0f} ms CPU over {len(costs)} files; slowest "
          + ", ".join(f"{name} {c:.1f} ms" for c, name in costs[:3]))


def structure(corpus: Path, profile: str) -> None:
    print("document | profile | article sections | chunks holding two articles | under a footnote heading | no trail")
    for name in LEGAL:
        path = corpus / name
        if not path.is_file():
            continue
        data = path.read_bytes()
        settings = settings_for(data, profile)
        parsed = parse_document(data, detect_format(data), settings)
        chunks = build_chunks("x", parsed.segments, parsed.blocks, {}, settings)
        articles = {c.section_key for c in chunks if c.section_key.startswith("dieu_")}
        two = sum(1 for c in chunks if len(set(re.findall(r"(?m)^Điều\s+(\d+)\s*\.", c.text))) > 1)
        notes = sum(1 for c in chunks if any(h.startswith("^") for h in c.headings))
        bare = sum(1 for c in chunks if not c.headings)
        print(f"{name} | {settings.profile.value} | {len(articles)} | {two} | {notes} | {bare}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=default_corpus_dirs()[0])
    ap.add_argument("--profile", default="detected", choices=["detected", "generic", "legal"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if args.profile == "detected":
        head_cost(args.corpus, args.repeat)
    structure(args.corpus, args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
