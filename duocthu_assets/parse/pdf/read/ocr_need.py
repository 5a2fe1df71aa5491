"""Whether a page's text layer can be read as text, or the page needs OCR:
no text layer worth the name, an OCR program's invisible layer, or glyphs
without a Unicode mapping."""

from __future__ import annotations

from ....settings.pdf import PdfSettings
from ..records import Fragment, PageContent
from .glyphs import LOST


def needs_ocr(content: PageContent, body: list[Fragment], settings: PdfSettings) -> bool:
    """No text layer worth the name: little text on a page images cover, a
    page of vector outlines, an OCR layer, a scanned picture with no text
    over it, or glyphs without Unicode. A page read by OCR needs it still
    when OCR could not read it (:mod:`.scan_page`)."""
    if content.ocr is not None:
        return bool(content.ocr.blocked)
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
    (:func:`.hidden.invisible_chars`, :func:`.hidden.text_under_image`)."""
    return content.invisible * 2 > content.chars


def unreadable_glyphs(content: PageContent) -> int:
    """A page's glyphs without a Unicode mapping: those left out of the text
    and those shown in it as U+FFFD (:func:`.glyphs.shown_glyphs`)."""
    return content.unmapped + sum(w.source.count(LOST) for w in content.all_words)


def broken_text(content: PageContent, settings: PdfSettings) -> bool:
    """A text layer that is mostly glyphs without a Unicode mapping: as good
    as none (the page needs OCR), never chunked as if it were text. (A font
    whose letters have no mapping leaves words of U+FFFD: counted too.)"""
    total = content.chars
    return total >= 20 and unreadable_glyphs(content) > settings.unmapped_glyph_max_frac * total
