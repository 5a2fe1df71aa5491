"""``duocthu search "QUERY" [-k N] [--warehouse DIR] [--json]``.

Registered by ``duocthu_assets/cli.py``::

    from .cli_search import add_search_parser
    add_search_parser(subparsers)          # sets func=run_search
    ...
    return args.func(args)

Exit codes: 0 answered (possibly with no hits), 1 the index cannot answer
(missing, built with another model, embedder misconfigured).
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
    parser.add_argument("--json", action="store_true", help="machine-readable output (schema duocthu.search/1)")
    parser.set_defaults(func=run_search)
    return parser


def run_search(args: argparse.Namespace, *, embedder: Any = None) -> int:
    from .embed.base import EmbedderConfig, make_embedder
    from .search import SearchError, answer, format_hits, read_index_info
    from .storage import Warehouse

    warehouse = Warehouse(args.warehouse or os.environ.get(WAREHOUSE_ENV) or DEFAULT_WAREHOUSE)
    try:
        if embedder is None:
            embedder = make_embedder(EmbedderConfig.from_env())
        answers = answer(warehouse, args.query, args.k, embedder)
    except (SearchError, ValueError, ImportError) as exc:
        print(f"duocthu search: {exc}", file=sys.stderr)
        return 1
    notes = []
    info = read_index_info(warehouse)
    if info is not None and info.excluded:
        listed = "; ".join(f"{doc}: {why}" for doc, why in sorted(info.excluded.items()))
        notes.append(f"{len(info.excluded)} document(s) are not searchable: {listed}")
    sys.stdout.write(format_hits(answers, args.json, query=args.query, notes=notes))
    return 0
