"""PDF → segments and lifted blocks (ADR 0006), one pass over the pages.

    read_page            words with style, fragments, rules           (pdf_page)
    detect_furniture     running headers/footers, printed page numbers (pdf_furniture)
    find_rule_blocks     ruled / rule-bounded tables, 2D formulas      (pdf_blocks)
    order_page           reading order; borderless tables per column   (pdf_layout)
    leaf_paragraphs      paragraphs                                    (pdf_layout)
    classify             headings and levels, per profile              (pdf_headings)
    link_continuations   a table carried over a page or a column
    assemble             segment ids, block ids, anchors, printed pages

Tables and formulas are lifted: their text is kept only on the block (for
checks) and never in a segment. Pages without a text layer are reported in
``pages_needing_ocr``; nothing is OCRed. Encrypted files that need a password
are refused with :class:`DocumentRejected`; unreadable ones fail with
:class:`ParseFailed`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import NamedTuple

from ...model import BlockKind, BlockShape, Furniture, FurnitureKind, LiftedBlock, PageAccount, ParsedDocument, Segment
from ...settings import Settings
from ...textnorm import normalize_block
from ..errors import ParseFailed
from .blocks.candidates import BlockCandidate, Drawings
from .blocks.formulas import bar_fragments
from .blocks.find import find_rule_blocks
from .records import fragments_in
from .blocks.display_math import has_lone_operator, may_hold_math
from .blocks.scoring import text_rows
from .engine import open_pdf, pymupdf, take_stream_errors
from .blocks.formulas import display_bars
from .furniture.detect import PageFurniture, detect_furniture, is_rotated
from .geometry import BBox, center, contains_point, union
from .layout.headings import Draft, classify
from .layout.order import Leaf, Para, leaf_paragraphs, line_gaps, order_page, split_paragraphs, typical_line_gap
from .read.fractions import fraction_bars, join_inline_fractions
from .blocks.grids import cut_at_rules
from .read.hidden import INVISIBLE_TEXT, UNSHOWN_TEXT
from .read.pictures import reading_position, repeated_images
from .read.scans import SCANNED_REGION
from .read.glyphs import LOST
from .read.page import body_font_size, read_page
from .read.script_marks import attach_script_fragments
from .records import Fragment, PageContent, Rule
from .read.rtl import LOST_LETTERS, has_rtl, right_to_left_table, row_reading_order
from ...settings.pdf import PdfSettings, resolve_pdf_settings

_CONTINUED = ("continued", "cont.", "tiếp", "tiếp theo")


@dataclass(frozen=True)
class PageLayout:
    page_no: int
    printed_page: int | None
    printed_label: str
    items: tuple[Para | BlockCandidate, ...]
    leaves: tuple[Leaf, ...]
    block_fragments: dict[int, tuple[Fragment, ...]]  # id(candidate) → the fragments it lifts
    needs_ocr: bool
    rule_scan: bool = False  # the rule-based finders ran (the page draws lines)
    across: tuple[Fragment, ...] = ()  # vertical lines of the body, each its own paragraph after the page's prose
    rule_seconds: float = 0.0
    # a region set sideways (PageContent.sideways): its leaves, laid out in the
    # region's own frame, and the turn taking that frame back to the page's
    sideways_leaves: frozenset[int] = frozenset()  # ids of those leaves
    sideways_back: object = None
    sideways_items: frozenset[int] = frozenset()  # ids of the items made from them
    pictures: tuple[BBox, ...] = ()  # PageContent.pictures' boxes: placed among the items by with_paragraphs


def parse(data: bytes, settings: Settings, pdf_settings: PdfSettings | dict | None = None, stats: dict | None = None) -> ParsedDocument:
    """``stats``, when given, receives what ran where and how long (for the
    bench): pages scanned by the rule-based finders, column regions scanned
    for borderless tables, seconds per stage."""
    ps = resolve_pdf_settings(pdf_settings)
    clock = time.perf_counter()
    doc = open_pdf(data)
    try:
        pages: list[PageContent] = []
        damaged: list[str] = []
        warnings: list[str] = []
        attachments: list[str] = []  # the pages' file-attachment annotations, read while each page is open
        comments: dict[int, list[str]] = {}  # page → its annotations' comments
        struck: dict[int, int] = {}  # page → its strike-out annotations
        annotations_readable = True  # until one page's annotations fail to read: the pages after it are not asked
        for page in doc:
            try:
                content = read_page(page, ps)
            except Exception as exc:  # noqa: BLE001 - MuPDF errors are plain exceptions
                raise ParseFailed(f"page {page.number + 1} cannot be read: {exc}") from exc
            errors, notes = take_stream_errors()
            if errors:
                damaged.append(f"page {page.number + 1}: {errors[0]}")
            if notes:
                warnings.append(f"page {page.number + 1}: damaged stream recovered ({notes[0]})")
            pages.append(content)
            if annotations_readable:
                found = page_annotations(page)
                attachments += found.attachments
                annotations_readable = found.readable
                if found.comments:
                    comments[page.number + 1] = found.comments
                if found.struck:
                    struck[page.number + 1] = found.struck
                take_stream_errors()  # what reading annotations made MuPDF say is not the next page's
        page_count = doc.page_count
        repaired = bool(getattr(doc, "is_repaired", False))
        attached = embedded_files(doc, attachments)
        if attached:  # issue 22: dropped silently before
            shown = ", ".join(attached[:5]) + (" …" if len(attached) > 5 else "")
            warnings.append(f"{len(attached)} embedded file(s) not extracted ({shown}) — a PDF's attachments are not read; "
                            "save them out and ingest them as documents of their own")
        if comments:  # a reviewer's note is not the page's text, and it is not nothing either
            notes = per_page({page: len(found) for page, found in comments.items()})
            first = next(iter(comments.values()))[0]
            warnings.append(f"{notes[0]} comment(s) in annotations not read (sticky notes, notes on a highlight: a reader opens "
                            f"them from their mark), per page: {notes[1]}; the first: {first[:160]!r}")
        if struck:
            marked = per_page(struck)
            warnings.append(f"{marked[0]} passage(s) a strike-out annotation marks deleted are read as text like the rest, "
                            f"per page: {marked[1]}")
        own_labels = own_page_labels(doc)
    finally:
        doc.close()
    if damaged:
        raise ParseFailed("damaged PDF: content streams cannot be read, text is missing — " + "; ".join(damaged[:5]) + " — the file's bytes are kept; repair or re-export the file")
    if repaired and not any(p.words for p in pages) and not any(p.image_cover for p in pages):
        raise ParseFailed(
            "damaged PDF: it had to be repaired (truncated or corrupt) and no page has any text or image left "
            "— download or export the file again"
        )
    decoration = repeated_images([p.pictures for p in pages])
    if decoration:  # an image drawn on several pages (a letterhead, a banner) is the pages' decoration
        pages = [dataclasses.replace(p, pictures=tuple(x for x in p.pictures if not (x.images and x.images <= decoration))) for p in pages]
    read_seconds = time.perf_counter() - clock
    body_size = body_font_size(pages)
    furniture = detect_furniture(pages, ps, body_size, own_labels)
    clock = time.perf_counter()
    layouts = [layout_page(p, f, ps, body_size) for p, f in zip(pages, furniture)]
    layout_seconds = time.perf_counter() - clock
    line_gap = typical_line_gap([g for lay in layouts for g in line_gaps(list(lay.leaves), body_size)], body_size)
    layouts = [with_paragraphs(lay, ps, line_gap) for lay in layouts]
    segments, blocks = assemble(layouts, settings, ps, body_size)
    accounts: list[PageAccount] = []
    recorded: list[Furniture] = []
    for content, fur, lay in zip(pages, furniture, layouts):
        account, lines = account_page(content, fur, lay)
        accounts.append(account)
        recorded += lines
    if stats is not None:
        leaves = [leaf for lay in layouts for leaf in lay.leaves]
        stats.update(
            pages=len(layouts),
            pages_rule_finders=sum(lay.rule_scan for lay in layouts),
            pages_with_blocks=len({b.page_no for b in blocks}),
            column_regions=len(leaves),
            column_regions_borderless_finder=sum(leaf.scanned for leaf in leaves),
            seconds_read=read_seconds,
            seconds_rule_finders=sum(lay.rule_seconds for lay in layouts),
            seconds_layout_and_borderless=layout_seconds - sum(lay.rule_seconds for lay in layouts),
        )
    unmapped = per_page({p.page_no: p.unmapped for p in pages})
    if unmapped:
        warnings.append(
            f"{unmapped[0]} glyph(s) without a Unicode mapping (U+FFFD, private-use or raw font codes) "
            f"left out of the text, per page: {unmapped[1]}"
        )
    lost = per_page({p.page_no: p.lost for p in pages})
    if lost:
        warnings.append(
            f"{lost[0]} {LOST_LETTERS} (letters it gave no width: Arabic set with its vowel marks), "
            f"in no chunk, per page: {lost[1]}"
        )
    invisible = per_page({p.page_no: p.invisible for p in pages})
    if invisible:
        layered = [p.page_no for p in pages if ocr_layer(p)]
        warnings.append(
            f"{invisible[0]} {INVISIBLE_TEXT}, drawn invisibly or under an image of the page (an OCR program's reading "
            f"of a scanned image: ocrmypdf, Tesseract, ABBYY, a searchable-image PDF; its misreadings cannot be told "
            f"from the text), per page: {invisible[1]}; "
            + (
                "read as text: the collection accepts OCR text ([pdf] accept_ocr_text)" if ps.accept_ocr_text
                else f"{len(layered)} page(s) mostly such text, blocked as needing OCR checked by a person — "
                "set accept_ocr_text = true under [pdf] in the collection's collection.toml to ingest OCR text as it reads"
                if layered else "read as text (a page mostly of such text would need OCR checked)"
            )
        )
    unshown = per_page({p.page_no: sum(len(w.source) for w in p.hidden) for p in pages})
    if unshown:
        shown = "; ".join(" ".join(w.source for w in run) for p in pages for run in _line_runs(p.hidden))
        warnings.append(
            f"{unshown[0]} {UNSHOWN_TEXT} — an opaque shape is drawn over them (a white-out, or a redaction that left "
            f"the text in), or they are drawn white on white: kept out of the chunks, recorded as furniture of kind "
            f"'hidden', per page: {unshown[1]}: "
            f"{shown[:300]!r}"
        )
    struck = per_page({p.page_no: len(p.struck) for p in pages})
    if struck:
        first = next(passage for p in pages for passage in p.struck)
        warnings.append(
            f"{struck[0]} passage(s) with a line drawn through them (struck through: shown deleted, not in force) "
            f"kept and marked ~~like this~~, per page: {struck[1]}, the first: {first[:160]!r}"
        )
    scans = per_page({p.page_no: len(p.scanned) for p in pages})
    if scans:
        where = ", ".join(f"page {p.page_no}: {round(share * 100)} %" for p in pages for _, share in p.scanned)
        warnings.append(
            f"{scans[0]} {SCANNED_REGION} — a picture of text or of a drawing (an image of 1 bit a pixel, as a scanner "
            f"makes, or the whole page's image), read by no text extractor: {where[:300]}; those pages need OCR"
        )
    for p in pages:
        if broken_text(p, ps):
            warnings.append(
                f"page {p.page_no}: broken text layer, {unreadable_glyphs(p)} of its {p.chars} glyphs have no Unicode mapping "
                "— not chunked; it needs OCR"
            )
    return ParsedDocument(
        segments=segments,
        blocks=blocks,
        page_count=page_count,
        pages_needing_ocr=[lay.page_no for lay in layouts if lay.needs_ocr],
        warnings=warnings,
        furniture=recorded,
        page_accounts=accounts,
        page_labels=[f.printed_label for f in furniture],
    )


def embedded_files(doc, attachments: list[str]) -> list[str]:
    """Names of the files attached to a PDF: the document's embedded files,
    then ``attachments``, the pages' file-attachment annotations
    (:func:`page_annotations`, read while the pages are open for their
    text: opening every page a second time for them cost a 1-page file a
    twentieth of its parse)."""
    try:
        names = [str(n) for n in doc.embfile_names()]
    except Exception:  # noqa: BLE001 - best effort: a damaged name table must not fail the parse
        return []
    return names + attachments


class PageAnnotations(NamedTuple):
    """What a page's annotations hold that its text does not."""

    attachments: list[str]  # the names of its file attachments
    comments: list[str]  # the contents of its comments: sticky notes, a highlight's note (opened from the mark)
    struck: int  # passages a reviewer's strike-out annotation marks deleted, read as text
    readable: bool  # False when an annotation could not be read (those after it were not asked)


# annotations whose own text is on the page (a text box, a form field), or that hold none of their own
_SHOWN_OR_EMPTY = {"FreeText", "Widget", "Link", "Popup", "FileAttachment"}


def page_annotations(page) -> PageAnnotations:
    """A page's file attachments, comments and strike-outs (best effort: a
    damaged annotation must not fail the parse; what was read before it is
    kept)."""
    names: list[str] = []
    comments: list[str] = []
    struck = 0
    try:
        for annot in page.annots() or []:
            kind = annot.type[1]
            if kind == "FileAttachment":
                names.append(str(annot.file_info.get("filename") or f"page {page.number + 1} attachment"))
            if kind == "StrikeOut":
                struck += 1
            if kind not in _SHOWN_OR_EMPTY:
                content = " ".join(str(annot.info.get("content") or "").split())
                if content:
                    comments.append(content)
    except Exception:  # noqa: BLE001
        return PageAnnotations(names, comments, struck, False)
    return PageAnnotations(names, comments, struck, True)


def account_page(content: PageContent, furniture: PageFurniture, layout: PageLayout) -> tuple[PageAccount, list[Furniture]]:
    """Where every word of the page went: a prose paragraph, a lifted block,
    or a recorded piece of furniture (furniture inside a lifted block, a
    repeated table header taken for a running header, is the block's). Words
    are followed by identity, so a word in two places is caught as well as a
    word in none."""
    places: dict[int, int] = {}
    block_words: set[int] = set()
    blocks = prose = furn = 0
    for frags in layout.block_fragments.values():
        for f in frags:
            for w in f.words:
                places[id(w)] = places.get(id(w), 0) + 1
                block_words.add(id(w))
                blocks += len(w.source)
    for item in layout.items:
        if isinstance(item, Para):
            for f in item.fragments:
                for w in f.joined or f.words:  # a line with scripts joined to it: the page's own words
                    places[id(w)] = places.get(id(w), 0) + 1
                    prose += len(w.source)
    lines: list[Furniture] = []
    for i in sorted(furniture.furniture):
        f = content.fragments[i]
        if any(id(w) in block_words for w in f.words):
            continue
        for w in f.words:
            places[id(w)] = places.get(id(w), 0) + 1
            furn += len(w.source)
        # the text layer's own characters (script marks are not), as counted
        text = " ".join(w.source for w in f.words)
        lines.append(Furniture(content.page_no, FurnitureKind(furniture.kind_of(i)), text, _rounded(f.bbox)))
    for run in _line_runs(content.hidden):
        furn += sum(len(w.source) for w in run)
        lines.append(Furniture(content.page_no, FurnitureKind.HIDDEN, " ".join(w.source for w in run), _rounded(union(w.bbox for w in run))))
    words = content.all_words
    missing = sum(len(w.source) for w in words if id(w) not in places) + content.lost
    duplicated = sum(len(w.source) * (places[id(w)] - 1) for w in words if places.get(id(w), 0) > 1)
    account = PageAccount(content.page_no, content.chars, prose, blocks, furn, content.unmapped, missing, duplicated)
    return account, lines


def _line_runs(words) -> list[list]:
    """Consecutive words of one line, grouped."""
    runs: list[list] = []
    for w in words:
        if runs and runs[-1][-1].line_id == w.line_id:
            runs[-1].append(w)
        else:
            runs.append([w])
    return runs


def own_page_labels(doc) -> list[str] | None:
    """The label of every page from the PDF's own ``/PageLabels`` (``xii``,
    ``A-42``), or None when the document declares none."""
    try:
        rules = doc.get_page_labels()
        if not rules:
            return None
        return labels_from_rules(rules, doc.page_count)
    except Exception:  # noqa: BLE001 - a malformed /PageLabels tree: read the printed numbers instead
        return None


def labels_from_rules(rules: list[dict], page_count: int) -> list[str]:
    """Each page's label from the ``/PageLabels`` rules as
    ``Document.get_page_labels()`` lists them, computed the way PyMuPDF's
    ``Page.get_label`` does (the rule with the last start page at or before
    the page; no rule: no label), but from one read of the tree:
    ``get_label`` reads the whole tree again for every page."""
    ordered = sorted(rules, key=lambda r: r["startpage"])
    labels: list[str] = []
    k = -1
    for pno in range(page_count):
        while k + 1 < len(ordered) and ordered[k + 1]["startpage"] <= pno:
            k += 1
        if k < 0:
            labels.append("")
            continue
        rule = ordered[k]
        style = rule.get("style", "")
        number = pno - rule["startpage"] + rule["firstpagenum"] - (1 if style in ("a", "A") else 0)
        labels.append(pymupdf.utils.construct_label(style, rule.get("prefix", ""), number) or "")
    return labels


# --- one page ---------------------------------------------------------------------------


def usable_rules(content: PageContent, body: list[Fragment], furniture_fragments: list[Fragment]) -> list[Rule]:
    """The page's rules minus the ones that belong to its furniture: a rule
    between a running header and the body (or the body and a footer) that
    stands clear of the body text."""
    if not furniture_fragments or not body:
        return list(content.rules)
    top = min(f.bbox[1] for f in body)
    bottom = max(f.bbox[3] for f in body)
    head = [f for f in furniture_fragments if f.bbox[3] <= top]
    foot = [f for f in furniture_fragments if f.bbox[1] >= bottom]
    head_y = max((f.bbox[3] for f in head), default=None)
    foot_y = min((f.bbox[1] for f in foot), default=None)
    out = []
    for r in content.rules:
        if r.horizontal and head_y is not None and head_y - 1 <= r.pos <= top - 6:
            continue
        if r.horizontal and foot_y is not None and bottom + 6 <= r.pos <= foot_y + 1:
            continue
        out.append(r)
    return out


def needs_ocr(content: PageContent, body: list[Fragment], settings: PdfSettings) -> bool:
    """No text layer worth the name: little text on a page images cover, a
    page of vector outlines, an OCR layer, a scanned picture with no text
    over it, or glyphs without Unicode."""
    chars = sum(len(w.text) for f in body for w in f.words)
    if chars < settings.ocr_min_chars and content.image_cover >= settings.ocr_min_image_cover_frac:
        return True
    if not content.words and content.path_count >= settings.vector_text_min_paths:
        return True
    if ocr_layer(content) and not settings.accept_ocr_text:
        return True
    if content.scanned:
        return True
    return broken_text(content, settings)


def ocr_layer(content: PageContent) -> bool:
    """A page whose text is mostly text no reader sees: an OCR program's
    reading of a scanned image, drawn invisibly or under the image
    (:func:`.pdf_hidden.invisible_chars`, :func:`.pdf_hidden.text_under_image`)."""
    return content.invisible * 2 > content.chars


def unreadable_glyphs(content: PageContent) -> int:
    """A page's glyphs without a Unicode mapping: those left out of the text
    and those shown in it as U+FFFD (pdf_page.shown_glyphs)."""
    return content.unmapped + sum(w.source.count(LOST) for w in content.all_words)


def broken_text(content: PageContent, settings: PdfSettings) -> bool:
    """A text layer that is mostly glyphs without a Unicode mapping: as good
    as none (the page needs OCR), never chunked as if it were text. (A font
    whose letters have no mapping leaves words of U+FFFD: counted too.)"""
    total = content.chars
    return total >= 20 and unreadable_glyphs(content) > settings.unmapped_glyph_max_frac * total


def layout_page(content: PageContent, furniture: PageFurniture, settings: PdfSettings, body_size: float) -> PageLayout:
    """Lift the page's blocks and put the rest in reading order (paragraphs
    are made later, once the document's line spacing is known)."""
    furniture_frags = [f for i, f in enumerate(content.fragments) if i in furniture.furniture]
    body = [f for i, f in enumerate(content.fragments) if i not in furniture.furniture and not is_rotated(f)]
    # vertical lines inside the page (a rotated table label, an axis title): their own
    # paragraphs after the page's prose, never interleaved with horizontal lines
    across = [f for i, f in enumerate(content.fragments) if i not in furniture.furniture and is_rotated(f)]
    started = time.perf_counter()
    rules = usable_rules(content, body, furniture_frags)
    # gate: the rule-based finders only run on a page that draws lines or bars (or types a fraction bar, or holds math)
    may_hold = bool(body) and (bool(rules) or bool(display_bars(content.bars, body_size)) or bool(bar_fragments(body)) or may_hold_math(body) or has_lone_operator(body))
    rule_blocks = find_rule_blocks(rules, body, settings, body_size, content.graphics, content.bars) if may_hold else None
    rule_seconds = time.perf_counter() - started
    lifted = list(rule_blocks.blocks) if rule_blocks else []
    if content.figures:  # a drawn figure holds what lies in it: its labels, a legend taken for a formula
        drawn = [BlockCandidate(BlockKind.PICTURE, BlockShape.PICTURE, box, "drawn") for box in content.figures]
        lifted = [b for b in lifted if not any(contains_point(f.bbox, *center(b.bbox)) for f in drawn)] + drawn
    remaining = [f for f in body if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in lifted)]
    remaining = attach_script_fragments(remaining, content.script_hosts)  # scripts MuPDF set apart, back in their prose line
    remaining = join_inline_fractions(remaining, fraction_bars(content))  # a fraction set in a prose line: ``a/b`` in it
    drawings = Drawings(content.graphics, rule_blocks.horizontal, rule_blocks.vertical) if rule_blocks else Drawings(content.graphics)
    leaves = order_page(remaining, lifted, settings, body_size, drawings)
    block_fragments: dict[int, tuple[Fragment, ...]] = {}
    taken: set[int] = set()
    lifted_all = [item.block for leaf in leaves for item in leaf.items if item.block is not None]
    across = [f for f in across if not any(contains_point(b.bbox, *center(f.bbox), pad=1.0) for b in lifted_all)]
    for leaf in leaves:
        for item in leaf.items:
            if item.block is not None:
                # furniture inside a table (a repeated header row taken for a
                # running header) still belongs to the block's text; a line
                # where two blocks' boxes overlap belongs to the first only
                mine = [f for f in fragments_in(item.block.bbox, list(content.fragments)) if id(f) not in taken]
                taken.update(map(id, mine))
                if item.block.kind is BlockKind.TABLE and drawings.vertical:
                    mine = cut_at_rules(mine, [v for v in drawings.vertical if contains_point(item.block.bbox, v.x0, (v.y0 + v.y1) / 2, pad=1.0)])
                block_fragments[id(item.block)] = tuple(mine)
    layout = PageLayout(
        page_no=content.page_no,
        printed_page=furniture.printed_page,
        printed_label=furniture.printed_label,
        items=(),
        leaves=tuple(leaves),
        block_fragments=block_fragments,
        needs_ocr=needs_ocr(content, body + across, settings),
        across=tuple(across),
        rule_scan=rule_blocks is not None,
        rule_seconds=rule_seconds,
        # an image inside a lifted table or figure is shown by that block's crop: no block of its own
        pictures=tuple(p.bbox for p in content.pictures if not any(contains_point(b.bbox, *center(p.bbox)) for b in lifted_all)),
    )
    if content.sideways is not None and content.sideways.words:
        layout = with_sideways(layout, content, settings, body_size)
    return layout


def with_sideways(layout: PageLayout, content: PageContent, settings: PdfSettings, body_size: float) -> PageLayout:
    """The page's layout with its sideways region laid out in the region's
    own frame (tables found there as on a page of their own), read before
    the upright text when it stands to its left or above it, after it
    otherwise. Its blocks keep their boxes in the region's frame until
    :func:`assemble` turns them back to the page's."""
    region = content.sideways
    none = PageFurniture(content.page_no, frozenset(), None, "")
    sub = layout_page(region, none, settings, body_size)
    back = ~content.sideways_matrix
    box = _turned(union(w.bbox for w in region.words), back)
    upright = union(w.bbox for w in content.words) if content.words else box
    # to the left of the upright text (its middle left of theirs), or above all of it
    first = (box[0] + box[2]) < (upright[0] + upright[2]) or box[3] <= upright[1] + 1
    leaves = sub.leaves + layout.leaves if first else layout.leaves + sub.leaves
    return dataclasses.replace(
        layout,
        leaves=leaves,
        block_fragments={**layout.block_fragments, **sub.block_fragments},
        rule_scan=layout.rule_scan or sub.rule_scan,
        rule_seconds=layout.rule_seconds + sub.rule_seconds,
        sideways_leaves=frozenset(map(id, sub.leaves)),
        sideways_back=back,
    )


def _turned(bbox: BBox, matrix) -> BBox:
    """``bbox`` after a quarter turn."""
    r = pymupdf.Rect(bbox) * matrix
    return (r.x0, r.y0, r.x1, r.y1)


def with_paragraphs(layout: PageLayout, settings: PdfSettings, line_gap: float) -> PageLayout:
    items: list[Para | BlockCandidate] = []
    turned: set[int] = set()
    for leaf in layout.leaves:
        made = split_paragraphs(leaf_paragraphs(layout.page_no, leaf), leaf, settings, line_gap)
        if id(leaf) in layout.sideways_leaves:
            turned.update(map(id, made))
        items += made
    items += [Para(layout.page_no, ((f,),), f.bbox) for f in layout.across]
    for box in layout.pictures:  # each where it is read: it lifts no words, it marks where something is not text
        items.insert(reading_position(items, box), BlockCandidate(BlockKind.PICTURE, BlockShape.PICTURE, box, "picture"))
    return dataclasses.replace(layout, items=tuple(items), sideways_items=frozenset(turned))


# --- the document ------------------------------------------------------------------------


def per_page(counts: dict[int, int], shown: int = 20) -> tuple[int, str] | None:
    """For a parse warning: the total of a per-page count and its pages
    listed (``page 3: 12, page 7: 2``, the first ``shown`` of them), or None
    when no page counts any."""
    counted = [(n, c) for n, c in counts.items() if c]
    if not counted:
        return None
    listed = ", ".join(f"page {n}: {c}" for n, c in counted[:shown]) + (" …" if len(counted) > shown else "")
    return sum(c for _, c in counted), listed


def block_text(fragments: tuple[Fragment, ...]) -> str:
    """A block's linearised text (for checks only): rows top to bottom, cells
    separated by `` | ``, left to right, or in a table of right-to-left text
    right to left (:func:`.pdf_rtl.row_reading_order`)."""
    rows = [[f.text for f in row] for row in text_rows(list(fragments))]
    if any(has_rtl(t) for row in rows for t in row) and right_to_left_table(rows):
        rows = [[row[k] for k in row_reading_order(row)] for row in rows]
    return "\n".join(" | ".join(row) for row in rows)


@dataclass
class _Placed:
    page: PageLayout
    index: int  # position in the page's items
    candidate: BlockCandidate
    block_id: str = ""
    continues: str = ""
    continued: bool = False


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


def link_continuations(placed: list[_Placed], settings: PdfSettings, body_size: float) -> None:
    """Link the parts of a table continued over a page break (last table of a
    page, first of the next, same left and right edges) or a column break
    (a table ending one column and a table opening the next, same width)."""
    tol = settings.continuation_x_tolerance
    tables = [p for p in placed if p.candidate.kind is BlockKind.TABLE]
    for a, b in zip(tables, tables[1:]):
        ab, bb = a.candidate.bbox, b.candidate.bbox
        if b.page.page_no == a.page.page_no + 1:
            after = a.page.items[a.index + 1 :]
            before = b.page.items[: b.index]
            if all(_is_minor(i, body_size, ab) for i in after) and all(_is_minor(i, body_size, bb) for i in before):
                if abs(ab[0] - bb[0]) <= tol and abs(ab[2] - bb[2]) <= tol:
                    b.continues, a.continued, b.continued = a.block_id, True, True
        elif b.page is a.page and b.index == a.index + 1:
            wa, wb = ab[2] - ab[0], bb[2] - bb[0]
            if bb[1] < ab[1] - tol and bb[0] >= ab[2] - tol and abs(wa - wb) <= max(tol, 0.15 * max(wa, wb)):
                b.continues, a.continued, b.continued = a.block_id, True, True


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
    link_continuations(placed, ps, body_size)
    by_candidate = {id(p.candidate): p for p in placed}

    segments: list[Segment] = []
    blocks: list[LiftedBlock] = []
    last_segment = ""
    for lay in layouts:
        for item in lay.items:
            if isinstance(item, Para):
                for draft in drafts_by_para[id(item)]:
                    segment = _segment(draft, len(segments) + 1, lay, settings)
                    if segment is not None and id(item) in lay.sideways_items:
                        segment = dataclasses.replace(segment, bbox=_rounded(_turned(draft.bbox, lay.sideways_back)))
                    if segment is not None:
                        segments.append(segment)
                        last_segment = segment.segment_id
                continue
            p = by_candidate[id(item)]
            shape = BlockShape.CROSS_PAGE_CONTINUATION if p.continued else item.shape
            text = normalize_block(block_text(lay.block_fragments.get(id(item), ())), settings.normalization)
            blocks.append(
                LiftedBlock(
                    block_id=p.block_id,
                    kind=item.kind,
                    shape=shape,
                    page_no=lay.page_no,
                    printed_page=lay.printed_page,
                    printed_label=lay.printed_label,
                    bbox=_rounded(_turned(item.bbox, lay.sideways_back) if id(item) in lay.sideways_items else item.bbox),
                    text=text,
                    anchor_segment_id=last_segment,
                    continues=p.continues,
                    quarantined=True,
                    header_row=(),
                )
            )
    return segments, blocks


def prose_font_size(paras: list[Para], default: float) -> float:
    """The size most characters of the prose are set in (tables lifted out,
    so a document that is mostly table still measures its headings against
    its running text)."""
    weights: dict[float, int] = {}
    for p in paras:
        for f in p.fragments:
            for w in f.words:
                key = round(w.size * 2) / 2
                weights[key] = weights.get(key, 0) + len(w.text)
    if not weights:
        return default
    return max(weights, key=lambda s: (weights[s], -s))


def _rounded(b: BBox) -> BBox:
    return (round(b[0], 2), round(b[1], 2), round(b[2], 2), round(b[3], 2))


def _segment(draft: Draft, number: int, lay: PageLayout, settings: Settings) -> Segment | None:
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
        bbox=_rounded(draft.bbox),
        source_ref=f"pdf:p{lay.page_no}",
    )


__all__ = ["parse", "PdfSettings", "layout_page", "assemble"]
