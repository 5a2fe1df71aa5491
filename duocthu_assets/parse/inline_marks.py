"""How text set apart inline is written, for every reader (the DOCX walker,
the sheet reader; the PDF reader writes scripts the same way).

- **Crossed out** (Word's Strikethrough, a cell font's strikethrough): kept
  and written ``~~like this~~``, GitHub Markdown's strikethrough, as docling
  and pymupdf4llm write it: a dose struck out with the new one after it
  reads as one deletion and one dose (``~~0,5 g~~ 0,375 g``), never as two
  doses.
- **Superscript and subscript**: written after their mark, ``x^2``,
  ``H_2O``, a run of several characters in braces (``10^{-3}``), never
  glued to their base (``10-3`` reads as a range, ``đăng ký3`` as a number).

A reader marks where such text opens and closes with control characters no
document text holds (:data:`STRUCK_OPEN` … :data:`STRUCK_CLOSE`,
:data:`SUPER_OPEN` … :data:`SUPER_CLOSE`, :data:`SUB_OPEN` … :data:`SUB_CLOSE`) as it goes,
and :func:`written` writes the marks: adjacent runs joined (Word splits a
word into runs freely), spaces moved outside, empty ones dropped, and a
script of no letter or digit (the superscript parentheses around a note's
``[4]``) left as it is."""

from __future__ import annotations

import re

STRUCK = "~~"
STRUCK_OPEN, STRUCK_CLOSE = "\x02", "\x03"
SUPER_OPEN, SUPER_CLOSE = "\x04", "\x05"
SUB_OPEN, SUB_CLOSE = "\x06", "\x07"
SCRIPTS = {"^": (SUPER_OPEN, SUPER_CLOSE), "_": (SUB_OPEN, SUB_CLOSE)}


def _joined(text: str, open_: str, close: str, across_spaces: bool) -> str:
    """Pairs of ``open_`` / ``close`` with empty ones dropped, adjacent ones
    joined (and ones only spaces apart, ``across_spaces``: a crossed-out
    passage Word split into runs at a space) and spaces moved outside."""
    gap = "\\s*" if across_spaces else ""
    empty, adjacent = re.compile(f"{open_}\\s*{close}"), re.compile(f"{close}({gap}){open_}")
    while True:  # an empty pair removed can make two pairs adjacent
        again = adjacent.sub("\\1", empty.sub(lambda m: m.group(0)[1:-1], text))
        if again == text:
            break
        text = again
    text = re.sub(f"{open_}(\\s+)", f"\\1{open_}", text)
    return re.sub(f"(\\s+){close}", f"{close}\\1", text)


def scripted(mark: str, core: str) -> str:
    """``core`` written after its script mark: ``^2``, ``_{ij}``."""
    return mark + (core if len(core) == 1 else "{" + core + "}")


def written(text: str) -> str:
    """``text`` with its marks written: ``"Liều \\x020,5 g\\x03 0,375 g"``
    → ``"Liều ~~0,5 g~~ 0,375 g"``; ``"10\\x04-\\x05\\x043\\x05"`` →
    ``"10^{-3}"``."""
    if STRUCK_OPEN in text:
        text = _joined(text, STRUCK_OPEN, STRUCK_CLOSE, True).replace(STRUCK_OPEN, STRUCK).replace(STRUCK_CLOSE, STRUCK)
    for mark, (open_, close) in SCRIPTS.items():
        if open_ in text:
            text = _joined(text, open_, close, False)
            text = re.sub(f"{open_}([^{close}]*){close}", lambda m, mark=mark: _script(mark, m.group(1)), text)
    return text


def _script(mark: str, core: str) -> str:
    return scripted(mark, core) if any(c.isalnum() for c in core) else core


def struck(text: str) -> str:
    """``text`` marked as crossed out, for :func:`written` to write
    (``~~text~~``)."""
    return f"{STRUCK_OPEN}{text}{STRUCK_CLOSE}"


_NOTE_MARK = re.compile(r"^\s*\^(?:\d{1,3}|\{\d{1,3}\})(?=\s|[^\W\d_])")


def opens_with_note_mark(text: str) -> bool:
    """A paragraph opened by a note's number set as a superscript
    (``^8 Ghi rõ căn cứ hủy đăng ký…``, ``^{10} Kê khai…``): a footnote typed
    by hand (Decree 99's forms set theirs in a style Word counts as a
    heading). A footnote is never a heading, in any profile."""
    return _NOTE_MARK.match(text) is not None
