"""duocthu: documents to retrieval-ready chunks, every rule a blocking Dagster check."""

import warnings

# Deliberate choices, said once here rather than by Dagster on every load of the
# code location (the webserver, the daemon, each run and each step load it):
# - backfill_policy=single_run: a backfill over many documents is one run
#   (assets/partitions.py), a Beta parameter of @asset;
# - partitions_def on AssetCheckSpec: one check result per document
#   (checks/asset_checks.py), a Preview feature.
# Only these two messages are silenced; any other Beta/Preview warning still shows.
warnings.filterwarnings("ignore", message=r"Parameter `backfill_policy` of")
warnings.filterwarnings("ignore", message=r"Specifying a partitions_def on an AssetCheckSpec is currently in preview")
