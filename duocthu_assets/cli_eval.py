"""``duocthu eval COLLECTION [--compare KEY=VALUE ...] [--warehouse DIR] [--json]``.

Registered by ``duocthu_assets/cli.py`` like ``search``::

    from .cli_eval import add_eval_parser
    add_eval_parser(subparsers)          # sets func=run_eval

COLLECTION is a folder holding ``*.boundaries.json`` (and ``*.queries.json``)
gold files beside their documents (``data/inbox/formulary``), or naming
documents of the shared corpus (``eval/gold``: read from ``$DUOCTHU_CORPUS``
or ``../shared/corpus``; absent documents are skipped and named).

Exit codes: 0 report written; 1 no document could be scored; 2 bad arguments
or gold files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .cli_args import DEFAULT_WAREHOUSE, WAREHOUSE_ENV, whole_number



def _ks(value: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(v) for v in value.split(",") if v.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a comma-separated list of whole numbers") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError("every k must be at least 1")
    return ks



def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    from .evaluation.scoring import DEFAULT_TOLERANCE

    parser = subparsers.add_parser(
        "eval",
        help="score parsing, chunking and retrieval against hand-written gold",
        description=(
            "Ingest the documents of COLLECTION that have gold (*.boundaries.json, *.queries.json) into a "
            "warehouse of their own under <warehouse>/eval/<collection>/, and score boundary precision/recall/F1, "
            "section bleed, recall@k and MRR, time and tokens embedded per document. With --compare, build the "
            "collection a second time with the given settings and test the difference with McNemar's test. "
            "Writes report.md, report.png and report.json to <warehouse>/eval/<collection>/."
        ),
    )
    parser.add_argument("collection", metavar="COLLECTION", help="folder with the gold files (e.g. data/inbox/formulary, eval/gold)")
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for the second configuration (repeatable), e.g. chunk_size=250; "
        "search=dense|hybrid|lexical compares how queries are ranked, on the same build",
    )
    parser.add_argument("--warehouse", default=None, metavar="DIR", help=f"where the report goes (default: ${WAREHOUSE_ENV} or {DEFAULT_WAREHOUSE})")
    parser.add_argument("--corpus", default=None, metavar="DIR", help="where corpus documents are (default: $DUOCTHU_CORPUS or ../shared/corpus)")
    parser.add_argument("--name", default=None, help="collection name in the report path (default: the folder's name)")
    parser.add_argument("--ks", type=_ks, default=(1, 3, 5, 10), metavar="K,K,...", help="cut-offs for recall@k (default 1,3,5,10)")
    parser.add_argument(
        "--tolerance",
        type=whole_number(0),
        default=DEFAULT_TOLERANCE,
        metavar="N",
        help=f"normalized characters a predicted section start may be off by (default {DEFAULT_TOLERANCE})",
    )
    parser.add_argument("--reuse", action="store_true", help="keep earlier eval warehouses (unchanged documents are not rebuilt)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (schema duocthu.eval/1)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument(
        "--split", default="dev", choices=("dev", "held_out", "all"),
        help="question gold (a folder with questions.jsonl): which half to score (default dev; held_out once, at the end)",
    )
    parser.add_argument(
        "--fusion", action="append", default=[], metavar="METHOD[:W]",
        help="question gold: a hybrid fusion to score (repeatable), e.g. rrf:0.5, minmax:0.7 (default: the current one)",
    )
    parser.set_defaults(func=run_eval)
    return parser


def run_eval(args: argparse.Namespace, *, embedder: Any = None) -> int:
    if (Path(args.collection) / "questions.jsonl").is_file():
        return run_questions(args, embedder=embedder)
    from .evaluation.gold import GoldError
    from .evaluation.report import compare, report_json, write_report
    from .evaluation.runner import Config, run_collection

    warehouse = args.warehouse or os.environ.get(WAREHOUSE_ENV) or DEFAULT_WAREHOUSE
    out = None if args.quiet else sys.stderr
    corpus = [Path(args.corpus)] if args.corpus else None
    try:
        configs = [Config("baseline")]
        if args.compare:
            configs.append(Config.from_overrides(args.compare))
        runs = []
        for config in configs:
            # a configuration that only changes the search mode searches the baseline's warehouse
            shared = bool(runs) and config.slug == configs[0].slug
            runs.append(
                run_collection(
                    args.collection, warehouse, config, name=args.name, corpus_dirs=corpus, ks=args.ks,
                    tolerance=args.tolerance, reuse=args.reuse or shared, embedder=embedder, out=out,
                )
            )
    except (GoldError, ValueError, FileNotFoundError) as exc:
        print(f"duocthu eval: {exc}", file=sys.stderr)
        return 2
    comparison = compare(runs[0], runs[1]) if len(runs) == 2 else None
    report = report_json(runs, args.collection, comparison)
    folder = Path(runs[0].warehouse).parents[2]  # <warehouse>/eval/<collection>
    paths = write_report(report, folder)
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=1) + "\n")
    else:
        sys.stdout.write(_summary(report, paths))
    return 0 if any(r.scored() for r in runs) else 1


def _summary(report: dict[str, Any], paths: dict[str, Path]) -> str:
    ks = report["ks"]
    lines = []
    for run in report["runs"]:
        lines.append(f"[{run['config']}]")
        lines.append(f"{'document':<44} {'status':<8} {'bndF1':>6} {'bleed':>6} " + " ".join(f"{'R@' + str(k):>6}" for k in ks) + f" {'MRR':>6} {'sec':>6} {'tokens':>7}")
        for d in run["documents"] + [{"document": "all (pooled)", "status": "", **run["total"]}]:
            b, bl, r = d.get("boundary") or {}, d.get("bleed") or {}, d.get("retrieval") or {}

            def f(v: Any) -> str:
                return "–" if v is None else f"{v:.3f}"

            rec = r.get("recall_at") or {}
            lines.append(
                f"{d['document'][:44]:<44} {d.get('status', ''):<8} {f(b.get('f1')):>6} {f(bl.get('share')):>6} "
                + " ".join(f"{f(rec.get(str(k))):>6}" for k in ks)
                + f" {f(r.get('mrr')):>6} {('–' if d.get('seconds') is None else format(d['seconds'], '.1f')):>6} {d.get('tokens_embedded', 0):>7}"
            )
        lines.append("")
    if report.get("comparison"):
        c = report["comparison"]
        lines.append(f"McNemar, {c['a']} (A) vs {c['b']} (B):")
        for k, m in c["mcnemar"].items():
            lines.append(f"  @{k}: A {m['a_correct']}/{m['n']}, B {m['b_correct']}/{m['n']}, b={m['b']} c={m['c']} {m['method']} p={m['p_value']:.4f}")
        lines.append("")
    lines.append(f"report: {paths['md']} (+ {paths['png'].name}, {paths['json'].name})")
    return "\n".join(lines) + "\n"


def run_questions(args: argparse.Namespace, *, embedder: Any = None) -> int:
    """Question gold (``eval/legal_qa``): the questions of ``--split`` asked of
    the index of ``--warehouse`` (its documents ingested beforehand with
    ``duocthu ingest``) in every mode and each ``--fusion``; hit@1/5/10 and
    MRR overall and per kind, and hit@10 of each question as written and
    typed without accents. Writes ``<warehouse>/eval/<name>/questions-<split>.json``."""
    from .evaluation.questions import evaluate, load_questions
    from .retrieval import SearchError
    from .retrieval.query import DEFAULT_FUSION, Fusion

    warehouse = args.warehouse or os.environ.get(WAREHOUSE_ENV) or DEFAULT_WAREHOUSE
    try:
        questions = load_questions(args.collection, args.split)
        fusions = [Fusion.parse(f) for f in args.fusion] or [DEFAULT_FUSION]
        configs = [("dense", None), ("lexical", None)] + [("hybrid", f) for f in fusions]
        report = evaluate(warehouse, questions, configs, embedder=embedder)
    except (ValueError, OSError, SearchError) as exc:
        print(f"duocthu eval: {exc}", file=sys.stderr)
        return 2
    folder = Path(warehouse) / "eval" / (args.name or Path(args.collection).resolve().name)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"questions-{args.split}.json"
    path.write_text(json.dumps({"split": args.split, "questions": len(questions), "configs": report}, ensure_ascii=False, indent=1) + "\n")
    if args.json:
        sys.stdout.write(path.read_text())
        return 0
    lines = [f"{len(questions)} questions ({args.split})", f"{'config':<16} {'hit@1':>6} {'hit@5':>6} {'hit@10':>6} {'MRR':>6}  {'@10 written/folded':>18}"]
    for name, r in report.items():
        a, f = r["all"], r["as_written_vs_folded"]
        lines.append(f"{name:<16} {a['hit@1']:>6.3f} {a['hit@5']:>6.3f} {a['hit@10']:>6.3f} {a['mrr']:>6.3f}  {f['as_written_hit@10']:>8.3f}/{f['folded_hit@10']:.3f}")
    lines.append(f"report: {path}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
