"""ADR 0006's ten invariants, as rules on the ``chunks`` asset.

Each rule reads one document's stored rows (:class:`DocumentRows`: chunks
and lifted blocks, plus the canonical text for #4) and names its offenders:
block ids for block-level invariants, chunk ids for chunk-level ones, and
``chunk_id[block_id]`` for a single attachment on a chunk. Numbering and names
follow the ADR's "Invariants and gates" list exactly.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from typing import Any, Iterable, Iterator

from duocthu_assets.chunking.descriptors import allowed_descriptor_texts, page_reference
from duocthu_assets.parse.pdf.furniture.page_numbers import parse_page_number

from .ocr import doubted_page_numbers, number_in_doubt
from .rules import DocumentRows, Row, Rule, RuleResult

ASSET = "chunks"
DESCRIPTOR = "block_descriptor"
BLOCK_INFIX = ":block:"

# #4: block text shorter than this is too generic to call a leak ("1,5 g",
# "mỗi 6 giờ" occur in honest prose); see block_text_leaked_into_chunk_text.
MIN_LEAK_CHARS = 12
_GRAM = 8  # sampled-gram search: any needle of >= MIN_LEAK_CHARS chars is found
_STRIDE = MIN_LEAK_CHARS - _GRAM + 1


# -- shared readers ------------------------------------------------------------


def descriptor_block_id(chunk: Row) -> str:
    """The block a descriptor chunk describes: from its id
    ``{doc_id}:{section_key}:block:{block_id}``, else its source element."""
    _, infix, block_id = chunk["chunk_id"].partition(BLOCK_INFIX)
    if infix and block_id:
        return block_id
    sources = chunk.get("source_elements") or []
    return sources[0] if sources else ""


def descriptors(rows: DocumentRows) -> list[Row]:
    return [c for c in rows.chunks if c["chunk_kind"] == DESCRIPTOR]


def attachments(rows: DocumentRows) -> Iterator[tuple[Row, Row]]:
    """Every (chunk, attachment) pair of the document."""
    for chunk in rows.chunks:
        for attachment in chunk.get("attachments") or []:
            yield chunk, attachment


def attachment_ref(chunk: Row, attachment: Row) -> str:
    return f"{chunk['chunk_id']}[{attachment['block_id']}]"


def own_attachment(chunk: Row) -> Row | None:
    block_id = descriptor_block_id(chunk)
    return next((a for a in chunk.get("attachments") or [] if a["block_id"] == block_id), None)


def _chunk_pages(chunk: Row) -> list[int]:
    return [r["page_no"] for r in chunk.get("regions") or []]


# -- 1 -------------------------------------------------------------------------


def section_with_lifted_block_but_no_chunk_reference(rows: DocumentRows) -> RuleResult:
    """Every section instance that lost a block has a chunk whose attachments
    reference it: one of the section's prose/table_row chunks when the section
    has any (a consumer reading the section's prose must learn of the block),
    its descriptor only when the section has no other chunk."""
    by_section: dict[int, list[Row]] = {}
    for chunk in rows.chunks:
        by_section.setdefault(chunk["section_index"], []).append(chunk)
    offenders, pages = [], []
    for block in rows.blocks:
        in_section = by_section.get(block["section_index"], [])
        content = [c for c in in_section if c["chunk_kind"] != DESCRIPTOR]
        candidates = content or in_section
        if not any(a["block_id"] == block["block_id"] for c in candidates for a in c.get("attachments") or []):
            offenders.append(block["block_id"])
            pages.append(block["page_no"])
    return RuleResult.from_offenders(offenders, "lifted blocks whose section has no chunk referencing them", pages)


# -- 2 -------------------------------------------------------------------------


def attachment_block_id_unknown(rows: DocumentRows) -> RuleResult:
    """Every attachment's block_id is a lifted block of this document."""
    known = {b["block_id"] for b in rows.blocks}
    bad = [(c, a) for c, a in attachments(rows) if a["block_id"] not in known]
    return RuleResult.from_offenders(
        (attachment_ref(c, a) for c, a in bad),
        "attachments referencing a block this document does not have",
        (a.get("physical_page") for _, a in bad),
    )


# -- 3 -------------------------------------------------------------------------


def _bbox_ok(bbox: Any) -> bool:
    if bbox is None or len(bbox) != 4 or any(v is None or not math.isfinite(v) for v in bbox):
        return False
    x0, y0, x1, y1 = bbox
    return x1 > x0 and y1 > y0


def attachment_without_page_or_bbox(rows: DocumentRows) -> RuleResult:
    """Every attachment has a physical page (>= 1) and a finite, non-empty
    bbox, so its crop can be rendered and cited."""
    bad = [
        (c, a)
        for c, a in attachments(rows)
        if a.get("physical_page") is None or a["physical_page"] < 1 or not _bbox_ok(a.get("bbox"))
    ]
    return RuleResult.from_offenders(
        (attachment_ref(c, a) for c, a in bad),
        "attachments without a physical page or a usable bbox",
        (a.get("physical_page") for _, a in bad),
    )


# -- 4 -------------------------------------------------------------------------

_WHITESPACE = re.compile(r"\s+")


def normalize_for_leaks(text: str) -> str:
    """NFC, every whitespace run as one space, trimmed: layout differences
    (line breaks, tabs between cells) cannot hide a leak."""
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


class NeedleSet:
    """Find which of many strings (each >= MIN_LEAK_CHARS) occur in a text,
    in one pass: every ``_GRAM``-gram of every needle is indexed, and the text
    is sampled every ``_STRIDE`` characters, which is enough to hit every
    occurrence of a needle of at least ``MIN_LEAK_CHARS`` characters."""

    def __init__(self, needles: list[str]):
        if any(len(n) < MIN_LEAK_CHARS for n in needles):
            raise ValueError(f"needles must have at least {MIN_LEAK_CHARS} characters")
        self.needles = needles
        self.index: dict[str, list[tuple[int, int]]] = {}
        for k, needle in enumerate(needles):
            for off in range(len(needle) - _GRAM + 1):
                self.index.setdefault(needle[off : off + _GRAM], []).append((k, off))

    def found_in(self, text: str) -> set[int]:
        found: set[int] = set()
        if not self.needles:
            return found
        for j in range(0, len(text) - _GRAM + 1, _STRIDE):
            for k, off in self.index.get(text[j : j + _GRAM], ()):
                start = j - off
                if k not in found and start >= 0 and text.startswith(self.needles[k], start):
                    found.add(k)
        return found


def _canonical_text(rows: DocumentRows) -> str | None:
    if rows.parsed and rows.parsed.get("canonical_text") is not None:
        return rows.parsed["canonical_text"]
    if rows.segments:
        return "\n\n".join(s["text"] for s in rows.segments)
    return None


def block_text_leaked_into_chunk_text(rows: DocumentRows) -> RuleResult:
    """No chunk's embedded text contains a quarantined block's text.

    Precisely, after :func:`normalize_for_leaks` on both sides, a chunk
    offends when its text contains

    (a) the block's whole linearised text (if it has >= 12 characters), or
    (b) one line of the block's text of >= 12 characters that does *not*
        occur anywhere in the document's canonical text.

    (b) catches a partial leak (one row of a dosing table pasted into prose)
    without flagging ordinary prose: the canonical text is built from prose
    segments only, blocks excluded, so a line that also occurs there (a
    caption the prose repeats, "Liều lượng và cách dùng") was written by the
    author as prose and is not evidence of a leak. Lines under 12 characters
    ("≥ 30", "1,5 - 3 g") are too generic to attribute. Without a stored
    canonical text or segments, (b) is skipped and only (a) runs.
    Non-quarantined blocks are not checked.
    """
    blocks = [b for b in rows.blocks if b.get("quarantined", True) and b.get("text")]
    needles: list[str] = []
    owners: list[Row] = []
    whole: list[bool] = []
    for block in blocks:
        full = normalize_for_leaks(block["text"])
        seen = set()
        if len(full) >= MIN_LEAK_CHARS:
            needles.append(full)
            owners.append(block)
            whole.append(True)
            seen.add(full)
        for line in block["text"].splitlines():
            line = normalize_for_leaks(line)
            if len(line) >= MIN_LEAK_CHARS and line not in seen:
                seen.add(line)
                needles.append(line)
                owners.append(block)
                whole.append(False)
    canonical = _canonical_text(rows)
    if canonical is not None:
        in_prose = NeedleSet([n for n, w in zip(needles, whole) if not w]).found_in(normalize_for_leaks(canonical))
        line_ids = [k for k, w in enumerate(whole) if not w]
        excluded = {line_ids[i] for i in in_prose}
    else:
        excluded = {k for k, w in enumerate(whole) if not w}
    active = [k for k in range(len(needles)) if k not in excluded]
    search = NeedleSet([needles[k] for k in active])
    offenders, pages = [], []
    for chunk in rows.chunks:
        hits = search.found_in(normalize_for_leaks(chunk["text"]))
        if hits:
            offenders.append(chunk["chunk_id"])
            pages.extend(owners[active[i]]["page_no"] for i in hits)
    return RuleResult.from_offenders(offenders, "chunks whose text contains a quarantined block's text", pages)


# -- 5 -------------------------------------------------------------------------


def descriptor_chunk_count_equals_block_count(rows: DocumentRows) -> RuleResult:
    """Exactly one descriptor chunk per lifted block, and no descriptor for a
    block the document does not have (so the counts are equal)."""
    descs = descriptors(rows)
    per_block = Counter(descriptor_block_id(c) for c in descs)
    known = {b["block_id"]: b for b in rows.blocks}
    offenders = [b for b in known if per_block[b] != 1]
    offenders += [b for b in per_block if b not in known]
    pages = [known[b]["page_no"] for b in offenders if b in known]
    return RuleResult.from_offenders(
        offenders,
        f"blocks without exactly one descriptor chunk ({len(known)} blocks, {len(descs)} descriptor chunks)",
        pages,
    )


# -- 6 -------------------------------------------------------------------------


def descriptor_chunk_without_attachment(rows: DocumentRows) -> RuleResult:
    """Every descriptor chunk carries the attachment of the block it describes."""
    bad = [c for c in descriptors(rows) if own_attachment(c) is None]
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "descriptor chunks without their block's attachment",
        (p for c in bad for p in _chunk_pages(c)),
    )


# -- 7 -------------------------------------------------------------------------


def attachment_header_row_present(rows: DocumentRows) -> RuleResult:
    """header_row is embargoed (ADR 0006 §2): every attachment's is empty."""
    bad = [(c, a) for c, a in attachments(rows) if a.get("header_row")]
    return RuleResult.from_offenders(
        (attachment_ref(c, a) for c, a in bad),
        "attachments with a non-empty header_row (embargoed until verified)",
        (a.get("physical_page") for _, a in bad),
    )


# -- 8 -------------------------------------------------------------------------


def descriptor_with_unverified_columns(rows: DocumentRows) -> RuleResult:
    """A descriptor's text is exactly the metadata rendering of its block
    (entry title, section title, kind word, page; Vietnamese or English), so
    nothing else, no cell value, header_row item or block text, is in it. A
    descriptor whose block is unknown cannot be verified and offends too."""
    blocks = {b["block_id"]: b for b in rows.blocks}
    bad = []
    for chunk in descriptors(rows):
        block = blocks.get(descriptor_block_id(chunk))
        if block is None:
            bad.append(chunk)
            continue
        allowed = allowed_descriptor_texts(
            block.get("entry_title") or "",
            block.get("section_title") or "",
            block["kind"],
            block.get("printed_page"),
            block["page_no"],
            tuple(block.get("headings") or ()),
            block.get("printed_label") or "",
        )
        if chunk["text"] not in allowed:
            bad.append(chunk)
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "descriptor chunks whose text is not built from their block's metadata alone",
        (p for c in bad for p in _chunk_pages(c)),
    )


# -- 9 -------------------------------------------------------------------------


def descriptor_range_not_attachment_page(rows: DocumentRows) -> RuleResult:
    """The page a descriptor's text names is its attachment's page: ``trang
    in N`` / ``printed page N`` must be the attachment's printed_page;
    ``trang N của tệp`` / ``page N of the file`` its physical_page, and only
    when the page prints no number. A descriptor naming no page offends."""
    bad = []
    for chunk in descriptors(rows):
        attachment = own_attachment(chunk)
        named = page_reference(chunk["text"])
        if attachment is None or named is None:
            bad.append(chunk)
            continue
        which, number = named
        if which == "printed":
            ok = attachment.get("printed_page") == number if isinstance(number, int) else attachment.get("printed_label") == number
        else:
            ok = attachment.get("printed_page") is None and attachment.get("physical_page") == number
        if not ok:
            bad.append(chunk)
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "descriptor chunks naming a page that is not their attachment's page",
        (p for c in bad for p in _chunk_pages(c)),
    )


# -- 10 ------------------------------------------------------------------------


def _verified_labels(rows: DocumentRows) -> dict[int, str]:
    """The physical pages whose printed label the parse verified, and the label."""
    labels = {k: label for k, label in enumerate((rows.parsed or {}).get("page_labels") or [], 1) if label}
    for s in rows.segments:
        if s.get("page_no") is not None and (s.get("printed_page") is not None or s.get("printed_label")):
            labels.setdefault(s["page_no"], s.get("printed_label") or str(s["printed_page"]))
    return labels


def _numbered_pages(rows: DocumentRows) -> list[int]:
    """The physical pages whose printed label the parse verified."""
    return sorted(_verified_labels(rows))


FURNITURE, IN_PROSE = "page-label furniture", "a paragraph of prose"


def _printed_numbers(rows: DocumentRows) -> dict[int, tuple[str, str]]:
    """Per page, a number the page prints that the parse did not verify as
    its page number, and where the parse put it: page-label furniture, or a
    segment that is nothing but a page number (``1`` left in prose at the
    foot of the page)."""
    found: dict[int, tuple[str, str]] = {}
    for f in (rows.parsed or {}).get("furniture") or []:
        if f.get("kind") == "page_label":
            found.setdefault(f["page_no"], (f.get("text") or "", FURNITURE))
    for s in rows.segments:
        if (s.get("page_no") is not None and s.get("kind") != "heading" and parse_page_number(s.get("text") or "")
                and _at_head_or_foot(s, rows.segments) and not number_in_doubt(s)):
            found.setdefault(s["page_no"], (s["text"].strip(), IN_PROSE))
    return found



def _at_head_or_foot(segment: Row, segments) -> bool:
    """Whether no other segment of its page starts above it, or none ends
    under it: a page number is printed at the head or the foot of a page;
    a lone number with the page's text over and under it is a figure's
    tick or a cell. Unknown without boxes: yes."""
    box = segment.get("bbox")
    if box is None or len(box) != 4:
        return True
    others = [o.get("bbox") for o in segments if o is not segment and o.get("page_no") == segment["page_no"]]
    others = [b for b in others if b is not None and len(b) == 4]
    return not any(b[1] < box[1] - 1 for b in others) or not any(b[3] > box[3] + 1 for b in others)


def _why_unverified(page: int, text: str, where: str, labels: dict[int, str], page_count: int) -> str:
    """Why a number page ``page`` prints is not its printed page: left in
    prose, it was never read as one; as furniture, it repeats another page's
    number, breaks the numbering of the verified pages, or stands alone."""
    said = f"page {page} prints {text!r} as {where}, not verified as its page number"
    if where == IN_PROSE:
        return said + " (a page number left in a chunk's text)"
    number = parse_page_number(text)
    verified = {k: label for k, label in labels.items() if k != page}
    twin = next((k for k, label in verified.items() if number is not None and label == number.label), None)
    if twin is not None:
        return said + f": page {twin} prints it too"
    arabic = {k: int(label) for k, label in verified.items() if label.isdigit()}
    if arabic:
        k = min(arabic, key=lambda j: abs(j - page))
        expected = arabic[k] + page - k
        if number is not None and number.value == expected:
            return said + f": it continues the numbering (page {k} is printed {arabic[k]}), yet the page has no printed page"
        return said + f": it does not continue the numbering (page {k} is printed {arabic[k]}, so page {page} would be {expected})"
    if not verified:
        return said + f": no other page prints a number that continues it (a lone number on a {page_count}-page document is no proof)"
    return said


def attachment_without_printed_page(rows: DocumentRows) -> RuleResult:
    """Every attachment carries the page a reader can turn to: its printed
    page, or its printed label (``xii``, ``A-42``). In a generic document an
    attachment may cite its physical page instead when that page is proven
    to print no number: it lies outside the document's numbered run (before
    its first numbered page, as a paper's title page, or after its last; or
    the document numbers no page) and prints no number the parse saw (no
    page-label furniture, no lone number among its lines). A page inside
    the numbered run, a page that prints a number the parse could not
    verify, and any page of a formulary (it prints every page) offend. On a
    page read by OCR only page numbers read with certainty count: a page
    number OCR read in doubt (withheld as uncertain) is no evidence against
    the numbering, and the page cites its physical page; a page number read
    wrong with certainty still offends."""
    missing = [(c, a) for c, a in attachments(rows) if a.get("printed_page") is None and not a.get("printed_label")]
    profile = (rows.raw or {}).get("profile", "")
    numbered = _numbered_pages(rows)
    printed = _printed_numbers(rows)
    doubted = doubted_page_numbers(rows, _at_head_or_foot)

    def proven_unnumbered(page: Any) -> bool:
        # without the parse's row, its page-number furniture is unknown; with
        # it and no segment (a page that is one table), nothing was left unread
        if rows.parsed is None or not isinstance(page, int) or page in printed:
            return False
        if page in doubted:  # its printed number was read by OCR in doubt: the physical page is the one to trust
            return True
        return profile != "formulary" and (not numbered or page < numbered[0] or page > numbered[-1])

    bad = [(c, a) for c, a in missing if not proven_unnumbered(a.get("physical_page"))]
    if missing and not bad:
        # the physical page is the only page a reader has, and the descriptor says so ("page N of the file")
        cited_pages = sorted({a["physical_page"] for _, a in missing})
        in_doubt = [p for p in cited_pages if p in doubted]
        doubt = (f"attachments on pages {', '.join(map(str, in_doubt))} cite the physical page: those pages were read by OCR"
                 " and their printed number only in doubt (no evidence against the numbering)") if in_doubt else ""
        if not numbered:
            return RuleResult(True, message="; ".join(["the document prints no page numbers; attachments cite the physical page"] + [doubt] * bool(doubt)))
        cited = ", ".join(str(p) for p in cited_pages if p not in doubted)
        outside = (f"attachments on pages {cited} cite the physical page: those pages lie outside the numbered pages"
                   f" ({numbered[0]}-{numbered[-1]}) and print no number") if cited else ""
        return RuleResult(True, message="; ".join(m for m in (outside, doubt) if m))
    pages = sorted({a.get("physical_page") for _, a in bad if a.get("physical_page") is not None})
    what = "attachments without a printed page"
    if bad:
        labels = _verified_labels(rows)
        page_count = (rows.parsed or {}).get("page_count") or len((rows.parsed or {}).get("page_labels") or ()) or max(pages)
        why = [_why_unverified(p, *printed[p], labels, page_count) for p in pages if p in printed]
        run = f"the document's numbered pages are {numbered[0]}-{numbered[-1]}" if numbered else "the document numbers no page"
        what += f" (physical pages {', '.join(map(str, pages)) or 'unknown'}: not proven to print no number; {'; '.join(why + [run])})"
    return RuleResult.from_offenders((attachment_ref(c, a) for c, a in bad), what, pages)


def _rule(number: int, name: str, evaluate, needs: Iterable[str] = ("chunks", "blocks")) -> Rule:
    return Rule.of(f"adr0006_{number:02d}_{name}", ASSET, evaluate, needs, prefix=f"ADR 0006 invariant {number}: ")


ADR0006_RULES: list[Rule] = [
    _rule(1, "section_with_lifted_block_but_no_chunk_reference", section_with_lifted_block_but_no_chunk_reference),
    _rule(2, "attachment_block_id_unknown", attachment_block_id_unknown),
    _rule(3, "attachment_without_page_or_bbox", attachment_without_page_or_bbox, ("chunks",)),
    _rule(
        4,
        "block_text_leaked_into_chunk_text",
        block_text_leaked_into_chunk_text,
        ("chunks", "blocks", "parsed", "segments"),
    ),
    _rule(5, "descriptor_chunk_count_equals_block_count", descriptor_chunk_count_equals_block_count),
    _rule(6, "descriptor_chunk_without_attachment", descriptor_chunk_without_attachment, ("chunks",)),
    _rule(7, "attachment_header_row_present", attachment_header_row_present, ("chunks",)),
    _rule(8, "descriptor_with_unverified_columns", descriptor_with_unverified_columns),
    _rule(9, "descriptor_range_not_attachment_page", descriptor_range_not_attachment_page, ("chunks",)),
    _rule(10, "attachment_without_printed_page", attachment_without_printed_page, ("chunks", "segments", "raw", "parsed")),
]
