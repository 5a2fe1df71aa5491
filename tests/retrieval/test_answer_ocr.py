"""The answer layer on a hit read by OCR (issue 39): numbers inside an
uncertain span withheld, the rest shown, the scan named as the authority
with its crop."""

from __future__ import annotations

from duocthu_assets.retrieval.answer import WITHHELD, render_answer, withhold_uncertain
from duocthu_assets.retrieval.query import Hit, HitAttachment

TEXT = "Trẻ em: 250 mg mỗi 12 giờ, tối đa ] 1 lần."


def _hit(spans, source="ocr") -> Hit:
    scan = HitAttachment("s00001", "scan", "scan_region", 1, None, False, "crops/d/s00001.png", "/wh/crops/d/s00001.png", True)
    return Hit(1, 1.0, "d.pdf", "d.pdf:body:0", "prose", "", "", (), (), (1,), TEXT, False, (), source, tuple(spans),
               (scan,) if source == "ocr" else ())


def test_a_number_inside_an_uncertain_span_is_withheld_the_rest_shown():
    at = TEXT.index("] 1")
    answer = render_answer(_hit([(at, 3)]))
    assert answer.text == TEXT.replace("] 1", f"] {WITHHELD}")
    assert "250 mg" in answer.text and answer.withheld_numbers == 1
    assert answer.mode == "text_incomplete" and not answer.complete
    assert any("Read from a scanned page by OCR" in n and "/wh/crops/d/s00001.png" in n for n in answer.notices)
    assert any("OCR read them from the scan below its confidence floor" in n for n in answer.notices)
    assert [c.kind for c in answer.crops] == ["scan"]


def test_an_ocr_hit_without_doubt_is_complete_but_says_it_was_read_from_a_scan():
    answer = render_answer(_hit([]))
    assert answer.text == TEXT and answer.complete and answer.mode == "text"
    assert any("the scan is the authority" in n for n in answer.notices)


def test_a_layer_hit_says_nothing_of_scans():
    answer = render_answer(_hit([], source="layer"))
    assert not any("scan" in n for n in answer.notices)


def test_withhold_uncertain_withholds_digits_after_letters_too():
    assert withhold_uncertain("vitamin B12 x", [(8, 3)]) == (f"vitamin B{WITHHELD} x", 1)


def test_numbers_in_a_doubted_heading_are_withheld_from_the_headings_too():
    text = "Điều 1] 1. Phạm vi\n\nNội dung 5 điều."
    hit = Hit(1, 1.0, "d.pdf", "d.pdf:x:0", "prose", "", "Điều 1] 1. Phạm vi", ("Điều 1] 1. Phạm vi",), (), (1,), text,
              False, (), "ocr", ((6, 3),), ())
    answer = render_answer(hit)
    assert answer.headings == (f"Điều {WITHHELD}] {WITHHELD}. Phạm vi",) and WITHHELD in answer.section_title
    assert "5 điều" in answer.text
