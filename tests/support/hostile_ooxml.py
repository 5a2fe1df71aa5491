"""Hostile OOXML packages (DOCX, XLSX) for the hostile-input tests: zip
bombs by ratio and by declared size, entity expansion and an external
entity, macros, a sheet whose extent or grid is enormous, a package cut
short. Built from real python-docx and openpyxl output and a little byte
surgery; each ``make_*`` writes one file at ``path`` and returns it."""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from pathlib import Path

from tests.support.hostile_makers import FIXED_TIME, MiB, make_docx_to


def _docx_bytes(text: str = "Hợp đồng mua bán thuốc") -> bytes:
    buffer = io.BytesIO()
    make_docx_to(buffer, [("Điều 1", [text])])
    return buffer.getvalue()


def _xlsx_bytes() -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    ws = workbook.active
    ws.title = "Data"
    ws.append(["Tên thuốc", "Giá"])
    ws.append(["Amoxicilin", 1200])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in members.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, body)
    return buffer.getvalue()


def make_ratio_bomb_docx(path: Path, members: int = 3, member_mib: int = 40) -> Path:
    """A real DOCX plus ``members`` parts of zeros: ~120 MiB from ~120 KiB,
    a compression ratio near 1000:1 (the limit is 200:1), total well under
    the 1 GiB size limit, so the ratio check is what refuses it."""
    parts = _members(_docx_bytes())
    zeros = bytes(member_mib * MiB)
    for i in range(members):
        parts[f"word/media/image{i + 1}.bin"] = zeros
    path.write_bytes(_zip(parts))
    return path


def make_size_bomb_xlsx(path: Path, members: int = 3, member_mib: int = 400) -> Path:
    """A real XLSX plus ``members`` parts of zeros that expand to 1.2 GiB in
    total (the limit is 1 GiB). The deflate stream of one 16 MiB block of
    zeros, ended with a full flush,, is repeated rather than recomputed, so
    writing the bomb takes about a second; the zip is written by hand because
    :mod:`zipfile` cannot store pre-compressed data."""
    block = 16 * MiB
    assert member_mib * MiB % block == 0
    repeats = member_mib * MiB // block
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = compressor.compress(bytes(block)) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush(zlib.Z_FINISH)
    crc = 0
    zeros = bytes(block)
    for _ in range(repeats):
        crc = zlib.crc32(zeros, crc)
    del zeros
    stream = piece * repeats + tail
    entries = []
    for name, body in _members(_xlsx_bytes()).items():
        entries.append((name, zlib.crc32(body), _deflate(body), len(body)))
    for i in range(members):
        entries.append((f"xl/media/image{i + 1}.bin", crc, stream, member_mib * MiB))
    path.write_bytes(_handmade_zip(entries))
    return path


def _deflate(body: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(body) + compressor.flush()


def _handmade_zip(entries: list[tuple[str, int, bytes, int]]) -> bytes:
    """A plain (non-zip64) zip of deflated members: (name, crc32, raw deflate, size)."""
    out = bytearray()
    central = bytearray()
    dos_time, dos_date = 0, (2026 - 1980) << 9 | 1 << 5 | 1
    for name, crc, data, size in entries:
        encoded = name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, dos_time, dos_date, crc, len(data), size, len(encoded), 0)
        out += encoded + data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, dos_time, dos_date, crc, len(data), size,
            len(encoded), 0, 0, 0, 0, 0, offset,
        )
        central += encoded
    start = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), start, 0)
    return bytes(out)


BILLION_LAUGHS_DTD = (
    '<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + "".join(f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10))
    + "]>\n"
)


def make_billion_laughs_docx(path: Path) -> Path:
    """word/document.xml declares nine levels of nested entities (10^9 "lol"s
    once expanded) and uses the top one in a paragraph."""
    parts = _members(_docx_bytes("&lol9;"))
    xml = parts["word/document.xml"].decode()
    xml = re.sub(r"^(<\?xml[^>]*\?>\s*)", lambda m: m.group(1) + BILLION_LAUGHS_DTD, xml)
    assert "<!ENTITY" in xml and "&amp;lol9;" in xml
    parts["word/document.xml"] = xml.replace("&amp;lol9;", "&lol9;").encode()
    path.write_bytes(_zip(parts))
    return path


def make_external_entity_docx(path: Path) -> Path:
    """XXE: word/document.xml declares an external entity (a local file)."""
    parts = _members(_docx_bytes("&xxe;"))
    xml = parts["word/document.xml"].decode()
    xml = re.sub(r"^(<\?xml[^>]*\?>\s*)", lambda m: m.group(1) + '<!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n', xml)
    parts["word/document.xml"] = xml.replace("&amp;xxe;", "&xxe;").encode()
    path.write_bytes(_zip(parts))
    return path


def make_billion_laughs_xlsx(path: Path) -> Path:
    """xl/sharedStrings.xml (wired into the workbook and used by cell A3)
    declares the nested entities."""
    parts = _members(_xlsx_bytes())
    parts["xl/sharedStrings.xml"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        + BILLION_LAUGHS_DTD
        + '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">'
        "<si><t>&lol9;</t></si></sst>"
    ).encode()
    types = parts["[Content_Types].xml"].decode()
    parts["[Content_Types].xml"] = types.replace(
        "</Types>",
        '<Override PartName="/xl/sharedStrings.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
    ).encode()
    rels = parts["xl/_rels/workbook.xml.rels"].decode()
    parts["xl/_rels/workbook.xml.rels"] = rels.replace(
        "</Relationships>",
        '<Relationship Id="rIdSst" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" '
        'Target="sharedStrings.xml"/></Relationships>',
    ).encode()
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    parts["xl/worksheets/sheet1.xml"] = sheet.replace("</sheetData>", '<row r="3"><c r="A3" t="s"><v>0</v></c></row></sheetData>').encode()
    path.write_bytes(_zip(parts))
    return path


VBA_PROJECT = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504  # the OLE2 header a vbaProject.bin starts with
VBA_REL = "http://schemas.microsoft.com/office/2006/relationships/vbaProject"
VBA_TYPE = "application/vnd.ms-office.vbaProject"


def _add_vba(parts: dict[str, bytes], folder: str, rels: str, main_old: str, main_new: str, part_name: str) -> dict[str, bytes]:
    types = parts["[Content_Types].xml"].decode().replace(main_old, main_new)
    types = types.replace("</Types>", f'<Override PartName="/{folder}/{part_name}" ContentType="{VBA_TYPE}"/></Types>')
    parts["[Content_Types].xml"] = types.encode()
    parts[rels] = parts[rels].decode().replace(
        "</Relationships>", f'<Relationship Id="rIdVba" Type="{VBA_REL}" Target="{part_name}"/></Relationships>'
    ).encode()
    parts[f"{folder}/{part_name}"] = VBA_PROJECT
    return parts


def make_macro_docm(path: Path) -> Path:
    """python-docx output + word/vbaProject.bin + the macroEnabled main type."""
    parts = _add_vba(
        _members(_docx_bytes()), "word", "word/_rels/document.xml.rels",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
        "application/vnd.ms-word.document.macroEnabled.main+xml", "vbaProject.bin",
    )
    path.write_bytes(_zip(parts))
    return path


def make_macro_xlsm(path: Path, part_name: str = "vbaProject.bin") -> Path:
    """openpyxl output + a VBA project part + the macroEnabled main type.
    ``part_name`` other than vbaProject.bin: Office finds the VBA part by its
    relationship and content type, never by its name."""
    parts = _add_vba(
        _members(_xlsx_bytes()), "xl", "xl/_rels/workbook.xml.rels",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
        "application/vnd.ms-excel.sheet.macroEnabled.main+xml", part_name,
    )
    path.write_bytes(_zip(parts))
    return path


def make_sparse_extent_xlsx(path: Path) -> Path:
    """A small table at A1 and one stray cell at XFD1048576, the last cell a
    sheet can have: the declared extent is 17 billion cells."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in (["Tên thuốc", "Giá (đồng)"], ["Amoxicilin", 1200], ["Gentamicin", 5400]):
        ws.append(row)
    ws["XFD1048576"] = "ô lạc cuối bảng tính"
    wb.properties.created = wb.properties.modified = FIXED_TIME
    wb.save(path)
    return path


def make_diagonal_xlsx(path: Path, n: int = 2100) -> Path:
    """``n`` cells on a diagonal: every row and column populated once, so even
    collapsed the grid needs n × n positions (4.4 million for 2,100)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    for i in range(1, n + 1):
        ws.cell(row=i, column=i, value=i)
    wb.properties.created = wb.properties.modified = FIXED_TIME
    wb.save(path)
    return path


def make_truncated_ooxml(path: Path, kind: str, keep: float = 0.5) -> Path:
    """A DOCX/XLSX cut short: the zip's central directory is gone."""
    data = _docx_bytes() if kind == "docx" else _xlsx_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path

