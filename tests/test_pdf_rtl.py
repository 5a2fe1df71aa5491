"""Arabic-script PDFs: glyphs that stand for several letters (the lam-alef
ligature) read back in the font's order (duocthu_assets.parse.pdf_rtl), and
text read through a broken glyph map found and blocked (leak_02,
duocthu_assets.parse.mojibake.broken_glyph_map_window)."""

from __future__ import annotations

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.mojibake import broken_glyph_map_window, misencoding
from duocthu_assets.parse.pdf_rtl import glyph_order, glyph_ordered_words, reorder_words
from duocthu_assets.settings import Settings

from .conftest import corpus_path, ingest_inbox


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
    assert glyph_ordered_words(raw, words) == {1: "خلال"}


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
    assert "سازمان ملی استاندارد ايران | مرجع صادرکننده استاندارد" in text  # a cell's value, not four superscripts


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
    is broken (it ingested ok, its text embedded as ``صوو عييهاوخ``) is now
    blocked by leak_02, named."""
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
