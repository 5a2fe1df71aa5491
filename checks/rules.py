"""The shape every rule shares, Dagster-free.

A rule reads one document's rows exactly as they are stored (dicts from
``pyarrow.Table.to_pylist()``) and returns a :class:`RuleResult` whose
evidence a reviewer can act on: the offending ids (first 20), their count, the
pages involved, and a one-line message. ``checks/asset_checks.py`` turns each
rule into a partitioned blocking Dagster asset check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from duocthu_assets.settings import Settings

Row = dict[str, Any]
MAX_LISTED_IDS = 20


@dataclass(frozen=True)
class DocumentRows:
    """Everything a rule may look at for one document."""

    doc_id: str
    raw: Row | None = None  # the raw_documents row
    parsed: Row | None = None  # the parsed_documents row (status, canonical_text, ...)
    segments: Sequence[Row] = ()
    blocks: Sequence[Row] = ()
    crops: Sequence[Row] = ()
    chunks: Sequence[Row] = ()
    embeddings: Sequence[Row] = ()
    failures: Mapping[str, str] = field(default_factory=dict)  # step -> why its work on this document raised
    source: bytes | None = None  # the document's own bytes (kept by raw_documents), for rules that re-read its geometry
    settings: Settings | None = None  # what the document was built with (its raw_documents row); None: unknown


@dataclass(frozen=True)
class RuleResult:
    passed: bool
    count: int = 0
    offending_ids: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()
    message: str = ""

    @classmethod
    def raised(cls, exc: BaseException) -> "RuleResult":
        """A rule that raised on a document fails that document, and says
        so: a rule that could not run proved nothing, and the document must
        not reach the index on it (nor the others be stopped by it)."""
        return cls(
            passed=False,
            message=f"the rule could not be evaluated on this document ({type(exc).__name__}: {exc}) — "
            "blocked until it can; the traceback is in the run's log",
        )

    @classmethod
    def from_offenders(
        cls, offenders: Iterable[str], what: str, pages: Iterable[int | None] = ()
    ) -> "RuleResult":
        """Passed when there are no offenders; otherwise a message naming the
        count and the first ids."""
        ids = list(dict.fromkeys(offenders))
        page_list = tuple(sorted({p for p in pages if p is not None}))
        if not ids:
            return cls(passed=True, message=f"no {what}")
        shown = ", ".join(ids[:MAX_LISTED_IDS]) + (" …" if len(ids) > MAX_LISTED_IDS else "")
        return cls(
            passed=False,
            count=len(ids),
            offending_ids=tuple(ids[:MAX_LISTED_IDS]),
            pages=page_list,
            message=f"{len(ids)} {what}: {shown}",
        )


@dataclass(frozen=True)
class Rule:
    """A named, numbered rule over one asset's rows."""

    name: str  # the Dagster check name, e.g. "adr0006_04_block_text_leaked_into_chunk_text"
    asset: str  # the asset the check is attached to
    description: str
    evaluate: Callable[[DocumentRows], RuleResult]
    needs: tuple[str, ...] = field(default=())  # which DocumentRows fields it reads

    @classmethod
    def of(cls, name: str, asset: str, evaluate: Callable[[DocumentRows], RuleResult], needs: Iterable[str], prefix: str = "") -> "Rule":
        """A rule described by ``prefix`` and the first paragraph of its
        function's docstring, on one line."""
        doc = (evaluate.__doc__ or "").strip().split("\n\n")[0]
        return cls(name=name, asset=asset, description=prefix + " ".join(doc.split()), evaluate=evaluate, needs=tuple(needs))

    def apply(self, rows: DocumentRows, on_error: Callable[[BaseException], None] | None = None) -> RuleResult:
        """:attr:`evaluate` on one document; if it raises, a failure naming
        the error (:meth:`RuleResult.raised`) instead of the exception, and
        ``on_error`` called with it (inside the handler: the traceback is
        ``traceback.format_exc()``)."""
        try:
            return self.evaluate(rows)
        except Exception as exc:  # noqa: BLE001 - one document's rule never stops the others
            if on_error is not None:
                on_error(exc)
            return RuleResult.raised(exc)
