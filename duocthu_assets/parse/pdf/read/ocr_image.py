"""A page image made ready for Tesseract with OpenCV: the preprocessing
steps the OCR bench measured (bench/ocr_models.py), each by name, applied
in order to a grey image:

- ``deskew``: turned by the angle (-3..3 degrees, by 0.1) at which its rows
  of ink are sharpest (the variance of the row sums of a reduced copy);
- ``denoise``: a 3x3 median filter; ``nlm``: OpenCV's non-local means;
- ``up15`` / ``up2``: upscaled 1.5 / 2 times (cubic), for a larger x-height;
- ``otsu``: binarised by Otsu's threshold; ``adaptive``: by a local
  Gaussian threshold.

Pure and deterministic: the same image and steps give the same pixels.
"""

from __future__ import annotations

STEPS = ("deskew", "denoise", "nlm", "up15", "up2", "otsu", "adaptive")
DESKEW_MAX_DEG, DESKEW_STEP_DEG = 3.0, 0.1
DESKEW_WIDTH = 800  # the reduced copy the angle is estimated on, in pixels wide


def skew_angle(grey) -> float:
    """The angle (degrees, counter-clockwise) that makes the image's lines level."""
    import cv2
    import numpy as np

    factor = DESKEW_WIDTH / max(grey.shape[1], 1)
    small = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA) if factor < 1 else grey
    _, ink = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    h, w = ink.shape
    best, best_score = 0.0, -1.0
    steps = round(DESKEW_MAX_DEG / DESKEW_STEP_DEG)
    for k in range(-steps, steps + 1):
        angle = k * DESKEW_STEP_DEG
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        turned = cv2.warpAffine(ink, m, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
        rows = turned.sum(axis=1, dtype=np.float64)
        value = float(np.var(rows))
        if value > best_score + 1e-9:
            best, best_score = angle, value
    return best


def prepare(grey, steps: list[str] | tuple[str, ...]):
    """The grey image (a NumPy array) after ``steps``, and the 2x3 affine
    matrix taking a pixel of the original to the result (:func:`back` takes
    boxes read on the result back to the original)."""
    import cv2
    import numpy as np

    matrix = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for step in steps:
        if step == "deskew":
            angle = skew_angle(grey)
            if angle:
                h, w = grey.shape
                m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
                grey = cv2.warpAffine(grey, m, (w, h), flags=cv2.INTER_CUBIC, borderValue=255)
                matrix = m @ np.vstack([matrix, [0.0, 0.0, 1.0]])
        elif step == "denoise":
            grey = cv2.medianBlur(grey, 3)
        elif step == "nlm":
            grey = cv2.fastNlMeansDenoising(grey, None, 10, 7, 21)
        elif step in ("up15", "up2"):
            factor = 1.5 if step == "up15" else 2.0
            grey = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
            matrix = matrix * factor
        elif step == "otsu":
            _, grey = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        elif step == "adaptive":
            grey = cv2.adaptiveThreshold(grey, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 15)
        else:
            raise ValueError(f"unknown OCR preprocessing step {step!r}: one of {', '.join(STEPS)}")
    return grey, matrix


def scale_of(matrix) -> float:
    """How many pixels of the result one pixel of the original became."""
    return float((matrix[0][0] ** 2 + matrix[1][0] ** 2) ** 0.5)


def back(matrix, box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """A box read on the prepared image as a box on the original: its corners
    taken back through the inverse of ``matrix``, and the box around them."""
    import cv2
    import numpy as np

    inverse = cv2.invertAffineTransform(np.asarray(matrix, dtype=np.float64))
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0, 1.0], [x1, y0, 1.0], [x0, y1, 1.0], [x1, y1, 1.0]]) @ inverse.T
    return (float(corners[:, 0].min()), float(corners[:, 1].min()), float(corners[:, 0].max()), float(corners[:, 1].max()))
