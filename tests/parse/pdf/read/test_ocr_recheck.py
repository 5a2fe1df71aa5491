"""Numbers read a second time (read/ocr_recheck.py): what a word says as a
number, when a second reading casts doubt, the strip of crops, and — where
Tesseract is installed — a second reading of a real number image."""

from __future__ import annotations

import numpy as np
import pytest

from duocthu_assets.parse.pdf.read.ocr import OcrWord, tesseract_available
from duocthu_assets.parse.pdf.read.ocr_doubt import uncertain_words
from duocthu_assets.parse.pdf.read.ocr_recheck import (
    CROP_HEIGHT_PX,
    disagrees,
    number_core,
    second_readings,
    strip_image,
)


def test_a_number_is_its_digits_and_the_punctuation_between_them():
    assert number_core("(5),") == "5"
    assert number_core("26Đ") == number_core("26D") == "26"
    assert number_core("0.4") != number_core("04")
    assert number_core("31/2024/QH15") == "31/2024/15"


def test_only_a_second_reading_of_another_number_casts_doubt():
    assert disagrees("04", "0.4") and disagrees("3", "5") and disagrees("12", "")
    assert not disagrees("12,", "12") and not disagrees("12", None)


def test_a_number_whose_second_reading_disagrees_is_uncertain_however_sure_the_first():
    words = [OcrWord("tháng", (0, 0, 30, 10), 96, 1, 1, 1), OcrWord("3", (40, 0, 46, 10), 96, 1, 1, 1, second="5"),
             OcrWord("năm", (60, 0, 80, 10), 96, 1, 1, 1), OcrWord("2024", (90, 0, 120, 10), 96, 1, 1, 1, second="2024")]
    assert uncertain_words(words, 80, 93) == [False, True, False, False]


def test_each_crop_gets_its_own_band_of_the_strip():
    grey = np.full((200, 300), 255, np.uint8)
    grey[50:70, 20:60] = 0
    strip, bands = strip_image(grey, [(20, 50, 60, 70), (100, 100, 180, 130)])
    assert len(bands) == 2 and bands[0][1] <= bands[1][0]
    assert all(bottom - top >= CROP_HEIGHT_PX for top, bottom in bands) and strip.shape[0] >= bands[-1][1]


@pytest.mark.skipif(not tesseract_available(), reason="tesseract is not installed (make ocr)")
def test_a_number_is_read_again_from_its_crop():
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("L", (400, 80), 255)
    font = ImageFont.load_default(size=40) if hasattr(ImageFont, "load_default") else None
    ImageDraw.Draw(img).text((20, 15), "2024", fill=0, font=font)
    grey = np.asarray(img)
    ys, xs = np.nonzero(grey < 128)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    assert number_core(second_readings(grey, [box], "eng", 300)[0]) == "2024"
