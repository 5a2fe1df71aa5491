"""The runtime wing: how documents are run through Dagster.

``ingest`` is `duocthu ingest`: ``ingest_plan`` plans its runs (pure),
``ingest_runs`` launches them, ``index_refresh`` rebuilds the index after
them, ``ingest_report`` summarizes each document, ``ingest_errors`` says
what went wrong in words; ``instance`` sets up the Dagster
instance (SQLite fast path or PostgreSQL), ``event_log`` is the SQLite event
log that fast path uses, ``executor`` chooses the run's executor, ``gates``
and ``blocked`` read check results back, ``isolation`` runs one document's
work in a child process under its budgets, ``step_failures`` remembers why a
document failed a step; ``dagster_private`` is the one module that imports
Dagster's private API. Everything else in the package is pure (parse,
chunking, embed, retrieval) or a thin Dagster adapter (assets, checks).
"""
