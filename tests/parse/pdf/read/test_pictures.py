"""Pictures on a page of text (parse/pdf/read/pictures.py): a screenshot of a
dosing table, a chart, a photograph — content no text extractor reads —
are lifted as blocks of kind ``picture``: the prose chunk they sit in
carries the attachment and their crop, a descriptor names them. Before,
they were in no chunk and nothing said a picture had been there."""

from __future__ import annotations

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.pictures import picture_regions, reading_position
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.pdf_pages import dejavu

PROSE = "Liều dùng ở người suy thận: giảm liều theo độ thanh thải creatinin của bệnh nhân."
TABLE_ROWS = ["Clcr (ml/phút)   Liều   Khoảng cách", "> 50   0,75 g mỗi lần   48 giờ", "30 – 50   0,375 g mỗi lần   12 giờ"]


def screenshot_of_a_table() -> bytes:
    """A PNG of a dosing table, as a screenshot pasted into a document: the
    table drawn as text on a page of its own, rendered to pixels."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=80)
    for k, row in enumerate(TABLE_ROWS):
        page.insert_text((8, 20 + 20 * k), row, **dejavu(11))
        page.draw_line((4, 26 + 20 * k), (296, 26 + 20 * k), color=(0, 0, 0), width=0.5)
    return page.get_pixmap(dpi=150).tobytes("png")


def page_with_picture(box=(72, 200, 402, 290), text_over: str = "", lines_after: int = 3) -> bytes:
    font = dejavu(11)
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
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), PROSE, **font)
    png = screenshot_of_a_table()
    for k in range(3):  # a diagram drawn in three strips, each under 5 % of the page
        page.insert_image(pymupdf.Rect(72, 200 + 40 * k, 372, 240 + 40 * k), stream=png, keep_proportion=False)
    data = doc.tobytes()
    with pymupdf.open(stream=data) as d:
        assert [p.bbox for p in picture_regions(d[0], [])] == [(72.0, 200.0, 372.0, 320.0)]


def test_an_image_drawn_on_every_page_is_decoration():
    """A letterhead banner drawn on each page (one image, drawn three
    times) is no picture; a chart on p. 2 is, and so is another chart set
    at the same place on p. 3 (an image of its own)."""
    font = dejavu(11)
    doc = pymupdf.open()
    banner = None
    for n in range(3):
        page = doc.new_page()
        box = pymupdf.Rect(36, 20, 576, 90)  # 8 % of the page
        banner = page.insert_image(box, stream=screenshot_of_a_table(), keep_proportion=False) if banner is None else page.insert_image(box, xref=banner, keep_proportion=False)
        for k in range(3):
            page.insert_text((72, 120 + 16 * k), PROSE, **font)
        if n:
            chart = pymupdf.open()
            chart.new_page(width=300, height=90).insert_text((10, 40 + 10 * n), f"chart {n}", fontsize=20)
            page.insert_image(pymupdf.Rect(72, 200, 402, 290), stream=chart[0].get_pixmap(dpi=150).tobytes("png"), keep_proportion=False)
    _, pictures = _pictures(doc.tobytes())
    assert [(b.page_no, b.bbox) for b in pictures] == [(2, (72.0, 200.0, 402.0, 290.0)), (3, (72.0, 200.0, 402.0, 290.0))]


def test_an_image_inside_a_lifted_table_is_no_block_of_its_own():
    """A picture in a ruled table's cell (a pill's photograph in a
    formulary's table) is shown by the table's crop: one block, the table."""
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), PROSE, **font)
    xs, ys = (72, 252, 540), (120, 140, 260, 280)
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y), color=(0, 0, 0))
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]), color=(0, 0, 0))
    for y, (a, b) in zip((134, 154, 274), (("Thuốc", "Hình viên"), ("Amoxicillin 500 mg", ""), ("Cefuroxim 250 mg", "không có"))):
        page.insert_text((76, y), a, **font)
        if b:
            page.insert_text((256, y), b, **font)
    page.insert_image(pymupdf.Rect(256, 142, 536, 258), stream=screenshot_of_a_table(), keep_proportion=False)  # 6.8 % of the page
    parsed, pictures = _pictures(doc.tobytes())
    assert pictures == [], pictures
    assert [str(b.kind) for b in parsed.blocks] == ["table"]


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


def page_with_drawn(draw) -> bytes:
    font = dejavu(11)
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(3):
        page.insert_text((72, 100 + 16 * k), PROSE, **font)
    draw(page, font)
    for k in range(3):
        page.insert_text((72, 420 + 16 * k), "Sau khi lọc máu: " + PROSE, **font)
    return doc.tobytes()


def plot(page, font):
    """A plot drawn in vector graphics: axes, a stroked curve, tick labels set as text."""
    small = dict(font, fontsize=7)
    page.draw_line((100, 360), (400, 360), color=(0, 0, 0))  # x axis
    page.draw_line((100, 360), (100, 180), color=(0, 0, 0))  # y axis
    points = [(100 + 10 * k, 360 - 170 * (1 - 0.9 ** k)) for k in range(31)]
    page.draw_polyline(points, color=(0, 0, 1), width=1)
    for k in range(6):
        page.insert_text((96 + 60 * k, 372), f"{10 * k}", **small)  # x ticks
        page.insert_text((80, 362 - 34 * k), f"{0.2 * k:.1f}", **small)  # y ticks


def framed_paragraph(page, font):
    """Running text in a frame with rounded corners: no figure."""
    page.draw_rect(pymupdf.Rect(66, 180, 520, 330), color=(0, 0, 0), radius=0.1)
    for k in range(8):
        page.insert_text((72, 200 + 16 * k), PROSE, **font)


def banner(page, font):
    """A filled shape with curves behind a title: no figure."""
    page.draw_rect(pymupdf.Rect(66, 180, 520, 330), color=None, fill=(0.2, 0.3, 0.6), radius=0.3)
    page.insert_text((90, 260), "Dược thư", **dict(font, fontsize=30), color=(1, 1, 1))


def test_a_drawn_plot_is_a_picture_holding_its_tick_labels():
    parsed, pictures = _pictures(page_with_drawn(plot))
    assert len(pictures) == 1
    (picture,) = pictures
    x0, y0, x1, y1 = picture.bbox
    assert x0 <= 80 and y0 <= 181 and x1 >= 400 and y1 >= 372  # axes, curve and every tick label
    assert "0.6" in picture.text and "50" in picture.text  # its labels are the figure's, not the prose's
    prose = " ".join(s.text for s in parsed.segments)
    assert "0.6" not in prose and PROSE in prose and "Sau khi lọc máu" in prose


def test_a_framed_paragraph_and_a_banner_are_no_figures():
    for draw in (framed_paragraph, banner):
        parsed, pictures = _pictures(page_with_drawn(draw))
        assert pictures == [], draw.__name__


def test_corpus_drawn_plots_are_pictures():
    """jcap's plots (pp. 7-10, 13: curves, axes and tick labels all drawn
    as outlines — no character of them in the text layer) and the IEEE
    paper's nine plots on p. 10 (three rows, tick labels as text — before,
    they were prose and their legends 'formulas'); unstructured's chart on
    dpr p. 5 (4.8 % of the page; its labels as text, 110 characters, cover
    14 % of it), whose labels cut a paragraph in two."""
    _, pictures = _pictures(corpus_path("grobid__0807.3577_jcap_math.pdf").read_bytes())
    assert [b.page_no for b in pictures] == [7, 8, 8, 9, 10, 13, 13]
    parsed, pictures = _pictures(corpus_path("pdfminer__issue-1061-ieee-differential-privacy.pdf").read_bytes())
    on_10 = [b for b in pictures if b.page_no == 10]
    assert len(on_10) == 3 and all("iDP" in b.text for b in on_10)
    assert not [b for b in parsed.blocks if b.page_no == 10 and str(b.kind) == "formula" and "DP Γ" in b.text]
    parsed, pictures = _pictures(corpus_path("unstructured__multi-column_dpr.pdf").read_bytes())
    assert [b.page_no for b in pictures] == [5] and "# Train: 1k" in pictures[0].text
    assert any("BM25 negative passage per question" in s.text and "with a learning rate" in s.text for s in parsed.segments)
