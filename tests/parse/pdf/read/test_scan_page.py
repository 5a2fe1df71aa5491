"""A scanned page's chart (read/scan_page.py): its tick labels — lines made
only of numbers beside a picture — are the picture's, never text."""

from __future__ import annotations

from duocthu_assets.parse.pdf.read.ocr import OcrWord
from duocthu_assets.parse.pdf.read.scan_page import chart_labels


def test_a_charts_tick_labels_are_given_to_its_picture():
    chart = (40.0, 500.0, 240.0, 680.0)
    words = (
        OcrWord("04", (35, 675, 43, 681), 95, 1, 1, 1),  # the y axis's 0.4, read 04 with confidence
        OcrWord("20", (44, 683, 51, 690), 93, 2, 1, 1), OcrWord("25", (59, 683, 66, 690), 93, 2, 1, 1),
        OcrWord("Age", (130, 694, 150, 702), 96, 3, 1, 1),
        OcrWord("Ngày", (40, 720, 60, 730), 96, 4, 1, 1), OcrWord("15", (64, 720, 72, 730), 96, 4, 1, 1),
        OcrWord("2024", (300, 100, 330, 110), 96, 5, 1, 1),  # a lone number far from any picture stays text
    )
    kept, pictures = chart_labels(words, [chart])
    assert [w.text for w in kept] == ["Age", "Ngày", "15", "2024"]
    assert pictures[0][0] <= 35 and pictures[0][3] >= 690


def test_without_a_picture_every_word_stays():
    words = (OcrWord("12", (35, 675, 43, 681), 95, 1, 1, 1),)
    assert chart_labels(words, []) == (words, [])
