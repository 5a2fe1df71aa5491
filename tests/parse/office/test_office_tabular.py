"""The shared table rules (ADR 0018 §4): header proof, banners, merges, rendering."""

from __future__ import annotations

import pytest

from duocthu_assets.parse.office import tabular
from duocthu_assets.parse.office.tabular import Cell, Region, ValueKind, text_cell, text_kind


def grid_of(rows: list[list[str]]) -> tabular.Grid:
    return tabular.pad_grid([[text_cell(v, r, c) for c, v in enumerate(row)] for r, row in enumerate(rows)])


def read(rows: list[list[str]]) -> tabular.TableReading:
    grid = grid_of(rows)
    return tabular.read_table(grid, Region(0, len(grid) - 1, 0, len(grid[0]) - 1))


def merged(grid: tabular.Grid, top: int, left: int, bottom: int, right: int) -> tabular.Grid:
    """Forward-fill a merge the way the parsers do."""
    source = grid[top][left]
    for r in range(top, bottom + 1):
        for c in range(left, right + 1):
            grid[r][c] = source
    return grid


COMPENSATION = [[str(80 + k), str(70 + k)] for k in range(30)]


def test_compensation_table_of_numbers_has_no_header_and_never_reads_80_70():
    reading = read(COMPENSATION)
    texts = [row.text for row in reading.rows]
    assert reading.labels == [] and reading.header_rows == []
    assert len(texts) == 30
    assert texts[0] == "80 | 70"
    assert not any(": " in text for text in texts)
    assert "80: 70" not in "\n".join(texts)


def test_text_header_over_numeric_columns_is_proven():
    reading = read([["Grade", "Salary"], *COMPENSATION])
    assert reading.header_rows == [0]
    assert reading.rows[0].text == "Grade: 80\nSalary: 70"
    assert len(reading.rows) == 30


def test_header_is_row_zero_or_nothing_never_scanned_for():
    # a header-shaped row further down is data, not a header
    reading = read([["80", "70"], ["85", "75"], ["Grade", "Salary"], ["90", "80"]])
    assert reading.labels == []
    assert [row.text for row in reading.rows] == ["80 | 70", "85 | 75", "Grade | Salary", "90 | 80"]


def test_one_row_beneath_is_no_length_evidence():
    # short text over short text: ambiguous, so unlabeled (never "Ali: Mohammad")
    reading = read([["Ali", "Reza"], ["Mohammad", "Hossein"]])
    assert reading.labels == []
    assert [row.text for row in reading.rows] == ["Ali | Reza", "Mohammad | Hossein"]


def test_fixed_length_codes_prove_a_label_of_another_length():
    reading = read([["Code", "Name"], ["AB12", "x"], ["CD34", "y"], ["EF56", "z"]])
    # "Code" has the codes' length: that column votes against; "Name" over one-letter values votes for
    assert reading.votes == 0 and reading.labels == []
    reading = read([["Customer Id", "Name"], ["DD37Cf93aecA6Dc", "Sheryl"], ["1Ef7b82A4CAAD10", "Preston"]])
    assert reading.labels and reading.rows[0].text.startswith("Customer Id: DD37Cf93aecA6Dc")


def test_short_label_over_much_longer_values():
    long_a = "The deadline for all applications is the thirtieth of March."
    long_b = "Applicants must attach two references and a full CV to the form."
    reading = read([["Answer"], [long_a], [long_b]])
    assert reading.labels == [("Answer",)]
    assert reading.rows[0].text == f"Answer: {long_a}"


def test_banner_rows_are_skipped_and_kept_as_paragraph_text():
    grid = grid_of([["Pay scale 2024", "", ""], ["Role", "Min", "Max"], ["Clerk", "3100", "3900"], ["Lead", "7100", "9300"]])
    grid = merged(grid, 0, 0, 0, 2)
    reading = tabular.read_table(grid, Region(0, 3, 0, 2))
    assert reading.banner_rows == [0]
    assert reading.rows[0].banner and reading.rows[0].text == "Pay scale 2024"
    assert reading.header_rows == [1]
    assert reading.rows[1].text == "Role: Clerk\nMin: 3100\nMax: 3900"


def test_one_value_repeated_across_the_row_is_a_banner():
    reading = read([["Report", "Report", "Report"], ["Year", "Ducks", "Geese"], ["2019", "120", "30"], ["2020", "135", "32"]])
    assert reading.banner_rows == [0]
    assert reading.rows[0].text == "Report | Report | Report"  # literal repeats are not a merge: nothing collapsed
    assert reading.rows[1].text == "Year: 2019\nDucks: 120\nGeese: 30"


def test_vertically_merged_header_duplicate_row_is_not_data():
    grid = grid_of([["Name", "Pay", "Pay"], ["", "Min", "Max"], ["Clerk", "3100", "3900"], ["Lead", "7100", "9300"]])
    grid = merged(grid, 0, 0, 1, 0)  # "Name" spans two header rows
    grid = merged(grid, 0, 1, 0, 2)  # "Pay" spans two columns
    reading = tabular.read_table(grid, Region(0, 3, 0, 2))
    assert reading.header_rows == [0, 1]
    assert reading.rows[0].text == "Name: Clerk\nPay / Min: 3100\nPay / Max: 3900"
    assert len(reading.rows) == 2


def test_all_continuation_row_is_skipped():
    grid = grid_of([["Name", "Age"], ["Ali", "30"], ["", ""], ["Reza", "41"]])
    grid = merged(merged(grid, 1, 0, 2, 0), 1, 1, 2, 1)  # row 1 merged down over row 2 in every column
    reading = tabular.read_table(grid, Region(0, 3, 0, 1))
    assert reading.labels
    assert [row.row for row in reading.rows] == [1, 3]


def test_horizontal_merge_rendered_once_with_the_labels_it_spans():
    grid = grid_of([["Item", "Min", "Max"], ["a1", "m", ""], ["a2", "10", "20"], ["a3", "30", "40"]])
    grid = merged(grid, 1, 1, 1, 2)
    reading = tabular.read_table(grid, Region(0, 3, 0, 2))
    assert reading.rows[0].text == "Item: a1\nMin, Max: m"
    assert tabular.render_unlabeled(grid[1]) == "a1 | m"


def test_merged_header_label_is_shared_by_a_merged_value():
    labels = [("first",), ("header", "second"), ("header", "third")]
    cells = [Cell("8", (6, 0), ValueKind.NUMBER), Cell("9", (6, 1), ValueKind.NUMBER), Cell("9", (6, 1), ValueKind.NUMBER)]
    assert tabular.render_labeled(cells, labels) == "first: 8\nheader: 9"


def test_vertical_merge_in_data_is_forward_filled_into_every_row():
    grid = grid_of([["Province", "Branch", "Staff"], ["Tehran", "North", "12"], ["", "South", "9"], ["Isfahan", "Center", "7"]])
    grid = merged(grid, 1, 0, 2, 0)
    reading = tabular.read_table(grid, Region(0, 3, 0, 2))
    texts = [row.text for row in reading.rows]
    assert texts[1] == "Province: Tehran\nBranch: South\nStaff: 9"


def test_ragged_row_keeps_its_extra_field_unlabeled():
    reading = read([["Name", "Age"], ["Ali", "30", "extra"], ["Reza", "41"]])
    assert reading.rows[0].text == "Name: Ali\nAge: 30\nextra"


def test_label_ending_in_a_colon_gets_no_second_colon():
    reading = read([["Package no.:", "Rev."], ["13156456", "1"], ["144564", "2"]])
    assert reading.rows[0].text == "Package no.: 13156456\nRev.: 1"


def test_regions_split_at_blank_rows_and_side_by_side_tables():
    grid = grid_of([
        ["a", "b", "", "", ""],
        ["1", "2", "", "x", "y"],
        ["3", "4", "", "7", "8"],
        ["", "", "", "9", "9"],
        ["", "", "", "", ""],
        ["p", "q", "", "", ""],
    ])
    # the blocks' rows differ both ways (0 only left, 3 only right): two tables
    assert tabular.split_regions(grid) == [Region(0, 2, 0, 1), Region(1, 3, 3, 4), Region(5, 5, 0, 1)]


def test_spacer_columns_inside_a_form_are_not_a_boundary():
    grid = grid_of([["Power", "", "", ""], ["1", "", "Rated voltage", "130 kV"], ["2", "", "Frequency", "50 Hz"]])
    assert tabular.split_regions(grid) == [Region(0, 2, 0, 3)]


def test_table_interrupted_by_a_blank_row_inherits_its_proven_header():
    grid = grid_of([["Grade", "Salary"], ["80", "70"], ["81", "71"], ["", ""], ["82", "72"], ["83", "73"]])
    readings = tabular.read_tables(grid, tabular.split_regions(grid))
    assert [r.inherited for r in readings] == [False, True]
    assert readings[1].rows[0].text == "Grade: 82\nSalary: 72"


@pytest.mark.parametrize(
    ("text", "kind"),
    [("80", ValueKind.NUMBER), ("۱۲۰٬۰۰۰٬۰۰۰", ValueKind.NUMBER), ("-3.5", ValueKind.NUMBER), ("12%", ValueKind.NUMBER),
     ("1402/05/12", ValueKind.DATE), ("2020-08-24", ValueKind.DATE), ("TRUE", ValueKind.BOOL),
     ("Grade", ValueKind.TEXT), ("", ValueKind.EMPTY), ("nan", ValueKind.TEXT)],
)
def test_value_kinds(text, kind):
    assert text_kind(text) is kind
