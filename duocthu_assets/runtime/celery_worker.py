"""The settings of the Celery workers that run the ingest job's steps
(``DUOCTHU_EXECUTOR=celery``), read from the same environment as the code
location, so that a worker killed mid-step (SIGKILL, OOM, a lost machine)
does not leave its run waiting forever.

Celery acknowledges a message when a worker *receives* it, by default: a
worker that dies during the step has already consumed it, the step's result
never arrives, and dagster-celery's run waits for it forever. Here:

- late acknowledgement (``acks_late``, for dagster-celery's step task): the
  message is acknowledged when the step has ended (succeeded or failed), so a
  step whose worker died is still unacknowledged;
- Redis's ``visibility_timeout`` (``$DUOCTHU_CELERY_VISIBILITY_TIMEOUT``
  seconds, default 3600, kombu's own): an unacknowledged message older than
  that goes back on the queue, and a surviving worker runs the step again (it
  writes the same bytes: outputs are deterministic and written under a
  temporary name first). It must exceed the longest step: a step still running
  when it expires is delivered a second time and runs twice;
- ``unacked_restore_interval``/``unacked_restore_throttle``: every idle worker
  looks for such messages every :data:`RESTORE_SWEEP_SECONDS` (kombu's default
  is one real sweep per 100 s);
- ``reject_on_worker_lost`` (the step task too): with the prefork pool, a pool process killed
  during a step (the OOM killer's usual choice) is noticed by its parent
  worker, which puts the message back at once instead of acknowledging it as
  failed;
- ``worker_prefetch_multiplier = 1``: a worker holds one step at a time, so a
  dead worker strands no second step behind the one it was running.

The workers read these through dagster-celery's ``dagster_celery_config``
module: ``scripts/celery/dagster_celery_config.py`` on their ``PYTHONPATH``
(README, "Running at scale"). Dagster's run monitoring
(``run_monitoring.max_runtime_seconds`` in ``dagster.yaml``) is the backstop
when no worker is left to run the step.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping

from .executor import CELERY_BACKEND_ENV, CELERY_BROKER_ENV, ExecutorSettingError

VISIBILITY_TIMEOUT_ENV = "DUOCTHU_CELERY_VISIBILITY_TIMEOUT"
DEFAULT_VISIBILITY_TIMEOUT = 3600  # seconds; kombu's Redis default
RESTORE_SWEEP_SECONDS = 5
STEP_TASK = "execute_plan"  # dagster_celery.config.TASK_EXECUTE_PLAN_NAME: the task that runs one step
# dagster_celery.defaults' connection retries, kept: a worker's
# broker_transport_options replace the defaults' whole dict
_DAGSTER_CELERY_TRANSPORT_DEFAULTS = {"max_retries": 3, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


@dataclass(frozen=True)
class CeleryWorkerSettings:
    broker_url: str
    result_backend: str
    visibility_timeout: int = DEFAULT_VISIBILITY_TIMEOUT

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "CeleryWorkerSettings":
        broker = environ.get(CELERY_BROKER_ENV, "").strip()
        if not broker:
            raise ExecutorSettingError(
                f"a Celery worker needs {CELERY_BROKER_ENV}, the broker's URL (redis://host:port/0), "
                "the same as the code location's"
            )
        backend = environ.get(CELERY_BACKEND_ENV, "").strip() or broker
        raw = environ.get(VISIBILITY_TIMEOUT_ENV, "").strip()
        if not raw:
            return cls(broker, backend)
        try:
            timeout = int(raw)
        except ValueError:
            timeout = 0
        if timeout <= 0:
            raise ExecutorSettingError(
                f"{VISIBILITY_TIMEOUT_ENV} must be a whole number of seconds above the longest step, not {raw!r}"
            )
        return cls(broker, backend, timeout)

    def as_celery_config(self) -> dict[str, Any]:
        """The lowercase Celery settings dagster-celery's app takes from
        ``dagster_celery_config``."""
        return {
            "broker_url": self.broker_url,
            "result_backend": self.result_backend,
            # the step task only: dagster-celery's whole-run tasks (its run
            # launcher's execute_job/resume_job, unused here) keep Celery's
            # early acknowledgement, since a run outlasting the visibility
            # timeout would be delivered, and run, twice
            "task_annotations": {STEP_TASK: {"acks_late": True, "reject_on_worker_lost": True}},
            "worker_prefetch_multiplier": 1,
            # a worker cut off from the broker stops its steps: their messages
            # are delivered again anyway, once the visibility timeout passes
            "worker_cancel_long_running_tasks_on_connection_loss": True,
            "broker_connection_retry_on_startup": True,
            "worker_hijack_root_logger": False,
            "broker_transport_options": {
                **_DAGSTER_CELERY_TRANSPORT_DEFAULTS,
                "visibility_timeout": self.visibility_timeout,
                "unacked_restore_interval": RESTORE_SWEEP_SECONDS,
                "unacked_restore_throttle": 1,
            },
        }
