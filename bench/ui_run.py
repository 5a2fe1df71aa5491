"""One small document from the UI against `duocthu ingest` of the same file.

Starts `dagster dev` (as `make ui` does) over a fresh warehouse, launches the
ingest job for one one-page DOCX through GraphQL (as the UI's Materialize
button does) and times submit → run finished, twice:

- ``in_process``: tagged with its one partition, so the per-run executor runs
  its steps in the run's own process (what the UI, sensor and schedule do);
- ``multiprocess``: the same document as a one-partition *range*, which the
  per-run executor hands to the multiprocess executor (one process per step,
  as every UI run did before).

Then `duocthu ingest` of the same file into a fresh warehouse, timed as a
whole command (process start to exit). Prints one JSON object.

    .venv/bin/python bench/ui_run.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.docgen import make_docx  # noqa: E402
from tests.support.ui_helpers import BIN, UiPlace, dagster_dev, free_port, register_documents, wait_for_run  # noqa: E402


def main() -> None:
    from dagster_graphql import DagsterGraphQLClient

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        docs = root / "docs"
        docs.mkdir()
        make_docx(docs / "mot_trang.docx", [("Chỉ định", ["Nhiễm khuẩn nặng do vi khuẩn Gram âm."])])
        place = UiPlace(root / "ui")
        (doc,) = register_documents(place, docs)
        server = dagster_dev(place, free_port(), root / "dev.log")
        result: dict[str, object] = {"document": doc}
        try:
            server.start(timeout=180)
            result["ui_ready_s"] = round(server.ready_after, 1)
            client = DagsterGraphQLClient("127.0.0.1", port_number=server.port)
            ways = {
                "in_process": {"dagster/partition": doc},
                "multiprocess": {"dagster/asset_partition_range_start": doc, "dagster/asset_partition_range_end": doc},
            }
            for name, tags in ways.items():
                started = time.monotonic()
                run_id = client.submit_job_execution("ingest", tags=tags)
                status = wait_for_run(client, run_id, timeout=600)
                result[f"ui_{name}_s"] = round(time.monotonic() - started, 1)
                result[f"ui_{name}_status"] = status
        finally:
            server.stop()
        started = time.monotonic()
        done = subprocess.run(
            [str(BIN / "duocthu"), "ingest", str(docs), "--warehouse", str(root / "cli"), "--quiet"],
            capture_output=True, text=True,
        )
        result["cli_ingest_s"] = round(time.monotonic() - started, 1)
        result["cli_exit"] = done.returncode
    print(json.dumps(result))


if __name__ == "__main__":
    main()
