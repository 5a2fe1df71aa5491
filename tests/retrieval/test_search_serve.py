"""The warm index (Python API), `duocthu serve` over HTTP, and ADR 0006's
answer obligations on each path (CLI, server, API), over the tiny warehouse
of tests/retrieval/test_search.py."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from duocthu_assets.cli import build_parser
from duocthu_assets.retrieval import MAX_K, Searcher, refresh_search_index
from duocthu_assets.retrieval.server import DEFAULT_HOST, search_request, serve_in_thread

from tests.support.search_samples import CROP, DESCRIPTOR_TEXT, run_search_cli

QUARANTINED = "duocthu-mini:lieu_luong_va_cach_dung:1"
DESCRIPTOR = "duocthu-mini:lieu_luong_va_cach_dung:block:b0001"
QUERY = "liều lượng ampicilin sulbactam bảng suy thận"


@pytest.fixture
def server(warehouse, embedder):
    srv, thread = serve_in_thread(Searcher(warehouse, embedder), port=0)
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=10)


def _get(server, target: str) -> tuple[int, dict]:
    host, port = server.server_address[:2]
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{target}", timeout=60) as resp:
            return resp.status, json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode("utf-8"))


def _q(text: str) -> str:
    return urllib.parse.quote(text)


# -- the obligations, on every path ---------------------------------------------------------


def _check_obligations(hits: dict[str, dict], crop_file: str) -> None:
    q = hits[QUARANTINED]
    assert q["mode"] == "text_incomplete" and q["complete"] is False
    assert not any(ch.isdigit() for ch in q["text"]) and q["withheld_numbers"] == 6
    assert [(c["path"], c["printed_page"], c["exists"]) for c in q["crops"]] == [(crop_file, 204, True)]
    assert any("table exists at printed page 204" in n and crop_file in n for n in q["notices"])
    d = hits[DESCRIPTOR]
    assert d["mode"] == "crop_only" and d["text"] is None and d["complete"] is False
    assert [(c["path"], c["printed_page"]) for c in d["crops"]] == [(crop_file, 204)]
    dumped = json.dumps(d, ensure_ascii=False)
    assert "Clcr (ml/phút)" not in dumped and DESCRIPTOR_TEXT not in dumped  # embargoed header row, no restated text


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_obligations_hold_through_the_api(warehouse, embedder, mode):
    searcher = Searcher(warehouse, embedder, mode=mode)
    payload = searcher.payload(QUERY, 5)
    hits = {h["chunk_id"]: h for h in payload["hits"]}
    assert QUARANTINED in hits and DESCRIPTOR in hits, mode
    _check_obligations(hits, str(warehouse.path(CROP)))
    answers = {a.chunk_id: a for a in searcher.answer(QUERY, 5)}
    assert answers[DESCRIPTOR].text is None and answers[QUARANTINED].withheld_numbers == 6


def test_obligations_hold_through_the_server_and_match_the_cli(warehouse, embedder, server, capsys):
    status, payload = _get(server, f"/search?q={_q(QUERY)}&k=5")
    assert status == 200 and payload["schema"] == "duocthu.search/2"
    _check_obligations({h["chunk_id"]: h for h in payload["hits"]}, str(warehouse.path(CROP)))
    code, out, _ = run_search_cli(["search", QUERY, "-k", "5", "--warehouse", str(warehouse.root), "--json"], embedder, capsys)
    assert code == 0
    assert json.loads(out) == payload  # the same JSON as `duocthu search --json`
    _check_obligations({h["chunk_id"]: h for h in json.loads(out)["hits"]}, str(warehouse.path(CROP)))


# -- bad input: a 4xx with a reason, never a stack trace -----------------------------------------


@pytest.mark.parametrize(
    ("target", "status", "reason"),
    [
        ("/search?q=&k=3", 400, "the query is empty"),
        ("/search?q=%20%20&k=3", 400, "the query is empty"),
        ("/search?k=3", 400, "missing parameter q"),
        ("/search?q=li%E1%BB%81u&k=0", 400, "k must be >= 1"),
        ("/search?q=li%E1%BB%81u&k=-4", 400, "k must be >= 1"),
        (f"/search?q=li%E1%BB%81u&k={MAX_K + 1}", 400, f"k must be at most {MAX_K}"),
        ("/search?q=li%E1%BB%81u&k=99999999999999999999999", 400, f"k must be at most {MAX_K}"),
        ("/search?q=li%E1%BB%81u&k=ten", 400, "k must be a whole number"),
        ("/search?q=%FF%FEli&k=3", 400, "not valid UTF-8"),
        ("/search?q=li\xe1u&k=3", 400, "not valid UTF-8"),  # a raw latin-1 byte in the request line
        ("/search?q=a&q=b", 400, "more than once"),
        ("/search?q=a&limit=3", 400, "unknown parameter 'limit'"),
        ("/search?q=a&mode=fuzzy", 400, "unknown mode 'fuzzy'"),
        ("/search?q=" + "a" * 3000, 400, "at most 2000"),
        ("/search?q=a%00b", 400, "NUL"),
        ("/", 404, "not found"),
        ("/admin", 404, "not found"),
    ],
)
def test_bad_requests_get_a_4xx_with_a_reason(tmp_path, embedder, target, status, reason):
    # refused before the index is looked at: no warehouse needed
    code, body = search_request(Searcher(tmp_path, embedder), target)
    assert int(code) == status and reason in body["error"], body
    assert "Traceback" not in body["error"]


def test_bad_requests_over_http(server):
    status, body = _get(server, "/search?q=&k=3")
    assert status == 400 and body == {"error": "the query is empty"}
    status, body = _get(server, "/search?q=%C3%28&k=3")  # an invalid UTF-8 sequence
    assert status == 400 and "UTF-8" in body["error"]
    host, port = server.server_address[:2]
    request = urllib.request.Request(f"http://{host}:{port}/search?q=a", data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(request, timeout=30)
    assert exc.value.code == 405 and "use GET" in json.loads(exc.value.read())["error"]
    status, body = _get(server, "/health")
    assert status == 200 and body["rows"] == 5 and body["documents"] == 2


def test_no_index_is_a_503_and_internal_errors_name_no_stack(tmp_path, embedder, warehouse):
    code, body = search_request(Searcher(tmp_path / "empty", embedder), "/search?q=li%E1%BB%81u")
    assert int(code) == 503 and "no search index" in body["error"] and "duocthu ingest" in body["error"]

    class Broken:
        model_id = embedder.model_id

        def embed_query(self, text):
            raise RuntimeError("backend went away")

    code, body = search_request(Searcher(warehouse, Broken(), mode="dense"), "/search?q=li%E1%BB%81u")
    assert int(code) == 500 and body == {"error": "internal error: RuntimeError: backend went away"}


def test_serve_binds_to_loopback_by_default():
    args = build_parser().parse_args(["serve"])
    assert args.host == DEFAULT_HOST == "127.0.0.1"
    assert build_parser().parse_args(["serve", "--port", "0", "--mode", "dense"]).mode == "dense"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--mode", "fuzzy"])


def test_cli_refuses_bad_input_with_a_reason(warehouse, embedder, capsys):
    code, _, err = run_search_cli(["search", "   ", "--warehouse", str(warehouse.root)], embedder, capsys)
    assert code == 1 and "the query is empty" in err
    code, _, err = run_search_cli(["search", "liều", "-k", str(MAX_K + 1), "--warehouse", str(warehouse.root)], embedder, capsys)
    assert code == 1 and f"at most {MAX_K}" in err


# -- the warm index follows the file -----------------------------------------------------------


def test_the_index_is_read_once_and_again_when_it_is_rematerialized(warehouse, embedder, server):
    searcher = server.RequestHandlerClass.searcher
    status, payload = _get(server, f"/search?q={_q('hợp đồng thuê')}&k=10")
    assert status == 200 and {h["doc_id"] for h in payload["hits"]} == {"duocthu-mini", "persian-memo"}
    _get(server, f"/search?q={_q(QUERY)}&k=3")
    assert searcher.loads == 1  # warm: not read again per query
    # the asset is re-materialized without the formulary (its checks failed, or it was removed)
    refresh_search_index(warehouse, ["persian-memo"], model_id=embedder.model_id)
    status, payload = _get(server, f"/search?q={_q(QUERY)}&k=10")
    assert status == 200 and {h["doc_id"] for h in payload["hits"]} == {"persian-memo"}
    assert searcher.loads == 2
    status, body = _get(server, "/health")
    assert body["rows"] == 1 and body["loads"] == 2
    warehouse.path("search_index", "index.parquet").unlink()
    status, body = _get(server, f"/search?q={_q(QUERY)}")
    assert status == 503 and "no search index" in body["error"]


def test_module_level_search_stays_warm_and_follows_the_file(warehouse, embedder):
    from duocthu_assets import retrieval as legacy  # the module-level functions
    from duocthu_assets.retrieval.searcher import searcher_for

    before = searcher_for(warehouse).loads
    legacy.search(warehouse, QUERY, 3, embedder)
    legacy.search(warehouse, QUERY, 3, embedder)
    assert searcher_for(warehouse).loads == max(before, 1)
    refresh_search_index(warehouse, ["persian-memo"], model_id=embedder.model_id)
    assert {h.doc_id for h in legacy.search(warehouse, QUERY, 5, embedder)} == {"persian-memo"}


# -- hybrid: exact terms and the collection's normalization ---------------------------------------


def test_persian_query_typed_with_arabic_letters_matches_lexically(warehouse, embedder):
    # the contract says قرارداد (no ك/ي) — use a word with ی: "یک" typed as "يك"
    searcher = Searcher(warehouse, embedder, mode="lexical")
    hits = searcher.search("مدت يك سال", 3)
    assert hits and hits[0].doc_id == "persian-memo"
    assert searcher.search("مدت يك سال", 3) == searcher.search("مدت یک سال", 3)


def test_hybrid_is_reproducible_and_ranks_by_fused_score(warehouse, embedder):
    searcher = Searcher(warehouse, embedder, mode="hybrid")
    first = searcher.search("paracetamol 500 mg", 5)
    assert first == searcher.search("paracetamol 500 mg", 5)
    assert [h.rank for h in first] == list(range(1, len(first) + 1))
    # each unit's first chunk by fused score, then the units' further chunks (retrieval/spread.py)
    units = [(h.doc_id, h.entry_title, h.section_title) for h in first]
    leads = [h for i, h in enumerate(first) if units[i] not in units[:i]]
    repeats = [h for i, h in enumerate(first) if units[i] in units[:i]]
    assert first == leads + repeats
    assert all(a.score >= b.score for run in (leads, repeats) for a, b in zip(run, run[1:]))
    assert first[0].entry_title == "PARACETAMOL"
