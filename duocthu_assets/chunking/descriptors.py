"""The text of a block_descriptor chunk, from verified metadata only (ADR 0006 §2).

``AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204.``

Four facts and nothing else: the entry title, the section's display title,
the block kind as a word, and the page. The page is the *printed* page when
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
    "vi": {"table": "bảng", "formula": "công thức"},
    "en": {"table": "table", "formula": "formula"},
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
    printed_label: str = "",
) -> str:
    """The descriptor text for a block with this metadata; a page labelled
    without a number (``xii``, ``A-42``) is named by its printed label."""
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
    for title in (entry_title.strip(), section_title.strip()):
        if title and title not in titles:
            titles.append(title)
    tail = f"{word}, {page}."
    if not titles:
        return tail[0].upper() + tail[1:]
    return PART_JOIN.join([*titles, tail])


def allowed_descriptor_texts(
    entry_title: str, section_title: str, kind: str, printed_page: int | None, physical_page: int, printed_label: str = ""
) -> set[str]:
    """Every text :func:`describe_block` can produce for this metadata."""
    return {
        describe_block(entry_title, section_title, kind, printed_page, physical_page, lang, printed_label) for lang in KIND_WORDS
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
