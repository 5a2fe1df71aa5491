"""The Dagster UI path, used the way a person uses it: `dagster dev` on a free
loopback port over a warehouse in a temporary folder, one partition of the
ingest job launched through dagster-graphql's client, the run awaited, the
blocking checks' results and the reviewer's metadata read back over GraphQL,
and the asset graph and the failing check looked at in headless Chromium.

The documents: a scanned PDF (image-only pages) that a blocking check on
parsed_documents must stop — `no_pages_need_ocr` naming pages 1 and 2 (its own
test, once the PDF parser exists) — and a spreadsheet that must pass every
gate once its parser exists.
"""

from __future__ import annotations

import importlib.util
import json
import re
import time
from dataclasses import dataclass, field

import pytest

from checks.registry import RULES_BY_ASSET
from duocthu_assets.warehouse import Warehouse
from tests.support.docgen import make_scanned_pdf, make_xlsx
from tests.support.ui_helpers import (
    ASSET_CHECKS,
    METADATA_FIELDS,
    AUTOMATION,
    CHROMIUM_FLAGS,
    RUN_MESSAGES,
    UiPlace,
    UiServer,
    check_executions,
    chromium_path,
    dagster_dev,
    free_port,
    latest_materialization,
    metadata_dict,
    register_documents,
    screenshot_dir,
    wait_for_run,
)

pytestmark = pytest.mark.slow

SCAN = "ban_scan.pdf"
GOOD = "bang_gia.xlsx"
RUN_TIMEOUT = 240  # generous: two cores, possibly shared with other work
INGEST_GROUP = ["raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks"]
GATED = ["raw_documents", "parsed_documents", "crops", "chunks", "embeddings"]
CHECK_METADATA = {"message", "count", "offending_ids", "pages"}


def parser_available(fmt: str) -> bool:
    from duocthu_assets.model import Format
    from duocthu_assets.parse import PARSER_MODULES

    return importlib.util.find_spec(PARSER_MODULES[Format(fmt)]) is not None


PARSED_CHECKS = ["document_parsed", "no_pages_need_ocr", "document_has_text"]


def scan_failures(served: "Served") -> dict[str, dict]:
    """{check name: evaluation} of the parsed_documents checks that failed for
    the scanned PDF in its run, read over GraphQL."""
    found = {}
    for check in PARSED_CHECKS:
        for execution in check_executions(served.server, "parsed_documents", check, SCAN):
            if execution["runId"] == served.runs[SCAN] and execution["status"] == "FAILED":
                found[check] = execution["evaluation"]
    return found


@dataclass
class Served:
    place: UiPlace
    server: UiServer
    client: object
    location: str
    runs: dict[str, str]
    statuses: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`dagster dev` over a fresh warehouse; both documents launched through the
    GraphQL client (one run per partition) and awaited. The server is stopped
    by its process group id in the finally block."""
    from dagster_graphql import DagsterGraphQLClient

    root = tmp_path_factory.mktemp("ui_e2e")
    place = UiPlace(root)
    documents = root / "documents"  # registered like the inbox sensor does, outside the inbox it watches
    documents.mkdir()
    make_scanned_pdf(documents / SCAN, pages=2)
    make_xlsx(documents / GOOD, ["Tên thuốc", "Giá (VND)"], [["Gentamicin 80mg", 5400], ["Amikacin 500mg", 31000]])
    assert sorted(register_documents(place, documents)) == sorted([SCAN, GOOD])

    server = dagster_dev(place, free_port(), root / "dagster_dev.log")
    timings: dict[str, float] = {}
    began = time.monotonic()
    try:
        server.start()
        timings["server_ready_s"] = round(server.ready_after, 1)
        client = DagsterGraphQLClient("127.0.0.1", port_number=server.port)
        location = server.graphql(AUTOMATION)["repositoriesOrError"]["nodes"][0]["location"]["name"]
        launched = time.monotonic()
        runs = {doc: client.submit_job_execution("ingest", tags={"dagster/partition": doc}) for doc in (GOOD, SCAN)}
        statuses = {doc: wait_for_run(client, run_id, RUN_TIMEOUT) for doc, run_id in runs.items()}
        timings["runs_s"] = round(time.monotonic() - launched, 1)
        yield Served(place, server, client, location, runs, statuses, timings)
    finally:
        server.stop()
        timings["stop_s"] = round(server.stop_seconds, 1)
        timings["sigkill_needed"] = server.killed
        timings["total_s"] = round(time.monotonic() - began, 1)
        print(f"\nUI e2e timings {timings}; server log {server.log_path}")
    assert not server.group_alive(), f"processes left in the server's group: {server.group_alive()}"


def test_graphql_launch_reports_the_failing_blocking_check(served: Served):
    assert served.statuses[SCAN] == "FAILURE", "a failed blocking check must fail the run"
    failures = scan_failures(served)
    assert failures, "no blocking check on parsed_documents failed for the scanned PDF"
    specs = served.server.graphql(ASSET_CHECKS, {"assetKey": {"path": ["parsed_documents"]}})
    blocking = {c["name"]: c["blocking"] for c in specs["assetNodeOrError"]["assetChecksOrError"]["checks"]}
    for check, evaluation in failures.items():
        assert blocking[check] is True, check
        assert evaluation["success"] is False and evaluation["severity"] == "ERROR"
        assert evaluation["partition"] == SCAN
        metadata = metadata_dict(evaluation["metadataEntries"])
        assert CHECK_METADATA <= set(metadata), (check, metadata)
        assert metadata["count"] >= 1 and metadata["offending_ids"], (check, metadata)
        assert isinstance(metadata["pages"], list)
        assert evaluation["description"] == metadata["message"][:1000]

    # it blocked: nothing downstream of parsed_documents was materialized for the scan
    assert latest_materialization(served.server, "parsed_documents", SCAN) is not None
    for downstream in ("crops", "chunks", "embeddings"):
        assert latest_materialization(served.server, downstream, SCAN) is None, downstream

    # one document's run executes in the run's own process (duocthu_assets/runtime/executor.py)
    run = served.server.graphql(RUN_MESSAGES, {"runId": served.runs[SCAN]})["runOrError"]
    assert run["__typename"] == "Run" and run["status"] == "FAILURE"
    assert {"key": "dagster/partition", "value": SCAN} in run["tags"]
    messages = [e.get("message") or "" for e in run["eventConnection"]["events"]]
    assert any(m.startswith("Executing steps in process") for m in messages), [m for m in messages if "xecut" in m]


def test_scanned_pdf_is_stopped_naming_the_pages_that_need_ocr(served: Served):
    """The design's promise, as the UI reports it: no_pages_need_ocr fails with
    pages [1, 2] as evidence (not an empty parse slipping through)."""
    if not parser_available("pdf"):
        pytest.skip("the PDF parser (duocthu_assets.parse.pdf.reader) has not landed yet")
    failures = scan_failures(served)
    assert "no_pages_need_ocr" in failures, f"failed instead: { {k: v['description'] for k, v in failures.items()} }"
    metadata = metadata_dict(failures["no_pages_need_ocr"]["metadataEntries"])
    assert metadata["pages"] == [1, 2]
    assert metadata["offending_ids"] == ["page 1", "page 2"]
    assert metadata["count"] == 2
    assert "OCR" in metadata["message"] and "1, 2" in metadata["message"]


def test_good_document_passes_every_gate(served: Served):
    if not parser_available("xlsx"):
        pytest.skip("the XLSX parser (duocthu_assets.parse.office.sheet) has not landed yet")
    failures = {}
    for asset in GATED:
        specs = served.server.graphql(ASSET_CHECKS, {"assetKey": {"path": [asset]}})
        for spec in specs["assetNodeOrError"]["assetChecksOrError"]["checks"]:
            mine = [e for e in check_executions(served.server, asset, spec["name"], GOOD) if e["runId"] == served.runs[GOOD]]
            if not mine or mine[0]["status"] != "SUCCEEDED":
                failures[f"{asset}.{spec['name']}"] = mine[0]["status"] if mine else "not executed"
    assert served.statuses[GOOD] == "SUCCESS" and not failures, (
        f"run {served.statuses[GOOD]}, checks not passed: {failures}; see {served.server.log_path}"
    )


def test_reviewer_metadata_on_each_materialization(served: Served):
    """Row counts, blocks per shape, pages needing OCR, a Markdown preview of the
    first chunks — on the materializations a reviewer opens in the UI."""
    server = served.server
    for asset in ("raw_documents", "segments", "lifted_blocks", "parsed_documents"):
        event = latest_materialization(server, asset, SCAN)
        assert event is not None and event["runId"] == served.runs[SCAN], asset
        assert isinstance(event["metadata"].get("row_count"), int), (asset, event["metadata"])
    assert latest_materialization(server, "raw_documents", SCAN)["metadata"]["row_count"] == 1

    parsed = latest_materialization(server, "parsed_documents", SCAN)["metadata"]
    assert parsed["row_count"] == 1
    stored = Warehouse(str(served.place.warehouse)).read_table("parsed_documents", SCAN).to_pylist()[0]
    pages = list(stored["pages_needing_ocr"])
    assert parsed["pages_needing_ocr"] == pages  # this document's own, on its own materialization
    assert parsed["pages_needing_ocr_count"] == len(pages)

    blocks = latest_materialization(server, "lifted_blocks", SCAN)["metadata"]
    assert blocks["blocks_by_shape"] == {} and blocks["row_count"] == 0

    if not parser_available("xlsx"):
        return
    chunks = latest_materialization(server, "chunks", GOOD)
    assert chunks is not None, "the spreadsheet was parsed but never chunked"
    preview = chunks["metadata"]["preview"]
    assert preview.startswith(f"### {GOOD}") and f"`{GOOD}:" in preview, preview
    assert "Gentamicin" in preview
    assert chunks["metadata"]["row_count"] >= 2


def test_browser_shows_asset_graph_and_failing_check(served: Served):
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine and `make browser` could not install it (needs root and Debian's packages)")
    from playwright.sync_api import expect, sync_playwright

    failures = scan_failures(served)
    assert failures, "nothing failed to look at"
    check = "no_pages_need_ocr" if "no_pages_need_ocr" in failures else sorted(failures)[0]
    metadata = metadata_dict(failures[check]["metadataEntries"])
    out = screenshot_dir()
    shots = {name: out / f"ui_{name}.png" for name in ("asset_graph", "failing_check", "check_evidence")}
    base = served.server.url
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=[f for f in CHROMIUM_FLAGS if f != "--headless"]
        )  # Playwright gives every launch a fresh, temporary user data dir
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(30_000)
            # waits, not speed: a loaded 2-vCPU machine can take more than
            # expect()'s default 5 s to render a check's page
            expect.set_options(timeout=30_000)

            # the asset graph of the ingest group, with its live status loaded
            page.goto(f"{base}/locations/{served.location}/asset-groups/ingest")
            for asset in INGEST_GROUP:
                expect(page.get_by_text(asset, exact=True).first).to_be_visible()
            # the index group downstream, linked: the graph draws only the nodes in view, and which
            # of the index group's assets (embeddings, warehouse_tables) lands in view depends on layout
            expect(page.get_by_text(re.compile(r"^(embeddings|warehouse_tables)$")).first).to_be_visible()
            expect(page.get_by_text(re.compile("Loading"))).to_have_count(0)
            node = page.locator("div", has_text="parsed_documents").filter(has_text="Asset checks").last
            expect(node).to_contain_text(re.compile(rf"\d / {len(RULES_BY_ASSET['parsed_documents'])} Passed"))  # one per parsed_documents rule
            expect(node).to_contain_text("2 partitions")
            page.screenshot(path=str(shots["asset_graph"]))

            # the failing check: its page, its execution for the scanned PDF, its evidence
            page.goto(f"{base}/assets/parsed_documents?view=checks&checkDetail={check}")
            expect(page.get_by_text("This is a", exact=False).first).to_contain_text("blocking")
            page.get_by_text("Execution history", exact=True).click()
            row = page.locator("tr", has_text=SCAN)
            expect(row).to_contain_text("Failed")
            expect(row).to_contain_text(metadata["message"][:40])
            page.screenshot(path=str(shots["failing_check"]))

            row.get_by_role("button").last.click()
            dialog = page.get_by_role("dialog").filter(has_text="Metadata")
            for label in sorted(CHECK_METADATA):
                expect(dialog).to_contain_text(label)
            expect(dialog).to_contain_text(metadata["message"][:40])
            dialog.get_by_text("[Show JSON]").first.click()  # offending_ids
            evidence = page.get_by_role("dialog").filter(has_text="offending_ids").filter(has_text="Copy")
            for offending in metadata["offending_ids"]:
                expect(evidence).to_contain_text(json.dumps(offending))
            page.wait_for_timeout(500)  # let the dialog finish fading in
            page.screenshot(path=str(shots["check_evidence"]))
        finally:
            browser.close()
    for shot in shots.values():
        assert shot.stat().st_size > 10_000, shot
    print("\nscreenshots: " + ", ".join(str(s) for s in shots.values()))


def wait_for_review(served: Served, timeout: float = 300) -> dict:
    """The review asset as the run-status sensors leave it after both runs:
    the daemon sees the runs end and launches refresh_search_index (one
    for both when the second ends while the first refresh waits), which
    rebuilds the index and review."""
    import dagster as dg

    deadline = time.monotonic() + timeout
    with dg.DagsterInstance.from_config(str(served.place.home)) as instance:
        # every ingest run ended and every index refresh after them too (one refresh waiting in
        # the queue serves every ingest run that ends before it starts): nothing changes review after this
        while time.monotonic() < deadline:
            ingests = instance.get_runs(filters=dg.RunsFilter(job_name="ingest"))
            refreshes = instance.get_runs(filters=dg.RunsFilter(job_name="refresh_search_index"))
            if refreshes and all(r.is_finished for r in ingests + refreshes):
                break
            time.sleep(3)
    while time.monotonic() < deadline:
        data = served.server.graphql(MATERIALIZATIONS_UNPARTITIONED, {"assetKey": {"path": ["review"]}})
        found = data["assetOrError"].get("assetMaterializations") or []
        if found:
            metadata = metadata_dict(found[0]["metadataEntries"])
            if metadata.get("documents") == 2:
                return metadata
        time.sleep(3)
    raise TimeoutError(f"no review materialization over both documents within {timeout}s; see {served.server.log_path}")


MATERIALIZATIONS_UNPARTITIONED = """
query Review($assetKey: AssetKeyInput!) {
  assetOrError(assetKey: $assetKey) {
    ... on Asset { assetMaterializations(limit: 1) { runId metadataEntries { %s } } }
  }
}
""" % METADATA_FIELDS


def test_blocked_document_and_its_evidence_within_three_clicks_from_home(served: Served):
    """A reviewer opens the UI: home → Catalog (1) shows review red; → review
    (2) shows the counts; → [Show Markdown] (3) shows the blocked scan, the
    rule that stopped it, what to do, its pages and the rule's message;
    → Checks shows document_status failed, naming it."""
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine and `make browser` could not install it (needs root and Debian's packages)")
    if not parser_available("pdf"):
        pytest.skip("the PDF parser (duocthu_assets.parse.pdf.reader) has not landed yet")
    from playwright.sync_api import expect, sync_playwright

    review = wait_for_review(served)
    (blocked,) = [row for row in review["blocked_documents"] if row["doc_id"] == SCAN]
    assert blocked["blocked_by"] == "parsed_documents.no_pages_need_ocr"
    assert [row["doc_id"] for row in review["blocked_documents"]] == [SCAN]  # the spreadsheet is not blocked
    out = screenshot_dir()
    shots = {name: out / f"ui_{name}.png" for name in ("home", "catalog_review_red", "review_evidence", "review_checks")}
    clicks = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=[f for f in CHROMIUM_FLAGS if f != "--headless"]
        )
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(30_000)
            expect.set_options(timeout=30_000)
            page.goto(served.server.url)  # the home page
            expect(page.get_by_role("link", name="Catalog")).to_be_visible()
            page.screenshot(path=str(shots["home"]))

            page.get_by_role("link", name="Catalog").click()
            clicks += 1
            link = page.locator('a[href="/assets/review"]').first
            # the catalog's row for review: the nearest element around its link holding a failed check's red ✗
            row = link.locator("xpath=ancestor::*[.//*[@aria-label='check_failed']][1]")
            expect(row).to_contain_text("The documents not ok")
            expect(row).to_contain_text("Materialized")
            expect(row).not_to_contain_text("search_index")
            page.screenshot(path=str(shots["catalog_review_red"]))

            link.click()
            clicks += 1
            expect(page.get_by_text("blocked_count")).to_be_visible()
            show = page.get_by_text("[Show Markdown]")
            if show.count():  # Dagster 1.13 folds a long Markdown value behind this link (the mixed inbox's)
                show.first.click()
                clicks += 1
            expect(page.get_by_text("1 blocked, 0 rejected, 0 failed, 1 ok of 2 documents").first).to_be_visible()
            evidence = page.locator("tr").filter(has_text=SCAN).filter(has_text="parsed_documents.no_pages_need_ocr").first
            expect(evidence).to_be_visible()
            expect(evidence).to_contain_text("1, 2")  # pages
            expect(page.locator("body")).to_contain_text(blocked["what_to_do"][:60])  # plain words, then the rule's own
            expect(page.locator("body")).to_contain_text(blocked["message"][:40])
            page.screenshot(path=str(shots["review_evidence"]))
            assert clicks <= 3  # the evidence, three clicks from home
            page.keyboard.press("Escape")

            page.get_by_text("Checks", exact=True).first.click()  # the asset page's tab
            expect(page.get_by_text("document_status").first).to_be_visible()
            expect(page.locator("body")).to_contain_text(f"{SCAN}: blocked (parsed_documents.no_pages_need_ocr)")
            expect(page.locator("body")).to_contain_text("Failed")
            page.screenshot(path=str(shots["review_checks"]))
        finally:
            browser.close()
    for shot in shots.values():
        assert shot.stat().st_size > 10_000, shot
    print("\nscreenshots: " + ", ".join(str(s) for s in shots.values()))


def test_the_daemon_tags_the_blocked_run_and_leaves_the_unreached_checks_unevaluated(served: Served):
    """A run from the UI stopped by a blocking check: the run-failure sensor
    (in the real daemon) tags it with what stopped it and requests an index
    refresh, and no other run; the UI reads the rule that failed *failed*,
    the checks the scan never reached not evaluated for it (neither skipped
    nor failed), the scan's unbuilt assets *failed*."""
    import dagster as dg

    from tests.support.ui_helpers import partition_statuses

    deadline = time.monotonic() + 300
    with dg.DagsterInstance.from_config(str(served.place.home)) as instance:
        while time.monotonic() < deadline:
            tags = instance.get_run_by_id(served.runs[SCAN]).tags
            if "duocthu/outcome" in tags:
                break
            time.sleep(3)
        runs = instance.get_runs()
    assert tags.get("duocthu/outcome") == "blocked", f"the failed run was not tagged; see {served.server.log_path}"
    assert tags["duocthu/documents"] == f"{SCAN} blocked by parsed_documents.no_pages_need_ocr"
    assert {r.job_name for r in runs} <= {"ingest", "refresh_search_index"}
    assert len([r for r in runs if r.job_name == "ingest"]) == 2  # no follow-up run for the scan

    ui = partition_statuses(served.server, ["parsed_documents", "crops", "chunks", "embeddings"])
    ocr = ui["parsed_documents"]["checks"]["no_pages_need_ocr"]
    assert ocr["failedPartitions"] == [SCAN] and ocr["succeededPartitions"] == [GOOD]
    for asset in ("crops", "chunks", "embeddings"):
        for name, statuses in ui[asset]["checks"].items():
            assert not statuses["skippedPartitions"], (asset, name, statuses)
            assert statuses["succeededPartitions"] == [GOOD], (asset, name, statuses)
            assert not statuses["executionFailedPartitions"] and not statuses["failedPartitions"], (asset, name, statuses)
        bar = ui[asset]["asset"]
        assert bar["failedPartitions"] == [SCAN] and bar["materializedPartitions"] == [GOOD], (asset, bar)
