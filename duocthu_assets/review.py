"""Which documents are blocked, by which rule, with the rule's evidence: what
a reviewer needs at a glance, Dagster-free. The statuses come from Dagster
(each check's latest evaluation per document, see gates.check_statuses); the
evidence is the failing rule evaluated again on the same stored rows, so it
is exactly what the check reported for the rows it checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from checks.rules import Rule, RuleResult

FAILED = "FAILED"


@dataclass(frozen=True)
class BlockedDocument:
    doc_id: str
    asset: str  # the asset whose check stopped it
    rule: str  # the first failing rule in pipeline order
    message: str
    pages: tuple[int, ...]
    offending_ids: tuple[str, ...]
    count: int
    other_failed: tuple[str, ...] = field(default=())  # further failing checks, asset.rule

    @property
    def blocked_by(self) -> str:
        return f"{self.asset}.{self.rule}"


def blocked_documents(
    statuses: dict[str, dict[str, str]],
    rules: Iterable[Rule],
    evidence: Callable[[Rule, str], RuleResult],
) -> list[BlockedDocument]:
    """Every document with a failed check, stopped by its first failing rule
    (``rules`` in pipeline order), sorted by doc_id."""
    ordered = list(rules)
    found = []
    for doc_id in sorted(statuses):
        failed = [rule for rule in ordered if statuses[doc_id].get(rule.name) == FAILED]
        if not failed:
            continue
        first = failed[0]
        result = evidence(first, doc_id)
        found.append(
            BlockedDocument(
                doc_id=doc_id,
                asset=first.asset,
                rule=first.name,
                message=result.message,
                pages=tuple(result.pages),
                offending_ids=tuple(result.offending_ids),
                count=result.count,
                other_failed=tuple(f"{r.asset}.{r.name}" for r in failed[1:]),
            )
        )
    return found


def _cell(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def markdown_table(blocked: list[BlockedDocument], checked: int) -> str:
    """The blocked documents as a Markdown table, one row each."""
    if not blocked:
        return f"No blocked documents: all {checked} passed every blocking check they reached."
    lines = [
        f"**{len(blocked)} of {checked} documents blocked**",
        "",
        "| document | blocked by | pages | offending ids | message |",
        "|---|---|---|---|---|",
    ]
    for doc in blocked:
        pages = ", ".join(str(p) for p in doc.pages) or "—"
        ids = ", ".join(doc.offending_ids[:5]) + (" …" if doc.count > 5 else "") if doc.offending_ids else "—"
        lines.append(f"| {_cell(doc.doc_id)} | `{doc.blocked_by}` | {pages} | {_cell(ids)} | {_cell(doc.message)} |")
    lines.append("")  # the whole messages, which a narrow table cell cuts
    lines += [f"- **{_cell(doc.doc_id)}** `{doc.blocked_by}`: {_cell(doc.message, 1000)}" for doc in blocked]
    return "\n".join(lines)


def summary_line(blocked: list[BlockedDocument], checked: int) -> str:
    """One line for the check's description (shown in the UI's check lists)."""
    if not blocked:
        return f"no blocked documents ({checked} checked)"
    named = "; ".join(f"{d.doc_id}: {d.blocked_by}" for d in blocked[:10])
    more = f"; … {len(blocked) - 10} more" if len(blocked) > 10 else ""
    return f"{len(blocked)} of {checked} blocked — {named}{more}"
