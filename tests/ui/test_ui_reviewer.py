"""What a reviewer reads on a materialization in the UI, computed from the
tables the step wrote: blocks per shape (lifted_blocks) and the pages that
need OCR per document (parsed_documents). The end-to-end test
(test_ui_e2e.py) reads the same metadata back over GraphQL."""

from __future__ import annotations

from duocthu_assets.assets.parsing import _blocks_by_shape, _pages_needing_ocr
from duocthu_assets.schemas import SCHEMAS, table_from_rows


def _row(asset: str, **values) -> dict:
    return {**{name: None for name in SCHEMAS[asset].names}, **values}


def test_blocks_are_counted_per_shape_across_the_documents_of_a_step():
    tables = {
        "a.pdf": table_from_rows("lifted_blocks", [
            _row("lifted_blocks", doc_id="a.pdf", block_id="b1", kind="table", shape="simple_table"),
            _row("lifted_blocks", doc_id="a.pdf", block_id="b2", kind="formula", shape="formula_2d"),
            _row("lifted_blocks", doc_id="a.pdf", block_id="b3", kind="table", shape="simple_table"),
        ]),
        "b.pdf": table_from_rows("lifted_blocks", [
            _row("lifted_blocks", doc_id="b.pdf", block_id="b1", kind="table", shape="cross_page_continuation"),
        ]),
        "c.docx": table_from_rows("lifted_blocks", []),
    }
    assert _blocks_by_shape(tables) == {"cross_page_continuation": 1, "formula_2d": 1, "simple_table": 2}
    assert _blocks_by_shape({}) == {}


def test_pages_needing_ocr_are_named_per_document():
    tables = {
        "scan.pdf": table_from_rows("parsed_documents", [_row("parsed_documents", doc_id="scan.pdf", pages_needing_ocr=[1, 2])]),
        "mixed.pdf": table_from_rows("parsed_documents", [_row("parsed_documents", doc_id="mixed.pdf", pages_needing_ocr=[7])]),
        "born_digital.pdf": table_from_rows("parsed_documents", [_row("parsed_documents", doc_id="born_digital.pdf", pages_needing_ocr=[])]),
    }
    assert _pages_needing_ocr(tables) == {"scan.pdf": [1, 2], "mixed.pdf": [7]}
