"""Concurrency and determinism: the same documents give the same bytes

- whichever executor runs the ingest job: Dagster's multiprocess executor
  with two workers (each step its own process, as in the UI and the daemon;
  launched with ``execute_job`` on a reconstructable job) or `duocthu ingest`
  in-process;
- across two fresh `duocthu ingest` runs, with rejected, failed and blocked
  documents among the good ones.

Compared: every file under the warehouse (Parquet, crop PNGs, kept sources,
the embedding cache's content-named shards) except ``registry.json`` (mtimes,
absolute paths) and ``dagster_home/`` (run ids, timestamps).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import dagster as dg
import pytest

from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.inbox.scan import discover
from duocthu_assets.inbox.registration import register_files
from duocthu_assets.inbox.registry import Registry
from duocthu_assets.ingest.rounds import QUIET
from duocthu_assets.runtime.instance import open_instance
from duocthu_assets.jobs import INGEST_JOB, REFRESH_INDEX_JOB
from duocthu_assets.warehouse import Warehouse

from tests.support.docgen import make_docx, make_scanned_pdf
from tests.support.hostile_makers import make_encrypted_pdf, make_table_pdf, write_good_documents
from tests.support.hostile_ooxml import make_truncated_ooxml
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

# the ingest's own bookkeeping, not what it builds: the registry, the instance,
# the per-document leases (ingest/leases.py) and the OCR cache (read/ocr_pages.py)
NOT_OUTPUTS = ("registry.json", "dagster_home", "leases.lock", "ocr_cache")
HOSTILE = ("khoa_mat_khau.pdf", "hong.docx", "ban_scan.pdf")


def ingest_job_for(warehouse_root: str) -> dg.JobDefinition:
    """The ingest job of the real Definitions for one warehouse, with the
    multiprocess executor capped at two concurrent steps. Module-level, so
    each step process can rebuild it (``build_reconstructable_job``)."""
    return build_definitions(warehouse_root, max_concurrent=2).resolve_job_def(INGEST_JOB)


def index_job_for(warehouse_root: str) -> dg.JobDefinition:
    return build_definitions(warehouse_root, max_concurrent=2).resolve_job_def(REFRESH_INDEX_JOB)


def _reconstructable(fn, warehouse_root: str):
    return dg.build_reconstructable_job(
        __name__, fn.__name__, reconstructable_args=(warehouse_root,), reconstructor_working_directory=str(REPO)
    )


@pytest.fixture(scope="module")
def inbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    box = tmp_path_factory.mktemp("determinism") / "inbox"
    write_good_documents(box)
    make_table_pdf(box / "lieu_than.pdf")
    make_docx(box / "hop_dong_fa.docx", [("ماده ۱", ["قرارداد تأمین دارو بین طرفین منعقد می‌شود."])])
    make_encrypted_pdf(box / "khoa_mat_khau.pdf", "secret")
    make_truncated_ooxml(box / "hong.docx", "docx")
    make_scanned_pdf(box / "ban_scan.pdf")
    return box


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in NOT_OUTPUTS and not p.name.endswith(".tmp")
    }


def _materialize_multiprocess(inbox: Path, names: list[str], root: Path) -> None:
    """What `duocthu ingest` does for a batch of good documents, but with the
    ingest and index jobs launched through the multiprocess executor."""
    warehouse_root = str(root)
    instance = open_instance(warehouse_root)
    registry = Registry(Warehouse(warehouse_root))
    records, _ = register_files(registry, [(r, f) for r, f in discover([inbox]) if f.name in names])
    registry.save()
    keys = [r.doc_id for r in records]
    instance.add_dynamic_partitions("documents", keys)
    order = list(instance.get_dynamic_partitions("documents"))
    keys.sort(key=order.index)
    tags = {"dagster/asset_partition_range_start": keys[0], "dagster/asset_partition_range_end": keys[-1]}
    for fn, run_tags in ((ingest_job_for, tags), (index_job_for, {})):
        with dg.execute_job(_reconstructable(fn, warehouse_root), instance=instance, tags=run_tags, run_config=QUIET) as result:
            assert result.success, [e.message for e in result.all_events if e.is_failure]
            if fn is ingest_job_for:
                processes = {e.pid for e in result.all_events if e.is_step_start}
                assert len(processes) > 1, "the steps did not run in their own processes"


@pytest.fixture(scope="module")
def fresh_ingests(inbox: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("fresh")
    first, second = root / "a", root / "b"
    assert main(["ingest", str(inbox), "--warehouse", str(first), "--quiet"]) == 1  # the hostile ones are not ok
    assert main(["ingest", str(inbox), "--warehouse", str(second), "--quiet"]) == 1
    return first, second


def test_two_fresh_ingests_write_identical_bytes(fresh_ingests: tuple[Path, Path]):
    first, second = (_tree(p) for p in fresh_ingests)
    assert any(k.endswith(".png") for k in first), "the table PDF should have produced a crop"
    assert any(k.startswith("raw_documents/hong.docx") for k in first)
    different = sorted(k for k in first.keys() | second.keys() if first.get(k) != second.get(k))
    assert not different, different


def test_multiprocess_executor_matches_in_process(inbox: Path, fresh_ingests: tuple[Path, Path], tmp_path: Path):
    good = sorted(p.name for p in inbox.iterdir() if p.name not in HOSTILE)
    multiprocess_root = tmp_path / "multiprocess"
    _materialize_multiprocess(inbox, good, multiprocess_root)
    multiprocess, in_process = _tree(multiprocess_root), _tree(fresh_ingests[0])

    # tables/ holds every document of the warehouse in 16 parts, and only the in-process one has the
    # hostile documents: compared per document there (test_compaction.py), across fresh ingests above
    assert any(k.startswith("tables/chunks/part-") for k in multiprocess), "the refresh job compacted nothing"
    multiprocess = {k: v for k, v in multiprocess.items() if not k.startswith("tables/")}
    in_process = {k: v for k, v in in_process.items() if not k.startswith("tables/")}
    different = sorted(k for k in multiprocess if multiprocess[k] != in_process.get(k))
    assert not different, different
    # what only the in-process warehouse has belongs to the hostile documents
    hostile_sources = {
        f"sources/{sha[:2]}/{sha}" for sha in (hashlib.sha256((inbox / n).read_bytes()).hexdigest() for n in HOSTILE)
    }
    extra = set(in_process) - set(multiprocess)
    assert extra and all(k in hostile_sources or Path(k).name.split(".parquet")[0] in HOSTILE for k in extra), sorted(extra)
    assert any(k.endswith(".png") for k in multiprocess) and "search_index/index.parquet" in multiprocess
