"""The pages that need OCR, read side by side: each page rendered in grey at
the collection's dpi (in this process: MuPDF is not thread-safe), its image
hashed, and read by Tesseract in a pool of threads (each one a ``tesseract``
process on a core of its own) — or taken from the cache, keyed by the page
image's hash and what reads it (engine version, languages, dpi), so that a
re-ingest or a change of settings that does not touch OCR never reads a page
again. Progress (pages done, pages/s, time left) goes to a callback.

Deterministic: pages come back in page order whatever order the threads
finish in, and Tesseract runs on one thread per page.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from ....settings.pdf import PdfSettings
from ..engine import open_pdf, pymupdf
from .ocr import OcrOptions, OcrPage, OcrWord, ocr_image, tesseract_version

Progress = Callable[[int, int, float, float], None]  # pages done, pages in all, pages/s, seconds left
BLANK_MAX_INK = 0.001  # a page image with less than this share of dark pixels holds nothing to read


@dataclass(frozen=True)
class PageImage:
    """One page as rendered for OCR: grey PNM bytes (``png``: its image's bytes), its size in pixels and
    the page's in points, and the hash the cache knows it by."""

    page_no: int
    png: bytes
    width: float
    height: float
    sha256: str
    blank: bool


@dataclass(frozen=True)
class ScanRead:
    """A page read by OCR: its image and the words Tesseract read on it."""

    image: PageImage
    ocr: OcrPage


class OcrCache:
    """OCR results on disk, one JSON file per page image and reading
    (``<dir>/<key[:2]>/<key>.json``), written atomically; ``None`` as the
    directory keeps nothing."""

    def __init__(self, directory: str | Path | None):
        self.directory = Path(directory) if directory else None

    def _path(self, key: str) -> Path | None:
        return self.directory / key[:2] / f"{key}.json" if self.directory else None

    def get(self, key: str) -> OcrPage | None:
        path = self._path(key)
        if path is None or not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            words = tuple(OcrWord(w[0], tuple(w[1]), w[2], w[3], w[4], w[5], w[6] if len(w) > 6 else None) for w in data.pop("words"))
            return OcrPage(words=words, **data)
        except (ValueError, KeyError, TypeError, IndexError):
            return None  # a damaged entry is read again

    def put(self, key: str, page: OcrPage) -> None:
        path = self._path(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        data = asdict(page)
        data["words"] = [list(w) for w in page.words]
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)


def cache_key(image_sha256: str, options: OcrOptions, version: str) -> str:
    """The page image's hash and all that decides what OCR reads on it."""
    what = f"{image_sha256}|tesseract {version}|{options.languages}|{options.dpi}|psm {options.psm}"
    if options.recheck_languages:  # numbers read a second time (ocr_recheck): a reading without them is not this one
        what += f"|numbers again {options.recheck_languages}"
    if options.preprocess:
        what += f"|prepared {','.join(options.preprocess)}"
    return hashlib.sha256(what.encode()).hexdigest()


def options_of(settings: PdfSettings) -> OcrOptions:
    return OcrOptions(languages=settings.ocr_languages, dpi=settings.ocr_dpi)


def rendered_pages(data: bytes, page_nos: list[int], dpi: int) -> Iterator[PageImage]:
    """Each page of ``page_nos`` rendered in grey at ``dpi``, in order."""
    doc = open_pdf(data)
    try:
        for page_no in page_nos:
            page = doc[page_no - 1]
            pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False, annots=False)
            samples = pix.samples
            dark = _dark_share(samples)
            png = pix.tobytes("pnm")  # uncompressed: Tesseract and OpenCV read it as it is
            yield PageImage(page_no, png, page.rect.width, page.rect.height, hashlib.sha256(f"{pix.width}x{pix.height}:".encode() + samples).hexdigest(), dark < BLANK_MAX_INK)
    finally:
        doc.close()


def _dark_share(samples: bytes) -> float:
    """The share of pixels darker than mid-grey."""
    import numpy as np

    arr = np.frombuffer(samples, dtype=np.uint8)
    return float((arr < 128).mean()) if arr.size else 0.0


def workers_for(settings: PdfSettings) -> int:
    return settings.ocr_workers or max(os.cpu_count() or 1, 1)


def read_scans(data: bytes, page_nos: list[int], settings: PdfSettings, cache: OcrCache | None = None,
               progress: Progress | None = None) -> dict[int, ScanRead]:
    """The pages ``page_nos`` (1-based) read by OCR, from the cache where it
    has them, the others by Tesseract in parallel; a blank page is not read
    (no words). Raises :class:`..errors.ParseFailed` when Tesseract is not
    installed."""
    options = options_of(settings)
    version = tesseract_version()
    cache = cache or OcrCache(None)
    out: dict[int, ScanRead] = {}
    started = time.perf_counter()
    total = len(page_nos)
    done = 0

    def finished(image: PageImage, page: OcrPage) -> None:
        nonlocal done
        out[image.page_no] = ScanRead(image, page)
        done += 1
        if progress is not None:
            rate = done / max(time.perf_counter() - started, 1e-6)
            progress(done, total, rate, (total - done) / rate if rate else 0.0)

    workers = workers_for(settings)
    pending: list[tuple[PageImage, str, Future]] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for image in rendered_pages(data, page_nos, options.dpi):
            key = cache_key(image.sha256, options, version)
            cached = cache.get(key)
            if cached is not None:
                finished(image, cached)
                continue
            if image.blank:
                finished(image, OcrPage((), image.width, image.height, "tesseract", version, options.languages, options.dpi, image.sha256))
                continue
            pending.append((image, key, pool.submit(ocr_image, image.png, options, None, image.width, image.height)))
            while len(pending) >= 2 * workers:  # a bounded window: 900 rendered pages are not held at once
                _collect(pending.pop(0), cache, finished)
        while pending:
            _collect(pending.pop(0), cache, finished)
    return {p: out[p] for p in page_nos}


def _collect(item: tuple[PageImage, str, Future], cache: OcrCache, finished: Callable[[PageImage, OcrPage], None]) -> None:
    image, key, future = item
    page = future.result()
    page = OcrPage(page.words, page.width, page.height, page.engine, page.version, page.languages, page.dpi, image.sha256)
    cache.put(key, page)
    finished(image, page)
