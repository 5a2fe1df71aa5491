"""Every character of a PDF accounted for (issue 16): glyphs that cannot be
read, furniture found by repetition, printed labels, per-page character
accounting, on documents made here and on the corpus (skipped when absent)."""

from __future__ import annotations

import glob
from functools import lru_cache

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf_engine import pymupdf
from duocthu_assets.parse.pdf_page import TEXT_FLAGS, UNMAPPED
from duocthu_assets.settings import Settings

from .conftest import CORPUS, corpus_path

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINE = "Thuốc được hấp thu nhanh qua đường tiêu hóa, đạt nồng độ tối đa sau {} giờ."


def _pdf(pages: list[list[str]], header: str | None = None, footer: str | None = None) -> bytes:
    doc = pymupdf.open()
    for n, lines in enumerate(pages, start=1):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=FONT)
        if header:
            page.insert_text((60, 40), header.format(n=n, total=len(pages)), fontname="dv", fontsize=8)
        for i, line in enumerate(lines):
            page.insert_text((60, 100 + 16 * i), line, fontname="dv", fontsize=10)
        if footer:
            page.insert_text((60, 810), footer.format(n=n, total=len(pages)), fontname="dv", fontsize=8)
    return doc.tobytes()


@lru_cache(maxsize=None)
def parsed_corpus(name: str):
    return parse_document(corpus_path(name).read_bytes(), Format.PDF, Settings())


def corpus_pdfs() -> list[str]:
    names = []
    for path in sorted(glob.glob(str(CORPUS / "*.pdf"))):
        data = open(path, "rb").read()
        try:
            doc = pymupdf.open(stream=data, filetype="pdf")
        except Exception:  # noqa: BLE001 - empty or unopenable files are other tests' business
            continue
        if not doc.needs_pass or doc.authenticate(""):
            names.append(path.rsplit("/", 1)[-1])
    return names


# --- glyphs that cannot be read (item 2) -------------------------------------------


def test_unmapped_glyphs_are_counted_left_out_and_a_broken_page_needs_ocr():
    good = [LINE.format(i) for i in range(20)]
    good[3] = good[3].replace("hấp", "h\ufffdp")  # one glyph without a mapping on an otherwise fine page
    broken = ["\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd lo \ufffd\ufffd\ufffd\ufffd" for _ in range(20)]
    doc = parse_document(_pdf([good, broken]), Format.PDF, Settings())
    text = " ".join(s.text for s in doc.segments)
    assert "\ufffd" not in text
    assert "hp thu" in text  # the rest of the word kept
    assert doc.pages_needing_ocr == [2]
    # the page is named in pages_needing_ocr, so no_pages_need_ocr blocks the document before chunking
    assert any("glyph(s) without a Unicode mapping" in w and "page 1: 1" in w for w in doc.warnings)
    assert any(w.startswith("page 2: broken text layer") for w in doc.warnings)


@pytest.mark.corpus
def test_math_paper_loses_no_glyph_pymupdf_maps_and_chunks_no_fffd():
    """grobid__0807.3577_jcap_math.pdf: ``page.get_text()`` shows no U+FFFD only
    because it prints raw font codes instead (\\x02, or "P" for TeX's big Σ).
    Our text layer equals get_text's character for character except exactly
    where the glyph has no Unicode mapping, and no U+FFFD reaches a segment."""
    name = "grobid__0807.3577_jcap_math.pdf"
    doc = pymupdf.open(corpus_path(name))
    differ = 0
    for page in doc:
        ours = page.get_textpage(flags=TEXT_FLAGS).extractText()
        library = page.get_textpage(flags=TEXT_FLAGS | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE).extractText()
        if len(ours) != len(library):
            continue  # a raw code read as a line break shifts the text; compared on the other pages
        for a, b in zip(ours, library):
            if a != b:
                differ += 1
                assert UNMAPPED.match(a), (page.number + 1, a, b)
    assert differ > 0
    parsed = parsed_corpus(name)
    assert not any("\ufffd" in s.text or UNMAPPED.search(s.text) for s in parsed.segments)
    assert parsed.pages_needing_ocr == []
