"""Settings of the PDF parser beyond the project-wide :class:`Settings`.

One frozen dataclass, defaults as named constants, validated once. Lengths
are PDF points unless the name says ``_em`` (a multiple of the local font
size) or ``_frac`` (a fraction of a page or region dimension).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .config import resolve_config

# --- page furniture -------------------------------------------------------
FURNITURE_BAND_FRAC = 0.15  # running headers/footers live in the top/bottom 15% of the page
FURNITURE_GAP_EM = 1.0  # ... and stand apart from the body by a line of whitespace (or a loose rule)
FURNITURE_MIN_REPEATS = 2  # a band line recurring on this many pages is a running header/footer
FURNITURE_MAX_FRAGMENTS = 3  # a running header has a left, a centre and a right part at most; more is a table row
FURNITURE_MAX_ROWS = 2  # a header or footer is one or two lines; a separated group of more is body text
LONE_NUMBER_GAP_EM = 0.2  # a lone page number at the very edge of the page needs only this much whitespace
REPEAT_MIN_PAGE_FRAC = 0.5  # a line repeated at the same place on this share of the pages is furniture, wherever it sits
REPEAT_ANYWHERE_PAGE_FRAC = 0.8  # ... outside the top/bottom band, on this share (and three pages at least)
REPEAT_POSITION_TOL = 3.0  # ... at the same baseline and left, right or centre within this many points
REPEAT_MAX_ROWS = 4  # ... and only while a page has at most this many such rows (two above, two below)
REPEAT_MAX_CHARS = 120  # ... and no longer than this (a repeated paragraph is not a header)
SMALL_HEAD_RATIO = 0.95  # a ruled-off top row set smaller than this times the body size is a running head

# --- text ------------------------------------------------------------------
FRAGMENT_GAP_EM = 1.0  # a gap wider than this inside a MuPDF line splits it (columns, cells)
PARAGRAPH_GAP_EM = 0.35  # extra vertical space, beyond the usual leading, that ends a paragraph
INDENT_EM = 0.8  # a first-line indent of at least this marks a new paragraph
HEADING_SIZE_RATIO = 1.15  # text this much larger than the body is a heading candidate
HEADING_MAX_WORDS = 18
HEADING_MAX_LINES = 3

# --- columns and reading order --------------------------------------------
MIN_GUTTER = 7.0  # narrowest whitespace between two text columns
COLUMN_MIN_LINES = 4  # each side of a column gutter carries at least this many lines...
COLUMN_MIN_WORDS = 4.0  # ... of at least this many words (median): prose, not table cells

# --- rules (vector lines) ---------------------------------------------------
RULE_MAX_THICKNESS = 3.0  # a filled rectangle thinner than this is a line
RULE_MIN_LENGTH = 6.0
SNAP_TOLERANCE = 2.5  # rules this close are the same rule / touch

# --- tables ----------------------------------------------------------------
CELL_GAP_EM = 0.9  # whitespace separating two cells of a row
TABLE_MIN_ROWS = 2  # ruled tables
BORDERLESS_MIN_ROWS = 3  # tables without vertical structure need more evidence
PROSE_ROW_MIN_WORDS = 6  # a row of this many words spanning most of the width is prose
PROSE_ROW_WIDTH_FRAC = 0.6
MAX_PROSE_ROW_FRAC = 0.25  # a candidate with more prose rows than this is not a table
CONTINUATION_X_TOLERANCE = 12.0  # parts of a continued table share their left/right edges
MAX_CONTINUATION_ROWS = 2  # lines of a wrapped cell between two rows of cells (borderless tables)
NUMERIC_SPLIT_EM = 0.4  # numbers set apart by more than this are separate cells even when close
FIGURE_MIN_GRAPHICS = 2  # a candidate touching this many plotted paths (curves, slanted lines) is a figure
FIGURE_NEAR = 12.0  # ... within this distance (tick labels sit next to the plot)

# --- formulas ----------------------------------------------------------------
FRACTION_MAX_GAP_EM = 1.1  # numerator/denominator sit within this distance of the rule
FRACTION_CENTER_FRAC = 0.15  # ... centred on it within this fraction of its length
FRACTION_SIDE_GAP = 40.0  # a left/right-hand side within this gap joins the formula
FRACTION_SIDE_MAX_WORDS = 5  # "Clcr (ml/phút) =", "x 0,85": a side is a few words, not a line of the next column

# --- scanned pages -----------------------------------------------------------
OCR_MIN_CHARS = 40  # fewer body characters than this ...
OCR_MIN_IMAGE_COVER_FRAC = 0.3  # ... on a page this much covered by images: the page needs OCR
UNMAPPED_GLYPH_MAX_FRAC = 0.1  # a page whose glyphs lack a Unicode mapping beyond this share has a broken text layer: it needs OCR (the corpus's worst born-digital page: 1.8 %)
VECTOR_TEXT_MIN_PATHS = 400  # a page with no text but this many vector paths has its text drawn as outlines
# a page whose text is mostly drawn invisibly is a scanned image under an OCR program's reading
# of it (ocrmypdf, Tesseract, Acrobat's searchable image), its errors unchecked: it needs OCR
# checked by a person, unless the collection accepts such text as read ([pdf] accept_ocr_text)
ACCEPT_OCR_TEXT = False

# --- OCR (issue 39): pages with no usable text layer read by Tesseract -------
OCR = True  # off: such pages are named and the document blocked (no_pages_need_ocr)
# Tesseract's languages, joined by "+" (make ocr installs vie, Vietnamese, eng, fas): vie (tessdata_fast) with
# Debian's script/Vietnamese model (tesseract-ocr-script-viet) and eng read the OCR bench's development pages best
# (bench/ocr_models.py: 94.7 % of words right, deskewed, against 91.8 % for vie+eng)
OCR_LANGUAGES = "vie+Vietnamese+eng"
OCR_DPI = 300  # the page image Tesseract reads (200-400)
# a word Tesseract is less sure of than this (its 0-100 confidence) is uncertain: its span is marked on the
# chunk (uncertain_spans) and a number inside it is withheld from answers
OCR_CONFIDENCE_FLOOR = 80.0
# a word holding a digit needs this much (and the number rules of parse/pdf/read/ocr_doubt.py): numbers are what must
# never be silently wrong (the OCR bench, bench/RESULTS.md: floor 80 alone left 22 numbers wrong outside a span, 80 + 93 none)
OCR_NUMBER_CONFIDENCE_FLOOR = 93.0
OCR_MAX_UNCERTAIN_FRAC = 0.5  # a page with more of its words uncertain than this stays blocked, named
OCR_WORKERS = 0  # pages read at once; 0: one per core
# seconds a PDF's parse may take beyond parse_timeout_s for each of its pages, OCR on (a page read at 300 dpi
# costs 2-4 CPU s; bench/RESULTS.md): a 900-page scan is not cut off at two minutes
OCR_PAGE_BUDGET_S = 20.0


@dataclass(frozen=True)
class PdfSettings:
    furniture_band_frac: float = FURNITURE_BAND_FRAC
    furniture_gap_em: float = FURNITURE_GAP_EM
    furniture_min_repeats: int = FURNITURE_MIN_REPEATS
    furniture_max_fragments: int = FURNITURE_MAX_FRAGMENTS
    furniture_max_rows: int = FURNITURE_MAX_ROWS
    lone_number_gap_em: float = LONE_NUMBER_GAP_EM
    small_head_ratio: float = SMALL_HEAD_RATIO
    repeat_min_page_frac: float = REPEAT_MIN_PAGE_FRAC
    repeat_anywhere_page_frac: float = REPEAT_ANYWHERE_PAGE_FRAC
    repeat_position_tol: float = REPEAT_POSITION_TOL
    repeat_max_chars: int = REPEAT_MAX_CHARS
    repeat_max_rows: int = REPEAT_MAX_ROWS
    fragment_gap_em: float = FRAGMENT_GAP_EM
    paragraph_gap_em: float = PARAGRAPH_GAP_EM
    indent_em: float = INDENT_EM
    heading_size_ratio: float = HEADING_SIZE_RATIO
    heading_max_words: int = HEADING_MAX_WORDS
    heading_max_lines: int = HEADING_MAX_LINES
    min_gutter: float = MIN_GUTTER
    column_min_lines: int = COLUMN_MIN_LINES
    column_min_words: float = COLUMN_MIN_WORDS
    rule_max_thickness: float = RULE_MAX_THICKNESS
    rule_min_length: float = RULE_MIN_LENGTH
    snap_tolerance: float = SNAP_TOLERANCE
    cell_gap_em: float = CELL_GAP_EM
    table_min_rows: int = TABLE_MIN_ROWS
    borderless_min_rows: int = BORDERLESS_MIN_ROWS
    prose_row_min_words: int = PROSE_ROW_MIN_WORDS
    prose_row_width_frac: float = PROSE_ROW_WIDTH_FRAC
    max_prose_row_frac: float = MAX_PROSE_ROW_FRAC
    continuation_x_tolerance: float = CONTINUATION_X_TOLERANCE
    max_continuation_rows: int = MAX_CONTINUATION_ROWS
    numeric_split_em: float = NUMERIC_SPLIT_EM
    figure_min_graphics: int = FIGURE_MIN_GRAPHICS
    figure_near: float = FIGURE_NEAR
    fraction_max_gap_em: float = FRACTION_MAX_GAP_EM
    fraction_center_frac: float = FRACTION_CENTER_FRAC
    fraction_side_gap: float = FRACTION_SIDE_GAP
    fraction_side_max_words: int = FRACTION_SIDE_MAX_WORDS
    ocr_min_chars: int = OCR_MIN_CHARS
    ocr_min_image_cover_frac: float = OCR_MIN_IMAGE_COVER_FRAC
    unmapped_glyph_max_frac: float = UNMAPPED_GLYPH_MAX_FRAC
    vector_text_min_paths: int = VECTOR_TEXT_MIN_PATHS
    accept_ocr_text: bool = ACCEPT_OCR_TEXT
    ocr: bool = OCR
    ocr_languages: str = OCR_LANGUAGES
    ocr_dpi: int = OCR_DPI
    ocr_confidence_floor: float = OCR_CONFIDENCE_FLOOR
    ocr_number_confidence_floor: float = OCR_NUMBER_CONFIDENCE_FLOOR
    ocr_max_uncertain_frac: float = OCR_MAX_UNCERTAIN_FRAC
    ocr_workers: int = OCR_WORKERS
    ocr_page_budget_s: float = OCR_PAGE_BUDGET_S

    def __post_init__(self) -> None:
        for name in ("furniture_band_frac", "prose_row_width_frac", "max_prose_row_frac", "fraction_center_frac", "ocr_min_image_cover_frac", "unmapped_glyph_max_frac", "small_head_ratio", "repeat_min_page_frac", "repeat_anywhere_page_frac"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} {value} must be a fraction in (0, 1)")
        for name in (
            "furniture_gap_em", "fragment_gap_em", "paragraph_gap_em", "indent_em", "min_gutter", "column_min_words",
            "rule_max_thickness", "rule_min_length", "snap_tolerance", "cell_gap_em", "continuation_x_tolerance",
            "fraction_max_gap_em", "fraction_side_gap", "lone_number_gap_em", "numeric_split_em", "figure_near", "repeat_position_tol",
        ):
            value = getattr(self, name)
            if value <= 0:
                raise ValueError(f"{name} {value} must be positive")
        for name in (
            "furniture_min_repeats", "furniture_max_fragments", "furniture_max_rows", "heading_max_words", "heading_max_lines",
            "column_min_lines", "prose_row_min_words", "ocr_min_chars", "figure_min_graphics", "fraction_side_max_words",
            "vector_text_min_paths", "repeat_max_chars", "repeat_max_rows",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} {getattr(self, name)} must be at least 1")
        if self.table_min_rows < 2 or self.borderless_min_rows < self.table_min_rows:
            raise ValueError(
                f"table_min_rows {self.table_min_rows} must be >= 2 and borderless_min_rows "
                f"{self.borderless_min_rows} >= table_min_rows"
            )
        if self.max_continuation_rows < 0:
            raise ValueError(f"max_continuation_rows {self.max_continuation_rows} must not be negative")
        if not isinstance(self.accept_ocr_text, bool):
            raise ValueError(f"accept_ocr_text {self.accept_ocr_text!r} must be true or false")
        self._check_ocr()
        if self.heading_size_ratio <= 1.0:
            raise ValueError(f"heading_size_ratio {self.heading_size_ratio} must exceed 1")

    def _check_ocr(self) -> None:
        if not isinstance(self.ocr, bool):
            raise ValueError(f"ocr {self.ocr!r} must be true or false")
        langs = self.ocr_languages.split("+") if isinstance(self.ocr_languages, str) else []
        if not langs or not all(re.fullmatch(r"(script/)?[A-Za-z_]{3,24}", lang) for lang in langs):
            raise ValueError(f"ocr_languages {self.ocr_languages!r} must be Tesseract language names joined by '+' (vie+eng)")
        if not 100 <= self.ocr_dpi <= 600:
            raise ValueError(f"ocr_dpi {self.ocr_dpi} must be between 100 and 600")
        for name in ("ocr_confidence_floor", "ocr_number_confidence_floor"):
            if not 0.0 <= getattr(self, name) <= 100.0:
                raise ValueError(f"{name} {getattr(self, name)} must be a confidence in [0, 100]")
        if not 0.0 < self.ocr_max_uncertain_frac <= 1.0:
            raise ValueError(f"ocr_max_uncertain_frac {self.ocr_max_uncertain_frac} must be a fraction in (0, 1]")
        if self.ocr_page_budget_s < 0:
            raise ValueError(f"ocr_page_budget_s {self.ocr_page_budget_s} must not be negative")
        if self.ocr_workers < 0:
            raise ValueError(f"ocr_workers {self.ocr_workers} must not be negative (0: one per core)")


def resolve_pdf_settings(value: PdfSettings | dict[str, Any] | None = None) -> PdfSettings:
    return resolve_config(PdfSettings, value, "PDF settings")
