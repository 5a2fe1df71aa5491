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


EXECUTOR_ENV = "DUOCTHU_EXECUTOR"
CELERY_BROKER_ENV = "DUOCTHU_CELERY_BROKER"
CELERY_BACKEND_ENV = "DUOCTHU_CELERY_BACKEND"


class ExecutorSettingError(ValueError):
    """An executor setting that cannot be used, said so the user can fix it."""


def configured_executor(max_concurrent: int) -> dg.ExecutorDefinition:
    """The executor of every run Dagster launches (the UI, the sensor, the
    schedule, `dagster job execute`), chosen by ``$DUOCTHU_EXECUTOR``:

    - unset or ``per_run``: :func:`per_run_executor` (one machine);
    - ``celery``: dagster-celery's executor, each step a Celery task on the
      broker ``$DUOCTHU_CELERY_BROKER`` (e.g. ``redis://127.0.0.1:6379/0``),
      its result on ``$DUOCTHU_CELERY_BACKEND`` (default: the broker), run by
      workers started with ``celery -A dagster_celery.app worker -Q dagster``
      in the same environment (see the README, "Running at scale").

    `duocthu ingest` runs in process whatever this says."""
    import os

    choice = os.environ.get(EXECUTOR_ENV, "").strip().lower() or "per_run"
    if choice == "per_run":
        return per_run_executor.configured({"max_concurrent": max_concurrent})
    if choice != "celery":
        raise ExecutorSettingError(f"{EXECUTOR_ENV} must be 'per_run' (the default) or 'celery', not {choice!r}")
    try:
        from dagster_celery import celery_executor
    except ImportError as exc:
        raise ExecutorSettingError(
            f"{EXECUTOR_ENV}=celery needs dagster-celery: pip install -e '.[scale]' ({exc})"
        ) from exc
    if not os.environ.get(CELERY_BROKER_ENV, "").strip():
        raise ExecutorSettingError(f"{EXECUTOR_ENV}=celery needs {CELERY_BROKER_ENV}, the broker's URL (redis://host:port/0)")
    backend_env = CELERY_BACKEND_ENV if os.environ.get(CELERY_BACKEND_ENV, "").strip() else CELERY_BROKER_ENV
    return celery_executor.configured(
        {"broker": {"env": CELERY_BROKER_ENV}, "backend": {"env": backend_env}, **_RETRIES},
        name="celery",
    )
