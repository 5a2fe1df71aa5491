"""The GraphQL queries the Dagster UI sends for an asset's Partitions tab and
Checks tab, timed against a real ``dagster-webserver`` (bench/scale_partitions.py).

The query texts are read from the installed dagster-webserver's own bundle
(``webapp/build/_next/static/chunks/*.js``), each with the fragments it
spreads, so they are what the UI of this Dagster version sends:

- Partitions tab: ``PartitionHealthQuery`` (the partition bar: every key and
  its status), ``AssetPartitionDetailQuery`` (one partition's panel);
- Checks tab: ``AssetChecksQuery`` (the list of the asset's checks),
  ``AssetCheckPartitionHealthQuery`` (a check's partition bar),
  ``AssetCheckPartitionDetailQuery`` (one partition of a check).
"""

from __future__ import annotations

import re
import sys
import time
from functools import lru_cache
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUERIES = {
    "partitions_tab": ("PartitionHealthQuery", "AssetPartitionDetailQuery"),
    "checks_tab": ("AssetChecksQuery", "AssetCheckPartitionHealthQuery", "AssetCheckPartitionDetailQuery"),
}
ASSET, CHECK, PARTITION = "chunks", "chunk_over_max_tokens", "doc_000000.csv"


@lru_cache(maxsize=1)
def _documents() -> dict[str, str]:
    """name -> text of every query and fragment in the webserver's bundle."""
    import dagster_webserver

    texts: dict[str, str] = {}
    literal = re.compile(r'"(?:[^"\\\n]|\\.)*?\\n  (?:query|fragment) (?:[^"\\\n]|\\.)*"')
    for js in (Path(dagster_webserver.__file__).parent / "webapp" / "build").rglob("*.js"):
        source = js.read_text(errors="ignore")
        if "\\n  fragment " not in source and "\\n  query " not in source:
            continue
        for match in literal.finditer(source):
            text = bytes(match.group(0)[1:-1], "utf-8").decode("unicode_escape")
            # a literal may hold several definitions, each starting its line
            starts = [m.start() for m in re.finditer(r"(?m)^  (?:query|fragment) \w+", text)]
            for at, end in zip(starts, [*starts[1:], len(text)]):
                definition = text[at:end]
                texts.setdefault(re.match(r"  (?:query|fragment) (\w+)", definition).group(1), definition)
    return texts


def ui_query(name: str) -> str:
    """The query ``name`` with every fragment it spreads, transitively."""
    texts, wanted, seen = _documents(), [name], []
    while wanted:
        current = wanted.pop()
        if current in seen:
            continue
        if current not in texts:
            raise KeyError(f"{current} not in the installed dagster-webserver's bundle")
        seen.append(current)
        wanted.extend(re.findall(r"\.\.\.([A-Z]\w+)", texts[current]))
    return "\n".join(texts[n] for n in seen)


def _variables(name: str) -> dict:
    key = {"path": [ASSET]}
    return {
        "PartitionHealthQuery": {"assetKey": key},
        "AssetPartitionDetailQuery": {"assetKey": key, "partitionKey": PARTITION},
        "AssetChecksQuery": {"assetKey": key},
        "AssetCheckPartitionHealthQuery": {"assetKey": key, "checkName": CHECK},
        "AssetCheckPartitionDetailQuery": {"assetKey": key, "checkName": CHECK, "partitionKey": PARTITION},
    }[name]


def ui_query_timings(warehouse: Path, repeat: int) -> dict:
    """Each query ``repeat`` times (seconds, as the browser waits), after one
    untimed round that loads the code location; plus what it answered."""
    from tests.support.ui_helpers import dagster_webserver, free_port

    server = dagster_webserver(warehouse, free_port(), warehouse.parent / "web.log").start(timeout=600)
    out: dict = {}
    try:
        for tab, names in QUERIES.items():
            for name in names:
                query, variables = ui_query(name), _variables(name)
                times, answer = [], None
                for attempt in range(repeat + 1):
                    started = time.perf_counter()
                    response = requests.post(f"{server.url}/graphql", json={"query": query, "variables": variables}, timeout=1800)
                    if attempt:
                        times.append(round(time.perf_counter() - started, 3))
                    answer = response.json()
                out[f"{tab}:{name}"] = {"seconds": times, "bytes": len(response.content), "errors": answer.get("errors"),
                                        "shape": _shape(answer)}
    finally:
        server.stop()
    return out


def _shape(answer: dict) -> str:
    """A short proof of what came back (partition counts), not the payload."""
    text = str(answer.get("data"))
    counts = {k: len(v) for k, v in _lists(answer.get("data")) if len(v) > 2}
    return str(counts)[:300] if counts else text[:200]


def _lists(node, path=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _lists(v, f"{path}.{k}")
    elif isinstance(node, list):
        if node and all(isinstance(x, str) for x in node):
            yield path, node
        for x in node:
            if isinstance(x, (dict, list)):
                yield from _lists(x, path)
