"""Where the repository, the corpus and the sample inbox are. Real documents
are read from ../shared/corpus and never copied into the repo; a test that
needs one skips cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("DUOCTHU_CORPUS", REPO.parent / "shared" / "corpus"))
INBOX = REPO / "data" / "inbox"


def corpus_path(name: str) -> Path:
    """Path of a corpus document, or skip the calling test when it is absent."""
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus document {name} not found under {CORPUS}")
    return path
