"""`duocthu serve`'s bounds and its answers to malformed requests, over
real sockets: an idle connection is closed, a request line that is not
HTTP/1.x gets a status line and a reason, `k` must be ASCII digits, long
queries wait in their own lane, the number of open connections is capped,
and every answer carries the safety headers."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from duocthu_assets.retrieval import Searcher
from duocthu_assets.retrieval.server import (
    Limits,
    QueryLanes,
    search_request,
    serve_in_thread,
)


@pytest.fixture
def serve(warehouse, embedder):
    started = []

    def start(limits: Limits | None = None):
        srv, thread = serve_in_thread(Searcher(warehouse, embedder, mode="lexical"), port=0, limits=limits)
        started.append((srv, thread))
        return srv

    yield start
    for srv, thread in started:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=10)


def _raw(server, data: bytes, timeout: float = 30) -> bytes:
    """Send ``data`` as is and read until the server closes."""
    with socket.create_connection(server.server_address[:2], timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _status_and_error(response: bytes) -> tuple[str, dict]:
    head, _, body = response.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode("latin-1"), json.loads(body)


@pytest.mark.parametrize(
    ("request_line", "status", "reason"),
    [
        (b"GET /health HTTP/2.0\r\n\r\n", "505", "Invalid HTTP version"),
        (b"GET /health HTTP/3\r\n\r\n", "400", "Bad request version"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", "400", "Bad request"),  # a TLS hello
        (b"HELLO\r\n\r\n", "400", "Bad request syntax"),
        (b"GET /health\r\n\r\n", "400", "send 'GET /path HTTP/1.1'"),  # HTTP/0.9: would be a bare body
        (b"GET /search?q=a b c HTTP/1.1\r\n\r\n", "400", "Bad request"),
        (b"BREW /search HTTP/1.1\r\n\r\n", "501", "Unsupported method"),
    ],
)
def test_a_malformed_request_line_gets_a_status_line_and_a_reason(serve, request_line, status, reason):
    line, body = _status_and_error(_raw(serve(), request_line))
    assert line.startswith("HTTP/1.") and line.split()[1] == status, line
    assert reason in body["error"], body


def test_k_in_other_digits_is_refused_with_the_apis_message(warehouse, embedder, serve):
    searcher = Searcher(warehouse, embedder, mode="lexical")
    for k in ("٣", "３", "1_0", "٣٣"):
        status, body = search_request(searcher, f"/search?q=thu%E1%BB%91c&k={urllib.parse.quote(k)}")
        assert int(status) == 400 and body == {"error": f"k must be a whole number, got {k!r}"}
    host, port = serve().server_address[:2]
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(f"http://{host}:{port}/?q=thu%E1%BB%91c&k=%D9%A3", timeout=30)
    assert exc.value.code == 400 and "k must be a whole number, got &#x27;٣&#x27;" in exc.value.read().decode()


def test_an_idle_connection_is_closed(serve):
    server = serve(Limits(idle_timeout_s=0.3))
    with socket.create_connection(server.server_address[:2], timeout=30) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\n")  # the headers never finish
        assert sock.recv(1024) == b""  # closed by the server, long before the client's 30 s
    with socket.create_connection(server.server_address[:2], timeout=30) as sock:
        assert sock.recv(1024) == b""  # nothing sent at all


def test_open_connections_are_capped(serve):
    server = serve(Limits(max_connections=1, idle_timeout_s=30))
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=30) as holder:
        holder.sendall(b"GET /health HTTP/1.1\r\n")  # holds the one slot
        line, body = _status_and_error(_raw(server, b"GET /health HTTP/1.1\r\n\r\n"))
        assert line.split()[1] == "503" and "too many open connections" in body["error"]
    for _ in range(300):  # the slot comes back once the holder is gone (polled, not timed)
        line, body = _status_and_error(_raw(server, b"GET /health HTTP/1.1\r\nConnection: close\r\n\r\n"))
        if line.split()[1] == "200":
            break
        time.sleep(0.1)
    assert body["status"] == "ok"


def test_long_queries_wait_in_their_own_lane(warehouse, embedder):
    searcher = Searcher(warehouse, embedder, mode="lexical")
    lanes = QueryLanes(Limits(long_query_chars=50, queue_wait_s=0.01))
    long_query = urllib.parse.quote("thuốc " * 20)
    held, release = threading.Event(), threading.Event()

    def occupy() -> None:
        with lanes.slot("x" * 51):
            held.set()
            release.wait(30)

    worker = threading.Thread(target=occupy)
    worker.start()
    try:
        assert held.wait(30)
        status, body = search_request(searcher, f"/search?q={long_query}&k=3", lanes)
        assert int(status) == 503 and "busy" in body["error"]
        status, body = search_request(searcher, "/search?q=paracetamol&k=3", lanes)  # the ordinary lane is free
        assert int(status) == 200 and body["hits"]
    finally:
        release.set()
        worker.join(timeout=30)
    status, body = search_request(searcher, f"/search?q={long_query}&k=3", lanes)
    assert int(status) == 200


def test_every_answer_carries_the_safety_headers(serve):
    host, port = serve().server_address[:2]
    for target, kind in (("/?q=paracetamol", "text/html"), ("/search?q=paracetamol", "application/json"), ("/static/search.css", "text/css")):
        with urllib.request.urlopen(f"http://{host}:{port}{target}", timeout=30) as resp:
            headers = resp.headers
        assert headers["Content-Type"].startswith(kind)
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert "script-src" not in headers["Content-Security-Policy"]  # no script allowed from anywhere


def test_a_loopback_server_answers_only_to_loopback_names(serve):
    server = serve()
    port = server.server_address[1]
    for host in (f"rebound.example:{port}", "10.0.0.8", f"127.0.0.1.nip.io:{port}"):
        line, body = _status_and_error(_raw(server, f"GET /?q=li HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()))
        assert line.split()[1] == "403" and "only to 127.0.0.1 or localhost" in body["error"], (host, body)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        line, _ = _status_and_error(_raw(server, f"GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()))
        assert line.split()[1] == "200", host
