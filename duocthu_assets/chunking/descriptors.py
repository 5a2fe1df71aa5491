"""The text of a block_descriptor chunk, from verified metadata only (ADR 0006 §2).

``AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204.``

Four facts and nothing else: the entry title, the section's display title,
the block kind as a word, and the page. In a generic document whose headings
nest deeper than two levels, the headings between the entry and the section
come too, outermost first (``Annual report — Chapter 4 — Table A4-12 —
table, printed page 42.``): the heading trail the block sits under, so a
table is findable by what it is about. Headings are verified metadata (the
parser's own headings); a heading holding an unmapped glyph (U+FFFD) is
left out, it says nothing. The page is the *printed* page when
the page prints one; otherwise the physical page of the file, said as such
(``trang 17 của tệp`` / ``page 17 of the file``), never an invented printed
page. No cell value, header or block text can reach this text, because none is
an input. :func:`page_reference` reads the page back out of a descriptor text,
so the check that the named page is the attachment's page uses the same
grammar as the builder.
"""

from __future__ import annotations

import re
from typing import Literal

PART_JOIN = " — "

KIND_WORDS: dict[str, dict[str, str]] = {
    "vi": {"table": "bảng", "formula": "công thức", "picture": "hình"},
    "en": {"table": "table", "formula": "formula", "picture": "picture"},
}
PRINTED_PAGE: dict[str, str] = {"vi": "trang in {n}", "en": "printed page {n}"}
FILE_PAGE: dict[str, str] = {"vi": "trang {n} của tệp", "en": "page {n} of the file"}

_PAGE_PATTERNS: list[tuple[Literal["printed", "physical"], re.Pattern[str]]] = [
    ("printed", re.compile(r"(?:trang in|printed page) (\S+)\.$")),
    ("physical", re.compile(r"(?:trang (\d+) của tệp|page (\d+) of the file)\.$")),
]


def descriptor_language(language: str) -> str:
    """Vietnamese for ``vi``; English for everything else (Persian documents
    never have lifted blocks: blocks come from PDFs)."""
    return "vi" if language == "vi" else "en"


def describe_block(
    entry_title: str,
    section_title: str,
    kind: str,
    printed_page: int | None,
    physical_page: int,
    language: str,
    headings: tuple[str, ...] | list[str] = (),
    printed_label: str = "",
) -> str:
    """The descriptor text for a block with this metadata; ``headings`` is
    the trail of headings the block sits under, outermost first; a page
    labelled without a number (``xii``, ``A-42``) is named by its printed
    label."""
    lang = descriptor_language(language)
    word = KIND_WORDS[lang].get(str(kind))
    if word is None:
        raise ValueError(f"unknown block kind {kind!r} (known: {', '.join(KIND_WORDS[lang])})")
    if printed_page is not None:
        page = PRINTED_PAGE[lang].format(n=printed_page)
    elif printed_label:
        page = PRINTED_PAGE[lang].format(n=printed_label)
    else:
        page = FILE_PAGE[lang].format(n=physical_page)
    titles: list[str] = []
    for title in heading_trail(entry_title, section_title, headings):
        if title not in titles:
            titles.append(title)
    tail = f"{word}, {page}."
    if not titles:
        return tail[0].upper() + tail[1:]
    return PART_JOIN.join([*titles, tail])


def heading_trail(entry_title: str, section_title: str, headings: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The titles a descriptor names: the entry, the headings between it and
    the section (from the trail), the section; blank and glyph-less ones
    dropped."""
    trail = [h.strip() for h in headings or ()]
    entry, section = entry_title.strip(), section_title.strip()
    middle = trail
    if entry in trail:
        middle = trail[trail.index(entry) + 1 :]
    if section in middle:
        middle = middle[: middle.index(section)]
    return [t for t in (entry, *middle, section) if t and "\ufffd" not in t]


def allowed_descriptor_texts(
    entry_title: str,
    section_title: str,
    kind: str,
    printed_page: int | None,
    physical_page: int,
    headings: tuple[str, ...] | list[str] = (),
    printed_label: str = "",
) -> set[str]:
    """Every text :func:`describe_block` can produce for this metadata."""
    return {
        describe_block(entry_title, section_title, kind, printed_page, physical_page, lang, headings, printed_label)
        for lang in KIND_WORDS
    }


def page_reference(text: str) -> tuple[Literal["printed", "physical"], int | str] | None:
    """The page a descriptor text names: ``("printed", 204)``, ``("printed",
    "xii")`` (a printed label that is not a number) or ``("physical", 17)``;
    ``None`` when it names none."""
    for which, pattern in _PAGE_PATTERNS:
        found = pattern.search(text)
        if found:
            number = next(g for g in found.groups() if g is not None)
            return which, int(number) if number.isdigit() else number
    return None
