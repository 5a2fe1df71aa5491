"""The laid-out pages made into the parse's segments and lifted blocks, in
reading order: segment ids, block ids, each block's anchor (the segment read
before it), printed pages, and the parts of a table continued over a page or
a column linked. Tables and formulas are lifted: their text is kept only on
the block (for checks) and never in a segment."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...model import BlockKind, BlockShape, LiftedBlock, Segment
from ...settings import Settings
from ...settings.pdf import PdfSettings
from ...textnorm import normalize_block
from .blocks.candidates import BlockCandidate
from .blocks.scoring import text_rows
from .geometry import BBox, rounded
from .layout.headings import Draft, classify
from .layout.page import PageLayout
from .layout.paragraphs import Para
from .ocr_spans import segment_provenance
from .read.orientation import turned_box
from .read.rtl import has_rtl, right_to_left_table, row_reading_order
from .records import Fragment, dominant_size

_CONTINUED = ("continued", "cont.", "tiếp", "tiếp theo")


def block_text(fragments: tuple[Fragment, ...]) -> str:
    """A block's linearised text (for checks only): rows top to bottom, cells
    separated by `` | ``, left to right, or in a table of right-to-left text
    right to left (:func:`.read.rtl.row_reading_order`)."""
    rows = [[f.text for f in row] for row in text_rows(list(fragments))]
    if any(has_rtl(t) for row in rows for t in row) and right_to_left_table(rows):
        rows = [[row[k] for k in row_reading_order(row)] for row in rows]
    return "\n".join(" | ".join(row) for row in rows)


@dataclass(frozen=True)
class _Placed:
    """A lifted block where it stands: its page, its position among the
    page's items, and the block id given to it."""

    page: PageLayout
    index: int  # position in the page's items
    candidate: BlockCandidate
    block_id: str


MARGIN_WORDS = 4  # a line beside a table, in the page's margin, of at most this many words


def _is_minor(item: Para | BlockCandidate, body_size: float, table: BBox) -> bool:
    """A paragraph that may sit between two parts of a continued table: a
    footnote-size line, a "(continued)" marker, or a few words beside the
    table in the page's margin (a running head set vertically, a navigation
    label), wholly outside the table's width."""
    if not isinstance(item, Para):
        return False
    text = item.text.lower()
    beside = item.bbox[2] <= table[0] + 1 or item.bbox[0] >= table[2] - 1
    return (
        item.size < 0.9 * body_size
        or (item.word_count <= 6 and any(c in text for c in _CONTINUED))
        or (beside and item.word_count <= MARGIN_WORDS)
    )


def link_continuations(placed: list[_Placed], settings: PdfSettings, body_size: float) -> dict[str, str]:
    """The parts of a table continued over a page break (last table of a
    page, first of the next, same left and right edges) or a column break
    (a table ending one column and a table opening the next, same width):
    each continuing part's block id → the block id of the part before it."""
    tol = settings.continuation_x_tolerance
    links: dict[str, str] = {}
    tables = [p for p in placed if p.candidate.kind is BlockKind.TABLE]
    for a, b in zip(tables, tables[1:]):
        ab, bb = a.candidate.bbox, b.candidate.bbox
        if b.page.page_no == a.page.page_no + 1:
            after = a.page.items[a.index + 1 :]
            before = b.page.items[: b.index]
            if all(_is_minor(i, body_size, ab) for i in after) and all(_is_minor(i, body_size, bb) for i in before):
                if abs(ab[0] - bb[0]) <= tol and abs(ab[2] - bb[2]) <= tol:
                    links[b.block_id] = a.block_id
        elif b.page is a.page and b.index == a.index + 1:
            wa, wb = ab[2] - ab[0], bb[2] - bb[0]
            if bb[1] < ab[1] - tol and bb[0] >= ab[2] - tol and abs(wa - wb) <= max(tol, 0.15 * max(wa, wb)):
                links[b.block_id] = a.block_id
    return links


def assemble(layouts: list[PageLayout], settings: Settings, ps: PdfSettings, body_size: float) -> tuple[list[Segment], list[LiftedBlock]]:
    """Segments and blocks in reading order: ids, anchors, printed pages,
    continuation links."""
    paras = [it for lay in layouts for it in lay.items if isinstance(it, Para)]
    prose_size = prose_font_size(paras, body_size)
    drafts_by_para = dict(zip(map(id, paras), classify(paras, settings.profile, prose_size, ps)))
    placed: list[_Placed] = []
    counters: dict[tuple[int, str], int] = {}
    for lay in layouts:
        for index, item in enumerate(lay.items):
            if isinstance(item, BlockCandidate):
                letter = {BlockKind.TABLE: "t", BlockKind.PICTURE: "i"}.get(item.kind, "f")
                n = counters[(lay.page_no, letter)] = counters.get((lay.page_no, letter), 0) + 1
                placed.append(_Placed(lay, index, item, f"p{lay.page_no:04d}-{letter}{n}"))
    continues = link_continuations(placed, ps, body_size)
    continued = set(continues) | set(continues.values())
    by_candidate = {id(p.candidate): p for p in placed}

    segments: list[Segment] = []
    blocks: list[LiftedBlock] = []
    last_segment = ""
    for lay in layouts:
        for item in lay.items:
            if isinstance(item, Para):
                made: list[Segment] = []
                for draft in drafts_by_para[id(item)]:
                    segment = _segment(draft, len(segments) + len(made) + 1, lay, settings)
                    if segment is not None and id(item) in lay.sideways_items:
                        segment = dataclasses.replace(segment, bbox=rounded(turned_box(draft.bbox, lay.sideways_back)))
                    if segment is not None:
                        made.append(segment)
                words = [w for f in item.fragments for w in f.words]
                read = segment_provenance([m.text for m in made], words, settings.normalization)
                segments += [dataclasses.replace(m, text_source=source, uncertain_spans=spans) for m, (source, spans) in zip(made, read)]
                if made:
                    last_segment = made[-1].segment_id
                continue
            p = by_candidate[id(item)]
            shape = BlockShape.CROSS_PAGE_CONTINUATION if p.block_id in continued else item.shape
            text = normalize_block(block_text(lay.block_fragments.get(id(item), ())), settings.normalization)
            blocks.append(
                LiftedBlock(
                    block_id=p.block_id,
                    kind=item.kind,
                    shape=shape,
                    page_no=lay.page_no,
                    printed_page=lay.printed_page,
                    printed_label=lay.printed_label,
                    bbox=rounded(turned_box(item.bbox, lay.sideways_back) if id(item) in lay.sideways_items else item.bbox),
                    text=text,
                    anchor_segment_id=last_segment,
                    continues=continues.get(p.block_id, ""),
                    quarantined=True,
                    header_row=(),
                )
            )
    return segments, blocks


def prose_font_size(paras: list[Para], default: float) -> float:
    """The size most characters of the prose are set in (tables lifted out,
    so a document that is mostly table still measures its headings against
    its running text)."""
    return dominant_size((w for p in paras for f in p.fragments for w in f.words), default)


def _segment(draft: Draft, number: int, lay: PageLayout, settings: Settings) -> Segment | None:
    """A paragraph's draft as segment number ``number``; None when its
    normalised text is empty."""
    text = normalize_block(draft.text, settings.normalization).replace("\n", " ")
    if not text:
        return None
    return Segment(
        segment_id=f"s{number:05d}",
        kind=draft.kind,
        text=text,
        level=draft.level,  # a heading's level; a legal clause's or point's level below its article
        page_no=lay.page_no,
        printed_page=lay.printed_page,
        printed_label=lay.printed_label,
        bbox=rounded(draft.bbox),
        source_ref=f"pdf:p{lay.page_no}",
    )

