"""What an ingest reports: a summary of each document (built now, or
unchanged and summarized from what the registry remembers of it), the
result of the whole ingest, and the table printed at its end.
"""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import TextIO

import dagster as dg

from ..inbox.registry import Registry
from ..schemas import first_row
from ..warehouse import Warehouse
from ..review import file_status
from ..runtime.gates import passing_documents


@dataclass
class DocumentSummary:
    doc_id: str
    source: str
    status: str  # ok | rejected | failed | blocked
    reason: str = ""
    format: str = ""
    pages: int = 0
    segments: int = 0
    blocks: int = 0
    chunks: int = 0
    failed_checks: list[str] = field(default_factory=list)
    vectors_computed: int = 0
    vectors_reused: int = 0
    rebuilt: bool = True


@dataclass
class IngestResult:
    warehouse: str
    documents: list[DocumentSummary]
    runs: int
    seconds: float
    problems: list[str] = field(default_factory=list)  # paths that are no document: unreadable folder, dangling link...
    skipped: list[str] = field(default_factory=list)  # files passed over on purpose (hidden names), said so
    tables_error: str = ""  # why the consolidated tables/ could not be written (they are redone by the next ingest)

    @property
    def all_ok(self) -> bool:
        return all(d.status in FINE for d in self.documents) and not self.problems and not self.tables_error

    def to_json(self) -> str:
        return json.dumps(
            {"warehouse": self.warehouse, "runs": self.runs, "seconds": round(self.seconds, 2),
             "documents": [asdict(d) for d in self.documents], "problems": self.problems,
             "skipped": self.skipped, "tables_error": self.tables_error},
            ensure_ascii=False, indent=2,
        )


FINE = ("ok", "removed")  # statuses an ingest may end with and still exit 0


def clip(text: str, limit: int = 160) -> str:
    """``text`` cut to at most ``limit`` characters, never inside a
    character as a reader sees it (a letter and its combining marks, a
    zero-width joiner's sequence), an ellipsis saying it was cut."""
    if len(text) <= limit:
        return text
    end = limit - 1
    while end > 0 and (unicodedata.combining(text[end]) or text[end] in JOINERS or text[end - 1] in JOINERS):
        end -= 1
    return text[:end] + "…"


JOINERS = "\u200d\ufe0f\u200c"


def summarize(
    warehouse: Warehouse,
    instance: dg.DagsterInstance,
    registry: Registry,
    doc_ids: list[str],
    stopped: dict[str, dict[str, str]],
    run_errors: dict[str, str],
    embedding_stats: dict[str, dict[str, int]],
    rebuilt: set[str],
) -> list[DocumentSummary]:
    gates = passing_documents(instance, warehouse, doc_ids)
    summaries = []
    for doc_id in doc_ids:
        record = registry.records[doc_id]
        raw = first_row(warehouse.read_table("raw_documents", doc_id))
        parsed = first_row(warehouse.read_table("parsed_documents", doc_id))
        summary = DocumentSummary(doc_id=doc_id, source=record.source_name, status="ok", rebuilt=doc_id in rebuilt)
        if raw:
            summary.format, summary.pages = raw["format"], raw["page_count"]
        if parsed:
            summary.segments, summary.blocks = parsed["segment_count"], parsed["block_count"]
            summary.pages = parsed["page_count"] or summary.pages
        chunks = warehouse.read_table("chunks", doc_id)
        summary.chunks = 0 if chunks is None else chunks.num_rows
        stats = embedding_stats.get(doc_id)
        if stats is not None:
            summary.vectors_computed, summary.vectors_reused = stats["computed"], stats["reused"]
        elif doc_id not in rebuilt:
            # unchanged: its stored vectors stay in use, none computed
            embeddings = warehouse.read_table("embeddings", doc_id)
            summary.vectors_reused = 0 if embeddings is None else embeddings.num_rows
        failed = stopped.get(doc_id, {})
        summary.failed_checks = sorted(failed) or gates.failed_checks.get(doc_id, [])
        if record.status == "removed":
            summary.status, summary.reason = "removed", "file gone from the inbox: left the index and the tables"
            summary.chunks = 0
        elif doc_id in run_errors:
            summary.status, summary.reason = "failed", run_errors[doc_id]
        elif raw is not None and raw["status"] == "removed" and record.status == "active":
            summary.status, summary.reason = "failed", raw["reason"]  # vanished while being ingested
        elif file_status(raw, parsed) is not None:  # rejected or failed, as the review says (review.py)
            summary.status, summary.reason = file_status(raw, parsed)
        elif failed:
            summary.status, summary.reason = "blocked", "; ".join(f"{k}: {v}" for k, v in sorted(failed.items()))
        elif doc_id in gates.failed:
            summary.status, summary.reason = "blocked", gates.failed[doc_id]
        if summary.status not in FINE:
            summary.chunks = summary.chunks if summary.status == "blocked" else 0
        summaries.append(summary)
    return summaries


OUTCOME_FIELDS = ("status", "reason", "format", "pages", "segments", "blocks", "chunks", "failed_checks", "vectors_reused")
GATED = ("ok", "blocked")  # statuses the blocking checks decide (the others come from the files)
UNCHANGED_SHOWN = 20  # unchanged documents that are not ok, named in the summary


def built_as(record, version: str) -> dict:
    """The ``built`` that ``automation.record_built`` gives a record built now."""
    built = {"sha256": record.sha256, "code_version": version, "settings": record.settings, "status": record.status}
    if record.refused:
        built["refused"] = record.refused
    return built


def outcome_key(built: dict) -> str:
    """What a remembered outcome holds for: the content, code version, status
    and refusal it was built with (the settings are in ``built`` too, and a
    change to them makes the document due, so it is summarized afresh)."""
    return f"{built.get('sha256', '')}|{built.get('code_version', '')}|{built.get('status', '')}|{built.get('refused', '')}"


def remember_outcomes(registry: Registry, summaries: list[DocumentSummary], version: str) -> None:
    """Keep each summary in its registry record, with the ``built`` it holds
    for, so the next ingest that finds the document unchanged summarizes it
    from the registry instead of reading four Parquet files. Not saved here:
    ``record_built`` saves right after (one write of the registry)."""
    for summary in summaries:
        record = registry.records.get(summary.doc_id)
        if record is None or summary.status == "failed":
            continue  # a run error is built again next time (and summarized then)
        vectors = summary.vectors_computed + summary.vectors_reused
        built = built_as(record, version) if summary.rebuilt else record.built
        if not built:
            continue
        outcome = {**{f: getattr(summary, f) for f in OUTCOME_FIELDS}, "vectors_reused": vectors, "built": outcome_key(built)}
        if record.outcome != outcome:  # compared first: the copy below is most of the cost, and most outcomes hold
            record.outcome = json.loads(json.dumps(outcome))  # a new dict: shares nothing with what was loaded


def summarize_unchanged(warehouse: Warehouse, instance: dg.DagsterInstance, registry: Registry, doc_ids: list[str]) -> list[DocumentSummary]:
    """Summaries of documents this ingest did not build: from what the
    registry remembers of each (:func:`remember_outcomes`), as long as it
    holds for the ``built`` the document still has; whether its blocking
    checks pass is asked of the instance again (one query for all). A
    document with nothing remembered (built by the UI's sensors, or by an
    older version) is summarized from its files, once."""
    if not doc_ids:
        return []
    remembered: dict[str, dict] = {}
    for doc_id in doc_ids:
        record = registry.records[doc_id]
        outcome = record.outcome
        if outcome and outcome.get("built") == outcome_key(record.built) and all(f in outcome for f in OUTCOME_FIELDS):
            remembered[doc_id] = outcome
    missing = [d for d in doc_ids if d not in remembered]
    full = {s.doc_id: s for s in summarize(warehouse, instance, registry, missing, {}, {}, {}, set())} if missing else {}
    gated = [d for d in remembered if remembered[d]["status"] in GATED]
    gates = passing_documents(instance, warehouse, gated) if gated else None
    summaries = []
    for doc_id in doc_ids:
        if doc_id in full:
            summaries.append(full[doc_id])
            continue
        outcome = remembered[doc_id]
        summary = DocumentSummary(doc_id=doc_id, source=registry.records[doc_id].source_name, rebuilt=False,
                                  **{f: outcome[f] for f in OUTCOME_FIELDS})
        summary.failed_checks = list(summary.failed_checks)
        if gates is not None and summary.status in GATED:  # the checks' latest word, not the remembered one
            if doc_id in gates.failed:
                if summary.status == "ok" or not summary.reason:
                    summary.status, summary.reason = "blocked", gates.failed[doc_id]
                summary.failed_checks = summary.failed_checks or gates.failed_checks.get(doc_id, [])
            else:
                summary.status, summary.reason, summary.failed_checks = "ok", "", []
        summaries.append(summary)
    return summaries


def print_summary(result: IngestResult, out: TextIO) -> None:
    """A row for each document this ingest built (or tried to), totals for
    the rest; ``--report FILE`` (``IngestResult.to_json``) has every one."""
    touched = [d for d in result.documents if d.rebuilt]
    width = max([len(d.doc_id) for d in touched] + [8])
    if touched:
        print(f"\n{'document':<{width}}  {'status':<8} {'pages':>5} {'blocks':>6} {'chunks':>6} {'vectors':>13}  reason / failed checks", file=out)
    for d in touched:
        vectors = f"{d.vectors_computed}+{d.vectors_reused}r"
        detail = d.reason or ""
        print(f"{d.doc_id:<{width}}  {d.status:<8} {d.pages:>5} {d.blocks:>6} {d.chunks:>6} {vectors:>13}  {clip(detail)}", file=out)
    unchanged = [d for d in result.documents if not d.rebuilt]
    if unchanged:
        by_status: dict[str, int] = defaultdict(int)
        for d in unchanged:
            by_status[d.status] += 1
        kinds = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
        chunks = sum(d.chunks for d in unchanged)
        print(f"\nunchanged since built: {len(unchanged)} documents ({kinds}; {chunks} chunks, "
              f"{sum(d.vectors_reused for d in unchanged)} vectors kept) — `--report FILE` lists every document", file=out)
        not_ok = [d for d in unchanged if d.status != "ok"]
        for d in not_ok[:UNCHANGED_SHOWN]:
            print(f"  {d.doc_id}: {d.status} — {clip(d.reason or '')}", file=out)
        if len(not_ok) > UNCHANGED_SHOWN:
            print(f"  … and {len(not_ok) - UNCHANGED_SHOWN} more not ok (see --report)", file=out)
    counts: dict[str, int] = defaultdict(int)
    for d in result.documents:
        counts[d.status] += 1
    if result.problems:
        print(f"\nnot ingested ({len(result.problems)}):", file=out)
        for problem in result.problems:
            print(f"  {problem}", file=out)
    if result.skipped:
        print(f"\nskipped ({len(result.skipped)}):", file=out)
        for line in result.skipped[:UNCHANGED_SHOWN]:
            print(f"  {line}", file=out)
    if result.tables_error:
        print(f"\nconsolidated tables/ not written: {clip(result.tables_error, 400)} — free the cause (disk space) and "
              "run the same ingest again: it redoes them", file=out)
    totals = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    print(f"\n{len(result.documents)} documents: {totals}; {result.runs} Dagster runs in {result.seconds:.1f} s; "
          f"warehouse: {result.warehouse}", file=out)
