"""Which runs an ingest round makes: documents needing the same assets, in
contiguous ranges of partitions; large ranges cut into one part per worker
process, their embeddings left to the next round (see :mod:`.ingest`).

Pure: no Dagster, no warehouse; the runs are made by :mod:`.rounds`.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

INGEST_ASSETS = ("raw_documents", "segments", "lifted_blocks", "parsed_documents", "crops", "chunks", "embeddings")
EMBEDDING_ASSET = "embeddings"
WORKERS_ENV = "DUOCTHU_INGEST_WORKERS"
SPLIT_AT = 40  # documents; a smaller range is not worth a process (its run costs ~1 s to set up)
# documents in one run at most: a run's process keeps every event of the run
# until it ends (Dagster's in-process result), so its memory, and the plan it
# writes first, grow with the run; cut here they are bounded whatever the inbox
MAX_RUN_DOCUMENTS = 1000
# a file this large runs alone, after the others of its round: whatever it
# costs (up to its own time and memory budgets), the small ones beside it
# are not in its run and are started first
LARGE_DOCUMENT_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class PlannedRun:
    keys: tuple[str, ...]
    assets: frozenset[str]

    @property
    def embeds(self) -> bool:
        return EMBEDDING_ASSET in self.assets


class IngestSettingError(ValueError):
    """A setting of `duocthu ingest` that cannot be used, said so the user can fix it."""


def ingest_workers() -> int:
    configured = os.environ.get(WORKERS_ENV, "").strip()
    if not configured:
        return max(1, min(2, os.cpu_count() or 1))
    if not configured.isdigit():
        raise IngestSettingError(f"{WORKERS_ENV} must be a whole number of worker processes (1 = no parallel runs), not {configured!r}")
    return max(1, int(configured))


def split_evenly(keys: list[str], parts: int) -> list[list[str]]:
    size, extra = divmod(len(keys), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(keys[start:end])
        start = end
    return [part for part in out if part]


def plan_runs(
    remaining: dict[str, frozenset[str]], order: list[str], workers: int, apart: Iterable[str] = (),
    alone: Iterable[str] = (),
) -> list[PlannedRun]:
    """This round's runs: documents needing the same assets, in contiguous
    ranges. Documents in ``apart`` (refused on sight) get ranges of their own,
    so their failing check skips nobody else's stages. When ranges of at
    least ``SPLIT_AT // 2`` documents add up to ``SPLIT_AT`` or more and
    stages before embedding remain, those ranges run without their embeddings
    (they follow next round), each cut into as many parts as it holds
    workers' shares. No run holds more than ``MAX_RUN_DOCUMENTS``. Each
    document in ``alone`` (a large file) gets a run of its own after all the
    others, its embedding left to the next round like a large range's."""
    apart, alone = set(apart), set(alone) - set(apart)
    groups: dict[tuple[frozenset[str], bool], list[str]] = defaultdict(list)
    last = []
    for doc in sorted(alone & remaining.keys(), key=order.index):
        assets = remaining[doc]
        before_embedding = assets - {EMBEDDING_ASSET}
        last.append(PlannedRun((doc,), before_embedding if workers > 1 and before_embedding else assets))
    for doc, assets in remaining.items():
        if doc not in alone:
            groups[(assets, doc in apart)].append(doc)
    planned = []
    for (assets, refused), docs in groups.items():
        ranges = contiguous_ranges(docs, order)
        before_embedding = assets - {EMBEDDING_ASSET}
        if refused and before_embedding:
            # they stop at raw_documents; were the guess wrong, they embed next round
            planned += [PlannedRun(tuple(keys), before_embedding) for keys in ranges]
            continue
        large = [len(keys) >= SPLIT_AT // 2 for keys in ranges]
        in_large = sum(len(keys) for keys, is_large in zip(ranges, large) if is_large)
        parallel = workers > 1 and bool(before_embedding) and in_large >= SPLIT_AT
        share = -(-in_large // workers)  # documents per worker, rounded up
        for keys, is_large in zip(ranges, large):
            if parallel and is_large:
                parts = split_evenly(keys, max(1, round(len(keys) / share)))
                planned += [PlannedRun(tuple(part), before_embedding) for part in parts]
            else:
                planned.append(PlannedRun(tuple(keys), assets))
    cut = [PlannedRun(tuple(piece), run.assets) for run in planned for piece in at_most(list(run.keys), MAX_RUN_DOCUMENTS)]
    return cut + last


def at_most(keys: list[str], size: int) -> list[list[str]]:
    """``keys`` cut into consecutive pieces of at most ``size``, as even as can be."""
    return split_evenly(keys, -(-len(keys) // size)) if keys else []


def contiguous_ranges(keys: Iterable[str], order: list[str]) -> list[list[str]]:
    """Group ``keys`` into runs of consecutive partitions in ``order``."""
    position = {k: i for i, k in enumerate(order)}
    ranges: list[list[str]] = []
    for key in sorted(keys, key=lambda k: position[k]):
        if ranges and position[ranges[-1][-1]] + 1 == position[key]:
            ranges[-1].append(key)
        else:
            ranges.append([key])
    return ranges
