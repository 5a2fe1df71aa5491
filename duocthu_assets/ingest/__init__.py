"""`duocthu ingest`: the inbox planned into rounds of Dagster runs, each a
range of documents with per-document isolation, the search index refreshed
until it matches what passed, and the summary printed (:func:`.run.ingest`)."""
