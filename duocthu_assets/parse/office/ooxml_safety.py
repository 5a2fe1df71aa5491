"""Checks on an OOXML package (DOCX, XLSX) before any XML in it is parsed.

A zip bomb is refused from the central directory alone: the declared
uncompressed total against ``max_uncompressed_bytes`` and against the file's
size times ``max_compression_ratio``. ``zipfile`` never returns more than a
member's declared size, so python-docx, openpyxl and this code cannot be made
to inflate past what was checked here. XML parts that declare a DTD or an
entity (billion laughs, external entities) are refused outright: Office never
writes one. The parser used for the parts we read ourselves resolves no
entities and fetches nothing from the network either way.
"""

from __future__ import annotations

import io
import zipfile

from lxml import etree

from ...settings import Settings
from ..errors import DocumentRejected, ParseFailed

_XML_SUFFIXES = (".xml", ".rels", ".vml")
_FORBIDDEN = [
    marker.encode(encoding)
    for marker in ("<!DOCTYPE", "<!ENTITY")
    for encoding in ("utf-8", "utf-16-le", "utf-16-be")
]
_READ_BLOCK = 1 << 20
_OVERLAP = max(len(m) for m in _FORBIDDEN)


def _mib(n: float) -> str:
    return f"{n / (1024 * 1024):,.1f} MiB"


def open_package(data: bytes, settings: Settings) -> zipfile.ZipFile:
    """Return the package as an open ZipFile once it has passed every check;
    raise DocumentRejected (bomb, DTD, encrypted member) or ParseFailed (not a
    readable zip)."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ParseFailed(f"not a readable Office package (broken zip: {exc}) — re-save the file and add it again") from exc
    total = sum(info.file_size for info in infos)
    if total > settings.max_uncompressed_bytes:
        raise DocumentRejected(
            f"Office package expands to {_mib(total)}, over the {_mib(settings.max_uncompressed_bytes)} limit "
            "(max_uncompressed_bytes) — split the document, or raise the limit for this collection if it is genuine"
        )
    ratio = total / max(len(data), 1)
    if ratio > settings.max_compression_ratio:
        raise DocumentRejected(
            f"Office package compression ratio {ratio:,.0f}:1 is over the {settings.max_compression_ratio:,.0f}:1 limit "
            "(max_compression_ratio): it looks like a zip bomb — if the file is genuine, raise the limit for this collection"
        )
    for info in infos:
        if info.flag_bits & 0x1:
            raise DocumentRejected(
                f"Office package member {info.filename} is encrypted — remove the password and save the file again"
            )
    for info in infos:
        if info.filename.lower().endswith(_XML_SUFFIXES):
            _refuse_dtd(zf, info)
    return zf


def _refuse_dtd(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    tail = b""
    try:
        with zf.open(info) as fh:
            while block := fh.read(_READ_BLOCK):
                window = tail + block
                for marker in _FORBIDDEN:
                    if marker in window:
                        raise DocumentRejected(
                            f"Office package part {info.filename} declares a DTD or XML entities, which Word and Excel "
                            "never write (an entity-expansion attack) — re-save the file from Word or Excel"
                        )
                tail = window[-_OVERLAP:]
    except DocumentRejected:
        raise
    except Exception as exc:  # zipfile.BadZipFile, zlib.error, EOFError: a damaged member
        raise ParseFailed(f"Office package part {info.filename} is corrupt ({exc}) — re-save the file") from exc


def xml_parser() -> etree.XMLParser:
    """A parser that resolves no entities, loads no DTD and touches no network."""
    return etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, remove_blank_text=False)


def read_xml(zf: zipfile.ZipFile, name: str) -> etree._Element | None:
    """The root of part ``name`` (no leading slash), or None when absent."""
    try:
        raw = zf.read(name)
    except KeyError:
        return None
    try:
        return etree.fromstring(raw, parser=xml_parser())
    except etree.XMLSyntaxError as exc:
        raise ParseFailed(f"Office package part {name} is not well-formed XML ({exc}) — re-save the file") from exc
