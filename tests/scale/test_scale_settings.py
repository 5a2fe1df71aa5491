"""The settings that select the scale-out machinery (README, "Running at
scale"), and the errors a user gets for ones that cannot work. No server is
needed: the servers themselves are exercised in test_scale_postgres.py and
test_scale_celery.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from duocthu_assets.definitions import build_definitions
from duocthu_assets.runtime.executor import CELERY_BROKER_ENV, EXECUTOR_ENV, ExecutorSettingError, configured_executor
from duocthu_assets.runtime.instance import POSTGRES_URL_ENV, InstanceSettingError, dagster_yaml, postgres_url

from tests.support.paths import REPO


def test_the_instance_yaml_follows_duocthu_postgres_url(monkeypatch, tmp_path: Path):
    monkeypatch.delenv(POSTGRES_URL_ENV, raising=False)
    assert "PooledSqliteEventLogStorage" in dagster_yaml(tmp_path) and "postgres" not in dagster_yaml(tmp_path)
    url = "postgresql+psycopg2://duocthu:secret@db.example:5432/dagster"
    monkeypatch.setenv(POSTGRES_URL_ENV, url)
    text = dagster_yaml(tmp_path)
    assert "env: DUOCTHU_POSTGRES_URL" in text and "secret" not in text
    assert "PooledSqliteEventLogStorage" not in text
    assert "PlannedOncePostgresEventLogStorage" in text  # planned check rows without copies there too
    assert postgres_url() == url


@pytest.mark.skipif(importlib.util.find_spec("psycopg") is not None, reason="psycopg 3 installed: a bare URL works")
def test_a_postgres_url_without_its_driver_is_refused_saying_what_to_write(monkeypatch, tmp_path: Path):
    monkeypatch.setenv(POSTGRES_URL_ENV, "postgresql://duocthu:secret@db.example:5432/dagster")
    with pytest.raises(InstanceSettingError) as raised:
        dagster_yaml(tmp_path)
    assert "postgresql+psycopg2://db.example:5432/dagster" in str(raised.value)
    assert "secret" not in str(raised.value)


def test_the_executor_follows_duocthu_executor(monkeypatch):
    monkeypatch.delenv(EXECUTOR_ENV, raising=False)
    assert build_definitions(warehouse_root="memory://settings").executor.name == "per_run"
    monkeypatch.setenv(EXECUTOR_ENV, "threads")
    with pytest.raises(ExecutorSettingError, match="'per_run' .* or 'celery', not 'threads'"):
        configured_executor(2)
    monkeypatch.setenv(EXECUTOR_ENV, "celery")
    monkeypatch.delenv(CELERY_BROKER_ENV, raising=False)
    with pytest.raises(ExecutorSettingError, match=CELERY_BROKER_ENV if importlib.util.find_spec("dagster_celery") else "scale"):
        configured_executor(2)
    if importlib.util.find_spec("dagster_celery") is None:
        return
    monkeypatch.setenv(CELERY_BROKER_ENV, "redis://127.0.0.1:6379/0")
    assert build_definitions(warehouse_root="memory://settings").executor.name == "celery"


def test_the_celery_workers_acknowledge_late_with_the_visibility_timeout_from_the_environment(monkeypatch):
    from duocthu_assets.runtime.celery_worker import (
        DEFAULT_VISIBILITY_TIMEOUT,
        VISIBILITY_TIMEOUT_ENV,
        CeleryWorkerSettings,
    )

    broker = "redis://127.0.0.1:6379/0"
    settings = CeleryWorkerSettings.from_env({CELERY_BROKER_ENV: broker})
    config = settings.as_celery_config()
    assert config["broker_url"] == config["result_backend"] == broker
    assert config["task_annotations"] == {"execute_plan": {"acks_late": True, "reject_on_worker_lost": True}}
    assert config["worker_prefetch_multiplier"] == 1
    assert config["broker_transport_options"]["visibility_timeout"] == DEFAULT_VISIBILITY_TIMEOUT
    assert CeleryWorkerSettings.from_env({CELERY_BROKER_ENV: broker, VISIBILITY_TIMEOUT_ENV: " 120 "}).visibility_timeout == 120
    for bad in ("2h", "0", "-5"):
        with pytest.raises(ExecutorSettingError, match=f"{VISIBILITY_TIMEOUT_ENV} must be a whole number of seconds .* not '{bad}'"):
            CeleryWorkerSettings.from_env({CELERY_BROKER_ENV: broker, VISIBILITY_TIMEOUT_ENV: bad})
    with pytest.raises(ExecutorSettingError, match=f"a Celery worker needs {CELERY_BROKER_ENV}"):
        CeleryWorkerSettings.from_env({VISIBILITY_TIMEOUT_ENV: "120"})


@pytest.mark.skipif(importlib.util.find_spec("dagster_celery") is None, reason="dagster-celery not installed (the `scale` extra)")
def test_dagster_celery_s_app_takes_the_worker_settings_from_scripts_celery(monkeypatch):
    """What `celery -A dagster_celery.app worker` builds with
    ``scripts/celery`` on its PYTHONPATH, as the README says to start it."""
    import sys

    from dagster_celery.config import TASK_EXECUTE_JOB_NAME, TASK_EXECUTE_PLAN_NAME
    from dagster_celery.make_app import make_app
    from dagster_celery.tasks import create_execute_job_task, create_task

    from duocthu_assets.runtime.celery_worker import VISIBILITY_TIMEOUT_ENV

    monkeypatch.syspath_prepend(str(REPO / "scripts" / "celery"))
    monkeypatch.delitem(sys.modules, "dagster_celery_config", raising=False)
    monkeypatch.setenv(CELERY_BROKER_ENV, "redis://127.0.0.1:6399/0")
    monkeypatch.setenv(VISIBILITY_TIMEOUT_ENV, "120")
    try:
        app = make_app()  # what dagster_celery.app does, with its tasks
        step, run = create_task(app), create_execute_job_task(app)
        conf = app.conf
    finally:
        sys.modules.pop("dagster_celery_config", None)
    assert (step.name, run.name) == (TASK_EXECUTE_PLAN_NAME, TASK_EXECUTE_JOB_NAME)
    assert step.acks_late and step.reject_on_worker_lost  # a step whose worker died stays on the broker
    assert not run.acks_late  # a whole run is not delivered twice
    assert conf.broker_url == "redis://127.0.0.1:6399/0"
    assert conf.broker_transport_options["visibility_timeout"] == 120 and conf.worker_prefetch_multiplier == 1
    assert conf.task_default_queue == "dagster"  # dagster-celery's own defaults still apply
