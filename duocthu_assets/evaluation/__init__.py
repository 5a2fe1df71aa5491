"""The evaluation harness: boundary F1, section bleed, recall@k / MRR, and
McNemar's test between configurations (extraction design doc §5).

The scoring modules are pure (no Dagster, no I/O beyond reading gold files):
``textmatch`` (normalized anchor search), ``gold`` (the gold schema),
``scoring`` (the measures), ``significance`` (McNemar), ``document`` (one
document's view and scores). ``runner`` builds a collection with a
configuration through ``duocthu ingest`` and searches it; ``report`` writes
Markdown, JSON and a PNG. ``duocthu eval`` is in ``duocthu_assets/cli_eval.py``.
"""

from .gold import DocumentGold, GoldBoundary, GoldError, GoldQuery, discover_gold, load_boundaries, load_queries
from .scoring import (
    DEFAULT_TOLERANCE,
    BleedScores,
    BoundaryScores,
    ChunkExtent,
    RetrievalScores,
    Section,
    boundary_scores,
    locate_sections,
    retrieval_scores,
    section_bleed,
)
from .significance import McNemar, mcnemar
from .textmatch import NormalizedText, find_anchor, normalize

__all__ = [
    "DEFAULT_TOLERANCE",
    "BleedScores",
    "BoundaryScores",
    "ChunkExtent",
    "DocumentGold",
    "GoldBoundary",
    "GoldError",
    "GoldQuery",
    "McNemar",
    "NormalizedText",
    "RetrievalScores",
    "Section",
    "boundary_scores",
    "discover_gold",
    "find_anchor",
    "load_boundaries",
    "load_queries",
    "locate_sections",
    "mcnemar",
    "normalize",
    "retrieval_scores",
    "section_bleed",
]
