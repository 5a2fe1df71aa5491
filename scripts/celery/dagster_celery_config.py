"""Celery settings for the workers that run duocthu's steps: dagster-celery's
app (``celery -A dagster_celery.app worker -Q dagster``) imports a module of
this name when it is on the worker's ``PYTHONPATH``. Everything comes from the
environment the code location also reads (``DUOCTHU_CELERY_BROKER``,
``DUOCTHU_CELERY_BACKEND``, ``DUOCTHU_CELERY_VISIBILITY_TIMEOUT``); what each
setting does and why: ``duocthu_assets/runtime/celery_worker.py``."""

from duocthu_assets.runtime.celery_worker import CeleryWorkerSettings

globals().update(CeleryWorkerSettings.from_env().as_celery_config())
