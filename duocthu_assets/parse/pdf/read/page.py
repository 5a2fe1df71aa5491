"""One PDF page read into typed records: words with their style, text
fragments, vector rules, and how much of the page images cover.

Coordinates are PDF points, top-left origin, in the page turned so that its
text reads left to right ("reading orientation"): for an ordinary page that
is the page as displayed; a landscape table set sideways on a portrait page,
or a page whose /Rotate turns its text, is turned by the quarter turns that
make most of its text horizontal (:func:`.orientation.reading_matrix`).
:func:`duocthu_assets.parse.pdf.crops.render_block_crop` undoes the turn.
One MuPDF ``TextPage`` per page serves both the styled lines
(``extractDICT``) and the word boxes (``extractWORDS``).
"""

from __future__ import annotations

from ....settings.pdf import PdfSettings
from ..engine import PageImages, pymupdf
from ..geometry import BBox
from ..records import PageContent, Picture, Word, dominant_size
from .hidden import (
    blank_boxes,
    covered_words,
    invisible_chars,
    painted_over,
    pale_words,
    text_under_image,
)
from .orientation import (
    SIDEWAYS_PAD,
    turned_box,
    reading_matrix,
    turn_matrix,
    unrotated_size,
)
from .pictures import drawn_figures, picture_regions, with_figures
from .rules import read_drawings
from .scans import scanned_regions
from .strikes import mark_struck
from .words import read_words, words_to_fragments

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_MEDIABOX_CLIP
    # no TEXT_PRESERVE_LIGATURES: "ﬁ" comes out as "fi"; no TEXT_DEHYPHENATE:
    # joining "beta-" and "lactam" is a decision we make ourselves.
    # no TEXT_CID_FOR_UNKNOWN_UNICODE (which ``page.get_text()`` sets): a glyph
    # without a Unicode mapping then comes out as U+FFFD, which we can count and
    # leave out, instead of its raw font code, which reads as a control
    # character or, worse, a wrong letter (TeX's big Σ is code 0x50, "P"; its
    # big ⟨ ⟩ are "h" and "i"; its radical is "q").
)


def read_page(page, settings: PdfSettings) -> PageContent:
    """One page read into a :class:`PageContent` in reading orientation (the step's entry)."""
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    page_dict = textpage.extractDICT(sort=False)
    width, height = unrotated_size(page)
    matrix = reading_matrix(page_dict, width, height)
    if matrix is not None and abs(matrix.b) == 1:
        width, height = height, width
    images = PageImages(page)  # listed once, drawn looked up once, for every finder below
    found = read_words(textpage, page_dict, matrix)
    words = found.words
    side = None
    side_matrix = None
    if found.sideways is not None:
        side_words = [w for w in words if w.line_id in found.sideways.lines]
        words = [w for w in words if w.line_id not in found.sideways.lines]
        side_matrix = turn_matrix(found.sideways.direction, width, height)
        side = sideways_region(page, side_words, side_matrix, width, height, settings, images)
    drawn = read_drawings(page, matrix, settings, images)
    rules, bars, fills, marks = drawn.rules, drawn.bars, drawn.fills, drawn.marks
    hidden: list[Word] = []
    if matrix is None and not page.rotation:
        # words an opaque shape drawn after them covers, or drawn in white on white: not on the page (read/hidden)
        gone = set(painted_over(page, words, covered_words(words, [f.bbox for f in fills if f.cover])))
        pale = [k for k in pale_words(words, page_dict, [f.bbox for f in fills if not f.pale]) if k not in gone]
        gone.update(k for k, blank in zip(pale, blank_boxes(page, [words[k].bbox for k in pale])) if blank)
        hidden = [w for k, w in enumerate(words) if k in gone]
        words = [w for k, w in enumerate(words) if k not in gone]
    words, struck = mark_struck(words, rules + bars, marks)
    fragments = words_to_fragments(words, settings)
    char_count = sum(len(w.source) for w in words)
    cover = image_cover(page) if char_count < settings.ocr_min_chars * 4 else 0.0
    unseen = invisible_chars(page_dict)
    if char_count > unseen:  # of the drawn text, what lies under a scan of the page
        unseen += round(text_under_image(page, images) * (char_count - unseen))
    # a page an OCR program has read (text no reader sees) is judged by its OCR layer (read/ocr_need.ocr_layer)
    scanned = [] if unseen else scanned_regions(page, words, (lambda box: turned_box(box, matrix)) if matrix is not None else None, images)
    # pictures: on an upright page only (a turned page's boxes are in another frame), not on a page an OCR program read
    pictures: list[Picture] = []
    figures: list[BBox] = []
    if matrix is None and not page.rotation and not unseen:
        pictures, figures = with_figures(picture_regions(page, words, [box for box, _ in scanned], images), drawn_figures(drawn.strokes, marks, words, width, height))
    return PageContent(
        sideways=side,
        sideways_matrix=side_matrix,
        page_no=page.number + 1,
        width=width,
        height=height,
        words=tuple(words),
        fragments=tuple(fragments),
        rules=tuple(rules),
        graphics=tuple(drawn.graphics),
        path_count=drawn.path_count,
        image_cover=cover,
        unmapped=found.unmapped,
        lost=found.lost,
        script_hosts=found.script_hosts,
        bars=tuple(bars),
        invisible=unseen,
        hidden=tuple(hidden),
        scanned=tuple(scanned),
        pictures=tuple(pictures),
        figures=tuple(figures),
        struck=tuple(struck),
    )


def sideways_region(page, words: list[Word], matrix, width: float, height: float, settings: PdfSettings, images: PageImages | None = None) -> PageContent:
    """The sideways region of a page as a page of its own, in its reading
    frame (``matrix`` turns the page into it): its words, their fragments,
    and the rules and drawings around them, turned the same way."""
    x0 = min(w.bbox[0] for w in words) - SIDEWAYS_PAD
    y0 = min(w.bbox[1] for w in words) - SIDEWAYS_PAD
    x1 = max(w.bbox[2] for w in words) + SIDEWAYS_PAD
    y1 = max(w.bbox[3] for w in words) + SIDEWAYS_PAD
    drawn = read_drawings(page, matrix, settings, images)

    def within(b) -> bool:  # its middle lies in the region
        return x0 <= (b[0] + b[2]) / 2 <= x1 and y0 <= (b[1] + b[3]) / 2 <= y1

    turned_w, turned_h = (height, width) if abs(matrix.b) == 1 else (width, height)
    return PageContent(
        page_no=page.number + 1,
        width=turned_w,
        height=turned_h,
        words=tuple(words),
        fragments=tuple(words_to_fragments(words, settings)),
        rules=tuple(r for r in drawn.rules if within(r.bbox)),
        graphics=tuple(g for g in drawn.graphics if within(g)),
        path_count=drawn.path_count,
        image_cover=0.0,
    )


def image_cover(page) -> float:
    """Fraction of the page area covered by images (overlaps counted once on
    a coarse grid)."""
    rect = page.rect
    if rect.is_empty:
        return 0.0
    boxes = []
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & rect
        if not r.is_empty:
            boxes.append(r)
    if not boxes:
        return 0.0
    n = 40
    covered = 0
    for i in range(n):
        for j in range(n):
            px = rect.x0 + (i + 0.5) * rect.width / n
            py = rect.y0 + (j + 0.5) * rect.height / n
            if any(b.x0 <= px <= b.x1 and b.y0 <= py <= b.y1 for b in boxes):
                covered += 1
    return covered / (n * n)


def body_font_size(pages: list[PageContent]) -> float:
    """The size most characters of the document are set in."""
    return dominant_size((w for page in pages for w in page.words), 10.0)
