"""``duocthu serve``: one warm :class:`~.searcher.Searcher` behind a small
HTTP server (the standard library's, one thread per request).

- ``GET /search?q=…&k=…[&mode=hybrid|dense|lexical]``: 200 with exactly the
  JSON of ``duocthu search --json`` (schema ``duocthu.search/1``; ADR 0006's
  obligations applied by the same code).
- ``GET /health``: the loaded index (rows, documents, model, mode).
- Bad input is a 4xx whose JSON body ``{"error": reason}`` says what to fix:
  an empty or over-long query, ``k`` not a whole number or outside
  1..:data:`~.query.MAX_K`, a repeated or unknown parameter, a query string
  that is not UTF-8 (400); another path (404); another method (405). An index
  that cannot answer (missing, another model) is a 503 with the reason; any
  other failure a 500 naming the exception, never a stack trace.

It binds to 127.0.0.1 unless told otherwise, and reloads the index when the
file changes (checked before each query).
"""

from __future__ import annotations

import json
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO
from urllib.parse import unquote_to_bytes

from .index import SearchError
from .query import MODES
from .searcher import Searcher

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MAX_REQUEST_LINE = 16384
_PARAMS = {"q", "k", "mode"}


class BadRequest(ValueError):
    def __init__(self, reason: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST):
        super().__init__(reason)
        self.status = status


def parse_query_string(raw: bytes) -> dict[str, str]:
    """``q=…&k=…`` → {name: value}, each percent-decoded and then decoded as
    UTF-8 strictly (BadRequest otherwise); a parameter given twice, or one
    this server does not know, is refused rather than guessed at."""
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
        if name not in _PARAMS:
            raise BadRequest(f"unknown parameter {name!r}: use q, k and mode")
        if name in params:
            raise BadRequest(f"parameter {name!r} given more than once")
        params[name] = value
    return params


def search_request(searcher: Searcher, target: str) -> tuple[HTTPStatus, dict[str, Any]]:
    """The status and JSON body for a request target (path + query string),
    as the server answers it; no socket needed (the tests call it too)."""
    try:
        raw = target.encode("latin-1")  # http.server decodes the request line as latin-1: undo it
    except UnicodeEncodeError:
        return HTTPStatus.BAD_REQUEST, {"error": "the request target is not plain bytes"}
    raw_path, _, query_string = raw.partition(b"#")[0].partition(b"?")
    if b"://" in raw_path:  # an absolute-form target (a proxy's): keep only the path
        raw_path = b"/" + raw_path.split(b"://", 1)[1].partition(b"/")[2]
    path = raw_path.rstrip(b"/") or b"/"
    try:
        if path == b"/health":
            index = searcher.index()
            return HTTPStatus.OK, {
                "status": "ok",
                "rows": index.size,
                "documents": len(index.info.documents),
                "excluded": len(index.info.excluded),
                "model_id": index.info.model_id,
                "mode": searcher.mode,
                "loads": searcher.loads,
            }
        if path != b"/search":
            return HTTPStatus.NOT_FOUND, {"error": "not found: use GET /search?q=...&k=... or GET /health"}
        params = parse_query_string(query_string)
        if "q" not in params:
            raise BadRequest("missing parameter q (the query)")
        k_text = params.get("k", "5").strip()
        try:
            k = int(k_text)
        except ValueError:
            raise BadRequest(f"k must be a whole number, got {k_text!r}") from None
        mode = params.get("mode") or None
        if mode is not None and mode not in MODES:
            raise BadRequest(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        return HTTPStatus.OK, searcher.payload(params["q"], k, mode=mode)
    except BadRequest as exc:
        return exc.status, {"error": str(exc)}
    except ValueError as exc:  # validate_query's reasons: empty query, k out of range
        return HTTPStatus.BAD_REQUEST, {"error": str(exc)}
    except SearchError as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - a reason, never a stack trace
        return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(exc).__name__}: {exc}"}


class SearchHandler(BaseHTTPRequestHandler):
    server_version = "duocthu-serve"
    searcher: Searcher  # set on the class made by make_server
    log: TextIO | None = None

    def _send(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        status, body = search_request(self.searcher, self.path)
        self._send(status, body)

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def _not_allowed(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not supported: use GET /search?q=...&k=..."})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed  # noqa: N815

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (malformed request line, too long) as JSON."""
        try:
            status = HTTPStatus(code)
        except ValueError:
            status = HTTPStatus.BAD_REQUEST
        self.close_connection = True
        self._send(status, {"error": message or status.phrase})

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.log is not None:
            print(f"{self.address_string()} {format % args}", file=self.log, flush=True)


def make_server(searcher: Searcher, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, log: TextIO | None = sys.stderr) -> ThreadingHTTPServer:
    """A server (not yet serving) answering from ``searcher``; port 0 picks a free one."""
    handler = type("BoundSearchHandler", (SearchHandler,), {"searcher": searcher, "log": log})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(searcher: Searcher, host: str = DEFAULT_HOST, port: int = 0, *, log: TextIO | None = None) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Start a server on a background thread (tests, benchmarks); stop it
    with ``server.shutdown(); server.server_close()``."""
    server = make_server(searcher, host, port, log=log)
    thread = threading.Thread(target=server.serve_forever, name="duocthu-serve", daemon=True)
    thread.start()
    return server, thread
