"""The PDF stage's CPU time on two checkouts of this repository, interleaved.

    .venv/bin/python bench/ab_parse.py BEFORE_TREE AFTER_TREE [--rounds 5]

Each round parses every corpus PDF once in a fresh child process per tree
(``PYTHONPATH`` set to that tree), the trees taking turns, so the drift of a
shared machine weighs on both alike; the best and median per tree are
reported. For a change meant to leave the stage's speed alone (a refactor).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from duocthu_assets.evaluation.runner import default_corpus_dirs

CHILD = r"""
import json, sys, time
from pathlib import Path
from duocthu_assets.formats import detect_format
from duocthu_assets.parse import DocumentRejected, ParseFailed, parse_document
from duocthu_assets.settings import Settings
settings = Settings()
files = sorted(p for p in Path(sys.argv[1]).iterdir() if p.suffix.lower() == ".pdf")
datas = [p.read_bytes() for p in files]
start = time.process_time()
for data in datas:
    try:
        parse_document(data, detect_format(data), settings)
    except (DocumentRejected, ParseFailed):
        pass
print(json.dumps({"cpu_ms": (time.process_time() - start) * 1000, "files": len(files)}))
"""
DEFAULT_CORPUS = default_corpus_dirs()[0]  # $DUOCTHU_CORPUS, else ../shared/corpus


def run(tree: Path, corpus: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", CHILD, str(corpus)], env=env, capture_output=True, text=True, check=True, cwd=tree)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args(argv)
    times: dict[str, list[float]] = {"before": [], "after": []}
    files = 0
    for i in range(args.rounds):
        order = [("before", args.before), ("after", args.after)]
        for name, tree in order if i % 2 == 0 else order[::-1]:
            result = run(tree.resolve(), args.corpus)
            times[name].append(result["cpu_ms"])
            files = result["files"]
    print(f"{files} corpus PDFs, {args.rounds} interleaved rounds, CPU ms of the PDF stage")
    for name, values in times.items():
        print(f"  {name:6}  best {min(values):8.0f}  median {statistics.median(values):8.0f}")
    ratio = min(times["after"]) / min(times["before"])
    print(f"  after / before (best): {ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
