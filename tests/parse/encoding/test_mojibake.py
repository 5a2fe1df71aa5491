"""Mojibake in prose blocks its document (leak_02): text whose characters a
PDF font's own encoding or a wrong code page mapped to the wrong letters is
valid Unicode, holds no U+FFFD, and was embedded unnoticed (redp5110 p. 3's
sidebar, four prose chunks of ``]üìÜüéê •ìê …``, while the document ingested
ok). Real text in the languages we serve is not flagged."""

from __future__ import annotations

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.parse.encoding.mojibake import MISENCODED, misencoded_window
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math

from tests.support.paths import corpus_path
from tests.support.ingest import ingest_inbox
from tests.support.docgen import make_docx

REDP_SIDEBAR = "]üìÜüéê •ìê °ê£ë†£ûÜüéê †ë ∞†¶£ èÜ•ÜáÜ§ê †°ê£Ü•î†ü§"  # "Enhance the performance of your database operations"
VIETNAMESE = "Thuốc được hấp thu nhanh qua đường tiêu hóa, đạt nồng độ tối đa sau 2 giờ. Clcr = (140 − tuổi) × cân nặng / (72 × creatinin)."
PERSIAN = "این قرارداد میان طرفین منعقد شد و مدت آن دوازده ماه است؛ مبلغ ۱۲٬۵۰۰٬۰۰۰ ریال پرداخت می‌شود."


@pytest.mark.parametrize(
    "text",
    [
        REDP_SIDEBAR,
        VIETNAMESE.encode("utf-8").decode("cp1252", errors="replace"),  # a UTF-8 file read as Windows-1252
        PERSIAN.encode("utf-8").decode("cp1252", errors="replace"),
        "Ça coûte très cher à Noël, dit la naïve façade du café".encode("utf-8").decode("latin-1"),
    ],
)
def test_mojibake_is_found(text):
    assert misencoded_window(text) is not None
    assert flattened_math("Highlights " + text + " and more words after it").startswith(MISENCODED)


@pytest.mark.parametrize(
    "text",
    [
        VIETNAMESE,
        PERSIAN,
        "이슈와 논점은 국회의원의 입법활동을 지원하기 위해 최신 “현안”을 분석합니다.",
        "Ça coûte très cher à Noël, dit la naïve façade du café — 5 € ± 2 °C, § 12, © 2024.",
        "Kyle Lo^{†∗} Lucy Lu Wang^{†∗} Mark Neumann^† Rodney Kinney^† Daniel S. Weld^{†‡}",  # footnote marks
        "a network is trained to approximate µ_θ and Σ_θ, i.e., train µ_θ(x_t, t) · ∇ log p",
        "ج 1 / ص 515. صحیح ابن حبان، ج 6",
    ],
)
def test_real_text_is_not_mojibake(text):
    assert misencoded_window(text) is None and flattened_math(text) is None


def test_leak_02_names_the_misencoded_chunk_and_its_page():
    chunks = [
        {"chunk_id": "d:s:0", "chunk_kind": "prose", "text": VIETNAMESE, "regions": [{"page_no": 1, "bbox": (0, 0, 1, 1)}]},
        {"chunk_id": "d:s:1", "chunk_kind": "prose", "text": REDP_SIDEBAR, "regions": [{"page_no": 3, "bbox": (0, 0, 1, 1)}]},
    ]
    result = flattened_math_in_prose(DocumentRows("d", chunks=chunks))
    assert not result.passed and result.offending_ids == ("d:s:1",) and result.pages == (3,)
    assert f"p3 d:s:1: {MISENCODED}: ]üìÜüéê" in result.message, result.message


@pytest.mark.slow
def test_a_document_with_mojibake_in_its_prose_is_blocked(tmp_path):
    """Through ``duocthu ingest``: a DOCX whose paragraph was pasted from a
    file read in the wrong code page is blocked by leak_02, named; the same
    document with its text as written passes."""
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    pasted = VIETNAMESE.encode("utf-8").decode("cp1252", errors="replace")
    make_docx(inbox / "bad.docx", [("Liều dùng", [VIETNAMESE, pasted])])
    make_docx(inbox / "good.docx", [("Liều dùng", [VIETNAMESE, VIETNAMESE])])
    docs = ingest_inbox(tmp_path)["docs"]
    assert docs["good.docx"]["status"] == "ok", docs["good.docx"]
    bad = docs["bad.docx"]
    assert bad["status"] == "blocked" and "leak_02_flattened_math_in_prose" in bad["failed_checks"], bad
    assert "misencoded text" in bad["reason"] and "Thuá»‘c" in bad["reason"], bad["reason"]


@pytest.mark.corpus
@pytest.mark.slow
def test_redp5110_sidebar_in_a_font_of_its_own_encoding_blocks_the_document(tmp_path):
    """redp5110 p. 3: the "Highlights" sidebar is set in a HelveticaNeue
    whose encoding maps its glyphs to the wrong letters. It ingested ok, its
    four lines embedded as ``]üìÜüéê …``; now leak_02 blocks it, naming p. 3."""
    doc = ingest_inbox(tmp_path, {"redp.pdf": corpus_path("docling__redp5110_sampled.pdf").read_bytes()})["docs"]["redp.pdf"]
    # and adr0006_10: its pictures on pp. 7 and 15 (schema 5) sit on pages whose printed number is not proven
    assert doc["status"] == "blocked" and doc["failed_checks"] == ["adr0006_10_attachment_without_printed_page", "leak_02_flattened_math_in_prose"], doc
    assert "p3 " in doc["reason"] and "misencoded text" in doc["reason"] and "misencoded text (characters mapped wrong: a font's own encoding, or a file read in the wrong code page): èÜ•ÜáÜ§ê †°ê£Ü•î†ü§" in doc["reason"], doc["reason"]
