"""Vietnamese typed in a legacy font encoding blocks its document (leak_02).

A law, a hospital's guideline or a sheet typed in a TCVN3 (``.VnTime``) or
VNI font stores its Vietnamese as Latin-1 letters: ``Céng hoµ x· héi`` for
"Cộng hoà xã hội". The text is valid Unicode and ftfy calls it no mojibake,
so it was embedded, unfindable, and the document ingested ok. Real text in
Unicode — Vietnamese, and the European languages whose accents share those
code points — is not flagged."""

from __future__ import annotations

import io

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.parse.legacy_fonts import encoding_of, legacy_fonts
from duocthu_assets.parse.encoding.legacy_vietnamese import TCVN3, VNI, is_syllable, legacy_readings, tcvn3_reading, typed_in_tcvn3, typed_in_vni, vni_reading
from duocthu_assets.parse.encoding.mojibake import legacy_vietnamese_window, legacy_words, misencoded_window, misencoding

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.docgen import make_docx, make_text_pdf, make_xlsx

DOSE = "Liều dùng cho người lớn: uống 500 mg mỗi lần, ngày hai lần, sau bữa ăn; người suy thận giảm liều theo độ thanh thải creatinin."
DECREE = "Căn cứ Luật Tổ chức Chính phủ; theo đề nghị của Bộ trưởng Bộ Y tế, Chính phủ ban hành Nghị định quy định về thuốc thiết yếu."


@pytest.mark.parametrize(
    ("typed", "encoding", "reading"),
    [
        # as public converters print them (vietnamese-conversion's README, a TCVN3 converter's examples)
        ("B¶o", TCVN3, "Bảo"),
        ("Th¾ng", TCVN3, "Thắng"),
        ("M\u00adêng", TCVN3, "Mường"),  # ư is the soft hyphen: the converter's README lost it
        ("Kh\u00ad¬ng", TCVN3, "Khương"),
        ("X¸t", TCVN3, "Xát"),
        ("HOµ", TCVN3, "HOÀ"),  # capitals (.VnTimeH) at the lowercase codes
        ("ng-êi", TCVN3, "người"),  # 0xAD, ư, read through WinAnsi as a hyphen (a PDF without ToUnicode)
        ("§IÒU", TCVN3, "ĐIỀU"),
        ("chaøo", VNI, "chào"),
        ("caùc", VNI, "các"),
        ("baïn", VNI, "bạn"),
    ],
)
def test_a_legacy_word_reads_as_its_syllable(typed, encoding, reading):
    read = tcvn3_reading(typed) if encoding == TCVN3 else vni_reading(typed)
    assert read == reading
    assert (encoding, reading) in [(e, r) for e, r, _ in legacy_readings(typed)]


@pytest.mark.parametrize("word", ["nghiêng", "quyết", "khuya", "giữa", "Nguyễn", "gìn", "xoong", "người", "ở", "ĐIỀU", "thuở"])
def test_vietnamese_syllables_are_syllables_and_read_as_no_legacy_word(word):
    assert is_syllable(word) and legacy_readings(word) == ()


@pytest.mark.parametrize("typing", [typed_in_tcvn3, typed_in_vni], ids=["TCVN3", "VNI"])
@pytest.mark.parametrize("text", [DOSE, DECREE])
def test_legacy_typed_vietnamese_is_found_and_read(typing, text):
    typed = typing(text)
    assert misencoded_window(typed) is None  # ftfy's mojibake does not see it
    found = legacy_vietnamese_window(typed)
    assert found is not None and found.encoding == (TCVN3 if typing is typed_in_tcvn3 else VNI)
    assert " ".join(found.readings) in text  # the words shown with what they mean
    assert misencoding(typed).startswith(f"Vietnamese typed in a legacy font encoding ({found.encoding}), not Unicode")


@pytest.mark.parametrize(
    "text",
    [
        DOSE,
        DECREE,
        "Kích thước hạt 10 µm × 20 µm × 30 µm; các tháng có kích thước khác nhau, quyết định của Nguyễn Văn A.",
        "Ele é o que é, só há lá um pé de café; você não sabe, mas a mãe já fez o almoço às três horas.",
        "¿Qué sé yo? Sí, tú y él están aquí, más o menos; el niño José Pérez comió a las diez.",
        "Où est-il ? Il a dû partir en août ; la fête de Noël, le maïs et la crème brûlée du café « Bonjour ».",
        "Für die Müller-Straße in Zürich: Öl, Bär, Tür und Söhne; schön über alles, N·m und kg·m².",
        "Søndag, mandag og lørdag: på søn. og lør. er butikken åpen; gün, süt, söz ve için bugün çok güzel.",
    ],
    ids=["vietnamese-dose", "vietnamese-decree", "vietnamese-units", "portuguese", "spanish", "french", "german", "nordic-turkish"],
)
def test_real_text_is_not_legacy_vietnamese(text):
    assert legacy_vietnamese_window(text) is None and misencoding(text) is None


@pytest.mark.corpus
@pytest.mark.parametrize("typing", [typed_in_tcvn3, typed_in_vni], ids=["TCVN3", "VNI"])
def test_a_real_decree_typed_in_a_legacy_encoding_is_found_paragraph_by_paragraph(typing):
    """vn__nghi_dinh_19-2019-ND-CP.docx (a real decree): its paragraphs of
    ten words or more, as they stand, are never flagged; typed in TCVN3 or
    VNI, all but one or two are. A paragraph left unflagged holds too few
    words that only a legacy encoding reads (``a) Góp một hoặc nhiều phần họ
    …`` in TCVN3: ``Gãp``, ``hä`` are syllables as they stand, and no code
    in it is a sign); its neighbours block the document."""
    import docx

    paragraphs = [p.text for p in docx.Document(str(corpus_path("vn__nghi_dinh_19-2019-ND-CP.docx"))).paragraphs if len(p.text.split()) >= 10]
    assert len(paragraphs) > 50
    assert [p for p in paragraphs if misencoding(p)] == []
    missed = [p for p in paragraphs if legacy_vietnamese_window(typing(p)) is None]
    assert len(missed) <= len(paragraphs) // 50, missed


def test_leak_02_names_a_table_row_in_a_legacy_encoding():
    chunks = [
        {"chunk_id": "d:s:0", "chunk_kind": "prose", "text": DOSE},
        {"chunk_id": "d:t:1", "chunk_kind": "table_row", "text": "Thuốc: Amoxicilin | Liều: " + typed_in_tcvn3(DOSE)},
    ]
    result = flattened_math_in_prose(DocumentRows("d", chunks=chunks, raw={"format": "xlsx"}))
    assert not result.passed and result.offending_ids == ("d:t:1",)
    assert "d:t:1: a table row: Vietnamese typed in a legacy font encoding (TCVN3)" in result.message, result.message


def _winansi_pdf(path, lines: list[str]) -> None:
    """A PDF set in a WinAnsi font with no ToUnicode map, as a .VnTime
    document printed to PDF is: its text is read through the encoding."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for k, line in enumerate(lines):
        page.insert_text((72, 72 + 16 * k), line, fontname="helv", fontsize=11)
    path.write_bytes(doc.tobytes(garbage=4, deflate=True, no_new_id=True))


@pytest.mark.slow
def test_documents_typed_in_a_legacy_encoding_are_blocked(tmp_path):
    """Through ``duocthu ingest``: a DOCX typed in a .VnTime font, a PDF
    whose text layer reads the same (with a ToUnicode map, and without one:
    ``ư``, 0xAD, then reads as a hyphen), and a sheet whose cells are typed
    in a VNI font are blocked by leak_02, which names the encoding and what
    the words mean; the same documents in Unicode are ok."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, typing in (("unicode", str), ("legacy", None)):
        tcvn3 = typing or typed_in_tcvn3
        vni = typing or typed_in_vni
        make_docx(inbox / f"{name}.docx", [(tcvn3("Liều dùng"), [tcvn3(DOSE), tcvn3(DECREE)])])
        make_text_pdf(inbox / f"{name}.pdf", [[tcvn3("Liều dùng"), tcvn3(DOSE[:60]), tcvn3(DOSE[60:]), tcvn3(DECREE[:60]), tcvn3(DECREE[60:])]])
        make_xlsx(inbox / f"{name}.xlsx", ["Thuốc", "Liều dùng"], [["Amoxicilin", vni(DOSE)], ["Paracetamol", vni(DECREE)]])
    _winansi_pdf(inbox / "legacy-winansi.pdf", [typed_in_tcvn3(DOSE[:64]), typed_in_tcvn3(DOSE[64:])])  # (WinAnsi holds no Unicode Vietnamese)
    docs = ingest_inbox(tmp_path)["docs"]
    for name, encoding in (("docx", TCVN3), ("pdf", TCVN3), ("xlsx", VNI), ("-winansi.pdf", TCVN3)):
        if not name.startswith("-"):
            assert docs[f"unicode.{name}"]["status"] == "ok", docs[f"unicode.{name}"]
        legacy = docs[f"legacy{name}" if name.startswith("-") else f"legacy.{name}"]
        assert legacy["status"] == "blocked" and legacy["failed_checks"] == ["leak_02_flattened_math_in_prose"], legacy
        assert f"Vietnamese typed in a legacy font encoding ({encoding}), not Unicode" in legacy["reason"], legacy["reason"]
    assert "reads 'Liều dùng Liều dùng cho người lớn: uống 500 mg'" in docs["legacy.docx"]["reason"], docs["legacy.docx"]["reason"]
    assert "reads 'dùng cho người lớn: uống 500 mg mỗi lần, ngày'" in docs["legacy-winansi.pdf"]["reason"], docs["legacy-winansi.pdf"]["reason"]
    assert "legacy.xlsx:data:1: a table row: Vietnamese typed in a legacy font encoding (VNI)" in docs["legacy.xlsx"]["reason"]
    assert "reads 'Căn cứ Luật Tổ chức Chính phủ; theo đề nghị'" in docs["legacy.xlsx"]["reason"]


PRICE_LIST = [["Amoxicilin 500 mg", "Viên", 1200], ["Paracetamol 500 mg", "Vỉ", 9000], ["Oresol", "Gói", 2500], ["Vitamin C", "Lọ", 30000]]


def _price_list(path, font: str, typing) -> None:
    """A sheet of short cells (drug, unit, price) set in ``font``: too short
    for a run of three legacy words in any one row."""
    import openpyxl
    from openpyxl.styles import Font

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Drug", "Unit", "Price"])
    for drug, unit, price in PRICE_LIST:
        sheet.append([drug, typing(unit), price])
    for row in sheet.iter_rows():
        for cell in row:
            cell.font = Font(name=font)
    workbook.save(str(path))


@pytest.mark.parametrize(
    ("font", "encoding"),
    [(".VnTime", TCVN3), ("ABCDEF+.VnTimeH", TCVN3), ("BCDEFG+#2EVnArial", TCVN3), ("VNI-Times", VNI), ("TimesNewRomanPSMT", None), ("Arial", None)],
)
def test_a_fonts_name_says_its_legacy_encoding(font, encoding):
    assert encoding_of(font) == encoding


def test_legacy_fonts_are_read_off_docx_xlsx_and_pdf(tmp_path):
    import docx
    import pymupdf

    document = docx.Document()
    document.add_paragraph().add_run(typed_in_tcvn3(DOSE)).font.name = ".VnTime"
    document.save(str(tmp_path / "a.docx"))
    _price_list(tmp_path / "b.xlsx", "VNI-Times", typed_in_vni)
    pdf = make_text_pdf(tmp_path / "c.pdf", [[typed_in_tcvn3(DOSE[:60])]])
    doc = pymupdf.open(pdf)
    xref = doc[0].get_fonts()[0][0]
    doc.xref_set_key(xref, "BaseFont", "/ABCDEF+#2EVnTime")  # as a .VnTime subset is named
    doc.save(tmp_path / "d.pdf")
    assert legacy_fonts((tmp_path / "a.docx").read_bytes(), "docx") == {TCVN3: [".VnTime"]}
    assert legacy_fonts((tmp_path / "b.xlsx").read_bytes(), "xlsx") == {VNI: ["VNI-Times"]}
    assert legacy_fonts(pdf.read_bytes(), "pdf") == {}
    assert legacy_fonts((tmp_path / "d.pdf").read_bytes(), "pdf") == {TCVN3: ["ABCDEF+.VnTime"]}


@pytest.mark.slow
def test_a_sheet_of_short_cells_set_in_a_legacy_font_is_blocked(tmp_path):
    """Through ``duocthu ingest``: a price list whose unit cells are one
    word each (``Viªn``, ``Gãi``), set in ``.VnTime``, is blocked — the
    font's name proves the encoding, and the words read as Vietnamese only
    in it; the same list in Unicode, still set in ``.VnTime``, is ok, and
    so is the legacy one set in Calibri, which no run of three words or
    font gives away (measured, not wanted: the limit of a text test)."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    _price_list(inbox / "legacy.xlsx", ".VnTime", typed_in_tcvn3)
    _price_list(inbox / "unicode.xlsx", ".VnTime", str)
    _price_list(inbox / "calibri.xlsx", "Calibri", typed_in_tcvn3)
    docs = ingest_inbox(tmp_path)["docs"]
    assert docs["unicode.xlsx"]["status"] == "ok", docs["unicode.xlsx"]
    assert docs["calibri.xlsx"]["status"] == "ok", docs["calibri.xlsx"]
    legacy = docs["legacy.xlsx"]
    assert legacy["status"] == "blocked" and legacy["failed_checks"] == ["leak_02_flattened_math_in_prose"], legacy
    assert "not Unicode: the document is set in .VnTime, and 'Viªn' reads 'Viên'" in legacy["reason"], legacy["reason"]


@pytest.mark.corpus
def test_a_unicode_decree_whose_template_names_legacy_fonts_passes():
    """vn__nghi_dinh_19-2019-ND-CP.docx is in Unicode, but its template's
    styles name 19 ``.Vn`` fonts and ``VNI-Times``: a font's name is no
    proof by itself, the words must read as Vietnamese only in its
    encoding. Typed in TCVN3, the same paragraphs fail."""
    import docx

    data = corpus_path("vn__nghi_dinh_19-2019-ND-CP.docx").read_bytes()
    fonts = legacy_fonts(data, "docx")
    assert ".VnTime" in fonts[TCVN3] and fonts[VNI] == ["VNI-Times"]
    paragraphs = [p.text for p in docx.Document(io.BytesIO(data)).paragraphs if p.text.strip()]

    def leak_02(typing):
        chunks = [{"chunk_id": f"d:p:{i}", "chunk_kind": "prose", "text": typing(p)} for i, p in enumerate(paragraphs)]
        return flattened_math_in_prose(DocumentRows("d", raw={"format": "docx"}, chunks=chunks, source=data))

    assert leak_02(str).passed, leak_02(str).message
    typed = leak_02(typed_in_tcvn3)
    by_run = {f"d:p:{i}" for i, p in enumerate(paragraphs) if misencoding(typed_in_tcvn3(p))}
    by_font = {f"d:p:{i}" for i, p in enumerate(paragraphs) if legacy_words(typed_in_tcvn3(p), TCVN3)}
    assert not typed.passed and typed.count == len(by_run | by_font) == len(paragraphs)
    assert len(by_font - by_run) >= 10  # short paragraphs (``Ch­¬ng I``, ``§iÒu 5. …``) the run alone misses
