"""review: which documents are not ok, at a glance — blocked (by which rule),
rejected (why), failed (why), each status decided as `duocthu ingest`
decides it (duocthu_assets/review.py). Its ``document_status`` check fails
while any document is not ok, naming them (a Markdown table in its
metadata). Rebuilt with the search index after every ingest run."""

import dagster as dg

from checks.asset_checks import load_document_rows
from checks.registry import ALL_RULES

from ..runtime.gates import statuses_not_all_succeeded
from ..inbox.registry import active_doc_ids
from ..resources import WarehouseResource
from ..review import BLOCKED, blocked_documents, counts, file_status, markdown_table, summary_line
from ..schemas import first_row

DOCUMENT_STATUS = "document_status"


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
        "blocked": dg.MetadataValue.md(table),
        "blocked_count": by_status[BLOCKED],
        "rejected_count": by_status["rejected"],
        "failed_count": by_status["failed"],
        "ok_count": by_status["ok"],
        "documents": len(doc_ids),
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
