"""Crops show the whole block (issue 15): every character the parser lifts
into a block lies inside the block's crop, rendered at the pipeline's dpi
and margin, on the sample, the stress layouts and real corpus tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.crops import crop_box, render_block_crop
from duocthu_assets.parse.pdf.engine import open_pdf, pymupdf
from duocthu_assets.parse.pdf.geometry import center, contains_point
from duocthu_assets.parse.pdf.read.page import read_page
from duocthu_assets.settings.pdf import resolve_pdf_settings
from duocthu_assets.settings import Settings

from tests.support.paths import INBOX, corpus_path
from tests.support.stress_pdfs import stress

CORPUS_FILES = [
    "pymupdf__chinese-tables.pdf",
    "papermage__2202.00535v1_aaai.pdf",
    "camelot__12s0324.pdf",
    "camelot__medicine.pdf",
    "docling__normal_4pages_korean.pdf",
    "pymupdf__test_5049_formula_sheet.pdf",
    "doclingparse__case_03_rotated_split_table.pdf",
]


def _page_fragments(content):
    """(box in the page's frame, fragment) for the page's fragments and, turned
    back, its sideways region's."""
    out = [(lambda b: b, f) for f in content.fragments]
    if content.sideways is not None:
        back = ~content.sideways_matrix

        def turned(b):
            r = pymupdf.Rect(b) * back
            return (r.x0, r.y0, r.x1, r.y1)

        out += [(turned, f) for f in content.sideways.fragments]
    return out


def _assert_crops_complete(data: bytes, settings: Settings) -> int:
    parsed = parse_document(data, Format.PDF, settings)
    doc = open_pdf(data)
    ps = resolve_pdf_settings(None)
    checked = 0
    try:
        for block in parsed.blocks:
            page = doc[block.page_no - 1]
            if page.rotation:
                continue  # reading orientation differs from the page's; covered by test_crops
            content = read_page(page, ps)
            if abs(content.width - page.rect.width) > 1:
                continue  # text set sideways on the whole page: the crop is turned to read (test_crops)
            box = crop_box(block.bbox, settings.crop_margin_pt)
            shown = pymupdf.Rect(box) & page.rect
            png, width, height = render_block_crop(data, block.page_no, block.bbox, settings.crop_dpi, settings.crop_margin_pt)
            scale = settings.crop_dpi / 72
            if content.sideways is not None and width > height and shown.height > shown.width:
                width, height = height, width  # a block set sideways on the upright page is shown the way it reads
            assert abs(width - shown.width * scale) <= 2 and abs(height - shown.height * scale) <= 2
            for box_of, fragment in _page_fragments(content):
                if not contains_point(block.bbox, *center(box_of(fragment.bbox)), pad=1.0):
                    continue
                for word in fragment.words:
                    x0, y0, x1, y1 = box_of(word.bbox)
                    assert shown.x0 - 0.01 <= x0 and x1 <= shown.x1 + 0.01 and shown.y0 - 0.01 <= y0 and y1 <= shown.y1 + 0.01, (
                        block.block_id,
                        word.text,
                        word.bbox,
                        tuple(shown),
                    )
                    checked += 1
    finally:
        doc.close()
    return checked


def test_every_character_of_every_sample_block_is_inside_its_crop():
    folder = INBOX / "formulary"
    from duocthu_assets.settings import collection_settings

    assert _assert_crops_complete((folder / "duoc_thu_mau.pdf").read_bytes(), collection_settings(folder)) > 0


@pytest.mark.parametrize("name", ["booktabs_continued", "two_column_continued", "column_bottom", "ruled_last_rows", "formulas", "sideways_table"])
def test_every_character_of_every_stress_block_is_inside_its_crop(name):
    data, _ = stress.build(name)
    assert _assert_crops_complete(data, Settings()) > 0


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_every_character_of_every_corpus_block_is_inside_its_crop(name):
    path: Path = corpus_path(name)
    _assert_crops_complete(path.read_bytes(), Settings())
