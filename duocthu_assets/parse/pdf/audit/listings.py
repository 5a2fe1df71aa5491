"""Code listings: a run of tokens leak_02 flagged that is code set in a
fixed-pitch face on its page, read as printed, not flattened math.
"""

from __future__ import annotations

from .flattened_math import flattened_token, window_kind
from .pages import pages_where

MONOSPACE_NAMES = ("mono", "courier", "consol", "code")  # font names of fixed-pitch faces
MONOSPACE_FLAG = 8  # MuPDF's span flag for a fixed-pitch font (pymupdf.TEXT_FONT_MONOSPACED)
MONOSPACE_MIN_DISTINCT = 6  # distinct characters a span needs before equal advances say "fixed pitch"
ADVANCE_TOL = 0.05  # points
MIN_LISTING_LINES = 2  # a code listing is at least this many fixed-pitch lines on the page


def monospaced(font: str, flags: int, chars: list[tuple[str, float]]) -> bool:
    """Whether a span is set in a fixed-pitch face: the font says so (its
    flag or its name: Courier, ``…Mono``), or its characters (``(char,
    advance)``), of at least :data:`MONOSPACE_MIN_DISTINCT` different ones,
    all advance by the same width (IBM's ``BookMasterGothic`` listings carry
    no flag; every glyph is 0.498 em wide)."""
    if flags & MONOSPACE_FLAG or any(n in font.lower() for n in MONOSPACE_NAMES):
        return True
    if len({c for c, _ in chars if not c.isspace()}) < MONOSPACE_MIN_DISTINCT:
        return False
    widths = [w for _, w in chars]
    return max(widths) - min(widths) <= ADVANCE_TOL


def code_listing(lines: list[str], window: list[str]) -> bool:
    """Whether the run of tokens ``window`` that leak_02 flagged is a code
    listing read as printed: the run is symbol runs (``|| '-' || (``: no
    lone variable, math operator or bad glyph, see :func:`.flattened_math.window_kind`),
    the page holds at least :data:`MIN_LISTING_LINES` ``lines`` set in a
    fixed-pitch face, and their tokens hold every symbol run of the window
    and most of its tokens. A flattened formula fails the first test in any
    font. Pure."""
    if len(lines) < MIN_LISTING_LINES or not window_kind(window).startswith("symbol runs"):
        return False
    listed: dict[str, int] = {}
    for line in lines:
        for token in line.split():
            listed[token] = listed.get(token, 0) + 1
    covered = 0
    for token in window:
        if listed.get(token, 0) > 0:
            listed[token] -= 1
            covered += 1
        elif flattened_token(token):
            return False  # a symbol run the listing does not hold
    return covered * 2 > len(window)


def monospaced_lines(page) -> list[str]:
    """The text of the page's lines whose every non-blank span is set in a
    fixed-pitch face (:func:`monospaced`), from MuPDF's raw characters."""
    out = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line["spans"] if "".join(c["c"] for c in s["chars"]).strip()]
            if spans and all(
                monospaced(s["font"], int(s["flags"]), [(c["c"], c["bbox"][2] - c["bbox"][0]) for c in s["chars"]]) for s in spans
            ):
                out.append("".join(c["c"] for s in spans for c in s["chars"]))
    return out


def code_listings_in(data: bytes, page_nos: list[int], window: list[str]) -> list[int]:
    """The pages among ``page_nos`` of the PDF ``data`` where ``window`` is
    part of a code listing (:func:`code_listing`)."""
    return pages_where(data, page_nos, lambda page: code_listing(monospaced_lines(page), window))

