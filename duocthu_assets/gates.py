"""Which documents passed every blocking check, read from the Dagster instance.

The search index and the ingest summary ask the same question here: for each
document, did the latest evaluation of every blocking check succeed? A check
never evaluated for a document counts as not passed (nothing reaches the index
unchecked)."""

from __future__ import annotations

from dataclasses import dataclass, field

import dagster as dg

from checks.registry import ALL_RULES
from .warehouse import Warehouse


@dataclass
class GateReport:
    passed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # doc_id -> why
    failed_checks: dict[str, list[str]] = field(default_factory=dict)
    messages: dict[str, dict[str, str]] = field(default_factory=dict)  # doc_id -> check -> message


def check_keys() -> list[dg.AssetCheckKey]:
    return [dg.AssetCheckKey(dg.AssetKey(rule.asset), rule.name) for rule in ALL_RULES]


def check_statuses(instance: dg.DagsterInstance, doc_ids: list[str]) -> dict[str, dict[str, str]]:
    """doc_id -> check name -> "SUCCEEDED" | "FAILED" | "PLANNED" (latest)."""
    statuses: dict[str, dict[str, str]] = {d: {} for d in doc_ids}
    if not doc_ids:
        return statuses
    infos = instance.event_log_storage.get_asset_check_partition_info(check_keys(), partition_keys=doc_ids)
    for info in infos:
        if info.partition_key in statuses:
            statuses[info.partition_key][info.check_key.name] = info.latest_execution_status.value
    return statuses


def passing_documents(instance: dg.DagsterInstance, warehouse: Warehouse, doc_ids: list[str]) -> GateReport:
    report = GateReport()
    names = [rule.name for rule in ALL_RULES]
    for doc_id, by_check in check_statuses(instance, doc_ids).items():
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
