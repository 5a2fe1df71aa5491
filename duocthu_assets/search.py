"""Kept importable: the search code lives in :mod:`duocthu_assets.retrieval`
(index, query, answer, the warm :class:`~duocthu_assets.retrieval.Searcher`
and ``duocthu serve``)."""

from .retrieval import *  # noqa: F401,F403
from .retrieval import __all__  # noqa: F401
