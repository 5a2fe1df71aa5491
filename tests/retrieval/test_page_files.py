"""The search page's files: crops and page renders served only from the
warehouse, by ids the index vouches for; every other request refused with a
reason."""

from __future__ import annotations

import os
from http import HTTPStatus

import pytest

from duocthu_assets.retrieval import Searcher
from duocthu_assets.retrieval.page_files import (
    PNG_MAGIC,
    FileRefused,
    PageFiles,
    safe_id,
)
from tests.support.search_page import page_warehouse


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, embedder):
    return page_warehouse(tmp_path_factory.mktemp("page") / "warehouse", embedder)


@pytest.fixture(scope="module")
def index(warehouse, embedder):
    return Searcher(warehouse, embedder).index()


def _refused(call, status: HTTPStatus, reason: str) -> None:
    with pytest.raises(FileRefused) as exc:
        call()
    assert exc.value.status == status and reason in str(exc.value), (exc.value.status, str(exc.value))


def test_a_crop_is_served_by_ids_from_the_index(warehouse, index):
    files = PageFiles(warehouse)
    data = files.crop(index, "duocthu-mini", "b0001")
    assert data.startswith(PNG_MAGIC) and data == warehouse.path("crops", "duocthu-mini", "b0001.png").read_bytes()
    assert files.label(index, "duocthu-mini").source_name == "duoc_thu_quoc_gia.pdf"
    assert files.crop_sizes(index, "duocthu-mini")["b0001"].dpi == 200


@pytest.mark.parametrize(
    ("doc", "block", "reason"),
    [
        ("../../etc", "passwd", "no indexed document"),
        ("duocthu-mini/../persian-memo", "b0001", "no indexed document"),
        ("/etc", "passwd", "no indexed document"),
        ("not-indexed", "b0001", "no indexed document"),
        ("duocthu-mini", "../../../../etc/passwd", "has no attachment"),
        ("duocthu-mini", "b0001.png", "has no attachment"),
        ("duocthu-mini", "b9999", "has no attachment"),
        ("persian-memo", "b0001", "has no attachment"),  # a real block, of another document
        ("duocthu-mini", "b0002", "missing from the warehouse"),  # indexed, its file absent
    ],
)
def test_other_crops_are_refused_with_a_reason(warehouse, index, doc, block, reason):
    _refused(lambda: PageFiles(warehouse).crop(index, doc, block), HTTPStatus.NOT_FOUND, reason)


def test_a_crop_that_is_not_a_png_or_leads_out_of_the_warehouse_is_refused(tmp_path, embedder):
    warehouse = page_warehouse(tmp_path / "warehouse", embedder)
    index = Searcher(warehouse, embedder).index()
    crop = warehouse.path("crops", "duocthu-mini", "b0002.png")
    crop.write_bytes(b"<html><script>alert(1)</script></html>")
    _refused(lambda: PageFiles(warehouse).crop(index, "duocthu-mini", "b0002"), HTTPStatus.UNPROCESSABLE_ENTITY, "not a PNG")
    secret = tmp_path / "secret.png"
    secret.write_bytes(PNG_MAGIC + b"outside")
    crop.unlink()
    os.symlink(secret, str(crop))
    _refused(lambda: PageFiles(warehouse).crop(index, "duocthu-mini", "b0002"), HTTPStatus.FORBIDDEN, "not inside the warehouse")


def test_a_page_of_the_stored_pdf_is_rendered_bounded_and_cached(warehouse, index):
    files = PageFiles(warehouse)
    png = files.render(index, "duocthu-mini", "2")
    assert png.startswith(PNG_MAGIC)
    assert files.render(index, "duocthu-mini", "2") is png  # cached
    width = int.from_bytes(png[16:20], "big")
    assert 800 < width <= 2400  # 595 pt at 110 dpi


@pytest.mark.parametrize(
    ("doc", "page", "status", "reason"),
    [
        ("duocthu-mini", "3", HTTPStatus.NOT_FOUND, "pages 1 to 2, not 3"),
        ("duocthu-mini", "0", HTTPStatus.NOT_FOUND, "pages 1 to 2, not 0"),
        ("duocthu-mini", "٢", HTTPStatus.BAD_REQUEST, "whole number"),
        ("duocthu-mini", "../1", HTTPStatus.BAD_REQUEST, "whole number"),
        ("persian-memo", "1", HTTPStatus.NOT_FOUND, "without pages to render"),
        ("../sources", "1", HTTPStatus.NOT_FOUND, "no indexed document"),
    ],
)
def test_other_renders_are_refused_with_a_reason(warehouse, index, doc, page, status, reason):
    _refused(lambda: PageFiles(warehouse).render(index, doc, page), status, reason)


def test_safe_ids_are_file_name_components():
    assert safe_id("duocthu-mini") and safe_id("b0001") and safe_id("bo-luat_2015.v2")
    for bad in ("", ".", "..", "a/b", "a\\b", ".hidden", "a..b", "a\x00b", "ä", "x" * 300):
        assert not safe_id(bad), bad
