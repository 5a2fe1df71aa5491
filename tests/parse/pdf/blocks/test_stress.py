"""Issue 15's stress layouts (scripts/make_stress_pdfs.py), generated in
memory: a table is lifted whole (no row left in prose), confined to its
column (no prose swallowed), continued parts linked; formulas lifted."""

from __future__ import annotations


import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.audit.inspection import inspect_tables
from duocthu_assets.settings import Settings

from tests.support.stress_pdfs import stress

TABLE_CASES = ["booktabs_continued", "two_column_continued", "column_bottom", "sideways_table", "side_by_side_tables"]


def _parse(name):
    data, expect = stress.build(name)
    return data, expect, parse_document(data, Format.PDF, Settings())


@pytest.mark.parametrize("name", TABLE_CASES)
def test_every_row_of_each_table_part_is_in_one_block(name):
    _, expect, parsed = _parse(name)
    tables = [b for b in parsed.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == len(expect.tables), [b.text for b in tables]
    for block, cells in zip(tables, expect.tables):
        for cell in cells:
            assert cell in block.text, (name, block.block_id, cell, block.text)


@pytest.mark.parametrize("name", TABLE_CASES)
def test_no_table_row_in_prose_and_no_prose_in_a_table(name):
    data, expect, parsed = _parse(name)
    prose = " ".join(s.text for s in parsed.segments)
    for row in stress.ROWS:
        assert " ".join(row) not in prose
    for phrase in expect.prose:
        assert phrase in prose
        assert not any(phrase in b.text for b in parsed.blocks)
    found = inspect_tables(data, [(b.page_no, b.bbox) for b in parsed.blocks if b.kind is BlockKind.TABLE])
    assert found.leaks == () and found.prose_in_blocks == ()


@pytest.mark.parametrize("name", ["booktabs_continued", "two_column_continued"])
def test_continued_parts_are_linked(name):
    _, _, parsed = _parse(name)
    first, second = [b for b in parsed.blocks if b.kind is BlockKind.TABLE]
    assert second.continues == first.block_id and first.page_no + 1 == second.page_no


def test_continued_part_at_the_top_of_a_column_stays_in_its_column():
    _, _, parsed = _parse("two_column_continued")
    part = [b for b in parsed.blocks if b.page_no == 2][0]
    right_column = [s for s in parsed.segments if s.page_no == 2 and s.bbox[0] > 300]
    assert right_column and all(part.bbox[2] < s.bbox[0] for s in right_column)


def test_two_tables_side_by_side_atop_the_columns_are_two_blocks_each_in_its_column():
    """Read as one band across the page, the two were one block across the
    gutter, the dosing table's rows interleaved with the price list's."""
    _, expect, parsed = _parse("side_by_side_tables")
    dosing, prices = sorted((b for b in parsed.blocks if b.kind is BlockKind.TABLE), key=lambda b: b.bbox[0])
    middle = stress.LEFT + stress.COL_W + stress.GUTTER / 2  # of the gutter
    assert dosing.bbox[2] < middle < prices.bbox[0]
    assert "Clcr (ml/phút)" in dosing.text and not any(c in dosing.text for r in stress.PRICES for c in r)
    assert "Giá (đồng)" in prices.text and not any(c in prices.text for r in stress.ROWS for c in r)


@pytest.mark.corpus
def test_aaai_tables_1_and_3_are_not_one_block_across_the_gutter():
    """aaai p. 4: Table 1 atop the left column, Table 3 atop the right one
    (their rules are 1-pixel images, no drawing): one block across both
    columns, cut where Table 3 ends, Table 1's last two rows left under it
    in prose (leak_01). Now Table 3 is a block of its own in the right
    column, and Table 1's rows (a label and a sentence each, no grid of
    short cells) read row by row, in order, in the left column's prose."""
    from tests.support.paths import corpus_path

    parsed = parse_document(corpus_path("papermage__2202.00535v1_aaai.pdf").read_bytes(), Format.PDF, Settings())
    page4 = [b for b in parsed.blocks if b.page_no == 4 and b.kind is BlockKind.TABLE]
    assert not any(b.bbox[0] < 290 and b.bbox[2] > 330 for b in page4), [b.bbox for b in page4]
    (table3,) = [b for b in page4 if "Dataset Name" in b.text]
    assert table3.bbox[0] > 320 and "ParaSCI ACL" in table3.text and "Input" not in table3.text
    rows = [s.text for s in parsed.segments if s.page_no == 4 and s.bbox[2] < 300][:5]
    assert [r.split(" why")[0].split(" Why")[0] for r in rows] == ["Input", "LPT", "RAPT", "NC-RAPT (High)", "NC-RAPT (Low)"], rows


def test_fraction_sum_with_limits_and_matrix_are_formula_blocks():
    _, expect, parsed = _parse("formulas")
    formulas = [b for b in parsed.blocks if b.kind is BlockKind.FORMULA]
    assert len(formulas) == len(expect.formulas)
    for block, needle in zip(sorted(formulas, key=lambda b: (b.bbox[0] > 300, b.bbox[1])), expect.formulas):
        assert needle in block.text and block.shape.value == "formula_2d"
    sum_block = next(b for b in formulas if "∑" in b.text)
    assert "i=1" in sum_block.text and "n" in sum_block.text.split()  # the limits are in the block, not in prose
    prose = " ".join(s.text for s in parsed.segments)
    assert "i=1" not in prose and "a₂₁" not in prose
