"""The audit's "prose lines in tables" (bench/pdf_audit.py, via
audit/tables.prose_lines_in) tells a table's long cell from running text a
table swallowed: a line in a cell the table draws (rules over and under
it, a column rule beside it: dpr's Table 7 passages, redp5110's
ALLOWED/DENIED cells) is a cell; the same lines with no rules, or a
paragraph under the table's last rule, still count (issue 15 residual)."""

from __future__ import annotations

import pytest

from duocthu_assets.model import BlockKind, Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.audit.inspection import inspect_tables
from duocthu_assets.parse.pdf.audit.tables import in_ruled_cell, prose_lines_in
from duocthu_assets.parse.pdf.records import Fragment, Rule, Word
from duocthu_assets.settings import Settings

from tests.support.paths import CORPUS

PASSAGE = [
    "England is not recognised as a region by the UCI and there is",
    "no English cycling team outside the Commonwealth Games for those",
    "occasions British Cycling selects and supports the England team here",
]
OTHER = [
    "Annual traffic between Great Britain and Ireland amounts to over",
    "twelve million passengers and of traded goods and the Irish Sea is",
    "connected to the North Atlantic at both its northern and southern",
]


def _frag(text: str, x0: float, top: float, size: float = 6.3) -> Fragment:
    words, x = [], x0
    for w in text.split():
        words.append(Word(w, (x, top, x + 2.5 * len(w), top + size), size, False, False, 0))
        x += 2.5 * len(w) + 2
    return Fragment(tuple(words), (x0, top, x - 2, top + size), 0, text, size, False)


BLOCK = (72.0, 76.4, 533.9, 154.6)
CELLS = [_frag(t, 175.4, 89 + 8 * k) for k, t in enumerate(PASSAGE)] + [_frag(t, 357.8, 89 + 8 * k) for k, t in enumerate(OTHER)]
RULES = [
    Rule(72.0, 76.9, 533.9, 76.9, True),
    Rule(72.0, 154.1, 533.9, 154.1, True),
    Rule(169.2, 80.2, 169.2, 151.9, False),  # column rules stopping short of the row rules (booktabs-like gaps)
    Rule(351.6, 80.2, 351.6, 151.9, False),
]


def test_long_lines_in_ruled_cells_are_cells_not_prose():
    assert all(in_ruled_cell(f.bbox, RULES[:2], RULES[2:]) for f in CELLS)
    assert prose_lines_in(BLOCK, CELLS, RULES) == []


def test_the_same_lines_without_rules_are_two_columns_of_prose_swallowed():
    assert sorted(f.text for f in prose_lines_in(BLOCK, CELLS)) == sorted(f.text for f in CELLS)
    assert len(prose_lines_in(BLOCK, CELLS, RULES[:2])) == len(CELLS)  # rules over and under, no column rule beside


def test_a_paragraph_under_the_last_rule_still_counts():
    grown = (72.0, 76.4, 533.9, 190.0)  # the table's box taken too far down
    paragraph = _frag("The question encoder is trained from the top five positive and the top thirty negative passages", 72.0, 170.0)
    found = prose_lines_in(grown, CELLS + [paragraph], RULES)
    assert found == [paragraph]


def test_a_line_wider_than_the_rules_over_it_is_in_no_cell():
    line = _frag("a long run of words running out past the end of the table's rules and on", 357.8, 120.0)
    wide = Fragment(line.words, (357.8, 120.0, 560.0, 126.3), 0, line.text, line.size, False)
    assert in_ruled_cell(wide.bbox, RULES[:2], RULES[2:]) is False


@pytest.mark.parametrize(
    "name",
    ["unstructured__multi-column_dpr.pdf", "docling__redp5110_sampled.pdf"],
)
def test_corpus_tables_with_long_cells_hold_no_prose(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip("corpus not present")
    data = path.read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    tables = [(b.page_no, b.bbox) for b in parsed.blocks if b.kind is BlockKind.TABLE]
    assert tables
    assert inspect_tables(data, tables).prose_in_blocks == ()
