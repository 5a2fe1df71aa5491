"""The PDF parser on real documents from ../shared/corpus (skipped when absent).

Tables are found where they are (ICDAR 2013 region ground truth: recall and
precision at IoU 0.5), not found in prose; continued tables are linked; pages
without a text layer are reported; encrypted files are refused unless the
empty password opens them; printed page numbers come from the furniture.
"""

from __future__ import annotations

import unicodedata
import xml.etree.ElementTree as ET
from functools import lru_cache

import pytest

from duocthu_assets.model import BlockKind, BlockShape, Format
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.geometry import iou
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings

from tests.support.paths import CORPUS, corpus_path

pytestmark = pytest.mark.corpus


@lru_cache(maxsize=None)
def parsed(name: str):
    return parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


def tables(name: str):
    return [b for b in parsed(name).blocks if b.kind is BlockKind.TABLE]


def icdar_regions(name: str) -> list[tuple[int, tuple[float, float, float, float]]]:
    """Ground-truth table regions, converted from the ICDAR bottom-left origin
    to the project's top-left origin."""
    path = CORPUS / "groundtruth" / f"{name}.reg.xml"
    if not path.is_file():
        pytest.skip(f"ground truth {path.name} absent")
    doc = pymupdf.open(corpus_path(name))
    regions = []
    for region in ET.parse(path).getroot().iter("region"):
        page = int(region.get("page"))
        box = region.find("bounding-box")
        height = doc[page - 1].rect.height
        x1, y1, x2, y2 = (float(box.get(k)) for k in ("x1", "y1", "x2", "y2"))
        regions.append((page, (x1, height - y2, x2, height - y1)))
    return regions


ICDAR = ["camelot__icdar2013-eu-004.pdf", "camelot__icdar2013-us-012.pdf"]


def test_icdar_table_regions_recall_and_precision():
    found = expected = matched_total = 0
    for name in ICDAR:
        gold = icdar_regions(name)
        predicted = [(b.page_no, b.bbox) for b in tables(name)]
        used: set[int] = set()
        for page, box in gold:
            best = max(
                ((iou(box, p), i) for i, (pg, p) in enumerate(predicted) if pg == page and i not in used),
                default=(0.0, -1),
            )
            if best[0] >= 0.5:
                used.add(best[1])
        matched_total += len(used)
        expected += len(gold)
        found += len(predicted)
    recall = matched_total / expected
    precision = matched_total / found
    assert recall >= 0.95, f"recall {recall:.2f}"
    assert precision >= 0.95, f"precision {precision:.2f}"


TABLE_PAGES = {
    "camelot__column_span_1.pdf": [1],
    "camelot__budget.pdf": [1],
    "pdfplumber__nics-background-checks-2015-11.pdf": [1],
    "docling__2305.03393v1-pg9.pdf": [1],
    "pdfplumber__issue-336-chinese-tables.pdf": [1],
    "pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf": list(range(1, 17)),
}


@pytest.mark.parametrize("name", sorted(TABLE_PAGES))
def test_a_table_is_found_on_each_table_page(name):
    pages = {b.page_no for b in tables(name)}
    missing = [p for p in TABLE_PAGES[name] if p not in pages]
    assert not missing, f"no table found on pages {missing}"


def test_chinese_standard_page_has_its_three_ruled_tables_with_merged_headers():
    found = sorted(tables("pdfplumber__issue-336-chinese-tables.pdf"), key=lambda b: b.bbox[1])
    assert len(found) == 3
    assert found[0].shape is BlockShape.MULTI_LEVEL_OR_MERGED_HEADER
    assert found[1].shape is BlockShape.MULTI_LEVEL_OR_MERGED_HEADER


def test_booktabs_table_with_two_level_header():
    (table,) = tables("docling__2305.03393v1-pg9.pdf")
    assert table.shape is BlockShape.MULTI_LEVEL_OR_MERGED_HEADER
    segments = parsed("docling__2305.03393v1-pg9.pdf").segments
    # the caption and the prose around the table stay prose; the cells do not
    assert any(s.text.startswith("Table 1. HPO performed") for s in segments)
    assert not any("0.965" in s.text or "enc-layers" in s.text for s in segments)


def test_table_continued_over_sixteen_pages_is_one_chain():
    found = sorted(tables("pdfplumber__WARN-Report-for-7-1-2015-to-03-25-2016.pdf"), key=lambda b: (b.page_no, b.bbox[1]))
    by_id = {b.block_id: b for b in found}
    chained = [b for b in found if b.continues]
    assert len(chained) >= 15
    for b in chained:
        previous = by_id[b.continues]
        assert previous.page_no in (b.page_no - 1, b.page_no)
        assert b.shape is BlockShape.CROSS_PAGE_CONTINUATION and previous.shape is BlockShape.CROSS_PAGE_CONTINUATION
    # page 15 ends the listing and starts the summary table, continued on page 16
    page15 = [b for b in found if b.page_no == 15]
    page16 = [b for b in found if b.page_no == 16]
    assert len(page15) == 2 and len(page16) == 1
    assert page16[0].continues == page15[1].block_id


def test_frame_around_table_title_and_notes_keeps_them_as_prose():
    (table,) = tables("camelot__icdar2013-us-012.pdf")
    texts = " ".join(s.text for s in parsed("camelot__icdar2013-us-012.pdf").segments)
    assert "Exhibit B.4" in texts and "means not available" in texts
    assert "Respondent unsure" not in texts


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("camelot__medicine.pdf", "List of Medicines approved by Purchase Committee"),
        ("camelot__column_span_1.pdf", "Rate of Accidental Deaths & Suicides and Population Growth During 1967 to 2013"),
    ],
)
def test_a_spanning_title_row_inside_the_grid_stays_in_the_table(name, title):
    """One line above the columns inside the table's frame is its title row:
    in the block (first row) and its crop, not cut off and made a heading."""
    (table,) = tables(name)
    assert table.text.split("\n")[0] == title
    assert not any(title in s.text for s in parsed(name).segments)


@pytest.mark.parametrize(
    "name",
    ["vn__an_le_so_43-2021-AL.pdf", "docling__code_and_formula.pdf", "docling__right_to_left_01_arabic.pdf"],
)
def test_no_table_in_prose(name):
    assert tables(name) == []


def test_plots_are_not_tables_but_the_real_table_is_found():
    name = "pdfminer__issue-1061-ieee-differential-privacy.pdf"
    pages = {b.page_no for b in tables(name)}
    assert 9 in pages  # TABLE I
    assert 10 not in pages  # a page of line charts whose tick labels line up


def test_vietnamese_prose_is_nfc_with_headings_and_footnotes_kept():
    doc = parsed("vn__an_le_so_43-2021-AL.pdf")
    for s in doc.segments:
        assert unicodedata.is_normalized("NFC", s.text)
    texts = [s.text for s in doc.segments]
    assert any("Án lệ này do Vụ Pháp chế" in t for t in texts), "a footnote is content, not furniture"
    assert any(s.kind.value == "heading" and s.text.startswith("ÁN LỆ SỐ 43/2021/AL") for s in doc.segments)
    assert [s.printed_page for s in doc.segments if s.page_no == 2][0] == 2
    assert not any(t.strip().isdigit() for t in texts), "page numbers stay out of prose"


@pytest.mark.parametrize(
    "name, page, printed",
    [
        ("camelot__icdar2013-us-012.pdf", 1, 200),
        ("docling__2305.03393v1-pg9.pdf", 1, 9),
        ("camelot__icdar2013-eu-004.pdf", 2, 41),
        ("pdfplumber__nics-background-checks-2015-11.pdf", 1, 1),
    ],
)
def test_printed_page_read_from_furniture(name, page, printed):
    doc = parsed(name)
    values = {s.printed_page for s in doc.segments if s.page_no == page} | {b.printed_page for b in doc.blocks if b.page_no == page}
    assert values == {printed}


def test_running_header_not_in_prose():
    for s in parsed("docling__2305.03393v1-pg9.pdf").segments:
        assert not s.text.startswith("Optimized Table Tokenization")


@pytest.mark.parametrize("name", ["docling__ocr_test_scanned.pdf", "camelot__image_scanned_report.pdf"])
def test_scanned_pages_need_ocr_and_nothing_is_made_up(name):
    """OCR off: the scan is named and nothing is made up (OCR on: tests/e2e/test_ocr_ingest.py)."""
    doc = parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings(pdf=PdfSettings(ocr=False)))
    assert doc.pages_needing_ocr == [1]
    assert doc.segments == [] and doc.blocks == []


@pytest.mark.parametrize("name", ["pdfplumber__password-example.pdf", "docling__2206.01062_pg3_password.pdf"])
def test_password_protected_pdf_is_rejected_with_advice(name):
    with pytest.raises(DocumentRejected, match="password"):
        parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


def test_owner_password_only_pdf_is_parsed():
    doc = parsed("pypdf__r4-owner-password.pdf")
    assert doc.segments and doc.pages_needing_ocr == []


def test_empty_file_fails_clearly():
    with pytest.raises(ParseFailed, match="empty"):
        parse_document(corpus_path("pdfplumber__empty.pdf").read_bytes(), Format.PDF, Settings())


def test_checksum_damaged_stream_is_recovered_with_a_warning():
    doc = parsed("pdfminer__zen_of_python_corrupted.pdf")
    text = " ".join(s.text for s in doc.segments)
    assert "Beautiful is better than ugly." in text and "Namespaces are one honking great idea" in text
    assert any("damaged stream" in w for w in doc.warnings)


def test_trailing_garbage_after_eof_is_tolerated():
    assert parsed("pypdf__selenium-issue-177-trailing-nul-padding.pdf").segments


def test_block_text_never_in_segments_across_corpus():
    for name in ["camelot__icdar2013-eu-004.pdf", "pdfplumber__issue-336-chinese-tables.pdf", "camelot__budget.pdf"]:
        doc = parsed(name)
        prose = "\n".join(s.text for s in doc.segments)
        for b in doc.blocks:
            rows = [r for r in b.text.split("\n") if len(r) >= 12]
            leaked = [r for r in rows if r in prose]
            assert not leaked, (name, b.block_id, leaked[:2])


def test_right_to_left_text_reads_right_to_left():
    doc = parsed("docling__right_to_left_01_arabic.pdf")
    assert doc.segments[0].text.startswith("تحسين")  # the rightmost word opens the line
    assert doc.segments[1].text.startswith("تعتبر البرمجة بلغة R و Python")


def test_ruled_form_tables_found_inside_a_page_frame_but_not_the_letterhead():
    found = sorted(tables("docling__right_to_left_03_persian_form.pdf"), key=lambda b: b.bbox[1])
    assert len(found) == 2
    assert all(b.bbox[1] > 150 for b in found)  # not the logo and title box at the top
    texts = " ".join(s.text for s in parsed("docling__right_to_left_03_persian_form.pdf").segments)
    assert "شرکت بورس" in texts  # the letterhead stays prose


def test_a_table_set_sideways_beside_upright_prose_is_found():
    """doclingparse__case_03_rotated_split_table.pdf p. 2: the rest of a
    table set sideways in the left part of the page, upright prose on the
    right. The sideways region is read in its own frame: its rows are one
    table block (box turned back to the page), its note stays prose, the
    upright prose is untouched and every character is accounted for."""
    name = "doclingparse__case_03_rotated_split_table.pdf"
    doc = parsed(name)
    (table,) = [b for b in doc.blocks if b.page_no == 2 and b.kind is BlockKind.TABLE]
    assert table.text.startswith("Facies 6 Skeletal | Clean, medium to | Continuous")
    assert "Facies 7" in table.text and "bivalve shells" in table.text
    x0, y0, x1, y1 = table.bbox
    assert x1 < 200 and y1 - y0 > 600  # the left strip of the upright page, tall as the table is wide
    prose = [s.text for s in doc.segments if s.page_no == 2]
    assert not any("Clean, medium to" in t or "Facies 6" in t for t in prose)
    assert "*Bi = bioturbation index (Reineck, 1967)." in prose
    assert any(t.startswith("dolomarlstones (facies 1)") for t in prose)
    assert all(a.accounted for a in doc.page_accounts)
