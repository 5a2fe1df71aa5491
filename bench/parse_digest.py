"""The corpus parse digest: one SHA-256 per corpus document of everything the
parser returns (segments, blocks, furniture, page accounts, warnings).

A refactor that must not change behaviour runs this before and after and
compares: ``python bench/parse_digest.py --out before.json`` then
``python bench/parse_digest.py --compare before.json``. Reads
``$DUOCTHU_CORPUS`` or ``../shared/corpus`` (or ``--corpus``); PDF, DOCX, XLSX and CSV files.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path

from duocthu_assets.evaluation.runner import default_corpus_dirs
from duocthu_assets.formats import detect_format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse.preview import read_preview
from duocthu_assets.parse.profiles.detect import apply_detection
from duocthu_assets.settings import Settings

SUFFIXES = {".pdf", ".docx", ".xlsx", ".csv"}
DEFAULT_CORPUS = default_corpus_dirs()[0]  # $DUOCTHU_CORPUS, else ../shared/corpus


def digest(path: Path, settings: Settings) -> str:
    """The parse as a user gets it with no collection.toml: a document read as
    a law when its head shows one (issue 40, the same choice raw_documents makes)."""
    data = path.read_bytes()
    try:
        fmt = detect_format(data)
        settings, _ = apply_detection(settings, read_preview(data, fmt, settings).lines)
        parsed = parse_document(data, fmt, settings)
        payload = repr(dataclasses.asdict(parsed))
    except (DocumentRejected, ParseFailed) as exc:
        payload = f"{type(exc).__name__}: {exc}"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, help="write the digests as JSON here")
    ap.add_argument("--compare", type=Path, help="compare against digests written before")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    settings = Settings()
    files = sorted(p for p in args.corpus.iterdir() if p.suffix.lower() in SUFFIXES)
    digests = {p.name: digest(p, settings) for p in files}
    counts = {s: sum(1 for n in digests if n.lower().endswith(s)) for s in sorted(SUFFIXES)}
    print(f"{len(digests)} documents: " + ", ".join(f"{n} {s[1:]}" for s, n in counts.items()))
    if args.out:
        args.out.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    if args.compare:
        before = json.loads(args.compare.read_text())
        changed = sorted(n for n in before.keys() | digests.keys() if before.get(n) != digests.get(n))
        for name in changed:
            print(f"changed: {name}")
        print("identical" if not changed else f"{len(changed)} changed")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
