"""Text whose characters were mapped wrong: mojibake, Vietnamese typed in a
legacy font encoding, and Arabic script read through a broken glyph map.

A PDF font whose encoding maps its glyphs to the wrong code points reads as
valid Unicode that means nothing (a sidebar set in a font with an encoding
of its own reads as accented letters and signs); so does a file decoded
with the wrong code page (``Thuá»‘c`` for ``Thuốc``). Nothing else notices: the
characters are letters and signs, none of them U+FFFD. Embedded, such a
chunk is found by no query and read by nobody, and nothing says its text
was lost.

The sequences that give it away are ftfy's (``ftfy.badness``: a letter
glued to ``†`` or ``•``, ``Ã`` before a symbol, ...), tuned by its authors
on web text to be rare in text written by people. One such word can be
real (``Lo^{†∗}``, an author's footnote marks; ``µ_θ``), so a run is
asked for: :data:`MIN_BAD_WORDS` of :data:`WINDOW` words in a row.

Vietnamese typed in a TCVN3 or VNI font (``Céng hoµ x· héi`` for "Cộng
hoà xã hội") holds none of those sequences; its words are told by what they
read as (:mod:`duocthu_assets.parse.encoding.legacy_vietnamese`), a run of them
asked for the same way (:func:`legacy_vietnamese_window`).

An Arabic or Persian PDF whose font's ToUnicode map is wrong reads as real
Arabic letters in the wrong places (``تضع صوو عييهاوخ`` for "تضع صوب
أعينها"; the kashida, the stroke that stretches a justified line, mapped
to a waw: ``قويوووة``). Most of its letters cannot be told from right ones
without a dictionary; one sign can: the same letter three times in a row
inside a word, which Arabic and Persian spelling never writes (5 of the
38,471 Arabic-script strings of this machine's gettext catalogues hold
one, typos such as ``عددد``; of a page read through such a map, a quarter
of its words do). A run is asked for the same way (:func:`broken_glyph_map_window`). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ftfy.badness import badness, is_bad

from .legacy_vietnamese import TCVN3, VNI, core, legacy_readings, shown_as

WINDOW = 10  # words
MIN_BAD_WORDS = 3  # of them holding a sequence ftfy calls mojibake (the corpus's real text: at most 1)


def misencoded_window(text: str) -> list[str] | None:
    """The words of ``text`` from the first bad one of the first run of
    :data:`WINDOW` words of which :data:`MIN_BAD_WORDS` hold a mojibake
    sequence (up to :data:`WINDOW` of them), or None."""
    if text.isascii() or not is_bad(text):
        return None  # every sequence ftfy names holds a character beyond ASCII; one search of the whole text first
    words = text.split()
    return _first_run(words, [not w.isascii() and badness(w) > 0 for w in words])


# an Arabic (the tatweel U+0640 left out: a run of it is a stretched stroke) or Hebrew letter, three times
TRIPLED_LETTER = re.compile("([\u0621-\u063f\u0641-\u064a\u066e-\u06d3\u06d5\u05d0-\u05ea])\\1\\1")


def _first_run(words: list[str], flags: list[bool]) -> list[str] | None:
    """The words from the first flagged one of the first run of
    :data:`WINDOW` words of which :data:`MIN_BAD_WORDS` are flagged (up to
    :data:`WINDOW` of them), or None."""
    if sum(flags) < MIN_BAD_WORDS:
        return None
    run = sum(flags[:WINDOW])
    for k in range(max(1, len(words) - WINDOW + 1)):
        if k:
            run += flags[k + WINDOW - 1] - flags[k - 1]
        if run >= MIN_BAD_WORDS:
            start = flags.index(True, k)
            return words[start : start + WINDOW]
    return None


def broken_glyph_map_window(text: str) -> list[str] | None:
    """The words of ``text`` from the first of a run of :data:`WINDOW` words
    of which :data:`MIN_BAD_WORDS` hold an Arabic or Hebrew letter three
    times in a row (a font whose glyphs read as the wrong letters), or None."""
    if text.isascii() or TRIPLED_LETTER.search(text) is None:
        return None
    words = text.split()
    return _first_run(words, [TRIPLED_LETTER.search(w) is not None for w in words])


MIN_DISTINCTIVE = 1  # ... one of them typed with a code no language writes inside a word


@dataclass(frozen=True)
class LegacyVietnamese:
    """A run of Vietnamese typed in a legacy font encoding: its words as
    read, and as the encoding means them."""

    encoding: str
    words: list[str]
    readings: list[str]


def legacy_vietnamese_window(text: str) -> LegacyVietnamese | None:
    """The first run of :data:`WINDOW` words of ``text`` of which
    :data:`MIN_BAD_WORDS` are no Vietnamese syllable as they stand but are
    one read in the same legacy encoding (TCVN3 or VNI,
    :func:`duocthu_assets.parse.encoding.legacy_vietnamese.legacy_readings`),
    :data:`MIN_DISTINCTIVE` of them typed with a code no language writes
    inside a word; shown from its first such word, or None."""
    if text.isascii():
        return None
    words = text.split()
    found = [legacy_readings(core(w)) for w in words]
    for encoding in (TCVN3, VNI):
        read = [any(e == encoding for e, _, _ in f) for f in found]
        sign = [any(e == encoding and distinctive for e, _, distinctive in f) for f in found]
        if sum(read) < MIN_BAD_WORDS or sum(sign) < MIN_DISTINCTIVE:
            continue
        for k in range(len(words)):  # each window from a word so read (a sign's word is one)
            end = k + WINDOW
            if read[k] and sum(read[k:end]) >= MIN_BAD_WORDS and sum(sign[k:end]) >= MIN_DISTINCTIVE:
                return LegacyVietnamese(encoding, words[k:end], [shown_as(w, encoding) for w in words[k:end]])
    return None


def legacy_words(text: str, encoding: str) -> list[tuple[str, str]]:
    """``(word, reading)`` of each word of ``text`` that is no Vietnamese
    syllable as it stands but is one read in ``encoding`` — proof enough
    once the document is known to be set in that encoding's font
    (:mod:`duocthu_assets.parse.legacy_fonts`), however short the text."""
    if text.isascii():
        return []
    return [(w, shown_as(w, encoding)) for w in text.split() if any(e == encoding for e, _, _ in legacy_readings(core(w)))]


MISENCODED = "misencoded text (characters mapped wrong: a font's own encoding, or a file read in the wrong code page)"
_LEGACY = "Vietnamese typed in a legacy font encoding ({encoding}), not Unicode: "
_CONVERT = " — convert the document to Unicode (Unikey's converter, or set it again in a Unicode font) and ingest it again"
LEGACY_VIETNAMESE = _LEGACY + "{words!r} reads {readings!r}" + _CONVERT
BROKEN_GLYPH_MAP = (
    "Arabic-script text read through a broken glyph map (the PDF's font maps its glyphs to wrong letters; "
    "a letter three times in a row inside a word, which no Arabic or Persian word has): {words!r}"
    " — the text cannot be trusted: export the PDF again from its source with its fonts embedded whole, or set it in another font"
)
LEGACY_FONT = _LEGACY + "the document is set in {fonts}, and {words!r} reads {readings!r}" + _CONVERT


def misencoding(text: str) -> str | None:
    """Why ``text`` reads as characters mapped wrong — a run of mojibake
    (:func:`misencoded_window`), of Vietnamese typed in a legacy font
    encoding (:func:`legacy_vietnamese_window`) or of Arabic script read
    through a broken glyph map (:func:`broken_glyph_map_window`) — or None."""
    words = misencoded_window(text)
    if words:
        return f"{MISENCODED}: " + " ".join(words)
    legacy = legacy_vietnamese_window(text)
    if legacy:
        return LEGACY_VIETNAMESE.format(encoding=legacy.encoding, words=" ".join(legacy.words), readings=" ".join(legacy.readings))
    glyphs = broken_glyph_map_window(text)
    if glyphs:
        return BROKEN_GLYPH_MAP.format(words=" ".join(glyphs))
    return None

