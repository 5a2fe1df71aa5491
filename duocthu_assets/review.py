"""Each document's one status — ok, blocked (by which rule), rejected (why),
failed (why) — and the reviewer's table of those not ok, Dagster-free.

One function decides it for every view: :func:`file_status` reads what the
document's own rows say (a file refused or unreadable is *rejected*, one
whose parse or later step failed is *failed*); only a document its rows call
fine can be *blocked*, by the first blocking check it failed. `duocthu
ingest`'s summary (ingest/report.py) and the ``review`` asset
(assets/review.py) both call it, so they agree. The check statuses come from
Dagster (each check's latest evaluation per document, see
gates.check_statuses); the evidence is the failing rule evaluated again on
the same stored rows, so it is exactly what the check reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from checks.plain import PLAIN, plain_message
from checks.rules import Rule, RuleResult

FAILED = "FAILED"
OK, BLOCKED, REJECTED, FAILED_STATUS = "ok", "blocked", "rejected", "failed"
STATUS_ORDER = (BLOCKED, FAILED_STATUS, REJECTED)  # the order a reviewer reads them in


def file_status(raw: dict[str, Any] | None, parsed: dict[str, Any] | None) -> tuple[str, str] | None:
    """(rejected | failed, why) when the document's own rows say so; None
    when they do not (then its blocking checks decide: ok or blocked)."""
    if raw is None:
        return REJECTED, "not read"
    if raw["status"] == "rejected":
        return REJECTED, raw["reason"]
    if parsed is not None and parsed["status"] == "rejected":
        return REJECTED, parsed["reason"]
    if parsed is not None and parsed["status"] == "failed":
        return FAILED_STATUS, parsed["reason"]
    return None


def status_of_failed_rule(rule: str, message: str) -> str:
    """The status a document's first failed check gives it when its rows
    are not at hand (a run's tags): the checks that carry the rows' own
    word (document_accepted, document_parsed, a step's) say rejected or
    failed as :func:`file_status` would; any other rule blocks."""
    if rule == "document_accepted":
        return REJECTED
    if rule == "document_parsed":
        return REJECTED if message.startswith("rejected") else FAILED_STATUS
    if rule.endswith("_step_completed"):
        return FAILED_STATUS
    return BLOCKED


@dataclass(frozen=True)
class BlockedDocument:
    """A document that is not ok: blocked, rejected or failed, with the
    check that stopped it and that check's evidence."""

    doc_id: str
    asset: str  # the asset whose check stopped it
    rule: str  # the first failing rule in pipeline order
    message: str
    pages: tuple[int, ...]
    offending_ids: tuple[str, ...]
    count: int
    other_failed: tuple[str, ...] = field(default=())  # further failing checks, asset.rule
    status: str = BLOCKED  # blocked | rejected | failed
    plain: str = ""  # what is wrong, on which pages, and what to do, in plain words (checks/plain.py)

    @property
    def blocked_by(self) -> str:
        return f"{self.asset}.{self.rule}"


def blocked_documents(
    statuses: dict[str, dict[str, str]],
    rules: Iterable[Rule],
    evidence: Callable[[Rule, str], RuleResult],
    file_statuses: Callable[[str], tuple[str, str] | None] = lambda doc_id: None,
) -> list[BlockedDocument]:
    """Every document with a failed check, with its first failing rule
    (``rules`` in pipeline order) and its status (:func:`file_status`
    through ``file_statuses``: rejected and failed documents are not
    blocked), sorted by doc_id."""
    ordered = list(rules)
    found = []
    for doc_id in sorted(statuses):
        failed = [rule for rule in ordered if statuses[doc_id].get(rule.name) == FAILED]
        if not failed:
            continue
        first = failed[0]
        result = evidence(first, doc_id)
        said = file_statuses(doc_id)
        found.append(
            BlockedDocument(
                doc_id=doc_id,
                asset=first.asset,
                rule=first.name,
                message=said[1] if said else result.message,
                pages=tuple(result.pages),
                offending_ids=tuple(result.offending_ids),
                count=result.count,
                other_failed=tuple(f"{r.asset}.{r.name}" for r in failed[1:]),
                status=said[0] if said else BLOCKED,
                plain=said[1] if said else (plain_message(first.name, result) if first.name in PLAIN else result.message),
            )
        )
    return found


def counts(not_ok: list[BlockedDocument], checked: int) -> dict[str, int]:
    """How many documents have each status (ok: the rest of ``checked``)."""
    found = {status: sum(d.status == status for d in not_ok) for status in STATUS_ORDER}
    return {OK: checked - len(not_ok), **found}


def counts_line(not_ok: list[BlockedDocument], checked: int) -> str:
    by_status = counts(not_ok, checked)
    return f"{by_status[BLOCKED]} blocked, {by_status[REJECTED]} rejected, {by_status[FAILED_STATUS]} failed, {by_status[OK]} ok of {checked} documents"


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def in_review_order(not_ok: list[BlockedDocument]) -> list[BlockedDocument]:
    """In :data:`STATUS_ORDER` (blocked first), by doc_id within each status."""
    return sorted(not_ok, key=lambda d: (STATUS_ORDER.index(d.status), d.doc_id))


def markdown_table(not_ok: list[BlockedDocument], checked: int) -> str:
    """The documents not ok, blocked first: a narrow table (document,
    status, rule id, pages) to scan, then one paragraph each, as wide as the
    page — what is wrong and what to do in plain words, the rule's id
    beside it, its own message as details (a wide message column in the
    table was one word wide in the UI's metadata view)."""
    if not not_ok:
        return f"No blocked documents: all {checked} passed every blocking check they reached."
    lines = [
        f"**{counts_line(not_ok, checked)}**",
        "",
        "| document | status | rule | pages |",
        "|---|---|---|---|",
    ]
    ordered = in_review_order(not_ok)
    for doc in ordered:
        pages = ", ".join(str(p) for p in doc.pages[:10]) + (" …" if len(doc.pages) > 10 else "") or "—"
        lines.append(f"| {_cell(doc.doc_id, 48)} | {doc.status} | `{doc.blocked_by}` | {pages} |")
    lines.append("")
    for doc in ordered:
        lines.append(f"- **{_cell(doc.doc_id, 64)}** — {doc.status} (`{doc.blocked_by}`): {_cell(doc.plain or doc.message, 600)}")
        if doc.status == BLOCKED and doc.message:  # a rejected or failed one's reason is its plain words
            lines.append(f"  *Details:* {_cell(doc.message, 400)}")
    return "\n".join(lines)


def summary_line(not_ok: list[BlockedDocument], checked: int) -> str:
    """One line for the check's description (shown in the UI's check lists)."""
    if not not_ok:
        return f"no blocked documents ({checked} checked)"
    named = "; ".join(f"{d.doc_id}: {d.status} ({d.blocked_by})" for d in in_review_order(not_ok)[:10])
    more = f"; … {len(not_ok) - 10} more" if len(not_ok) > 10 else ""
    return f"{counts_line(not_ok, checked)} — {named}{more}"
