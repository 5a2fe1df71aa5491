"""A page number OCR read in doubt (furniture/detect.py): no printed page,
no page-label furniture; it stays in the text, withheld as uncertain."""

from __future__ import annotations

from duocthu_assets.parse.pdf.furniture.detect import in_doubt
from duocthu_assets.parse.pdf.records import Word, make_fragment


def _fragment(uncertain: bool, confidence: float = 96.0):
    return make_fragment([Word("12", (300, 780, 310, 790), 10.0, False, False, 1, confidence=confidence, uncertain=uncertain)], 1)


def test_a_folio_read_in_doubt_is_in_doubt_and_a_certain_or_layer_one_is_not():
    assert in_doubt(_fragment(True)) is True
    assert in_doubt(_fragment(False)) is False
    assert in_doubt(_fragment(False, confidence=-1.0)) is False
