"""The index's structure, and citations looked up in it.

:class:`Structure` is made once per loaded index from its rows' heading
trails: which positions hold each document's ``Điều N`` / ``Article N`` /
``ماده N`` (the deepest such heading of a chunk's trail), and each
monograph's (entry's) sections. :func:`resolve` answers a query that cites a
unit (:func:`.citation.parse_citation`) or names a monograph and a section
(``liều dùng amoxicilin suy thận``):

- ``found``: the unit's positions, in the documents the query names when it
  names any, best first by the base ranking (a ``khoản`` asked for first);
- ``missing``: the query cites a unit that no (named) document has, or a
  unit of a document the index does not hold (``điều 3 nghị định
  19/2020``: no other decree's Điều 3 stands in for it); the answer says
  so and shows nothing in its place;
- ``entry``: a monograph is named but no section: its chunks first;
- ``""``: nothing is cited; the base ranking stands, narrowed to the
  documents the query names when it names some.

Nothing here imports Dagster.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from .citation import Citation, CitedDocument, DocumentNames, named_documents, parse_citation, query_fold, unindexed_documents
from .sections import cued_sections, titles_of

_PARAGRAPH_MARK = re.compile(r"(?m)^[ \t“\"]*\[(\d{1,3})\](?=\s)")  # "[3] Vì vậy, …" opening a line
_ARTICLE = re.compile(r"^(?:dieu|article|ماده)\s*(\d{1,4})(?!\d)")
# An amending article: "Điều 13. Sửa đổi, bổ sung một số điều của Nghị định số 103/2024/NĐ-CP" (folded).
_AMENDING = re.compile(r"^(?:dieu|article)\s*\d{1,4}\w?\s*[.:]?\s*sua doi\s*,?\s*bo sung")
_WORD = re.compile(r"\w+")
# words a section title shares with any question: they say nothing about which section
_SECTION_STOP = {"va", "cua", "cho", "the", "and", "of", "for", "khi", "trong", "voi", "cac", "nhung"}
_SECTION_STOP |= {"và", "của", "với", "các", "những"}  # the same, as typed with accents


@dataclass
class Structure:
    """Units by document: ``articles[doc_id][n]`` the positions under
    ``Điều n``; ``entries[folded entry title]`` the positions of a
    monograph (entries of documents without articles only),
    ``section_of[position]`` its section title."""

    doc_ids: list[str]
    articles: dict[str, dict[int, list[int]]] = field(default_factory=dict)
    entries: dict[str, list[int]] = field(default_factory=dict)
    entry_words: dict[str, list[str]] = field(default_factory=dict)
    entry_title: dict[str, str] = field(default_factory=dict)  # folded -> as printed
    section_of: list[str] = field(default_factory=list)
    article_of: list[int] = field(default_factory=list)  # each position's Điều number, 0: none
    entry_of: list[str] = field(default_factory=list)  # each position's entry title
    paragraphs: dict[str, dict[int, list[int]]] = field(default_factory=dict)  # a precedent's "[n]" paragraphs
    paragraph_of: dict[int, int] = field(default_factory=dict)  # the paragraph a chunk starts in
    amending: set[int] = field(default_factory=set)  # positions inside an article amending another document
    _section_titles: set[str] | None = None

    @classmethod
    def build(
        cls, doc_ids: Sequence[str], headings: Sequence[Sequence[str] | None], entry_titles: Sequence[str | None], section_titles: Sequence[str | None], texts: Sequence[str | None] = ()
    ) -> "Structure":
        """``texts``: the chunks' texts (in position order), read for the
        numbered paragraphs of documents without articles (a precedent's
        ``[3] Vì vậy, …``); none given, none are known."""
        built = cls(list(doc_ids), section_of=[s or "" for s in section_titles], article_of=[0] * len(doc_ids), entry_of=[e or "" for e in entry_titles])
        folded: dict[str, str] = {}  # headings repeat chunk after chunk: fold each once

        def fold_once(text: str) -> str:
            found = folded.get(text)
            if found is None:
                found = folded[text] = query_fold(text)
            return found

        for position, (doc, trail) in enumerate(zip(doc_ids, headings)):
            for heading in reversed(list(trail or ())):
                found = _ARTICLE.match(fold_once(heading))
                if found:
                    built.articles.setdefault(doc, {}).setdefault(int(found.group(1)), []).append(position)
                    built.article_of[position] = int(found.group(1))
                    if _AMENDING.match(fold_once(heading)):
                        built.amending.add(position)
                    break
        for position, title in enumerate(entry_titles):
            key = fold_once(title or "")
            if key and doc_ids[position] not in built.articles:  # a law's sections are its articles
                built.entries.setdefault(key, []).append(position)
                built.entry_title.setdefault(key, title or "")
        built.entry_words = {key: _WORD.findall(key) for key in built.entries}
        built._read_paragraphs(texts)
        return built

    def _read_paragraphs(self, texts: Sequence[str | None]) -> None:
        """Each paragraph ``[n]`` of a document without articles: the chunks
        that print its mark and those that go on with it (the chunks of a
        document follow each other in position order; a paragraph ends with
        its section)."""
        current: tuple[tuple[str, str], int] = (("", ""), 0)
        for position, text in enumerate(texts):
            doc = self.doc_ids[position]
            if doc in self.articles:
                continue
            where = (doc, self.section_of[position])
            if current[0] != where:
                current = (where, 0)
            marks = [int(m.group(1)) for m in _PARAGRAPH_MARK.finditer(text or "")]
            for n in dict.fromkeys([current[1], *marks] if current[1] else marks):
                self.paragraphs.setdefault(doc, {}).setdefault(n, []).append(position)
            start = marks[0] if marks else current[1]
            if start:
                self.paragraph_of[position] = start
            if marks:
                current = (where, marks[-1])

    def section_titles(self) -> set[str]:
        """The titles of the monographs' sections (not the monographs' own)."""
        if self._section_titles is None:
            own = set(self.entry_title.values())
            self._section_titles = {self.section_of[p] for ps in self.entries.values() for p in ps} - own - {""}
        return self._section_titles

    def unit_of(self, position: int) -> tuple[str, int, str, int]:
        """The unit ``position`` lies in: (document, its Điều number), else
        (document, 0, its entry and section titles, the precedent paragraph
        ``[n]`` it starts in or 0): chunks of one unit share it."""
        article = self.article_of[position]
        if article:
            return (self.doc_ids[position], article, "", 0)
        return (self.doc_ids[position], 0, f"{self.entry_of[position]}\n{self.section_of[position]}", self.paragraph_of.get(position, 0))

    def outside_articles(self, position: int) -> bool:
        """Whether ``position`` lies in a document with articles but in none
        of them (its title page and preamble, an annexed form, its signature block)."""
        return not self.article_of[position] and self.doc_ids[position] in self.articles

    def article_range(self, doc_id: str) -> tuple[int, int] | None:
        numbers = self.articles.get(doc_id)
        return (min(numbers), max(numbers)) if numbers else None


@dataclass(frozen=True)
class Resolution:
    """What a query cites and what the index holds of it (see the module docstring)."""

    status: str  # "found", "missing", "entry" (a monograph named, no section), "" (nothing cited)
    label: str = ""  # "Bộ luật Dân sự 2015, Điều 319"
    positions: tuple[int, ...] = ()  # the cited unit's, best first
    documents: tuple[str, ...] = ()  # the documents the query names
    message: str = ""
    unindexed: tuple[str, ...] = ()  # the documents it cites by number that the index does not hold ("Nghị định 19/2020")

    def cited(self) -> dict[str, object] | None:
        """The answer's ``citation`` object: a unit found or missing, else None."""
        return self.as_dict() if self.status in ("found", "missing") else None

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "unit": self.label, "documents": list(self.documents), "message": self.message}


def resolve(structure: Structure, names: Mapping[str, DocumentNames], query: str, base: Sequence[int], texts: Callable[[int], str] | None = None,
            named: Sequence[str] | None = None, known: Callable[[str], bool] | None = None) -> Resolution:
    """Resolve ``query`` against ``structure`` (``base``: every position in
    the base ranking's order, best first, used to order a unit's chunks;
    ``named``: :func:`.citation.named_documents` of ``query`` when the caller
    has it already; ``known``: whether the index holds a folded word, to tell
    a drug the formulary has no monograph for, :func:`_unknown_monograph`)."""
    named = tuple(d for d in (named_documents(query, names.values()) if named is None else named) if d in names)
    citation = parse_citation(query)
    absent = unindexed_documents(query, names.values())
    named_by_query = bool(named)
    if citation is None:
        return (_monograph(structure, query, base) or (_unknown_monograph(structure, names, query, known) if known and not named else None)
                or Resolution("", documents=named, unindexed=tuple(c.display for c in absent)))
    if absent and not named:  # a document the index does not know by number: only one whose number is unknown may be it
        named = tuple(d for d in sorted(names) if all(c.may_be(names[d]) for c in absent))
        if not named:
            return _not_indexed(absent, citation)
    if citation.key[0] == "precedent_content":
        return _precedent(structure, names, citation, named, base, texts)
    if citation.key[0] == "paragraph":
        return _paragraph(structure, names, citation, named, base)
    number = citation.key[1]
    scope = list(named) or sorted(structure.articles)
    holders = [d for d in scope if number in structure.articles.get(d, {})]
    if not holders and absent and not named_by_query:
        return _not_indexed(absent, citation)
    if not holders:
        return Resolution("missing", _label(names, named, citation), documents=named, message=_missing(structure, names, named, citation))
    wanted = {p for d in holders for p in structure.articles[d][number]}
    ordered = [p for p in base if p in wanted]
    ordered += sorted(wanted - set(ordered))
    if citation.clause and texts is not None:
        mark = re.compile(rf"(?m)^\s*{citation.clause}\.\s")
        ordered.sort(key=lambda p: 0 if mark.search(texts(p)) else 1)  # stable: the base order within each group
    label = _label(names, tuple(holders) if len(holders) == 1 else named, citation)
    return Resolution("found", label, tuple(ordered), named)


NOT_INDEXED = "No indexed document has"  # how the message of a unit not in the index opens (answer.format_hits reads it)


def _not_indexed(absent: Sequence[CitedDocument], citation: Citation) -> Resolution:
    unit = f"khoản {citation.clause} {citation.label}" if citation.clause else citation.label
    numbers = " or ".join(c.number for c in absent)
    message = f"{NOT_INDEXED} the number {numbers}: {' and '.join(c.display for c in absent)} is not in the index; nothing from another document is shown in its place."
    return Resolution("missing", f"{absent[0].display}, {unit}", message=message, unindexed=tuple(c.display for c in absent))


def _label(names: Mapping[str, DocumentNames], docs: Sequence[str], citation: Citation) -> str:
    unit = f"khoản {citation.clause} {citation.label}" if citation.clause else citation.label
    if len(docs) == 1 and docs[0] in names and names[docs[0]].display:
        return f"{names[docs[0]].display}, {unit}"
    return unit


def _missing(structure: Structure, names: Mapping[str, DocumentNames], named: Sequence[str], citation: Citation) -> str:
    if not named:
        return f"No document in the index has {citation.label}; nothing else is shown in its place."
    said = []
    for doc in named:
        span = structure.article_range(doc)
        who = names[doc].display or doc
        said.append(f"{who} has no {citation.label}" + (f" (its articles run from {span[0]} to {span[1]})" if span else " (no numbered articles were found in it)"))
    return "; ".join(said) + "; nothing else is shown in its place."


def _precedent(structure, names, citation, named, base, texts) -> Resolution:
    scope = _precedents(structure, names, named)
    if texts is None:
        return Resolution("", documents=tuple(named))
    wanted = [p for p in base if structure.doc_ids[p] in scope and "noi dung an le" in query_fold(texts(p)[:4000])]
    if not wanted:
        return Resolution("missing", _label(names, named, citation), documents=tuple(named), message=f"No {citation.label} was found in {', '.join(names[d].display or d for d in sorted(scope)) if named else 'the index'}; nothing else is shown in its place.")
    return Resolution("found", _label(names, named, citation), tuple(wanted), tuple(named))


def _precedents(structure: Structure, names: Mapping[str, DocumentNames], named: Sequence[str]) -> set[str]:
    """Where a precedent's unit is looked for: the documents named, else the precedents (án lệ), else all."""
    return set(named) or {d for d, n in names.items() if "an le" in query_fold(n.display)} or set(structure.doc_ids)


def _paragraph(structure: Structure, names: Mapping[str, DocumentNames], citation: Citation, named: Sequence[str], base: Sequence[int]) -> Resolution:
    """A precedent's numbered paragraph (``đoạn [3] án lệ 43/2021/AL``): the
    chunks printing ``[3]`` or going on with it, in the base order."""
    number = citation.key[1]
    holders = sorted(d for d in _precedents(structure, names, named) if number in structure.paragraphs.get(d, {}))
    if not holders:
        where = ", ".join(names[d].display or d for d in named if d in names) if named else "the index"
        return Resolution("missing", _label(names, named, citation), documents=tuple(named), message=f"No {citation.label} was found in {where}; nothing else is shown in its place.")
    wanted = {p for d in holders for p in structure.paragraphs[d][number]}
    ordered = [p for p in base if p in wanted] + sorted(wanted - set(base))
    return Resolution("found", _label(names, holders if len(holders) == 1 else named, citation), tuple(ordered), tuple(named))


def _content(text: str, exact: bool = False) -> set[str]:
    """A text's words but the commonest; ``exact``: accents kept (a query
    typed with them: folded, ``có``, ``cơ`` and ``cố`` are one word)."""
    return set(_WORD.findall(text.casefold() if exact else query_fold(text))) - _SECTION_STOP


def _monograph(structure: Structure, query: str, base: Sequence[int]) -> Resolution | None:
    """A query naming a monograph (every word of its title but ``và``,
    accents optional) and perhaps one of its sections: a section title
    written out whole (``chống chỉ định``: the longest the query holds), or
    one whose words the query mostly holds (``liều dùng`` for ``Liều lượng
    và cách dùng``: two words or more, half of the title's or more). A
    section title written out whole that this monograph lacks (another
    has it) is missing. With no section named, the monograph's chunks
    come first (``entry``), in the base ranking's order."""
    words = _WORD.findall(query_fold(query))
    present = set(words)
    entry = max(
        (k for k, w in structure.entry_words.items() if w and len(w) <= 6 and set(w) - _SECTION_STOP and set(w) - _SECTION_STOP <= present),
        key=lambda k: len(structure.entry_words[k]),
        default=None,
    )
    if entry is None:
        return None
    name = structure.entry_title[entry]
    titles = dict.fromkeys(structure.section_of[p] for p in structure.entries[entry] if structure.section_of[p] != name)
    whole = _whole_section(structure, words)
    if whole is not None and whole not in titles:
        return Resolution("missing", f"{name}, {whole}", message=_no_section(name, whole, titles))
    cues = cued_sections(query) if whole is None else []
    best = whole or next((t for c in cues if c.strong for t in titles_of(c.section, titles)), None)  # the schema's words for it
    if best is None:
        exact = not query.isascii()
        best = _mostly_held(_content(query, exact) - _content(name, exact), titles, words, exact)
    if best is None:
        lacked = [t for c in cues for t in titles_of(c.section, structure.section_titles())[:1]]
        if lacked and not any(titles_of(c.section, titles) for c in cues):  # asked in other words for sections it has none of
            return Resolution("missing", f"{name}, {lacked[0]}", message=_no_section(name, lacked[0], titles))
    if best is None:
        members = set(structure.entries[entry])
        return Resolution("entry", name, tuple(p for p in base if p in members))
    wanted = {p for p in structure.entries[entry] if structure.section_of[p] == best}
    ordered = [p for p in base if p in wanted] + sorted(wanted - set(base))
    return Resolution("found", f"{name}, {best}", tuple(ordered))


_NAME_LIKE = re.compile(r"^[a-z]{8,}$")  # longer than any Vietnamese syllable ("nghieng", 7): a name, not a word


def _unknown_monograph(structure: Structure, names: Mapping[str, DocumentNames], query: str, known: Callable[[str], bool]) -> Resolution | None:
    """A formulary question that names a section (as :func:`_monograph`
    reads one) but no monograph, and a drug the index has never seen
    (``chống chỉ định của ceftriaxon``): a word longer than any Vietnamese
    syllable, in no chunk, and not a monograph's name mistyped (one edit from
    it: ``gentamycin``; ``amoxicilin`` is two from ``ampicilin``, another
    drug): that monograph is not in the index."""
    words = _WORD.findall(query_fold(query))
    unknown = [w for w in words if _NAME_LIKE.match(w) and not known(w)]  # checked first: most queries hold none
    formulary = {d for d, n in names.items() if n.kind == "formulary"} if unknown else set()
    section = _named_section(structure, words, query) if formulary else None
    if section is None or not any(structure.doc_ids[p] in formulary and structure.section_of[p] == section for ps in structure.entries.values() for p in ps):
        return None
    entry_words = {w for ws in structure.entry_words.values() for w in ws if len(w) >= 5}
    drug = next((w for w in unknown if not any(_near(w, e) for e in entry_words)), None)
    if drug is None:
        return None
    message = f"{NOT_INDEXED} a monograph named {drug!r}, so its {section!r} cannot be shown; nothing else is shown in its place."
    return Resolution("missing", f"{drug.upper()}, {section}", message=message, unindexed=(drug,))


def _named_section(structure: Structure, words: list[str], query: str) -> str | None:
    """The section title the query writes out whole (the longest), else the
    one whose words it mostly holds (two or more, half the title's or more)."""
    whole = _whole_section(structure, words)
    if whole is not None:
        return whole
    exact = not query.isascii()
    held = _mostly_held(_content(query, exact), structure.section_titles(), words, exact)
    if held is not None:
        return held
    return next((t for c in cued_sections(query) for t in titles_of(c.section, structure.section_titles())[:1]), None)


def _mostly_held(content: set[str], titles, words: list[str], exact: bool) -> str | None:
    """The title whose words ``content`` mostly holds: two or more, half the
    title's or more (typed without accents, two of them side by side as
    printed, :func:`_shares_pair`); the one holding most, then the shortest."""
    scored = [(len(content & _content(t, exact)), -len(_content(t, exact)), t) for t in titles if exact or _shares_pair(words, t)]
    scored = [x for x in scored if x[0] >= 2 and 2 * x[0] >= -x[1]]
    return max(scored)[2] if scored else None


def _no_section(name: str, section: str, titles) -> str:
    """The answer when a monograph lacks the section asked for: which sections
    it has, so a reader knows where else to look (a warning about the kidney
    may sit under Thận trọng when there is no adverse-effects section)."""
    has = "; ".join(titles) or "none"
    return f"{name} has no section {section!r}; nothing else is shown in its place. Its sections: {has}."


def _shares_pair(words: list[str], title: str) -> bool:
    """Whether the (folded) query holds two of ``title``'s words side by side
    as the title prints them: typed without accents, a title's words met one
    by one are common words (``có dùng được`` holds ``cơ``, ``dụng`` and
    ``dược`` of ``Dược lý và cơ chế tác dụng``)."""
    printed = _WORD.findall(query_fold(title))
    pairs = set(zip(printed, printed[1:]))
    return any(pair in pairs for pair in zip(words, words[1:]))


def _whole_section(structure: Structure, words: list[str]) -> str | None:
    """The longest section title (two words or more) the query's words hold as a run."""
    runs = ((t, _WORD.findall(query_fold(t))) for t in structure.section_titles())
    return max(((t, len(w)) for t, w in runs if len(w) >= 2 and _has_run(words, w)), key=lambda x: x[1], default=(None, 0))[0]


def _near(a: str, b: str, most: int = 1) -> bool:
    """Whether ``a`` and ``b`` are at most ``most`` edits apart (a name mistyped)."""
    if abs(len(a) - len(b)) > most:
        return False
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
        if min(current) > most:
            return False
        previous = current
    return previous[-1] <= most


_UNIT_LABEL = re.compile(r"^\s*((?:Điều|ĐIỀU|Article|ARTICLE|ماده)\s*[0-9۰-۹]{1,4})(?![0-9۰-۹])")


def unit_label(headings: Sequence[str] | None, section_title: str, entry_title: str) -> str:
    """The unit a chunk belongs to, as printed: its deepest ``Điều N``
    (``Article N``, ``ماده N``) heading, else its entry (monograph) and
    section titles when the section is not the entry itself, else ""."""
    for heading in reversed(list(headings or ())):
        found = _UNIT_LABEL.match(heading)
        if found:
            return " ".join(found.group(1).split())
    if not section_title or section_title == entry_title:
        return ""
    return f"{entry_title}, {section_title}" if entry_title else section_title


def _has_run(words: list[str], run: list[str]) -> bool:
    n = len(run)
    return any(words[i : i + n] == run for i in range(len(words) - n + 1))
