"""A run's outcome said in its tags: a run a blocking check stopped reads
*blocked* (or *rejected*, *failed*), naming each document and the rule,
beside Dagster's FAILURE — not a crash, and never a success.

A blocking check that fails for a document fails its step, so Dagster ends
the run FAILURE with a step error, as it would a crash. The Runs list shows
tags beside the status and filters by them (a click on a tag):
``duocthu/outcome: blocked`` and ``duocthu/documents: scan.pdf blocked by
parsed_documents.no_pages_need_ocr`` tell the reviewer it was a rule, which
one and for which document, in the words of duocthu_assets/review.py; a run
that failed on an error reads ``duocthu/outcome: error``. `duocthu ingest`
tags its runs as they end (ingest/rounds.py), the run-failure sensor tags
the runs of the UI, the sensor and the schedule (automation.py).
"""

from __future__ import annotations

import dagster as dg

from checks.registry import ALL_RULES

from ..review import BLOCKED, STATUS_ORDER, status_of_failed_rule

OUTCOME_TAG = "duocthu/outcome"
DOCUMENTS_TAG = "duocthu/documents"
ERROR = "error"
TAG_LIMIT = 240  # characters of a tag's value kept
_ORDER = {(rule.asset, rule.name): i for i, rule in enumerate(ALL_RULES)}


def first_failures(evaluations) -> dict[str, tuple[str, str]]:
    """doc_id -> (status, ``asset.rule``) of the first blocking check, in
    pipeline order, it failed in a run's check evaluations."""
    failed: dict[str, list] = {}
    for evaluation in evaluations:
        if not evaluation.passed and evaluation.partition:
            failed.setdefault(evaluation.partition, []).append(evaluation)
    found = {}
    for doc, evaluations_of in sorted(failed.items()):
        first = min(evaluations_of, key=lambda e: _ORDER.get((e.asset_key.to_user_string(), e.check_name), len(_ORDER)))
        message = first.metadata.get("message")
        status = status_of_failed_rule(first.check_name, str(message.value) if message else first.description or "")
        found[doc] = (status, f"{first.asset_key.to_user_string()}.{first.check_name}")
    return found


def outcome_tags(failures: dict[str, tuple[str, str]]) -> dict[str, str]:
    """The tags of a failed run: the worst status among its documents (a
    check stopped them), or an error."""
    if not failures:
        return {OUTCOME_TAG: ERROR}
    statuses = {status for status, _ in failures.values()}
    outcome = next(s for s in STATUS_ORDER if s in statuses)
    said = "; ".join(f"{doc} {status}{' by' if status == BLOCKED else ':'} {rule}" for doc, (status, rule) in failures.items())
    return {OUTCOME_TAG: outcome, DOCUMENTS_TAG: said if len(said) <= TAG_LIMIT else said[: TAG_LIMIT - 1] + "…"}


def run_evaluations(instance: dg.DagsterInstance, run_id: str) -> list:
    """The check evaluations a run stored."""
    records = instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION).records
    return [r.event_log_entry.get_dagster_event().event_specific_data for r in records]


def tag_failed_run(instance: dg.DagsterInstance, run_id: str, evaluations=None) -> dict[str, str]:
    """Tag a failed run with its outcome; returns the tags added."""
    tags = outcome_tags(first_failures(run_evaluations(instance, run_id) if evaluations is None else evaluations))
    instance.add_run_tags(run_id, tags)
    return tags
