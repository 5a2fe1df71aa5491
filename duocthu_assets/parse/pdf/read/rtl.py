"""Right-to-left lines of a PDF (Arabic, Persian, Hebrew) read as they are
written, from MuPDF's characters and their boxes. Pure: it reads the
``extractRAWDICT`` and ``extractWORDS`` of one TextPage (the page's glyph
trace only through the callable it is given).

MuPDF puts a right-to-left line into reading order itself, and gets four
things wrong, silently (measured on the corpus's Arabic and Persian PDFs
and on Chromium's prints of such pages; bench/README.md):

- **A glyph that stands for several letters** — the lam-alef ligature
  (``لا``, ``لأ``, ``لإ``, ``لآ``), whose ToUnicode map gives lam then alef —
  has its later letters first: they have no place of their own (no width,
  at the glyph's right edge). ``المشكلات`` (the problems) reads
  ``المشكالت``, ``خلال`` ``خالل``, and ``لا`` (no, not: ``لا يجوز``, "it is not
  permitted") ``ال`` (the). PyMuPDF leaves it to the caller
  (pymupdf/PyMuPDF#2199, "wontfix"; pdfminer.six #850, pypdf #1589 the
  same; PDFBox reverses such glyphs' letters, PDFBOX-4531).
  :func:`glyph_order` puts them back.
- **A line out of order**: a Chromium print of ``روزانه ۲ بار، هر بار ۵۰۰
  میلی‌گرم`` (twice a day, 500 mg each) comes out ``… یابد۵۰۰ بار، هر بار۲
  مقدار مصرف: روزانه``. :func:`out_of_order` tells it from the boxes,
  :func:`reading_order` reads the line again from them.
- **A word in pieces** (``م ن`` for ``من``; ``ی کالا`` for ``کالای``):
  :func:`joined_words`; and **a letter left out** before a ligature (``ک
  لای`` for ``کالای``), found by :func:`dropped_before_ligature` and asked of
  the page's glyph trace.
- **Letters in no word**: ``extractWORDS`` drops a word whose letters have no
  width (Arabic with its vowel marks, printed by Chromium);
  :func:`rtl_words` counts them, and the page's account fails.

Marks (tanwin, shadda: no width of their own) are left where MuPDF put them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Sequence

from ..engine import text_lines

# Hebrew, Arabic, Syriac, Thaana, N'Ko … Arabic Extended; presentation forms
RTL_RANGES = ((0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF))
ZERO_WIDTH = 0.05  # points: a character with no width of its own
SAME_EDGE = 0.3  # points: where a glyph's extra characters stand, against its edge


_RTL = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in RTL_RANGES) + "]")


def rtl_char(c: str) -> bool:
    return _RTL.match(c) is not None


def has_rtl(text: str) -> bool:
    return _RTL.search(text) is not None


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
    return "".join(chars[k][0] for k in _glyph_permutation(chars))


def _glyph_permutation(chars: Sequence[tuple[str, float, float]]) -> list[int]:
    """The indices of ``chars`` in :func:`glyph_order`'s order."""
    out: list[int] = []
    i, n = 0, len(chars)
    while i < n:
        if _extra(chars[i]):
            edge = chars[i][1]
            j = i
            while j < n and _extra(chars[j]) and abs(chars[j][1] - edge) <= SAME_EDGE:
                j += 1
            if j < n and rtl_char(chars[j][0]) and chars[j][2] - chars[j][1] > ZERO_WIDTH and abs(chars[j][2] - edge) <= SAME_EDGE:
                out.extend(range(j, i - 1, -1))  # the glyph's letter, then its later ones in the font's order
                i = j + 1
                continue
        out.append(i)
        i += 1
    return out


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


def _kind(c: str) -> str:
    """``R``: a right-to-left letter or mark; ``L``: a digit of any script
    (numbers read left to right, Persian ``۵۰۰`` too) or another letter;
    ``N``: spaces and signs."""
    if c.isdigit():
        return "L"
    if rtl_char(c):
        return "R" if unicodedata.category(c)[0] in "LM" else "N"
    return "L" if c.isalnum() else "N"


def out_of_order(chars: Sequence[tuple[str, float, float]]) -> bool:
    """Whether MuPDF gave a right-to-left line's characters out of reading
    order: a character followed (spaces aside: MuPDF places its own
    anywhere) by one standing to its right, where either is a right-to-left
    letter (only inside a run of digits and Latin words does reading go
    rightwards). A Chromium print of ``روزانه ۲ بار، هر بار ۵۰۰ میلی‌گرم``
    (twice a day, 500 mg each) comes out ``… یابد۵۰۰ بار، هر بار۲ مقدار مصرف:
    روزانه``: the numbers moved off their words, one glued to the sentence's
    last word; a line's closing full stop, drawn at its left end, comes
    first."""
    letters = [ch for ch in chars if not ch[0].isspace()]
    for (c, x0, x1), (d, y0, y1) in zip(letters, letters[1:]):
        if (y0 + y1) / 2 > x1 + SAME_EDGE and ((x1 - x0 > ZERO_WIDTH and _kind(c) == "R") or _kind(d) == "R"):
            return True
    return False


def reading_order(chars: Sequence[tuple[str, float, float]]) -> list[int]:
    """Indices of a right-to-left line's characters in reading order, from
    their places: right to left, each run of left-to-right text (digits,
    Latin words, and the signs and spaces between them) left to right. A
    space whose box holds another character's middle is MuPDF's own, not
    the line's, and is left out."""
    middles = [(x0 + x1) / 2 for _, x0, x1 in chars]
    kept = [
        k for k, (c, x0, x1) in enumerate(chars)
        if not (c.isspace() and any(x0 < m < x1 for j, m in enumerate(middles) if j != k and not chars[j][0].isspace()))
    ]
    order = sorted(kept, key=lambda k: -middles[k])
    return _left_to_right_runs(order, [_kind(chars[k][0]) for k in order])


def _left_to_right_runs(order: list[int], kinds: list[str]) -> list[int]:
    """``order`` (items right to left, each of kind ``R``, ``L`` or ``N`` as
    :func:`_kind` tells) in reading order: each run from an ``L`` to the
    last ``L`` before the next ``R`` (the signs and spaces between them
    inside) read left to right."""
    out: list[int] = []
    k = 0
    while k < len(order):
        if kinds[k] != "L":
            out.append(order[k])
            k += 1
            continue
        last = end = k
        while end < len(order) and kinds[end] != "R":
            if kinds[end] == "L":
                last = end
            end += 1
        out.extend(reversed(order[k : last + 1]))
        k = last + 1
    return out


def _cell_kind(text: str) -> str:
    """A table cell's :func:`_kind`: ``R`` when it holds a right-to-left
    letter, ``L`` when it holds another letter or a digit, ``N`` else."""
    if any(_kind(c) == "R" for c in text):
        return "R"
    return "L" if any(c.isalnum() for c in text) else "N"


def right_to_left_table(rows: Sequence[Sequence[str]]) -> bool:
    """Whether a table's cells (each row's texts) are mostly right-to-left
    text: more cells holding Arabic or Hebrew letters than cells holding
    letters of another script (numbers are neither)."""
    kinds = [_cell_kind(t) for row in rows for t in row]
    latin = sum(1 for row in rows for t in row if _cell_kind(t) == "L" and any(c.isalpha() for c in t))
    return kinds.count("R") > latin


def row_reading_order(cells: Sequence[str]) -> list[int]:
    """The indices of one row of a right-to-left table's cells (``cells``
    left to right on the page) in reading order: right to left, a run of
    cells of numbers and Latin text (``1403 | / | 09 | / | 19``, a date)
    left to right, as :func:`reading_order` reads a line's characters."""
    order = list(range(len(cells) - 1, -1, -1))
    return _left_to_right_runs(order, [_cell_kind(cells[k]) for k in order])


def _line_words(chars: Sequence[tuple], order: list[int], key: tuple[int, int]) -> list[tuple]:
    """``extractWORDS``-shaped words of one line read in ``order``: a
    glyph's own letters put back in order (:func:`glyph_order`), cut at
    spaces, each word's box the union of its characters'."""
    read = [order[p] for p in _glyph_permutation([chars[k][:3] for k in order])]
    words: list[tuple] = []
    run: list[int] = []
    for k in read + [None]:
        if k is not None and not chars[k][0].isspace():
            run.append(k)
            continue
        if run:
            boxes = [chars[j] for j in run]
            words.append((min(b[1] for b in boxes), min(b[3] for b in boxes), max(b[2] for b in boxes), max(b[4] for b in boxes),
                          "".join(b[0] for b in boxes), *key, len(words)))
            run = []
    return words


def dropped_before_ligature(chars: Sequence[tuple]) -> list[int]:
    """Where MuPDF left a letter out and put a space in its place: a space
    with a width, followed by a width-less letter (a ligature's later
    letter) standing at the space's left edge. A Chromium print of ``کالا``
    (goods) draws a final alef and then the lam-alef ligature, whose own
    alef stands, with no width, at the very place the final alef starts:
    MuPDF reads the two as one glyph drawn twice, keeps one, and fills the
    gap with a space — ``ک لا``, ``بالا`` (up) ``ب لا``."""
    return [
        i for i in range(len(chars) - 1)
        if chars[i][0] == " " and chars[i][2] - chars[i][1] > ZERO_WIDTH
        and _extra(chars[i + 1][:3]) and abs(chars[i + 1][1] - chars[i][1]) <= SAME_EDGE
    ]


def rtl_words(
    raw_dict: dict, raw_words: Sequence[tuple], drawn: Callable[[tuple], str | None] | None = None
) -> tuple[list[tuple], int]:
    """A right-to-left page's ``extractWORDS`` words (``extractRAWDICT`` of
    the same TextPage beside them), read right: a line MuPDF gave out of
    reading order (:func:`out_of_order`) is cut into words again from its
    characters' places (:func:`reading_order`); on the others each glyph
    that stands for several letters has them back in its order
    (:func:`glyph_order`). A letter MuPDF left out before a ligature
    (:func:`dropped_before_ligature`) is asked of ``drawn`` (the glyph the
    page draws in a box, from the page's glyph trace) and its line read
    again with it. Also returns how many letters of the lines
    holding right-to-left text MuPDF read but put in none of its words (a
    word of letters MuPDF gave no width has no box, and ``extractWORDS``
    drops it: a Chromium print of Arabic with its vowel marks loses
    ``يَكْتُبُ``'s ``ي`` and ``ت``), for the page's account. Only lines
    running left to right on the page are read."""
    lines: dict[tuple[int, int], list[tuple]] = {}
    for numbered, line in text_lines(raw_dict):
        if tuple(round(v) for v in line.get("dir", (1, 0))) != (1, 0):
            continue
        chars = [(c["c"], *c["bbox"]) for span in line["spans"] for c in span["chars"]]
        if has_rtl("".join(c[0] for c in chars)):
            lines[numbered] = [(c, x0, x1, y0, y1) for c, x0, y0, x1, y1 in chars]
    by_line: dict[tuple[int, int], list[int]] = {}
    for n, word in enumerate(raw_words):
        by_line.setdefault((word[5], word[6]), []).append(n)
    rebuilt: dict[tuple[int, int], list[tuple]] = {}
    texts: dict[int, str] = {}
    lost = 0
    for key, chars in lines.items():
        indices = by_line.get(key, [])
        restored = False
        for i in dropped_before_ligature(chars) if drawn is not None else ():
            _, x0, x1, y0, y1 = chars[i]
            glyph = drawn((x0, y0, x1, y1))
            if glyph:
                chars[i] = (glyph, *chars[i][1:])
                restored = True
        plain = [c[:3] for c in chars]
        if restored or out_of_order(plain):
            rebuilt[key] = _line_words(chars, reading_order(plain), key)
            continue
        text = "".join(c for c, _, _ in plain)
        lost += max(0, len("".join(text.split())) - sum(len(raw_words[n][4]) for n in indices))
        if any(x1 - x0 <= ZERO_WIDTH for _, x0, x1 in plain):
            reordered = reorder_words([raw_words[n][4] for n in indices], text, glyph_order(plain))
            if reordered is not None:
                texts.update((n, w) for n, w in zip(indices, reordered))
    out: list[tuple] = []
    for n, word in enumerate(raw_words):
        key = (word[5], word[6])
        if key in rebuilt:
            if by_line[key][0] == n:  # the line's words, read again, where its first word stood
                out.extend(rebuilt[key])
            continue
        out.append((*word[:4], texts.get(n, word[4]), *word[5:]))
    for key, words in rebuilt.items():
        if key not in by_line:  # a line of which extractWORDS kept no word
            out.extend(words)
    return out, lost


# the parse warning that names them, which the page account check repeats
LOST_LETTERS = "letter(s) of right-to-left text the PDF reader read but put in no word"


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
    for ``لها``), where a word runs over two of its lines (``الإ`` +
    ``حصائي``), or where the word's last letter was drawn first (``ی کالا``
    for ``کالای``). Pieces whose boxes touch, with an Arabic-script letter
    on each side of the seam, are one word: words have a space's width
    between them. A joined word keeps the place, block and line of its
    first piece. Lines in ``apart`` (``(block, line)``: those with script
    marks) are left as they are."""
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
