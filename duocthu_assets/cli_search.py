"""``duocthu search "QUERY" [-k N] [--warehouse DIR] [--json] [--mode M]``
and ``duocthu serve [--warehouse DIR] [--host H] [--port N] [--mode M]``.

Registered by ``duocthu_assets/cli.py``::

    from .cli_search import add_search_parser, add_serve_parser
    add_search_parser(subparsers)          # sets func=run_search
    add_serve_parser(subparsers)           # sets func=run_serve
    ...
    return args.func(args)

``search`` exit codes: 0 answered (possibly with no hits), 1 the index cannot
answer (missing, built with another model, embedder misconfigured) or the
query cannot be answered (empty, k too large). ``serve`` runs until
interrupted (exit 0), 1 when it cannot start.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .cli_args import DEFAULT_WAREHOUSE, WAREHOUSE_ENV, whole_number




def add_search_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "search",
        help="search the index (tables and formulas are answered with their crop and page)",
        description=(
            "Rank the chunks of every ingested document whose checks passed against QUERY. "
            "A hit whose section lost a table or formula names the printed page and the crop, "
            "and withholds its numbers: a dose is read from the crop, never from the text."
        ),
    )
    parser.add_argument("query", help="what to look for, in any language the model reads")
    parser.add_argument("-k", type=whole_number(1), default=5, metavar="N", help="number of hits (default 5)")
    parser.add_argument(
        "--warehouse",
        default=None,
        metavar="DIR",
        help=f"warehouse folder or URL (default: ${WAREHOUSE_ENV} or {DEFAULT_WAREHOUSE})",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output (schema duocthu.search/2)")
    _add_mode(parser)
    parser.set_defaults(func=run_search)
    return parser


def _add_mode(parser: argparse.ArgumentParser) -> None:
    from .retrieval.query import DEFAULT_MODE, MODE_ENV, MODES

    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help=f"hybrid (BM25 + embedding, fused by rank), dense (embedding only) or lexical (BM25 only); default ${MODE_ENV} or {DEFAULT_MODE}",
    )


def _warehouse(args: argparse.Namespace) -> Any:
    from .warehouse import Warehouse

    return Warehouse(args.warehouse or os.environ.get(WAREHOUSE_ENV) or DEFAULT_WAREHOUSE)


def run_search(args: argparse.Namespace, *, embedder: Any = None) -> int:
    from .retrieval import SearchError, Searcher, format_hits

    try:
        searcher = Searcher(_warehouse(args), embedder, mode=args.mode)
        answers, notes, resolution = searcher.resolved(args.query, args.k)
    except (SearchError, ValueError, ImportError) as exc:
        print(f"duocthu search: {exc}", file=sys.stderr)
        return 1
    citation = resolution.cited()
    sys.stdout.write(format_hits(answers, args.json, query=args.query, notes=notes, citation=citation))
    return 0


def add_serve_parser(subparsers: Any) -> argparse.ArgumentParser:
    from .retrieval.server import DEFAULT_HOST, DEFAULT_PORT

    parser = subparsers.add_parser(
        "serve",
        help="answer GET /search?q=...&k=... over HTTP from an index kept in memory",
        description=(
            "Serve the search index over HTTP: GET /search?q=QUERY&k=N answers with the JSON of "
            "`duocthu search --json` (the same obligations: crops and pages for lifted tables, numbers withheld), "
            "GET /health describes the loaded index. The index is read once and read again when it is "
            "re-materialized. Binds to 127.0.0.1 unless --host says otherwise."
        ),
    )
    parser.add_argument(
        "--warehouse",
        default=None,
        metavar="DIR",
        help=f"warehouse folder or URL (default: ${WAREHOUSE_ENV} or {DEFAULT_WAREHOUSE})",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default: %(default)s, this machine only)")
    parser.add_argument("--port", type=whole_number(0), default=DEFAULT_PORT, metavar="N", help="port (default: %(default)s; 0 picks a free one)")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    _add_mode(parser)
    parser.set_defaults(func=run_serve)
    return parser


def run_serve(args: argparse.Namespace, *, embedder: Any = None) -> int:
    from .retrieval import SearchError, Searcher
    from .retrieval.server import make_server

    try:
        searcher = Searcher(_warehouse(args), embedder, mode=args.mode)
        try:
            index = searcher.warm()
            loaded = f"{index.size} chunks of {len(index.info.documents)} document(s)"
        except SearchError as exc:  # no index yet: serve anyway, answer 503 until there is one
            loaded = f"no index yet ({exc})"
        server = make_server(searcher, args.host, args.port, log=None if args.quiet else sys.stderr)
    except (OSError, ValueError, ImportError) as exc:
        print(f"duocthu serve: {exc}", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    print(
        f"duocthu serve: the page at http://{host}:{port}/ , the API at http://{host}:{port}/search?q=...&k=10  "
        f"({loaded}; mode {searcher.mode})",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
