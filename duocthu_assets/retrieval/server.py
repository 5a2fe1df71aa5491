"""``duocthu serve``: one warm :class:`~.searcher.Searcher` behind a small
HTTP server (the standard library's, one thread per connection).

- ``GET /search?q=…&k=…[&mode=hybrid|dense|lexical]``: 200 with exactly the
  JSON of ``duocthu search --json`` (schema ``duocthu.search/2``; ADR 0006's
  obligations applied by the same code).
- ``GET /health``: the loaded index (rows, documents, model, mode).
- ``GET /?q=…&k=…&mode=…``: the search page (:mod:`.page`), the same answers
  as HTML cards; ``/static/search.css`` its stylesheet; ``GET
  /crop?doc=…&block=…`` an attachment's crop and ``GET /render?doc=…&page=…``
  a page of the stored PDF, both by ids the index vouches for
  (:mod:`.page_files`).
- Bad input is a 4xx whose body says what to fix (JSON ``{"error": reason}``
  from the API and the image endpoints, the page with the reason from ``/``):
  an empty or over-long query, ``k`` not a whole number written in ASCII
  digits or outside 1..:data:`~.query.MAX_K`, a repeated or unknown
  parameter, a query string that is not UTF-8 (400); another path (404);
  another method (405); a request line that is not HTTP/1.0 or 1.1 (400,
  505), always with a status line. An index that cannot answer (missing,
  another model) is a 503 with the reason; any other failure a 500 naming
  the exception, never a stack trace.

Bounds (:class:`Limits`): a connection idle for ``idle_timeout_s`` is
closed; at most ``max_connections`` are open (more get a 503 at once);
queries run in two lanes — ordinary ones (at most ``long_query_chars``
characters) on up to ``workers`` at a time, longer ones one at a time — so
clients sending long queries wait for each other, not an ordinary query; a
query that waits ``queue_wait_s`` for its lane gets a 503.

It binds to 127.0.0.1 unless told otherwise (and then answers only
requests naming it ``127.0.0.1`` or ``localhost`` in ``Host``: a web page
cannot reach it by DNS rebinding), and reloads the index when the
file changes (checked before each query).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO
from urllib.parse import unquote_to_bytes

from .index import SearchError
from .page import CONTENT_SECURITY_POLICY, page_html, stylesheet
from .page_files import FileRefused, PageFiles
from .query import DEFAULT_MODE, MODES
from .searcher import Searcher

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_API_PARAMS = {"q", "k", "mode"}
_FILE_PARAMS = {"/crop": {"doc", "block"}, "/render": {"doc", "page"}}
_ASCII_INTEGER = re.compile(r"[+-]?[0-9]+")
_OTHER_CSP = "default-src 'none'; frame-ancestors 'none'"
_LOOPBACK_NAMES = {"127.0.0.1", "localhost", "[::1]"}


@dataclass(frozen=True)
class Limits:
    """The server's bounds (see the module docstring and docs/search.md)."""

    idle_timeout_s: float = 15.0
    max_connections: int = 256
    workers: int = max(2, os.cpu_count() or 2)
    long_query_chars: int = 200
    queue_wait_s: float = 30.0


class BadRequest(ValueError):
    def __init__(self, reason: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST):
        super().__init__(reason)
        self.status = status


class QueryLanes:
    """The two lanes queries run in (see the module docstring)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._ordinary = threading.BoundedSemaphore(limits.workers)
        self._long = threading.BoundedSemaphore(1)

    @contextmanager
    def slot(self, query: str) -> Iterator[None]:
        lane = self._long if len(query) > self.limits.long_query_chars else self._ordinary
        if not lane.acquire(timeout=self.limits.queue_wait_s):
            raise BadRequest("the server is busy answering other queries: try again in a moment", HTTPStatus.SERVICE_UNAVAILABLE)
        try:
            yield
        finally:
            lane.release()


def parse_query_string(raw: bytes, allowed: set[str] | frozenset[str] = frozenset(_API_PARAMS)) -> dict[str, str]:
    """``q=…&k=…`` → {name: value}, each percent-decoded and then decoded as
    UTF-8 strictly (BadRequest otherwise); a parameter given twice, or one
    this endpoint does not know, is refused rather than guessed at."""
    params: dict[str, str] = {}
    for part in raw.split(b"&"):
        if not part:
            continue
        name_b, _, value_b = part.partition(b"=")
        try:
            name = unquote_to_bytes(name_b.replace(b"+", b" ")).decode("utf-8")
            value = unquote_to_bytes(value_b.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("the query string is not valid UTF-8 (percent-encode the query's UTF-8 bytes)") from None
        if name not in allowed:
            raise BadRequest(f"unknown parameter {name[:40]!r}: use {', '.join(sorted(allowed))}")
        if name in params:
            raise BadRequest(f"parameter {name!r} given more than once")
        params[name] = value
    return params


def split_target(target: str) -> tuple[bytes, bytes]:
    """A request target → (path without trailing slash, raw query string)."""
    try:
        raw = target.encode("latin-1")  # http.server decodes the request line as latin-1: undo it
    except UnicodeEncodeError:
        raise BadRequest("the request target is not plain bytes") from None
    raw_path, _, query_string = raw.partition(b"#")[0].partition(b"?")
    if b"://" in raw_path:  # an absolute-form target (a proxy's): keep only the path
        raw_path = b"/" + raw_path.split(b"://", 1)[1].partition(b"/")[2]
    return raw_path.rstrip(b"/") or b"/", query_string


def parse_k(text: str, default: int = 5) -> int:
    """``k`` written in ASCII digits (``int`` would also take ``٣`` or ``1_0``)."""
    text = text.strip() or str(default)
    if not _ASCII_INTEGER.fullmatch(text):
        raise BadRequest(f"k must be a whole number, got {text[:40]!r}")
    return int(text)


def parse_mode(params: dict[str, str]) -> str | None:
    mode = params.get("mode") or None
    if mode is not None and mode not in MODES:
        raise BadRequest(f"unknown mode {mode[:40]!r}: use one of {', '.join(MODES)}")
    return mode


def _health(searcher: Searcher) -> dict[str, Any]:
    index = searcher.index()
    return {
        "status": "ok",
        "rows": index.size,
        "documents": len(index.info.documents),
        "excluded": len(index.info.excluded),
        "model_id": index.info.model_id,
        "mode": searcher.mode,
        "loads": searcher.loads,
    }


def search_request(searcher: Searcher, target: str, lanes: QueryLanes | None = None) -> tuple[HTTPStatus, dict[str, Any]]:
    """The status and JSON body the API answers a request target (path +
    query string) with; no socket needed (the tests call it too)."""
    try:
        path, query_string = split_target(target)
        if path == b"/health":
            return HTTPStatus.OK, _health(searcher)
        if path != b"/search":
            return HTTPStatus.NOT_FOUND, {"error": "not found: use GET /search?q=...&k=..., GET /health or the page at /"}
        params = parse_query_string(query_string)
        if "q" not in params:
            raise BadRequest("missing parameter q (the query)")
        k, mode = parse_k(params.get("k", "")), parse_mode(params)
        with lanes.slot(params["q"]) if lanes else _no_lane():
            return HTTPStatus.OK, searcher.payload(params["q"], k, mode=mode)
    except BadRequest as exc:
        return exc.status, {"error": str(exc)}
    except ValueError as exc:  # validate_query's reasons: empty query, k out of range
        return HTTPStatus.BAD_REQUEST, {"error": str(exc)}
    except SearchError as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - a reason, never a stack trace
        return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(exc).__name__}: {exc}"}


@contextmanager
def _no_lane() -> Iterator[None]:
    yield


def page_request(searcher: Searcher, files: PageFiles, query_string: bytes, lanes: QueryLanes | None = None) -> tuple[HTTPStatus, str]:
    """The status and HTML of the search page for a query string."""
    query, k, mode = "", 5, searcher.mode or DEFAULT_MODE
    try:
        params = parse_query_string(query_string)
        query = params.get("q", "")
        k, mode = parse_k(params.get("k", "")), parse_mode(params) or mode
        if "q" not in params:
            return HTTPStatus.OK, page_html(k=k, mode=mode)
        with lanes.slot(query) if lanes else _no_lane():
            answers, notes = searcher.respond(query, k, mode=mode)
            index = searcher.index()
            return HTTPStatus.OK, page_html(query=query, k=k, mode=mode, answers=answers, notes=notes, files=files, index=index)
    except BadRequest as exc:
        status, reason = exc.status, str(exc)
    except ValueError as exc:
        status, reason = HTTPStatus.BAD_REQUEST, str(exc)
    except SearchError as exc:
        status, reason = HTTPStatus.SERVICE_UNAVAILABLE, str(exc)
    except Exception as exc:  # noqa: BLE001 - a reason, never a stack trace
        status, reason = HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(exc).__name__}: {exc}"
    return status, page_html(query=query[:2000], k=k if isinstance(k, int) else 5, mode=mode if mode in MODES else DEFAULT_MODE, error=reason)


def file_request(searcher: Searcher, files: PageFiles, path: bytes, query_string: bytes) -> tuple[HTTPStatus, bytes | dict[str, Any]]:
    """A crop or a page render: (200, PNG bytes) or (4xx/5xx, {"error"})."""
    name = path.decode("latin-1")
    try:
        params = parse_query_string(query_string, _FILE_PARAMS[name])
        if set(params) != _FILE_PARAMS[name]:
            raise BadRequest(f"use {name}?{'&'.join(f'{p}=...' for p in sorted(_FILE_PARAMS[name]))}")
        index = searcher.index()
        if name == "/crop":
            return HTTPStatus.OK, files.crop(index, params["doc"], params["block"])
        return HTTPStatus.OK, files.render(index, params["doc"], params["page"])
    except (BadRequest, FileRefused) as exc:
        return exc.status, {"error": str(exc)}
    except SearchError as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc)}
    except Exception as exc:  # noqa: BLE001
        return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(exc).__name__}: {exc}"}


class SearchHandler(BaseHTTPRequestHandler):
    server_version = "duocthu-serve"
    searcher: Searcher  # these four are set on the class made by make_server
    files: PageFiles
    lanes: QueryLanes | None = None
    log: TextIO | None = None
    loopback_only = False  # bound to loopback: only loopback names in Host are answered
    timeout = Limits.idle_timeout_s  # a connection idle this long is closed (socket timeout)

    def _send_bytes(self, status: HTTPStatus, data: bytes, content_type: str, *, csp: str = _OTHER_CSP, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.send_header("Content-Security-Policy", csp)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
        self._send_bytes(status, data, "application/json; charset=utf-8")

    def _foreign_host(self) -> str | None:
        """The Host header's name when a loopback server is asked under
        another name (a DNS-rebinding page's fetch), else None."""
        if not self.loopback_only:
            return None
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rpartition("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
        return None if name in _LOOPBACK_NAMES or not host else host

    def do_GET(self) -> None:
        foreign = self._foreign_host()
        if foreign is not None:
            self._send(HTTPStatus.FORBIDDEN, {"error": f"this server answers only to 127.0.0.1 or localhost, not {foreign[:80]!r}"})
            return
        try:
            path, query_string = split_target(self.path)
        except BadRequest as exc:
            self._send(exc.status, {"error": str(exc)})
            return
        if path == b"/":
            status, html = page_request(self.searcher, self.files, query_string, self.lanes)
            self._send_bytes(status, html.encode("utf-8"), "text/html; charset=utf-8", csp=CONTENT_SECURITY_POLICY)
        elif path == b"/static/search.css":
            self._send_bytes(HTTPStatus.OK, stylesheet(), "text/css; charset=utf-8", cache="no-cache")
        elif path in (b"/crop", b"/render"):
            status, body = file_request(self.searcher, self.files, path, query_string)
            if isinstance(body, bytes):
                self._send_bytes(status, body, "image/png", cache="private, max-age=60")
            else:
                self._send(status, body)
        else:
            self._send(*search_request(self.searcher, self.path, self.lanes))

    def do_HEAD(self) -> None:
        self.do_GET()

    def _not_allowed(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not supported: use GET /search?q=...&k=..."})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # "GET /path": a response without a status line; refused
            self.send_error(HTTPStatus.BAD_REQUEST, "Bad request line: send 'GET /path HTTP/1.1'")
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (malformed request line, HTTP/2.0, too
        long) as JSON, always after a status line."""
        try:
            status = HTTPStatus(code)
        except ValueError:
            status = HTTPStatus.BAD_REQUEST
        if self.request_version in ("HTTP/0.9", ""):
            self.request_version = "HTTP/1.0"  # else http.server writes the body alone
        if not self.command:
            self.command = "GET"  # a refused request line: answer with a body
        self.close_connection = True
        self._send(status, {"error": message or status.phrase})

    def log_message(self, format: str, *args: Any) -> None:
        if self.log is not None:
            print(f"{self.address_string()} {format % args}", file=self.log, flush=True)


class BoundedHTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` at once: more
    are answered 503 and closed at once. A client that drops its connection
    is logged in one line, not with a traceback."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[SearchHandler], max_connections: int):
        super().__init__(address, handler)
        self._open = threading.BoundedSemaphore(max_connections)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._open.acquire(blocking=False):
            body = b'{"error": "too many open connections: try again in a moment"}\n'
            try:
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._open.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        kind = sys.exc_info()[0]
        handler = self.RequestHandlerClass
        if getattr(handler, "log", None) is not None:
            print(f"{client_address[0]} connection ended: {kind.__name__ if kind else 'error'}", file=handler.log, flush=True)


def make_server(
    searcher: Searcher, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, log: TextIO | None = sys.stderr, limits: Limits | None = None
) -> BoundedHTTPServer:
    """A server (not yet serving) answering from ``searcher``; port 0 picks a free one."""
    limits = limits or Limits()
    attributes = {
        "searcher": searcher, "files": PageFiles(searcher.warehouse), "lanes": QueryLanes(limits), "log": log, "timeout": limits.idle_timeout_s,
        "loopback_only": host in ("127.0.0.1", "localhost", "::1"),
    }
    handler = type("BoundSearchHandler", (SearchHandler,), attributes)
    return BoundedHTTPServer((host, port), handler, limits.max_connections)


def serve_in_thread(
    searcher: Searcher, host: str = DEFAULT_HOST, port: int = 0, *, log: TextIO | None = None, limits: Limits | None = None
) -> tuple[BoundedHTTPServer, threading.Thread]:
    """Start a server on a background thread (tests, benchmarks); stop it
    with ``server.shutdown(); server.server_close()``."""
    server = make_server(searcher, host, port, log=log, limits=limits)
    thread = threading.Thread(target=server.serve_forever, name="duocthu-serve", daemon=True)
    thread.start()
    return server, thread
