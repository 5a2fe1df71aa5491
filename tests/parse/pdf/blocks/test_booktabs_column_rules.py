"""A LaTeX table with booktabs rules and ``|`` column rules leaves a gap of
2-4 pt between each column rule and the rules over and under it: the gaps
are bridged, so the table is one grid, its header row inside (dpr's Table 7
came out as two tables with its header row in prose; issue 15 residual)."""

from __future__ import annotations

import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.blocks.grids import bridge_rule_gaps
from duocthu_assets.parse.pdf.records import Rule
from duocthu_assets.settings import Settings

from tests.support.paths import CORPUS

TOL = 2.5
ROWS_AT = [63.2, 76.9, 154.1, 231.4]  # top rule, under the header, between the rows, bottom rule
COLUMNS_AT = [169.2, 351.6]


def _booktabs(gap: float) -> tuple[list[Rule], list[Rule]]:
    horizontal = [Rule(72.0, y, 533.9, y, True) for y in ROWS_AT]
    vertical = [Rule(x, top + gap, x, bottom - gap, False) for x in COLUMNS_AT for top, bottom in zip(ROWS_AT, ROWS_AT[1:])]
    return horizontal, vertical


def test_column_rules_stopping_short_of_the_rules_are_joined_across_them():
    horizontal, vertical = _booktabs(3.4)
    bridged = bridge_rule_gaps(horizontal, vertical, TOL)
    assert sorted((round(r.pos, 1), r.y0, r.y1) for r in bridged) == [(x, ROWS_AT[0], ROWS_AT[-1]) for x in COLUMNS_AT]


@pytest.mark.parametrize(
    "case",
    ["far", "beside", "touching"],
)
def test_rules_that_are_not_a_booktabs_gap_are_left_as_they_are(case):
    horizontal, vertical = _booktabs({"far": 6.0, "beside": 3.4, "touching": 1.0}[case])
    if case == "beside":  # the rules over and under stop before the column rule's x
        horizontal = [Rule(72.0, y, 160.0, y, True) for y in ROWS_AT]
    assert bridge_rule_gaps(horizontal, vertical, TOL) == vertical


HEADER = ["Question", "Passage received by BM25", "Passage retrieved by DPR"]
CELLS = [
    ["What is the body of water", "England is not recognised as a region", "Annual traffic between Great Britain"],
    ["Who plays Thoros of Myr", "He may be no one but there is still", "Pal Sverre Valheim Hagen is an actor"],
]


def _page(gap: float) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for y in ROWS_AT:
        page.draw_line((72.0, y), (533.9, y), width=0.6)
    for x in COLUMNS_AT:
        for top, bottom in zip(ROWS_AT, ROWS_AT[1:]):
            page.draw_line((x, top + gap), (x, bottom - gap), width=0.4)
    lefts = [78.0, 175.4, 357.8]
    for text, x in zip(HEADER, lefts):
        page.insert_text((x, 73.0), text, fontsize=7, fontname="hebo")
    for row, top in zip(CELLS, ROWS_AT[1:]):
        for k in range(3):
            for text, x in zip(row, lefts):
                page.insert_text((x, top + 10 + 8 * k), f"{text} {k}", fontsize=6.5, fontname="helv")
    page.insert_text((72, 300), "Table 7: Examples of passages returned from BM25 and DPR.", fontsize=10, fontname="helv")
    return doc.tobytes()


def test_a_booktabs_table_with_column_rules_is_one_table_with_its_header():
    parsed = parse_document(_page(3.4), Format.PDF, Settings())
    tables = [b for b in parsed.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    assert tables[0].text.startswith("Question | Passage received by BM25 | Passage retrieved by DPR")
    assert not any("Passage received by BM25" in s.text for s in parsed.segments)


DPR = CORPUS / "unstructured__multi-column_dpr.pdf"


@pytest.mark.skipif(not DPR.exists(), reason="corpus not present")
def test_dpr_table_7_is_one_table_with_its_header():
    parsed = parse_document(DPR.read_bytes(), Format.PDF, Settings())
    tables = [b for b in parsed.blocks if b.kind is BlockKind.TABLE and b.page_no == 13]
    assert len(tables) == 1
    assert tables[0].text.startswith("Question | Passage received by BM25 | Passage retrieved by DPR")
    assert not any("Passage received by BM25" in s.text for s in parsed.segments if s.page_no == 13)
    # Table 2 (p. 5) and Table 6 (p. 12, under Table 5): one block each, not one per band of rows
    assert sum(1 for b in parsed.blocks if b.kind is BlockKind.TABLE and b.page_no == 5) == 1
    sim_loss = [b for b in parsed.blocks if b.kind is BlockKind.TABLE and b.page_no == 12 and b.text.startswith("Sim Loss")]
    assert len(sim_loss) == 1 and "Triplet | 42.2 | 66.0 | 78.1 | 84.9" in sim_loss[0].text
