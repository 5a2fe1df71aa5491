"""sentence-transformers from a local model directory (optional extra).

``pip install 'duocthu[sentence-transformers]'`` brings torch (~1.5 GB).
The package is imported only when this backend is chosen, the model is loaded
with ``local_files_only=True`` from a directory that must exist (this
pipeline never downloads a model), on CPU with ``threads`` torch threads.
e5-style models need ``query_prefix="query: "`` / ``passage_prefix="passage: "``
in the configuration; all-MiniLM-style models need none.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from .base import Backend, EmbedderConfig, EmbeddingError, check_batch, normalize_rows

INSTALL_HINT = "pip install 'duocthu[sentence-transformers]'"


def model_fingerprint(folder: Path) -> str:
    """A cheap fingerprint of a local model: names and sizes of its files
    (weights are not hashed; set ``model_id`` explicitly if you replace
    weights in place with files of identical sizes)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(folder).as_posix()}\0{path.stat().st_size}\n".encode())
    return h.hexdigest()[:12]


class SentenceTransformerEmbedder:
    def __init__(self, config: EmbedderConfig):
        if config.backend is not Backend.SENTENCE_TRANSFORMERS:
            raise ValueError(f"SentenceTransformerEmbedder given a {config.backend} config")
        folder = Path(config.model).expanduser()
        if not folder.is_dir():
            raise ValueError(f"sentence-transformers model {config.model!r} is not a local directory (models are never downloaded)")
        try:
            st = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ImportError(f"the sentence-transformers backend is an optional extra: {INSTALL_HINT}") from exc
        self.config = config
        self.threads = config.effective_threads
        try:
            torch = importlib.import_module("torch")
            torch.set_num_threads(self.threads)
        except ImportError:
            pass
        self._model = st.SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        dim = self._model.get_sentence_embedding_dimension()
        if not dim:
            raise EmbeddingError(f"sentence-transformers model {folder} does not declare its embedding dimension")
        self._dim = int(dim)
        if config.dim and config.dim != self._dim:
            raise ValueError(f"configured dim {config.dim} but the model at {folder} produces {self._dim}")
        self.model_id = config.model_id or f"sentence-transformers/{folder.resolve().name}@{model_fingerprint(folder)}"
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model_id!r})"

    @property
    def dim(self) -> int:
        return self._dim

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            out = self._model.encode(
                texts,
                batch_size=self.config.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalize_rows(np.asarray(out).reshape(len(texts), -1), where=self.model_id)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of strings, not one string")
        texts = [self.config.passage_prefix + t for t in texts]
        if not texts:
            return np.empty((0, self._dim), dtype=np.float32)
        return check_batch(self._encode(texts), len(texts), self._dim, where=self.model_id)

    def embed_query(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TypeError("embed_query takes one string")
        return check_batch(self._encode([self.config.query_prefix + text]), 1, self._dim, where=self.model_id)[0]
