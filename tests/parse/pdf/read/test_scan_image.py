"""A scan's ruled lines and pictures found with OpenCV (read/scan_image.py):
a ruled table's rules, a signature's strokes as a picture, text as neither."""

from __future__ import annotations

from duocthu_assets.parse.pdf.read.ocr_pages import rendered_pages
from duocthu_assets.parse.pdf.read.scan_image import image_features, image_rules
from tests.support.scans import PROSE, scanned_pdf

TABLE = [["Tuổi", "Liều"], ["6-12", "250 mg"], [">12", "500 mg"]]


def _png(**kw) -> bytes:
    return next(rendered_pages(scanned_pdf(PROSE, **kw), [1], 200)).png


def test_a_ruled_table_gives_its_rules():
    rules = image_rules(_png(table=TABLE), 200)
    horizontal = [r for r in rules if r.horizontal]
    vertical = [r for r in rules if not r.horizontal]
    assert len(horizontal) == 4 and len(vertical) == 3, rules
    assert all(abs(r.x0 - 72) < 2 and abs(r.x1 - 352) < 2 for r in horizontal)


def test_text_alone_gives_no_rules_and_no_pictures():
    assert image_features(_png(), 200, []) [0] == []


def test_a_signature_is_a_picture():
    rules, pictures = image_features(_png(signature=True), 200, [])
    assert rules == []
    assert any(p[0] > 350 and p[1] > 150 for p in pictures), pictures
