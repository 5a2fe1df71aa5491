"""A page image made ready for Tesseract (read/ocr_image.py): the skew of a
page of lines found, the steps' scales, an unknown step refused."""

from __future__ import annotations

import numpy as np
import pytest

from duocthu_assets.parse.pdf.read.ocr_image import back, prepare, scale_of, skew_angle


def _lines(angle: float):
    import cv2

    grey = np.full((600, 800), 255, np.uint8)
    for y in range(60, 560, 30):
        grey[y : y + 8, 80:720] = 0
    m = cv2.getRotationMatrix2D((400, 300), angle, 1.0)
    return cv2.warpAffine(grey, m, (800, 600), borderValue=255)


def test_the_skew_of_a_page_of_lines_is_found():
    assert abs(skew_angle(_lines(1.2)) + 1.2) <= 0.15
    assert skew_angle(_lines(0.0)) == 0.0


def test_steps_give_their_scale_and_binarise_and_boxes_go_back():
    out, matrix = prepare(_lines(0.7), ["deskew", "denoise", "up15", "otsu"])
    assert abs(scale_of(matrix) - 1.5) < 1e-9 and out.shape == (900, 1200) and set(np.unique(out)) <= {0, 255}
    x0, y0, x1, y1 = back(matrix, (600, 450, 600, 450))  # the centre stays the centre
    assert abs(x0 - 400) < 0.01 and abs(y0 - 300) < 0.01 and (x1, y1) == (x0, y0)


def test_an_unknown_step_is_refused():
    with pytest.raises(ValueError, match="unknown OCR preprocessing step 'sharpen'"):
        prepare(_lines(0.0), ["sharpen"])
