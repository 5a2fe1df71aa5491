"""Glyphs with no readable character: which of them a word keeps, shown as
U+FFFD where they stood, and which it leaves out (a list's bullet); and the
character a page draws in a box, for the letters MuPDF's words lost.

Left out, a glyph with no Unicode mapping makes the text read whole and
wrong (``God⍰lowski`` as ``Godlowski``, ``⍰30`` as ``30``); shown, it
tells the reader and the character accounting that something stood there.
"""

from __future__ import annotations

import re
import unicodedata

from ..geometry import BBox

# Glyphs that carry no readable character: MuPDF's U+FFFD for a glyph without
# a Unicode mapping, private-use code points (a font's own symbols), and
# control characters (raw codes). Counted per page; shown as U+FFFD where they
# stood when they belong to the text (shown_glyphs), left out when they are a
# list's bullet before a line's words.
UNMAPPED = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
LOST = "\ufffd"  # a glyph with no Unicode mapping, shown where it stood


def shown_glyphs(text: str, leads_line: bool = False, next_word: str = "") -> set[int]:
    """Positions in the word ``text`` of the glyphs with no Unicode mapping
    that are shown as U+FFFD where they stood: every one, but for a list's
    bullet. Left out, the text reads whole and wrong: ``God⍰lowski`` (the
    stroke of an ``ł``) as ``Godlowski``, ``⍰30`` (a ``≤`` in a font with no
    mapping) as ``30``. A bullet is what leads its line's words
    (``leads_line``): glyphs before the first letter of the line's first
    word, or a word of nothing but such glyphs before a word that begins
    with a letter, or alone on its line (a bullet, or a delimiter MuPDF set
    apart: a line of math that lost one is named by the leak audit). A word
    of such glyphs before a number (``⍰ 30``) is shown."""
    lost = [k for k, c in enumerate(text) if UNMAPPED.match(c)]
    if not lost:
        return set()
    readable = [k for k, c in enumerate(text) if not UNMAPPED.match(c) and not c.isspace()]
    if not readable:
        follower = UNMAPPED.sub("", next_word).strip()
        if leads_line and (not follower or follower[0].isalpha()):
            return set()
        return set(lost)
    if leads_line and text[readable[0]].isalpha():
        return {k for k in lost if k > readable[0]}
    return set(lost)


def kept_characters(text: str, leads_line: bool = False, next_word: str = "") -> list[tuple[int, str]]:
    """``(position, character)`` of what the page reader keeps of a word:
    the glyphs with no Unicode mapping it shows (:func:`shown_glyphs`) as
    U+FFFD, the others left out."""
    shown_at = shown_glyphs(text, leads_line, next_word)
    return [(k, LOST if k in shown_at else c) for k, c in enumerate(text) if k in shown_at or not UNMAPPED.match(c)]


def shown(text: str, leads_line: bool = False, next_word: str = "") -> str:
    """``text`` as the page reader keeps it (:func:`kept_characters`)."""
    return "".join(c for _, c in kept_characters(text, leads_line, next_word))


def drawn_glyphs(page):
    """For :func:`.rtl.rtl_words`: the character of the glyph the page
    draws in a box (its middle inside), read NFKC (a presentation form as
    its letter), from the page's glyph trace, read on the first question
    only; None on a page turned by /Rotate (the trace's frame is not asked)."""
    trace: list[tuple[str, tuple]] | None = None

    def drawn(box: BBox) -> str | None:
        nonlocal trace
        if page.rotation:
            return None
        if trace is None:
            trace = [(chr(c[0]), c[3]) for span in page.get_texttrace() for c in span["chars"] if c[0] > 32]
        x0, y0, x1, y1 = box
        for ch, (a, b, c, d) in trace:
            if x0 < (a + c) / 2 < x1 and y0 < (b + d) / 2 < y1:
                return unicodedata.normalize("NFKC", ch)
        return None

    return drawn
