"""Where a segment's uncertain OCR words stand in its text (ocr_spans.py)."""

from __future__ import annotations

from duocthu_assets.model import Span, TextSource
from duocthu_assets.parse.pdf.ocr_spans import segment_provenance, with_numbers_beside
from duocthu_assets.parse.pdf.records import Word


def _w(text: str, conf: float = -1.0) -> Word:
    return Word(text, (0, 0, 1, 1), 10, False, False, 1, confidence=conf, uncertain=0 <= conf < 80)


def test_layer_words_are_layer():
    assert segment_provenance(["a b"], [_w("a"), _w("b")], "nfc") == [(TextSource.LAYER, ())]


def test_uncertain_words_are_found_in_order_and_a_number_beside_one_joins_it():
    words = [_w("ngày", 95), _w("12", 96), _w("tháng", 95), _w("]", 20), _w("1", 90), _w("12", 40)]
    [(source, spans)] = segment_provenance(["ngày 12 tháng ] 1 12"], words, "nfc")
    assert source is TextSource.OCR and spans == (Span(14, 6),)


def test_an_uncertain_word_the_text_lost_makes_the_segment_uncertain():
    [(_, spans)] = segment_provenance(["hello world"], [_w("hel-", 30), _w("lo", 90)], "nfc")
    assert spans == (Span(0, 11),)


def test_numbers_beside():
    text = "x ab 12,5mg y"
    assert with_numbers_beside(text, [Span(2, 2)]) == [Span(2, 9)]
