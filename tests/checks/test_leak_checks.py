"""The leak detector (issue 15) is a blocking check on chunks, proven able
to fail through ``duocthu ingest``: a table row left under its table, a
formula's cell line left over or under its block, and a prose chunk of
flattened math, each block their document (and only it)."""

from __future__ import annotations

import pytest

from checks.leaks import flattened_math_in_prose, table_row_in_prose
from checks.rules import DocumentRows
from duocthu_assets.parse.pdf.blocks import find as pdf_blocks, formulas as pdf_formulas
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math

from tests.support.ingest import ingest_inbox
from tests.support.stress_pdfs import stress

pytestmark = pytest.mark.slow


def test_table_row_left_under_its_table_and_flattened_math_block_their_documents(tmp_path, monkeypatch):
    ruled, _ = stress.build("ruled_last_rows")
    booktabs, _ = stress.build("booktabs_continued")
    flat, _ = stress.build("flattened_sum")
    scripts, _ = stress.build("inline_scripts")
    cells, _ = stress.build("word_fraction")
    # the parser as it was before issue 15: a ruled grid ends at its last rule,
    # a fraction holds its bar's nearest rows only
    monkeypatch.setattr(pdf_blocks, "grow_down", lambda bbox, fragments, taken=(): bbox)
    monkeypatch.setattr(pdf_formulas, "_cell", lambda lines, fragments, fits: list(lines))
    monkeypatch.setattr(pdf_blocks, "with_cell_lines", lambda blocks, fragments: blocks)
    out = ingest_inbox(tmp_path, {"a_ruled.pdf": ruled, "b_booktabs.pdf": booktabs, "c_flat.pdf": flat, "d_scripts.pdf": scripts, "e_cells.pdf": cells})
    assert out["code"] == 1
    docs = out["docs"]

    bad = docs["a_ruled.pdf"]
    assert bad["status"] == "blocked", bad
    assert "leak_01_table_row_in_prose" in bad["failed_checks"]
    assert "10 – 29" in bad["reason"] and "p1" in bad["reason"]

    flat_doc = docs["c_flat.pdf"]
    assert flat_doc["status"] == "blocked", flat_doc
    assert "leak_02_flattened_math_in_prose" in flat_doc["failed_checks"]
    assert "∑ n+1 i=1" in flat_doc["reason"]

    cell_doc = docs["e_cells.pdf"]
    assert cell_doc["status"] == "blocked", cell_doc
    assert "leak_01_table_row_in_prose" in cell_doc["failed_checks"]
    assert "formula cell line 'đất trước khi chuyển mục đích'" in cell_doc["reason"], cell_doc["reason"]

    assert docs["b_booktabs.pdf"]["status"] == "ok", docs["b_booktabs.pdf"]
    # inline scripts written x_1, x^3 (not x1, x3): faithful, not flattened math;
    # every character still accounted for (the marks are not the text layer's)
    assert docs["d_scripts.pdf"]["status"] == "ok", docs["d_scripts.pdf"]


def test_the_fixed_parser_keeps_the_rows_in_the_table_and_passes(tmp_path):
    ruled, _ = stress.build("ruled_last_rows")
    cells, _ = stress.build("word_fraction")
    out = ingest_inbox(tmp_path, {"a_ruled.pdf": ruled, "e_cells.pdf": cells})
    assert out["code"] == 0 and out["docs"]["a_ruled.pdf"]["status"] == "ok"
    assert out["docs"]["e_cells.pdf"]["status"] == "ok", out["docs"]["e_cells.pdf"]


def test_rules_name_offending_chunks_and_pages():
    chunk = {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": "Tổng ∑ n+1 i=1 x 2 i = 1 , ∏ k j=1 y j ≤ 1", "regions": [{"page_no": 4, "printed_page": None, "bbox": (0, 0, 1, 1)}]}
    result = flattened_math_in_prose(DocumentRows("d", chunks=[chunk]))
    assert not result.passed and result.offending_ids == ("d:s:1",) and result.pages == (4,)
    assert table_row_in_prose(DocumentRows("d", chunks=[chunk])).passed  # no table: nothing to look under


@pytest.mark.parametrize(
    "text",
    [
        "Người lớn: 0,5 - 1 g mỗi 4 - 6 giờ, tối đa 4 g/ngày (ampicilin 1 g + sulbactam 0,5 g).",
        "Notices . . . . . . . . . . . . . . . . vii",
        "ج 1 / ص 515. صحیح ابن حبان، ج 6",
    ],
)
def test_dosing_prose_leaders_and_other_scripts_are_not_math(text):
    assert flattened_math(text) is None


def test_flattened_display_math_is_math():
    assert flattened_math("thus \ufffd n+1 \ufffd i=1 x2 i = 1 \ufffd holds") is not None
