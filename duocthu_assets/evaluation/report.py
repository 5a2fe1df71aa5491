"""The evaluation report: JSON (``duocthu.eval/1``), Markdown, and a PNG plot,
written to ``<warehouse>/eval/<collection>/``."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Sequence

from .runner import DocumentRun, EvalRun
from .scoring import prf
from .significance import mcnemar

REPORT_SCHEMA = "duocthu.eval/1"
ALPHA = 0.05


def _r(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)


# -- JSON -------------------------------------------------------------------------------


def document_json(d: DocumentRun) -> dict[str, Any]:
    out: dict[str, Any] = {
        "document": d.document,
        "doc_id": d.doc_id,
        "path": d.path,
        "status": d.status,
        "reason": d.reason,
        "seconds": _r(d.seconds, 2),
        "chunks": d.chunks,
        "tokens_embedded": d.tokens_embedded,
        "vectors_computed": d.vectors_computed,
        "gold": {
            "boundaries": len(d.gold.boundaries) if d.gold else 0,
            "queries": len(d.gold.queries) if d.gold else 0,
            "made_by": d.gold.made_by if d.gold else "",
        },
    }
    s = d.scores
    if s is None:
        out.update(boundary=None, bleed=None, retrieval=None, queries=[])
        return out
    b = s.boundary
    out["boundary"] = {
        "precision": _r(b.precision), "recall": _r(b.recall), "f1": _r(b.f1),
        "tp": b.tp, "fp": b.fp, "fn": b.fn, "split": b.split,
        "gold_starts": len(s.located.starts), "predicted_starts": len(s.predicted),
        "unlocated": s.located.unlocated, "scope_problems": s.located.scope_problems,
        "missed": [{"id": i, "title": t} for i, t in s.missed], "spurious": s.spurious,
    }
    out["bleed"] = {
        "share": _r(s.bleed.share), "bleeding": s.bleed.bleeding, "chunks": s.bleed.chunks,
        "examples": [{"chunk_id": c, "sections": list(ids)} for c, ids in s.bleed.examples],
    }
    r = s.retrieval
    out["retrieval"] = None if r is None else {
        "n": r.n, "recall_at": {str(k): _r(v) for k, v in r.recall_at.items()}, "mrr": _r(r.mrr),
        "unanswerable": r.unanswerable,
    }
    out["queries"] = [
        {"id": q.id, "query": q.query, "sections": list(q.sections), "relevant_chunks": q.relevant,
         "first_relevant_rank": q.first_relevant, "top_hit": q.top_hit}
        for q in s.queries
    ]
    return out


def totals(run: EvalRun) -> dict[str, Any]:
    """Pooled over documents: boundaries micro-averaged (summed tp/fp/fn),
    bleed over all chunks, retrieval over all gold queries (a query of a
    document that failed or was rejected is a miss; one whose document is
    absent from this machine is left out)."""
    scored = run.scored()
    tp = sum(d.scores.boundary.tp for d in scored)
    fp = sum(d.scores.boundary.fp for d in scored)
    fn = sum(d.scores.boundary.fn for d in scored)
    precision, recall, f1 = prf(tp, fp, fn) if scored else (None, None, None)
    bleeding = sum(d.scores.bleed.bleeding for d in scored)
    chunks = sum(d.scores.bleed.chunks for d in scored)
    firsts: list[int | None] = []
    for d in run.documents:
        if d.gold is None or not d.gold.queries or d.status == "missing":  # absent document: skipped, not a miss
            continue
        if d.scores is not None and d.scores.retrieval is not None:
            firsts.extend(d.scores.retrieval.first_relevant)
        else:
            firsts.extend([None] * len(d.gold.queries))
    n = len(firsts)
    return {
        "documents": len(run.documents),
        "scored": len(scored),
        "boundary": {"precision": _r(precision), "recall": _r(recall), "f1": _r(f1), "tp": tp, "fp": fp, "fn": fn},
        "bleed": {"share": _r(bleeding / chunks if chunks else None), "bleeding": bleeding, "chunks": chunks},
        "retrieval": {
            "n": n,
            "recall_at": {str(k): _r(sum(1 for f in firsts if f is not None and f <= k) / n if n else None) for k in run.ks},
            "mrr": _r(sum(1.0 / f for f in firsts if f is not None) / n if n else None),
        },
        "seconds": _r(sum(d.seconds or 0 for d in run.documents), 2),
        "tokens_embedded": sum(d.tokens_embedded for d in run.documents),
    }


def run_json(run: EvalRun) -> dict[str, Any]:
    return {
        "config": run.config.label,
        "overrides": dict(run.config.overrides),
        "settings": run.settings,
        "warehouse": run.warehouse,
        "seconds": _r(run.seconds, 2),
        "documents": [document_json(d) for d in run.documents],
        "total": totals(run),
        "notes": run.notes,
    }


def compare(a: EvalRun, b: EvalRun) -> dict[str, Any]:
    """McNemar per k on per-query correctness (answered within k), A vs B."""
    result: dict[str, Any] = {"a": a.config.label, "b": b.config.label, "mcnemar": {}}
    for k in a.ks:
        qa, qb = a.query_correct(k), b.query_correct(k)
        if [q for q, _ in qa] != [q for q, _ in qb]:
            raise ValueError("the two configurations were not scored on the same queries")
        ca, cb = [c for _, c in qa], [c for _, c in qb]
        m = mcnemar(ca, cb)
        result["mcnemar"][str(k)] = {
            "n": m.n, "a_correct": sum(ca), "b_correct": sum(cb),
            "b": m.b, "c": m.c, "statistic": _r(m.statistic, 4), "p_value": _r(m.p_value, 4), "method": m.method,
            "significant": m.p_value < ALPHA,
        }
    return result


def report_json(runs: Sequence[EvalRun], collection_dir: str, comparison: dict[str, Any] | None) -> dict[str, Any]:
    first = runs[0]
    return {
        "schema": REPORT_SCHEMA,
        "collection": first.collection,
        "collection_dir": collection_dir,
        "generated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "ks": list(first.ks),
        "tolerance": first.tolerance,
        "runs": [run_json(r) for r in runs],
        "comparison": comparison,
    }


# -- Markdown ----------------------------------------------------------------------------


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(run: dict[str, Any], ks: list[int]) -> list[str]:
    head = ["document", "status", "bnd P", "bnd R", "bnd F1", "bleed"] + [f"R@{k}" for k in ks] + ["MRR", "queries", "chunks", "seconds", "tokens embedded"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|"]
    rows = run["documents"] + [{"document": "**all (pooled)**", "status": "", **run["total"]}]
    for d in rows:
        b, bl, r = d.get("boundary") or {}, d.get("bleed") or {}, d.get("retrieval") or {}
        rec = r.get("recall_at") or {}
        bleed = "–" if bl.get("share") is None else f"{bl['share']:.3f} ({bl['bleeding']}/{bl['chunks']})"
        cells = [d["document"], d.get("status", ""), _f(b.get("precision")), _f(b.get("recall")), _f(b.get("f1")), bleed]
        cells += [_f(rec.get(str(k))) for k in ks]
        cells += [_f(r.get("mrr")), _f(r.get("n")), _f(d.get("chunks")), _f(d.get("seconds"), 1), _f(d.get("tokens_embedded"))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _details(run: dict[str, Any], ks: list[int]) -> list[str]:
    lines = []
    kmax = max(ks)
    for d in run["documents"]:
        lines.append(f"#### {d['document']}")
        lines.append("")
        if d.get("reason"):
            lines.append(f"- status **{d['status']}**: {d['reason']}")
        b = d.get("boundary")
        if b is None:
            lines.append("- not scored")
            lines.append("")
            continue
        lines.append(
            f"- boundaries: {b['gold_starts']} gold starts located, {b['predicted_starts']} predicted; "
            f"tp {b['tp']}, fp {b['fp']}, fn {b['fn']}, split headings forgiven {b['split']}"
        )
        if b["unlocated"]:
            lines.append(f"- gold anchors not found in the canonical text ({len(b['unlocated'])}): {', '.join(b['unlocated'])}")
        for problem in b["scope_problems"]:
            lines.append(f"- scope: {problem}")
        if b["missed"]:
            shown = "; ".join(f"`{m['id']}` {m['title']}" for m in b["missed"][:12])
            more = f" (+{len(b['missed']) - 12} more)" if len(b["missed"]) > 12 else ""
            lines.append(f"- gold starts with no predicted heading: {shown}{more}")
        if b["spurious"]:
            shown = "; ".join(f"“{s}”" for s in b["spurious"][:8])
            more = f" (+{len(b['spurious']) - 8} more)" if len(b["spurious"]) > 8 else ""
            lines.append(f"- predicted headings at no gold start: {shown}{more}")
        for ex in d["bleed"]["examples"]:
            lines.append(f"- bleeding chunk `{ex['chunk_id']}` covers {', '.join(ex['sections'])}")
        missed_q = [q for q in d["queries"] if q["first_relevant_rank"] is None]
        for q in missed_q:
            why = " (no chunk of the document answers it)" if q["relevant_chunks"] == 0 else ""
            lines.append(f"- query `{q['id']}` not answered in the top {kmax}{why}: “{q['query']}” → top hit `{q['top_hit']}`")
        lines.append("")
    return lines


def render_markdown(report: dict[str, Any], png_name: str = "report.png") -> str:
    ks = report["ks"]
    lines = [
        f"# Evaluation — {report['collection']}",
        "",
        f"Generated {report['generated']} by `duocthu eval {report['collection_dir']}`.",
        "",
        "How to read it:",
        "",
        f"- **bnd P/R/F1**: the pipeline's headings against the hand-written gold section starts, matched one-to-one "
        f"within {report['tolerance']} normalized characters (letters and digits; markup, punctuation and spacing never count). "
        "A heading split over two lines counts once.",
        "- **bleed**: share of chunks whose spans cover text from more than one gold section (chunks/with text in scope).",
        f"- **R@k**: share of gold queries answered by one of the top k hits of `duocthu search` over the whole collection "
        "(a hit answers when most of its text lies in the gold section, or it holds 90 % of that section, or it contains the gold passage); "
        f"**MRR**: mean reciprocal rank of the first answering hit (MRR@{max(ks)}).",
        "- **seconds**: wall time of `duocthu ingest` for that document alone (includes Dagster's fixed cost per run); "
        "**tokens embedded**: cl100k tokens of the document's chunks.",
        "",
    ]
    for run in report["runs"]:
        overrides = ", ".join(f"{k}={v}" for k, v in run["overrides"].items()) or "the collection's own settings"
        s = run["settings"]
        lines += [
            f"## Configuration `{run['config']}`",
            "",
            f"Settings: {overrides} (profile {s.get('profile')}, chunk_size {s.get('chunk_size')}, "
            f"chunk_overlap {s.get('chunk_overlap')}, max_chunk_tokens {s.get('max_chunk_tokens')}); "
            f"warehouse `{run['warehouse']}`; {run['seconds']} s in all.",
            "",
            *_table(run, ks),
            "",
        ]
        for note in run["notes"]:
            lines.append(f"- note: {note}")
        if run["notes"]:
            lines.append("")
        lines += ["### Details", "", *_details(run, ks)]
    comparison = report.get("comparison")
    if comparison:
        lines += [
            f"## Comparison: `{comparison['a']}` (A) vs `{comparison['b']}` (B)",
            "",
            "McNemar's test on the same queries: b = answered by A only, c = answered by B only; "
            "exact two-sided binomial when b + c < 25, continuity-corrected chi-square otherwise.",
            "",
            "| k | queries | A answered | B answered | b | c | method | p | significant at 0.05 |",
            "|---:|---:|---:|---:|---:|---:|---|---:|---|",
        ]
        for k, m in comparison["mcnemar"].items():
            lines.append(
                f"| {k} | {m['n']} | {m['a_correct']} | {m['b_correct']} | {m['b']} | {m['c']} | {m['method']} | "
                f"{m['p_value']:.4f} | {'yes' if m['significant'] else 'no'} |"
            )
        lines.append("")
    lines += [f"![evaluation plot]({png_name})", ""]
    return "\n".join(lines)


# -- plot ------------------------------------------------------------------------------------


def render_png(report: dict[str, Any], path: Path) -> None:
    """Per-document bars (one row per configuration) and pooled recall@k curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec

    ks = report["ks"]
    runs = report["runs"]
    metrics = [("boundary F1", lambda d: d["boundary"]["f1"]), ("bleed", lambda d: d["bleed"]["share"]),
               (f"R@{ks[0]}", lambda d: (d["retrieval"] or {}).get("recall_at", {}).get(str(ks[0]))),
               (f"R@{ks[-1]}", lambda d: (d["retrieval"] or {}).get("recall_at", {}).get(str(ks[-1]))),
               ("MRR", lambda d: (d["retrieval"] or {}).get("mrr"))]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig = plt.figure(figsize=(13, 1.0 + 3.6 * len(runs)))
    grid = GridSpec(len(runs), 2, figure=fig, width_ratios=[2.2, 1])
    width = 0.8 / len(metrics)
    for row, run in enumerate(runs):
        ax = fig.add_subplot(grid[row, 0])
        docs = [d for d in run["documents"] if d.get("boundary") is not None]
        for i, (label, get) in enumerate(metrics):
            values = [get(d) or 0.0 for d in docs]
            xs = [j + (i - (len(metrics) - 1) / 2) * width for j in range(len(docs))]
            ax.bar(xs, values, width, label=label, color=colors[i % len(colors)])
        ax.set_xticks(range(len(docs)))
        ax.set_xticklabels([d["document"][:30] for d in docs], fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"per document — {run['config']}", fontsize=10)
        if row == 0:
            ax.legend(fontsize=8, ncol=len(metrics), loc="lower center", bbox_to_anchor=(0.5, 1.08))
    ax2 = fig.add_subplot(grid[:, 1])
    for run in runs:
        rec = run["total"]["retrieval"]["recall_at"]
        ys = [rec.get(str(k)) or 0.0 for k in ks]
        ax2.plot(ks, ys, marker="o", label=f"{run['config']} (MRR {_f(run['total']['retrieval']['mrr'])})")
    ax2.set_xticks(ks)
    ax2.set_ylim(0, 1.05)
    ax2.set_xlabel("k")
    ax2.set_ylabel("recall@k (all queries)")
    title = "recall@k, pooled"
    comparison = report.get("comparison")
    if comparison:
        k0 = str(ks[0])
        title += f"\nMcNemar@{k0}: p = {comparison['mcnemar'][k0]['p_value']:.3f}"
    ax2.set_title(title, fontsize=10)
    ax2.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(report: dict[str, Any], folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"json": folder / "report.json", "md": folder / "report.md", "png": folder / "report.png"}
    paths["json"].write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    paths["md"].write_text(render_markdown(report, paths["png"].name), encoding="utf-8")
    render_png(report, paths["png"])
    return paths
