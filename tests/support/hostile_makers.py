"""Hostile inputs, generated at test time with the real libraries (PyMuPDF,
python-docx, openpyxl) and a little byte surgery. Nothing big is committed:
the 100 MB-field CSV is written here, in seconds (the OOXML packages, the
1.2 GiB zip bomb among them, in hostile_ooxml.py).

Each ``make_*`` writes one file at ``path`` and returns it.
"""

from __future__ import annotations

import datetime as _dt
import os
import random
from pathlib import Path

from tests.support.docgen import FONT, make_docx, make_text_pdf, make_xlsx

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


def make_many_rows_csv(path: Path, rows: int = 600_000) -> Path:
    """A CSV of ``rows`` distinct rows (30 MB at the default): parsing it
    really allocates about 1.1 GB, far past a 64 MiB budget even when the
    child inherited a few hundred MB of free address space from its parent
    (150,000 rows, ~270 MB, once parsed whole within the budget on CI)."""
    body = "".join(f"T{i},Thuốc số {i} dùng đường uống\n" for i in range(rows))
    return write_bytes(path, ("Mã,Tên\n" + body).encode("utf-8"))
