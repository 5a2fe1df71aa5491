"""Right-to-left text whose glyphs stand for several characters, read back in
the order the font gave them.

An Arabic or Persian font draws lam followed by alef as one glyph, the
lam-alef ligature (``لا``, and ``لأ`` ``لإ`` ``لآ`` with a hamza or madda),
and its ToUnicode map gives that glyph the two characters in reading order,
lam then alef. MuPDF puts a right-to-left line into reading order by the
glyphs' places on the line, right to left; the second character of a glyph
has no place of its own (it stands, with no width, at the glyph's right
edge, where the first one begins), so it lands *before* the first: ``المشكلات`` (the problems) is read
``المشكالت``, ``خلال`` (during) ``خالل``, ``الإنتاجية`` ``اإلنتاجية``, and
``لا`` (no, not: ``لا يجوز``, "it is not permitted") ``ال`` (the: "the
permitted"). Nothing flags it; a search for the word finds nothing. PyMuPDF
leaves it to the caller (pymupdf/PyMuPDF#2199, closed "wontfix"; the same
in pdfminer.six #850 and pypdf #1589; PDFBox reverses such glyphs'
characters, PDFBOX-4531).

:func:`glyph_order` finds each such glyph on a line from the characters'
boxes — characters of no width standing at the right edge of the character
after them — and puts its characters back in the font's order. Marks
(tanwin, shadda: zero width of their own) are left where MuPDF put them.
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

# Hebrew, Arabic, Syriac, Thaana, N'Ko … Arabic Extended; presentation forms
RTL_RANGES = ((0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF))
ZERO_WIDTH = 0.05  # points: a character with no width of its own
SAME_EDGE = 0.3  # points: where a glyph's extra characters stand, against its edge


def rtl_char(c: str) -> bool:
    return any(lo <= ord(c) <= hi for lo, hi in RTL_RANGES)


def has_rtl(text: str) -> bool:
    return any(rtl_char(c) for c in text)


def _extra(ch: tuple[str, float, float]) -> bool:
    """A character with no width that is a letter of a right-to-left script
    (a glyph's second character), not a mark (which has no width by nature)."""
    c, x0, x1 = ch
    return x1 - x0 <= ZERO_WIDTH and rtl_char(c) and not unicodedata.category(c).startswith("M")


def glyph_order(chars: Sequence[tuple[str, float, float]]) -> str:
    """The characters of one line (``(character, x0, x1)`` in MuPDF's order),
    as text, with the characters of each glyph that stands for several back
    in the glyph's own order: a run of width-less letters standing at the
    right edge of the right-to-left letter that follows them are that
    letter's glyph's later characters (``ا`` at x=401.8 before ``ل`` spanning
    394.5-401.8 reads ``لا``)."""
    out: list[str] = []
    i, n = 0, len(chars)
    while i < n:
        if _extra(chars[i]):
            edge = chars[i][1]
            j = i
            while j < n and _extra(chars[j]) and abs(chars[j][1] - edge) <= SAME_EDGE:
                j += 1
            if j < n and rtl_char(chars[j][0]) and chars[j][2] - chars[j][1] > ZERO_WIDTH and abs(chars[j][2] - edge) <= SAME_EDGE:
                out.append(chars[j][0])
                out.extend(c for c, _, _ in reversed(chars[i:j]))
                i = j + 1
                continue
        out.append(chars[i][0])
        i += 1
    return "".join(out)


def reorder_words(words: Sequence[str], line_text: str, fixed_text: str) -> list[str] | None:
    """The words MuPDF cut from one line (``line_text``, its characters in
    MuPDF's order), each given its characters from ``fixed_text`` (the same
    line through :func:`glyph_order`: the same characters, some glyphs' put
    back in order). None when a word is not found in the line, in order (the
    line is then left as MuPDF read it)."""
    out: list[str] = []
    at = 0
    for word in words:
        k = line_text.find(word, at)
        if k < 0:
            return None
        out.append(fixed_text[k : k + len(word)])
        at = k + len(word)
    return out


def glyph_ordered_words(raw_dict: dict, raw_words: Sequence[tuple]) -> dict[int, str]:
    """For a page's ``extractRAWDICT`` and ``extractWORDS`` (one TextPage),
    the words whose characters :func:`glyph_order` put in another order, by
    their index in ``raw_words``. Only lines running left to right on the
    page (an Arabic line's baseline does) are read; blocks are numbered as
    ``extractWORDS`` numbers them (text blocks only)."""
    lines: dict[tuple[int, int], tuple[str, str]] = {}
    block_no = -1
    for block in raw_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        block_no += 1
        for line_no, line in enumerate(block["lines"]):
            if tuple(round(v) for v in line.get("dir", (1, 0))) != (1, 0):
                continue
            chars = [(c["c"], c["bbox"][0], c["bbox"][2]) for span in line["spans"] for c in span["chars"]]
            if not any(_extra(ch) for ch in chars):
                continue
            text = "".join(c for c, _, _ in chars)
            fixed = glyph_order(chars)
            if fixed != text:
                lines[(block_no, line_no)] = (text, fixed)
    if not lines:
        return {}
    by_line: dict[tuple[int, int], list[int]] = {}
    for n, word in enumerate(raw_words):
        if (word[5], word[6]) in lines:
            by_line.setdefault((word[5], word[6]), []).append(n)
    out: dict[int, str] = {}
    for key, indices in by_line.items():
        reordered = reorder_words([raw_words[n][4] for n in indices], *lines[key])
        if reordered is not None:
            out.update((n, w) for n, w in zip(indices, reordered) if w != raw_words[n][4])
    return out


TOUCH = 0.3  # points: two words' boxes this close on one line hold no space between them


def _letter(c: str) -> bool:
    return rtl_char(c) and unicodedata.category(c).startswith("L")


def _touching(a: tuple, b: tuple) -> bool:
    """Two ``extractWORDS`` words of one block and one line of print whose
    boxes touch, an Arabic-script letter on each side of the seam."""
    if a[5] != b[5] or abs(a[1] - b[1]) > TOUCH * 2 or abs(a[3] - b[3]) > TOUCH * 2:
        return False
    right, left = (a, b) if a[0] >= b[0] else (b, a)
    # in reading order the right word ends, and the left one begins, at the seam
    return abs(right[0] - left[2]) <= TOUCH and _letter(right[4][-1]) and _letter(left[4][0])


def joined_words(raw_words: Sequence[tuple], apart: set[tuple[int, int]] = frozenset()) -> list[tuple]:
    """``extractWORDS`` words with the pieces of one right-to-left word
    joined, right piece first: MuPDF cuts a word where the PDF put a space
    character that stands elsewhere on the line (``م ن`` for ``من``, ``له ا``
    for ``لها`` in docling's right_to_left_01), where a word runs over two
    of its lines (``الإ`` + ``حصائي``), or where the word's last letter was
    drawn first (``ی کالا`` for ``کالای``, right_to_left_03). Pieces whose
    boxes touch, with an Arabic-script letter on each side of the seam, are
    one word: words have a space's width between them. A joined word keeps
    the place, block and line of its first piece. Lines in ``apart``
    (``(block, line)``: those with script marks) are left as they are."""
    out: list[tuple] = []
    for word in raw_words:
        prev = out[-1] if out else None
        if prev is not None and prev[5:7] not in apart and word[5:7] not in apart and _touching(prev, word):
            right, left = (prev, word) if prev[0] >= word[0] else (word, prev)
            box = (min(prev[0], word[0]), min(prev[1], word[1]), max(prev[2], word[2]), max(prev[3], word[3]))
            out[-1] = (*box, right[4] + left[4], *prev[5:])
        else:
            out.append(tuple(word))
    return out
