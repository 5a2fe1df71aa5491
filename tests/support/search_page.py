"""A small warehouse for the search page's tests, as the pipeline leaves it:
a two-page formulary PDF stored in ``sources/``, its ``raw_documents`` row, a
renal-dose table drawn on its second page and cropped to a real PNG (with
its ``crops`` row), chunks pointing at it (a quarantined dosing chunk, the
table's descriptor, an attachment whose crop is missing), an article of a
law, and a Persian memo; embedded with the real model and indexed."""

from __future__ import annotations

import hashlib
from pathlib import Path

from duocthu_assets.model import SCHEMA_VERSION, DocumentIdentity
from duocthu_assets.retrieval import refresh_search_index
from duocthu_assets.schemas import table_from_rows
from duocthu_assets.settings import Settings
from duocthu_assets.warehouse import Warehouse
from tests.support.docgen import FONT
from tests.support.search_samples import DOSING_TEXT, attachment, chunk, store_chunks

FORMULARY_DOC = "duoc_thu_quoc_gia.pdf"
TABLE_RECT = (60.0, 200.0, 535.0, 400.0)
TABLE = [
    ("Clcr (ml/phút)", "Liều ampicilin + sulbactam", "Khoảng cách"),
    ("≥ 30", "1,5 – 3 g", "mỗi 6 – 8 giờ"),
    ("15 – 29", "1,5 – 3 g", "mỗi 12 giờ"),
    ("5 – 14", "1,5 – 3 g", "mỗi 24 giờ"),
]
MISSING_CROP = "crops/duocthu-mini/b0002.png"
LAW_TEXT = (
    "Điều 319. Hình thức cầm giữ tài sản. Bên cầm giữ có quyền cầm giữ tài sản trong thời hạn 30 ngày "
    "kể từ ngày nghĩa vụ đến hạn mà không được thực hiện."
)


def _font_kwargs() -> dict:
    return {"fontname": "dejavu", "fontfile": FONT} if Path(FONT).exists() else {}


def formulary_pdf() -> bytes:
    """Two pages (printed 203 and 204); the second holds the dose table."""
    import pymupdf

    doc = pymupdf.open()
    first = doc.new_page(width=595, height=842)
    first.insert_text((60, 80), "AMPICILIN VÀ SULBACTAM", fontsize=14, **_font_kwargs())
    first.insert_text((60, 110), "Chỉ định: nhiễm khuẩn da, ổ bụng và phụ khoa.", fontsize=11, **_font_kwargs())
    first.insert_text((290, 810), "203", fontsize=10, **_font_kwargs())
    page = doc.new_page(width=595, height=842)
    page.insert_text((60, 80), "Liều lượng và cách dùng", fontsize=13, **_font_kwargs())
    for i, line in enumerate(DOSING_TEXT.split(". ")):
        page.insert_text((60, 110 + 16 * i), line.strip(), fontsize=10, **_font_kwargs())
    x0, y0, _, y1 = TABLE_RECT
    widths = (150.0, 185.0, 140.0)
    row_h = (y1 - y0) / len(TABLE)
    for r, row in enumerate(TABLE):
        x = x0
        for c, cell in enumerate(row):
            page.draw_rect(pymupdf.Rect(x, y0 + r * row_h, x + widths[c], y0 + (r + 1) * row_h), color=(0, 0, 0), width=0.8)
            page.insert_text((x + 6, y0 + r * row_h + row_h / 2 + 4), cell, fontsize=11 if r else 10, **_font_kwargs())
            x += widths[c]
    page.insert_text((290, 810), "204", fontsize=10, **_font_kwargs())
    doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu tests"})
    return doc.tobytes(garbage=4, deflate=True, no_new_id=True)


LAW_IDENTITY = DocumentIdentity(
    title="Bộ luật Dân sự", number="91/2015/QH13", kind="bộ luật", issuer="QUỐC HỘI",
    aliases=("Bộ luật Dân sự 2015", "BLDS", "BLDS 2015"), evidence=("BỘ LUẬT DÂN SỰ", "Luật số: 91/2015/QH13"),
)


def raw_row(wh: Warehouse, doc_id: str, source_name: str, data: bytes, fmt: str, pages: int,
            identity: DocumentIdentity = DocumentIdentity()) -> dict:
    sha = hashlib.sha256(data).hexdigest()
    return {
        "doc_id": doc_id, "source_name": source_name, "collection": "tests", "profile": "formulary", "normalization": "nfc",
        "sha256": sha, "size_bytes": len(data), "format": fmt, "page_count": pages, "status": "accepted", "reason": "",
        "stored_path": wh.keep_source(sha, data), "settings": Settings().as_record(), "schema_version": SCHEMA_VERSION,
        "identity": identity.as_record(), "profile_evidence": [],
    }


def page_warehouse(root, embedder) -> Warehouse:
    """The warehouse of the module docstring."""
    import pymupdf

    wh = Warehouse(root)
    pdf = formulary_pdf()
    wh.write_table("raw_documents", table_from_rows("raw_documents", [raw_row(wh, "duocthu-mini", FORMULARY_DOC, pdf, "pdf", 2)]), "duocthu-mini")
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        pix = doc[1].get_pixmap(dpi=200, clip=pymupdf.Rect(*TABLE_RECT) + (-4, -4, 4, 4), alpha=False)
        png = pix.tobytes("png")
    crop = wh.path("crops", "duocthu-mini", "b0001.png")
    crop.parent.mkdir(parents=True, exist_ok=True)
    crop.write_bytes(png)
    crop_row = {
        "doc_id": "duocthu-mini", "block_id": "b0001", "path": "crops/duocthu-mini/b0001.png", "sha256": hashlib.sha256(png).hexdigest(),
        "width_px": pix.width, "height_px": pix.height, "dpi": 200, "page_no": 2, "printed_page": 204, "printed_label": "204",
        "schema_version": SCHEMA_VERSION,
    }
    wh.write_table("crops", table_from_rows("crops", [crop_row]), "duocthu-mini")
    table = attachment(printed=204, physical=2)
    formula = attachment("b0002", kind="formula", printed=204, physical=2, crop=MISSING_CROP)
    formulary = [
        chunk("duocthu-mini", 0, "Chỉ định: nhiễm khuẩn da, ổ bụng và phụ khoa do vi khuẩn sinh beta-lactamase.",
              section="Chỉ định", section_key="chi_dinh", printed=203, physical=1),
        chunk("duocthu-mini", 1, DOSING_TEXT, printed=204, physical=2, attachments=[table, formula]),
        chunk("duocthu-mini", 2, "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204.", kind="block_descriptor",
              printed=204, physical=2, attachments=[attachment(printed=204, physical=2, header_row=("Clcr (ml/phút)", "Liều"))]),
    ]
    law = [
        chunk("bo-luat-dan-su-2015", 0, LAW_TEXT, entry="BỘ LUẬT DÂN SỰ", section="Điều 319. Hình thức cầm giữ tài sản",
              section_key="dieu_319", printed=None, physical=None)
        | {"headings": ["BỘ LUẬT DÂN SỰ", "Chương XV. NGHĨA VỤ", "Điều 319. Hình thức cầm giữ tài sản"]},
    ]
    persian = [
        chunk("persian-memo", 0, "قرارداد اجاره برای مدت یک سال از تاریخ امضا معتبر است و مبلغ اجاره ۵۰ میلیون ریال است.",
              entry="قرارداد اجاره", section="مدت قرارداد", section_key="modat", printed=None, physical=None),
    ]
    for doc_id, name in (("bo-luat-dan-su-2015", "Bộ luật Dân sự 2015 (91-2015-QH13).docx"), ("persian-memo", "قرارداد اجاره.docx")):
        named = LAW_IDENTITY if doc_id == "bo-luat-dan-su-2015" else DocumentIdentity()
        row = raw_row(wh, doc_id, name, f"{doc_id} stands in for a DOCX".encode(), "docx", 0, named)
        wh.write_table("raw_documents", table_from_rows("raw_documents", [row]), doc_id)
    store_chunks(wh, "duocthu-mini", formulary, embedder)
    store_chunks(wh, "bo-luat-dan-su-2015", law, embedder)
    store_chunks(wh, "persian-memo", persian, embedder)
    refresh_search_index(wh, ["bo-luat-dan-su-2015", "duocthu-mini", "persian-memo"], model_id=embedder.model_id)
    return wh
