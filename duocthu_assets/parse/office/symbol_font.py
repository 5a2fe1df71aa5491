"""The Symbol font's characters as Unicode.

Word's Insert > Symbol writes a character of the Symbol font as
``<w:sym w:font="Symbol" w:char="F0A3"/>``: the font's own code (0xA3) in
the private-use area, which reads as nothing (``Clcr  30``) where the page
shows ``Clcr ≤ 30``; text typed in a run set in the Symbol font is stored
as the font's codes (``£ 30``, ``a``) and shown as its glyphs (``≤ 30``,
``α``). The Symbol font (Adobe's, and Windows' symbol.ttf,
which keeps its codes) encodes its characters by glyph name; the names come
from Adobe's font metrics for it (``Symbol.afm``, shipped with matplotlib,
a dependency), and the Unicode of a name from the Adobe Glyph List
(``fontTools.agl``, matplotlib's dependency too). A code with no such name,
or whose name Unicode gives only a private-use code point (the pieces of a
large bracket), has no character: the caller keeps it as it was.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

SYMBOL_FONTS = frozenset({"symbol"})  # the font names (case-folded) this table is for
_METRIC = re.compile(r"^C (\d+) ; WX \S+ ; N (\S+) ;", re.M)
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    import matplotlib
    from fontTools import agl

    afm = Path(matplotlib.get_data_path()) / "fonts" / "pdfcorefonts" / "Symbol.afm"
    out: dict[int, str] = {}
    for code, name in _METRIC.findall(afm.read_text(encoding="latin-1")):
        char = agl.toUnicode(name)
        if len(char) == 1 and not _PRIVATE_USE.match(char):
            out[int(code)] = char
    return out


def _symbol(code: int) -> str | None:
    """The character of a Symbol-font code (or of it in the private-use
    area at U+F000), or None."""
    if 0xF000 <= code <= 0xF0FF:
        code -= 0xF000
    return _table().get(code) if code <= 0xFF else None


def symbol_text(text: str) -> str:
    """Text typed in the Symbol font (a run whose font is Symbol: ``a`` is
    shown ``α``, ``£`` is shown ``≤``, or their private-use codes) as the
    characters shown; what has no character is kept."""
    return "".join(c if c.isspace() else _symbol(ord(c)) or c for c in text)


def symbol_char(font: str, code: int) -> str | None:
    """The Unicode character of ``code`` (a ``w:sym`` character: the font's
    code, or it in the private-use area at U+F000) in ``font``, when the
    font is the Symbol font and the code names a character; else None."""
    return _symbol(code) if font.strip().casefold() in SYMBOL_FONTS else None
