"""Question gold (``eval/legal_qa/questions.jsonl`` and sets like it): each
question names the unit(s) that answer it (``Điều N`` of a document, a
precedent's ``Nội dung án lệ`` or ``Đoạn [n]``), or, for ``missing_unit``,
that the unit it cites does not exist.

:func:`load_questions` reads a split (never the other); :func:`first_rank`
says where a ranked answer list first holds the answer (a ``multi``
question: where the last of its units is first reached; a ``missing_unit``
question: rank 1 when the search said the unit does not exist and showed
nothing, else not found); :func:`summarize` turns ranks into hit@k and MRR,
per kind. Nothing here searches: :mod:`duocthu_assets.cli_eval_questions`
runs the searches.

Nothing here imports Dagster.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..textnorm import fold

QUESTIONS_FILE = "questions.jsonl"
SPLITS = ("dev", "held_out")
KS = (1, 5, 10)
_PARAGRAPH = re.compile(r"^Đoạn \[(\d+)\]$")
SECTION_SEP = " / "  # a formulary answer's unit: "<monograph> / <section>" (eval/formulary_qa)


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    kind: str
    answers: tuple[tuple[str, str], ...]  # (document file name, unit)
    passage: str
    split: str
    twin_of: str | None = None


def load_questions(folder: str | Path, split: str) -> list[Question]:
    """The questions of ``split`` (``dev`` or ``held_out``; ``all`` for both)."""
    if split not in (*SPLITS, "all"):
        raise ValueError(f"unknown split {split!r}: use dev, held_out or all")
    path = Path(folder) / QUESTIONS_FILE
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if split != "all" and record.get("split") != split:
            continue  # the other half is not even parsed into a Question
        try:
            answers = tuple((a["document"], a["unit"] if "unit" in a else f"{a['monograph']}{SECTION_SEP}{a['section']}") for a in record["answers"])
            out.append(Question(record["id"], record["query"], record["kind"], answers, record.get("passage") or "", record["split"], record.get("twin_of")))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a question record ({exc})") from None
    return out


def _names_of(doc_id: str) -> set[str]:
    """The file names, lower case, ``doc_id`` may stand for: itself (a file
    whose name is already a key, ``vnlaw__06-bct.signed.pdf``) and with its
    last ``-…`` cut (``vn__bo_luat_dan_su_91-2015-qh13.docx-be97754d``, a
    digest; a test's ``duocthu-mini``)."""
    low = doc_id.lower()
    return {low, low.rsplit("-", 1)[0]}


def _squash(text: str) -> str:
    return " ".join(fold(text).split())


def answers_unit(hit: Any, document: str, unit: str, passage: str = "") -> bool:
    """Whether ``hit`` (an answer: ``doc_id``, ``unit``, ``text``) lies in
    ``unit`` of ``document``: its article (``Điều N``) by its heading trail;
    a precedent's ``Nội dung án lệ`` or ``Đoạn [n]`` (no heading of their
    own) by the chunk holding that label or the question's passage."""
    if document.lower() not in _names_of(hit.doc_id):
        return False
    if unit.startswith("Điều "):
        return _squash(hit.unit) == _squash(unit)
    if SECTION_SEP in unit:
        monograph, section = unit.split(SECTION_SEP, 1)
        if _squash(getattr(hit, "entry_title", "")) != _squash(monograph):
            return False
        trail = [_squash(h) for h in getattr(hit, "headings", ())] + [_squash(getattr(hit, "section_title", ""))]
        return _squash(section) in trail or bool(passage and _squash(passage) in _squash(hit.text or "")) or _squash(section) in _squash(hit.text or "")
    text = _squash(hit.text or "")
    if passage and _squash(passage) in text:
        return True
    paragraph = _PARAGRAPH.match(unit)
    if paragraph:
        return f"[{paragraph.group(1)}]" in text
    return _squash(unit) in text


def first_rank(question: Question, hits: Sequence[Any], said_missing: bool) -> int | None:
    """Where (1-based) ``hits`` first answer ``question``; None: not at all."""
    if question.kind == "missing_unit":
        return 1 if said_missing and not hits else None
    if said_missing:
        return None
    ranks = []
    for i, (document, unit) in enumerate(question.answers):
        passage = question.passage if i == 0 else ""
        found = next((r for r, hit in enumerate(hits, start=1) if answers_unit(hit, document, unit, passage)), None)
        ranks.append(found)
    if question.kind == "multi":
        return None if any(r is None for r in ranks) else max(ranks)  # type: ignore[type-var]
    found = [r for r in ranks if r is not None]
    return min(found) if found else None


def summarize(ranks: Iterable[int | None], ks: Sequence[int] = KS) -> dict[str, float | int]:
    """hit@k for each k and MRR (1/rank, 0 when not found within the list)."""
    ranks = list(ranks)
    n = len(ranks)
    out: dict[str, float | int] = {"n": n}
    for k in ks:
        out[f"hit@{k}"] = round(sum(1 for r in ranks if r is not None and r <= k) / n, 3) if n else 0.0
    out["mrr"] = round(sum(1.0 / r for r in ranks if r is not None) / n, 3) if n else 0.0
    return out


class _MemoEmbedder:
    """The embedder, each query embedded once (a run asks the same query in every configuration)."""

    def __init__(self, inner: Any):
        self.inner, self.model_id, self._memo = inner, inner.model_id, {}

    def embed_query(self, text: str) -> Any:
        if text not in self._memo:
            self._memo[text] = self.inner.embed_query(text)
        return self._memo[text]


def evaluate(warehouse: Any, questions: Sequence[Question], configs: Sequence[tuple[str, Any]], embedder: Any = None, k: int = 10) -> dict[str, Any]:
    """Every question in every (mode, fusion) configuration over the index
    of ``warehouse``; each question also typed without accents (folded) when
    it is not already. Per configuration: hit@1/5/10 and MRR overall and per
    kind, hit@10 of the questions as written and folded, and each question's
    rank (ids only)."""
    from ..retrieval.searcher import Searcher

    base = Searcher(warehouse, embedder)
    memo = _MemoEmbedder(embedder or base.embedder)
    report: dict[str, Any] = {}
    for mode, fusion in configs:
        searcher = Searcher(warehouse, memo, mode=mode, fusion=fusion)
        ranks: dict[str, int | None] = {}
        folded: dict[str, int | None] = {}
        for q in questions:
            ranks[q.id] = _rank(searcher, q, q.query, k)
            if q.kind not in ("unaccented", "missing_unit") and fold(q.query) != q.query.casefold():
                folded[q.id] = _rank(searcher, q, fold(q.query), k)
        kinds = sorted({q.kind for q in questions})
        twins = sorted(q.twin_of for q in questions if q.twin_of and q.twin_of in ranks)
        accented_ids = sorted(folded)
        report[f"{mode}/{fusion}" if mode == "hybrid" else mode] = {
            "all": summarize(ranks.values()),
            "kinds": {kind: summarize(ranks[q.id] for q in questions if q.kind == kind) for kind in kinds},
            "as_written_vs_folded": _pairs(accented_ids, ranks, folded),
            "twins": _pairs(twins, ranks, {root: ranks[q.id] for q in questions for root in [q.twin_of] if root in ranks}),
            "ranks": ranks,
        }
    return report


def _pairs(ids: Sequence[str], written: dict[str, int | None], folded: dict[str, int | None]) -> dict[str, Any]:
    """hit@1 and hit@10 of ``ids`` as written (accented) and typed without accents."""
    a, f = summarize((written[i] for i in ids), (1, 10)), summarize((folded[i] for i in ids), (1, 10))
    return {"n": len(ids), "as_written_hit@1": a["hit@1"], "folded_hit@1": f["hit@1"], "as_written_hit@10": a["hit@10"], "folded_hit@10": f["hit@10"]}


def _rank(searcher: Any, question: Question, query: str, k: int) -> int | None:
    answers, _, resolution = searcher.resolved(query, k)
    return first_rank(question, answers, resolution.status == "missing")
