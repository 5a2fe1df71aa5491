"""The executor of every run launched from the UI, the sensor or the schedule:
one document's run executes its steps in the run's own process, a run over a
range of documents in one process per step.

Why: each step of a multiprocess run starts a Python process that imports
Dagster and this code location again (1-2 s idle, tens of seconds on a loaded
two-core machine), and an ingest run is a chain in which each blocking check
gates the next asset, so one document's steps never run side by side anyway.
A run over many documents keeps the multiprocess executor (a crashed step ends
only its process; ``DUOCTHU_MAX_CONCURRENT`` steps at once), and documents run
side by side through the run queue (``max_concurrent_runs``) and the parser's
own worker processes. `duocthu ingest` runs in process and is not affected.
"""

from __future__ import annotations

import dagster as dg

SINGLE_PARTITION_TAG = "dagster/partition"
_RETRIES = {"retries": {"enabled": {}}}


class PerRunExecutor(dg.Executor):
    """The in-process executor for a run of one partition, the multiprocess
    executor otherwise, chosen when the run starts (from its tags)."""

    def __init__(self, single: dg.Executor, many: dg.Executor):
        self._single, self._many = single, many

    @property
    def retries(self):
        return self._many.retries

    @property
    def step_dependency_config(self):
        return self._many.step_dependency_config

    def chosen(self, tags) -> dg.Executor:
        return self._single if SINGLE_PARTITION_TAG in tags else self._many

    def execute(self, plan_context, execution_plan):
        return self.chosen(plan_context.dagster_run.tags).execute(plan_context, execution_plan)


@dg.executor(
    name="per_run",
    config_schema={"max_concurrent": dg.Field(int, default_value=2, description="steps at once in a multi-document run")},
    requirements=dg.multiple_process_executor_requirements(),
)
def per_run_executor(init_context: dg.InitExecutorContext) -> dg.Executor:
    def make(definition: dg.ExecutorDefinition, config: dict) -> dg.Executor:
        context = dg.InitExecutorContext(
            job=init_context.job, executor_def=definition, executor_config=config, instance=init_context.instance
        )
        return definition.executor_creation_fn(context)

    many = make(dg.multiprocess_executor, {**_RETRIES, "max_concurrent": init_context.executor_config["max_concurrent"]})
    return PerRunExecutor(single=make(dg.in_process_executor, dict(_RETRIES)), many=many)
