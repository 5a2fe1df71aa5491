"""One truth in every view (issue 37): a mixed inbox — two good files, a scan,
an encrypted PDF, a legacy .doc, the page-number case — through `duocthu
ingest`, then the scan once more alone (as the UI, the sensor and the
schedule run a document); then a real `dagster-webserver` over that
instance, read through GraphQL as the UI reads it: the `review` asset, every
gated asset's partitions, every check per document, every check's roll-up
(the check list and graph node: its execution for the latest
materialization; asset health) and the runs. Each must say what the CLI
summary says: ok, blocked (by which rule), rejected (why)."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from checks.registry import RULES_BY_ASSET
from duocthu_assets.automation import index_after_ingest_failure
from duocthu_assets.cli import main
from duocthu_assets.definitions import build_definitions
from duocthu_assets.jobs import INGEST_JOB
from duocthu_assets.resources import WarehouseResource
from duocthu_assets.runtime.instance import open_instance
from tests.support.mixed_inbox import make_mixed_inbox
from tests.support.ui_helpers import (
    ROLLUPS,
    RUNS,
    dagster_webserver,
    free_port,
    metadata_dict,
    partition_statuses,
)

pytestmark = pytest.mark.slow

RUN_EVENTS = """
query RunEvents($runId: ID!) { runOrError(runId: $runId) { ... on Run { eventConnection(limit: 1000) { events {
    __typename
    ... on ExecutionStepFailureEvent { stepKey error { className message } failureMetadata { description } }
} } } } }
"""
GATED = list(RULES_BY_ASSET)  # raw_documents, parsed_documents, crops, chunks, embeddings: pipeline order
REVIEW = """
{ assetOrError(assetKey: {path: ["review"]}) { ... on Asset {
    assetMaterializations(limit: 1) { metadataEntries { %s } } } } }
"""


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    from tests.support.ui_helpers import METADATA_FIELDS

    root = tmp_path_factory.mktemp("one_truth")
    expected = make_mixed_inbox(root / "inbox")
    warehouse, report = root / "wh", root / "report.json"
    assert main(["ingest", str(root / "inbox"), "--warehouse", str(warehouse), "--report", str(report), "--quiet"]) == 1
    cli = {d["doc_id"]: d for d in json.loads(report.read_text())["documents"]}

    # the scan once more, alone in its run, as the UI, the sensor and the schedule run it
    # (its run is then the newest to plan every check), and the run-failure sensor's tick after it
    instance = open_instance(str(warehouse))
    defs = build_definitions(str(warehouse))

    def tick(cursor):
        with dg.build_sensor_context(
            instance_ref=instance.get_ref(), cursor=cursor, resources={"warehouse": WarehouseResource(root=str(warehouse))},
            definitions=defs,
        ) as context:
            return index_after_ingest_failure.evaluate_tick(context)

    cursor = tick(None).cursor
    alone = defs.resolve_job_def(INGEST_JOB).execute_in_process(instance=instance, partition_key="scan.pdf", raise_on_error=False)
    assert not alone.success
    assert [r.job_name for r in tick(cursor).run_requests] == ["refresh_search_index"]  # and no follow-up run
    instance.dispose()

    server = dagster_webserver(warehouse, free_port(), root / "web.log")
    try:
        server.start(timeout=240)
        review = server.graphql(REVIEW % METADATA_FIELDS)["assetOrError"]["assetMaterializations"][0]
        yield {
            "expected": expected,
            "cli": cli,
            "scan_run": alone.run_id,
            "review": metadata_dict(review["metadataEntries"]),
            "partitions": partition_statuses(server, GATED),
            "rollups": {
                node["assetKey"]["path"][-1]: node
                for node in server.graphql(ROLLUPS, {"keys": [{"path": [a]} for a in GATED]})["assetNodes"]
            },
            "runs": server.graphql(RUNS)["runsOrError"]["results"],
            "scan_failures": [
                e for e in server.graphql(RUN_EVENTS, {"runId": alone.run_id})["runOrError"]["eventConnection"]["events"]
                if e["__typename"] == "ExecutionStepFailureEvent"
            ],
            "server": server,
        }
    finally:
        server.stop()


def _stopped_at(cli_row: dict) -> tuple[str, str] | None:
    """(asset, rule) of the check that stopped a document, per the CLI."""
    if not cli_row["failed_checks"]:
        return None
    rule = cli_row["failed_checks"][0]
    asset = next(a for a, rules in RULES_BY_ASSET.items() if any(r.name == rule for r in rules))
    return asset, rule


def test_the_cli_and_the_review_agree_on_every_document(views):
    cli, review = views["cli"], views["review"]
    assert {doc: row["status"] for doc, row in cli.items()} == views["expected"]
    not_ok = {row["doc_id"]: row for row in review["documents_not_ok"]}
    assert set(not_ok) == {doc for doc, status in views["expected"].items() if status != "ok"}
    for doc, row in not_ok.items():
        assert row["status"] == cli[doc]["status"], (doc, row, cli[doc])
        asset, rule = _stopped_at(cli[doc])
        assert row["blocked_by"] == f"{asset}.{rule}", (doc, row)
        if row["status"] == "rejected":  # the reason, not a rule's message
            assert row["message"] == cli[doc]["reason"], (doc, row)
    assert {r["doc_id"] for r in review["blocked_documents"]} == {"scan.pdf", "page_numbers.pdf"}
    statuses = list(views["expected"].values())
    assert (review["blocked_count"], review["rejected_count"], review["failed_count"], review["ok_count"]) == (
        statuses.count("blocked"), statuses.count("rejected"), 0, statuses.count("ok")
    )
    assert review["blocked"].startswith("**2 blocked, 2 rejected, 0 failed, 2 ok of 6 documents**")


def test_each_check_says_per_document_what_the_cli_says(views):
    """A document's check reads failed only where the CLI says that check
    stopped it; succeeded where it passed; nothing (missing) where it was
    never reached; never skipped, never execution failed."""
    cli, partitions = views["cli"], views["partitions"]
    for asset in GATED:
        for check, statuses in partitions[asset]["checks"].items():
            lists = {kind: set(docs or []) for kind, docs in statuses.items()}
            assert not lists["skippedPartitions"] and not lists["executionFailedPartitions"], (asset, check, lists)
            assert not lists["inProgressPartitions"], (asset, check, lists)
            for doc, row in cli.items():
                stopped = _stopped_at(row)
                if stopped is None or GATED.index(asset) < GATED.index(stopped[0]):
                    expected = "succeededPartitions"
                elif asset == stopped[0]:
                    expected = "failedPartitions" if check in row["failed_checks"] else "succeededPartitions"
                else:
                    expected = None  # never reached
                found = [kind for kind, docs in lists.items() if doc in docs]
                assert found == ([expected] if expected else []), (asset, check, doc, found)


def test_each_gated_assets_partition_says_the_same(views):
    """Good documents materialized everywhere; a document stopped at an
    asset was built up to it and not after it."""
    cli, partitions = views["cli"], views["partitions"]
    for asset in GATED:
        bar = {kind: set(docs or []) for kind, docs in partitions[asset]["asset"].items()}
        for doc, row in cli.items():
            stopped = _stopped_at(row)
            built = stopped is None or GATED.index(asset) <= GATED.index(stopped[0])
            assert (doc in bar["materializedPartitions"]) == built, (asset, doc, bar)
            if not built:
                assert doc not in bar["materializedPartitions"] and doc not in bar["materializingPartitions"]


def test_a_rollup_reads_failed_while_any_document_fails_the_check(views):
    """The check list, the graph node and the catalog read each check's
    ``executionForLatestMaterialization``: *failed*, naming a document that
    fails it, while any document's latest evaluation fails it (the CLI's
    failed checks); *succeeded* otherwise — never skipped or execution
    failed, never red because another rule blocked a document
    (runtime/check_rollup.py). (Dagster's asset health, the other roll-up, is
    off in open-source Dagster 1.13: ``dagster_asset_health_queries_supported()``
    is False, its field null.)"""
    cli = views["cli"]
    failing: dict[tuple[str, str], set[str]] = {}
    for doc, row in cli.items():
        if (stopped := _stopped_at(row)) is not None:
            for rule in row["failed_checks"]:
                failing.setdefault((stopped[0], rule), set()).add(doc)
    assert ("parsed_documents", "document_parsed") in failing  # locked.pdf: passed by every later document
    for asset, node in views["rollups"].items():
        for check in node["assetChecksOrError"]["checks"]:
            execution = check["executionForLatestMaterialization"]
            assert execution is not None, (asset, check["name"])
            docs = failing.get((asset, check["name"]))
            if docs:
                assert execution["status"] == "FAILED" and execution["partition"] in docs, (asset, check, docs)
            else:
                assert execution["status"] == "SUCCEEDED", (asset, check, execution)
    # the scan ran last, alone: the checks after parsed_documents still read the documents that reached them
    for asset in ("crops", "embeddings"):
        assert all(c["executionForLatestMaterialization"]["status"] == "SUCCEEDED" for c in views["rollups"][asset]["assetChecksOrError"]["checks"])


def test_a_blocked_documents_newest_run_is_the_one_that_stopped_it(views):
    runs = views["runs"]
    tags = [{t["key"]: t["value"] for t in r["tags"]} for r in runs]
    scan_runs = [(r, t) for r, t in zip(runs, tags) if t.get("dagster/partition") == "scan.pdf"]
    newest, newest_tags = scan_runs[0]
    assert newest["runId"] == views["scan_run"] and newest["status"] == "FAILURE"
    assert newest_tags["duocthu/outcome"] == "blocked"
    assert newest_tags["duocthu/documents"] == "scan.pdf blocked by parsed_documents.no_pages_need_ocr"
    old = next(t for t in tags if t.get("dagster/partition") == "old.doc")
    assert old["duocthu/outcome"] == "rejected" and old["duocthu/documents"] == "old.doc rejected: raw_documents.document_accepted"
    assert all(t.get("duocthu/outcome") != "error" for t in tags)
    # no follow-up run of a blocked document: every ingest run is a build, each refresh tagged as one
    assert all(r["jobName"] in ("ingest", "refresh_search_index") for r in runs)
    # index refreshes do not bury the ingest runs: one refresh for the CLI's ingest, none for the scan's run yet
    assert sum(r["jobName"] == "refresh_search_index" for r in runs) == 1, [r["jobName"] for r in runs]


def test_a_blocked_documents_run_says_the_rule_in_plain_words(views):
    """The step a rule stopped fails with a ``dg.Failure`` in plain words
    (checks/asset_checks.py), not Dagster's DagsterAssetCheckFailedError."""
    (failure,) = views["scan_failures"]
    assert failure["stepKey"] == "parsed_documents_gates"
    assert failure["error"]["className"] == "Failure", failure["error"]
    said = failure["failureMetadata"]["description"]
    assert said.startswith("scan.pdf blocked by parsed_documents.no_pages_need_ocr. Some pages are pictures of text"), said
    assert "What to do: scan the pages again" in said and "(pages 1, 2)" in said


LAUNCHED = """
{ runsOrError(limit: 1) { ... on Runs { results { runId jobName status stepKeysToExecute tags { key value } } } } }
"""

SHOTS = [  # name, what it shows (docs/ui.md's walkthrough shows them in this order)
    "home", "catalog", "review", "review_links", "review_table", "review_checks", "chunks_checks", "parsed_checks", "check_partitions",
    "runs", "blocked_run", "rebuild_launchpad", "rebuild_launched", "automation",
]


def test_screenshots_of_each_view(views):
    """Headless Chromium over the same webserver, 1600 px wide, in the
    collection's time zone: each view the walkthrough in docs/ui.md shows,
    saved to tests/output/ (and to docs/ui/ with DUOCTHU_UPDATE_SCREENSHOTS=1)."""
    import os
    import re
    import shutil

    from tests.support.paths import REPO
    from tests.support.ui_helpers import CHROMIUM_FLAGS, chromium_path, screenshot_dir

    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine and `make browser` could not install it (needs root and Debian's packages)")
    from playwright.sync_api import expect, sync_playwright

    from duocthu_assets.automation import DEFAULT_TIMEZONE

    server = views["server"]
    out = screenshot_dir()
    shots = {name: out / f"ui37_{name}.png" for name in SHOTS}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=[f for f in CHROMIUM_FLAGS if f != "--headless"]
        )
        try:
            page = browser.new_context(viewport={"width": 1600, "height": 1000}, timezone_id=DEFAULT_TIMEZONE).new_page()
            page.set_default_timeout(60_000)
            expect.set_options(timeout=60_000)

            def shot(name: str) -> None:
                expect(page.get_by_text(re.compile("^Loading"))).to_have_count(0)
                page.wait_for_timeout(1500)  # let lazy panels settle
                page.screenshot(path=str(shots[name]))

            page.goto(server.url)
            expect(page.get_by_role("link", name="Catalog")).to_be_visible()
            shot("home")

            page.get_by_role("link", name="Catalog").click()
            review_link = page.locator('a[href="/assets/review"]').first
            expect(review_link).to_be_visible()
            shot("catalog")

            review_link.click()
            expect(page.get_by_text("2 blocked, 2 rejected, 0 failed, 2 ok of 6 documents").first).to_be_visible()
            expect(page.get_by_text("blocked by parsed_documents.no_pages_need_ocr: Some pages are pictures").first).to_be_visible()
            expect(page.get_by_text("rebuild scan.pdf").first).to_be_visible()
            shot("review")
            page.get_by_text("rebuild scan.pdf").first.scroll_into_view_if_needed()
            shot("review_links")
            page.get_by_text("[Show Markdown]").first.click()
            dialog = page.get_by_role("dialog")
            expect(dialog).to_contain_text("2 blocked, 2 rejected, 0 failed, 2 ok of 6 documents")
            expect(dialog).to_contain_text("What to do: scan the pages again")
            expect(dialog).to_contain_text("parsed_documents.no_pages_need_ocr")
            shot("review_table")
            page.keyboard.press("Escape")

            page.goto(f"{server.url}/assets/review?view=checks")
            expect(page.locator("body")).to_contain_text("scan.pdf: blocked (parsed_documents.no_pages_need_ocr)")
            shot("review_checks")

            page.goto(f"{server.url}/assets/chunks?view=checks")
            expect(page.locator("body")).to_contain_text("adr0006_10_attachment_without_printed_page")
            expect(page.locator("body")).not_to_contain_text("Skipped")
            shot("chunks_checks")

            # a roll-up is red while any document fails it: locked.pdf fails document_parsed although
            # every document parsed after it passed it (runtime/check_rollup.py)
            page.goto(f"{server.url}/assets/parsed_documents?view=checks")
            expect(page.locator("body")).to_contain_text("document_parsed")
            expect(page.locator("body")).not_to_contain_text("Skipped")
            shot("parsed_checks")

            page.goto(f"{server.url}/assets/chunks?view=checks&checkDetail=chunk_step_completed")
            expect(page.locator("body")).to_contain_text("chunk_step_completed")
            shot("check_partitions")

            page.goto(f"{server.url}/runs")
            expect(page.locator("body")).to_contain_text("duocthu/outcome")
            shot("runs")

            page.goto(f"{server.url}/runs/{views['scan_run']}")
            expect(page.locator("body")).to_contain_text("scan.pdf")
            shot("blocked_run")

            page.goto(f"{server.url}/automation")
            expect(page.locator("body")).to_contain_text("nightly_reingest")
            shot("automation")

            # rebuild one document from where the reviewer sees it: review → "rebuild scan.pdf" (click 1,
            # Dagster opens the launchpad in a new tab, the document's partition chosen) → Launch Run (click 2)
            page.goto(f"{server.url}/assets/review")
            with page.context.expect_page() as opened:
                page.locator('a[href*="tags[0][value]=scan.pdf"]').first.click()
            page = opened.value
            page.set_default_timeout(60_000)
            expect(page.get_by_text("partition: scan.pdf").first).to_be_visible()
            expect(page.get_by_text("No errors").first).to_be_visible()
            shot("rebuild_launchpad")
            page.get_by_role("button", name="Launch Run").click()
            expect(page).to_have_url(re.compile(r"/runs/[0-9a-f-]+"))
            shot("rebuild_launched")
        finally:
            browser.close()
    for path in shots.values():
        assert path.stat().st_size > 10_000, path
    # the launched run rebuilds scan.pdf from its source: the ingest job, every step from raw_documents on
    launched = server.graphql(LAUNCHED)["runsOrError"]["results"][0]
    tags = {t["key"]: t["value"] for t in launched["tags"]}
    assert launched["runId"] not in {r["runId"] for r in views["runs"]}
    assert (launched["jobName"], tags["dagster/partition"]) == ("ingest", "scan.pdf"), launched
    steps = set(launched["stepKeysToExecute"] or [])  # the whole job (Dagster lists its steps), raw_documents first
    assert {"raw_documents", "parse_documents", "chunks", "embeddings", "embeddings_gates"} <= steps, launched
    assert launched["status"] in ("QUEUED", "NOT_STARTED", "STARTING", "STARTED", "SUCCESS", "FAILURE"), launched
    if os.environ.get("DUOCTHU_UPDATE_SCREENSHOTS") == "1":
        docs = REPO / "docs" / "ui"
        docs.mkdir(exist_ok=True)
        for name, path in shots.items():
            shutil.copyfile(path, docs / f"{name}.png")
    print("\nscreenshots: " + ", ".join(str(s) for s in shots.values()))
