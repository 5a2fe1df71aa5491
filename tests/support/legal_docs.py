"""Vietnamese legal documents built for tests (issue 40): a decree with its
national header and number line, a court precedent, all in Word's Normal
style (nothing declared a heading), or as a born-digital PDF."""

from __future__ import annotations

import io
from pathlib import Path

from tests.support.docgen import make_text_pdf

DECREE_HEAD = [
    "CHÍNH PHỦ",
    "________",
    "Số: 21/2021/NĐ-CP",
    "CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM",
    "Độc lập - Tự do - Hạnh phúc",
    "Hà Nội, ngày 19 tháng 3 năm 2021",
    "NGHỊ ĐỊNH",
    "Quy định thi hành Bộ luật Dân sự về bảo đảm thực hiện nghĩa vụ",
    "Căn cứ Luật Tổ chức Chính phủ ngày 19 tháng 6 năm 2015;",
    "Căn cứ Bộ luật Dân sự ngày 24 tháng 11 năm 2015;",
]
DECREE_BODY = [
    "Chương I",
    "NHỮNG QUY ĐỊNH CHUNG",
    "Điều 1. Phạm vi điều chỉnh",
    "Nghị định này quy định về bảo đảm thực hiện nghĩa vụ.",
    "Điều 2. Đối tượng áp dụng",
    "1. Bên bảo đảm, bên nhận bảo đảm.",
    "2. Cơ quan, tổ chức, cá nhân khác có liên quan.",
    "Điều 3. Hiệu lực đối kháng với người thứ ba",
    "Biện pháp bảo đảm phát sinh hiệu lực đối kháng với người thứ ba từ khi đăng ký.",
]
DECREE = DECREE_HEAD + DECREE_BODY

PRECEDENT = [
    "ÁN LỆ SỐ 43/2021/AL",
    "Về hiệu lực của hợp đồng thế chấp",
    "Được Hội đồng Thẩm phán Tòa án nhân dân tối cao thông qua ngày 24 tháng 02 năm 2021.",
    "Nguồn án lệ:",
    "Quyết định giám đốc thẩm số 01/2019/KDTM-GĐT ngày 11/01/2019.",
    "Khái quát nội dung án lệ:",
    "- Tình huống án lệ:",
    "Bên mua thế chấp nhà đất cho Ngân hàng.",
    "- Giải pháp pháp lý:",
    "Hợp đồng thế chấp có hiệu lực pháp luật.",
    "NỘI DUNG VỤ ÁN:",
    "Ngày 10/01/2012, Ngân hàng A và bà L ký hợp đồng tín dụng.",
    "NHẬN ĐỊNH CỦA TÒA ÁN:",
    "[2] Xét thấy hợp đồng thế chấp đã được đăng ký theo quy định.",
    "QUYẾT ĐỊNH:",
    "Hủy bản án phúc thẩm.",
]


def plain_docx(paragraphs: list[str], title: str = "") -> bytes:
    """A DOCX of Normal paragraphs (no heading styles); ``title`` its core
    title property."""
    from docx import Document

    doc = Document()
    for text in paragraphs:
        doc.add_paragraph(text)
    doc.core_properties.title = title
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def legal_pdf(path: Path, lines: list[str]) -> Path:
    """A born-digital one-page PDF of ``lines``."""
    return make_text_pdf(path, [lines])
