"""One document's failure in a step after parsing (crops, chunks, embeddings),
kept so it fails alone and says why. Dagster-free.

A step covers a run's range of documents. When its work for one document
raises, the step does not fail (that would fail every document of the run):
it writes an empty table for that document, records the reason here, and the
blocking check ``<stage>_step_completed`` on the asset fails for that document
alone, with the reason as its message. `duocthu ingest` then carries the
others on (see ingest/rounds.py), and the reason reaches:

- ``<warehouse>/step_failures/<asset>/<doc_id>.json`` (this record),
- the document's ``parsed_documents`` row, whose status becomes ``failed``
  and whose reason becomes this one (it is the per-document status record
  the summary and the reviewer read); the parse's own status and reason are
  kept in the record and put back when the step later succeeds,
- the failing check's message in the UI and in the ingest summary.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from ..schemas import first_row
from ..warehouse import Warehouse

FOLDER = "step_failures"
STAGES = ("crops", "chunks", "embeddings")
VERBS = {"crops": "crop failed", "chunks": "chunking failed", "embeddings": "embedding failed"}


class StepFailed(Exception):
    """One document's work in a step failed; ``str()`` is the reason a user reads."""


def describe(stage: str, exc: BaseException) -> str:
    """The reason for ``exc`` raised by ``stage``'s work on one document."""
    if isinstance(exc, StepFailed):
        return str(exc)
    if isinstance(exc, TimeoutError) or (isinstance(exc, RuntimeError) and " process died " in str(exc)):
        return f"{VERBS[stage]}: {exc}"  # the isolation's own words: time limit, or the process died
    if isinstance(exc, MemoryError):
        return (f"{VERBS[stage]}: needed more memory than its budget (memory_budget_mb) and was stopped — raise "
                "memory_budget_mb in its collection.toml if the machine has the memory")
    if isinstance(exc, OSError) and getattr(exc, "errno", None) == 28:
        where = f" while writing {exc.filename}" if exc.filename else ""
        return f"{VERBS[stage]}: no space left on device{where} — free disk space and ingest again"
    return f"{VERBS[stage]}: {type(exc).__name__}: {exc}".strip()


TRANSIENT_CAUSES = ("no space left on device", "disk quota exceeded", "killed by sigkill", "killed by sigterm",
                    "worker process died", "filenotfounderror", "vanished while being ingested", "database is locked")
"""What a failure says when its cause is the machine's, not the document's
(a full disk, a killed worker, a file deleted under a writer by a lost race):
such a document is not recorded as built, so the next ingest builds it again
once the cause is gone (ingest/run.py)."""


def is_transient(reason: str) -> bool:
    """Whether ``reason`` names a passing cause (:data:`TRANSIENT_CAUSES`)."""
    lowered = reason.lower()
    return any(cause in lowered for cause in TRANSIENT_CAUSES)


def transient_failure(warehouse: Warehouse, doc_id: str) -> str | None:
    """The reason ``doc_id``'s last build failed for a passing cause, if it
    did (a step's failure record, or its parsed_documents row); None else."""
    reasons = list(read_failures(warehouse, doc_id).values())
    parsed = first_row(warehouse.read_table("parsed_documents", doc_id))
    if parsed is not None and parsed["status"] == "failed":
        reasons.append(parsed["reason"])
    return next((r for r in reasons if is_transient(r)), None)


def _record_path(warehouse: Warehouse, stage: str, doc_id: str):
    return warehouse.path(FOLDER, stage, f"{doc_id}.json")


def read_failures(warehouse: Warehouse, doc_id: str) -> dict[str, str]:
    """{stage: reason} of the steps that failed for ``doc_id`` at their last run."""
    found = {}
    for stage in STAGES:
        path = _record_path(warehouse, stage, doc_id)
        try:
            found[stage] = json.loads(path.read_text())["reason"]
        except FileNotFoundError:
            continue
        except (ValueError, KeyError):  # a damaged record still fails the document
            found[stage] = f"{VERBS[stage]}: (its failure record {path} is unreadable)"
    return found


def record_failure(warehouse: Warehouse, stage: str, doc_id: str, reason: str) -> None:
    """Record ``reason`` for ``doc_id`` and mark its parsed_documents row failed."""
    parsed_table = warehouse.read_table("parsed_documents", doc_id)
    parsed = first_row(parsed_table)
    record: dict[str, Any] = {"stage": stage, "reason": reason}
    earlier = _read_record(warehouse, stage, doc_id)
    ours = earlier is not None and parsed is not None and (parsed["status"], parsed["reason"]) == ("failed", earlier.get("reason"))
    if ours and "parsed_status" in earlier:  # the row shows this step's earlier failure: keep the parse's own
        record["parsed_status"], record["parsed_reason"] = earlier["parsed_status"], earlier["parsed_reason"]
    elif parsed is not None:
        record["parsed_status"], record["parsed_reason"] = parsed["status"], parsed["reason"]
    warehouse.write_bytes_atomic(_record_path(warehouse, stage, doc_id), json.dumps(record, ensure_ascii=False).encode())
    if parsed is not None and (parsed["status"], parsed["reason"]) != ("failed", reason):
        _rewrite_parsed(warehouse, doc_id, parsed_table, "failed", reason)


def clear_failure(warehouse: Warehouse, stage: str, doc_id: str) -> None:
    """``stage`` succeeded for ``doc_id``: drop its record and give the
    parsed_documents row back the parse's own status, if this step had
    changed it."""
    record = _read_record(warehouse, stage, doc_id)
    if record is None:
        return
    parsed_table = warehouse.read_table("parsed_documents", doc_id)
    parsed = first_row(parsed_table)
    if parsed is not None and "parsed_status" in record and (parsed["status"], parsed["reason"]) == ("failed", record["reason"]):
        _rewrite_parsed(warehouse, doc_id, parsed_table, record["parsed_status"], record["parsed_reason"])
    with contextlib.suppress(FileNotFoundError):
        _record_path(warehouse, stage, doc_id).unlink()


def _read_record(warehouse: Warehouse, stage: str, doc_id: str) -> dict | None:
    try:
        return json.loads(_record_path(warehouse, stage, doc_id).read_text())
    except FileNotFoundError:
        return None
    except ValueError:
        return {"reason": ""}


def _rewrite_parsed(warehouse: Warehouse, doc_id: str, table, status: str, reason: str) -> None:
    import pyarrow as pa

    index = table.schema.get_field_index("status")
    table = table.set_column(index, "status", pa.array([status] * table.num_rows, pa.string()))
    index = table.schema.get_field_index("reason")
    table = table.set_column(index, "reason", pa.array([reason] * table.num_rows, pa.string()))
    warehouse.write_table("parsed_documents", table, doc_id)
