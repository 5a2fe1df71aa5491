"""Hostile inputs, generated at test time with the real libraries (PyMuPDF,
python-docx, openpyxl) and a little byte surgery. Nothing big is committed:
the 100 MB-field CSV and the 1.2 GiB zip bomb are written here, in seconds.

Each ``make_*`` writes one file at ``path`` and returns it.
"""

from __future__ import annotations

import datetime as _dt
import io
import os
import random
import re
import struct
import zipfile
import zlib
from pathlib import Path

from .docgen import make_docx, make_scanned_pdf, make_text_pdf, make_xlsx

__all__ = ["make_docx", "make_scanned_pdf", "make_text_pdf", "make_xlsx"]

FIXED_TIME = _dt.datetime(2026, 1, 1, 0, 0, 0)
MiB = 1024 * 1024

# --------------------------------------------------------------------------
# good documents (the ones that must come out `ok` beside the hostile ones)

GOOD_PDF_LINES = [
    ["1. Mục đích", "Tài liệu này hướng dẫn cách dùng thuốc an toàn cho người bệnh.", "Người bệnh cần đọc kỹ hướng dẫn."],
    ["2. Bảo quản", "Bảo quản thuốc ở nơi khô ráo, tránh ánh sáng trực tiếp."],
]


def make_docx_to(target, sections: list[tuple[str, list[str]]]) -> None:
    """docgen's make_docx, into a binary file object."""
    import docx

    document = docx.Document()
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for text in paragraphs:
            document.add_paragraph(text)
    document.core_properties.created = FIXED_TIME
    document.core_properties.modified = FIXED_TIME
    document.save(target)


def write_good_documents(folder: Path) -> dict[str, str]:
    """A text PDF, a DOCX, an XLSX and a UTF-8 CSV; returns {file name: a
    phrase that must reach the search index}."""
    folder.mkdir(parents=True, exist_ok=True)
    make_text_pdf(folder / "huong_dan.pdf", GOOD_PDF_LINES)
    make_docx(folder / "quy_trinh.docx", [("Quy trình cấp phát", ["Bước một: kiểm tra đơn thuốc.", "Bước hai: cấp phát."])])
    make_xlsx(folder / "bang_gia.xlsx", ["Tên thuốc", "Giá (đồng)"], [["Amoxicilin", 1200], ["Gentamicin", 5400], ["Vancomycin", 98000]])
    (folder / "danh_muc.csv").write_text("Mã,Tên hoạt chất\nJ01CA04,Amoxicilin\nJ01GB03,Gentamicin\n", encoding="utf-8")
    return {
        "huong_dan.pdf": "ánh sáng trực tiếp",
        "quy_trinh.docx": "kiểm tra đơn thuốc",
        "bang_gia.xlsx": "Gentamicin",
        "danh_muc.csv": "J01GB03",
    }


def make_table_pdf(path: Path) -> Path:
    """A born-digital page (printed page 12) with a ruled renal-dosing table
    between two paragraphs: the PDF parser lifts the table and the crops
    stage renders it to PNG."""
    import pymupdf

    from .docgen import FONT

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    font = {"fontname": "dejavu", "fontfile": FONT} if Path(FONT).exists() else {}
    page.insert_text((72, 80), "1. Liều dùng theo chức năng thận", fontsize=13, **font)
    page.insert_text((72, 110), "Điều chỉnh liều theo độ thanh thải creatinin như bảng sau.", fontsize=11, **font)
    rows = [["Độ thanh thải (ml/phút)", "Liều", "Khoảng cách"], [">50", "500 mg", "8 giờ"], ["10-50", "250 mg", "12 giờ"], ["<10", "250 mg", "24 giờ"]]
    x0, y0, width, height = 72, 140, 150, 24
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((x0 + c * width + 4, y0 + r * height + 16), cell, fontsize=10, **font)
    for r in range(len(rows) + 1):
        page.draw_line((x0, y0 + r * height), (x0 + 3 * width, y0 + r * height), width=0.8)
    for c in range(4):
        page.draw_line((x0 + c * width, y0), (x0 + c * width, y0 + len(rows) * height), width=0.8)
    page.insert_text((72, y0 + len(rows) * height + 30), "Theo dõi chức năng thận trong suốt đợt điều trị.", fontsize=11, **font)
    page.insert_text((290, 812), "12", fontsize=9, **font)  # the printed page number a crop is cited by
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    return path


# --------------------------------------------------------------------------
# PDF


def make_oversized_table_pdf(path: Path, size_pt: float = 14400, rows: int = 60) -> Path:
    """One 14,400 × 14,400 pt page (the largest a PDF may declare) whose
    ruled table spans all of it: the parser lifts the table, and MuPDF refuses
    to render its crop at 150 dpi (30,000 × 30,000 px: ``Overly large image``)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=size_pt, height=size_pt)
    page.insert_text((72, 80), "1. Bang lieu trai ca trang", fontsize=13)
    page.insert_text((72, 110), "Bang sau chiem tron mot trang rat lon.", fontsize=11)
    x0, y0 = 72, 140
    row_h, col_w = (size_pt - 300) / rows, (size_pt - 144) / 3
    for r in range(rows):
        for c in range(3):
            page.insert_text((x0 + c * col_w + 4, y0 + r * row_h + 16), f"o {r}-{c}", fontsize=10)
    for r in range(rows + 1):
        page.draw_line((x0, y0 + r * row_h), (x0 + 3 * col_w, y0 + r * row_h), width=0.8)
    for c in range(4):
        page.draw_line((x0 + c * col_w, y0), (x0 + c * col_w, y0 + rows * row_h), width=0.8)
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))
    return path


def make_pdf_with_attachments(path: Path) -> Path:
    """A text PDF carrying an embedded workbook and a file-attachment note:
    the attachments are not read, and a warning says so."""
    import pymupdf

    make_text_pdf(path, [["Hướng dẫn kèm tệp đính kèm", "Bảng giá chi tiết nằm trong tệp đính kèm."]])
    doc = pymupdf.open(path)
    doc.embfile_add("bang_gia.xlsx", b"PK\x03\x04 not a real workbook", filename="bang_gia.xlsx")
    doc[0].add_file_annot((400, 100), b"ghi chu", "ghi_chu.txt")
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    data = doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    doc.close()
    path.write_bytes(data)
    return path


def make_truncated_pdf(path: Path, keep: float = 0.6) -> Path:
    """A 4-page text PDF cut after ``keep`` of its bytes (an interrupted
    download): MuPDF "repairs" it and finds 4 pages with no text at all."""
    full = make_text_pdf(path, [[f"Trang {p}, dòng {i}: liều dùng cho người lớn" for i in range(30)] for p in range(1, 5)])
    data = full.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def make_garbage_pdf(path: Path) -> Path:
    """A PDF header followed by noise: no object MuPDF can find."""
    noise = random.Random(7).randbytes(4096)
    path.write_bytes(b"%PDF-1.7\n" + noise)
    return path


def make_encrypted_pdf(path: Path, user_pw: str, owner_pw: str = "owner") -> Path:
    """AES-256; ``user_pw=""`` is an owner-password-only file, which opens
    without a password (permissions only) and must parse."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 72), "Confidential dosing protocol: amikacin 15 mg/kg once daily.", fontsize=11)
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    data = doc.tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw=user_pw,
        owner_pw=owner_pw,
        permissions=pymupdf.PDF_PERM_PRINT,
        no_new_id=True,
    )
    path.write_bytes(data)
    return path


def make_zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to write
    one, so the bytes are assembled here with a correct xref)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n" % (len(objects) + 1) + b"0000000000 65535 f \n"
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def make_long_pdf(path: Path, pages: int = 12) -> Path:
    """Enough pages that no parse can finish within a millisecond."""
    return make_text_pdf(path, [[f"Trang {p}: chỉ định, chống chỉ định, liều lượng và cách dùng."] * 20 for p in range(pages)])


# --------------------------------------------------------------------------
# OOXML packages


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


# --------------------------------------------------------------------------
# CSV and other bytes


def make_huge_field_csv(path: Path, field_mib: int = 100) -> Path:
    """A CSV whose second record holds one quoted field of ``field_mib`` MiB
    (the limit, max_csv_field_bytes, is 16 MiB)."""
    with path.open("wb") as fh:
        fh.write(b"id,ghi_chu\n1,ok\n2,\"")
        chunk = b"x" * MiB
        for _ in range(field_mib):
            fh.write(chunk)
        fh.write(b"\"\n3,ok\n")
    return path


def make_utf16_csv(path: Path) -> Path:
    """What Excel's "Unicode text" export writes: UTF-16LE with a BOM."""
    path.write_bytes("\ufeffنام\tمبلغ\nدارو\t۱۲۰۰\n".encode("utf-16-le"))
    return path


def make_empty_workbook(path: Path) -> Path:
    """An .xlsx whose two sheets have no cell with a value (a formatted blank cell only)."""
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.active["B2"].number_format = "0.00"  # styled, never filled
    workbook.create_sheet("Trống")
    workbook.save(str(path))
    return path


def make_png_named(path: Path) -> Path:
    """A PNG image under a document's name (wrong extension, wrong content)."""
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 20, 20), False)
    pix.set_rect(pix.irect, (255, 0, 0))
    path.write_bytes(pix.tobytes("png"))
    return path


def make_empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def copy_from(source: Path):
    def make(path: Path) -> Path:
        path.write_bytes(source.read_bytes())
        return path

    return make


def non_utf8_name_supported(folder: Path) -> bool:
    """Whether this filesystem stores a name that is not valid UTF-8."""
    probe = os.fsencode(str(folder)) + b"/probe-\xff"
    try:
        with open(probe, "wb"):
            pass
        os.unlink(probe)
        return True
    except OSError:
        return False


def make_one_line_csv(path: Path, megabytes: float = 0.3) -> Path:
    """One line of ``thuocNNNNN,`` cells, ``megabytes`` long (the issue's
    47 MB line, scaled: bench/bounded_work.py measures the real size)."""
    cells = int(megabytes * 1_000_000 / 11)
    return write_bytes(path, "".join(f"thuoc{i:05d}," for i in range(cells)).encode())


def make_many_rows_csv(path: Path, rows: int = 150_000) -> Path:
    """A CSV of ``rows`` distinct rows (7.4 MB at the default): parsing it
    really allocates a few hundred MB."""
    body = "".join(f"T{i},Thuốc số {i} dùng đường uống\n" for i in range(rows))
    return write_bytes(path, ("Mã,Tên\n" + body).encode("utf-8"))
