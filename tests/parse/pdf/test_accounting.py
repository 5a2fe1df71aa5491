"""Every character of a PDF accounted for (issue 16): glyphs that cannot be
read, furniture found by repetition, printed labels, per-page character
accounting, on documents made here and on the corpus (skipped when absent)."""

from __future__ import annotations

import glob
from functools import lru_cache

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.parse.pdf.read.glyphs import UNMAPPED
from duocthu_assets.parse.pdf.read.page import TEXT_FLAGS
from duocthu_assets.settings import Settings
from duocthu_assets.settings.pdf import PdfSettings

from tests.support.paths import CORPUS, corpus_path
from tests.support.docgen import FONT

LINE = "Thuốc được hấp thu nhanh qua đường tiêu hóa, đạt nồng độ tối đa sau {} giờ."


def _pdf(pages: list[list[str]], header: str | None = None, footer: str | None = None) -> bytes:
    doc = pymupdf.open()
    for n, lines in enumerate(pages, start=1):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        if header:
            page.insert_text((60, 40), header.format(n=n, total=len(pages)), fontname="dv", fontsize=8)
        for i, line in enumerate(lines):
            page.insert_text((60, 100 + 16 * i), line, fontname="dv", fontsize=10)
        if footer:
            page.insert_text((60, 810), footer.format(n=n, total=len(pages)), fontname="dv", fontsize=8)
    return doc.tobytes()


@lru_cache(maxsize=None)
def parsed_corpus(name: str):
    return parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


def lost_glyphs_shown_as_fffd(text: str) -> bool:
    """Every unreadable glyph that reaches prose is shown as U+FFFD where it
    stood: no private-use code point or control character (a raw font
    code) is passed on as if it were text."""
    return all(c == "\ufffd" for c in UNMAPPED.findall(text))


def corpus_pdfs() -> list[str]:
    names = []
    for path in sorted(glob.glob(str(CORPUS / "*.pdf"))):
        data = open(path, "rb").read()
        try:
            doc = pymupdf.open(stream=data, filetype="pdf")
        except Exception:  # noqa: BLE001 - empty or unopenable files are other tests' business
            continue
        if not doc.needs_pass or doc.authenticate(""):
            names.append(path.rsplit("/", 1)[-1])
    return names


# --- glyphs that cannot be read (item 2) -------------------------------------------


def test_unmapped_glyphs_are_counted_left_out_and_a_broken_page_needs_ocr():
    good = [LINE.format(i) for i in range(20)]
    good[3] = good[3].replace("hấp", "h\ufffdp")  # one glyph without a mapping on an otherwise fine page
    broken = ["\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd lo \ufffd\ufffd\ufffd\ufffd" for _ in range(20)]
    good[5] = "\ufffd " + good[5]  # a glyph before a line's words (a list's bullet)
    # a ≤ among words, a < glued to a number, one before a number leading its line: no bullets
    good[7] = "Khi Clcr \ufffd 30 ml/phút thì giảm liều còn một nửa so với liều thường dùng."
    good[11] = "Liều tối đa \ufffd50 mg mỗi ngày cho người lớn và trẻ em trên mười hai tuổi."
    good[13] = "\ufffd 10 mg mỗi ngày khi bệnh nhân được thẩm phân máu hoặc thẩm phân phúc mạc."
    # a font whose letters have no mapping inside its words: shown as U+FFFD there, still a broken layer
    inside = ["Th\ufffd\ufffdc h\ufffd\ufffdp th\ufffdu nh\ufffdnh q\ufffda d\ufffd\ufffdng" for _ in range(20)]
    doc = parse_document(_pdf([good, broken, inside]), Format.PDF, Settings(pdf=PdfSettings(ocr=False)))  # the detection, OCR off
    text = " ".join(s.text for s in doc.segments if s.page_no == 1)
    # a glyph lost between two letters stays visible where it stood: "hp thu" read as a
    # whole word would hide that a letter is missing; so does one among a line's words
    # or glued to a number ("Clcr 30 ml/phút: 50 mg" would read as a dose with its
    # comparisons gone); only a bullet before a line's words is left out
    assert "h\ufffdp thu" in text and "hp thu" not in text
    assert "Clcr \ufffd 30 ml/phút" in text and "tối đa \ufffd50 mg" in text and "\ufffd 10 mg mỗi ngày" in text
    assert text.count("\ufffd") == 4
    assert doc.pages_needing_ocr == [2, 3]
    # the page is named in pages_needing_ocr, so no_pages_need_ocr blocks the document before chunking
    assert any("glyph(s) without a Unicode mapping" in w and "page 1: 1" in w for w in doc.warnings)  # the bullet
    assert any(w.startswith("page 2: broken text layer") for w in doc.warnings)
    assert any(w.startswith("page 3: broken text layer") for w in doc.warnings)


@pytest.mark.corpus
def test_math_paper_loses_no_glyph_pymupdf_maps_and_shows_the_lost_ones_in_prose():
    """grobid__0807.3577_jcap_math.pdf: ``page.get_text()`` shows no U+FFFD only
    because it prints raw font codes instead (\\x02, or "P" for TeX's big Σ).
    Our text layer equals get_text's character for character except exactly
    where the glyph has no Unicode mapping, and the U+FFFD that reach prose
    stand where such a glyph stood: p. 14's references (the stroke of ``ł``
    in ``Godłowski``, shown ``God�lowski``) and p. 4's inline integral."""
    name = "grobid__0807.3577_jcap_math.pdf"
    doc = pymupdf.open(corpus_path(name))
    differ = 0
    for page in doc:
        ours = page.get_textpage(flags=TEXT_FLAGS).extractText()
        library = page.get_textpage(flags=TEXT_FLAGS | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE).extractText()
        if len(ours) != len(library):
            continue  # a raw code read as a line break shifts the text; compared on the other pages
        for a, b in zip(ours, library):
            if a != b:
                differ += 1
                assert UNMAPPED.match(a), (page.number + 1, a, b)
    assert differ > 0
    parsed = parsed_corpus(name)
    assert all(lost_glyphs_shown_as_fffd(s.text) for s in parsed.segments)
    # p. 4: the ∫ of an inline formula in running text (leak_02 names its line); p. 14: ł's stroke
    assert [(s.page_no, s.text.count("\ufffd")) for s in parsed.segments if "\ufffd" in s.text] == [(4, 1), (14, 2)]
    assert parsed.pages_needing_ocr == []


@pytest.mark.corpus
def test_a_glyph_lost_between_two_letters_is_shown_where_it_stood():
    """The Korean report p. 4 sets a title in private-use quotation marks:
    the closing one, between ``논점`` and ``은``, read ``논점은`` (a word
    whole and wrong, no sign of the loss); it is shown ``논점�은`` now. The
    opening one, before the line's first word, is left out as a bullet is
    (and counted in the page's account)."""
    parsed = parsed_corpus("docling__normal_4pages_korean.pdf")
    (text,) = [s.text for s in parsed.segments if s.page_no == 4 and "국회의원의 입법활동" in s.text]
    assert "이슈와 논점\ufffd은 국회의원의" in text and all(lost_glyphs_shown_as_fffd(s.text) for s in parsed.segments)
    assert [a.page_no for a in parsed.page_accounts if not a.accounted] == []


# --- character accounting as a blocking check (item 1) ------------------------------


def _browser_print(total: int = 4) -> bytes:
    """A law printed from a browser: a date stamp and ``about:blank`` above,
    ``about:blank N/M`` below, set as close to the body as Chrome sets them."""
    words = ("người sử dụng lao động phải bảo đảm điều kiện làm việc an toàn cho người lao động " * 250).split()
    doc = pymupdf.open()
    k = 0
    for n in range(1, total + 1):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        page.insert_text((20, 16), "00:53 6/4/26", fontname="dv", fontsize=7)
        page.insert_text((280, 16), "about:blank", fontname="dv", fontsize=7)
        page.insert_text((20, 834), "about:blank", fontname="dv", fontsize=7)
        page.insert_text((540, 834), f"{n}/{total}", fontname="dv", fontsize=7)
        for y in range(28, 820, 13):
            page.insert_text((40, y), " ".join(words[k : k + 13]), fontname="dv", fontsize=10)
            k += 13
    return doc.tobytes()


def _rows(data: bytes):
    from checks.rules import DocumentRows
    from duocthu_assets.runtime.isolation import Outcome
    from duocthu_assets.stages import parsed_tables

    parsed = parse_document(data, Format.PDF, Settings())
    tables = parsed_tables("doc.pdf", {"status": "accepted", "format": "pdf", "reason": ""}, Outcome(key="doc.pdf", value=parsed))
    parsed_row = tables["parsed_documents"].to_pylist()[0]
    return DocumentRows("doc.pdf", parsed=parsed_row, segments=tables["segments"].to_pylist(), blocks=tables["lifted_blocks"].to_pylist())


def test_browser_print_furniture_is_recorded_and_never_in_prose():
    parsed = parse_document(_browser_print(), Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    assert "about:blank" not in text and "00:53" not in text and "/4" not in text
    recorded = {(f.page_no, f.text) for f in parsed.furniture}
    assert {(n, "about:blank") for n in range(1, 5)} <= recorded
    assert {(n, f"{n}/4") for n in range(1, 5)} <= recorded
    assert {(n, "00:53 6/4/26") for n in range(1, 5)} <= recorded
    assert all(a.accounted and a.furniture > 0 for a in parsed.page_accounts)


@pytest.mark.parametrize("decorated", ["－{n} －", "- {n} -", "Page {n} of 12", "Trang {n}/12"])
def test_decorated_page_numbers_are_furniture(decorated):
    words = ("người sử dụng lao động phải bảo đảm điều kiện làm việc an toàn cho người lao động " * 60).split()
    pages = [[" ".join(words[p * 7 + 12 * i : p * 7 + 12 * i + 12]) for i in range(30)] for p in range(4)]
    parsed = parse_document(_pdf(pages, footer=decorated), Format.PDF, Settings())
    assert not any(decorated.format(n=n) in s.text for s in parsed.segments for n in range(1, 5))
    assert [f.kind.value for f in parsed.furniture if f.page_no == 2] == ["page_label"]
    assert [s.printed_page for s in parsed.segments if s.page_no == 3][0] == 3


def test_accounting_rule_passes_on_a_real_parse_and_fails_on_each_kind_of_loss():
    import dataclasses

    from checks.accounting import every_pdf_character_accounted

    rows = _rows(_browser_print())
    ok = every_pdf_character_accounted(rows)
    assert ok.passed, ok.message
    assert ok.message.startswith("all ") and "in furniture" in ok.message

    # a line dropped unrecorded: fewer characters out than in
    accounts = [dict(a) for a in rows.parsed["page_accounts"]]
    accounts[1]["prose"] -= 40
    accounts[1]["missing"] = 40
    bad = every_pdf_character_accounted(dataclasses.replace(rows, parsed={**rows.parsed, "page_accounts": accounts}))
    assert not bad.passed and bad.pages == (2,) and bad.count == 40
    assert bad.message.startswith("40 character(s) of the text layer unaccounted for on 1 page(s): page 2:")

    # a line in two places (a table's row also left in the prose)
    accounts = [dict(a) for a in rows.parsed["page_accounts"]]
    accounts[0]["blocks"] += 25
    accounts[0]["duplicated"] = 25
    bad = every_pdf_character_accounted(dataclasses.replace(rows, parsed={**rows.parsed, "page_accounts": accounts}))
    assert not bad.passed and bad.pages == (1,) and "25 in two" in bad.message

    # the furniture record lost a line
    furniture = [f for f in rows.parsed["furniture"] if not (f["page_no"] == 3 and f["text"] == "about:blank")]
    bad = every_pdf_character_accounted(dataclasses.replace(rows, parsed={**rows.parsed, "furniture": furniture}))
    assert not bad.passed and bad.pages == (3,) and "recorded" in bad.message

    # the segments of a page gone after the parse
    bad = every_pdf_character_accounted(dataclasses.replace(rows, segments=[s for s in rows.segments if s["page_no"] != 4]))
    assert not bad.passed and bad.pages == (4,) and "no segment on the page" in bad.message


@pytest.mark.slow
def test_accounting_check_blocks_the_document_through_dagster(tmp_path, monkeypatch):
    """Through ``duocthu ingest``: a parse whose furniture record lost a line
    is blocked by every_pdf_character_accounted, a page of unmapped glyphs by
    no_pages_need_ocr; the good PDF is indexed."""
    import json

    import pyarrow.parquet as pq

    from duocthu_assets.assets import parsing
    from duocthu_assets.cli import main
    from duocthu_assets.schemas import table_from_rows

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "a_good.pdf").write_bytes(_browser_print())
    (inbox / "b_bad.pdf").write_bytes(_browser_print(3))
    broken = ["\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd lo \ufffd\ufffd\ufffd\ufffd" for _ in range(20)]
    (inbox / "off").mkdir()
    (inbox / "off" / "collection.toml").write_text("[pdf]\nocr = false\n", encoding="utf-8")  # the detection, OCR off
    (inbox / "off" / "c_broken.pdf").write_bytes(_pdf([[LINE.format(i) for i in range(20)], broken]))
    real = parsing.parsed_tables

    def losing_a_footer(doc_id, *args, **kwargs):
        tables = real(doc_id, *args, **kwargs)
        if doc_id == "b_bad.pdf":
            row = tables["parsed_documents"].to_pylist()[0]
            row["furniture"] = [f for f in row["furniture"] if not (f["page_no"] == 2 and f["text"] == "2/3")]
            tables["parsed_documents"] = table_from_rows("parsed_documents", [row])
        return tables

    monkeypatch.setattr(parsing, "parsed_tables", losing_a_footer)
    report = tmp_path / "r.json"
    assert main(["ingest", str(inbox), "--warehouse", str(tmp_path / "wh"), "--report", str(report), "--quiet"]) == 1
    docs = {d["doc_id"].replace("off-", "").replace("off/", ""): d for d in json.loads(report.read_text())["documents"]}
    assert docs["a_good.pdf"]["status"] == "ok", docs
    assert docs["b_bad.pdf"]["status"] == "blocked"
    assert docs["b_bad.pdf"]["failed_checks"] == ["every_pdf_character_accounted"]
    assert "3 character(s) of the text layer unaccounted for on 1 page(s): page 2: 36 furniture characters counted, 33 recorded" in json.dumps(docs["b_bad.pdf"], ensure_ascii=False)
    # a broken text layer is named by the blocking check like a page needing OCR
    assert docs["c_broken.pdf"]["status"] == "blocked"
    assert docs["c_broken.pdf"]["failed_checks"] == ["no_pages_need_ocr"]
    assert "glyphs without a Unicode mapping, only an OCR program's reading of a scan, which no reader sees, or a scanned picture with no text over it) and need OCR: 2" in json.dumps(docs["c_broken.pdf"], ensure_ascii=False)
    indexed = set(pq.read_table(tmp_path / "wh" / "search_index" / "index.parquet").column("doc_id").to_pylist())
    assert indexed == {"a_good.pdf"}


# --- printed pages that can be trusted (item 5) -------------------------------------


def _report(labels: list[str], year_footer: bool = True) -> bytes:
    """A report whose footer prints the year beside its real page label."""
    words = ("the survey covers every district and reports the indicators below for each year " * 200).split()
    doc = pymupdf.open()
    for n, label in enumerate(labels):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        for i in range(35):
            page.insert_text((60, 80 + 18 * i), " ".join(words[n * 9 + 11 * i : n * 9 + 11 * i + 11]), fontname="dv", fontsize=10)
        if year_footer:
            page.insert_text((60, 800), "2007", fontname="dv", fontsize=8)
        page.insert_text((500, 800), label, fontname="dv", fontsize=8)
    return doc.tobytes()


def test_a_year_beside_the_page_label_is_not_the_printed_page():
    parsed = parse_document(_report(["A-41", "A-42", "A-43"]), Format.PDF, Settings())
    assert parsed.page_labels == ["A-41", "A-42", "A-43"]
    assert {(s.page_no, s.printed_page, s.printed_label) for s in parsed.segments} == {(1, None, "A-41"), (2, None, "A-42"), (3, None, "A-43")}
    assert not any("2007" in s.text for s in parsed.segments)  # furniture all the same


def test_a_number_is_a_page_number_only_in_a_consistent_sequence():
    parsed = parse_document(_report(["17", "18", "19"], year_footer=False), Format.PDF, Settings())
    assert parsed.page_labels == ["17", "18", "19"]
    assert [s.printed_page for s in parsed.segments if s.page_no == 2][:1] == [18]
    # numbers whose offset from the physical page changes are not page numbers
    parsed = parse_document(_report(["17", "3", "40"], year_footer=False), Format.PDF, Settings())
    assert parsed.page_labels == ["", "", ""]
    # a lone year on a one-page document is not a page number either
    parsed = parse_document(_report(["2019"], year_footer=False), Format.PDF, Settings())
    assert parsed.page_labels == [""] and parsed.segments[0].printed_page is None


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, labels",
    [
        ("pdfminer__pagelabels.pdf", ["iii", "iv", "1", "2", "1"]),
        ("pdfjs__issue14847_fop_roman_labels.pdf", ["i", "ii", "iii", "iv", "1", "2"]),
    ],
)
def test_the_pdfs_own_page_labels_win(name, labels):
    parsed = parsed_corpus(name)
    assert parsed.page_labels == labels
    for s in parsed.segments:
        assert s.printed_label == labels[s.page_no - 1]
        assert s.printed_page == (int(s.printed_label) if s.printed_label.isdigit() else None)


@pytest.mark.corpus
def test_federal_register_page_numbers_form_a_sequence():
    parsed = parsed_corpus("pdfplumber__federal-register-2020-17221.pdf")
    assert parsed.page_labels == [str(47697 + n) for n in range(1, 16)]


def test_descriptor_names_a_page_by_its_printed_label_and_the_check_reads_it_back():
    from checks.adr0006 import descriptor_range_not_attachment_page
    from checks.rules import DocumentRows
    from duocthu_assets.chunking.descriptors import describe_block, page_reference

    text = describe_block("REPORT", "Annex", "table", None, 44, "en", printed_label="A-42")
    assert text == "REPORT — Annex — table, printed page A-42."
    assert page_reference(text) == ("printed", "A-42")
    assert describe_block("X", "", "table", 12, 14, "vi", printed_label="12") == "X — bảng, trang in 12."

    def rows(label: str) -> DocumentRows:
        attachment = {"block_id": "p0044-t1", "physical_page": 44, "printed_page": None, "printed_label": label}
        chunk = {"chunk_id": "d:annex:block:p0044-t1", "chunk_kind": "block_descriptor", "text": text, "attachments": [attachment], "regions": []}
        return DocumentRows("d", chunks=[chunk])

    assert descriptor_range_not_attachment_page(rows("A-42")).passed
    assert not descriptor_range_not_attachment_page(rows("A-43")).passed


# --- reading order with rotated and vertical text (item 3) ---------------------------


@pytest.mark.corpus
@pytest.mark.parametrize(
    "name, stamp",
    [
        ("grobid__0908.0054v1_arxiv_revtex.pdf", "arXiv:0908.0054v1 [astro-ph.CO] 1 Aug 2009"),
        ("papermage__2202.00535v1_aaai.pdf", "arXiv:2202.00535v1 [cs.CL] 1 Feb 2022"),
        ("unstructured__multi-column_dpr.pdf", "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020"),
    ],
)
def test_arxiv_margin_stamp_is_furniture_never_in_prose(name, stamp):
    parsed = parsed_corpus(name)
    assert [(f.page_no, f.kind.value) for f in parsed.furniture if f.text == stamp] == [(1, "margin_stamp")]
    assert not any(stamp.split()[0] in s.text for s in parsed.segments)


@pytest.mark.corpus
def test_vertical_axis_title_is_its_own_segment():
    parsed = parsed_corpus("unstructured__multi-column_dpr.pdf")
    assert [s.text for s in parsed.segments if s.page_no == 5 and "Top-k accuracy" in s.text] == ["Top-k accuracy (%)"]


@pytest.mark.corpus
def test_typesetters_job_line_and_margin_stamp_are_furniture():
    """GPO's job line and margin stamp are set in white on the white page:
    furniture of kind ``hidden`` (``read/hidden.pale_words``), on every page."""
    parsed = parsed_corpus("pdfplumber__federal-register-2020-17221.pdf")
    assert not any("VerDate" in s.text or "DSKJLSW7X2PROD" in s.text for s in parsed.segments)
    assert {f.page_no for f in parsed.furniture if f.kind.value == "hidden" and "DSKJLSW7X2PROD" in f.text} == set(range(1, 16))
    assert {f.page_no for f in parsed.furniture if f.kind.value == "hidden" and f.text.startswith("VerDate")} == set(range(1, 16))


def prose_order_violations(name: str) -> tuple[int, list[tuple[int, str, str]]]:
    """Pairs of PyMuPDF text blocks on one page where ``sort=True`` agrees
    with column geometry (one block wholly above the other, in the same
    column: they overlap horizontally by half the narrower), both landing in
    prose; a violation is a pair whose first lines come out of our segments
    in the other order. Returns (pairs compared, violations)."""
    parsed = parsed_corpus(name)
    doc = pymupdf.open(corpus_path(name))
    pairs, bad = 0, []
    for page in doc:
        segments = [(k, s) for k, s in enumerate(parsed.segments) if s.page_no == page.number + 1 and s.bbox]
        blocks = []
        for b in page.get_text("dict", sort=True)["blocks"]:
            lines = [ln for ln in b.get("lines", ()) if abs(ln["dir"][0] - 1) < 0.01 and "".join(sp["text"] for sp in ln["spans"]).strip()]
            if not lines:
                continue
            x0, y0, x1, y1 = lines[0]["bbox"]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            hits = [k for k, s in segments if s.bbox[0] - 1 <= cx <= s.bbox[2] + 1 and s.bbox[1] - 1 <= cy <= s.bbox[3] + 1]
            if hits:
                blocks.append((b["bbox"], min(hits), "".join(sp["text"] for sp in lines[0]["spans"])[:40]))
        for i, (a, ka, ta) in enumerate(blocks):
            for b, kb, tb in blocks[i + 1 :]:
                if min(a[2], b[2]) - max(a[0], b[0]) < 0.5 * min(a[2] - a[0], b[2] - b[0]):
                    continue
                if a[3] <= b[1] or b[3] <= a[1]:
                    pairs += 1
                    (first, kf, tf), (second, ks, ts) = ((a, ka, ta), (b, kb, tb)) if a[3] <= b[1] else ((b, kb, tb), (a, ka, ta))
                    if kf > ks:
                        bad.append((page.number + 1, tf, ts))
    return pairs, bad


KNOWN_ORDER_FAILURES: set[str] = set()


def _born_digital(known_failures: set[str] = frozenset()) -> list:
    out = []
    for name in corpus_pdfs():
        mark = [pytest.mark.xfail(strict=True, reason="known failure")] if name in known_failures else []
        out.append(pytest.param(name, marks=mark, id=name))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("name", _born_digital(KNOWN_ORDER_FAILURES))
def test_prose_order_follows_the_pages_own_blocks(name):
    parsed = parsed_corpus(name)
    if len(parsed.pages_needing_ocr) == parsed.page_count:
        pytest.skip("scanned: no text layer to order")
    pairs, bad = prose_order_violations(name)
    assert bad == [], f"{len(bad)} of {pairs} same-column block pairs out of order: {bad[:5]}"


@pytest.mark.corpus
@pytest.mark.parametrize("name", _born_digital())
def test_every_character_accounted_and_no_fffd_in_prose(name):
    parsed = parsed_corpus(name)
    assert [a.page_no for a in parsed.page_accounts if not a.accounted] == []
    assert all(lost_glyphs_shown_as_fffd(s.text) for s in parsed.segments)
