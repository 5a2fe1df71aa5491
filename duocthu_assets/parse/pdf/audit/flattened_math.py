"""Flattened math in prose: a prose text dominated by the pieces of a
formula read as a line (lone characters, symbol runs, math operators),
unmapped glyphs, or characters mapped wrong. Pure: text in, why out.
"""

from __future__ import annotations

from ...encoding.mojibake import misencoding
from ..records import SCRIPT_MARK, is_bad_glyph, is_formula_piece, is_latin_or_greek, is_math_char

MATH_WINDOW = 10  # tokens
MATH_WINDOW_MIN = 7  # of them fragments of a formula
MAX_BAD_GLYPHS = 2  # U+FFFD / private-use characters a prose text may hold


def flattened_token(token: str) -> bool:
    """A piece of a *flattened* formula: :func:`is_formula_piece`, except a
    token whose scripts are marked (``x^2``, ``10^{−3}``, ``x_i``), which
    reads as it was set; a bad glyph is flattened wherever it is."""
    if SCRIPT_MARK.search(token) and not any(is_bad_glyph(c) for c in token):
        return False
    return is_formula_piece(token)


def flattened_window(text: str) -> list[str] | None:
    """The first run of :data:`MATH_WINDOW` tokens of ``text`` of which
    :data:`MATH_WINDOW_MIN` are flattened formula pieces, or None."""
    # dot leaders and ellipses (". . . .") are neutral: tables of contents
    tokens = [t for t in text.split() if t.strip(".…·,")]
    flags = [flattened_token(t) for t in tokens]
    run = sum(flags[:MATH_WINDOW])
    for k in range(len(tokens) - MATH_WINDOW + 1):
        if k:
            run += flags[k + MATH_WINDOW - 1] - flags[k - 1]
        if run >= MATH_WINDOW_MIN:
            return tokens[k : k + MATH_WINDOW]
    return None


def _letters_only(token: str) -> bool:
    return token.isalpha() and token.islower() and all(is_latin_or_greek(c) for c in token)


def window_kind(window: list[str]) -> str:
    """What a flagged run of tokens is, for the message: lowercase letters
    and letter pairs with nothing else (``ifi th t th i i i t b i``) are
    an unreadable text-layer line (a font whose spacing or glyphs lost the
    words); punctuation runs with no letter, variable or math sign
    (``|| '-' || ( )``) are symbols of code or math; anything else is
    formula fragments."""
    pieces = [t for t in window if flattened_token(t)]
    if all(_letters_only(t) and len(t) <= 3 for t in window):
        return "unreadable text-layer line (words broken into letters)"
    if all(not any(c.isalnum() or is_math_char(c) for c in t) for t in pieces):
        return "symbol runs (code or flattened math)"
    return "formula fragments"


def flattened_math(text: str, laid_out: bool = True) -> str | None:
    """Why ``text`` (a prose chunk) looks like flattened 2D math or an
    unreadable text layer, or None:
    more than :data:`MAX_BAD_GLYPHS` unmapped glyphs (U+FFFD; private-use
    glyphs, often a symbol font's checkbox, count only inside a run),
    characters mapped wrong (:func:`duocthu_assets.parse.encoding.mojibake.misencoding`:
    mojibake, or Vietnamese typed in a legacy font encoding),
    or — for text read off a layout (``laid_out``: not a CSV's or a
    sheet's cells as typed, whose empty cells read ``| | |``) — a run of
    :data:`MATH_WINDOW` tokens of which :data:`MATH_WINDOW_MIN`
    are lone characters, symbol runs or math operators
    (``� n+1 � i=1 x2 i = 1 �``), named by :func:`window_kind`."""
    bad = text.count("\ufffd")
    if bad > MAX_BAD_GLYPHS:
        return f"{bad} unmapped glyphs (U+FFFD)"
    misencoded = misencoding(text)
    if misencoded:
        return misencoded
    window = flattened_window(text) if laid_out else None
    if window is None:
        return None
    return f"{window_kind(window)}: " + " ".join(window)

