"""`duocthu ingest` run the way a user runs it, and what it leaves behind:
the report, a warehouse's output files, the nightly schedule's next tick."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from duocthu_assets.ingest.run import ingest
from duocthu_assets.runtime.instance import open_instance


def ingest_inbox(tmp_path: Path, files: dict[str, bytes] | None = None) -> dict:
    """``duocthu ingest`` of ``tmp_path/inbox`` (``files`` written into it
    first) into ``tmp_path/wh``, as a user runs it: ``{"code": exit code,
    "docs": doc_id -> the report's row}``."""
    from duocthu_assets.cli import main

    inbox = tmp_path / "inbox"
    inbox.mkdir(exist_ok=True)
    for name, data in (files or {}).items():
        (inbox / name).write_bytes(data)
    report = tmp_path / "r.json"
    code = main(["ingest", str(inbox), "--warehouse", str(tmp_path / "wh"), "--report", str(report), "--quiet"])
    return {"code": code, "docs": {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}}


def ingest_quietly(inbox: Path, warehouse: Path):
    """The ingest's result and the summary it printed, without progress lines."""
    out = io.StringIO()
    result = ingest([str(inbox)], str(warehouse), out=out, show_progress=False)
    return result, out.getvalue()


def write_price_csv(path: Path, drug: str, price: int) -> None:
    """A two-row price list, ``drug`` first: a document that is cheap to build."""
    path.write_text(f"ten_thuoc,gia\n{drug},{price}\nGentamicin,5400\n", encoding="utf-8")


def nightly_tick(warehouse: Path):
    """One tick of the nightly schedule through Dagster's own evaluation, on
    the warehouse's instance (as the daemon evaluates it)."""
    import dagster as dg

    from duocthu_assets import automation
    from duocthu_assets.definitions import build_definitions
    from duocthu_assets.resources import WarehouseResource

    instance = open_instance(str(warehouse))
    try:
        defs = build_definitions(str(warehouse))
        with dg.build_schedule_context(
            instance=instance, resources={"warehouse": WarehouseResource(root=str(warehouse))},
            repository_def=defs.get_repository_def(),
        ) as context:
            return automation.nightly_reingest.evaluate_tick(context)
    finally:
        instance.dispose()


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every output file (Parquet, PNG, sources) under the warehouse."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "dagster_home" not in p.parts and p.suffix in (".parquet", ".png", "")
    }
