"""OCR measured (issue 39): word accuracy, numbers lost, numbers read wrong,
numbers read wrong outside an uncertain span, and pages/s per core, per
file, for plain ``tesseract``, ``ocrmypdf`` + PyMuPDF and the pipeline.

    nice -n 10 .venv/bin/python bench/ocr.py [--split dev|held_out|fresh|real|all] [--readers tesseract ocrmypdf pipeline]
        [--floor 80] [--number-floor 93] [--no-rules] [--sweep] [--json bench/out/ocr/report.json] [--fresh]

Pages: synthetic scans of born-digital PDFs (``bench/ocr_scans.py``; their
text layer is the truth) in a development part and a held-out part, and the
corpus's real scans with the hand-made truth of ``eval/ocr_truth``. Readers
and their settings: ``bench/ocr_engines.py``; scoring: ``bench/ocr_score.py``.

Plain tesseract's words are marked uncertain by ``--floor``,
``--number-floor`` and the rules of ``bench/ocr_policy.py`` (the chosen
policy by default); the pipeline's by its own ``uncertain_spans``; ocrmypdf
marks none. ``--sweep`` scores every policy of ``ocr_policy.policies``
(floors alone, then with a floor for words holding a digit and the rules)
on the chosen split — the development part, for choosing — from one
reading of each page: numbers read wrong outside an uncertain span against
the share of words marked uncertain. The held-out part is for the final
figure only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ocr_engines
import ocr_gold
import ocr_policy
import ocr_run
import ocr_scans
from ocr_score import PageScore, align, ocr_tokens, score, tokens

FLOORS = (None, 30, 40, 50, 60, 65, 70, 75, 80, 85, 90, 93, 95)
LANGUAGES, DPI = "vie+eng", 300


def pages_for(split: str) -> list[ocr_scans.BenchPage]:
    if split == "fresh":
        return ocr_scans.make_synthetic(ocr_run.OUT / "scans", fresh=True)
    synthetic = ocr_scans.make_synthetic(ocr_run.OUT / "scans")
    real = ocr_scans.real_pages()
    if split == "real":
        return real
    if split == "all":
        return synthetic + real
    return [p for p in synthetic if p.split == split]


def flags_for(reader: str, words: list[dict], policy: dict) -> list[bool] | None:
    """Which words are uncertain: the pipeline's own marks; for plain
    tesseract the policy's (``ocr_policy.mark``); ocrmypdf marks none."""
    if reader == "pipeline":
        return [bool(w.get("uncertain")) for w in words]
    if reader == "tesseract":
        return ocr_policy.mark(words, **policy)
    return [False] * len(words)


def score_reader(
    pages, outputs: dict, reader: str, policy: dict
) -> dict[str, dict]:
    """Per page: the score, the CPU seconds, and the numbers not plainly right."""
    result = {}
    for page in pages:
        out = outputs.get(page.key)
        if out is None:
            continue
        toks, flags = ocr_tokens(out["words"], flags=flags_for(reader, out["words"], policy))
        examples: list = []
        s = score(page.truth, toks, flags, examples=examples)
        # a lifted block's words are withheld whole (shown as a crop): not in the share of words marked uncertain
        in_blocks = sum(len(tokens(w["text"])) for w in out["words"] if w.get("line") == "block")
        s.ocr_words -= in_blocks
        s.uncertain_words -= in_blocks
        result[page.key] = {
            "page": page,
            "score": s,
            "cpu_s": out["cpu_s"],
            "examples": examples,
        }
    return result


def per_file(scored: dict[str, dict]) -> dict[str, dict]:
    files: dict[str, dict] = {}
    for row in scored.values():
        entry = files.setdefault(
            row["page"].file, {"score": PageScore(), "cpu_s": 0.0, "pages": 0}
        )
        entry["score"].add(row["score"])
        entry["cpu_s"] += row["cpu_s"]
        entry["pages"] += 1
    return files


def sweep(pages, outputs: dict) -> list[dict]:
    """One alignment per page, scored under every policy of ``ocr_policy``."""
    aligned = {}
    for page in pages:
        out = outputs.get(page.key)
        if out is None:
            continue
        toks, _ = ocr_tokens(out["words"])
        aligned[page.key] = (page, out, align(tokens(page.truth), toks))
    rows = []
    for name, policy in ocr_policy.policies(FLOORS).items():
        total = PageScore()
        for page, out, pairs in aligned.values():
            toks, flags = ocr_tokens(out["words"], flags=policy(out["words"]))
            total.add(score(page.truth, toks, flags, pairs=pairs))
        rows.append({"policy": name, **summary(total)})
    return rows


def summary(s: PageScore) -> dict:
    return {
        "truth_words": s.truth_words,
        "word_accuracy": round(s.word_accuracy, 4),
        "folded_accuracy": round(s.folded_accuracy, 4),
        "inserted": s.inserted,
        "uncertain_share": round(s.uncertain_share, 4),
        "numbers": s.numbers,
        "correct": s.correct,
        "correct_withheld": s.correct_withheld,
        "lost": s.lost,
        "wrong": s.wrong,
        "wrong_withheld": s.wrong_withheld,
        "invented": s.invented,
        "invented_withheld": s.invented_withheld,
        "wrong_outside": s.wrong_outside,
    }


def table_files(files_by_reader: dict[str, dict[str, dict]]) -> str:
    head = (
        "| file | reader | pages | word acc. | numbers | lost | wrong | invented | wrong outside uncertain "
        "| withheld (right/wrong) | words uncertain | CPU s/page |"
    )
    lines = [head, "|" + "---|" * 12]
    names = sorted({f for files in files_by_reader.values() for f in files})
    for name in names:
        for reader, files in files_by_reader.items():
            if name not in files:
                continue
            e = files[name]
            s = e["score"]
            lines.append(
                f"| `{name}` | {reader} | {e['pages']} | {100 * s.word_accuracy:.1f} % | {s.numbers} | {s.lost} "
                f"| {s.wrong} | {s.invented} | {s.wrong_outside} | {s.correct_withheld}/{s.wrong_withheld + s.invented_withheld} "
                f"| {100 * s.uncertain_share:.1f} % | {e['cpu_s'] / e['pages']:.1f} |"
            )
    return "\n".join(lines)


def table_totals(files_by_reader: dict[str, dict[str, dict]]) -> str:
    """All files of the split together, per reader, and pages/s per core."""
    lines = [("| reader | pages | word acc. | tone-insensitive | numbers | lost | wrong | invented | wrong outside uncertain "
             "| right numbers withheld | words uncertain | CPU s/page | pages/s per core |"), "|" + "---|" * 13]
    for reader, files in files_by_reader.items():
        total, cpu, pages = PageScore(), 0.0, 0
        for e in files.values():
            total.add(e["score"])
            cpu += e["cpu_s"]
            pages += e["pages"]
        if not pages:
            continue
        lines.append(
            f"| {reader} | {pages} | {100 * total.word_accuracy:.1f} % | {100 * total.folded_accuracy:.1f} % | {total.numbers} "
            f"| {total.lost} | {total.wrong} "
            f"| {total.invented} | {total.wrong_outside} | {total.correct_withheld} | {100 * total.uncertain_share:.1f} % "
            f"| {cpu / pages:.2f} | {pages / cpu:.2f} |"
        )
    return "\n".join(lines)


def table_by_dpi(scored_by_reader: dict[str, dict[str, dict]]) -> str:
    """Synthetic pages grouped by the dpi they were scanned at."""
    lines = ["| reader | scan dpi | pages | word acc. | numbers | lost | wrong | wrong outside |", "|" + "---|" * 8]
    for reader, scored in scored_by_reader.items():
        groups: dict[int, list] = {}
        for row in scored.values():
            if row["page"].kind == "synthetic":
                groups.setdefault(row["page"].params["dpi"], []).append(row["score"])
        for dpi in sorted(groups):
            total = PageScore()
            for s in groups[dpi]:
                total.add(s)
            lines.append(f"| {reader} | {dpi} | {len(groups[dpi])} | {100 * total.word_accuracy:.1f} % | {total.numbers} "
                         f"| {total.lost} | {total.wrong} | {total.wrong_outside} |")
    return "\n".join(lines)


def table_sweep(rows: list[dict]) -> str:
    lines = [
        (
            "| policy | words uncertain | numbers wrong outside | of which invented | numbers withheld (right/wrong) "
            "| numbers lost | word acc. |"
        ),
        "|" + "---|" * 7,
    ]
    for r in rows:
        outside_invented = r["invented"] - r["invented_withheld"]
        lines.append(
            f"| {r['policy']} | {100 * r['uncertain_share']:.1f} % | {r['wrong_outside']} | {outside_invented} "
            f"| {r['correct_withheld']}/{r['wrong_withheld'] + r['invented_withheld']} | {r['lost']} "
            f"| {100 * r['word_accuracy']:.1f} % |"
        )
    return "\n".join(lines)


def examples_outside(scored: dict[str, dict], limit: int = 40) -> list[str]:
    """The numbers read wrong outside an uncertain span, page by page."""
    lines = []
    for key, row in scored.items():
        for kind, truth, read, unsure in row["examples"]:
            if kind in ("wrong", "invented") and not unsure:
                lines.append(f"{key}: {kind} {truth!r} -> {read!r}")
    return lines[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--split", default="dev", choices=("dev", "held_out", "fresh", "real", "all")
    )
    ap.add_argument(
        "--readers", nargs="+", default=list(ocr_run.READERS), choices=ocr_run.READERS
    )
    ap.add_argument("--floor", type=float, default=80.0, help="plain tesseract's word floor (80)")
    ap.add_argument("--number-floor", type=float, default=93.0, help="for words holding a digit (93)")
    ap.add_argument("--no-rules", action="store_true", help="without the neighbours/split/confusable rules")
    ap.add_argument("--sweep", action="store_true", help="score every policy of ocr_policy.policies")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--fresh", action="store_true", help="OCR again instead of reading the cache"
    )
    args = ap.parse_args()
    readers = [
        r for r in args.readers if r != "pipeline" or ocr_engines.pipeline_available()
    ]
    pages = pages_for(args.split)
    rules = not args.no_rules
    policy = {"floor": args.floor, "number_floor": args.number_floor, "neighbours": rules, "split": rules,
              "confusable": rules}
    print(
        f"{len(pages)} pages ({args.split}); readers {readers}; load {os.getloadavg()[0]:.1f}",
        file=sys.stderr,
    )
    outputs = ocr_run.run_all(
        pages,
        tuple(readers),
        LANGUAGES,
        DPI,
        args.fresh,
        log=lambda m: print(m, file=sys.stderr, flush=True),
    )
    report: dict = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "split": args.split,
        "policy": policy,
        # the commits the pipeline's cached readings were made with
        "pipeline_commits": sorted({o.get("commit", "?") for o in outputs.get("pipeline", {}).values()}),
        "load": os.getloadavg(),
        "tesseract": ocr_engines.tesseract_version(),
        "ocrmypdf": ocr_engines.ocrmypdf_version(),
        "files": {},
        "sweep": {},
    }
    files_by_reader, scored_by_reader = {}, {}
    for reader in readers:
        scored = scored_by_reader[reader] = score_reader(pages, outputs[reader], reader, policy)
        files_by_reader[reader] = per_file(scored)
        report["files"][reader] = {
            f: {
                **summary(e["score"]),
                "pages": e["pages"],
                "cpu_s": round(e["cpu_s"], 2),
            }
            for f, e in files_by_reader[reader].items()
        }
        report.setdefault("wrong_outside_examples", {})[reader] = examples_outside(
            scored
        )
    print(table_files(files_by_reader))
    print("\n" + table_totals(files_by_reader))
    if args.split != "real":
        print("\n" + table_by_dpi(scored_by_reader))
    if "pipeline" in readers:
        report["structure"] = ocr_gold.structure(pages, outputs["pipeline"])
        print("\npipeline structure:", json.dumps(report["structure"], ensure_ascii=False, indent=1))
    if args.sweep:
        for reader in readers:
            if reader == "ocrmypdf":
                continue
            report["sweep"][reader] = sweep(pages, outputs[reader])
            print(f"\n{reader}, {args.split}:\n" + table_sweep(report["sweep"][reader]))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(report, ensure_ascii=False, indent=1, default=str),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
