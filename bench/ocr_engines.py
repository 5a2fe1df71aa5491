"""The three readers the OCR bench compares, each returning words in reading
order with the CPU seconds it spent:

- ``tesseract``: Debian's ``tesseract`` CLI on the page rendered in grey at
  the pipeline's dpi, TSV output (word confidences 0-100);
- ``ocrmypdf``: ``ocrmypdf --force-ocr`` on a PDF of the same pages, then
  PyMuPDF's words of its text layer (no confidences);
- ``pipeline``: the pipeline's PDF stage (``parse_document``, OCR on one
  worker) of the tree at ``$OCR_PIPELINE_TREE`` (default: this
  repository), run in a subprocess with that tree first on
  ``PYTHONPATH``: its segments' text with its own ``uncertain_spans``.

Every OCR process runs with ``OMP_THREAD_LIMIT=1`` (one core) under
``nice -n 10``; CPU seconds come from ``getrusage(RUSAGE_CHILDREN)``, so they
include ocrmypdf's own tesseract children.
"""

from __future__ import annotations

import csv
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pymupdf

PIPELINE_TREE = Path(os.environ.get("OCR_PIPELINE_TREE", Path(__file__).resolve().parents[1]))
PROBE = Path(__file__).with_name("ocr_pipeline_probe.py")


def _env() -> dict:
    env = dict(os.environ, OMP_THREAD_LIMIT="1", LC_ALL="C.UTF-8")
    return env


def _run(
    cmd: list[str], env: dict | None = None
) -> tuple[subprocess.CompletedProcess, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        ["nice", "-n", "10", *cmd], capture_output=True, env=env or _env(), check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.decode(errors='replace')[-800:]}"
        )
    return proc, cpu


def tesseract_version() -> str:
    proc = subprocess.run(
        ["tesseract", "--version"], capture_output=True, text=True, check=False
    )
    return (proc.stdout or proc.stderr).splitlines()[0].strip()


def ocrmypdf_version() -> str:
    proc = subprocess.run(
        ["ocrmypdf", "--version"], capture_output=True, text=True, check=False
    )
    return proc.stdout.strip()


def parse_tsv(tsv: str) -> list[dict]:
    """Words (level 5 rows with text) of tesseract's TSV, in its order."""
    words = []
    rows = csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    for row in rows:
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text:
            continue
        line = f"{row['block_num']}.{row['par_num']}.{row['line_num']}"
        x0, y0 = int(row["left"]), int(row["top"])
        bbox = [x0, y0, x0 + int(row["width"]), y0 + int(row["height"])]  # pixels
        words.append(
            {
                "text": unicodedata.normalize("NFC", text),
                "conf": float(row["conf"]),
                "line": line,
                "bbox": bbox,
            }
        )
    return words


def run_tesseract(png: bytes, languages: str, dpi: int) -> tuple[list[dict], float]:
    with tempfile.TemporaryDirectory(prefix="ocrbench-") as tmp:
        image = Path(tmp) / "page.png"
        image.write_bytes(png)
        base = Path(tmp) / "out"
        _, cpu = _run(
            [
                "tesseract",
                str(image),
                str(base),
                "-l",
                languages,
                "--dpi",
                str(dpi),
                "tsv",
            ]
        )
        return parse_tsv((base.with_suffix(".tsv")).read_text(encoding="utf-8")), cpu


def run_ocrmypdf(sources: list[tuple[Path, int]], languages: str) -> tuple[list[list[dict]], float]:
    """OCR the given (PDF, 1-based page) pages with one ``ocrmypdf`` run over
    a PDF made of them; the words of each page, in order, and the CPU
    seconds of the whole run."""
    with tempfile.TemporaryDirectory(prefix="ocrbench-") as tmp:
        subset = Path(tmp) / "in.pdf"
        with pymupdf.open() as dst:
            for pdf, page in sources:
                with pymupdf.open(pdf) as src:
                    dst.insert_pdf(src, from_page=page - 1, to_page=page - 1)
            dst.save(subset)
        out = Path(tmp) / "out.pdf"
        cmd = ["ocrmypdf", "--force-ocr", "-l", languages, "--output-type", "pdf", "--optimize", "0"]
        cmd += ["--jobs", "1", "--quiet", str(subset), str(out)]
        _, cpu = _run(cmd)
        result = []
        with pymupdf.open(out) as doc:
            for i in range(len(sources)):
                words = doc[i].get_text("words", sort=False)
                result.append(
                    [{"text": unicodedata.normalize("NFC", w[4]), "conf": None, "line": f"{w[5]}.{w[6]}"} for w in words]
                )
        return result, cpu


def page_area(pdf: Path, page: int) -> float:
    with pymupdf.open(pdf) as doc:
        rect = doc[page - 1].rect
        return rect.width * rect.height


def run_pipeline(pdf: Path, profile: str | None = None) -> tuple[dict, float]:
    """The pipeline's PDF stage on a scanned PDF (``parse`` mode of the probe):
    per page its words with the pipeline's own uncertain flags, lifted
    blocks, blocked pages, OCR provenance, formulary sections."""
    env = _env()
    env["PYTHONPATH"] = str(PIPELINE_TREE)
    cmd = [sys.executable, str(PROBE), "parse", str(pdf)] + (["--profile", profile] if profile else [])
    proc, cpu = _run(cmd, env=env)
    return json.loads(proc.stdout.decode("utf-8")), cpu


def pipeline_commit() -> str:
    proc = subprocess.run(["git", "-C", str(PIPELINE_TREE), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip() or PIPELINE_TREE.name


def pipeline_available() -> bool:
    return (
        PIPELINE_TREE / "duocthu_assets" / "parse" / "pdf" / "read" / "ocr.py"
    ).is_file()
