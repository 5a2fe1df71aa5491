"""`duocthu eval` end to end on a small generated DOCX collection with its
gold (tests/support/eval_collection.py), plus the staging and comparison
steps on their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_assets.cli import main
from duocthu_assets.evaluation.document import DocumentScores
from duocthu_assets.evaluation.gold import DocumentGold, GoldQuery
from duocthu_assets.evaluation.report import compare
from duocthu_assets.evaluation.runner import Config, DocumentRun, EvalRun, stage
from duocthu_assets.evaluation.scoring import RetrievalScores

from tests.support.eval_collection import write_collection


@pytest.mark.slow
def test_eval_end_to_end_on_a_generated_docx(tmp_path, capsys):
    collection = write_collection(tmp_path / "handbook")
    warehouse = tmp_path / "wh"
    code = main(["eval", str(collection), "--warehouse", str(warehouse), "--quiet", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    folder = warehouse / "eval" / "handbook"
    for name in ("report.md", "report.png", "report.json"):
        assert (folder / name).is_file() and (folder / name).stat().st_size > 0
    assert (folder / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| huong_dan.docx | ok |" in (folder / "report.md").read_text(encoding="utf-8")

    (run,) = report["runs"]
    (doc,) = run["documents"]
    assert doc["status"] == "ok"
    # DOCX Heading styles give every gold start, one to one
    assert doc["boundary"]["f1"] == 1.0 and doc["boundary"]["unlocated"] == []
    assert doc["bleed"]["share"] == 0.0 and doc["bleed"]["chunks"] >= 3
    r = doc["retrieval"]
    assert r["n"] == 3 and r["unanswerable"] == 0
    assert r["recall_at"]["10"] == 1.0  # fewer than 10 chunks: every answer is in the list
    assert 0.0 <= r["recall_at"]["1"] <= r["recall_at"]["3"] <= r["recall_at"]["10"]
    assert r["mrr"] >= 1 / 3 and r["mrr"] <= 1.0
    assert doc["seconds"] > 0 and doc["tokens_embedded"] > 20 and doc["chunks"] >= 3
    # the documents were staged as symlinks, never copied
    staged = warehouse / "eval" / "handbook" / "runs" / "baseline" / "inbox" / "handbook" / "huong_dan.docx"
    assert staged.is_symlink() and staged.resolve() == (collection / "huong_dan.docx").resolve()


def test_stage_applies_overrides_without_copying(tmp_path):
    source = tmp_path / "doc.csv"
    source.write_text("a,b\n1,2\n", encoding="utf-8")
    gold = DocumentGold("doc.csv", tmp_path / "doc.boundaries.json", None)
    config = Config.from_overrides(["chunk_size=250"])
    inbox, settings = stage(tmp_path / "run", "coll", [(gold, source)], {"profile": "generic", **dict(config.overrides)}, "note")
    assert settings.chunk_size == 250 and settings.profile == "generic"
    assert (inbox / "doc.csv").is_symlink()
    assert "chunk_size = 250" in (inbox / "collection.toml").read_text()
    with pytest.raises(ValueError, match="chunk_size"):
        stage(tmp_path / "bad", "coll", [], {"chunk_size": 9999}, "note")


def _run(label: str, firsts: list[int | None]) -> EvalRun:
    gold = DocumentGold("d.pdf", Path("d.boundaries.json"), None, queries=[GoldQuery(f"q{i}", "x", ("s",)) for i in range(len(firsts))])
    n = len(firsts)
    retrieval = RetrievalScores(n, {1: None}, None, tuple(firsts))
    scores = DocumentScores(None, None, None, retrieval, [], [])  # only retrieval is read by compare()
    return EvalRun("c", Config(label), {}, "", [DocumentRun("d.pdf", status="ok", scores=scores, gold=gold)], ks=(1, 3))


def test_compare_runs_mcnemar_per_k():
    # A answers 12 queries at rank 1, B only 2 of them (and loses the other 10 beyond rank 3)
    a = _run("baseline", [1] * 12 + [None] * 3)
    b = _run("chunk_size=250", [1] * 2 + [None] * 10 + [2, 2, None])
    result = compare(a, b)
    at1 = result["mcnemar"]["1"]
    assert (at1["b"], at1["c"], at1["method"]) == (10, 0, "exact")
    assert at1["p_value"] == pytest.approx(2 / 1024, abs=1e-4) and at1["significant"]
    at3 = result["mcnemar"]["3"]
    assert (at3["b"], at3["c"]) == (10, 2)
    assert at3["p_value"] == pytest.approx(0.0386, abs=1e-4)
