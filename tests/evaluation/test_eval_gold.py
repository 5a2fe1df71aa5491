"""Gold files: schema validation, discovery, locating sections, and one
document scored from a hand-built view (no pipeline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from duocthu_assets.evaluation.document import DocumentView, evaluate_document
from duocthu_assets.evaluation.gold import GoldError, discover_gold, load_boundaries, load_queries, resolve_document
from duocthu_assets.evaluation.runner import Config, parse_override
from duocthu_assets.evaluation.scoring import locate_sections
from duocthu_assets.evaluation.textmatch import NormalizedText

from tests.support.paths import REPO


CANONICAL = (
    "NGHỊ ĐỊNH\n\nCăn cứ Luật.\n\n"
    "# Chương I\n\nNHỮNG QUY ĐỊNH CHUNG\n\n"
    "# Điều 1. Phạm vi điều chỉnh\n\nNghị định này quy định về họ.\n\n"
    "Điều 2. Đối tượng áp dụng\n\nNghị định này áp dụng đối với thành viên và chủ họ."
)


def _write(folder: Path, name: str, payload: dict) -> Path:
    path = folder / name
    path.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    return path


def _gold(folder: Path) -> Path:
    boundaries = {
        "schema": "duocthu.eval.boundaries/1",
        "document": "nd.docx",
        "made_by": "test",
        "boundaries": [
            {"id": "chuong-1", "anchor": "Chương I", "suffix": "NHỮNG QUY ĐỊNH CHUNG"},
            {"id": "dieu-1", "anchor": "Điều 1. Phạm vi điều chỉnh"},
            {"id": "dieu-2", "anchor": "Điều 2. Đối tượng áp dụng"},
        ],
    }
    queries = {
        "schema": "duocthu.eval.queries/1",
        "document": "nd.docx",
        "made_by": "test",
        "queries": [
            {"id": "q1", "query": "phạm vi", "sections": ["dieu-1"]},
            {"id": "q2", "query": "đối tượng", "passage": "áp dụng đối với thành viên"},
            {"id": "q3", "query": "căn cứ", "sections": ["_front"]},
        ],
    }
    _write(folder, "nd.docx.queries.json", queries)
    return _write(folder, "nd.docx.boundaries.json", boundaries)


def test_load_and_discover(tmp_path):
    _gold(tmp_path)
    (tmp_path / "nd.docx").write_bytes(b"")
    golds = discover_gold(tmp_path)
    assert [g.document for g in golds] == ["nd.docx"]
    gold = golds[0]
    assert [b.id for b in gold.boundaries] == ["chuong-1", "dieu-1", "dieu-2"]
    assert gold.boundaries[0].anchor.suffix == "NHỮNG QUY ĐỊNH CHUNG"
    assert [q.id for q in gold.queries] == ["q1", "q2", "q3"]
    assert resolve_document(gold, []) == tmp_path / "nd.docx"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"schema": "other/1"}, "schema"),
        ({"boundaries": []}, "non-empty list"),
        ({"boundaries": [{"id": "a", "anchor": "x"}, {"id": "a", "anchor": "y"}]}, "duplicate id"),
        ({"boundaries": [{"id": "a", "anchor": " -- "}]}, "no letters or digits"),
        ({"boundaries": [{"id": "a", "anchor": "x", "colour": "red"}]}, "unknown fields"),
        ({"made_by": ""}, "made_by"),
    ],
)
def test_boundaries_schema_errors_name_the_field(tmp_path, change, message):
    payload = {"schema": "duocthu.eval.boundaries/1", "document": "d.pdf", "made_by": "t", "boundaries": [{"id": "a", "anchor": "x"}]}
    payload.update(change)
    path = _write(tmp_path, "d.boundaries.json", payload)
    with pytest.raises(GoldError, match=message):
        load_boundaries(path)


def test_queries_must_name_known_sections(tmp_path):
    gold = load_boundaries(_gold(tmp_path))
    bad = {"schema": "duocthu.eval.queries/1", "document": "nd.docx", "made_by": "t", "queries": [{"id": "q", "query": "x", "sections": ["dieu-9"]}]}
    with pytest.raises(GoldError, match="unknown boundary ids"):
        load_queries(_write(tmp_path, "bad.queries.json", bad), gold)
    empty = {**bad, "queries": [{"id": "q", "query": "x"}]}
    with pytest.raises(GoldError, match="sections, a passage"):
        load_queries(_write(tmp_path, "empty.queries.json", empty), gold)


def test_orphan_queries_file_is_an_error(tmp_path):
    _write(tmp_path, "x.queries.json", {})
    with pytest.raises(GoldError, match="without a boundaries file"):
        discover_gold(tmp_path)


def test_score_a_hand_built_view(tmp_path):
    path = _gold(tmp_path)
    gold = load_queries(tmp_path / "nd.docx.queries.json", load_boundaries(path))
    norm = NormalizedText.of(CANONICAL)
    located = locate_sections(gold, norm)
    assert [s.id for s in located.sections] == ["_front", "chuong-1", "dieu-1", "dieu-2"]
    assert located.unlocated == []

    def span(text: str) -> dict:
        return {"offset": CANONICAL.index(text), "length": len(text)}

    heading_texts = ["Chương I", "NHỮNG QUY ĐỊNH CHUNG", "Điều 1. Phạm vi điều chỉnh"]  # Điều 2 was not detected
    chunks = [
        {"chunk_id": "c0", "chunk_kind": "prose", "text": "NGHỊ ĐỊNH Căn cứ Luật.", "token_count": 5, "spans": [span("NGHỊ ĐỊNH"), span("Căn cứ Luật.")], "source_elements": []},
        {"chunk_id": "c1", "chunk_kind": "prose", "text": "Chương I", "token_count": 3, "spans": [span("Chương I"), span("NHỮNG QUY ĐỊNH CHUNG")], "source_elements": []},
        {
            "chunk_id": "c2",
            "chunk_kind": "prose",
            "text": CANONICAL[CANONICAL.index("Điều 1"):],
            "token_count": 30,
            "spans": [{"offset": CANONICAL.index("Điều 1"), "length": len(CANONICAL) - CANONICAL.index("Điều 1")}],
            "source_elements": [],
        },
    ]
    view = DocumentView("nd", CANONICAL, [(CANONICAL.index(t), len(t)) for t in heading_texts], chunks)
    scores = evaluate_document(gold, view, [["c2", "c0"], ["c1", "c2"], ["c0"]], tolerance=20, ks=(1, 2))
    b = scores.boundary
    assert (b.tp, b.fp, b.fn, b.split) == (2, 0, 1, 1)  # the title line under Chương I is one heading split in two
    assert scores.missed == [("dieu-2", "Điều 2. Đối tượng áp dụng")]
    assert (scores.bleed.bleeding, scores.bleed.chunks) == (1, 3)  # c2 lumps Điều 1 and Điều 2
    r = scores.retrieval
    assert r.first_relevant[0] == 1  # q1: c2 lumps Điều 1 with the longer Điều 2, but holds all of Điều 1
    assert r.first_relevant[1] == 2  # q2: c2 contains the passage
    assert r.first_relevant[2] == 1  # q3: c0 is the front matter
    assert r.n == 3


def test_parse_override_types_and_errors():
    assert parse_override("chunk_size=250") == ("chunk_size", 250)
    assert parse_override("profile=formulary") == ("profile", "formulary")
    assert parse_override("crop_margin_pt=2.5") == ("crop_margin_pt", 2.5)
    with pytest.raises(ValueError, match="unknown setting"):
        parse_override("chunk_sise=250")
    with pytest.raises(ValueError, match="not a valid int"):
        parse_override("chunk_size=big")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_override("chunk_size")
    config = Config.from_overrides(["chunk_size=250", "chunk_overlap=40"])
    assert config.label == "chunk_size=250,chunk_overlap=40" and config.slug == "chunk-size-250-chunk-overlap-40"


def test_repository_gold_files_are_valid():
    """Every gold file shipped with the project loads (documents may be absent)."""
    for folder in (REPO / "eval" / "gold", REPO / "data" / "inbox" / "formulary"):
        for gold in discover_gold(folder):
            assert gold.boundaries and gold.made_by
            assert 10 <= len(gold.queries) <= 20, gold.document


@pytest.mark.corpus
def test_gold_anchors_and_passages_are_in_the_documents(capsys):
    """eval/gold/check_gold.py against the documents themselves, read with
    python-docx / openpyxl / PyMuPDF (not the pipeline): every boundary is
    found in order and every passage inside its section."""
    import importlib.util

    from tests.support.paths import CORPUS

    if not CORPUS.is_dir():
        pytest.skip(f"no corpus at {CORPUS}")
    spec = importlib.util.spec_from_file_location("check_gold", REPO / "eval" / "gold" / "check_gold.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.check(REPO / "eval" / "gold") == 0, capsys.readouterr().out
    assert module.check(REPO / "data" / "inbox" / "formulary") == 0, capsys.readouterr().out
