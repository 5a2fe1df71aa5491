"""The head of a document read before it is parsed (issue 40)."""

from __future__ import annotations

from duocthu_assets.model import Format
from duocthu_assets.parse.preview import PREVIEW_PAGES, read_preview
from duocthu_assets.settings import Settings
from tests.support.docgen import make_text_pdf
from tests.support.legal_docs import DECREE, plain_docx


def test_docx_paragraphs_in_order_with_line_breaks_and_the_title_property():
    import io

    from docx import Document

    doc = Document()
    doc.add_paragraph("CHÍNH PHỦ")
    run = doc.add_paragraph("NGHỊ ĐỊNH").runs[0]
    run.add_break()
    run.add_text("Về họ")
    table = doc.add_table(rows=1, cols=1)
    table.cell(0, 0).text = "Số: 19/2019/NĐ-CP"
    doc.core_properties.title = "Nghị định về họ"
    out = io.BytesIO()
    doc.save(out)
    preview = read_preview(out.getvalue(), Format.DOCX, Settings())
    assert preview.lines == ("CHÍNH PHỦ", "NGHỊ ĐỊNH\nVề họ", "Số: 19/2019/NĐ-CP")
    assert preview.properties == {"title": "Nghị định về họ"}


def test_pdf_first_pages_only(tmp_path):
    pages = [[f"Trang {n}"] for n in range(1, PREVIEW_PAGES + 3)]
    preview = read_preview(make_text_pdf(tmp_path / "a.pdf", pages).read_bytes(), Format.PDF, Settings())
    assert preview.lines == tuple(f"Trang {n}" for n in range(1, PREVIEW_PAGES + 1)) and preview.pages == PREVIEW_PAGES


def test_what_cannot_be_read_is_an_empty_preview():
    assert read_preview(b"%PDF-1.7 broken", Format.PDF, Settings()).lines == ()
    assert read_preview(b"PK\x03\x04 broken", Format.DOCX, Settings()).lines == ()
    assert read_preview(b"a,b\n1,2\n", Format.CSV, Settings()).lines == ()
    assert read_preview(plain_docx(DECREE), Format.DOCX, Settings()).lines[:3] == tuple(DECREE[:3])


def test_hostile_xml_is_never_expanded_nor_fetched(tmp_path):
    """The preview parses with no entity resolved and no DTD loaded: a
    billion laughs stays unexpanded, an external entity unread (the parser
    refuses both files later, with its reason)."""
    from tests.support.hostile_ooxml import (
        make_billion_laughs_docx,
        make_external_entity_docx,
    )

    laughs = read_preview(make_billion_laughs_docx(tmp_path / "l.docx").read_bytes(), Format.DOCX, Settings())
    assert sum(len(line) for line in laughs.lines) < 1000
    xxe = read_preview(make_external_entity_docx(tmp_path / "x.docx").read_bytes(), Format.DOCX, Settings())
    assert not any("root:" in line for line in xxe.lines)
