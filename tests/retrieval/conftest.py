"""The search tests' embedder (the real default model, loaded once per
module) and their tiny warehouse (tests/support/search_samples.py)."""

from __future__ import annotations

import pytest

from duocthu_assets.embed.factory import make_embedder

from tests.support.search_samples import tiny_warehouse


@pytest.fixture(scope="module")
def embedder():
    return make_embedder()


@pytest.fixture
def warehouse(tmp_path, embedder):
    return tiny_warehouse(tmp_path / "warehouse", embedder)
