"""The OOXML package of a DOCX: namespaces, relationships, which part is
which, and the footnote/endnote parts."""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass

from lxml import etree

from ..ooxml_safety import read_xml

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
CHART = "http://schemas.openxmlformats.org/drawingml/2006/chart"
DIAGRAM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
V = "urn:schemas-microsoft-com:vml"
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
REL_OFFICE_DOCUMENT = "/officeDocument"


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def m(name: str) -> str:
    return f"{{{M}}}{name}"


W_BODY, W_P, W_TBL, W_TR, W_TC, W_SDT, W_SDTCONTENT = map(w, ("body", "p", "tbl", "tr", "tc", "sdt", "sdtContent"))
W_CUSTOMXML, W_T, W_TAB, W_PTAB, W_BR, W_CR = map(w, ("customXml", "t", "tab", "ptab", "br", "cr"))
W_VAL = w("val")


def rels_name(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{name}.rels")


def relationships(zf: zipfile.ZipFile, part: str) -> list[tuple[str, str]]:
    """(type, target part name) of ``part``'s internal relationships."""
    root = read_xml(zf, rels_name(part))
    if root is None:
        return []
    folder = posixpath.dirname(part)
    out = []
    for rel in root.iter(f"{{{PKG_RELS}}}Relationship"):
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target", "")
        name = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out.append((rel.get("Type", ""), name))
    return out


@dataclass
class Package:
    main: str
    parts: dict[str, list[str]]  # relationship type suffix → part names

    @classmethod
    def read(cls, zf: zipfile.ZipFile) -> "Package":
        main = next((t for typ, t in relationships(zf, "") if typ.endswith(REL_OFFICE_DOCUMENT)), "word/document.xml")
        parts: dict[str, list[str]] = {}
        for typ, target in relationships(zf, main):
            parts.setdefault(typ.rsplit("/", 1)[-1], []).append(target)
        return cls(main, parts)

    def first(self, kind: str) -> str | None:
        names = self.parts.get(kind)
        return names[0] if names else None


def read_notes(zf: zipfile.ZipFile, package: Package) -> dict[tuple[str, str], list[etree._Element]]:
    notes: dict[tuple[str, str], list[etree._Element]] = {}
    for kind in ("footnote", "endnote"):
        name = package.first(f"{kind}s")
        root = read_xml(zf, name) if name else None
        if root is None:
            continue
        for note in root.iter(w(kind)):
            if note.get(w("type")) in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            paragraphs = list(note.iter(W_P))
            if any("".join(t.text or "" for t in p.iter(W_T)).strip() for p in paragraphs):
                notes[(kind, note.get(w("id"), ""))] = paragraphs
    return notes


def part_text_count(zf: zipfile.ZipFile, names: list[str], element: str) -> int:
    count = 0
    for name in names:
        root = read_xml(zf, name)
        if root is None:
            continue
        if element:
            count += sum(1 for el in root.iter(w(element)) if "".join(t.text or "" for t in el.iter(W_T)).strip())
        elif "".join(t.text or "" for t in root.iter(W_T)).strip():
            count += 1
    return count


def drawing_texts(zf: zipfile.ZipFile, names: list[str]) -> list[str]:
    """The DrawingML text runs (``a:t``) of the parts ``names`` (a SmartArt
    diagram's data: its boxes' text), in order, blanks left out."""
    out: list[str] = []
    for name in names:
        root = read_xml(zf, name)
        if root is not None:
            out.extend(t.text.strip() for t in root.iter(f"{{{A}}}t") if t.text and t.text.strip())
    return out


def int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def int_hex(value: str | None) -> int | None:
    try:
        return int(value, 16) if value else None
    except ValueError:
        return None
