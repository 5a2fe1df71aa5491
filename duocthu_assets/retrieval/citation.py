"""What a query cites: a structural unit (``Điều 319``, ``khoản 2 điều 117``,
``Article 5``, ``ماده ۱۷``, ``nội dung án lệ``, a precedent's ``đoạn [3]``) and the documents it names
(``Bộ luật Dân sự``, ``BLDS``, ``Nghị định 21/2021/NĐ-CP``, ``nghi dinh
99/2022``), parsed from the query folded as the lexical field folds it, so a
citation typed without accents is the same citation.

:func:`parse_citation` reads the unit; :func:`named_documents` matches the
query against each document's names (:class:`DocumentNames`, from the
identity read at ingest). The look-up itself is :mod:`.structure`'s.

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from ..parse.identity import KIND_SHORT
from ..parse.profiles.legal import DOC_TYPES
from ..textnorm import fold

_DIGITS = str.maketrans({**{chr(0x06F0 + i): str(i) for i in range(10)}, **{chr(0x0660 + i): str(i) for i in range(10)}})

# unit words as folded (Điều -> dieu); the label is how the unit is named back
UNIT_WORDS = {"dieu": "Điều", "article": "Article", "art": "Article", "ماده": "ماده"}
_UNIT = re.compile(r"(?<!\w)(?P<word>dieu|article|art\.?|ماده)\s*(?P<no>\d{1,4})(?!\d|/)")
_CLAUSE = re.compile(r"(?<!\w)(?:khoan|clause|paragraph|بند)\s*(?P<no>\d{1,3})(?!\d)")
_PARAGRAPH = re.compile(r"(?<!\w)doan\s*(?:so\s*)?(?:\[(?P<bracketed>\d{1,3})\]|(?P<bare>\d{1,3})(?![\d/]))")
_PRECEDENT = re.compile(r"(?<!\w)an le(?!\w)")
_PRECEDENT_CONTENT = re.compile(r"(?<!\w)noi dung an le(?!\w)")
_WORD = re.compile(r"\w+")
_BARE_NUMBER = re.compile(r"^\d{1,4}/(?:19|20)\d\d$")  # a number a file name gives (:func:`.names.file_number`)
_NUMBER_YEAR = re.compile(r"(?<!\d)(\d{1,5})/((?:19|20)\d\d)(?!\d)")
# the kinds of document a number is cited with, folded ("nghi dinh", "nd", "an le"), and how they are written back
_KIND_DISPLAY = {fold(k.lower()): k[:1] + k[1:].lower() for k in DOC_TYPES if k != "LỆNH"}
_KIND_DISPLAY |= {fold(short.lower()): _KIND_DISPLAY[fold(kind)] for kind, short in KIND_SHORT.items() if fold(kind) in _KIND_DISPLAY}
_SHORT_KINDS = {"nghi dinh", "nghi quyet", "thong tu", "an le", "nd", "nq"}  # cited by a bare number ("nghị định 25"); "quyết định 30" is a phrase
_KIND_ALTERNATION = "|".join(sorted(map(re.escape, _KIND_DISPLAY), key=len, reverse=True))
# "nghi dinh so 19/2020", "nd 19/2020/nd-cp", "19/2020/nd-cp": a document cited by its number (a kind before
# it or a suffix after it; "12/2020" alone may be a month); "nghi dinh 25": by its number's first part
_CITED_NUMBER = re.compile(
    rf"(?<![\w/])(?:(?P<kind>{_KIND_ALTERNATION})\s+(?:so\s*:?\s*)?)?(?P<no>\d{{1,5}})(?:\s*/\s*(?P<year>(?:19|20)\d\d)"
    r"(?P<suffix>\s*/\s*[a-z]{1,6}(?:\s*-\s*[a-z]{1,6})*)?)?(?![\w/])"
)


@dataclass(frozen=True)
class Citation:
    """A structural unit a query names: ``key`` is what :mod:`.structure`
    indexes units by (``("article", 319)``, ``("precedent_content", 0)``),
    ``label`` how it is written back (``Điều 319``), ``clause`` the
    ``khoản`` asked for (0: none)."""

    key: tuple[str, int]
    label: str
    clause: int = 0


def query_fold(query: str) -> str:
    """The query folded as the lexical field is, digits in ASCII."""
    return " ".join(fold(query).translate(_DIGITS).split())


def parse_citation(query: str) -> Citation | None:
    """The unit ``query`` cites, or None. ``Điều``, ``Article`` and
    ``ماده`` are one kind of unit (an article); a number written as part of
    a document number (``99/2022``) is not an article."""
    folded = query_fold(query)
    found = _UNIT.search(folded)
    if found:
        word = found.group("word").rstrip(".")
        clause = _CLAUSE.search(folded)
        label = f"{UNIT_WORDS[word]} {int(found.group('no'))}"
        return Citation(("article", int(found.group("no"))), label, int(clause.group("no")) if clause else 0)
    if _PRECEDENT_CONTENT.search(folded):
        return Citation(("precedent_content", 0), "Nội dung án lệ")
    paragraph = _PARAGRAPH.search(folded)
    if paragraph and (paragraph.group("bracketed") or _PRECEDENT.search(folded)):  # "đoạn 3" alone is a stretch of road
        n = int(paragraph.group("bracketed") or paragraph.group("bare"))
        return Citation(("paragraph", n), f"Đoạn [{n}]")
    return None


@dataclass(frozen=True)
class DocumentNames:
    """What a document is called: its title and number as printed and the
    aliases derived from them (identity read at ingest); ``display`` is the
    name an answer gives it (``Bộ luật Dân sự 2015`` / ``Nghị định
    99/2022/NĐ-CP``)."""

    doc_id: str
    display: str
    names: tuple[str, ...]
    number: str = ""
    kind: str = ""  # "nghị định", "án lệ" …, as the identity gives it

    @classmethod
    def from_identity(cls, doc_id: str, identity: Mapping | None, fallback: str = "") -> "DocumentNames":
        identity = identity or {}
        title, number = identity.get("title") or "", identity.get("number") or ""
        kind = identity.get("kind") or ""
        aliases = tuple(a for a in identity.get("aliases") or () if a)
        display = _display(title, number, kind, aliases) or fallback
        names = [n for n in (title, number, *aliases) if n]
        if number:
            names.append(number.split("/")[0] + "/" + number.split("/")[1] if number.count("/") >= 2 else number)
        return cls(doc_id, display, tuple(dict.fromkeys(names)), number, kind)

    @cached_property
    def name_words(self) -> tuple[list[str], ...]:
        """Each name's folded words, made once (a query is matched against
        every document's names)."""
        return tuple(_words(n) for n in self.names)

    @cached_property
    def numbers(self) -> frozenset[str]:
        """The numbers its names hold, as ``<number>/<year>`` (``91/2015``)."""
        return frozenset(f"{int(m.group(1))}/{m.group(2)}" for n in self.names for m in _NUMBER_YEAR.finditer(query_fold(n)))

    @cached_property
    def short_names(self) -> tuple[str, ...]:
        """The kind and the number's first part (``nghi dinh 19``, ``nghi
        dinh so 19``, ``nd 19``), folded: how a document is cited in
        passing; only a short name no other document shares names it
        (:func:`named_documents`)."""
        numbers = [self.number] if self.number else [n for n in self.names if _BARE_NUMBER.match(n)]
        kind = _words(self.kind)
        if not numbers or not kind or not numbers[0].split("/")[0].isdigit():
            return ()
        n = str(int(numbers[0].split("/")[0]))
        kinds = [" ".join(kind)] + (["".join(w[0] for w in kind)] if len(kind) >= 2 else [])
        return tuple(f"{k} {so}{n}" for k in kinds for so in ("", "so "))


def _display(title: str, number: str, kind: str, aliases: tuple[str, ...]) -> str:
    """``Bộ luật Dân sự 2015`` for a law cited by its name and year, else
    ``<kind> <number>`` (``Nghị định 99/2022/NĐ-CP``), else the title."""
    year_alias = next((a for a in aliases if title and a.startswith(title) and re.search(r"\b(?:19|20)\d\d$", a)), "")
    if year_alias:
        return year_alias
    if number and kind:
        return f"{kind[:1].upper()}{kind[1:]} {number}"
    return title or number


def _words(text: str) -> list[str]:
    return _WORD.findall(query_fold(text))


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return bool(n) and any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def named_documents(query: str, documents: Iterable[DocumentNames]) -> list[str]:
    """The doc_ids whose title, number or an alias the query names (as
    words, accents optional; a number also without its suffix: ``99/2022``).
    A name shared by several documents (``Nghị định``) names none of them
    unless it is their only name the query holds: the longest matching name
    wins. A short name (``nghị định 19``, ``nd 19``: :meth:`DocumentNames.short_names`)
    names a document when no other has it and the number goes on no
    further (``nghị định 19/2020`` is another decree)."""
    documents = list(documents)
    words = _words(query)
    best: dict[str, int] = {}
    for doc in documents:
        lengths = [len(w) for w in doc.name_words if len(w) >= 1 and _contains(words, w) and _specific(w)]
        if lengths:
            best[doc.doc_id] = max(lengths)
    cited = _short_candidates(query_fold(query))
    if cited:
        holders: dict[str, list[str]] = {}
        for doc in documents:
            for short in cited.intersection(doc.short_names):
                holders.setdefault(short, []).append(doc.doc_id)
        for found in holders.values():
            if len(found) == 1:
                best.setdefault(found[0], 0)
    return sorted(best)


_SHORT = re.compile(r"(?<![\w/])((?:\w+ ){1,3})(\d{1,4})(?![\w/])")


def _short_candidates(folded: str) -> set[str]:
    """Every ``<one to three words> <number>`` the folded query holds whose
    number goes on no further (``nghi dinh so 19``, ``nd 19``): what a short
    name is looked up by."""
    out = set()
    for found in _SHORT.finditer(folded):
        words = found.group(1).split()
        out.update(" ".join([*words[i:], found.group(2)]) for i in range(len(words)))
    return out


def _specific(name_words: list[str]) -> bool:
    """A name that says which document: it holds a number, or an
    abbreviation, or three words or more (``Bộ luật Dân sự``)."""
    return any(w.isdigit() for w in name_words) or len(name_words) >= 3 or (len(name_words) == 1 and len(name_words[0]) >= 3)


@dataclass(frozen=True)
class CitedDocument:
    """A document a query cites by its number: ``number`` is ``19/2020``
    (``19`` when cited without its year), ``display`` how an answer names
    it (``Nghị định 19/2020``)."""

    number: str
    display: str
    kind: str = ""  # folded ("thong tu"), "" when cited by a number alone

    def may_be(self, doc: DocumentNames) -> bool:
        """Whether ``doc``, which prints no number the index knows, may be
        this document: its kind is unknown or the one cited."""
        return not doc.numbers and (not doc.kind or not self.kind or query_fold(doc.kind) == self.kind)


def cited_documents(query: str) -> list[CitedDocument]:
    """The documents ``query`` cites by number: a kind and a number
    (``nghị định số 19/2020``, ``NĐ 19/2020/NĐ-CP``; ``nghị định 25``,
    ``án lệ 43`` of the kinds cited so), or a number with its suffix
    (``19/2020/NĐ-CP``). A bare ``12/2020`` (a month, perhaps), ``luật
    2015`` and ``quyết định 30`` cite none."""
    out = []
    for found in _CITED_NUMBER.finditer(query_fold(query)):
        kind, no, year = found.group("kind"), str(int(found.group("no"))), found.group("year")
        if year and (kind or found.group("suffix")):
            display = f"{_KIND_DISPLAY[kind]} {no}/{year}" if kind else f"the document numbered {no}/{year}"
            out.append(CitedDocument(f"{no}/{year}", display, query_fold(_KIND_DISPLAY[kind]) if kind else ""))
        elif kind in _SHORT_KINDS and not year:
            out.append(CitedDocument(no, f"{_KIND_DISPLAY[kind]} {no}", query_fold(_KIND_DISPLAY[kind])))
    return out


def unindexed_documents(query: str, documents: Iterable[DocumentNames]) -> list[CitedDocument]:
    """The documents ``query`` cites by number (:func:`cited_documents`)
    that no indexed document is: no document's names hold that number
    (cited without its year: no number of the index starts with it)."""
    cited = cited_documents(query)
    if not cited:  # most queries: the documents' numbers are not even gathered
        return []
    held = {n for doc in documents for n in doc.numbers}
    firsts = {n.split("/")[0] for n in held}
    return [c for c in cited if c.number not in (held if "/" in c.number else firsts)]
