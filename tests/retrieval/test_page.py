"""The search page of `duocthu serve`, used as a reader uses it: queries typed
into the page in headless Chromium (the project's `make browser`), the cards
and their crop images checked loaded, the page at a phone's width and in
Persian, the options, the refusals; and the safety cases (a script in a
query, path traversal, an absent crop) refused or shown harmlessly.
Screenshots go to tests/output/search_page/ (the ones in docs/search/ were
taken by this test)."""

from __future__ import annotations

import dataclasses
import urllib.parse

import pytest

from duocthu_assets.retrieval import Searcher
from duocthu_assets.retrieval.answer import Answer
from duocthu_assets.retrieval.page import card_html, page_html
from duocthu_assets.retrieval.page_files import PageFiles
from duocthu_assets.retrieval.server import serve_in_thread
from tests.support.search_page import FORMULARY_DOC, page_warehouse
from tests.support.ui_helpers import chromium_path, screenshot_dir

VI_QUERY = "liều ampicilin suy thận"
FA_QUERY = "مدت قرارداد اجاره"
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">"\'&'


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, embedder):
    return page_warehouse(tmp_path_factory.mktemp("page") / "warehouse", embedder)


@pytest.fixture(scope="module")
def searcher(warehouse, embedder):
    return Searcher(warehouse, embedder)


# -- the HTML, without a browser ---------------------------------------------------------------


def test_a_card_escapes_everything_and_marks_what_is_withheld(warehouse, searcher):
    answers, _ = searcher.respond(VI_QUERY, 5)
    files, index = PageFiles(warehouse), searcher.index()
    dosing = next(a for a in answers if a.mode == "text_incomplete")
    hostile = dataclasses.replace(dosing, entry_title=HOSTILE, headings=(HOSTILE,), notices=(HOSTILE,))
    html = card_html(hostile, files, index)
    assert "<script" not in html and "<img src=x" not in html and "&lt;script&gt;" in html
    assert html.count('<mark class="withheld"') == dosing.withheld_numbers == 6
    assert FORMULARY_DOC in html and "printed page 204" in html and "page 2 of the file" in html
    assert "/crop?doc=duocthu-mini&amp;block=b0001" in html and "/render?doc=duocthu-mini&amp;page=2" in html
    assert "its crop is missing from the warehouse" in html  # b0002's file is absent: said, not linked
    assert str(warehouse.root) not in html  # notices say where the crop is on the page, not a file path
    page = page_html(query=HOSTILE, answers=[hostile], files=files, index=index)
    assert "<script" not in page and "onerror=\"" not in page


def test_a_hit_read_from_a_scan_says_so(warehouse, searcher):
    answers, _ = searcher.respond(VI_QUERY, 5)
    files, index = PageFiles(warehouse), searcher.index()
    plain = answers[0]
    assert plain.text_source == "layer"
    assert "read from a scan" not in card_html(plain, files, index)  # a text layer: nothing claimed
    assert "read from a scan" in card_html(dataclasses.replace(plain, text_source="ocr"), files, index)


# -- in Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser_page(searcher):
    """(base URL, a function making a Chromium page at a width, requests seen leaving loopback)."""
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine and `make browser` could not install it (needs root and Debian's packages)")
    from playwright.sync_api import sync_playwright

    server, thread = serve_in_thread(searcher, port=0)
    host, port = server.server_address[:2]
    base = f"http://{host}:{port}"
    outside: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu", "--disable-quic"])

        def open_page(width: int):
            context = browser.new_context(viewport={"width": width, "height": 900}, java_script_enabled=True)

            def route(r):
                if r.request.url.startswith(base):
                    return r.continue_()
                outside.append(r.request.url)
                return r.abort()

            context.route("**/*", route)
            return context.new_page()

        try:
            yield base, open_page, outside
        finally:
            browser.close()
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)


def _shot(page, name: str) -> None:
    out = screenshot_dir() / "search_page"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)


def _search(page, base: str, query: str, *, mode: str | None = None, k: str | None = None) -> None:
    page.goto(base + "/")
    page.fill("input[name=q]", query)
    if mode:
        page.select_option("select[name=mode]", mode)
    if k:
        page.select_option("select[name=k]", k)
    page.click("button[type=submit]")
    page.wait_for_load_state("load")


def _images(page) -> list[list]:
    return page.eval_on_selector_all("figure.crop img", "imgs => imgs.map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")


def test_a_typed_query_shows_cards_with_their_crops_loaded(browser_page):
    base, open_page, outside = browser_page
    page = open_page(1100)
    _search(page, base, VI_QUERY)
    cards = page.locator("article.card")
    assert cards.count() >= 3
    images = _images(page)
    assert images and all(done and width > 0 for _, done, width in images), images
    assert {src for src, _, _ in images} == {"/crop?doc=duocthu-mini&block=b0001"}
    assert page.locator("mark.withheld").count() == 6
    assert page.locator(".badge.crop-only").count() == 1 and page.locator(".badge.incomplete").count() == 1
    assert page.locator(".missing").first.inner_text().startswith("Formula at printed page 204")
    law = page.locator("article.card", has_text="Điều 319")
    assert "Chương XV. NGHĨA VỤ" in law.inner_text() and "Bộ luật Dân sự 2015" in law.inner_text()
    _shot(page, "desktop")
    page.click("figure.crop figcaption a:has-text('whole page')")  # the page rendered whole
    page.wait_for_load_state("load")
    assert "/render?doc=duocthu-mini&page=2" in page.url
    assert page.evaluate("document.images.length === 1 && document.images[0].naturalWidth") > 800
    assert outside == []  # nothing loaded from anywhere else


def test_a_phone_width_persian_and_the_options(browser_page):
    base, open_page, _ = browser_page
    page = open_page(390)
    _search(page, base, VI_QUERY)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the crop scrolls inside its card, not the page
    assert all(width > 0 for _, _, width in _images(page))
    _shot(page, "phone")
    _search(page, base, FA_QUERY, mode="lexical", k="10")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query["mode"] == ["lexical"] and query["k"] == ["10"]
    assert page.locator("select[name=mode]").input_value() == "lexical"
    persian = page.locator("article.card").first
    assert persian.evaluate("card => getComputedStyle(card).direction") == "rtl"
    assert "قرارداد اجاره" in persian.inner_text()
    _shot(page, "persian_phone")


def test_empty_and_bad_queries_get_the_apis_message(browser_page):
    base, open_page, _ = browser_page
    page = open_page(1100)
    _search(page, base, "   ")
    assert page.locator(".error").inner_text() == "the query is empty"
    _shot(page, "empty_query")
    response = page.goto(base + "/?q=thu%E1%BB%91c&k=%D9%A3")
    assert response.status == 400 and page.locator(".error").inner_text() == "k must be a whole number, got '٣'"
    response = page.goto(base + "/?q=" + "a" * 2001)
    assert response.status == 400 and "at most 2000" in page.locator(".error").inner_text()


def test_a_script_in_the_query_is_shown_as_text(browser_page):
    base, open_page, outside = browser_page
    page = open_page(1100)
    _search(page, base, HOSTILE)
    assert page.evaluate("window.__pwned === undefined")
    assert HOSTILE in page.locator(".summary").inner_text()
    assert page.locator("input[name=q]").input_value() == HOSTILE
    assert page.locator("img[src=x]").count() == 0 and outside == []
    _shot(page, "script_in_query")


@pytest.mark.parametrize(
    ("target", "status", "reason"),
    [
        ("/crop?doc=..%2F..%2F..%2Fetc&block=passwd", 404, "no indexed document"),
        ("/crop?doc=duocthu-mini&block=..%2F..%2F..%2F..%2Fetc%2Fpasswd", 404, "has no attachment"),
        ("/crop?doc=duocthu-mini&block=b0002", 404, "missing from the warehouse"),
        ("/crop?doc=duocthu-mini", 400, "use /crop?block=...&doc=..."),
        ("/render?doc=duocthu-mini&page=..%2F..%2Fraw_documents", 400, "whole number"),
        ("/render?doc=duocthu-mini&page=9", 404, "not 9"),
        ("/render?doc=persian-memo&page=1", 404, "without pages to render"),
        ("/static/..%2F..%2F..%2Fpyproject.toml", 404, "not found"),
        ("/static/search.css/../../page.py", 404, "not found"),
        ("/search.css", 404, "not found"),
    ],
)
def test_paths_out_of_the_warehouse_are_refused(browser_page, target, status, reason):
    base, open_page, _ = browser_page
    page = open_page(800)
    response = page.goto(base + target)
    assert response.status == status and reason in response.json()["error"], response.text()
