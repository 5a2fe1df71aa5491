"""The PDF stage's fixed costs cut without changing what it reads (issue 15
item 7): page labels from one read of the ``/PageLabels`` tree, the pages'
file attachments read while the pages are open, and the math / bad-glyph
gates searched with one regular expression instead of a call per character.
Each shortcut is checked against the slow way it replaces."""

from __future__ import annotations

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.furniture.labels import labels_from_rules
from duocthu_assets.parse.pdf.read.annotations import embedded_files, page_annotations
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.records import BAD_GLYPH, MATH_CHAR, is_bad_glyph, is_math_char
from duocthu_assets.settings import Settings


def test_page_labels_from_the_rules_are_pymupdfs_labels():
    doc = pymupdf.open()
    for _ in range(60):
        doc.new_page()
    doc.set_page_labels([
        {"startpage": 2, "prefix": "", "style": "r", "firstpagenum": 1},
        {"startpage": 6, "prefix": "A-", "style": "A", "firstpagenum": 1},
        {"startpage": 10, "prefix": "", "style": "a", "firstpagenum": 25},  # past z: aa, ab …
        {"startpage": 40, "prefix": "", "style": "D", "firstpagenum": 398},
        {"startpage": 45, "prefix": "", "style": "R", "firstpagenum": 397},  # CCCXCVII … CD
        {"startpage": 50, "prefix": "X", "firstpagenum": 3},  # a prefix and no style
    ])
    labels = labels_from_rules(doc.get_page_labels(), doc.page_count)
    assert labels == [page.get_label() or "" for page in doc]
    assert labels[:3] == ["", "", "i"] and labels[6] == "A-A" and labels[12] == "aa" and labels[48] == "CD" and labels[50] == "X"


def test_page_labels_rules_out_of_order_are_sorted_by_start_page():
    rules = [{"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1}, {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1}]
    assert labels_from_rules(rules, 4) == ["i", "ii", "1", "2"]


def test_the_regular_expressions_hold_exactly_the_characters_of_the_per_character_tests():
    math = [o for o in range(0x110000) if bool(MATH_CHAR.match(chr(o))) != is_math_char(chr(o))]
    bad = [o for o in range(0x110000) if bool(BAD_GLYPH.match(chr(o))) != is_bad_glyph(chr(o))]
    assert math == [] and bad == []


def _with_attachments() -> bytes:
    doc = pymupdf.open()
    for k in range(3):
        page = doc.new_page()
        page.insert_text((72, 72), f"Trang {k + 1}: tệp đính kèm", fontname="helv")
    doc.embfile_add("bang_gia.xlsx", b"PK not a workbook", filename="bang_gia.xlsx")
    doc[0].add_file_annot((300, 300), b"note one", "ghi_chu_1.txt")
    doc[2].add_file_annot((300, 300), b"note three", "ghi_chu_3.txt")
    doc[2].add_text_annot((100, 300), "a sticky note is no attachment")
    return doc.tobytes()


def test_attachments_of_the_document_and_of_every_page_are_named_in_order():
    parsed = parse_document(_with_attachments(), Format.PDF, Settings())
    [warning] = [w for w in parsed.warnings if "embedded file" in w]
    assert warning.startswith("3 embedded file(s) not extracted (bang_gia.xlsx, ghi_chu_1.txt, ghi_chu_3.txt)")


def test_a_reviewers_comments_and_strike_outs_are_named():
    """A sticky note's and a highlight's comments are no text of the page,
    and are not nothing: named in a warning, as is a passage a strike-out
    annotation marks deleted (read as text like the rest). A text box's
    text is on the page, and read there."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Clcr 30 - 50 ml/phut: 0,375 g moi 12 gio", fontname="helv", fontsize=11)
    page.add_text_annot((400, 90), "Checked by the pharmacist: too high for Clcr < 30")
    mark = page.add_highlight_annot(pymupdf.Rect(72, 88, 300, 104))
    mark.set_info(content="should read 0,5 g")
    mark.update()
    page.add_strikeout_annot(pymupdf.Rect(190, 88, 230, 104))
    page.add_freetext_annot(pymupdf.Rect(72, 200, 400, 220), "Reduce to 250 mg if Clcr < 10", fontsize=11)
    parsed = parse_document(doc.tobytes(), Format.PDF, Settings())
    assert "Reduce to 250 mg if Clcr < 10" in " ".join(s.text for s in parsed.segments)
    [comments] = [w for w in parsed.warnings if "comment(s) in annotations" in w]
    assert comments.startswith("2 comment(s) in annotations not read") and "'Checked by the pharmacist: too high for Clcr < 30'" in comments
    assert "1 passage(s) a strike-out annotation marks deleted are read as text like the rest, per page: page 1: 1" in parsed.warnings
    plain = parse_document(_with_attachments(), Format.PDF, Settings())
    assert [w for w in plain.warnings if "comment(s)" in w] == ["1 comment(s) in annotations not read (sticky notes, notes on a highlight: "
                                                               "a reader opens them from their mark), per page: page 3: 1; the first: "
                                                               "'a sticky note is no attachment'"]


class _Annot:
    def __init__(self, kind: str, name: str) -> None:
        self.type = (0, kind)
        self.file_info = {"filename": name}


class _DamagedPage:
    """A page whose second annotation cannot be read."""

    number = 4

    def annots(self):
        yield _Annot("FileAttachment", "first.pdf")
        raise RuntimeError("cannot load annotation")


def test_a_page_whose_annotations_fail_keeps_the_names_before_and_stops_the_reading():
    found = page_annotations(_DamagedPage())
    assert found.attachments == ["first.pdf"] and found.readable is False


class _DamagedNameTable:
    def embfile_names(self):
        raise RuntimeError("broken /EmbeddedFiles tree")


def test_a_damaged_name_table_names_no_attachment_and_does_not_fail():
    assert embedded_files(_DamagedNameTable(), ["ghi_chu.txt"]) == []


def test_furniture_passes_given_the_rows_once_find_what_they_find_reading_them_each():
    from duocthu_assets.parse.pdf.furniture.bands import _lone_number_rows, band_rows
    from duocthu_assets.parse.pdf.furniture.bands import baseline_rows as _rows
    from duocthu_assets.parse.pdf.furniture.detect import repeated_lines
    from duocthu_assets.parse.pdf.read.page import read_page
    from duocthu_assets.settings.pdf import PdfSettings

    doc = pymupdf.open()
    for k in range(4):
        page = doc.new_page()
        page.insert_text((72, 40), "Dược thư quốc gia — running head", fontname="helv")
        page.insert_text((72, 120), f"Body line {k} with some words in it", fontname="helv")
        page.insert_text((300, 800), str(k + 1), fontname="helv")
    settings = PdfSettings()
    pages = [read_page(p, settings) for p in doc]
    rows = [_rows(p.fragments) for p in pages]
    assert [band_rows(p, settings) for p in pages] == [band_rows(p, settings, r) for p, r in zip(pages, rows)]
    assert [_lone_number_rows(p, settings) for p in pages] == [_lone_number_rows(p, settings, r) for p, r in zip(pages, rows)]
    assert repeated_lines(pages, settings) == repeated_lines(pages, settings, rows)
    assert any(band_rows(p, settings) for p in pages)  # the pages do have furniture to find


# --- prose_gutter's one-pass precondition --------------------------------------------------


def _line(x0: float, y0: float, n_words: int, bold: bool = False, width: float = 0.0):
    from duocthu_assets.parse.pdf.records import Word, make_fragment

    step = (width / n_words) if width else 30.0
    words = [Word(f"w{k}", (x0 + k * step, y0, x0 + k * step + step - 4, y0 + 10), 10.0, bold, False, int(y0)) for k in range(n_words)]
    return make_fragment(words, int(y0))


def _items(frags, blocks=()):
    from duocthu_assets.parse.pdf.blocks.candidates import BlockCandidate
    from duocthu_assets.parse.pdf.layout.items import Item
    from duocthu_assets.model import BlockKind, BlockShape

    return [Item(f.bbox, fragment=f) for f in frags] + [
        Item(b, block=BlockCandidate(BlockKind.TABLE, BlockShape.SIMPLE_TABLE, b, "test")) for b in blocks
    ]


def _prose_gutter_without_precondition(items, settings, min_lines, monkeypatch):
    from duocthu_assets.parse.pdf.layout import columns as pdf_layout

    with monkeypatch.context() as m:
        m.setattr(pdf_layout, "_may_have_prose_sides", lambda frags, min_words: True)
        return pdf_layout.prose_gutter(items, settings, min_lines)


def test_the_precondition_never_changes_what_prose_gutter_finds(monkeypatch):
    import random

    from duocthu_assets.parse.pdf.layout.columns import prose_gutter
    from duocthu_assets.settings.pdf import PdfSettings

    settings = PdfSettings()
    rng = random.Random(15)
    found = pruned = 0
    for _ in range(600):
        frags = []
        columns = rng.choice([[(40, 250), (300, 520)], [(40, 120), (140, 520)], [(40, 90), (100, 160), (170, 230), (240, 300)]])
        for row in range(rng.randint(2, 14)):
            for x0, x1 in columns:
                if rng.random() < 0.85:
                    n = rng.choice([1, 2, 3, 4, 6, 9])
                    frags.append(_line(x0, 60 + 14 * row, n, bold=rng.random() < 0.3, width=min(x1 - x0, 12.0 * n) if rng.random() < 0.5 else x1 - x0))
        blocks = [(40, 400, 250, 460)] if rng.random() < 0.2 else []
        items = _items(frags, blocks)
        for min_lines in (2, settings.column_min_lines):
            slow = _prose_gutter_without_precondition(items, settings, min_lines, monkeypatch)
            assert prose_gutter(items, settings, min_lines) == slow
            found += slow is not None
            from duocthu_assets.parse.pdf.layout.columns import _may_have_prose_sides
            pruned += not _may_have_prose_sides([i.fragment for i in items if i.fragment is not None], settings.column_min_words)
    assert found > 50 and pruned > 50  # both outcomes exercised


def test_a_table_of_short_cells_under_a_bold_label_column_is_refused_in_one_pass():
    """camelot__budget: without this one-pass refusal, its long table's
    rows of short cells cost a seventh of the document's parse."""
    from duocthu_assets.parse.pdf.layout.columns import _may_have_prose_sides

    # camelot__budget's shape: bold ministry names and plain department labels
    # at the left, cells of numbers beside them; a few labels run to 4 words
    frags = [_line(40, 60, 3, bold=True), _line(40, 74, 4), _line(40, 88, 4)]
    frags += [_line(300 + 60 * c, 60 + 14 * r, 1) for r in range(3) for c in range(4)]
    assert not _may_have_prose_sides(frags, 4.0)
    # side headings beside running text stay possible: every line at the left is a short bold head
    heads = [_line(40, 60 + 14 * r, 3, bold=True) for r in range(3)] + [_line(200, 60 + 14 * r, 9) for r in range(2)]
    heads += [_line(300 + 60 * c, 60 + 14 * r, 1) for r in range(3) for c in range(4)]
    assert _may_have_prose_sides(heads, 4.0)
