"""`duocthu eval --compare search=MODE`: the same build searched two ways,
paired query by query (McNemar), without building the collection twice."""

from __future__ import annotations

import json

import pytest

from duocthu_assets.cli import main
from duocthu_assets.evaluation.runner import Config

from tests.support.eval_collection import write_collection


def test_a_search_mode_is_a_configuration_that_needs_no_rebuild():
    config = Config.from_overrides(["search=dense"])
    assert (config.label, config.search, config.overrides, config.slug) == ("search=dense", "dense", (), "baseline")
    both = Config.from_overrides(["chunk_size=250", "search=lexical"])
    assert both.search == "lexical" and both.overrides == (("chunk_size", 250),) and both.slug == Config.from_overrides(["chunk_size=250"]).slug
    with pytest.raises(ValueError, match="unknown search mode 'fuzzy'"):
        Config.from_overrides(["search=fuzzy"])


@pytest.mark.slow
def test_eval_compares_search_modes_on_one_build(tmp_path, capsys):
    collection = write_collection(tmp_path / "handbook")
    warehouse = tmp_path / "wh"
    code = main(["eval", str(collection), "--warehouse", str(warehouse), "--quiet", "--json", "--compare", "search=dense"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["config"] for r in report["runs"]] == ["baseline", "search=dense"]
    assert sorted(p.name for p in (warehouse / "eval" / "handbook" / "runs").iterdir()) == ["baseline"]  # one build
    for run in report["runs"]:
        (doc,) = run["documents"]
        assert doc["status"] == "ok" and doc["retrieval"]["n"] == 3
    mcnemar = report["comparison"]["mcnemar"]
    assert report["comparison"]["a"] == "baseline" and report["comparison"]["b"] == "search=dense"
    assert all(m["n"] == 3 for m in mcnemar.values())
