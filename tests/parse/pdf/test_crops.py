"""Crops of lifted blocks: PNG, at least 150 dpi, a small margin, the same
bytes every time, the right way up on turned pages."""

from __future__ import annotations

import hashlib
from functools import lru_cache

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.errors import ParseFailed
from duocthu_assets.parse.pdf.crops import render_block_crop
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import collection_settings

from tests.support.paths import INBOX

FOLDER = INBOX / "formulary"
PDF = FOLDER / "duoc_thu_mau.pdf"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@lru_cache(maxsize=1)
def sample():
    data = PDF.read_bytes()
    return data, parse_document(data, Format.PDF, collection_settings(FOLDER))


def test_every_block_renders_to_a_png_of_its_size_at_150_dpi():
    data, parsed = sample()
    assert parsed.blocks
    for block in parsed.blocks:
        png, width, height = render_block_crop(data, block.page_no, block.bbox, 150, 4.0)
        assert png.startswith(PNG_MAGIC)
        pix = pymupdf.Pixmap(png)
        assert (pix.width, pix.height) == (width, height)
        x0, y0, x1, y1 = block.bbox
        # bbox plus a 4 pt margin on each side, at 150/72 pixels per point
        assert abs(width - (x1 - x0 + 8) * 150 / 72) <= 3
        assert abs(height - (y1 - y0 + 8) * 150 / 72) <= 3


def test_crops_are_deterministic():
    data, parsed = sample()
    block = parsed.blocks[0]
    first = render_block_crop(data, block.page_no, block.bbox, 150, 4.0)
    second = render_block_crop(data, block.page_no, block.bbox, 150, 4.0)
    assert hashlib.sha256(first[0]).digest() == hashlib.sha256(second[0]).digest()
    assert first[1:] == second[1:]


def test_higher_dpi_gives_more_pixels_and_low_dpi_is_refused():
    data, parsed = sample()
    block = parsed.blocks[0]
    _, w150, _ = render_block_crop(data, block.page_no, block.bbox, 150, 4.0)
    _, w300, _ = render_block_crop(data, block.page_no, block.bbox, 300, 4.0)
    assert abs(w300 - 2 * w150) <= 2
    with pytest.raises(ValueError, match="150 dpi"):
        render_block_crop(data, block.page_no, block.bbox, 96, 4.0)


def test_crop_shows_the_block():
    """The formula's crop is mostly white with dark ink: text and a rule, not
    an empty corner of the page."""
    data, parsed = sample()
    formula = next(b for b in parsed.blocks if b.kind.value == "formula")
    png, _, _ = render_block_crop(data, formula.page_no, formula.bbox, 150, 4.0)
    pix = pymupdf.Pixmap(png)
    samples = pix.samples
    dark = sum(1 for i in range(0, len(samples), pix.n) if samples[i] < 128)
    assert 0.01 < dark / (pix.width * pix.height) < 0.5


def test_bad_requests_fail_clearly():
    data, parsed = sample()
    with pytest.raises(ParseFailed, match="page 99"):
        render_block_crop(data, 99, (0, 0, 10, 10), 150, 4.0)
    with pytest.raises(ValueError, match="empty bbox"):
        render_block_crop(data, 1, (10, 10, 10, 20), 150, 4.0)


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_turned_page_crops_read_the_right_way_up(rotation):
    """A page with /Rotate: the parser reports the same boxes as for the
    upright page, and the crop is the upright crop."""
    data, parsed = sample()
    src = pymupdf.open(stream=data, filetype="pdf")
    formula = next(b for b in parsed.blocks if b.kind.value == "formula")
    upright = pymupdf.open()
    upright.insert_pdf(src, from_page=formula.page_no - 1, to_page=formula.page_no - 1)
    turned = pymupdf.open()
    turned.insert_pdf(src, from_page=formula.page_no - 1, to_page=formula.page_no - 1)
    turned[0].set_rotation(rotation)
    up_bytes, turned_bytes = upright.tobytes(), turned.tobytes()
    settings = collection_settings(FOLDER)
    up_blocks = parse_document(up_bytes, Format.PDF, settings).blocks
    turned_blocks = parse_document(turned_bytes, Format.PDF, settings).blocks
    assert [b.bbox for b in turned_blocks] == [b.bbox for b in up_blocks]
    a = render_block_crop(up_bytes, 1, up_blocks[-1].bbox, 150, 4.0)
    b = render_block_crop(turned_bytes, 1, turned_blocks[-1].bbox, 150, 4.0)
    assert a[1:] == b[1:]
    pa, pb = pymupdf.Pixmap(a[0]), pymupdf.Pixmap(b[0])
    differing = sum(1 for x, y in zip(pa.samples, pb.samples) if abs(x - y) > 64)
    assert differing / len(pa.samples) < 0.02
