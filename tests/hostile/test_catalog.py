"""The hostile-input catalog (README.md beside this file), driven by ONE
`duocthu ingest` over every hostile input and the good documents together:
each hostile input must end its own document with the expected status and a
reason a user can act on, its source bytes must be kept, and every good
document of the same run must be `ok` and in the search index."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import duckdb
import pyarrow.parquet as pq
import pytest

from duocthu_assets.cli import main
from duocthu_assets.inbox.registry import Registry
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.warehouse import Warehouse

from tests.support import hostile_makers as makers
from .cases import CASES, COLLECTION_TOML, NON_UTF8_NAME, OK, SECRET, Case
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))
README = Path(__file__).with_name("README.md")
DOC_ID = re.compile(r"^[a-z0-9._-]{1,64}$")


@dataclass
class CatalogRun:
    inbox: Path
    warehouse: Path
    exit_code: int
    seconds: float
    report: dict[str, dict]  # doc_id -> summary
    doc_ids: dict[str, str]  # case path -> doc_id
    input_sha256: dict[str, str]  # case path -> sha256 of the file given
    skipped: dict[str, str]  # case path -> why it was not part of the run
    indexed: set[str]
    parse_seconds: dict[str, float]

    def summary(self, case: Case) -> dict:
        if case.path in self.skipped:
            pytest.skip(self.skipped[case.path])
        return self.report[self.doc_ids[case.path]]


def _active_cases(tmp: Path) -> list[Case]:
    cases = list(CASES)
    if makers.non_utf8_name_supported(tmp):
        cases.append(NON_UTF8_NAME)
    return cases


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> CatalogRun:
    tmp = tmp_path_factory.mktemp("hostile")
    inbox, warehouse = tmp / "inbox", tmp / "wh"
    for folder, text in COLLECTION_TOML.items():
        (inbox / folder).mkdir(parents=True, exist_ok=True)
        (inbox / folder / "collection.toml").write_text(text)
    skipped: dict[str, str] = {}
    sha: dict[str, str] = {}
    for case in _active_cases(tmp):
        target = inbox / case.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if case.corpus:
            source = CORPUS / case.corpus
            if not source.is_file():
                skipped[case.path] = f"corpus document {case.corpus} not found under {CORPUS}"
                continue
            makers.copy_from(source)(target)
        else:
            assert case.make is not None, case.path
            case.make(target)
        sha[case.path] = hashlib.sha256(target.read_bytes()).hexdigest() if case.bytes_kept else ""

    report = tmp / "report.json"
    started = time.monotonic()
    code = main(["ingest", str(inbox), "--warehouse", str(warehouse), "--report", str(report), "--quiet"])
    seconds = time.monotonic() - started

    by_path = {record.path: doc_id for doc_id, record in Registry(Warehouse(str(warehouse))).records.items()}
    doc_ids = {path: by_path[str(inbox / path)] for path in sha}
    summaries = {d["doc_id"]: d for d in json.loads(report.read_text(encoding="utf-8"))["documents"]}
    index = warehouse / "search_index" / "index.parquet"
    indexed = set(pq.read_table(index, columns=["doc_id"]).column("doc_id").to_pylist()) if index.exists() else set()
    return CatalogRun(inbox, warehouse, code, seconds, summaries, doc_ids, sha, skipped, indexed, _parse_seconds(warehouse))


def _parse_seconds(warehouse: Path) -> dict[str, float]:
    """Seconds each document spent in its parser child, from the
    parsed_documents materializations recorded in the instance."""
    instance = open_instance(str(warehouse))
    found: dict[str, float] = {}
    records = instance.fetch_materializations(dg.AssetKey("parsed_documents"), limit=1000).records
    for record in records:  # newest first: each document's latest parse
        materialization = record.asset_materialization
        value = materialization.metadata.get("parse_seconds")
        if value is not None:
            found.setdefault(materialization.partition, value.value)
    return found


def _chunk_texts(run: CatalogRun, doc_id: str) -> list[str]:
    path = run.warehouse / "chunks" / f"{doc_id}.parquet"
    return pq.read_table(path, columns=["text"]).column("text").to_pylist() if path.exists() else []


@pytest.mark.parametrize("case", [*CASES, NON_UTF8_NAME], ids=lambda c: c.name)
def test_case(run: CatalogRun, case: Case):
    if case is NON_UTF8_NAME and case.path not in run.input_sha256 and case.path not in run.skipped:
        pytest.skip("this filesystem cannot store a name that is not valid UTF-8")
    summary = run.summary(case)
    doc_id = summary["doc_id"]
    assert summary["status"] == case.expected, f"{case.path}: {summary}"
    if case.reason:
        assert re.search(case.reason, summary["reason"], re.IGNORECASE), f"{case.path}: reason {summary['reason']!r}"
    if case.expected != OK:
        assert len(summary["reason"]) > 15, f"{case.path}: the reason must say what happened: {summary['reason']!r}"
    if case.failed_checks:
        assert set(case.failed_checks) <= set(summary["failed_checks"]), summary
    if case.fmt:
        assert summary["format"] == case.fmt, summary

    # the source bytes are kept, whatever happened to the document
    raw = pq.read_table(run.warehouse / "raw_documents" / f"{doc_id}.parquet").to_pylist()[0]
    if not case.bytes_kept:  # never read: nothing of it is stored, anywhere in the warehouse
        assert raw["stored_path"] == "" and raw["sha256"] == ""
        for path in run.warehouse.rglob("*"):
            if path.is_file() and "dagster_home" not in path.parts:
                assert SECRET.encode() not in path.read_bytes(), path
        return
    stored = run.warehouse / raw["stored_path"]
    assert raw["sha256"] == run.input_sha256[case.path]
    assert stored.is_file() and hashlib.sha256(stored.read_bytes()).hexdigest() == run.input_sha256[case.path]

    if case.expected == OK:
        assert doc_id in run.indexed, f"{case.path} is ok but not in the search index"
        if case.indexed_text:
            assert any(case.indexed_text in t for t in _chunk_texts(run, doc_id)), f"{case.indexed_text!r} not in {doc_id}'s chunks"
    else:
        assert doc_id not in run.indexed, f"{case.path} ({case.expected}) reached the search index"
        vectors = run.warehouse / "embeddings" / f"{doc_id}.parquet"
        assert not vectors.exists() or pq.read_metadata(vectors).num_rows == 0, "a document not ok has no vectors"
    if case.warning:
        parsed = pq.read_table(run.warehouse / "parsed_documents" / f"{doc_id}.parquet").to_pylist()[0]
        assert any(re.search(case.warning, w, re.IGNORECASE) for w in parsed["warnings"]), parsed["warnings"]


def test_one_run_reports_every_document_and_exits_non_zero(run: CatalogRun):
    assert run.exit_code == 1, "some documents are not ok, so the command must say so"
    assert set(run.doc_ids.values()) == set(run.report), "every input has exactly one summary line"
    good = [c for c in CASES if c.path.startswith("ok/good/") and c.path not in run.skipped]
    assert good and all(run.report[run.doc_ids[c.path]]["status"] == OK for c in good)
    assert {run.doc_ids[c.path] for c in good} <= run.indexed
    # the index is readable the way a user reads it
    count = duckdb.connect().execute(f"SELECT count(DISTINCT doc_id) FROM '{run.warehouse}/search_index/index.parquet'").fetchone()[0]
    assert count == len(run.indexed)


def test_doc_ids_and_outputs_stay_inside_the_warehouse(run: CatalogRun):
    ids = list(run.doc_ids.values())
    assert len(set(ids)) == len(ids), "two inputs share a doc_id"
    for doc_id in ids:
        assert DOC_ID.match(doc_id) and ".." not in doc_id, doc_id
    root = run.warehouse.resolve()
    for path in run.warehouse.rglob("*"):
        assert path.resolve().is_relative_to(root), path
    # every Parquet file anyone can glob is complete and readable
    for path in run.warehouse.rglob("*.parquet"):
        pq.read_metadata(path)


LIMIT_CASES = ("parse/csv/huge_field.csv", "parse/office/ratio_bomb.docx", "parse/office/size_bomb.xlsx",
               "parse/office/billion_laughs.xlsx", "parse/time_limit/long.pdf")


def test_limits_reject_quickly(run: CatalogRun):
    """The 100 MiB-field CSV, the zip bombs and the entity bomb are refused
    in their parser child within seconds, and the 1 ms time limit stops its
    parse at once (numbers printed with -s, with the whole run's time)."""
    seconds = {path: run.parse_seconds.get(run.doc_ids.get(path, "")) for path in LIMIT_CASES}
    print(f"\ncatalog ingest: {len(run.report)} documents in {run.seconds:.1f} s; seconds in the parser child: {seconds}")
    for path, value in seconds.items():
        assert value is not None and value < 20, (path, value)


def test_readme_lists_every_case():
    """README.md's table and CASES say the same thing."""
    table: dict[str, str] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`") and cells[0].endswith("`"):
            table[cells[0].strip("`")] = cells[1]
    expected = {c.name: c.expected for c in [*CASES, NON_UTF8_NAME]}
    assert {k: v.split()[0] for k, v in table.items()} == expected
