"""Which documents passed every blocking check, read from the Dagster instance.

The search index and the ingest summary ask the same question here: for each
document, did the latest evaluation of every blocking check succeed? A check
never evaluated for a document counts as not passed (nothing reaches the index
unchecked)."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

from checks.registry import ALL_RULES
from ..warehouse import Warehouse


@dataclass
class GateReport:
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # doc_id -> why
    failed_checks: dict[str, list[str]] = field(default_factory=dict)
    messages: dict[str, dict[str, str]] = field(default_factory=dict)  # doc_id -> check -> message


def check_keys() -> list[dg.AssetCheckKey]:
    return [dg.AssetCheckKey(dg.AssetKey(rule.asset), rule.name) for rule in ALL_RULES]


def _query_statuses(instance: dg.DagsterInstance, doc_ids: list[str]) -> dict[str, dict[str, str]]:
    statuses: dict[str, dict[str, str]] = {d: {} for d in doc_ids}
    if not doc_ids:
        return statuses
    infos = instance.event_log_storage.get_asset_check_partition_info(check_keys(), partition_keys=doc_ids)
    for info in infos:
        if info.partition_key in statuses:
            statuses[info.partition_key][info.check_key.name] = info.latest_execution_status.value
    return statuses


def check_statuses(instance: dg.DagsterInstance, doc_ids: list[str]) -> dict[str, dict[str, str]]:
    """doc_id -> check name -> "SUCCEEDED" | "FAILED" | "PLANNED" (latest).

    Dagster answers this with a query per check over every partition, whose
    cost grows with the corpus; so the answer is remembered beside the
    instance (:class:`StatusCache`) and asked again only for the documents
    a run touched since (and for documents not asked about before)."""
    every = {rule.name: "SUCCEEDED" for rule in ALL_RULES}
    return {d: dict(every) if by_check == ALL_SUCCEEDED else by_check for d, by_check in _latest(instance, doc_ids).items()}


def statuses_not_all_succeeded(instance: dg.DagsterInstance, doc_ids: list[str]) -> dict[str, dict[str, str]]:
    """:func:`check_statuses` of the documents whose every blocking check's
    latest evaluation did not succeed (a failed, planned or missing one): the
    review looks for failures, and at 10,000 documents a dict of 36 statuses
    made for each of those that passed everything cost more than the rest."""
    return {d: by_check for d, by_check in _latest(instance, doc_ids).items() if by_check != ALL_SUCCEEDED}


def _latest(instance: dg.DagsterInstance, doc_ids: list[str]) -> dict[str, Any]:
    """doc_id -> :data:`ALL_SUCCEEDED` or its statuses by check (a dict of
    its own): :func:`check_statuses` without a dict made for each document
    that passed everything (10,000 of them, four times an ingest)."""
    if not doc_ids:
        return {}
    cache = StatusCache.open(instance)
    if cache is None:
        return _query_statuses(instance, doc_ids)
    return cache.statuses(doc_ids)


UNFINISHED = [  # a run in one of these may still write (the status cache, the inbox snapshot, the index refresh wait for it)
    dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING,
]
ALL_SUCCEEDED = ""  # a document whose every blocking check's latest evaluation succeeded


_LOADED: dict[str, tuple[tuple, str | None, dict[str, Any]]] = {}  # cache file -> (its identity, run, statuses) as last read or written


def _identity(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class StatusCache:
    """The latest status of every blocking check per document, as of a run
    (``<DAGSTER_HOME>/duocthu-check-statuses.json``).

    A check is evaluated only inside a run, and a run of the ingest job names
    its documents in its tags (one partition, or a range of them). So: list
    the runs since the remembered one (one query on the run storage); the
    documents those runs cover, and documents not remembered, are asked of
    Dagster (restricted to those partitions); the rest keep their remembered
    statuses. The remembered run only moves past finished runs, so a run in
    progress is looked at again next time. Anything unexpected (the
    remembered run is gone, the rules changed, a run over a range that
    cannot be resolved) starts afresh. Check results reported outside any
    run are not seen by it (this project never reports them)."""

    NAME = "duocthu-check-statuses.json"

    def __init__(self, instance: dg.DagsterInstance, path: str):
        self.instance = instance
        self.path = path
        self.checks = sorted(rule.name for rule in ALL_RULES)

    @classmethod
    def open(cls, instance: dg.DagsterInstance) -> "StatusCache | None":
        path = home_file(instance, cls.NAME)
        return cls(instance, path) if path else None

    def _load(self) -> tuple[str | None, dict[str, Any]]:
        """The remembered run and statuses. The file is parsed once per
        process while its identity is unchanged (an ingest asks four or five
        times: 10,000 documents' statuses each time otherwise)."""
        try:
            with open(self.path, "rb") as fh:
                identity = _identity(os.fstat(fh.fileno()))
                cached = _LOADED.get(self.path)
                if cached is not None and cached[0] == identity:
                    cursor, documents = cached[1], dict(cached[2])
                else:
                    data = json.loads(fh.read().decode("utf-8"))
                    if not isinstance(data, dict) or data.get("checks") != self.checks or not isinstance(data.get("documents"), dict):
                        return None, {}
                    cursor, documents = data.get("run"), data["documents"]
                    _LOADED[self.path] = (identity, cursor, dict(documents))
        except (OSError, ValueError):
            return None, {}
        if cursor is not None and self.instance.get_run_record_by_id(cursor) is None:
            return None, {}  # another instance, or its history was wiped
        return cursor, documents

    def _runs_since(self, cursor: str | None) -> tuple[list, str | None]:
        """The runs after ``cursor`` (oldest first), and the last of them
        before the first unfinished one (the new cursor)."""
        if cursor is None:
            latest = self.instance.get_run_records(limit=1)
            unfinished = self.instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED), limit=1)
            return [], (latest[0].dagster_run.run_id if latest and not unfinished else None)
        records = self.instance.get_run_records(cursor=cursor, ascending=True)
        new_cursor = cursor
        for record in records:
            if record.dagster_run.status in UNFINISHED:
                break
            new_cursor = record.dagster_run.run_id
        return list(records), new_cursor

    def _documents_of(self, runs: list) -> set[str] | None:
        """The documents ``runs`` cover (None: a range that cannot be resolved)."""
        touched: set[str] = set()
        order: list[str] | None = None
        for record in runs:
            tags = record.dagster_run.tags
            if "dagster/partition" in tags:
                touched.add(tags["dagster/partition"])
            elif "dagster/asset_partition_range_start" in tags:
                if order is None:
                    order = list(self.instance.get_dynamic_partitions("documents"))
                start, end = tags["dagster/asset_partition_range_start"], tags.get("dagster/asset_partition_range_end")
                if start not in order or end not in order:
                    return None
                touched.update(order[order.index(start) : order.index(end) + 1])
        return touched

    def statuses(self, doc_ids: list[str]) -> dict[str, Any]:
        """doc_id -> :data:`ALL_SUCCEEDED`, or its statuses by check (a copy)."""
        cursor, documents = self._load()
        runs, new_cursor = self._runs_since(cursor)  # listed before asking: a run ending meanwhile is seen next time
        dirty = self._documents_of(runs)
        if dirty is None:
            documents, dirty = {}, set()
        for doc_id in dirty:
            documents.pop(doc_id, None)
        ask = [d for d in doc_ids if d not in documents]
        answered = _query_statuses(self.instance, ask) if ask else {}
        for doc_id, by_check in answered.items():
            complete = sorted(by_check) == self.checks and all(v == "SUCCEEDED" for v in by_check.values())
            documents[doc_id] = ALL_SUCCEEDED if complete else by_check
        if answered or new_cursor != cursor:
            self._save(new_cursor, documents)
        return {d: ALL_SUCCEEDED if documents[d] == ALL_SUCCEEDED else dict(documents[d]) for d in doc_ids}

    def _save(self, cursor: str | None, documents: dict[str, Any]) -> None:
        if cursor is None:
            return  # a run was in flight when nothing was remembered: remember nothing yet
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:  # dumps: dump() streams through the pure-Python encoder
                fh.write(json.dumps({"checks": self.checks, "run": cursor, "documents": documents}, separators=(",", ":"), sort_keys=True))
                fh.flush()
                identity = _identity(os.fstat(fh.fileno()))
            os.replace(tmp, self.path)
            _LOADED[self.path] = (identity, cursor, dict(documents))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def passing_documents(instance: dg.DagsterInstance, warehouse: Warehouse, doc_ids: list[str]) -> GateReport:
    report = GateReport()
    names = [rule.name for rule in ALL_RULES]
    every = {name: "SUCCEEDED" for name in names}
    for doc_id, by_check in _latest(instance, doc_ids).items():
        if by_check == ALL_SUCCEEDED or by_check == every:  # the common case: no pass over the rules
            report.passed.append(doc_id)
            continue
        failed = [n for n in names if by_check.get(n) == "FAILED"]
        unchecked = [n for n in names if by_check.get(n) != "SUCCEEDED" and n not in failed]
        if failed:
            report.failed[doc_id] = "failed checks: " + ", ".join(failed)
            report.failed_checks[doc_id] = failed
        elif unchecked:
            report.failed[doc_id] = "not checked: " + ", ".join(unchecked)
            report.failed_checks[doc_id] = []
        else:
            report.passed.append(doc_id)
    return report


def home_file(instance: dg.DagsterInstance, name: str) -> str | None:
    """The path of a file duocthu remembers things in, inside the instance's
    home directory; None for an instance without one (ephemeral, or a home
    that is gone): nothing is remembered then."""
    try:
        if instance.is_ephemeral:
            return None
        root = instance.root_directory
    except Exception:  # noqa: BLE001 - no home directory: nothing to remember in
        return None
    return os.path.join(root, name) if root and os.path.isdir(root) else None
