"""The chunk contract beyond ADR 0006, as rules on the ``chunks`` asset.

DESIGN.md's chunk rules: the 512-token cap (recounted, never trusting the
stored ``token_count``), one section per chunk, spans that resolve against
the stored canonical text, a consistent prev/next chain, and the code's
``schema_version`` on every row. Two more guard the project's promise that
nothing is silently lost or corrupted: every segment's text is covered by
some chunk's spans, and the derived fields (``content_hash``,
``has_quarantined_content``, ``token_count``, the ``chunk_id`` form) agree
with what they are derived from.
"""

from __future__ import annotations

import bisect
import hashlib
from collections import Counter

from duocthu_assets.chunking.tokenizer import count_tokens
from duocthu_assets.model import SCHEMA_VERSION
from duocthu_assets.settings import MAX_CHUNK_TOKENS

from .adr0006 import BLOCK_INFIX, DESCRIPTOR, descriptor_block_id
from .rules import DocumentRows, Row, Rule, RuleResult

ASSET = "chunks"
ELLIPSIS = "…"


def _pages(chunk: Row) -> list[int]:
    return [r["page_no"] for r in chunk.get("regions") or []]


def chunk_over_max_tokens(rows: DocumentRows) -> RuleResult:
    """No chunk's text is over 512 cl100k tokens (recounted here): ADR 0018's
    hard cap, whatever a collection sets (a collection's own, lower
    max_chunk_tokens is checked by adr0018_07_chunk_over_document_max_tokens)."""
    bad = [c for c in rows.chunks if count_tokens(c["text"]) > MAX_CHUNK_TOKENS]
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        f"chunks over {MAX_CHUNK_TOKENS} cl100k tokens",
        (p for c in bad for p in _pages(c)),
    )


def chunk_spans_two_sections(rows: DocumentRows) -> RuleResult:
    """Every source element of a chunk (segments; the block for a
    descriptor) is in the chunk's own section instance (``section_index``).
    A source element that does not exist offends too: nothing then proves
    the chunk stays in one section."""
    where = {s["segment_id"]: s["section_index"] for s in rows.segments}
    where.update({b["block_id"]: b["section_index"] for b in rows.blocks})
    bad = [
        c
        for c in rows.chunks
        if not c.get("source_elements")
        or any(where.get(e) != c["section_index"] for e in c["source_elements"])
    ]
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "chunks whose source elements are not all in the chunk's one section",
        (p for c in bad for p in _pages(c)),
    )


def _is_heading_context(prefix: str, headings: list[str]) -> bool:
    """True when ``prefix`` is whitespace or a heading-context line made only
    of the chunk's own headings (possibly shortened with ``…``)."""
    if not prefix.strip():
        return True
    # split on ">" rather than " > ": a part of a heading that itself holds
    # ">" is still a substring of that heading
    for part in prefix.split(">"):
        part = part.strip().strip(ELLIPSIS).strip()
        if part and not any(part in h for h in headings):
            return False
    return True


def spans_resolve(text: str, span_texts: list[str], headings: list[str]) -> bool:
    """The texts of the spans, in order, make up the chunk text: an optional
    heading-context prefix (only the chunk's headings), then each span's
    text, separated by nothing but whitespace, then nothing but whitespace."""
    if not span_texts:
        return False
    first = span_texts[0]
    start = text.find(first)
    while start != -1:
        pos = start + len(first)
        for piece in span_texts[1:]:
            nxt = text.find(piece, pos)
            if nxt == -1 or text[pos:nxt].strip():
                break
            pos = nxt + len(piece)
        else:
            if not text[pos:].strip() and _is_heading_context(text[:start], headings):
                return True
        start = text.find(first, start + 1)
    return False


def span_does_not_resolve(rows: DocumentRows) -> RuleResult:
    """Every span lies inside the stored canonical text and the chunk text is
    exactly its spans' texts in order (see :func:`spans_resolve`). A prose or
    table_row chunk without spans offends; a descriptor has none (its text
    is metadata, checked by ADR 0006 #8) unless it claims some."""
    canonical = (rows.parsed or {}).get("canonical_text")
    bad = []
    for chunk in rows.chunks:
        spans = chunk.get("spans") or []
        if chunk["chunk_kind"] == DESCRIPTOR and not spans:
            continue
        if canonical is None:
            bad.append(chunk)
            continue
        if any(s["offset"] < 0 or s["length"] <= 0 or s["offset"] + s["length"] > len(canonical) for s in spans):
            bad.append(chunk)
            continue
        texts = [canonical[s["offset"] : s["offset"] + s["length"]] for s in spans]
        if not spans_resolve(chunk["text"], texts, list(chunk.get("headings") or [])):
            bad.append(chunk)
    what = "chunks whose spans do not resolve to their text"
    if canonical is None:
        what += " (the document's canonical text is not stored)"
    return RuleResult.from_offenders((c["chunk_id"] for c in bad), what, (p for c in bad for p in _pages(c)))


def prev_next_chain_broken(rows: DocumentRows) -> RuleResult:
    """chunk_index runs 0..n-1 with unique chunk ids, and each chunk's
    prev/next are its neighbours in that order (None at the ends)."""
    chunks = sorted(rows.chunks, key=lambda c: c["chunk_index"])
    ids = [c["chunk_id"] for c in chunks]
    duplicated = {i for i, n in Counter(ids).items() if n > 1}
    bad = []
    for n, chunk in enumerate(chunks):
        prev_id = ids[n - 1] if n > 0 else None
        next_id = ids[n + 1] if n + 1 < len(ids) else None
        if (
            chunk["chunk_index"] != n
            or chunk["chunk_id"] in duplicated
            or chunk.get("prev_chunk_id") != prev_id
            or chunk.get("next_chunk_id") != next_id
        ):
            bad.append(chunk)
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "chunks whose prev/next links or chunk_index break the chain",
        (p for c in bad for p in _pages(c)),
    )


def schema_version_mismatch(rows: DocumentRows) -> RuleResult:
    """Every chunk row carries the schema_version this code writes."""
    bad = [c for c in rows.chunks if c.get("schema_version") != SCHEMA_VERSION]
    found = sorted({str(c.get("schema_version")) for c in bad})
    what = f"chunk rows with a schema_version other than {SCHEMA_VERSION}"
    if found:
        what += f" (found {', '.join(found)})"
    return RuleResult.from_offenders((c["chunk_id"] for c in bad), what)


def segment_not_covered_by_chunks(rows: DocumentRows) -> RuleResult:
    """Every non-whitespace character of every segment lies inside some
    chunk's span: no text of the canonical document is silently dropped."""
    intervals = sorted(
        (s["offset"], s["offset"] + s["length"]) for c in rows.chunks for s in c.get("spans") or [] if s["length"] > 0
    )
    merged: list[list[int]] = []
    for a, b in intervals:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [a for a, _ in merged]
    bad = []
    for segment in rows.segments:
        text, offset = segment["text"], segment["offset"]
        cursor = offset
        k = max(bisect.bisect_right(starts, offset) - 1, 0)
        uncovered = []
        while cursor < offset + len(text):
            if k < len(merged) and merged[k][0] <= cursor < merged[k][1]:
                cursor = merged[k][1]
                k += 1
                continue
            if k < len(merged) and merged[k][1] <= cursor:
                k += 1
                continue
            gap_end = min(merged[k][0], offset + len(text)) if k < len(merged) else offset + len(text)
            uncovered.append(text[cursor - offset : gap_end - offset])
            cursor = gap_end
        if any(piece.strip() for piece in uncovered):
            bad.append(segment)
    return RuleResult.from_offenders(
        (s["segment_id"] for s in bad),
        "segments with text no chunk covers",
        (s.get("page_no") for s in bad),
    )


def _expected_chunk_id(chunk: Row) -> str:
    doc, key = chunk["doc_id"], chunk["section_key"]
    if chunk["chunk_kind"] == DESCRIPTOR:
        return f"{doc}:{key}{BLOCK_INFIX}{descriptor_block_id(chunk)}"
    return f"{doc}:{key}:{chunk['chunk_index']}"


def chunk_derived_field_mismatch(rows: DocumentRows) -> RuleResult:
    """The fields derived from others agree with them: ``content_hash`` is the
    sha256 of ``text`` (a stale hash would silently skip re-embedding),
    ``has_quarantined_content`` is whether any attachment is quarantined,
    ``token_count`` is the recounted cl100k count, ``doc_id`` is the
    document's and ``chunk_id`` has the contract's form."""
    bad = []
    for chunk in rows.chunks:
        quarantined = any(a.get("quarantined") for a in chunk.get("attachments") or [])
        if (
            chunk.get("content_hash") != hashlib.sha256(chunk["text"].encode("utf-8")).hexdigest()
            or chunk.get("has_quarantined_content") is not quarantined
            or chunk.get("token_count") != count_tokens(chunk["text"])
            or chunk.get("doc_id") != rows.doc_id
            or chunk["chunk_id"] != _expected_chunk_id(chunk)
        ):
            bad.append(chunk)
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "chunks whose content_hash, has_quarantined_content, token_count, doc_id or chunk_id disagree with their data",
        (p for c in bad for p in _pages(c)),
    )


def _rule(name: str, evaluate, needs: tuple[str, ...]) -> Rule:
    doc = (evaluate.__doc__ or "").strip().split("\n\n")[0]
    return Rule(name=name, asset=ASSET, description=" ".join(doc.split()), evaluate=evaluate, needs=needs)


CONTRACT_RULES: list[Rule] = [
    _rule("chunk_over_max_tokens", chunk_over_max_tokens, ("chunks",)),
    _rule("chunk_spans_two_sections", chunk_spans_two_sections, ("chunks", "segments", "blocks")),
    _rule("span_does_not_resolve", span_does_not_resolve, ("chunks", "parsed")),
    _rule("prev_next_chain_broken", prev_next_chain_broken, ("chunks",)),
    _rule("schema_version_mismatch", schema_version_mismatch, ("chunks",)),
    _rule("segment_not_covered_by_chunks", segment_not_covered_by_chunks, ("chunks", "segments")),
    _rule("chunk_derived_field_mismatch", chunk_derived_field_mismatch, ("chunks",)),
]
