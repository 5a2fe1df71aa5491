"""Progress lines on stderr for `duocthu ingest` (documents and pages done).

Assets call :func:`report`; it prints only when the CLI turned it on, so the
UI's runs and tests stay quiet."""

from __future__ import annotations

import os
import sys

ENV = "DUOCTHU_PROGRESS"


def enabled() -> bool:
    return os.environ.get(ENV) == "1"


def report(stage: str, done: int, total: int, pages: int | None = None, detail: str = "") -> None:
    if not enabled():
        return
    page_text = f", {pages} pages" if pages is not None else ""
    tail = f" — {detail}" if detail else ""
    print(f"  [{stage}] {done}/{total} documents{page_text}{tail}", file=sys.stderr, flush=True)
