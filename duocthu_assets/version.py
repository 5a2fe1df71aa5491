"""The code version: a digest of the project's own source, so a change to any
parser, chunker or check re-materializes what it touches (nightly re-ingest
compares it with what each document was last built with)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from .model import SCHEMA_VERSION

_PACKAGES = [Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "checks"]


@lru_cache(maxsize=1)
def code_version() -> str:
    digest = hashlib.sha256(f"schema={SCHEMA_VERSION}".encode())
    for package in _PACKAGES:
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(package.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
