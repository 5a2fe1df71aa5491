"""leak_02 and code listings (issue 15 residual, redp5110 pp. 12–13): symbol
runs on lines set in a fixed-pitch face are a code listing read as printed
and pass; a flattened formula set in the same face still fails, with its
message."""

from __future__ import annotations

import pymupdf
import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_window
from duocthu_assets.parse.pdf.audit.listings import code_listing, monospaced

from tests.support.paths import CORPUS

LISTING = [
    "RETURN",
    "CASE",
    "WHEN VERIFY_GROUP_FOR_USER ( SESSION_USER , 'MGR' ) = 1",
    "THEN ( 9999 || '-' || MONTH ( EMPLOYEES . DATE_OF_BIRTH ) || '-' ||",
    "DAY (EMPLOYEES.DATE_OF_BIRTH ))",
    "ELSE NULL",
]
SQL = "ELSE NULL END. " + " ".join(LISTING[3:5])
MATH = "Tổng ∑ n+1 i=1 x 2 i = 1 , ∏ k j=1 y j ≤ 1"


def _chunk(chunk_id: str, text: str, *pages: int) -> dict:
    return {"chunk_id": chunk_id, "chunk_kind": "prose", "text": text,
            "regions": [{"page_no": p, "printed_page": None, "bbox": (0, 0, 1, 1)} for p in pages]}


def test_a_fixed_pitch_face_is_told_by_flag_name_or_equal_advances():
    chars = [(c, 4.98) for c in "THEN ( 9999 || '-'"]
    assert monospaced("BookMasterGothic-Roman", 4, chars) is True  # no flag, no telling name: equal advances
    assert monospaced("Courier", 0, [("x", 6.0)]) is True
    assert monospaced("Anything", 8, [("x", 6.0)]) is True
    assert monospaced("Helvetica", 4, [(c, w) for c, w in zip("Specif", (6.6, 5.5, 5.5, 5.0, 2.2, 2.8))]) is False
    assert monospaced("Helvetica", 4, [(c, 5.0) for c in "aaa  b"]) is False  # too few letters to tell


def test_symbol_runs_of_a_listing_are_code_and_a_flattened_formula_is_not():
    window = flattened_window(SQL)
    assert code_listing(LISTING, window) is True
    assert code_listing(LISTING[:1], window) is False  # one fixed-pitch line is no listing
    assert code_listing(["RETURN", "CASE"], window) is False  # the runs are not on the listing's lines
    # a flattened Σ with limits in the same face, its lines in the listing: still not code
    assert code_listing(LISTING + MATH.split(" , "), flattened_window(MATH)) is False


def _page(lines: list[str], fontname: str, fontfile: str | None = None) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    if fontfile:
        page.insert_font(fontname=fontname, fontfile=fontfile)
    for k, line in enumerate(lines):
        page.insert_text((72, 100 + 14 * k), line, fontname=fontname, fontsize=10)
    page.insert_text((72, 400), "The mask returns the month and day of birth to managers.", fontname="helv", fontsize=10)
    return doc.tobytes()


def test_leak_02_lets_a_listing_through_and_names_it():
    data = _page(LISTING, "cour")
    result = flattened_math_in_prose(DocumentRows("s", chunks=[_chunk("s:sql:0", SQL, 1)], source=data))
    assert result.passed is True
    assert "code listings in a fixed-pitch face, read as printed, not math: p1 s:sql:0: || '-' || MONTH" in result.message
    # the same listing set in a proportional face is not told apart from math symbols: it blocks
    proportional = flattened_math_in_prose(DocumentRows("s", chunks=[_chunk("s:sql:0", SQL, 1)], source=_page(LISTING, "helv")))
    assert proportional.passed is False and proportional.offending_ids == ("s:sql:0",)
    assert "symbol runs (code or flattened math): || '-' || MONTH" in proportional.message


MONO = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"


@pytest.mark.skipif(not pymupdf.os.path.exists(MONO), reason="DejaVu Sans Mono not installed")
def test_a_flattened_formula_in_the_listings_face_still_fails():
    data = _page(LISTING + [MATH], "mono", MONO)
    result = flattened_math_in_prose(DocumentRows("s", chunks=[_chunk("s:sql:0", SQL, 1), _chunk("s:math:1", MATH, 1)], source=data))
    assert result.passed is False and result.offending_ids == ("s:math:1",) and result.pages == (1,)
    assert "p1 s:math:1: formula fragments: Tổng ∑ n+1 i=1" in result.message


REDP = CORPUS / "docling__redp5110_sampled.pdf"


@pytest.mark.skipif(not REDP.exists(), reason="corpus not present")
def test_the_sql_listing_of_redp5110_passes():
    text = "THEN ( 9999 || '-' || MONTH ( EMPLOYEES . DATE_OF_BIRTH ) || '-' || DAY (EMPLOYEES.DATE_OF_BIRTH ))"
    result = flattened_math_in_prose(DocumentRows("r", chunks=[_chunk("r:c:1", text, 12, 13)], source=REDP.read_bytes()))
    assert result.passed is True and "code listings in a fixed-pitch face" in result.message
