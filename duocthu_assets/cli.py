"""The `duocthu` command: ingest, search, serve, eval, prune."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .resources import default_warehouse_root
from .settings import Profile


def _ingest(args: argparse.Namespace) -> int:
    from .ingest.run import ingest
    from .ingest.errors import disk_full_message, unwritable_message
    from .ingest.plan import IngestSettingError

    try:
        result = ingest(args.paths, args.warehouse, profile=args.profile, show_progress=not args.quiet)
    except (FileNotFoundError, IngestSettingError) as exc:
        print(f"duocthu ingest: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        said = disk_full_message(exc, args.warehouse) or unwritable_message(exc, args.warehouse)
        if said is None:
            raise
        print(f"duocthu ingest: {said}", file=sys.stderr)
        _write_report(args.report, json.dumps({"warehouse": args.warehouse, "error": said, "documents": [], "problems": []},
                                              ensure_ascii=False, indent=2))
        return 3
    if args.report:  # encoded only when asked for: 3 s of a one-document add at 100,000 documents
        _write_report(args.report, result.to_json())
    return 0 if result.all_ok else 1


def _write_report(report: str | None, text: str) -> None:
    """``--report FILE``, also when the ingest stopped (a full disk): the
    file then says why, and a script reading it is not left with none."""
    if not report:
        return
    try:
        Path(report).parent.mkdir(parents=True, exist_ok=True)
        Path(report).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"duocthu ingest: the report {report} could not be written: {exc.strerror or exc}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="duocthu", description="Documents to retrieval-ready chunks, nothing silently lost.")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="materialize every asset for the given files or folders")
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument("--warehouse", default=default_warehouse_root(), help="output folder (default: %(default)s)")
    ingest.add_argument("--profile", choices=[p.value for p in Profile], help="override the collections' profile")
    ingest.add_argument("--report", metavar="FILE", help="write the per-document summary as JSON")
    ingest.add_argument("--quiet", action="store_true", help="no progress lines")
    ingest.set_defaults(func=_ingest)

    from .cli_search import add_search_parser, add_serve_parser

    add_search_parser(sub)
    add_serve_parser(sub)

    from .cli_eval import add_eval_parser

    add_eval_parser(sub)

    from .cli_prune import add_prune_parser

    add_prune_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
