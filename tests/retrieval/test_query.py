"""Hybrid fusion as a setting (issue 40 item 4): weighted reciprocal rank
or min-max normalized scores; a weight of 1 or 0 is one side alone; a bad
setting is refused with its reason."""

from __future__ import annotations

import numpy as np
import pytest

from duocthu_assets.retrieval.query import RRF_K, Fusion, fuse, resolve_fusion

DENSE = np.array([0.9, 0.8, 0.1, 0.5, 0.2], dtype=np.float32)
LEXICAL = np.array([0.0, 1.0, 7.0, 3.0, 0.0], dtype=np.float32)
ORDER = np.arange(5)


def test_rrf_at_half_weight_is_plain_reciprocal_rank():
    fused = dict(fuse(DENSE, LEXICAL, ORDER, 5, Fusion("rrf", 0.5)))
    assert fused[3] == pytest.approx(1 / (RRF_K + 3) + 1 / (RRF_K + 2))  # 3rd by cosine, 2nd by BM25
    assert fused[0] == pytest.approx(1 / (RRF_K + 1))  # no shared term: the dense list only


@pytest.mark.parametrize("method", ["rrf", "minmax"])
def test_a_weight_of_one_or_zero_is_one_side_alone(method):
    lexical_only = [p for p, _ in fuse(DENSE, LEXICAL, ORDER, 3, Fusion(method, 1.0))]
    dense_only = [p for p, _ in fuse(DENSE, LEXICAL, ORDER, 3, Fusion(method, 0.0))]
    assert lexical_only == [2, 3, 1] and dense_only == [0, 1, 3]


def test_a_fusion_setting_is_parsed_and_checked(monkeypatch):
    assert resolve_fusion("minmax:0.7") == Fusion("minmax", 0.7)
    monkeypatch.setenv("DUOCTHU_SEARCH_FUSION", "rrf:0.6")
    assert resolve_fusion() == Fusion("rrf", 0.6)
    with pytest.raises(ValueError, match="unknown fusion 'sum'"):
        resolve_fusion("sum")
    monkeypatch.setenv("DUOCTHU_SEARCH_FUSION", "rrf:2")
    with pytest.raises(ValueError, match=r"lexical weight must lie in \[0, 1\], got 2.0 \(from \$DUOCTHU_SEARCH_FUSION\)"):
        resolve_fusion()
