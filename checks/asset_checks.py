"""Rules become partitioned, blocking Dagster asset checks.

One multi-asset check per gated asset evaluates all of that asset's rules in
one step, reading the same Parquet a user would. It reports one evaluation per
document (partition) with the evidence as metadata: count, offending ids
(first 20), pages and the message. A step that covers many documents (one run
over a batch) fails when any document fails, which skips the downstream step
for that whole run; `duocthu ingest` then re-runs the downstream assets for the
documents that passed (the rounds of duocthu_assets/ingest/rounds.py),
so a bad document stops only itself.
"""


import traceback
from typing import Iterable

import dagster as dg

from duocthu_assets.assets.partitions import documents
from duocthu_assets.resources import WarehouseResource
from duocthu_assets.review import status_of_failed_rule
from duocthu_assets.runtime.dagster_private import (  # not exported by `dagster`: see there
    AssetCheckEvaluationTargetMaterializationData as TargetMaterialization,
    get_max_event_records_limit,
)
from duocthu_assets.runtime.step_failures import read_failures
from duocthu_assets.schemas import first_row
from duocthu_assets.warehouse import Warehouse

from .adr0018 import document_settings
from .plain import PLAIN, plain_message, stopped_description
from .rules import DocumentRows, Rule, RuleResult

_FIELD_ASSETS = {
    "raw": "raw_documents",
    "parsed": "parsed_documents",
    "segments": "segments",
    "blocks": "lifted_blocks",
    "crops": "crops",
    "chunks": "chunks",
    "embeddings": "embeddings",
}


def load_document_rows(warehouse: Warehouse, doc_id: str, needs: Iterable[str]) -> DocumentRows:
    values: dict = {"doc_id": doc_id}
    for field in set(needs):
        if field == "failures":
            values[field] = read_failures(warehouse, doc_id)
            continue
        if field == "settings":
            values[field] = document_settings(warehouse, doc_id)
            continue
        if field == "source":
            raw = first_row(warehouse.read_table("raw_documents", doc_id)) or {}
            values["source"] = warehouse.read_source(raw["sha256"]) if raw.get("sha256") else None
            continue
        table = warehouse.read_table(_FIELD_ASSETS[field], doc_id)
        if field in ("raw", "parsed"):
            values[field] = first_row(table)
        else:
            values[field] = [] if table is None else table.to_pylist()
    return DocumentRows(**values)


def evaluation_metadata(result, rule: str | None = None) -> dict:
    """The evidence of a failed rule. A passed rule has none: its message is
    the evaluation's description, and no metadata (each evaluation is stored
    three times in the Dagster instance, 29 per document: empty evidence
    cost ~0.5 KB a copy, see bench/instance_growth.py)."""
    if result.passed:
        return {}
    plain = {"what_to_do": plain_message(rule, result)} if rule in PLAIN else {}
    return {
        **plain,  # plain words first (checks/plain.py); the rule's own message beside
        "message": result.message,
        "count": result.count,
        "offending_ids": dg.MetadataValue.json(list(result.offending_ids)),
        # the same evidence as plain text, shown inline in the UI's check list
        "offending": ", ".join(result.offending_ids) or "none",
        "pages": dg.MetadataValue.json(list(result.pages)),
    }


def gate_checks(asset: str, rules: list[Rule]) -> dg.AssetChecksDefinition:
    """One blocking, partitioned multi-asset check evaluating ``rules`` on ``asset``."""
    specs = [
        dg.AssetCheckSpec(rule.name, asset=asset, description=rule.description, blocking=True, partitions_def=documents)
        for rule in rules
    ]
    needs = {field for rule in rules for field in rule.needs}

    @dg.multi_asset_check(specs=specs, name=f"{asset}_gates", can_subset=True)
    def _gates(context: dg.AssetCheckExecutionContext, warehouse: WarehouseResource):
        wh = warehouse.get()
        selected = {key.name for key in context.selected_asset_check_keys}
        keys = _partition_keys(context)
        targets = latest_materializations(context.instance, dg.AssetKey(asset), keys)
        stops: dict[str, tuple[str, str, str, str]] = {}  # doc_id -> the first rule it failed, in plain words
        for doc_id in keys:
            # what one document's rows or one rule raises fails that document's
            # checks, named (RuleResult.raised), never the step: a step that
            # raised left every document of the run failed with one document's error
            try:
                rows, unreadable = load_document_rows(wh, doc_id, needs), None
            except Exception as exc:  # noqa: BLE001
                rows, unreadable = None, exc
                context.log.error(f"{doc_id}: its rows could not be read for the {asset} checks\n{traceback.format_exc()}")
            for rule in rules:
                if rule.name not in selected:
                    continue

                def log(exc: BaseException, doc_id: str = doc_id, name: str = rule.name) -> None:
                    context.log.error(f"{doc_id}: {name} raised\n{traceback.format_exc()}")

                result = RuleResult.raised(unreadable) if unreadable is not None else rule.apply(rows, log)
                if not result.passed and doc_id not in stops:
                    stops[doc_id] = _stop(doc_id, asset, rule.name, result)
                yield dg.AssetCheckEvaluation(
                    asset_key=dg.AssetKey(asset),
                    check_name=rule.name,
                    passed=result.passed,
                    metadata=evaluation_metadata(result, rule.name),
                    partition=doc_id,
                    target_materialization_data=targets.get(doc_id),
                    blocking=True,
                    description=result.message[:1000],
                )
        if stops:
            # what Dagster would raise after a failed blocking evaluation
            # (DagsterAssetCheckFailedError: a stack trace on the run page),
            # said in plain words: a rule stopped these documents
            raise dg.Failure(
                description=stopped_description(list(stops.values())),
                metadata={
                    "documents": dg.MetadataValue.json(
                        [{"doc_id": d, "status": s, "rule": r, "what_to_do": w} for d, s, r, w in stops.values()]
                    ),
                },
                allow_retries=False,
            )
        for rule in rules:
            if rule.name in selected:
                yield dg.Output(None, output_name=_output_name(asset, rule.name))

    return _gates


def _stop(doc_id: str, asset: str, rule: str, result: RuleResult) -> tuple[str, str, str, str]:
    """(doc_id, status, ``asset.rule``, plain words) of a document a rule stopped."""
    status = status_of_failed_rule(rule, result.message)
    words = plain_message(rule, result) if rule in PLAIN else result.message  # as its `what_to_do`
    return doc_id, status, f"{asset}.{rule}", words


def latest_materializations(
    instance: dg.DagsterInstance, asset_key: dg.AssetKey, keys: list[str]
) -> dict[str, TargetMaterialization]:
    """Each document's latest materialization of ``asset_key``, the one its
    check evaluates: one query per batch of the run's documents (their
    materializations are the newest records when the run just built them),
    then one per document a batch's query did not reach. Batches, because
    Dagster refuses to fetch more than 10,000 records at once
    (``MAX_LIMIT_GET_EVENT_RECORDS``): a run over 10,021 documents, the
    embedding round of a one-ingest rebuild, failed its checks step on that."""
    found: dict[str, TargetMaterialization] = {}
    if not keys:
        return found

    def keep(records) -> None:
        for record in records:
            partition = record.partition_key
            if partition in wanted and partition not in found:
                found[partition] = TargetMaterialization(
                    run_id=record.run_id, storage_id=record.storage_id, timestamp=record.timestamp
                )

    wanted = set(keys)
    size = fetch_batch_size()
    for start in range(0, len(keys), size):
        batch = keys[start : start + size]
        keep(instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=asset_key, asset_partitions=batch), limit=len(batch)).records)
    for key in keys:
        if key not in found:
            keep(instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=asset_key, asset_partitions=[key]), limit=1).records)
    return found


def fetch_batch_size() -> int:
    """How many records one event-log query may ask for: Dagster's limit
    (its ``MAX_LIMIT_GET_EVENT_RECORDS``, 10,000 by default), and at most
    1,000 (a bounded ``IN`` list)."""
    return max(1, min(1_000, get_max_event_records_limit()))


def _partition_keys(context: dg.AssetCheckExecutionContext) -> list[str]:
    op_context = context.op_execution_context
    if op_context.has_partition_key_range or op_context.has_partition_key:
        return list(op_context.partition_keys)
    return []


def _output_name(asset: str, check_name: str) -> str:
    return f"{asset}_{check_name}"
