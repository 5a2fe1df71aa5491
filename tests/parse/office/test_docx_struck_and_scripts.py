"""Text Word shows crossed out, and superscripts and subscripts
(:mod:`duocthu_assets.parse.inline_marks`). Struck text was read as plain
text: an old dose struck through with the new one typed after it read as two
doses (``0,5 g 0,375 g``). Superscripts and subscripts were glued to their
base: a decree's footnote markers (``đăng ký3``, ``Mẫu số 01a1``), ``x2``,
``10-3`` read as a range. Now ``~~0,5 g~~ 0,375 g`` (named in a warning) and
``x^2``, ``H_2O``, ``10^{-3}``, the PDF reader's convention."""

from __future__ import annotations

import duckdb
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.ingest import ingest_inbox
from tests.support.office import build_docx, texts

STRUCK = "character(s) struck through in Word"


def _parse(build):
    return parse_document(build_docx(build), Format.DOCX, Settings())


def _double_strike(run) -> None:
    run._r.get_or_add_rPr().append(OxmlElement("w:dstrike"))


def dose_struck(doc) -> None:
    p = doc.add_paragraph("Liều khởi đầu ")
    p.add_run("0,5 g").font.strike = True
    p.add_run(" 0,375 g mỗi 12 giờ.")


def test_a_struck_dose_is_kept_marked_and_named():
    def build(doc):
        dose_struck(doc)
        p = doc.add_paragraph("Không gạch: ")
        p.add_run("250 mg").font.strike = False  # <w:strike w:val="0"/>: not struck
        p = doc.add_paragraph("Ngưng dùng ")
        _double_strike(p.add_run("viên 10 mg"))
        p.add_run("; dùng viên 5 mg.")

    doc = _parse(build)
    assert texts(doc) == [
        "Liều khởi đầu ~~0,5 g~~ 0,375 g mỗi 12 giờ.",
        "Không gạch: 250 mg",
        "Ngưng dùng ~~viên 10 mg~~; dùng viên 5 mg.",
    ]
    [warning] = [w for w in doc.warnings if STRUCK in w]
    assert warning.startswith(f"{len('0,5 g') + len('viên 10 mg')} {STRUCK}") and "the first: '0,5 g'" in warning, warning


def test_struck_styles_runs_split_and_table_cells():
    def build(doc):
        doc.styles.add_style("Gạch", WD_STYLE_TYPE.CHARACTER).font.strike = True
        old = doc.styles.add_style("Bản cũ", WD_STYLE_TYPE.PARAGRAPH)
        old.font.strike = True
        doc.styles.add_style("Bản cũ con", WD_STYLE_TYPE.PARAGRAPH).base_style = old
        p = doc.add_paragraph("Chống chỉ định: ")
        p.add_run("suy gan", style="Gạch")
        p.add_run(" suy thận nặng.")
        doc.add_paragraph("Liều cũ 1 g.", style="Bản cũ")
        p = doc.add_paragraph("", style="Bản cũ con")
        p.add_run("Liều kế thừa ")
        p.add_run("2 g").font.strike = False  # the run's own setting decides first
        p = doc.add_paragraph("Tách ")
        for part in ("0,", "75 ", "g"):  # Word splits a word into runs freely: one struck passage
            p.add_run(part).font.strike = True
        table = doc.add_table(rows=1, cols=2)
        table.cell(0, 0).paragraphs[0].add_run("Cefepim").font.strike = True
        table.cell(0, 1).text = "2 g"

    doc = _parse(build)
    assert texts(doc)[:4] == ["Chống chỉ định: ~~suy gan~~ suy thận nặng.", "~~Liều cũ 1 g.~~", "~~Liều kế thừa~~ 2 g", "Tách ~~0,75 g~~"]
    assert any("~~Cefepim~~" in t for t in texts(doc)[4:]), texts(doc)


def test_superscripts_and_subscripts_are_marked():
    def build(doc):
        p = doc.add_paragraph("Diện tích da 1,7 m")
        p.add_run("2").font.superscript = True
        p.add_run("; nồng độ 10")
        for part in ("-", "3"):
            p.add_run(part).font.superscript = True
        p.add_run(" mol/L; H")
        p.add_run("2").font.subscript = True
        p.add_run("O; C")
        p.add_run("max").font.subscript = True
        p.add_run(".")
        p = doc.add_paragraph("Năm 2009")
        p.add_run("(").font.superscript = True  # the parentheses around a note's mark carry nothing of their own
        p.add_run("*").font.superscript = True
        p.add_run(")").font.superscript = True
        p.add_run(" hết.")

    doc = _parse(build)
    assert texts(doc) == ["Diện tích da 1,7 m^2; nồng độ 10^{-3} mol/L; H_2O; C_{max}.", "Năm 2009(*) hết."]


def test_footnote_reference_marks_stay_numbered():
    """A note's reference is written ``[n]`` already: its superscript style
    adds no mark."""
    from duocthu_assets.parse.inline_marks import written
    from duocthu_assets.parse.office.word.styles import Styles
    from duocthu_assets.parse.office.word.walker import Walker

    run = OxmlElement("w:r")
    rpr = OxmlElement("w:rPr")
    align = OxmlElement("w:vertAlign")
    align.set(qn("w:val"), "superscript")
    rpr.append(align)
    run.append(rpr)
    run.append(OxmlElement("w:footnoteReference"))
    assert Walker(Settings(), Styles(None), {}).run_script(run) == ""
    assert written("x\x04 \x05y") == "x y"


def test_a_character_style_that_raises_its_text():
    """A note's mark typed by hand in a character style that sets it as a
    superscript (Word's Footnote Reference, or one based on it), and a
    style that sets a subscript."""

    def build(doc):
        raised = doc.styles.add_style("Dấu chú thích", WD_STYLE_TYPE.CHARACTER)
        raised.font.superscript = True
        doc.styles.add_style("Dấu chú thích con", WD_STYLE_TYPE.CHARACTER).base_style = raised
        doc.styles.add_style("Chỉ số dưới", WD_STYLE_TYPE.CHARACTER).font.subscript = True
        p = doc.add_paragraph("Người yêu cầu đăng ký")
        p.add_run("3", style="Dấu chú thích")
        p.add_run("; Mẫu số 01a")
        p.add_run("1", style="Dấu chú thích con")
        p.add_run("; C")
        p.add_run("max", style="Chỉ số dưới")
        p.add_run("; thường ")
        run = p.add_run("2", style="Dấu chú thích")
        baseline = OxmlElement("w:vertAlign")
        baseline.set(qn("w:val"), "baseline")
        run._r.get_or_add_rPr().append(baseline)  # the run's own setting decides first
        p.add_run(".")

    doc = _parse(build)
    assert texts(doc) == ["Người yêu cầu đăng ký^3; Mẫu số 01a^1; C_{max}; thường 2."]


def test_corpus_struck_cells_and_decree_note_marks(corpus):
    rich = parse_document(corpus("docling__docx_rich_cells_nested.docx").read_bytes(), Format.DOCX, Settings())
    body = texts(rich)
    assert "~~Cell 1~~ | Cell 2 | Cell 3" in body
    assert any("bold, ~~strikethrough~~ and italic formatting with x^2 and H_2O" in t for t in body), body
    assert any(w.startswith(f"32 {STRUCK}") for w in rich.warnings), rich.warnings
    decree = parse_document(corpus("vn__nghi_dinh_99-2022-ND-CP.docx").read_bytes(), Format.DOCX, Settings())
    body = texts(decree)
    assert "Mẫu số 01a^1" in body and "1. Người yêu cầu đăng ký^3" in body
    assert not any(STRUCK in w for w in decree.warnings)


def test_ingest_keeps_the_struck_dose_marked_and_search_says_so(tmp_path, capsys):
    """Through ``duocthu ingest`` and ``duocthu search``: the chunk keeps
    ``~~0,5 g~~ 0,375 g``, and the answer says a struck passage is not in
    force (a search answer for a chunk with none says nothing of it)."""
    import json

    from duocthu_assets.cli import main
    from duocthu_assets.retrieval.answer import STRUCK_NOTICE

    def build(doc):
        dose_struck(doc)
        doc.add_paragraph("Thận trọng khi suy gan nặng, theo dõi men gan hằng tuần.")

    docs = ingest_inbox(tmp_path, {"lieu.docx": build_docx(build)})["docs"]
    assert docs["lieu.docx"]["status"] == "ok", docs
    chunks = [r[0] for r in duckdb.sql(f"SELECT text FROM '{tmp_path / 'wh' / 'chunks'}/*.parquet'").fetchall()]
    assert any("Liều khởi đầu ~~0,5 g~~ 0,375 g mỗi 12 giờ." in t for t in chunks), chunks
    capsys.readouterr()
    assert main(["search", "liều khởi đầu mỗi 12 giờ", "--warehouse", str(tmp_path / "wh"), "--json", "--mode", "lexical"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    struck = [h for h in hits if "~~0,5 g~~" in (h["text"] or "")]
    assert struck and all(STRUCK_NOTICE in h["notices"] for h in struck), hits
    assert all(STRUCK_NOTICE not in h["notices"] for h in hits if "~~" not in (h["text"] or ""))


def _symbol(run, font: str, char: str) -> None:
    sym = OxmlElement("w:sym")
    sym.set(qn("w:font"), font)
    sym.set(qn("w:char"), char)
    run._r.append(sym)


def test_symbol_font_characters_read_as_themselves():
    """Word's Insert > Symbol writes ``<w:sym w:font="Symbol" w:char="F0A3"/>``:
    the Symbol font's code in the private-use area, which read as nothing
    where the page shows ``≤`` (:mod:`duocthu_assets.parse.office.symbol_font`).
    A font with no such table (Wingdings) keeps its code, named in the
    warning as before."""

    def build(doc):
        p = doc.add_paragraph("Clcr ")
        _symbol(p.add_run(), "Symbol", "F0A3")
        p.add_run(" 30 ml/phút: 250 ")
        _symbol(p.add_run(), "Symbol", "F06D")
        p.add_run("g ")
        _symbol(p.add_run(), "Symbol", "F0B1")
        p.add_run(" 10 %; ")
        _symbol(p.add_run(), "Wingdings", "F0FE")
        p.add_run(" đã duyệt")

    doc = _parse(build)
    assert texts(doc) == ["Clcr ≤ 30 ml/phút: 250 µg ± 10 %; \uf0fe đã duyệt"]
    assert "1 symbol characters in font 'Wingdings' kept as their private-use code points" in doc.warnings
    assert not any("'Symbol'" in w for w in doc.warnings)


def test_text_typed_in_the_symbol_font_reads_as_shown():
    """A run set in the Symbol font stores the font's codes: ``£ 30`` is
    shown ``≤ 30``, ``m`` is shown ``µ``; a run in another font is read as
    it is."""

    def build(doc):
        p = doc.add_paragraph("Clcr ")
        p.add_run("£").font.name = "Symbol"
        p.add_run(" 30 ml/phút: 250 ")
        p.add_run("m").font.name = "Symbol"
        p.add_run("g; giá £ 5 ")
        p.add_run("a").font.name = "Times New Roman"

    doc = _parse(build)
    assert texts(doc) == ["Clcr ≤ 30 ml/phút: 250 µg; giá £ 5 a"]
