"""The Vietnamese national formulary's monograph sections, and the everyday words that ask for each.

A monograph of the *Dược thư quốc gia Việt Nam* has a fixed run of section
titles (``Chỉ định``, ``Chống chỉ định``, ``Thời kỳ mang thai`` …). A
clinician seldom types the title: ``phụ nữ có thai dùng … được không`` asks
for ``Thời kỳ mang thai``, ``tác dụng phụ`` for ``Tác dụng không mong muốn``,
``liều … cho người suy thận`` for ``Liều lượng và cách dùng``. :data:`SCHEMA`
is that table, one row per section: the title as printed, the words its
printed titles open with (``key``, folded), and the phrases that ask for it.
A *strong* phrase names the section in other words; a *weak* one only hints
at it (``liều``, ``suy thận``: a dose question most often, not always).

:func:`cued_sections` reads the phrases in a query, accents optional: a
phrase matches the query's folded words (``đ`` typed ``d``), and a word the
query does type with accents must carry the phrase's own (``liệu`` is not
``liều``; ``thải`` is not ``thai``). Overlapping phrases: the longest wins
(``quá liều`` over ``liều``, ``chống chỉ định`` over ``chỉ định``).

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .citation import query_fold

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Section:
    title: str  # as the formulary prints it
    key: str  # the folded words its printed titles open with
    strong: tuple[str, ...] = ()  # phrases that name it in other words
    weak: tuple[str, ...] = ()  # phrases that hint at it


SCHEMA: tuple[Section, ...] = (
    Section("Tên chung quốc tế", "ten chung quoc te", ("tên chung quốc tế", "tên quốc tế")),
    Section("Mã ATC", "ma atc", ("mã atc", "atc")),
    Section("Loại thuốc", "loai thuoc", ("loại thuốc", "nhóm thuốc", "thuốc nhóm")),
    Section("Dạng thuốc và hàm lượng", "dang thuoc", ("dạng thuốc", "hàm lượng", "dạng bào chế")),
    Section("Dược lý và cơ chế tác dụng", "duoc ly", ("dược lý", "cơ chế tác dụng", "cơ chế")),
    Section("Dược động học", "duoc dong hoc", ("dược động học", "nửa đời", "thải trừ", "hấp thu")),
    Section("Chỉ định", "chi dinh", ("chỉ định",)),
    Section("Chống chỉ định", "chong chi dinh", ("chống chỉ định", "cấm dùng")),
    Section("Thận trọng", "than trong", ("thận trọng",)),
    Section("Thời kỳ mang thai", "thoi ky mang thai",
            ("mang thai", "có thai", "thai kỳ", "thai phụ", "mang bầu", "có bầu", "bà bầu", "phụ nữ có thai")),
    Section("Thời kỳ cho con bú", "thoi ky cho con bu", ("cho con bú", "cho bú", "bú mẹ", "sữa mẹ", "nuôi con bằng sữa mẹ")),
    Section("Tác dụng không mong muốn (ADR)", "tac dung khong mong muon",
            ("tác dụng không mong muốn", "tác dụng phụ", "tác dụng ngoại ý", "adr", "phản ứng có hại")),
    Section("Liều lượng và cách dùng", "lieu luong", ("liều lượng", "liều dùng", "cách dùng", "chỉnh liều"),
            ("liều", "suy thận", "suy gan")),
    Section("Tương tác thuốc", "tuong tac", ("tương tác", "dùng cùng", "dùng chung")),
    Section("Độ ổn định và bảo quản", "do on dinh", ("độ ổn định", "bảo quản")),
    Section("Tương kỵ", "tuong ky", ("tương kỵ",)),
    Section("Quá liều và xử trí", "qua lieu", ("quá liều", "ngộ độc")),
)


@dataclass(frozen=True)
class Cue:
    """A phrase of ``section`` found in a query (``strong``: it names the section)."""

    section: Section
    phrase: str
    strong: bool


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFC", text).casefold())


_PHRASES = sorted(
    ((tuple(_words(p)), tuple(query_fold(w) for w in _words(p)), s, strong) for s in SCHEMA for strong, ps in ((True, s.strong), (False, s.weak)) for p in ps),
    key=lambda x: -len(x[0]),
)


def cued_sections(query: str) -> list[Cue]:
    """The sections ``query`` asks for by the schema's phrases, in the order
    the query says them (longest phrase first where two overlap)."""
    typed = _words(query)
    folded = [query_fold(w) for w in typed]
    taken = [False] * len(typed)
    found: list[tuple[int, Cue]] = []
    for exact, plain, section, strong in _PHRASES:
        n = len(plain)
        for i in range(len(typed) - n + 1):
            if tuple(folded[i : i + n]) != plain or any(taken[i : i + n]):
                continue
            if any(not t.isascii() and t != e for t, e in zip(typed[i : i + n], exact)):  # typed with other accents: another word
                continue
            taken[i : i + n] = [True] * n
            found.append((i, Cue(section, " ".join(exact), strong)))
    return [cue for _, cue in sorted(found, key=lambda x: x[0])]


def is_section(section: Section, title: str) -> bool:
    """Whether a printed section ``title`` is ``section`` (its folded words open with the key)."""
    words, key = _WORD.findall(query_fold(title)), section.key.split()
    return words[: len(key)] == key


def titles_of(section: Section, titles: Iterable[str]) -> list[str]:
    """The printed ``titles`` that are ``section``."""
    return [t for t in titles if is_section(section, t)]
