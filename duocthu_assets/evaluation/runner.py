"""Build a gold collection with one configuration and score it.

For each configuration the documents that have gold are *staged*: symlinked
into ``<warehouse>/eval/<collection>/runs/<label>/inbox/<collection>/`` beside
a generated ``collection.toml`` (the collection's own settings plus the
configuration's overrides — ``collection.toml`` accepts every field of
:class:`~duocthu_assets.settings.Settings`, so no pipeline code changes for an
eval run), and ingested one document at a time into that run's own warehouse
(``runs/<label>/warehouse``), so each document's wall time is measured alone.
Queries are then answered by :func:`duocthu_assets.retrieval.search` over that
warehouse's index: the whole collection, as a user would search it, ranked
by the default search mode or the configuration's ``search=`` (which needs no
rebuild: such a configuration reuses the baseline's warehouse).

Nothing is copied: documents stay where they are (``../shared/corpus`` for
the corpus gold in ``eval/gold``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import shutil
import sys
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Sequence, TextIO

from ..settings import COLLECTION_FILE, Settings, collection_settings
from ..textnorm import ascii_slug
from .document import DocumentScores, DocumentView, evaluate_document
from .gold import DocumentGold, discover_gold, resolve_document
from .scoring import DEFAULT_TOLERANCE

CORPUS_ENV = "DUOCTHU_CORPUS"
REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_KS = (1, 3, 5, 10)
TIMINGS_FILE = "timings.json"


def default_corpus_dirs() -> list[Path]:
    """``$DUOCTHU_CORPUS``, else ``../shared/corpus`` beside the repository."""
    return [Path(os.environ.get(CORPUS_ENV) or REPO_ROOT.parent / "shared" / "corpus")]


# -- configurations ------------------------------------------------------------------


def parse_override(text: str) -> tuple[str, Any]:
    """``chunk_size=250`` → ``("chunk_size", 250)``, typed after the setting's
    default; an unknown setting is an error naming the known ones."""
    if "=" not in text:
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    key, raw = (part.strip() for part in text.split("=", 1))
    known = {f.name: f for f in dataclasses.fields(Settings)}
    if key not in known:
        raise ValueError(f"unknown setting {key!r} (known: {', '.join(sorted(known))})")
    default = getattr(Settings(), key)
    try:
        if isinstance(default, bool):
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(raw)
            value: Any = raw.lower() in ("true", "1", "yes")
        elif isinstance(default, Enum):
            value = type(default)(raw).value
        elif isinstance(default, int):
            value = int(raw)
        elif isinstance(default, float):
            value = float(raw)
        else:
            value = raw
    except ValueError:
        raise ValueError(f"{key}={raw!r}: not a valid {type(default).__name__}") from None
    return key, value


SEARCH_KEY = "search"  # --compare search=dense|hybrid|lexical: how queries are ranked, not a build setting


@dataclass(frozen=True)
class Config:
    label: str
    overrides: tuple[tuple[str, Any], ...] = ()
    search: str | None = None  # the search mode (None: the default); needs no rebuild

    @classmethod
    def from_overrides(cls, pairs: Sequence[str]) -> "Config":
        search = None
        settings_pairs = []
        for p in pairs:
            key, _, value = p.partition("=")
            if key.strip() == SEARCH_KEY:
                from ..retrieval.query import resolve_mode

                search = resolve_mode(value.strip())
            else:
                settings_pairs.append(p)
        parsed = tuple(parse_override(p) for p in settings_pairs)
        if not parsed and search is None:
            return cls("baseline")
        label = ",".join([f"{k}={v}" for k, v in parsed] + ([f"{SEARCH_KEY}={search}"] if search else []))
        return cls(label, parsed, search)

    @property
    def slug(self) -> str:
        """The run folder: named after the build settings only, so a
        configuration that changes only the search mode shares the
        baseline's warehouse."""
        settings_label = ",".join(f"{k}={v}" for k, v in self.overrides)
        return ascii_slug(settings_label, sep="-") or "baseline"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):  # a table such as [pdf], written inline
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)


def collection_values(folder: Path) -> dict[str, Any]:
    """The collection's own ``collection.toml`` values (none: an empty dict)."""
    path = folder / COLLECTION_FILE
    if not path.is_file():
        return {}
    with path.open("rb") as fh:
        return tomllib.load(fh)


def write_collection_toml(folder: Path, values: dict[str, Any], note: str) -> Settings:
    """Write ``collection.toml`` and return the settings it resolves to
    (raising ValueError, naming the setting, when they are invalid)."""
    lines = [f"# {line}" for line in note.splitlines()] + [f"{k} = {_toml_value(v)}" for k, v in values.items() if v is not None]
    (folder / COLLECTION_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return collection_settings(folder)


# -- results ----------------------------------------------------------------------------


@dataclass
class DocumentRun:
    document: str
    doc_id: str = ""
    path: str = ""
    status: str = "missing"  # ok | blocked | rejected | failed | missing
    reason: str = ""
    seconds: float | None = None
    chunks: int = 0
    tokens_embedded: int = 0
    vectors_computed: int = 0
    scores: DocumentScores | None = None
    gold: DocumentGold | None = None


@dataclass
class EvalRun:
    collection: str
    config: Config
    settings: dict[str, Any]
    warehouse: str
    documents: list[DocumentRun] = field(default_factory=list)
    ks: tuple[int, ...] = DEFAULT_KS
    tolerance: int = DEFAULT_TOLERANCE
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def scored(self) -> list[DocumentRun]:
        return [d for d in self.documents if d.scores is not None]

    def query_correct(self, k: int) -> list[tuple[str, bool]]:
        """(document/query id, answered within k) for every gold query, in a
        stable order, so two runs pair up query by query."""
        out = []
        for d in self.documents:
            if d.gold is None or d.status == "missing":
                continue
            firsts = (
                list(d.scores.retrieval.first_relevant)
                if d.scores is not None and d.scores.retrieval is not None
                else [None] * len(d.gold.queries)
            )
            for q, first in zip(d.gold.queries, firsts):
                out.append((f"{d.document}#{q.id}", first is not None and first <= k))
        return out


# -- running --------------------------------------------------------------------------------


def _say(out: TextIO | None, text: str) -> None:
    if out is not None:
        print(text, file=out, flush=True)


@contextlib.contextmanager
def _quiet_children():
    """Parse workers are child processes: their Dagster preview/beta warnings
    would bypass the redirected stderr, so silence them for the eval's runs
    (unless the user set PYTHONWARNINGS)."""
    if "PYTHONWARNINGS" in os.environ:
        yield
        return
    os.environ["PYTHONWARNINGS"] = "ignore"
    try:
        yield
    finally:
        os.environ.pop("PYTHONWARNINGS", None)


def stage(run_dir: Path, collection: str, docs: list[tuple[DocumentGold, Path]], values: dict[str, Any], note: str) -> tuple[Path, Settings]:
    """Symlink the documents into a fresh staging inbox with its collection.toml."""
    inbox = run_dir / "inbox" / collection
    if inbox.exists():
        shutil.rmtree(inbox)
    inbox.mkdir(parents=True)
    settings = write_collection_toml(inbox, values, note)
    for gold, path in docs:
        (inbox / gold.document).symlink_to(path.resolve())
    return inbox, settings


def run_collection(
    collection_dir: str | Path,
    warehouse_root: str | Path,
    config: Config = Config("baseline"),
    *,
    name: str | None = None,
    corpus_dirs: list[Path] | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    tolerance: int = DEFAULT_TOLERANCE,
    reuse: bool = False,
    embedder: Any = None,
    out: TextIO | None = sys.stderr,
) -> EvalRun:
    """Ingest the gold documents of ``collection_dir`` with ``config`` and score them."""
    with warnings.catch_warnings():  # Dagster's beta/preview notices about our own definitions
        warnings.simplefilter("ignore")
        from ..ingest.run import ingest  # Dagster is imported only when a collection is built
    from ..retrieval import SearchError, search
    from ..warehouse import Warehouse

    started = time.monotonic()
    collection_dir = Path(collection_dir)
    name = name or collection_dir.resolve().name
    ks = tuple(sorted(set(ks)))
    root = Warehouse(warehouse_root)
    if not root.is_local:
        raise ValueError(f"duocthu eval needs a local warehouse folder (documents are symlinked), got {warehouse_root}")
    run_dir = Path(str(root.path("eval", name, "runs", config.slug)))
    if run_dir.exists() and not reuse:
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    wh_dir = run_dir / "warehouse"

    golds = discover_gold(collection_dir)
    if not golds:
        raise FileNotFoundError(f"no *.boundaries.json in {collection_dir}")
    dirs = default_corpus_dirs() if corpus_dirs is None else corpus_dirs
    runs: list[DocumentRun] = []
    present: list[tuple[DocumentGold, Path]] = []
    notes: list[str] = []
    for gold in golds:
        path = resolve_document(gold, dirs)
        runs.append(DocumentRun(gold.document, gold=gold, path=str(path or "")))
        if path is None:
            runs[-1].reason = f"not found beside the gold or in {', '.join(map(str, dirs))}"
            notes.append(f"{gold.document}: skipped, {runs[-1].reason}")
            _say(out, f"eval: {gold.document}: skipped ({runs[-1].reason})")
        else:
            present.append((gold, path))

    values = {**collection_values(collection_dir), **dict(config.overrides)}
    note = f"staged by duocthu eval: {name}, configuration {config.label}\nbase: {collection_dir / COLLECTION_FILE}"
    inbox, settings = stage(run_dir, name, present, values, note)
    settings_dict = {k: (v.value if isinstance(v, Enum) else v) for k, v in dataclasses.asdict(settings).items()}
    run = EvalRun(name, config, settings_dict, str(wh_dir), runs, ks, tolerance, notes=notes)

    timings_path = run_dir / TIMINGS_FILE
    timings: dict[str, float] = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    by_doc = {r.document: r for r in runs}
    for gold, _ in present:
        doc = by_doc[gold.document]
        _say(out, f"eval [{config.label}]: ingesting {gold.document}")
        t0 = time.monotonic()
        with contextlib.redirect_stderr(io.StringIO()), _quiet_children():
            result = ingest([str(inbox / gold.document)], str(wh_dir), out=io.StringIO(), show_progress=False)
        elapsed = time.monotonic() - t0
        summary = result.documents[0]
        if summary.rebuilt:
            timings[gold.document] = elapsed
        doc.doc_id, doc.status, doc.reason = summary.doc_id, summary.status, summary.reason
        doc.seconds = timings.get(gold.document, elapsed)
        doc.vectors_computed = summary.vectors_computed
    timings_path.write_text(json.dumps(timings, indent=1, sort_keys=True))

    warehouse = Warehouse(wh_dir)
    if embedder is None and any(g.queries for g, _ in present):
        from ..embed.base import EmbedderConfig
        from ..embed.factory import make_embedder

        embedder = make_embedder(EmbedderConfig.from_env())
    for gold, _ in present:
        doc = by_doc[gold.document]
        if doc.status not in ("ok", "blocked"):  # rejected or failed: nothing to score, its queries are misses
            continue
        view = DocumentView.from_warehouse(warehouse, doc.doc_id)
        if view is None:
            continue
        doc.chunks = len(view.chunks)
        doc.tokens_embedded = sum(int(c.get("token_count") or 0) for c in view.chunks)
        hits = None
        if gold.queries:
            hits = []
            for q in gold.queries:
                try:
                    found = search(warehouse, q.query, max(ks), embedder, mode=config.search)
                except SearchError as exc:
                    notes.append(f"{gold.document}: search failed: {exc}")
                    found = []
                hits.append([h.chunk_id for h in found])
        doc.scores = evaluate_document(gold, view, hits, tolerance=tolerance, ks=ks)
        _say(out, f"eval [{config.label}]: scored {gold.document} ({doc.status})")
    run.seconds = time.monotonic() - started
    return run
