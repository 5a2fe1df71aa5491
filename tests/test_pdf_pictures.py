"""Pictures on a page of text (parse/pdf_pictures.py): a screenshot of a
dosing table, a chart, a photograph — content no text extractor reads —
are lifted as blocks of kind ``picture``: the prose chunk they sit in
carries the attachment and their crop, a descriptor names them. Before,
they were in no chunk and nothing said a picture had been there."""

from __future__ import annotations

import os

import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf_engine import pymupdf
from duocthu_assets.parse.pdf_pictures import picture_regions, reading_position
from duocthu_assets.settings import Settings

from .conftest import corpus_path, ingest_inbox

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
PROSE = "Liều dùng ở người suy thận: giảm liều theo độ thanh thải creatinin của bệnh nhân."
TABLE_ROWS = ["Clcr (ml/phút)   Liều   Khoảng cách", "> 50   0,75 g mỗi lần   48 giờ", "30 – 50   0,375 g mỗi lần   12 giờ"]


def _font() -> dict:
    if not os.path.isfile(DEJAVU):
        pytest.skip("DejaVu Sans not installed")
    return {"fontname": "dejavu", "fontfile": DEJAVU, "fontsize": 11}


def screenshot_of_a_table() -> bytes:
    """A PNG of a dosing table, as a screenshot pasted into a document: the
    table drawn as text on a page of its own, rendered to pixels."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=80)
    for k, row in enumerate(TABLE_ROWS):
        page.insert_text((8, 20 + 20 * k), row, **_font())
        page.draw_line((4, 26 + 20 * k), (296, 26 + 20 * k), color=(0, 0, 0), width=0.5)
    return page.get_pixmap(dpi=150).tobytes("png")


def page_with_picture(box=(72, 200, 402, 290), text_over: str = "", lines_after: int = 3) -> bytes:
    font = _font()
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(3):
        page.insert_text((72, 100 + 16 * k), PROSE, **font)
    page.insert_image(pymupdf.Rect(box), stream=screenshot_of_a_table(), keep_proportion=False)
    if text_over:
        assert page.insert_textbox(pymupdf.Rect(box), text_over, **font) >= 0
    for k in range(lines_after):
        page.insert_text((72, box[3] + 30 + 16 * k), "Sau khi lọc máu: " + PROSE, **font)
    return doc.tobytes()


def _pictures(data: bytes):
    parsed = parse_document(data, Format.PDF, Settings())
    return parsed, [b for b in parsed.blocks if b.kind is BlockKind.PICTURE]


def test_a_screenshot_of_a_dosing_table_is_a_picture_block_where_it_is_read():
    parsed, pictures = _pictures(page_with_picture())
    assert len(pictures) == 1
    picture = pictures[0]
    assert picture.block_id == "p0001-i1" and str(picture.shape) == "picture"
    assert picture.text == ""  # it lifts no words: what the page's text layer holds stays in the prose
    assert picture.bbox == (72.0, 200.0, 402.0, 290.0)  # 6 % of the page
    anchor = next(s for s in parsed.segments if s.segment_id == picture.anchor_segment_id)
    assert PROSE in anchor.text and "Sau khi" not in anchor.text  # after the prose above it, before the prose under it
    assert sum("Sau khi lọc máu" in s.text for s in parsed.segments) >= 1


def test_small_images_backgrounds_and_whole_page_images_are_no_pictures():
    # a logo: under 5 % of the page
    assert _pictures(page_with_picture(box=(72, 200, 172, 230)))[1] == []
    # a shaded panel under a paragraph of text: the text is read on it
    assert _pictures(page_with_picture(text_over=" ".join([PROSE] * 2)))[1] == []
    # a picture with a short caption set over it is still one
    assert len(_pictures(page_with_picture(text_over="Bảng 1"))[1]) == 1


def test_pieces_of_one_picture_are_one():
    font = _font()
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), PROSE, **font)
    png = screenshot_of_a_table()
    for k in range(3):  # a diagram drawn in three strips, each under 5 % of the page
        page.insert_image(pymupdf.Rect(72, 200 + 40 * k, 372, 240 + 40 * k), stream=png, keep_proportion=False)
    data = doc.tobytes()
    with pymupdf.open(stream=data) as d:
        assert picture_regions(d[0], []) == [(72.0, 200.0, 372.0, 320.0)]


def test_reading_position():
    class Item:
        def __init__(self, bbox):
            self.bbox = bbox

    # two columns: left 50-290, right 310-550; a picture at the top of the right column
    items = [Item((50, 100, 290, 300)), Item((50, 320, 290, 700)), Item((310, 400, 550, 700))]
    assert reading_position(items, (310, 100, 550, 380)) == 2  # after the left column, before the right's text
    assert reading_position(items, (50, 705, 290, 760)) == 2  # under the left column's last paragraph
    assert reading_position(items, (310, 710, 550, 760)) == 3  # at the end of the right column


def test_ingest_attaches_the_picture_to_its_prose_chunk_with_a_crop(tmp_path, capsys):
    """Through ``duocthu ingest``: ok; the prose chunk before the picture
    carries it (``has_quarantined_content``) and its crop, rendered; the
    descriptor names it; ``duocthu search`` answers from that chunk with
    the picture named and its numbers withheld."""
    import json

    import duckdb

    from duocthu_assets.cli import main

    docs = ingest_inbox(tmp_path, {"lieu.pdf": page_with_picture()})["docs"]
    assert docs["lieu.pdf"]["status"] == "ok", docs
    rows = duckdb.sql(
        f"SELECT chunk_kind, text, has_quarantined_content, attachments FROM '{tmp_path / 'wh' / 'chunks'}/*.parquet'"
    ).fetchall()
    hosts = [r for r in rows if r[0] == "prose" and r[2]]
    assert len(hosts) == 1 and PROSE in hosts[0][1]
    (attachment,) = hosts[0][3]
    assert attachment["kind"] == "picture" and attachment["block_id"] == "p0001-i1"
    crop = tmp_path / "wh" / attachment["source_crop"]
    assert crop.is_file() and crop.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    descriptors = [r[1] for r in rows if r[0] == "block_descriptor"]
    assert descriptors == ["Picture, page 1 of the file."]
    capsys.readouterr()
    assert main(["search", "giảm liều theo độ thanh thải creatinin", "--warehouse", str(tmp_path / "wh"), "--json", "--mode", "lexical"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    answer = next(h for h in hits if h["chunk_kind"] == "prose" and PROSE in (h["text"] or "") and h["crops"])
    assert answer["complete"] is False and answer["crops"][0]["kind"] == "picture"
    assert any(n.startswith("A picture exists at page 1") for n in answer["notices"]), answer["notices"]


def test_corpus_screenshots_and_charts_are_pictures():
    """redp5110's screenshots (a schema list, the index advisor's table:
    pp. 14-15) and papermage's figures (a chart of percentages, p. 5) are
    pictures; its portraits (p. 4, under 5 % each) and the page-size
    background behind p. 18's text are not."""
    redp = corpus_path("docling__redp5110_sampled.pdf")
    paper = corpus_path("papermage__2020.acl-main.447.pdf")
    _, pictures = _pictures(redp.read_bytes())
    pages = [b.page_no for b in pictures]
    assert pages.count(14) == 2 and pages.count(15) == 2
    assert 4 not in pages and 18 not in pages
    _, pictures = _pictures(paper.read_bytes())
    assert [b.page_no for b in pictures] == [1, 5, 7, 14]
