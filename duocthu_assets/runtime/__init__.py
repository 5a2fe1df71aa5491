"""The runtime wing: how Dagster runs the documents, below the assets and
the ingest that use it.

``instance`` sets up the Dagster instance (SQLite fast path or PostgreSQL),
``event_log`` is the SQLite event log that fast path uses, ``executor``
chooses a run's executor, ``gates`` and ``blocked`` read check results back,
``isolation`` runs one document's work in a child process under its budgets,
``step_failures`` remembers why a document failed a step; ``dagster_private``
is the one module that imports Dagster's private API. `duocthu ingest`
itself is the package :mod:`duocthu_assets.ingest`.
"""
