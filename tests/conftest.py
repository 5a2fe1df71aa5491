"""Shared fixtures. Real documents are read from ../shared/corpus and never
copied into the repo; tests that need them skip cleanly when it is absent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))
INBOX = REPO / "data" / "inbox"


def corpus_path(name: str) -> Path:
    """Path of a corpus document, or skip the calling test when it is absent."""
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus document {name} not found under {CORPUS}")
    return path


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


@pytest.fixture
def corpus():
    return corpus_path
