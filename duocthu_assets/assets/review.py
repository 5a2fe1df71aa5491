"""review: which documents are not ok, at a glance — blocked (by which rule),
rejected (why), failed (why), each status decided as `duocthu ingest`
decides it (duocthu_assets/review.py). Its ``document_status`` check fails
while any document is not ok, naming them (a Markdown table in its
metadata). Rebuilt with the search index after every ingest run."""

import dagster as dg

from checks.asset_checks import load_document_rows
from checks.registry import ALL_RULES

from ..inbox.registry import active_doc_ids
from ..resources import WarehouseResource
from ..review import (
    BLOCKED,
    BlockedDocument,
    blocked_documents,
    counts,
    counts_line,
    file_status,
    in_review_order,
    markdown_table,
    summary_line,
)
from ..runtime.gates import statuses_not_all_succeeded
from ..schemas import first_row

DOCUMENT_STATUS = "document_status"
# the UI's address of the ingest job in whichever code location has it (`make ui` and
# workspace.yaml name the location differently): Dagster's /guess/ route finds it
INGEST_JOB_PATH = "/guess/ingest"
REBUILD_LINKS = 20  # documents given a rebuild link at most (the table lists them all)


def document_entries(not_ok: list[BlockedDocument]) -> dict[str, dg.MetadataValue]:
    """Two entries per document not ok (blocked first, at most
    ``REBUILD_LINKS``): its status, rule and plain words; and a link to
    rebuild it (:func:`rebuild_url`)."""
    entries: dict[str, dg.MetadataValue] = {}
    for d in in_review_order(not_ok)[:REBUILD_LINKS]:
        said = f"{d.status} by {d.blocked_by}" if d.status == BLOCKED else f"{d.status} ({d.blocked_by})"
        entries[d.doc_id] = dg.MetadataValue.text(f"{said}: {d.plain or d.message}")
        entries[f"rebuild {d.doc_id}"] = dg.MetadataValue.url(rebuild_url(d.doc_id))
    return entries


def rebuild_url(doc_id: str) -> str:
    """Dagster's launchpad for the ``ingest`` job with the document's
    partition chosen: *Launch Run* rebuilds it from its source file, every
    asset from ``raw_documents`` on (relative to the UI's address)."""
    from urllib.parse import quote

    return f"{INGEST_JOB_PATH}/playground/setup?tags[0][key]=dagster%2Fpartition&tags[0][value]={quote(doc_id, safe='')}"


@dg.asset(
    group_name="review",
    deps=["search_index"],
    kinds={"markdown"},
    description="The documents not ok: blocked (the first blocking check each failed), rejected or failed "
    "(why), each with what to do, its pages and the rule's id; document_status is red while any is not ok.",
    check_specs=[
        dg.AssetCheckSpec(
            DOCUMENT_STATUS,
            asset="review",
            description="Fails while any document is blocked, rejected or failed: names each with its status and rule.",
        )
    ],
)
def review(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.MaterializeResult:
    wh = warehouse.get()
    doc_ids = active_doc_ids(wh)
    statuses = statuses_not_all_succeeded(context.instance, doc_ids)  # a blocked document has a failure among them

    def evidence(rule, doc_id):
        return rule.apply(load_document_rows(wh, doc_id, rule.needs))

    def said_by_rows(doc_id):
        return file_status(first_row(wh.read_table("raw_documents", doc_id)), first_row(wh.read_table("parsed_documents", doc_id)))

    not_ok = blocked_documents(statuses, ALL_RULES, evidence, said_by_rows)
    table = markdown_table(not_ok, len(doc_ids))
    rows = [
        {"doc_id": d.doc_id, "status": d.status, "blocked_by": d.blocked_by, "what_to_do": d.plain, "message": d.message,
         "pages": list(d.pages),
         "offending_ids": list(d.offending_ids), "count": d.count, "other_failed": list(d.other_failed)}
        for d in not_ok
    ]
    by_status = counts(not_ok, len(doc_ids))
    metadata = {
        # what the asset's page shows first, with no click: the counts, then each document not ok
        # in plain words with a link that rebuilds it from its source file
        "summary": counts_line(not_ok, len(doc_ids)),
        "blocked_count": by_status[BLOCKED],
        "rejected_count": by_status["rejected"],
        "failed_count": by_status["failed"],
        "ok_count": by_status["ok"],
        "documents": len(doc_ids),
        **document_entries(not_ok),
        "blocked": dg.MetadataValue.md(table),
        "blocked_documents": dg.MetadataValue.json([r for r in rows if r["status"] == BLOCKED]),
        "documents_not_ok": dg.MetadataValue.json(rows),
    }
    return dg.MaterializeResult(
        metadata=metadata,
        check_results=[
            dg.AssetCheckResult(
                check_name=DOCUMENT_STATUS,
                passed=not not_ok,
                description=summary_line(not_ok, len(doc_ids))[:1000],
                metadata=metadata,
            )
        ],
    )
