"""The formulary's vocabulary: its standard section headings and what a
monograph title looks like (DESIGN.md, "Profiles").

Entries are drug monographs, opened by an upper-case title line
("AMPICILIN VÀ SULBACTAM"); sections are the standard headings below, keyed
by their ASCII slug (``Liều lượng và cách dùng`` → ``lieu_luong_va_cach_dung``).
The first three sections are printed as a bold label opening a line
("Mã ATC: J01CR01."), the others as a line of their own.
"""

from __future__ import annotations

import re
import unicodedata

from ...textnorm import ascii_slug

STANDARD_SECTIONS: tuple[str, ...] = (
    "Tên chung quốc tế",
    "Mã ATC",
    "Loại thuốc",
    "Dạng thuốc và hàm lượng",
    "Dược lý và cơ chế tác dụng",
    "Dược động học",
    "Chỉ định",
    "Chống chỉ định",
    "Thận trọng",
    "Thời kỳ mang thai",
    "Thời kỳ cho con bú",
    "Tác dụng không mong muốn (ADR)",
    "Liều lượng và cách dùng",
    "Tương tác thuốc",
    "Độ ổn định và bảo quản",
    "Quá liều và xử trí",
)

SECTION_KEYS: dict[str, str] = {title: ascii_slug(title) for title in STANDARD_SECTIONS}

# printed as a label opening the line ("Mã ATC: J01CR01."), never on a line of their own
INLINE_SECTIONS: frozenset[str] = frozenset({"Tên chung quốc tế", "Mã ATC", "Loại thuốc"})

_NUMBERING = re.compile(r"^\s*(\d{1,2}(\.\d{1,2})*\.?|[ivx]{1,4}\.)\s+", re.IGNORECASE)
_TRAILING = re.compile(r"[\s:.\-–—]+$")
_SPACES = re.compile(r"\s+")


def _fold(text: str) -> str:
    """Casefolded NFC text with numbering, trailing punctuation and extra
    spaces removed: how headings are compared."""
    text = unicodedata.normalize("NFC", text)
    text = _NUMBERING.sub("", text)
    text = _TRAILING.sub("", text)
    return _SPACES.sub(" ", text).strip().casefold()


_BY_FOLD: dict[str, str] = {_fold(t): t for t in STANDARD_SECTIONS}
# "Tác dụng không mong muốn" without "(ADR)" is the same section
_BY_FOLD[_fold("Tác dụng không mong muốn")] = "Tác dụng không mong muốn (ADR)"


def _bare(text: str) -> str:
    """Folded text without its marks (``đ`` as ``d``) and with letters and
    digits only: a heading as OCR may spell it (``Chi đinh``, ``Liéu lương``)."""
    text = unicodedata.normalize("NFD", _fold(text).replace("đ", "d"))
    words = ("".join(c for c in word if c.isalnum() and not unicodedata.combining(c)) for word in text.split())
    return " ".join(w for w in words if w)


_BY_BARE: dict[str, str] = {_bare(t): t for t in _BY_FOLD.values()} | {_bare(f): t for f, t in _BY_FOLD.items()}


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (headings are short)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _tolerant(text: str) -> str | None:
    """The standard section a heading read by OCR names, its marks lost or a
    letter or two misread: the one standard heading within one edit per
    eight letters of it (at least one) once marks are set aside; None when
    none is, or two are (a section is never guessed)."""
    bare = _bare(text)
    if len(bare) < 4:
        return None
    near = {t for key, t in _BY_BARE.items() if _distance(bare, key) <= max(1, len(key) // 8)}
    return near.pop() if len(near) == 1 else None


def match_section_heading(text: str, tolerant: bool = False) -> str | None:
    """The standard section a heading line names (its canonical title), or
    None; ``tolerant`` for a line read by OCR (:func:`_tolerant`)."""
    found = _BY_FOLD.get(_fold(text))
    return found if found is not None or not tolerant else _tolerant(text)


def split_inline_section(text: str, tolerant: bool = False) -> tuple[str, str] | None:
    """``"Mã ATC: J01CR01."`` → ``("Mã ATC", "J01CR01.")``: a standard section
    label opening a line and followed by a colon; None otherwise."""
    head, sep, rest = unicodedata.normalize("NFC", text).partition(":")
    if not sep or not rest.strip():
        return None
    title = match_section_heading(head, tolerant)
    if title is None:
        return None
    return title, rest.strip()


def is_monograph_title(text: str, tolerant: bool = False) -> bool:
    """An upper-case title line: letters all capitals (Vietnamese included),
    at least three of them, at most twelve words, not a section heading and
    not a label ("CHÚ Ý:") or a sentence ending in a full stop. ``tolerant``
    (a line read by OCR): one small letter in eight may be a capital misread
    (``AMPICILlN``)."""
    text = unicodedata.normalize("NFC", text).strip()
    if text.endswith((":", ".", ";", ",")):
        return False
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 3 or len(text.split()) > 12:
        return False
    small = sum(1 for c in letters if c.islower())
    if small > (len(letters) // 8 if tolerant else 0):
        return False
    return match_section_heading(text, tolerant) is None
