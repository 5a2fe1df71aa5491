"""Gold annotations beside the documents, with a validated schema.

Two files per document, named after it (``duoc_thu_mau.boundaries.json`` or
``vn__nghi_dinh_19-2019-ND-CP.docx.boundaries.json``; the inbox treats both
as sidecars, never as documents):

``*.boundaries.json`` — the expected section starts::

    {
      "schema": "duocthu.eval.boundaries/1",
      "document": "vn__nghi_dinh_19-2019-ND-CP.docx",   # the file name
      "language": "vi",
      "made_by": "how the gold was written and checked",
      "scope": {"from": {"anchor": ...}, "to": {"anchor": ...}},   # optional
      "boundaries": [
        {"id": "dieu-1", "anchor": "Điều 1. Phạm vi điều chỉnh",
         "suffix": "Nghị định này Quy định", "prefix": "", "title": "", "level": 3},
        ...
      ]
    }

``*.queries.json`` — queries with the section or passage that answers them::

    {
      "schema": "duocthu.eval.queries/1",
      "document": "...", "language": "vi", "made_by": "...",
      "queries": [
        {"id": "q01", "query": "...", "sections": ["dieu-5"],
         "passage": "words copied from the document"},
        ...
      ]
    }

An *anchor* is the heading text, or the first words of the section as
printed; ``prefix``/``suffix`` are optional context that must surround it
(directly, in the normalized space: only punctuation and spacing between), to
tell a heading from the same words in a table of contents or a running
header. Boundaries are listed in reading order and located one after the
other. ``scope`` limits scoring to the part of a document that was annotated
(``to`` is exclusive). A query names the gold sections that answer it by
boundary ``id`` (the reserved id ``_front`` is the text before the first
boundary), or a ``passage`` it must retrieve, or both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .textmatch import normalize

BOUNDARIES_SCHEMA = "duocthu.eval.boundaries/1"
QUERIES_SCHEMA = "duocthu.eval.queries/1"
BOUNDARIES_SUFFIX = ".boundaries.json"
QUERIES_SUFFIX = ".queries.json"
FRONT_SECTION = "_front"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class GoldError(ValueError):
    """A gold file that does not follow the schema; the message names the file and field."""


@dataclass(frozen=True)
class Anchor:
    text: str
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class GoldBoundary:
    id: str
    anchor: Anchor
    title: str = ""
    level: int | None = None


@dataclass(frozen=True)
class GoldQuery:
    id: str
    query: str
    sections: tuple[str, ...] = ()
    passage: str = ""


@dataclass
class DocumentGold:
    document: str  # the document's file name
    boundaries_path: Path
    queries_path: Path | None
    language: str = ""
    made_by: str = ""
    boundaries: list[GoldBoundary] = field(default_factory=list)
    queries: list[GoldQuery] = field(default_factory=list)
    scope_from: Anchor | None = None
    scope_to: Anchor | None = None

    @property
    def boundary_ids(self) -> set[str]:
        return {b.id for b in self.boundaries}


def _fail(path: Path, where: str, message: str) -> GoldError:
    return GoldError(f"{path}: {where}: {message}")


def _string(path: Path, where: str, value: Any, *, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _fail(path, where, f"expected a non-empty string, got {value!r}")
    return value


def _anchor(path: Path, where: str, value: Any) -> Anchor:
    if isinstance(value, str):
        value = {"anchor": value}
    if not isinstance(value, dict):
        raise _fail(path, where, f"expected an anchor object, got {value!r}")
    unknown = sorted(set(value) - {"anchor", "prefix", "suffix", "id", "title", "level", "note"})
    if unknown:
        raise _fail(path, where, f"unknown fields {unknown}")
    text = _string(path, f"{where}.anchor", value.get("anchor"))
    if not normalize(text):
        raise _fail(path, f"{where}.anchor", f"{text!r} has no letters or digits to match")
    prefix = _string(path, f"{where}.prefix", value.get("prefix"), required=False)
    suffix = _string(path, f"{where}.suffix", value.get("suffix"), required=False)
    return Anchor(text, prefix, suffix)


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GoldError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise GoldError(f"{path}: expected a JSON object at the top level")
    return data


def _check_header(path: Path, data: dict[str, Any], schema: str, allowed: set[str]) -> None:
    if data.get("schema") != schema:
        raise _fail(path, "schema", f"expected {schema!r}, got {data.get('schema')!r}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _fail(path, "top level", f"unknown fields {unknown}")
    _string(path, "document", data.get("document"))
    _string(path, "made_by", data.get("made_by"))


def load_boundaries(path: str | Path) -> DocumentGold:
    path = Path(path)
    data = _load_json(path)
    _check_header(path, data, BOUNDARIES_SCHEMA, {"schema", "document", "language", "made_by", "scope", "boundaries", "notes"})
    raw = data.get("boundaries")
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "boundaries", "expected a non-empty list")
    boundaries: list[GoldBoundary] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"boundaries[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, where, f"expected an object, got {item!r}")
        bid = _string(path, f"{where}.id", item.get("id"))
        if not _ID.match(bid) or bid == FRONT_SECTION:
            raise _fail(path, f"{where}.id", f"{bid!r} is not a valid id ([A-Za-z0-9._-], not {FRONT_SECTION})")
        if bid in seen:
            raise _fail(path, f"{where}.id", f"duplicate id {bid!r}")
        seen.add(bid)
        level = item.get("level")
        if level is not None and (not isinstance(level, int) or level < 1):
            raise _fail(path, f"{where}.level", f"expected a positive integer, got {level!r}")
        title = _string(path, f"{where}.title", item.get("title"), required=False)
        boundaries.append(GoldBoundary(bid, _anchor(path, where, item), title or item["anchor"], level))
    scope = data.get("scope") or {}
    if not isinstance(scope, dict) or set(scope) - {"from", "to"}:
        raise _fail(path, "scope", "expected {\"from\": anchor, \"to\": anchor} (either optional)")
    gold = DocumentGold(
        document=data["document"],
        boundaries_path=path,
        queries_path=None,
        language=data.get("language", "") or "",
        made_by=data["made_by"],
        boundaries=boundaries,
        scope_from=_anchor(path, "scope.from", scope["from"]) if scope.get("from") else None,
        scope_to=_anchor(path, "scope.to", scope["to"]) if scope.get("to") else None,
    )
    return gold


def load_queries(path: str | Path, gold: DocumentGold) -> DocumentGold:
    """Add the queries in ``path`` to ``gold`` (checking every section id exists)."""
    path = Path(path)
    data = _load_json(path)
    _check_header(path, data, QUERIES_SCHEMA, {"schema", "document", "language", "made_by", "queries", "notes"})
    if data["document"] != gold.document:
        raise _fail(path, "document", f"{data['document']!r} but the boundaries file is for {gold.document!r}")
    raw = data.get("queries")
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "queries", "expected a non-empty list")
    known = gold.boundary_ids | {FRONT_SECTION}
    queries: list[GoldQuery] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        where = f"queries[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, where, f"expected an object, got {item!r}")
        unknown = sorted(set(item) - {"id", "query", "sections", "section", "passage", "note"})
        if unknown:
            raise _fail(path, where, f"unknown fields {unknown}")
        qid = _string(path, f"{where}.id", item.get("id"))
        if qid in seen:
            raise _fail(path, f"{where}.id", f"duplicate id {qid!r}")
        seen.add(qid)
        query = _string(path, f"{where}.query", item.get("query"))
        sections = item.get("sections", item.get("section", []))
        if isinstance(sections, str):
            sections = [sections]
        if not isinstance(sections, list) or not all(isinstance(s, str) for s in sections):
            raise _fail(path, f"{where}.sections", f"expected a list of boundary ids, got {sections!r}")
        missing = [s for s in sections if s not in known]
        if missing:
            raise _fail(path, f"{where}.sections", f"unknown boundary ids {missing}")
        passage = _string(path, f"{where}.passage", item.get("passage"), required=False)
        if passage and not normalize(passage):
            raise _fail(path, f"{where}.passage", "has no letters or digits to match")
        if not sections and not passage:
            raise _fail(path, where, "needs sections, a passage, or both")
        queries.append(GoldQuery(qid, query, tuple(sections), passage))
    gold.queries = queries
    gold.queries_path = path
    return gold


def gold_prefix(path: Path) -> str:
    """``x.pdf.boundaries.json`` → ``x.pdf``; ``x.boundaries.json`` → ``x``."""
    name = path.name
    for suffix in (BOUNDARIES_SUFFIX, QUERIES_SUFFIX):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    raise GoldError(f"{path}: not a gold file (*{BOUNDARIES_SUFFIX} or *{QUERIES_SUFFIX})")


def discover_gold(folder: str | Path) -> list[DocumentGold]:
    """Every document with a ``*.boundaries.json`` directly in ``folder``
    (plus its ``*.queries.json`` when present), in file-name order. A queries
    file without a boundaries file is an error, not silently ignored."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no such folder: {folder}")
    golds = []
    prefixes = {gold_prefix(p) for p in folder.glob(f"*{BOUNDARIES_SUFFIX}")}
    orphans = sorted(gold_prefix(p) for p in folder.glob(f"*{QUERIES_SUFFIX}") if gold_prefix(p) not in prefixes)
    if orphans:
        raise GoldError(f"{folder}: queries without a boundaries file: {', '.join(orphans)}")
    for prefix in sorted(prefixes):
        gold = load_boundaries(folder / f"{prefix}{BOUNDARIES_SUFFIX}")
        name = gold.document
        if prefix not in (name, Path(name).stem):
            raise GoldError(f"{gold.boundaries_path}: names document {name!r}; the file should be {name}{BOUNDARIES_SUFFIX}")
        queries = folder / f"{prefix}{QUERIES_SUFFIX}"
        if queries.is_file():
            load_queries(queries, gold)
        golds.append(gold)
    return golds


def resolve_document(gold: DocumentGold, search_dirs: list[Path]) -> Path | None:
    """The document's file: beside its gold file first, then in each of
    ``search_dirs`` (the shared corpus); None when it is nowhere."""
    for folder in [gold.boundaries_path.parent, *search_dirs]:
        candidate = Path(folder) / gold.document
        if candidate.is_file():
            return candidate
    return None
