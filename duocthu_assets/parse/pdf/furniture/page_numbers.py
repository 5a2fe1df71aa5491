"""Printed page numbers: what a page prints as its number, and which of
those numbers are the pages' own.

The printed page is the number in the furniture (front matter makes it differ
from the physical page); roman numerals are kept as a label only (``None`` as
an int). A page that prints no number gets one only between two pages whose
numbers agree on the same offset from the physical page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import PageContent

_DASHES = "-–—－‐−"  # ASCII, en and em dashes, fullwidth hyphen-minus ("－15 －"), hyphen, minus
_ORNAMENTS = _DASHES + "\ufffd"  # ... around a page number, or a glyph of its font with no Unicode mapping ("�15 �")
_STANDALONE_PATTERNS = [
    re.compile(rf"^[{_ORNAMENTS}(\[]?\s*(?P<n>\d{{1,6}})\s*[{_ORNAMENTS})\]]?$"),  # 47698: accepted only in a sequence
    re.compile(r"^(?:page|trang|tr\.|p\.|pg\.?)\s*(?P<n>\d{1,4})(?:\s*(?:/|of|trên|sur)\s*\d{1,4})?$", re.IGNORECASE),
    re.compile(r"^(?P<n>\d{1,4})\s*(?:/|of|trên)\s*\d{1,4}$", re.IGNORECASE),
]
_PREFIXED = re.compile(rf"^(?P<p>[A-Z]{{1,2}}[{_DASHES}.])\s?(?P<n>\d{{1,4}})$")  # "A-42": an appendix's pages
_ROMAN = re.compile(rf"^[{_ORNAMENTS}(\[]?\s*(?P<r>[ivxlc]{{1,7}})\s*[{_ORNAMENTS})\]]?$", re.IGNORECASE)  # front matter: no d, m
_ROMAN_VALID = re.compile(r"^(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$|^c{1,3}(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_EMBEDDED = re.compile(r"^(?P<a>\d{1,4})\s+\S.*|.*\S\s+(?P<b>\d{1,4})$")


@dataclass(frozen=True)
class PageNumber:
    value: int | None  # arabic value; None for a roman numeral
    label: str  # as printed ("12", "xx")
    standalone: bool  # the number stands alone on its fragment


def parse_page_number(text: str) -> PageNumber | None:
    """``"12"``, ``"- 12 -"``, ``"Trang 12"``, ``"12/40"`` → 12; ``"(xx)"`` →
    roman ``xx``; anything else → None."""
    text = text.strip()
    for pattern in _STANDALONE_PATTERNS:
        m = pattern.match(text)
        if m:
            return PageNumber(int(m.group("n")), m.group("n"), True)
    m = _ROMAN.match(text)
    if m and _ROMAN_VALID.match(m.group("r").lower()):
        return PageNumber(None, m.group("r"), True)
    m = _PREFIXED.match(text)
    if m:
        return PageNumber(None, f"{m.group('p')}{m.group('n')}", True)
    return None


def embedded_page_number(text: str) -> PageNumber | None:
    m = _EMBEDDED.match(text.strip())
    if not m:
        return None
    n = m.group("a") or m.group("b")
    return PageNumber(int(n), n, False)


_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_YEARS = range(1900, 2101)
MAX_LONE_PAGE_DIGITS = 4  # a one-page document's lone number is a page number up to this many digits


def roman_value(text: str) -> int:
    total, prev = 0, 0
    for c in reversed(text.lower()):
        v = _ROMAN_VALUES[c]
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def roman_text(n: int, upper: bool = False) -> str:
    out = ""
    for v, r in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out, n = out + r, n - v
    return out.upper() if upper else out


def series_of(n: PageNumber) -> tuple[str, int]:
    """The numbering a page number belongs to and its place in it: arabic
    (``""``), roman (``"roman"``/``"ROMAN"``) or a prefix (``"A-"``)."""
    if n.value is not None:
        return "", n.value
    m = _PREFIXED.match(n.label)
    if m:
        return m.group("p"), int(m.group("n"))
    return ("ROMAN" if n.label.isupper() else "roman"), roman_value(n.label)


def label_in(series: str, number: int) -> str:
    if series == "":
        return str(number)
    if series in ("roman", "ROMAN"):
        return roman_text(number, series == "ROMAN") if number > 0 else ""
    return f"{series}{number}"


def resolve_page_numbers(
    pages: list[PageContent], candidates: list[list[tuple[PageNumber, frozenset[int]]]], own_labels: list[str] | None = None
) -> list[tuple[int | None, str, frozenset[int]]]:
    """Each page's (printed page, printed label, fragments that print it).

    The PDF's own ``/PageLabels`` win when present. Otherwise a number found
    in the furniture is accepted only when it forms a consistent sequence with
    the physical pages: another page carries a number of the same series at
    the same offset from its physical page, or the number is the physical
    page itself; a one-page document's lone number is accepted when it is
    not a year. A year, a document number or a date printed on every page
    changes its offset from page to page and is never a page number. Pages
    between two that agree on the offset get it too."""
    n = len(pages)
    if own_labels and any(own_labels):
        out = []
        for page, label, found in zip(pages, own_labels, candidates):
            where = frozenset(i for num, idx in found if num.label == label or label.endswith(num.label) for i in idx)
            out.append((int(label) if label.isdigit() else None, label, where))
        return out
    runs: dict[tuple[str, int], set[int]] = {}
    for k, found in enumerate(candidates):
        for num, _ in found:
            series, number = series_of(num)
            runs.setdefault((series, number - pages[k].page_no), set()).add(k)
    accepted: dict[int, tuple[str, int, PageNumber, frozenset[int]]] = {}
    for k, found in enumerate(candidates):
        best = None
        for num, idx in found:
            series, number = series_of(num)
            offset = number - pages[k].page_no
            support = len(runs[(series, offset)])
            lone = n == 1 and num.standalone and (series != "" or (len(num.label) <= MAX_LONE_PAGE_DIGITS and number not in _YEARS))
            if support >= 2 or (offset == 0 and num.standalone) or lone:
                rank = (num.standalone, support, series == "")
                if best is None or rank > best[0]:
                    best = (rank, (series, offset, num, idx))
        if best is not None:
            accepted[k] = best[1]
    out: list[tuple[int | None, str, frozenset[int]]] = []
    for k in range(n):
        if k in accepted:
            series, offset, num, idx = accepted[k]
            out.append((num.value if series == "" else None, num.label, idx))
            continue
        before = max((j for j in accepted if j < k), default=None)
        after = min((j for j in accepted if j > k), default=None)
        if before is not None and after is not None and accepted[before][:2] == accepted[after][:2]:
            series, offset = accepted[before][:2]
            number = pages[k].page_no + offset
            out.append((number if series == "" else None, label_in(series, number), frozenset()))
        else:
            out.append((None, "", frozenset()))
    return out
