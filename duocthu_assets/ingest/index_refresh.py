"""After an ingest's runs: rebuild the search index until it agrees with
the documents that pass now, even while another process writes it too.
"""

from __future__ import annotations

from datetime import datetime, timezone

import dagster as dg

from ..assets.warehouse_tables import TABLES_MATCH_FILES
from ..compaction import COMPACTED_ASSETS, MARKER_NAME, TABLES
from ..jobs import REFRESH_INDEX_JOB, REFRESH_TAGS
from ..inbox.registry import active_doc_ids
from ..warehouse import Warehouse
from ..runtime.gates import UNFINISHED, passing_documents
from .rounds import QUIET

INDEX_ATTEMPTS = 4


def index_agrees(instance: dg.DagsterInstance, warehouse: Warehouse) -> bool:
    """Whether ``search_index`` was built from exactly the documents that pass
    now (every active document whose blocking checks all passed), from their
    current chunks and embeddings files."""
    from ..retrieval.info import index_is_current  # here: search is not loaded until the index is asked

    active = active_doc_ids(warehouse)
    return index_is_current(warehouse, passing_documents(instance, warehouse, active).passed)


COMPACT_ONLY_AT_MOST = 2000  # documents named in the refresh run's config (it is stored with the run); more: every folder is listed


def refresh_index_until_current(
    defs: dg.Definitions, instance: dg.DagsterInstance, warehouse: Warehouse, force: bool, built: list[str] | None = None,
    tables_errors: list[str] | None = None,
) -> int:
    """Rebuild the index (when ``force`` or when it disagrees with what
    passed) until it agrees; returns the runs it took. Another process
    (a second ingest, the UI's sensor) may write the index between this
    build and its check: then it is built again, so the last writer to
    finish leaves an index holding every document that passed.
    ``built``: the documents this ingest built, the only ones whose tables
    (``warehouse_tables``) need rewriting; None: every folder is listed.
    ``tables_errors`` receives why the consolidated tables could not be
    written (the ``tables_match_files`` check's message), if they could not."""
    runs = 0
    config = QUIET
    if tables_behind(warehouse):
        built = None  # a compaction failed before: every folder is listed again
    if built is not None and len(built) <= COMPACT_ONLY_AT_MOST:
        config = {**QUIET, "ops": {"warehouse_tables": {"config": {"only": sorted(built)}}}}
    for _ in range(INDEX_ATTEMPTS):
        if not force and index_agrees(instance, warehouse):
            break
        force = False
        since = datetime.now(timezone.utc)
        result = defs.resolve_job_def(REFRESH_INDEX_JOB).execute_in_process(
            instance=instance, raise_on_error=True, run_config=config, tags=REFRESH_TAGS
        )
        runs += 1
        failed = [e for e in result.get_asset_check_evaluations() if e.check_name == TABLES_MATCH_FILES and not e.passed]
        if tables_errors is not None:
            tables_errors[:] = [str(getattr(e.metadata.get("message"), "value", "") or "not compacted") for e in failed]
        if ran_alone(instance, result.run_id, since):
            break  # no other run wrote while it built: the index agrees by construction
    return runs


def ran_alone(instance: dg.DagsterInstance, run_id: str, since: datetime) -> bool:
    """Whether no run but ``run_id`` was unfinished, or changed its status,
    from ``since`` to now: every write to the warehouse is a run's, so the
    index that run built from what passed is still the index of what passes
    (at 10,000 documents this spares ``index_agrees``' second ``stat`` of
    every document's two files; another ingest or the UI's runs at the same
    time send the refresh back to :func:`index_agrees`)."""
    others = instance.get_run_records(filters=dg.RunsFilter(updated_after=since), limit=2)
    if any(r.dagster_run.run_id != run_id for r in others):
        return False
    unfinished = instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED), limit=2)
    return not any(r.dagster_run.run_id != run_id for r in unfinished)


def tables_behind(warehouse: Warehouse) -> bool:
    """Whether an asset's consolidated tables lack their marker: a
    compaction of them failed (it removes the marker, see compaction.py),
    and the next refresh must rebuild them even when nothing else changed."""
    if not warehouse.is_local or not warehouse.path(TABLES).exists():
        return False
    return any(not warehouse.path(TABLES, asset, MARKER_NAME).exists() for asset in COMPACTED_ASSETS)
