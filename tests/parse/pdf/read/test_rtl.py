"""Arabic-script PDFs: glyphs that stand for several letters (the lam-alef
ligature) read back in the font's order (duocthu_assets.parse.pdf.read.rtl), and
text read through a broken glyph map found and blocked (leak_02,
duocthu_assets.parse.encoding.mojibake.broken_glyph_map_window)."""

from __future__ import annotations

import re

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.encoding.mojibake import broken_glyph_map_window, misencoding
from duocthu_assets.parse.pdf.read.rtl import dropped_before_ligature, glyph_order, out_of_order, reading_order, reorder_words, right_to_left_table, row_reading_order, rtl_words
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.pdf_pages import html_page


def line(*chars):
    return [(c, x0, x1) for c, x0, x1 in chars]


# "خلال" (during) as MuPDF gives it from a PDF whose font draws "لا" as one glyph
# (docling__right_to_left_01_arabic.pdf, line 1): the alef, with no width, at
# the ligature's right edge, ahead of the lam that carries the glyph's width
KHALAL_AS_READ = line(("خ", 358.9, 366.0), ("ا", 359.0, 359.0), ("ل", 351.6, 359.0), ("ل", 345.5, 351.6))


def test_a_lam_alef_ligature_reads_lam_then_alef():
    assert "".join(c for c, _, _ in KHALAL_AS_READ) == "خالل"
    assert glyph_order(KHALAL_AS_READ) == "خلال"


def test_the_article_before_a_hamza_alef_ligature():
    # "الإنتاجية": ا, then the glyph لإ read as إ (no width) before ل
    chars = line(("ا", 485.7, 488.7), ("إ", 485.8, 485.8), ("ل", 479.2, 485.8), ("ن", 475.5, 479.2))
    assert glyph_order(chars) == "الإن"


def test_a_glyph_of_three_letters_keeps_its_order():
    # a font's ligature for "لله" in "الله": the glyph's later letters stand, with no width, at its right edge
    chars = line(("ا", 110.0, 113.0), ("ه", 110.0, 110.0), ("ل", 110.0, 110.0), ("ل", 100.0, 110.0))
    assert glyph_order(chars) == "الله"


def test_marks_and_letters_with_their_own_place_are_left_alone():
    # tanwin (a mark, no width by nature) before the alef it sits on, as MuPDF and docling give it
    tanwin = line(("ض", 207.5, 212.0), ("ً", 207.5, 207.5), ("ا", 204.7, 207.5))
    assert glyph_order(tanwin) == "ضًا"
    # the definite article, each letter its own glyph: "ال"
    article = line(("ا", 423.4, 426.3), ("ل", 420.3, 423.4), ("م", 414.7, 420.3))
    assert glyph_order(article) == "الم"
    # a letter of no width that stands nowhere near the next letter's edge
    stray = line(("ا", 50.0, 50.0), ("ل", 40.0, 45.0))
    assert glyph_order(stray) == "ال"
    # Latin text is never touched
    assert glyph_order(line(("f", 10.0, 10.0), ("i", 5.0, 10.0))) == "fi"


def test_words_take_their_letters_from_the_reordered_line():
    assert reorder_words(["من", "خالل"], "من خالل", "من خلال") == ["من", "خلال"]
    assert reorder_words(["كلمة"], "من خالل", "من خلال") is None  # MuPDF cut the line otherwise: left as read


def test_words_of_a_page_are_reordered_by_line():
    raw = {"blocks": [{"type": 0, "lines": [{"dir": (1.0, 0.0), "spans": [{"chars": [
        {"c": c, "bbox": (x0, 0, x1, 10)} for c, x0, x1 in [("م", 370.0, 375.0), ("ن", 366.0, 370.0), (" ", 366.0, 366.0)] + KHALAL_AS_READ
    ]}]}]}]}
    words = [(366.0, 0, 375.0, 10, "من", 0, 0, 0), (345.5, 0, 366.0, 10, "خالل", 0, 0, 1)]
    assert rtl_words(raw, words) == ([words[0], (345.5, 0, 366.0, 10, "خلال", 0, 0, 1)], 0)


# "مقدار مصرف: روزانه ۲ بار، هر بار ۵۰۰" (dose: twice a day, 500 each) as MuPDF reads a Chromium
# print of it: the numbers' runs set apart and the line's pieces in the wrong order
DOSE_AS_READ = line(
    ("ب", 390.9, 394.8), ("ا", 386.7, 390.9), ("ر", 379.9, 386.7), ("۵", 352.9, 360.4), ("۰", 360.4, 367.9), ("۰", 367.9, 375.5),
    (" ", 375.5, 379.9), (" ", 438.2, 442.7), ("ب", 434.3, 438.2), ("ا", 430.1, 434.4), ("ر", 423.3, 430.1), ("،", 418.8, 423.3),
    (" ", 414.4, 418.8), ("ه", 407.0, 414.4), ("ر", 399.3, 407.0), (" ", 394.8, 399.3), ("۲", 442.7, 450.2), (" ", 450.2, 454.7),
    ("م", 570.8, 578.3), ("ق", 563.7, 570.8), ("د", 556.3, 563.7), ("ا", 552.4, 556.3), ("ر", 545.7, 552.4), (" ", 541.2, 545.7),
    ("م", 533.7, 541.2), ("ص", 521.6, 533.7), ("ر", 513.9, 521.6), ("ف", 499.4, 513.9), (":", 494.7, 499.4), (" ", 490.2, 494.7),
    ("ر", 483.5, 490.2), ("و", 476.7, 483.5), ("ز", 470.0, 476.7), ("ا", 466.1, 470.0), ("ن", 462.2, 466.1), ("ه", 454.7, 462.2),
)


def test_a_line_read_out_of_order_is_read_again_from_its_places():
    assert out_of_order(DOSE_AS_READ)
    text = "".join(DOSE_AS_READ[k][0] for k in reading_order(DOSE_AS_READ))
    assert text == "مقدار مصرف: روزانه ۲ بار، هر بار ۵۰۰"
    # numbers and Latin words keep their own direction inside the line: "R", "47.5"
    mixed = line(("ب", 300.0, 310.0), (" ", 296.0, 300.0), ("R", 290.0, 296.0), (" ", 286.0, 290.0), ("و", 280.0, 286.0),
                 (" ", 276.0, 280.0), ("4", 240.0, 246.0), ("7", 246.0, 252.0), (".", 252.0, 255.0), ("5", 255.0, 261.0), (" ", 261.0, 270.0))
    assert "".join(mixed[k][0] for k in reading_order(mixed)).split() == ["ب", "R", "و", "47.5"]


def test_a_line_in_reading_order_is_left_as_read():
    assert not out_of_order(KHALAL_AS_READ)
    # an Arabic line with a Latin phrase, as MuPDF gives docling's right_to_left_01: in order
    assert not out_of_order(line(("ب", 300.0, 310.0), (" ", 296.0, 300.0), ("R", 290.0, 296.0), (" ", 286.0, 290.0), ("و", 280.0, 286.0),
                                 (" ", 276.0, 280.0), ("P", 240.0, 246.0), ("y", 246.0, 252.0), (" ", 236.0, 240.0), ("م", 226.0, 236.0)))
    # MuPDF's own space, set anywhere on the line, is no sign of disorder
    assert not out_of_order(line(("م", 190.0, 194.7), (" ", 95.8, 98.8), ("ن", 183.6, 189.9)))


def test_a_letter_left_out_before_a_ligature_is_taken_from_the_glyphs_drawn():
    """A Chromium print of "کالای" (goods'): MuPDF keeps one of the final alef
    and the lam-alef ligature's own alef (same letter, same place) and puts a
    space in the final alef's box. The page's glyph trace still has it."""
    chars = [("ک", 361.98, 368.64), (" ", 357.72, 361.98), ("ا", 357.72, 357.72), ("ل", 349.74, 357.72), ("ی", 338.79, 349.74)]
    assert dropped_before_ligature(chars) == [1]
    raw = {"blocks": [{"type": 0, "lines": [{"dir": (1.0, 0.0), "spans": [{"chars": [{"c": c, "bbox": (x0, 0, x1, 10)} for c, x0, x1 in chars]}]}]}]}
    words = [(361.98, 0, 368.64, 10, "ک", 0, 0, 0), (338.79, 0, 357.72, 10, "الی", 0, 0, 1)]
    asked = []

    def drawn(box):
        asked.append(box)
        return "ا"  # U+FE8E, the final alef, as the trace has it, read NFKC

    out, lost = rtl_words(raw, words, drawn)
    assert [w[4] for w in out] == ["کالای"] and lost == 0 and asked == [(357.72, 0, 361.98, 10)]
    # without the trace, as MuPDF read it (the ligature's letters in order)
    assert [w[4] for w in rtl_words(raw, words)[0]] == ["ک", "لای"]
    # a space between two words is no such place: nothing asked
    assert dropped_before_ligature([("ب", 40.0, 45.0), (" ", 35.0, 40.0), ("ل", 30.0, 35.0)]) == []


def test_letters_a_line_holds_but_no_word_does_are_counted_lost():
    raw = {"blocks": [{"type": 0, "lines": [{"dir": (1.0, 0.0), "spans": [{"chars": [
        {"c": c, "bbox": (x0, 0, x1, 10)} for c, x0, x1 in [("ي", 531.5, 531.5), ("َ", 531.5, 531.5), (" ", 523.5, 531.5), ("ك", 523.5, 523.5), ("ْ", 523.5, 523.5)]
    ]}]}]}]}
    words = [(523.5, 0, 523.5, 10, "كْ", 0, 0, 0)]  # extractWORDS drops a word with no box: "يَ" is gone
    assert rtl_words(raw, words)[1] == 2


def corpus_text(name: str) -> str:
    doc = parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())
    return " ".join(s.text for s in doc.segments) + " ".join(b.text for b in doc.blocks)


@pytest.mark.corpus
def test_arabic_pdf_reads_lam_alef_words_whole():
    """docling__right_to_left_01_arabic.pdf: every lam-alef word as docling's
    ground truth has it (before: المشكالت, خالل, اإلنتاجية, األدوات); of the
    ground truth's 218 Arabic words 216 are found (195 before)."""
    text = corpus_text("docling__right_to_left_01_arabic.pdf")
    for word in ("المشكلات", "خلال", "الإنتاجية", "الأدوات", "الآلي", "علاوة", "الاستفادة", "تحليلات", "لإدارة"):
        assert word in text
    for broken in ("المشكالت", "خالل", "اإلنتاجية", "األدوات", "اآللي", "عالوة"):
        assert broken not in text
    # a word's pieces joined (MuPDF cut them at a space character set elsewhere on the line, or at its line's end)
    for joined in ("واسعة من التطبيقات", "لها تأثيرات", "والتحليل الإحصائي،"):
        assert joined in text


@pytest.mark.corpus
def test_persian_form_reads_kala_whole():
    """docling__right_to_left_03_persian_form.pdf: کالا (goods), فولاد (steel);
    every word of docling's ground truth is found (117 of 117; 110 before)."""
    text = corpus_text("docling__right_to_left_03_persian_form.pdf")
    assert "کالا" in text and "کاال" not in text
    assert "فولادهای" in text and "کالای ايران" in text and "اميدنامه" in text  # pieces joined: no "ی کالا", no "اميد نامه"
    assert "مرجع صادرکننده استاندارد | سازمان ملی استاندارد ايران" in text  # a cell's value, not four superscripts


@pytest.mark.corpus
def test_a_right_to_left_tables_cells_read_right_to_left():
    """The Persian form's tables: each row's label (the right-hand cell)
    first, then its value, as docling's ground truth reads them; a date's
    cells left to right inside that (before: ``1403 | / | 09 | / | 19 |
    تاريخ ارائه مدارک``, ``جهانی | های | اساس قيمت | بر | …`` for "based on
    world prices")."""
    doc = parse_document(corpus_path("docling__right_to_left_03_persian_form.pdf").read_bytes(), Format.PDF, Settings())
    text = "\n".join(b.text for b in doc.blocks)
    for row in (
        "تاريخ ارائه مدارک | 1403 | / | 09 | / | 19",
        "شماره استاندارد ملی | 20300",
        "مشاور پذيرش | کارگزاری | آرمون | بورس",
        "نحوة تعيين قيمت پايه پس از پذيرش کالا در | بر | اساس قيمت | های | جهانی",
        "حداقل 50 | % | از توليد ساليانه يا 47.500 | تن",
    ):
        assert row in text, (row, text)


@pytest.mark.parametrize(
    ("cells", "read"),
    [
        (["ب", "أ"], ["أ", "ب"]),
        (["Dose", "500 mg"], ["Dose", "500 mg"]),  # Latin and numbers together: a run read left to right
        (["1403", "/", "09", "/", "19", "تاريخ"], ["تاريخ", "1403", "/", "09", "/", "19"]),
        (["تن", "47.500", "%", "حداقل 50"], ["حداقل 50", "%", "47.500", "تن"]),
        (["R 2", "ب", "1", "أ"], ["أ", "1", "ب", "R 2"]),
    ],
)
def test_a_right_to_left_rows_cells_in_reading_order(cells, read):
    assert [cells[k] for k in row_reading_order(cells)] == read


def test_a_table_is_right_to_left_when_most_cells_with_letters_are():
    assert right_to_left_table([["1403", "تاريخ"], ["436", "شماره"]])
    assert not right_to_left_table([["Dose", "Interval"], ["500 mg", "جرعة"]])
    assert not right_to_left_table([["12", "13"]])


# docling__right_to_left_02's first paragraph as its font's broken ToUnicode map reads it
# (the page shows "تضع صوب أعينها خلال المرحلة المقبلة ..."; the kashida reads as waw)
BROKEN_MAP = (
    "ومواصواة واوود تلووير الماوخر ة السيخسوية، واسولمرار ملخبعوة ما و خت الأمووون واحسووول رار "
    "ومكخفحوووة الإرهوووخ، تلووووير ما وووخت ال خفوووة والوووويا"
)
ARABIC = "تعتبر البرمجة بلغة R و Python من الأدوات القوية التي يمكن أن تعزز الإنتاجية وتساعد في إيجاد حلول فعالة للمشكلات"
PERSIAN = "این قرارداد میان طرفین منعقد شد و مدت آن دوازده ماه است؛ مبلغ ۱۲٬۵۰۰٬۰۰۰ ریال پرداخت می‌شود."


def test_a_broken_glyph_map_is_found():
    assert broken_glyph_map_window(BROKEN_MAP)[0] == "الأمووون"
    assert misencoding(BROKEN_MAP).startswith("Arabic-script text read through a broken glyph map")


@pytest.mark.parametrize(
    "text",
    [
        ARABIC,
        PERSIAN,
        "ســـــــلام عليكم — بنـــاء الإنســـان",  # a title stretched with tatweel, as designers set it
        "شناسهٔ عدددی برای دسترسی و عددد نگارش عمده",  # two typos of the kind 5 of 38,471 gettext strings hold
        "עברית היא שפה שמית, ממשפחת השפות האפרו-אסיאתיות",
    ],
)
def test_real_arabic_script_text_is_not_a_broken_glyph_map(text):
    assert broken_glyph_map_window(text) is None and misencoding(text) is None


def test_leak_02_names_the_chunk_read_through_a_broken_glyph_map():
    chunks = [
        {"chunk_id": "d:s:0", "chunk_kind": "prose", "text": ARABIC, "regions": [{"page_no": 1, "bbox": (0, 0, 1, 1)}]},
        {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": BROKEN_MAP, "regions": [{"page_no": 1, "bbox": (0, 0, 1, 1)}]},
    ]
    result = flattened_math_in_prose(DocumentRows("d", chunks=chunks))
    assert not result.passed and result.offending_ids == ("d:s:1",), result
    assert "p1 d:s:1: Arabic-script text read through a broken glyph map" in result.message, result.message


@pytest.mark.corpus
@pytest.mark.slow
def test_arabic_pdfs_through_ingest(tmp_path):
    """Through ``duocthu ingest``: the Arabic page and the Persian form ingest
    ok with their lam-alef words whole; the page whose font's ToUnicode map
    is broken (it ingested ok, its text embedded as ``صوو عييهاوخ``; 43 of
    its 179 words hold a letter three times in a row) is now blocked by
    leak_02, named."""
    files = {
        "ar.pdf": corpus_path("docling__right_to_left_01_arabic.pdf").read_bytes(),
        "fa.pdf": corpus_path("docling__right_to_left_03_persian_form.pdf").read_bytes(),
        "broken.pdf": corpus_path("docling__right_to_left_02_arabic_broken_tounicode.pdf").read_bytes(),
    }
    docs = ingest_inbox(tmp_path, files)["docs"]
    assert docs["ar.pdf"]["status"] == "ok" and docs["fa.pdf"]["status"] == "ok", docs
    broken = docs["broken.pdf"]
    assert broken["status"] == "blocked" and broken["failed_checks"] == ["leak_02_flattened_math_in_prose"], broken
    assert "Arabic-script text read through a broken glyph map" in broken["reason"], broken["reason"]
    import duckdb

    text = " ".join(t for (t,) in duckdb.sql(f"SELECT text FROM read_parquet('{tmp_path}/wh/chunks/*.parquet') WHERE doc_id = 'ar.pdf'").fetchall())
    assert "المشكلات" in text and "المشكالت" not in text


PAGE = """<html dir="rtl"><head><meta charset="utf-8"><style>body{{font-family:"DejaVu Sans";font-size:14pt}}</style></head>
<body>{}</body></html>"""
ARABIC = """<p>الطلاب يدرسون خلال الفصل الدراسي، والكلام الواضح خير من الإطالة.</p>
<p>لا يجوز تناول الدواء للأطفال دون استشارة الطبيب. المشكلات الإحصائية والأدوات الآلية.</p>
<p>جرعة 500 ملغ كل 8 ساعات (الحد الأقصى 4 غرام يوميا).</p>
<p>مقدار مصرف: روزانه ۲ بار، هر بار ۵۰۰ میلی‌گرم؛ در بیماران کلیوی کاهش یابد.</p>
<p>این قرارداد میان طرفین منعقد شد؛ کالای وارداتی و فولاد. بالا، طلا، کلاس، لازم است.</p>
<p>אין לתת את התרופה לילדים מתחת לגיל שתים עשרה ללא התייעצות עם רופא.</p>"""
VOWELLED = "<p>المُعَلِّمُ يَكْتُبُ الدَّرْسَ عَلَى السَّبُّورَةِ.</p>"


def printed(tmp_path, name: str, body: str) -> bytes:
    """``body`` printed to PDF by Chromium (Skia; DejaVu Sans), a producer of its own."""
    import subprocess

    from tests.support.ui_helpers import chromium_path

    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine (`make browser` installs it)")
    page = tmp_path / f"{name}.html"
    page.write_text(PAGE.format(body), encoding="utf-8")
    pdf = tmp_path / f"{name}.pdf"
    subprocess.run(
        [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    return pdf.read_bytes()


def test_a_browser_printed_arabic_page_reads_whole(tmp_path):
    """A second producer: of Chromium's print to PDF of an Arabic page MuPDF
    reads ``ال يجوز`` ("the permitted") for ``لا يجوز`` ("it is not
    permitted"), ``لألطفال``, ``خالل``; of a Persian dose
    ``… یابد۵۰۰ بار، هر بار۲ مقدار مصرف: روزانه``, the numbers off their
    words; ``کالای`` (goods') ``ک لای``, ``بالا`` ``ب لا``. Read right here."""
    doc = parse_document(printed(tmp_path, "ar", ARABIC), Format.PDF, Settings())
    text = " ".join(s.text for s in doc.segments)
    for word in ("لا يجوز", "للأطفال", "خلال", "الطلاب", "والكلام", "المشكلات", "الإحصائية", "والأدوات", "الآلية", "الإطالة"):
        assert word in text, (word, text)
    assert "جرعة 500 ملغ كل 8 ساعات (الحد الأقصى 4 غرام يوميا)." in text, text
    assert "مقدار مصرف: روزانه ۲ بار، هر بار ۵۰۰ میلی‌گرم؛ در بیماران کلیوی کاهش یابد." in text, text
    # MuPDF leaves out a final alef drawn just before a lam-alef (کالا read ک لا): taken from the glyph trace
    assert "کالای وارداتی و فولاد. بالا، طلا، کلاس، لازم است." in text, text
    # a line's closing full stop, drawn at its left end, MuPDF gives first: read last
    assert "خير من الإطالة." in text and "עם רופא." in text, text
    assert all(a.accounted for a in doc.page_accounts)


@pytest.mark.slow
def test_a_browser_printed_page_that_loses_letters_is_blocked(tmp_path):
    """Arabic set with its vowel marks, printed by Chromium: MuPDF gives the
    letters no width, and its words drop them (``يَكْتُبُ`` loses ``ي`` and
    ``ت``). Counted lost, the page's account fails and ``duocthu ingest``
    blocks the document, named; the same page without the marks is ok."""
    files = {"vowelled.pdf": printed(tmp_path, "vowelled", VOWELLED + ARABIC), "plain.pdf": printed(tmp_path, "plain", ARABIC)}
    parsed = parse_document(files["vowelled.pdf"], Format.PDF, Settings())
    assert parsed.page_accounts[0].missing > 0 and any("right-to-left text the PDF reader read but put in no word" in w for w in parsed.warnings)
    docs = ingest_inbox(tmp_path, files)["docs"]
    assert docs["plain.pdf"]["status"] == "ok", docs["plain.pdf"]
    vowelled = docs["vowelled.pdf"]
    assert vowelled["status"] == "blocked" and "every_pdf_character_accounted" in " ".join(vowelled["failed_checks"]), vowelled
    assert re.search(r"[1-9][0-9]* in no place", vowelled["reason"]) and "right-to-left text the PDF reader read but put in no word" in vowelled["reason"], vowelled["reason"]


def test_a_page_set_by_mupdfs_own_html_writer_reads_whole():
    """A third producer: PyMuPDF's ``insert_htmlbox`` (HarfBuzz shaping,
    DejaVu Sans) maps each glyph to its presentation form (``ﻻ`` for the
    lam-alef), which the text's NFKC reads as letters: the lam-alef words,
    the Persian dose and the Arabic dose read in order, every character
    accounted. (Seen, left: its mirrored parentheses read ``) … (``; it
    leaves out ``میلی‌گرم``'s zero-width non-joiner, and the two touching
    pieces read ``میلیگرم``.)"""
    html = (
        '<p dir="rtl">لا يجوز تناول الدواء للأطفال دون استشارة الطبيب. المشكلات الإحصائية والأدوات الآلية.</p>'
        '<p dir="rtl">مقدار مصرف: روزانه ۲ بار، هر بار ۵۰۰ میلی‌گرم؛ در بیماران کلیوی کاهش یابد. کالای وارداتی و فولاد. بالا، طلا.</p>'
        '<p dir="rtl">جرعة 500 ملغ كل 8 ساعات يوميا.</p>'
    )
    css = "@font-face {font-family: sans-serif; src: url(DejaVuSans.ttf);} p {font-family: sans-serif; font-size: 12pt}"
    parsed = parse_document(html_page(html, css), Format.PDF, Settings())
    text = " ".join(s.text for s in parsed.segments)
    for words in ("لا يجوز", "للأطفال", "المشكلات", "الإحصائية", "روزانه ۲ بار، هر بار ۵۰۰", "کالای", "فولاد", "بالا", "جرعة 500 ملغ كل 8 ساعات"):
        assert words in text, (words, text)
    assert all(a.accounted for a in parsed.page_accounts)
