"""Who a document is, read from its own first page or properties, never guessed.

:func:`read_identity` takes the first lines of a document (its first pages or
paragraphs, in reading order: :mod:`.preview` reads them) and its properties
(the PDF's or DOCX's own title), and returns a :class:`DocumentIdentity`:

- ``kind``: the printed type line (``NGHỊ ĐỊNH``, ``BỘ LUẬT``, ``ÁN LỆ SỐ …``)
  as a lower-case Vietnamese name (``nghị định``, ``bộ luật``, ``án lệ``), or
  ``formulary`` (a title ``DƯỢC THƯ …``), ``contract`` (``HỢP ĐỒNG``,
  ``CONTRACT``, ``AGREEMENT``, ``قرارداد``); "" when nothing printed says it;
- ``number``: the ``Số:`` / ``Luật số:`` line of the header (``91/2015/QH13``,
  ``21/2021/NĐ-CP``), or the number printed in an ``ÁN LỆ SỐ 43/2021/AL``
  title; "" when the line is blank (a draft: ``Số:   /2026/NĐ-CP``);
- ``issuer``: the body printed above the number (``CHÍNH PHỦ``, ``QUỐC HỘI``),
  or the one that adopted a precedent (``Được <body> thông qua``);
- ``issued``: the date line of the header (``Hà Nội, ngày 31 tháng 01 năm
  2026``) or the precedent's adoption date, ISO ``YYYY-MM-DD``; a date
  elsewhere (``Căn cứ Luật … ngày 19 tháng 6 năm 2015``) is never taken;
- ``title``: the type line and its subject (``Bộ luật Dân sự``, ``Nghị định
  về đăng ký biện pháp bảo đảm``), else the first upper-case line of a
  formulary or contract, else the document's title property;
- ``aliases``: the names a person cites it by, derived only from the fields
  above (:func:`aliases_for`): ``Bộ luật Dân sự 2015``, ``BLDS``,
  ``Nghị định 21/2021/NĐ-CP``, ``NĐ 21/2021``;
- ``evidence``: the printed line behind each field, for the audit.

Pure: no Dagster, no I/O.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping, Sequence

from ..model import DocumentIdentity
from .profiles.detect import NATIONAL_HEADER
from .profiles.legal import DOC_TYPES

__all__ = ["NUMBER", "DocumentIdentity", "aliases_for", "identity_from_record", "read_identity"]

HEADER_LINES = 40  # the number, the issuer and the date are printed above the body


def identity_from_record(value: Mapping | None) -> DocumentIdentity:
    """A raw_documents ``identity`` struct back to the record (empty when None)."""
    if not value:
        return DocumentIdentity()
    return DocumentIdentity(
        title=value.get("title") or "", number=value.get("number") or "", kind=value.get("kind") or "",
        issuer=value.get("issuer") or "", issued=value.get("issued") or "",
        aliases=tuple(value.get("aliases") or ()), evidence=tuple(value.get("evidence") or ()),
    )


# ------------------------------------------------------------------ patterns

_SUFFIX = r"(?:UBTVQH\d{1,2}|QH\d{1,2}|AL|[A-ZĐ]{2,}(?:-[A-ZĐ0-9]+)+|[A-ZĐ]{2,})"
NUMBER = re.compile(r"(?P<no>\d{1,5})/(?P<year>(?:19|20)\d\d)/(?P<suffix>" + _SUFFIX + r")")
_NUMBER_LINE = re.compile(r"^(?:[A-ZÀ-Ỹa-zà-ỹĐđ ]{0,20}\s)?số\s*:\s*(?P<rest>.*)$", re.IGNORECASE)
_PRECEDENT = re.compile(r"^ÁN LỆ\s+SỐ\s+(?P<number>" + NUMBER.pattern + r")", re.IGNORECASE)
_DATE = r"ngày\s+(?P<d>\d{1,2})\s+tháng\s+(?P<m>\d{1,2})\s+năm\s+(?P<y>(?:19|20)\d\d)"
_PLACE_DATE = re.compile(r"^[^\W\d_][^,\d]{1,40},\s*" + _DATE, re.IGNORECASE)
_ADOPTED = re.compile(r"^Được\s+(?P<body>.+?)\s+thông qua\s+" + _DATE, re.IGNORECASE | re.DOTALL)
_RULE = re.compile(r"^[\s_\-–—=.*]*$")
_DOC_TYPE = re.compile(r"^(?P<type>" + "|".join(sorted(map(re.escape, DOC_TYPES), key=len, reverse=True)) + r")(?=$|\s|[A-ZÀ-ỸĐ][a-zà-ỹđ])")
_SUBJECT_STOP = re.compile(r"^(?:Căn cứ|Được|Nguồn|Theo đề nghị|Chương|Điều\s+\d|PHẦN|Phần thứ|Mục\s+\d|Nơi nhận)", re.IGNORECASE)
_FORMULARY = re.compile(r"^DƯỢC\s+THƯ\b|\bFORMULARY\b", re.IGNORECASE)
_CONTRACT = re.compile(r"^(?:HỢP ĐỒNG|CONTRACT|AGREEMENT|SERVICE AGREEMENT|قرارداد)", re.IGNORECASE)
_LAW_NAMES = ("hiến pháp", "bộ luật", "luật", "pháp lệnh")  # their subject is a name: "Bộ luật Dân sự"
KIND_SHORT = {  # the abbreviations a number is cited with
    "nghị định": "NĐ", "nghị quyết": "NQ", "thông tư": "TT", "quyết định": "QĐ", "chỉ thị": "CT",
    "thông tư liên tịch": "TTLT", "nghị quyết liên tịch": "NQLT", "pháp lệnh": "PL", "án lệ": "AL",
}
_SUBJECT_MAX_LINES = 5
_KIND_NAMES = {"hợp đồng": "contract"}  # the one kind named in English, as a Persian or English contract is


def _nfc(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def _clean(line: str) -> str:
    """A header line without its rule of dashes or underscores ("QUỐC HỘI--------")."""
    return _nfc(re.sub(r"[_\-–—=]{3,}", " ", line))


def _iso(day: str, month: str, year: str) -> str:
    d, m = int(day), int(month)
    return f"{int(year):04d}-{m:02d}-{d:02d}" if 1 <= d <= 31 and 1 <= m <= 12 else ""


def _sentence_case(text: str, capital: bool) -> str:
    """An upper-case subject in the case it is cited in: a name keeps a capital
    ("DÂN SỰ" → "Dân sự"), a description starts lower ("VỀ HỌ" → "về họ")."""
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        text = text.lower()
    if not text:
        return text
    first = text[0].upper() if capital else text[0].lower()
    if not capital and len(text) > 1 and text.split()[0].isupper() and len(text.split()[0]) > 1:
        return text  # an acronym opens it
    return first + text[1:]


def _lines(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        for part in unicodedata.normalize("NFC", line).split("\n"):
            cleaned = _clean(part)
            if cleaned:
                out.append(cleaned)
    return out


# ------------------------------------------------------------------ reading

def read_identity(lines: Sequence[str], properties: Mapping[str, str] | None = None) -> DocumentIdentity:
    """The identity printed in ``lines`` (the first page or paragraphs, in
    reading order; a paragraph may hold line breaks), with ``properties``
    (``{"title": ...}``, the file's own) as the title's last resort."""
    text_lines = _lines(lines)
    header = text_lines[:HEADER_LINES]
    evidence: list[str] = []
    number = issuer = issued = kind = title = ""

    type_at = -1
    for i, line in enumerate(header):
        m = _PRECEDENT.match(line)
        if m:
            kind, number, type_at = "án lệ", _trim_number(m.group("number")), i
            evidence.append(f"kind, number: {line}")
            break
        m = _DOC_TYPE.match(line)
        if m and (line.isupper() or m.end() < len(line)) and len(line.split()) <= 40:
            kind, type_at = _KIND_NAMES.get(m.group("type").lower(), m.group("type").lower()), i
            evidence.append(f"kind: {line}")
            break
    if not kind:
        for line in header[:8]:
            if _FORMULARY.search(line):
                kind, title = "formulary", line
                evidence.append(f"kind, title: {line}")
                break
            if _CONTRACT.match(line):
                kind, title = "contract", line
                evidence.append(f"kind, title: {line}")
                break

    number_at = -1
    for i, line in enumerate(header):
        if type_at >= 0 and i >= type_at:
            break
        m = _NUMBER_LINE.match(line)
        if m:
            number_at = i
            found = NUMBER.search(m.group("rest"))
            if found and not number:
                number = _trim_number(found.group(0))
                evidence.append(f"number: {line}")
            break
    if number_at > 0:
        above = [ln for ln in header[:number_at] if not NATIONAL_HEADER.search(ln) and not _RULE.match(ln)]
        if above and all(_upper(ln) for ln in above[-2:]):
            issuer = " ".join(above[-2:]) if len(above) >= 2 and len(above[-1].split()) <= 3 and _upper(above[-2]) else above[-1]
            evidence.append(f"issuer: {issuer}")

    for line in header[: type_at if type_at > 0 else HEADER_LINES]:
        m = _PLACE_DATE.match(line)
        if m:
            issued = _iso(m.group("d"), m.group("m"), m.group("y"))
            if issued:
                evidence.append(f"issued: {line}")
                break
    if kind == "án lệ" and type_at >= 0:
        joined = " ".join(header[type_at + 1: type_at + 12])
        start = joined.find("Được ")
        m = _ADOPTED.match(joined[start:]) if start >= 0 else None
        if m:
            issuer = issuer or _nfc(m.group("body"))
            issued = issued or _iso(m.group("d"), m.group("m"), m.group("y"))
            evidence.append(f"issuer, issued: {m.group(0)}")

    if type_at >= 0 and not title:
        title = _title(kind, number, header, type_at)
        if title:
            evidence.append(f"title: {title}")
    prop = _nfc((properties or {}).get("title", ""))
    # a DOCX titled by its issuer ("QUỐC HỘI") names no document
    if not title and _names_a_document(prop) and prop.lower() != issuer.lower():
        title = prop
        evidence.append(f"title: the file's title property: {prop}")
    identity = DocumentIdentity(title=title, number=number, kind=kind, issuer=issuer, issued=issued, evidence=tuple(evidence))
    return dataclasses.replace(identity, aliases=aliases_for(identity))


_NOT_A_TITLE = re.compile(r"^(?:untitled|document\d*|microsoft word\b.*|.*\.(?:docx?|pdf|rtf|odt))$|^[\W\d_]", re.IGNORECASE)


def _names_a_document(prop: str) -> bool:
    """A title property worth keeping: words, not a file name, a date or a
    template's placeholder ("2022-09-06 (1)", "Microsoft Word - x.doc")."""
    return sum(c.isalpha() for c in prop) >= 4 and not _NOT_A_TITLE.match(prop)


def _upper(line: str) -> bool:
    letters = [c for c in line if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters)


def _trim_number(number: str) -> str:
    return _nfc(number).replace("ND-CP", "NĐ-CP")


def _title(kind: str, number: str, header: list[str], type_at: int) -> str:
    """The type line and the subject printed under it, in citing case."""
    line = header[type_at]
    if kind == "án lệ":
        label, rest = f"Án lệ số {number}", ""
    else:
        m = _DOC_TYPE.match(line)
        label, rest = line[: m.end()], line[m.end():].strip()
        label = label[0] + label[1:].lower()
    subject: list[str] = [rest] if rest else []
    for nxt in header[type_at + 1: type_at + 1 + _SUBJECT_MAX_LINES]:
        if _SUBJECT_STOP.match(nxt) or NUMBER.fullmatch(nxt):
            break
        if subject and not _upper(nxt) and _upper(" ".join(subject)):
            break  # an upper-case subject ends where the sentence case starts
        subject.append(nxt)
        if nxt.endswith((".", ";")):
            break
    text = _nfc(" ".join(subject)).rstrip(".;:")
    if not text:
        return label
    return f"{label} {_sentence_case(text, capital=kind in _LAW_NAMES)}"


# ------------------------------------------------------------------ aliases

def _initials(words: str) -> str:
    return "".join(w[0].upper() for w in words.split() if w[0].isalpha())


def aliases_for(identity: DocumentIdentity) -> tuple[str, ...]:
    """The names a person cites the document by, from its own fields only:
    the title with and without its year (``Bộ luật Dân sự 2015``), a code's
    initials (``BLDS``, ``BLDS 2015``), the number with its kind (``Nghị
    định 21/2021/NĐ-CP``, ``Nghị định số 21/2021/NĐ-CP``, ``NĐ 21/2021``,
    ``Nghị định 21/2021``), the number alone."""
    out: list[str] = []
    kind, title, number, year = identity.kind, identity.title, identity.number, identity.year
    label = kind[:1].upper() + kind[1:] if kind else ""
    if title and kind in _LAW_NAMES:
        out += [title, f"{title} {year}", f"{title} năm {year}"] if year else [title]
        if kind == "bộ luật":
            short = _initials(title)
            out += [short, f"{short} {year}"] if year else [short]
    elif title and kind == "án lệ":
        out.append(title)
    m = NUMBER.fullmatch(number) if number else None
    if m:
        out.append(number)
        if label:
            out += [f"{label} {number}", f"{label} số {number}", f"{label} {m.group('no')}/{m.group('year')}"]
        if kind in KIND_SHORT:
            out += [f"{KIND_SHORT[kind]} {m.group('no')}/{m.group('year')}", f"{KIND_SHORT[kind]} {number}"]
        if kind == "án lệ":
            out += [f"Án lệ số {m.group('no')}", f"Án lệ {m.group('no')}"]
        if kind in _LAW_NAMES:
            out.append(f"Luật số {number}")
    elif title and kind not in _LAW_NAMES and kind != "án lệ":
        out.append(title)
    seen: set[str] = set()
    return tuple(a for a in (_nfc(a) for a in out) if a and not (a.lower() in seen or seen.add(a.lower())))
