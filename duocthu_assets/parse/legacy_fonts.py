"""The legacy Vietnamese fonts a document is set in, by their names.

A TCVN3 font's name begins ``.Vn`` (``.VnTime``, ``.VnTimeH``, ``.VnArial``),
a VNI font's ``VNI-`` (``VNI-Times``, ``VNI-Helve``). Text set in one with
letters beyond ASCII is Vietnamese typed in that encoding
(:mod:`duocthu_assets.parse.encoding.legacy_vietnamese`); text in ASCII reads the
same in any font. Read from the file's own bytes: a DOCX's and an XLSX's
XML parts (run fonts, styles, cell fonts), a PDF's font resources (the
subset prefix ``ABCDEF+`` and a ``#2E`` for the dot taken off).
"""

from __future__ import annotations

import io
import re
import zipfile

from .encoding.legacy_vietnamese import TCVN3, VNI

_OOXML_PARTS = re.compile(r"(word/(document|styles|header\d*|footer\d*)|xl/(styles|sharedStrings)|xl/worksheets/sheet\d+)\.xml")
_OOXML_FONT = re.compile(rb'(?:w:(?:ascii|hAnsi|cs)|<(?:\w+:)?(?:name|rFont)\s+val)="([^"]+)"')


def encoding_of(font: str) -> str | None:
    """The legacy encoding a font's name says it types, or None."""
    name = font.split("+", 1)[-1].replace("#2E", ".").replace("#20", " ").strip()
    if name.lower().startswith(".vn"):
        return TCVN3
    if name.lower().startswith("vni-"):
        return VNI
    return None


def legacy_fonts(data: bytes, fmt: str) -> dict[str, list[str]]:
    """``encoding -> font names`` of the legacy Vietnamese fonts a PDF,
    DOCX or XLSX names (none for another format, or a file that cannot be
    read: the parse has said why)."""
    if fmt == "pdf":
        names = _pdf_fonts(data)
    elif fmt in ("docx", "xlsx"):
        names = _ooxml_fonts(data)
    else:
        return {}
    found: dict[str, list[str]] = {}
    for name in sorted(names):
        encoding = encoding_of(name)
        if encoding:
            found.setdefault(encoding, []).append(name)
    return found


def _pdf_fonts(data: bytes) -> set[str]:
    from .pdf.engine import pymupdf

    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except (RuntimeError, ValueError):
        return set()
    with doc:
        if doc.needs_pass:
            return set()
        return {font[3] for page in doc for font in page.get_fonts()}


def _ooxml_fonts(data: bytes) -> set[str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = [n for n in archive.namelist() if _OOXML_PARTS.fullmatch(n)]
            return {m.decode("utf-8", "replace") for n in parts for m in _OOXML_FONT.findall(archive.read(n))}
    except (zipfile.BadZipFile, KeyError, OSError):
        return set()
