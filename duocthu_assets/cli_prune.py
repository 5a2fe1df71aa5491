"""``duocthu prune [--warehouse DIR] [--keep-recent N] [--dry-run]``: the
Dagster runs whose every output has since been rebuilt, deleted; inside the
runs that stay, the rows of documents rebuilt since and older runs' step
input/output events (:mod:`duocthu_assets.runtime.retention`).

Registered by ``duocthu_assets/cli.py`` like ``search``. Exit codes: 0 done
(or nothing to delete); 2 bad arguments.
"""

from __future__ import annotations

import argparse

from .cli_args import default_warehouse_root, whole_number


def add_prune_parser(sub) -> None:
    prune = sub.add_parser(
        "prune",
        help="delete the Dagster runs every output of which was rebuilt since, and inside the others the rows of "
             "documents rebuilt since (each document's latest state kept)",
    )
    prune.add_argument("--warehouse", default=default_warehouse_root(), help="the warehouse (default: %(default)s)")
    prune.add_argument("--keep-recent", type=whole_number(0), default=None, metavar="N",
                       help="also keep the newest N runs whole, whatever they hold (default 10)")
    prune.add_argument("--dry-run", action="store_true", help="say what would be deleted, delete nothing")
    prune.set_defaults(func=run_prune)


def run_prune(args: argparse.Namespace) -> int:
    from .definitions import build_definitions
    from .runtime.instance import open_instance
    from .runtime.retention import DEFAULT_KEEP_RECENT, prune_superseded_runs

    check_keys = build_definitions(args.warehouse).resolve_asset_graph().asset_check_keys
    instance = open_instance(args.warehouse)
    try:
        keep = DEFAULT_KEEP_RECENT if args.keep_recent is None else args.keep_recent
        result = prune_superseded_runs(instance, check_keys, keep_recent=keep, dry_run=args.dry_run)
    finally:
        instance.dispose()
    print(f"duocthu prune: {result.summary()}")
    return 0
