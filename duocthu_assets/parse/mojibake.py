"""Text whose characters were mapped wrong: mojibake.

A PDF font whose encoding maps its glyphs to the wrong code points reads as
valid Unicode that means nothing (redp5110 p. 3's sidebar, set in a
HelveticaNeue with its own encoding: ``]üìÜüéê •ìê °ê£ë†£ûÜüéê`` for "Enhance
the performance of your database operations"); so does a file decoded with
the wrong code page (``Thuá»‘c`` for ``Thuốc``). Nothing else notices: the
characters are letters and signs, none of them U+FFFD. Embedded, such a
chunk is found by no query and read by nobody, and nothing says its text
was lost.

The sequences that give it away are ftfy's (``ftfy.badness``: a letter
glued to ``†`` or ``•``, ``Ã`` before a symbol, ...), tuned by its authors
on web text to be rare in text written by people. One such word can be
real (``Lo^{†∗}``, an author's footnote marks; ``µ_θ``), so a run is
asked for: :data:`MIN_BAD_WORDS` of :data:`WINDOW` words in a row. Pure.
"""

from __future__ import annotations

from ftfy.badness import badness, is_bad

WINDOW = 10  # words
MIN_BAD_WORDS = 3  # of them holding a sequence ftfy calls mojibake (the corpus's real text: at most 1)


def misencoded_window(text: str) -> list[str] | None:
    """The words of ``text`` from the first bad one of the first run of
    :data:`WINDOW` words of which :data:`MIN_BAD_WORDS` hold a mojibake
    sequence (up to :data:`WINDOW` of them), or None."""
    if text.isascii() or not is_bad(text):
        return None  # every sequence ftfy names holds a character beyond ASCII; one search of the whole text first
    words = text.split()
    flags = [not w.isascii() and badness(w) > 0 for w in words]
    if sum(flags) < MIN_BAD_WORDS:
        return None
    run = sum(flags[:WINDOW])
    for k in range(max(1, len(words) - WINDOW + 1)):
        if k:
            run += flags[k + WINDOW - 1] - flags[k - 1]
        if run >= MIN_BAD_WORDS:
            start = flags.index(True, k)  # shown from its first bad word
            return words[start : start + WINDOW]
    return None
