"""The PDF reader keeps each step's result (issue 36): a PdfReader over a
document made here shows its pages, furniture, layouts, segments, blocks,
accounts and warnings, and ``parse`` returns exactly what it holds."""

from __future__ import annotations

import dataclasses

from duocthu_assets.model import BlockKind, FurnitureKind
from duocthu_assets.parse.pdf.blocks.candidates import BlockCandidate
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.layout.paragraphs import Para
from duocthu_assets.parse.pdf.reader import PdfReader, parse
from duocthu_assets.parse.pdf.warnings import per_page
from duocthu_assets.settings import Settings

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINE = "Thuốc được hấp thu nhanh qua đường tiêu hóa, đạt nồng độ tối đa sau {} giờ."
HEADER = "Dược thư quốc gia — chuyên luận"


def _three_pages() -> bytes:
    """Three pages of prose under a running header, numbered at the foot; a
    ruled table on page 2, a sticky note on page 1."""
    doc = pymupdf.open()
    for n in range(1, 4):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        page.insert_text((60, 40), HEADER, fontname="dv", fontsize=8)
        for i in range(12):
            page.insert_text((60, 100 + 16 * i), LINE.format(i + n), fontname="dv", fontsize=10)
        if n == 2:
            rows = [("Thuốc", "Liều", "Đường dùng")] + [(f"Thuốc {k}", f"{k * 5} mg", "uống") for k in range(1, 6)]
            top, height, xs = 320, 18, (60, 200, 320, 460)
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    page.insert_text((xs[c] + 4, top + r * height + 13), cell, fontname="dv", fontsize=10)
            for r in range(len(rows) + 1):
                page.draw_line((xs[0], top + r * height), (xs[-1], top + r * height))
            for x in xs:
                page.draw_line((x, top), (x, top + len(rows) * height))
        if n == 1:
            page.add_text_annot((400, 100), "Kiểm tra lại liều này")
        page.insert_text((300, 810), str(n), fontname="dv", fontsize=8)
    return doc.tobytes()


def test_each_step_of_the_reader_is_kept():
    reader = PdfReader(_three_pages(), Settings())
    # read: one PageContent per page
    assert [p.page_no for p in reader.pages] == [1, 2, 3]
    assert reader.page_count == 3
    # furniture: the running header and the printed number of every page
    assert [(f.printed_page, f.printed_label) for f in reader.furniture] == [(1, "1"), (2, "2"), (3, "3")]
    assert reader.page_labels == ["1", "2", "3"]
    # layouts: paragraphs on every page, the ruled table lifted on page 2
    assert [lay.page_no for lay in reader.layouts] == [1, 2, 3]
    kinds = [[type(item) for item in lay.items] for lay in reader.layouts]
    assert kinds == [[Para], [Para, BlockCandidate], [Para]]
    assert reader.layouts[1].rule_scan and reader.layouts[1].block_fragments
    # segments and blocks: the prose, and the table with its own id
    assert [s.page_no for s in reader.segments] == [1, 2, 3]
    assert all(HEADER not in s.text for s in reader.segments)
    assert [(b.block_id, b.kind) for b in reader.blocks] == [("p0002-t1", BlockKind.TABLE)]
    assert "Đường dùng" in reader.blocks[0].text
    # accounts: every character of every page is somewhere, once
    assert [(a.page_no, a.missing, a.duplicated) for a in reader.accounts] == [(1, 0, 0), (2, 0, 0), (3, 0, 0)]
    assert reader.accounts[1].blocks > 0
    assert [f.kind for f in reader.recorded if f.page_no == 1] == [FurnitureKind.RUNNING_HEADER, FurnitureKind.PAGE_LABEL]
    # warnings: the sticky note, said once
    assert len(reader.warnings) == 1 and "Kiểm tra lại liều này" in reader.warnings[0]
    assert reader.pages_needing_ocr == []
    stats = reader.stats()
    assert stats["pages"] == 3 and stats["pages_with_blocks"] == 1


def test_parse_returns_what_the_reader_holds():
    data = _three_pages()
    stats: dict = {}
    parsed = parse(data, Settings(), stats=stats)
    assert dataclasses.asdict(parsed) == dataclasses.asdict(PdfReader(data, Settings()).document)
    assert stats["pages"] == 3


def test_per_page_totals_a_count_and_lists_its_pages():
    assert per_page({1: 0, 3: 12, 7: 2}) == (14, "page 3: 12, page 7: 2")
    assert per_page({1: 0}) is None
    assert per_page({n: 1 for n in range(1, 5)}, shown=2) == (4, "page 1: 1, page 2: 1 …")
