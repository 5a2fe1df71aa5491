"""The OCR bench's pages: synthetic scans of born-digital PDFs, and the
corpus's real scans with their hand-made truth (``eval/ocr_truth``).

A synthetic scan is one page of a born-digital PDF rendered in grey at
200, 250 or 300 dpi, rotated by 0.3-1.5 degrees either way, with Gaussian
noise and JPEG compression, wrapped back into a one-page image-only PDF
with PyMuPDF. Its truth is the original page's text layer (PyMuPDF's
``get_text``, NFC). Every random choice is drawn from a generator seeded by
the file name, the page and ``SEED``: the same inputs give byte-identical
scans.

Pages alternate between a development part (the floor sweep) and a
held-out part (read only for the final figure): within each file, the
first chosen page is ``dev``, the second ``held_out``, and so on.
"""

from __future__ import annotations

import io
import json
import random
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

from duocthu_assets.evaluation.runner import default_corpus_dirs

REPO = Path(__file__).resolve().parents[1]
CORPUS = default_corpus_dirs()[0]  # $DUOCTHU_CORPUS, else ../shared/corpus
FORMULARY = REPO / "data" / "inbox" / "formulary" / "duoc_thu_mau.pdf"
TRUTH_DIR = REPO / "eval" / "ocr_truth"
SEED = 39

# (file, 1-based pages): Vietnamese legal text (a court precedent, two
# decrees, one with formulas), a Vietnamese ruled table, an English
# Redpaper, and every page of the sample formulary.
SYNTHETIC = (
    ("vn__an_le_so_43-2021-AL.pdf", (1, 2, 3, 4, 5, 6)),
    ("diepxuan__49-2026-ND-CP.pdf", (1, 2, 3, 4)),
    ("diepxuan__50-2026-ND-CP.pdf", (1, 2, 3, 4)),
    ("doclingparse__font_04_vietnamese_table.pdf", (1,)),
    ("docling__redp5110_sampled.pdf", (4, 6, 9, 12)),
    ("duoc_thu_mau.pdf", tuple(range(1, 10))),
)

# Pages whose transcription leaves out the digital-signature overlay the
# rendered page shows (eval/ocr_truth/README.md: on 06-bct page 1 it is "not
# in the scanned image"; on 28-pt and 59-nd it is transcribed as a [stamp]
# line). OCR reads the page as rendered, overlay included, so its text layer
# (the overlay's own text) is added to the truth there.
# The fresh held-out part (issue 39, second round; defined before any tuning of
# that round, scored once at its end): pages no earlier part used, of the
# two long decrees and the Redpaper, and the sample formulary's pages again
# (it has only nine, all in the parts above) under a new seed, so a new
# degradation -- its text is not new, which the report says. Split "fresh".
FRESH_SEED = 2039
FRESH = (
    ("diepxuan__49-2026-ND-CP.pdf", (7, 12, 16, 20, 27)),
    ("diepxuan__50-2026-ND-CP.pdf", (9, 13, 17, 22, 25)),
    ("docling__redp5110_sampled.pdf", (8, 14)),
    ("duoc_thu_mau.pdf", (4, 6, 7, 8)),
)

OVERLAY_NOT_TRANSCRIBED = {("vnlaw__06-bct.signed.pdf", 1)}

MARKERS = ("[stamp]", "[handwriting]", "[?]", "[table]", "[/table]")


@dataclass(frozen=True)
class BenchPage:
    """One page to OCR: where its image-bearing PDF is, which page of it,
    the truth text, and which part of the bench it belongs to."""

    kind: str  # "synthetic" | "real"
    file: str  # the corpus (or sample) file it comes from
    page: int  # 1-based page of the original file
    pdf: Path  # the PDF to OCR (a one-page scan, or the original real scan)
    pdf_page: int  # 1-based page of ``pdf`` to read
    truth: str
    split: str  # "dev" | "held_out" | "fresh" | "real"
    params: dict

    @property
    def key(self) -> str:
        fresh = f".s{self.params['seed']}" if self.split == "fresh" else ""
        return f"{self.file}#p{self.page:03d}{fresh}"


def source_path(name: str) -> Path:
    return FORMULARY if name == FORMULARY.name else CORPUS / name


def scan_params(name: str, page: int, seed: int = SEED) -> dict:
    """The seeded degradation of one page."""
    rng = random.Random(f"{seed}:{name}:{page}")
    angle = rng.uniform(0.3, 1.5) * rng.choice((-1, 1))
    return {
        "dpi": rng.choice((200, 250, 300)),
        "angle": round(angle, 3),
        "noise_sigma": round(rng.uniform(4.0, 12.0), 2),
        "jpeg_quality": rng.randint(55, 85),
        "seed": seed,
        "noise_seed": hash_str(f"{seed}:{name}:{page}:noise"),
    }


def degrade(page: pymupdf.Page, params: dict) -> bytes:
    """The page rendered, rotated, noised and JPEG-compressed (JPEG bytes)."""
    pix = page.get_pixmap(dpi=params["dpi"], colorspace=pymupdf.csGRAY, alpha=False)
    img = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    img = img.rotate(
        params["angle"], resample=Image.BICUBIC, expand=False, fillcolor=255
    )
    arr = np.asarray(img, dtype=np.float32)
    rng = np.random.default_rng(params["noise_seed"])
    arr = arr + rng.normal(0.0, params["noise_sigma"], arr.shape)
    out = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L")
    buf = io.BytesIO()
    out.save(buf, format="JPEG", quality=params["jpeg_quality"], optimize=False)
    return buf.getvalue()


def hash_str(text: str) -> int:
    """A stable 32-bit hash (Python's ``hash`` is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def image_only_pdf(jpeg: bytes, width_pt: float, height_pt: float) -> bytes:
    """A one-page PDF of the given size holding only the image."""
    doc = pymupdf.open()
    page = doc.new_page(width=width_pt, height=height_pt)
    page.insert_image(page.rect, stream=jpeg)
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return data


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def layer_truth(page: pymupdf.Page) -> str:
    """The page's text layer, line by line, blocks sorted top to bottom
    (running heads and folios where the scan shows them); superscript spans (footnote
    markers, ``m²``) written as Unicode superscripts, so a footnote ``¹``
    after ``AL`` is not read into the number ``43/2021/AL1``."""
    lines = []
    for block in page.get_text("dict", sort=True)["blocks"]:
        for line in block.get("lines", ()):
            parts = []
            for span in line["spans"]:
                text = span["text"]
                parts.append(
                    text.translate(_SUPERSCRIPT) if span["flags"] & 1 else text
                )
            lines.append("".join(parts))
        lines.append("")
    return unicodedata.normalize("NFC", "\n".join(lines))


def make_synthetic(out_dir: Path, seed: int = SEED, fresh: bool = False) -> list[BenchPage]:
    """Write (or reuse) every synthetic scan under ``out_dir``; skip files
    absent. ``fresh``: the fresh held-out part (``FRESH`` under ``FRESH_SEED``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pages: list[BenchPage] = []
    seed = FRESH_SEED if fresh else seed
    for name, numbers in FRESH if fresh else SYNTHETIC:
        src = source_path(name)
        if not src.is_file():
            continue
        doc = pymupdf.open(src)
        for i, number in enumerate(numbers):
            params = scan_params(name, number, seed)
            stem = f"{name}.p{number:03d}.s{seed}"
            pdf, truth_file = out_dir / f"{stem}.pdf", out_dir / f"{stem}.truth.txt"
            page = doc[number - 1]
            if not pdf.is_file():
                pdf.write_bytes(
                    image_only_pdf(
                        degrade(page, params), page.rect.width, page.rect.height
                    )
                )
            truth = layer_truth(page)
            truth_file.write_text(truth, encoding="utf-8")
            split = "fresh" if fresh else "dev" if i % 2 == 0 else "held_out"
            pages.append(
                BenchPage("synthetic", name, number, pdf, 1, truth, split, params)
            )
        doc.close()
    return pages


def truth_text(raw: str) -> str:
    """A hand transcription with its markers and cell separators left out."""
    lines = []
    for line in raw.splitlines():
        for marker in MARKERS:
            line = line.replace(marker, " ")
        words = [w for w in line.split() if w != "|"]
        lines.append(" ".join(words))
    return unicodedata.normalize("NFC", "\n".join(lines))


def real_pages() -> list[BenchPage]:
    """The corpus's real scans that have a hand transcription."""
    pages = []
    if not TRUTH_DIR.is_dir():
        return pages
    for folder in sorted(p for p in TRUTH_DIR.iterdir() if p.is_dir()):
        src = source_path(folder.name)
        if not src.is_file():
            continue
        for txt in sorted(folder.glob("page-*.txt")):
            number = int(txt.stem.split("-")[1])
            truth = truth_text(txt.read_text(encoding="utf-8"))
            if (folder.name, number) in OVERLAY_NOT_TRANSCRIBED:
                with pymupdf.open(src) as doc:
                    truth += "\n" + unicodedata.normalize("NFC", doc[number - 1].get_text())
            pages.append(
                BenchPage(
                    "real",
                    folder.name,
                    number,
                    src,
                    number,
                    truth,
                    "real",
                    {"numbers_json": listed_numbers(folder, number)},
                )
            )
    return pages


def listed_numbers(folder: Path, number: int) -> int | None:
    """How many numbers ``numbers.json`` lists for the page (both layouts)."""
    path = folder / "numbers.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if "pages" in data:
        entry = data["pages"].get(f"{number:03d}")
        return len(entry["numbers"]) if entry else None
    entry = data.get(f"page-{number:03d}")
    return len(entry) if entry is not None else None


def render_grey_png(pdf: Path, page_no: int, dpi: int) -> bytes:
    """The page as the pipeline sees it: grey, at ``dpi`` (PNG bytes)."""
    with pymupdf.open(pdf) as doc:
        pix = doc[page_no - 1].get_pixmap(
            dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False
        )
        return pix.tobytes("png")
