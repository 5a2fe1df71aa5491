"""`duocthu ingest`: every document through the same Definitions the UI uses,
in a few bounded in-process runs, with per-document isolation.

Why a loop of runs: one run over a range of documents costs about a second
whatever the range's size, while a run per document costs about two. But a
blocking check that fails for one document fails its check step, and Dagster
then skips the downstream step for *every* document of that run. So:

1. one run per contiguous range of documents to build, over every asset;
2. after it, each document either finished, or was stopped by a failed
   blocking check (it is *blocked*, and stays stopped), or was only skipped
   because another document in its run failed;
3. the skipped ones go again, selecting just the assets they still need,
   grouped into ranges; repeat until nothing is left.

A batch with no failures is one run; each failing stage adds at most one run
per range. The index is rebuilt once at the end, from the documents whose
checks all passed.

Both cores: a range of at least ``SPLIT_AT`` documents is cut into one part
per worker process (``DUOCTHU_INGEST_WORKERS``, default 2), each part a run of
the stages before embedding, in a forked process of its own; the embeddings
of the whole range then follow in one run in this process (the next round of
the loop above). Embedding stays in one process because the engine spreads
itself over both cores already, and because one writer keeps the vector
cache's shard files the same from one ingest to the next.

Here the ingest itself; the plan of each round's runs is
:mod:`.plan`'s, making them :mod:`.rounds`', the index rebuilt
after them :mod:`.index_refresh`'s, the summary :mod:`.report`'s.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .. import progress
from ..automation import record_built
from ..definitions import build_definitions
from ..inbox.scan import scan
from ..jobs import INGEST_JOB
from ..inbox.registration import mark_removed, needs_build, register_files, retire_duplicates
from ..inbox.registry import Registry
from ..sources import refused_on_sight
from ..version import code_version
from ..warehouse import Warehouse, remove_stale_temp_files
from ..runtime import inbox_snapshot
from ..runtime.step_failures import is_transient
from .index_refresh import refresh_index_until_current, tables_behind
from .leases import Leases
from .plan import LARGE_DOCUMENT_BYTES, ingest_workers
from .report import (
    DocumentSummary,
    IngestResult,
    print_summary,
    remember_outcomes,
    summarize,
    summarize_unchanged,
)
from .rounds import run_rounds
from ..runtime.instance import fail_orphaned_runs, open_instance


def ingest(
    paths: list[str],
    warehouse_root: str,
    profile: str | None = None,
    out: TextIO | None = None,
    show_progress: bool = True,
) -> IngestResult:
    """Ingest ``paths`` into the warehouse (see :func:`_ingest`). What this
    process holds before and after the registry is read (Dagster, the
    definitions, one record per document) is frozen out of the cyclic
    garbage collector's view for the ingest's duration: a full collection
    otherwise walks every registry record again (at 3,000 documents 0.43 s
    of 3.4 s in three collections, 0.26 s at 0); unfrozen at the end, so
    nothing stays uncollectable."""
    gc.freeze()
    try:
        return _ingest(paths, warehouse_root, profile, out, show_progress)
    finally:
        gc.unfreeze()


def _ingest(
    paths: list[str],
    warehouse_root: str,
    profile: str | None,
    out: TextIO | None,
    show_progress: bool,
) -> IngestResult:
    started = time.monotonic()
    workers = ingest_workers()
    if show_progress:
        os.environ[progress.ENV] = "1"
    warehouse = Warehouse(warehouse_root)
    if warehouse.is_local:
        stale = remove_stale_temp_files(warehouse.root.path)
        if stale:
            print(f"duocthu: removed {len(stale)} temporary file(s) left by a killed or failed write", file=sys.stderr)
    instance = open_instance(warehouse_root)
    released = fail_orphaned_runs(instance)
    if released:
        print(f"duocthu: released {len(released)} run(s) left running by a killed process", file=sys.stderr)
    version = code_version()
    listing = inbox_snapshot.listing_digest(paths) if warehouse.is_local else None  # before the scan: see inbox_snapshot
    if not released:
        remembered = inbox_snapshot.load(instance, inbox_snapshot.snapshot_key(instance, warehouse.root.path, paths, profile, version, listing))
        if remembered is not None:
            return _unchanged_result(remembered, warehouse, started, out)
    defs = build_definitions(warehouse_root)
    job = defs.resolve_job_def(INGEST_JOB)

    registry = Registry(warehouse)
    found = scan(paths)
    with registry.lock():  # two ingests registering one file at once still make one document of it
        registry.reload()
        records, vanished = register_files(registry, found.found, profile, refused=found.refused)
        removed = retire_gone(registry, records, found, paths)
        registry.save()
    records += removed
    problems = [*found.problems, *vanished]
    gc.freeze()  # the registry's records too (see ingest)
    for problem in problems:
        print(f"duocthu: {problem}", file=sys.stderr)
    for note in folder_warnings(records):
        print(f"duocthu: {note}", file=sys.stderr)
    if removed:
        print(f"duocthu: {len(removed)} document(s) gone from the folders ingested: marked removed, leaving the index", file=sys.stderr)
    todo = [r.doc_id for r in records if needs_build(r, version)]
    print(f"duocthu: {len(records)} documents, {len(todo)} to build, {len(records) - len(todo)} unchanged", file=sys.stderr)

    partitions = list(instance.get_dynamic_partitions("documents"))
    known = set(partitions)
    # new partitions in discovery order, those refused on sight last: a run
    # covers a contiguous range of partitions, so a refused file in the
    # middle would cut the others' range in two (two embedding runs, not one)
    due = set(todo)
    refused = {r.doc_id for r in records if r.doc_id in due and refused_on_sight(r)}
    # and the large ones last too (they run alone, after the small ones)
    large = frozenset(r.doc_id for r in records if r.doc_id in due and r.size_bytes > LARGE_DOCUMENT_BYTES and r.doc_id not in refused)
    new_keys = sorted((r.doc_id for r in records if r.doc_id not in known), key=lambda doc: (doc in refused, doc in large))
    if new_keys:
        instance.add_dynamic_partitions("documents", new_keys)
        partitions = list(instance.get_dynamic_partitions("documents"))

    leases = Leases(warehouse)
    try:
        mine, theirs = leases.take(todo)
        done = _build(job, instance, warehouse, registry, warehouse_root, mine, partitions, workers, refused, large, version)
        leases.release()
        if theirs:  # another ingest builds these now: wait for it, then build what it left due
            print(f"duocthu: {len(theirs)} document(s) being built by another ingest: waiting for it", file=sys.stderr)
            leases.wait_and_take(theirs)
            registry.reload()
            still = [d for d in theirs if needs_build(registry.records[d], version)]
            done.merge(_build(job, instance, warehouse, registry, warehouse_root, still, partitions, workers, refused, large, version))
    finally:
        leases.close()
    tables_errors: list[str] = []
    runs = done.runs + refresh_index_until_current(defs, instance, warehouse, force=bool(todo) or tables_behind(warehouse),
                                                   built=todo, tables_errors=tables_errors)

    touched = set(done.summaries)
    summaries = list(done.summaries.values())
    summaries += summarize_unchanged(warehouse, instance, registry, [r.doc_id for r in records if r.doc_id not in touched])
    position = {r.doc_id: i for i, r in enumerate(records)}
    summaries.sort(key=lambda d: position[d.doc_id])
    result = IngestResult(str(warehouse.root), summaries, runs, time.monotonic() - started, problems,
                          skipped=list(found.skipped), tables_error="; ".join(tables_errors))
    remember_snapshot(instance, warehouse, registry, paths, profile, version, listing, result, found, done.run_errors)
    print_summary(result, out or sys.stdout)  # read at call time: a captured stdout may be gone by then
    return result


@dataclass
class _Built:
    """What the builds of an ingest did: their summaries by doc_id."""

    summaries: dict[str, DocumentSummary] = field(default_factory=dict)
    run_errors: dict[str, str] = field(default_factory=dict)
    runs: int = 0

    def merge(self, other: _Built) -> None:
        self.summaries.update(other.summaries)
        self.run_errors.update(other.run_errors)
        self.runs += other.runs


def _build(job, instance, warehouse: Warehouse, registry: Registry, warehouse_root: str, todo: list[str],
           partitions: list[str], workers: int, refused: set[str], large: frozenset[str], version: str) -> _Built:
    """Build ``todo`` (their leases held), summarize them, and record as
    built those that did not fail for a passing cause (:func:`is_transient`:
    a full disk, a killed worker, a lost race), so the next ingest builds
    those again once the cause is gone; "unchanged" never hides them."""
    if not todo:
        return _Built()
    built = run_rounds(job, instance, warehouse_root, todo, partitions, workers, refused & set(todo), large & set(todo))
    summaries = summarize(warehouse, instance, registry, todo, built.stopped, built.run_errors, built.embedding_stats, set(todo))
    retry = {d.doc_id for d in summaries if d.status in ("failed", "blocked") and is_transient(d.reason)}
    if retry:
        print(f"duocthu: {len(retry)} document(s) failed for a passing cause (disk full, a killed worker, a lost race): "
              "the next ingest builds them again", file=sys.stderr)
    remember_outcomes(registry, [d for d in summaries if d.doc_id not in retry], version)
    record_built(registry, [d for d in todo if d not in built.run_errors and d not in retry], version)  # saves the outcomes too
    return _Built({d.doc_id: d for d in summaries}, dict(built.run_errors), built.runs)


def retire_gone(registry: Registry, present: list, found, paths: list[str]) -> list:
    """Mark removed, as the inbox sensor does, every active document under a
    folder ingested now whose file is gone, and every other document of a
    file registered now (one file, one document); they are built (their
    derived files deleted) and leave the index."""
    present_paths = {str(f) for _, f in found.found}
    removed = retire_duplicates(registry, present)
    for raw in paths:
        folder = Path(os.path.normpath(Path(raw).absolute()))
        if folder.is_dir():
            removed += mark_removed(registry, present_paths, folder)
    return removed


def folder_warnings(records: list) -> list[str]:
    """A line for each folder whose collection.toml, unusable now, takes
    documents out of search that were searchable before."""
    lost: dict[str, int] = {}
    for record in records:
        if record.refused.startswith("refused with its folder") and record.outcome.get("status") == "ok":
            lost[record.refused] = lost.get(record.refused, 0) + 1
    return [f"{n} document(s) that were searchable leave the search index: {why}" for why, n in sorted(lost.items())]


def as_unchanged(summary: DocumentSummary) -> dict:
    """A summary as the next ingest prints it when the document is unchanged
    (what :func:`summarize_unchanged` gives from the outcome remembered)."""
    row = {**vars(summary), "failed_checks": list(summary.failed_checks)}  # asdict() deep-copies: 10x slower
    row["vectors_reused"] += row["vectors_computed"]
    row["vectors_computed"], row["rebuilt"] = 0, False
    return row


def remember_snapshot(instance, warehouse: Warehouse, registry: Registry, paths: list[str], profile: str | None, version: str,
                      listing: str | None, result: IngestResult, found, run_errors: dict[str, str]) -> None:
    """Remember this ingest's summaries for the next one over the same,
    unchanged inbox (:mod:`inbox_snapshot`); only when nothing is left to
    do or to report: no problem, no run error, no document still due."""
    records = registry.records
    complete = (
        listing is not None and not result.problems and not run_errors and not found.refused and not result.tables_error
        and all(d.status != "failed" and d.doc_id in records and not needs_build(records[d.doc_id], version) for d in result.documents)
    )
    key = inbox_snapshot.snapshot_key(instance, warehouse.root.path, paths, profile, version, listing) if complete else None
    roots = [root + os.sep for root in inbox_snapshot.roots_of(paths)]
    present = {str(f) for _, f in found.found}
    all_present = not any(
        r.status == "active" and r.path not in present and r.path.startswith(tuple(roots)) for r in records.values()
    )
    inbox_snapshot.save(instance, key, [as_unchanged(d) for d in result.documents if d.status != "removed"], all_present)


def _unchanged_result(remembered: dict, warehouse: Warehouse, started: float, out: TextIO | None) -> IngestResult:
    """The result of an ingest that found its inbox as the last one left it."""
    summaries = [DocumentSummary(**row) for row in remembered["documents"]]
    print(f"duocthu: {len(summaries)} documents, 0 to build, {len(summaries)} unchanged", file=sys.stderr)
    result = IngestResult(str(warehouse.root), summaries, 0, time.monotonic() - started, [])
    print_summary(result, out or sys.stdout)
    return result
