"""review: which documents are blocked and by which rule, at a glance. Its
``document_status`` check fails while any document is blocked, listing them
with rule, message, pages and offending ids (a Markdown table in its
metadata). Rebuilt with the search index after every ingest run."""

import dagster as dg

from checks.asset_checks import load_document_rows
from checks.registry import ALL_RULES

from ..runtime.gates import statuses_not_all_succeeded
from ..inbox.registry import active_doc_ids
from ..resources import WarehouseResource
from ..review import blocked_documents, markdown_table, summary_line

DOCUMENT_STATUS = "document_status"


@dg.asset(
    group_name="review",
    deps=["search_index"],
    kinds={"markdown"},
    description="The blocked documents, each with the first blocking check it failed, the check's message, "
    "pages and offending ids; the document_status check is red while any document is blocked.",
    check_specs=[
        dg.AssetCheckSpec(
            DOCUMENT_STATUS,
            asset="review",
            description="Fails while any document is blocked: lists each with the rule that stopped it and its evidence.",
        )
    ],
)
def review(context: dg.AssetExecutionContext, warehouse: WarehouseResource) -> dg.MaterializeResult:
    wh = warehouse.get()
    doc_ids = active_doc_ids(wh)
    statuses = statuses_not_all_succeeded(context.instance, doc_ids)  # a blocked document has a failure among them

    def evidence(rule, doc_id):
        return rule.apply(load_document_rows(wh, doc_id, rule.needs))

    blocked = blocked_documents(statuses, ALL_RULES, evidence)
    table = markdown_table(blocked, len(doc_ids))
    rows = [
        {"doc_id": d.doc_id, "blocked_by": d.blocked_by, "message": d.message, "pages": list(d.pages),
         "offending_ids": list(d.offending_ids), "count": d.count, "other_failed": list(d.other_failed)}
        for d in blocked
    ]
    metadata = {
        "blocked": dg.MetadataValue.md(table),
        "blocked_count": len(blocked),
        "documents": len(doc_ids),
        "blocked_documents": dg.MetadataValue.json(rows),
    }
    return dg.MaterializeResult(
        metadata=metadata,
        check_results=[
            dg.AssetCheckResult(
                check_name=DOCUMENT_STATUS,
                passed=not blocked,
                description=summary_line(blocked, len(doc_ids))[:1000],
                metadata=metadata,
            )
        ],
    )
