"""A page image read by Tesseract 5 (Debian's ``tesseract-ocr``, installed by
``make ocr``) through pytesseract's ``image_to_data``: every word with its box
and the engine's confidence in it (0-100), so that a word read below the
collection's floor (``PdfSettings.ocr_confidence_floor``) can be marked
uncertain instead of passing for text read from a text layer.

Pure: bytes in, words out; one ``tesseract`` process per page, limited to one
thread (``OMP_THREAD_LIMIT=1``) so that pages run in parallel across cores
(:mod:`.ocr_pages`) and the same image gives the same words.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ....settings.pdf import OCR_LANGUAGES
from ...errors import ParseFailed
from ..engine import open_pdf, pymupdf
from ..geometry import BBox

ENGINE = "tesseract"
# chosen on the OCR bench's development part (bench/ocr_models.py, bench/RESULTS.md): deskewing the page gained
# 2 points of word accuracy; denoising and upscaling lost some
PREPROCESS = ("deskew",)
MISSING_MESSAGE = (
    "OCR is on for this collection but the Tesseract OCR engine is not installed — run `make ocr` (Debian's "
    "tesseract-ocr with vie, eng and fas data), or turn OCR off ([pdf] ocr = false in its collection.toml: "
    "scanned pages are then named and blocked)"
)


@dataclass(frozen=True)
class OcrOptions:
    """What a page is read with: Tesseract's languages (``vie+eng``), the dpi
    it is rendered at, and Tesseract's page segmentation mode."""

    languages: str = OCR_LANGUAGES  # the collection setting's default
    dpi: int = 300
    psm: int = 3  # fully automatic page segmentation (columns, blocks)
    recheck_languages: str = "eng"  # the model each number is read again with (:mod:`.ocr_recheck`); "" reads once
    preprocess: tuple[str, ...] = PREPROCESS  # OpenCV steps before Tesseract reads the page (:mod:`.ocr_image`)


class OcrWord(NamedTuple):
    """One word Tesseract read: its text, its box in PDF points (top-left
    origin, the page as displayed), its confidence (0-100), and the block,
    paragraph and line it read it in (numbered on the page, in its order)."""

    text: str
    bbox: BBox
    confidence: float
    block: int
    paragraph: int
    line: int
    second: str | None = None  # a word holding a digit: what the second reading read there (:mod:`.ocr_recheck`)


@dataclass(frozen=True)
class OcrPage:
    """One page's words as Tesseract read them, in its reading order, and
    what read them."""

    words: tuple[OcrWord, ...]
    width: float  # the page's size in points, as rendered
    height: float
    engine: str
    version: str
    languages: str
    dpi: int
    image_sha256: str = ""

    def text(self) -> str:
        """The words, ``" "`` within a line and ``"\\n"`` between lines."""
        lines: list[list[str]] = []
        last = None
        for w in self.words:
            key = (w.block, w.paragraph, w.line)
            if key != last:
                lines.append([])
                last = key
            lines[-1].append(w.text)
        return "\n".join(" ".join(line) for line in lines)


def tesseract_available() -> bool:
    return shutil.which("tesseract") is not None


@lru_cache(maxsize=1)
def tesseract_version() -> str:
    """Tesseract's version (``5.3.0``); raises :class:`ParseFailed` when it is not installed."""
    if not tesseract_available():
        raise ParseFailed(MISSING_MESSAGE)
    import pytesseract

    return str(pytesseract.get_tesseract_version())


def missing_languages(languages: str) -> list[str]:
    """The languages of ``vie+eng`` whose Tesseract data is not installed."""
    import pytesseract

    have = set(pytesseract.get_languages(config=""))
    return [lang for lang in languages.split("+") if lang and lang not in have]


def render_page(data: bytes, page_no: int, dpi: int) -> tuple[bytes, float, float]:
    """Page ``page_no`` (1-based) rendered in grey at ``dpi`` as PNM bytes (no compression to pay for),
    and the page's size in points (as displayed)."""
    doc = open_pdf(data)
    try:
        page = doc[page_no - 1]
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False, annots=False)
        return pix.tobytes("pnm"), page.rect.width, page.rect.height
    finally:
        doc.close()


def ocr_image(image, options: OcrOptions, scale: float | None = None, width: float = 0.0, height: float = 0.0) -> OcrPage:
    """The words Tesseract reads on ``image`` (PNG or PNM bytes, or a PIL image),
    their boxes scaled by ``scale`` (points per pixel; ``72 / dpi`` when
    omitted)."""
    import pytesseract
    from PIL import Image

    version = tesseract_version()
    img = Image.open(io.BytesIO(image)) if isinstance(image, (bytes, bytearray)) else image
    scale = scale if scale is not None else 72.0 / options.dpi
    matrix = None
    if options.preprocess:
        import numpy as np

        from .ocr_image import prepare, scale_of

        prepared, matrix = prepare(np.asarray(img.convert("L")), options.preprocess)
        image = img = Image.fromarray(prepared)
        dpi = round(options.dpi * scale_of(matrix))
    else:
        dpi = options.dpi
    os.environ["OMP_THREAD_LIMIT"] = "1"  # one core per page: pages run side by side, results do not vary
    try:
        with tempfile.TemporaryDirectory(prefix="duocthu-ocr-") as folder:
            if isinstance(image, (bytes, bytearray)):  # handed to tesseract as they are: pytesseract would encode a PNG again
                source = os.path.join(folder, "page.img")
                with open(source, "wb") as f:
                    f.write(image)
            else:
                source = img
            data = pytesseract.image_to_data(
                source, lang=options.languages, config=f"--psm {options.psm} --dpi {dpi}", output_type=pytesseract.Output.DICT
            )
    except pytesseract.TesseractError as exc:
        raise ParseFailed(f"Tesseract could not read the page image: {str(exc)[:300]} — check `tesseract --list-langs` "
                          f"holds {options.languages} (run `make ocr`)") from exc
    words: list[OcrWord] = []
    pixels: list[tuple[int, int, int, int]] = []
    for k, text in enumerate(data["text"]):
        text = (text or "").strip()
        conf = float(data["conf"][k])
        if not text or conf < 0:
            continue
        left, top, wide, high = (int(data[key][k]) for key in ("left", "top", "width", "height"))
        pixels.append((left, top, left + wide, top + high))
        x0, y0, x1, y1 = _original(matrix, pixels[-1])
        words.append(OcrWord(text, (round(x0 * scale, 2), round(y0 * scale, 2), round(x1 * scale, 2), round(y1 * scale, 2)), conf,
                             data["block_num"][k], data["par_num"][k], data["line_num"][k]))
    if options.recheck_languages:
        words = _read_numbers_again(img, words, pixels, options)
    if matrix is not None:
        from .ocr_image import scale_of

        scale /= scale_of(matrix)  # the page's size in points from the prepared image's
    return OcrPage(tuple(words), width or img.width * scale, height or img.height * scale, ENGINE, version, options.languages, options.dpi)


def _original(matrix, box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """A box of pixels read on the prepared image as pixels of the page image."""
    if matrix is None:
        return box
    from .ocr_image import back

    return back(matrix, box)


def _read_numbers_again(img, words: list[OcrWord], pixels: list[tuple[int, int, int, int]], options: OcrOptions) -> list[OcrWord]:
    """The words, each holding a digit with its second reading (:mod:`.ocr_recheck`)."""
    import numpy as np
    import pytesseract

    from .ocr_recheck import holds_digit, second_readings

    which = [k for k, w in enumerate(words) if holds_digit(w.text)]
    if not which:
        return words
    grey = np.asarray(img.convert("L"))
    try:
        seconds = second_readings(grey, [pixels[k] for k in which], options.recheck_languages, options.dpi)  # on the image read
    except pytesseract.TesseractError as exc:
        raise ParseFailed(f"Tesseract could not read the page's numbers again: {str(exc)[:300]} — check `tesseract "
                          f"--list-langs` holds {options.recheck_languages} (run `make ocr`)") from exc
    out = list(words)
    for k, second in zip(which, seconds):
        out[k] = out[k]._replace(second=second)
    return out


def ocr_pdf_page(data: bytes, page_no: int, options: OcrOptions | None = None) -> OcrPage:
    """Page ``page_no`` (1-based) of a PDF rendered in grey at the options'
    dpi and read by Tesseract: the function the bench calls."""
    options = options or OcrOptions()
    png, width, height = render_page(data, page_no, options.dpi)
    return ocr_image(png, options, width=width, height=height)
