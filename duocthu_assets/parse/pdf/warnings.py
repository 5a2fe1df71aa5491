"""Every warning the PDF reader writes, in one place: each a small function
of what the reader found, returning the warning's text (None when there is
nothing to say). A warning names what was left out or read doubtfully, where
(per page), and what the user can do about it."""

from __future__ import annotations

from ...settings.pdf import PdfSettings
from .read.hidden import INVISIBLE_TEXT, UNSHOWN_TEXT, line_runs
from .read.ocr_need import broken_text, ocr_layer, unreadable_glyphs
from .read.rtl import LOST_LETTERS
from .read.scans import SCANNED_REGION
from .records import PageContent


def per_page(counts: dict[int, int], shown: int = 20) -> tuple[int, str] | None:
    """For a parse warning: the total of a per-page count and its pages
    listed (``page 3: 12, page 7: 2``, the first ``shown`` of them), or None
    when no page counts any."""
    counted = [(n, c) for n, c in counts.items() if c]
    if not counted:
        return None
    listed = ", ".join(f"page {n}: {c}" for n, c in counted[:shown]) + (" …" if len(counted) > shown else "")
    return sum(c for _, c in counted), listed


# --- while the pages are read -----------------------------------------------------------


def recovered_stream(page_no: int, note: str) -> str:
    """A content stream MuPDF read past damage in (what it said of it)."""
    return f"page {page_no}: damaged stream recovered ({note})"


def attached_files(names: list[str]) -> str | None:
    """Files attached to the PDF: named, since their content is not read."""
    if not names:
        return None
    shown = ", ".join(names[:5]) + (" …" if len(names) > 5 else "")
    return (f"{len(names)} embedded file(s) not extracted ({shown}) — a PDF's attachments are not read; "
            "save them out and ingest them as documents of their own")


def annotation_comments(comments: dict[int, list[str]]) -> str | None:
    """Comments in annotations, page → their texts: a reviewer's note is not
    the page's text, and it is not nothing either."""
    notes = per_page({page: len(found) for page, found in comments.items()})
    if notes is None:
        return None
    first = next(found for found in comments.values() if found)[0]
    return (f"{notes[0]} comment(s) in annotations not read (sticky notes, notes on a highlight: a reader opens "
            f"them from their mark), per page: {notes[1]}; the first: {first[:160]!r}")


def strike_out_annotations(struck: dict[int, int]) -> str | None:
    """Passages a strike-out annotation marks deleted, page → their count."""
    marked = per_page(struck)
    if marked is None:
        return None
    return (f"{marked[0]} passage(s) a strike-out annotation marks deleted are read as text like the rest, "
            f"per page: {marked[1]}")


# --- once every page is read --------------------------------------------------------------


def page_warnings(pages: list[PageContent], settings: PdfSettings) -> list[str]:
    """What the pages' text layers hold that the parse leaves out or reads
    doubtfully, in this order."""
    found = (unmapped_glyphs(pages), lost_letters(pages), ocr_text(pages, settings), unshown_text(pages),
             struck_text(pages), scanned_regions(pages))
    return [w for w in found if w] + broken_text_layers(pages, settings)


def unmapped_glyphs(pages: list[PageContent]) -> str | None:
    unmapped = per_page({p.page_no: p.unmapped for p in pages})
    if unmapped is None:
        return None
    return (f"{unmapped[0]} glyph(s) without a Unicode mapping (U+FFFD, private-use or raw font codes) "
            f"left out of the text, per page: {unmapped[1]}")


def lost_letters(pages: list[PageContent]) -> str | None:
    lost = per_page({p.page_no: p.lost for p in pages})
    if lost is None:
        return None
    return (f"{lost[0]} {LOST_LETTERS} (letters it gave no width: Arabic set with its vowel marks), "
            f"in no chunk, per page: {lost[1]}")


def ocr_text(pages: list[PageContent], settings: PdfSettings) -> str | None:
    """Text drawn invisibly or under an image of the page: an OCR program's
    reading, read as text only where the collection accepts OCR text."""
    invisible = per_page({p.page_no: p.invisible for p in pages})
    if invisible is None:
        return None
    layered = [p.page_no for p in pages if ocr_layer(p)]
    return (
        f"{invisible[0]} {INVISIBLE_TEXT}, drawn invisibly or under an image of the page (an OCR program's reading "
        f"of a scanned image: ocrmypdf, Tesseract, ABBYY, a searchable-image PDF; its misreadings cannot be told "
        f"from the text), per page: {invisible[1]}; "
        + (
            "read as text: the collection accepts OCR text ([pdf] accept_ocr_text)" if settings.accept_ocr_text
            else f"{len(layered)} page(s) mostly such text, blocked as needing OCR checked by a person — "
            "set accept_ocr_text = true under [pdf] in the collection's collection.toml to ingest OCR text as it reads"
            if layered else "read as text (a page mostly of such text would need OCR checked)"
        )
    )


def unshown_text(pages: list[PageContent]) -> str | None:
    """Text painted over or white on white: kept out, recorded as furniture."""
    unshown = per_page({p.page_no: sum(len(w.source) for w in p.hidden) for p in pages})
    if unshown is None:
        return None
    shown = "; ".join(" ".join(w.source for w in run) for p in pages for run in line_runs(p.hidden))
    return (
        f"{unshown[0]} {UNSHOWN_TEXT} — an opaque shape is drawn over them (a white-out, or a redaction that left "
        f"the text in), or they are drawn white on white: kept out of the chunks, recorded as furniture of kind "
        f"'hidden', per page: {unshown[1]}: "
        f"{shown[:300]!r}"
    )


def struck_text(pages: list[PageContent]) -> str | None:
    struck = per_page({p.page_no: len(p.struck) for p in pages})
    if struck is None:
        return None
    first = next(passage for p in pages for passage in p.struck)
    return (
        f"{struck[0]} passage(s) with a line drawn through them (struck through: shown deleted, not in force) "
        f"kept and marked ~~like this~~, per page: {struck[1]}, the first: {first[:160]!r}"
    )


def scanned_regions(pages: list[PageContent]) -> str | None:
    scans = per_page({p.page_no: len(p.scanned) for p in pages})
    if scans is None:
        return None
    where = ", ".join(f"page {p.page_no}: {round(share * 100)} %" for p in pages for _, share in p.scanned)
    return (
        f"{scans[0]} {SCANNED_REGION} — a picture of text or of a drawing (an image of 1 bit a pixel, as a scanner "
        f"makes, or the whole page's image), read by no text extractor: {where[:300]}; those pages need OCR"
    )


def broken_text_layers(pages: list[PageContent], settings: PdfSettings) -> list[str]:
    """One warning per page whose text layer is mostly unmapped glyphs."""
    return [
        f"page {p.page_no}: broken text layer, {unreadable_glyphs(p)} of its {p.chars} glyphs have no Unicode mapping "
        "— not chunked; it needs OCR"
        for p in pages
        if broken_text(p, settings)
    ]


# the parse warnings that no_pages_need_ocr repeats, when OCR ran or could not run
OCR_NOT_INSTALLED = "the Tesseract OCR engine is not installed"
OCR_BLOCKED = "read by OCR but still blocked"


def ocr_missing(page_nos: list[int]) -> str:
    shown = ", ".join(map(str, page_nos[:20])) + (" …" if len(page_nos) > 20 else "")
    return (f"{len(page_nos)} page(s) need OCR ({shown}) but {OCR_NOT_INSTALLED} — run `make ocr` and ingest again; "
            "until then they are blocked")


def ocr_read(pages: list[PageContent], settings: PdfSettings) -> list[str]:
    """What OCR read: the pages, how many words fell below the floor, and
    one warning per page that stays blocked, saying why."""
    read = [p for p in pages if p.ocr is not None]
    if not read:
        return []
    first = read[0].ocr
    words = sum(p.ocr.words for p in read)
    uncertain = sum(p.ocr.uncertain for p in read)
    shown = ", ".join(str(p.page_no) for p in read[:20]) + (" …" if len(read) > 20 else "")
    summary = (
        f"{len(read)} page(s) read by OCR ({first.engine} {first.version}, {first.languages}, {first.dpi} dpi): {shown}; "
        f"{words} words, {uncertain} marked uncertain (below the confidence floor {settings.ocr_confidence_floor:g}, or a "
        f"number below {settings.ocr_number_confidence_floor:g} or in doubt: a number in one is withheld from answers)"
    )
    out = [summary]
    out += [
        f"page {p.page_no}: {OCR_BLOCKED}: {p.ocr.blocked} (more than {settings.ocr_max_uncertain_frac:.0%} of its words "
        "uncertain, or none read) — check the scan; a better scan (300 dpi, straight) reads better"
        for p in read
        if p.ocr.blocked
    ]
    return out
