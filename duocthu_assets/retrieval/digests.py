"""sha256 of warehouse files, remembered by file identity.

The search index records, for every document, the sha256 of the chunks and
embeddings files it was built from, and a rebuild or a "is the index
current?" question compares them. Hashing every document's two files costs
time in proportion to the corpus; so the digest of a local file is
remembered with the file's identity (device, inode, size, mtime and ctime in
ns; the warehouse replaces a file by a rename, so new content is a new
inode) in ``<warehouse>/dagster_home/duocthu-file-digests.json``, and a file
whose identity is unchanged is not read again. The cache is a hint: a lost
or stale entry only costs a hash (an entry is used only when all five
values match). It lives beside the Dagster instance, not among the outputs,
because inode numbers differ from one warehouse to another.

Nothing here imports Dagster.
"""

from __future__ import annotations

import hashlib
import json
import os

from ..warehouse import Warehouse

CACHE_NAME = "duocthu-file-digests.json"


class FileDigests:
    def __init__(self, warehouse: Warehouse):
        self.warehouse = warehouse
        self.local = warehouse.is_local
        self.cache_path = warehouse.path("dagster_home", CACHE_NAME).path if self.local else None
        self.root = warehouse.root.path if self.local else ""  # joined as strings: a UPath per file costs 0.2 ms
        self.prefix = os.path.join(self.root, "") if self.local else ""
        self._entries: dict[str, list] | None = None
        self._dirty = False

    def _load(self) -> dict[str, list]:
        if self._entries is None:
            self._entries = {}
            if self.cache_path is not None:
                try:
                    with open(self.cache_path, encoding="utf-8") as fh:
                        loaded = json.load(fh)
                    if isinstance(loaded, dict):
                        self._entries = loaded
                except (OSError, ValueError):
                    pass
        return self._entries

    def sha256(self, asset: str, doc_id: str) -> str | None:
        """The sha256 of ``<asset>/<doc_id>.parquet`` (None: no such file)."""
        if not self.local:
            try:
                return hashlib.sha256(self.warehouse.asset_path(asset, doc_id).read_bytes()).hexdigest()
            except FileNotFoundError:
                return None
        entries = self._entries if self._entries is not None else self._load()
        key = f"{asset}/{doc_id}"
        path = f"{self.prefix}{key}.parquet"
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        known = entries.get(key)  # 20,000 lookups an index refresh at 10,000 documents: compared field by field
        if (type(known) is list and len(known) == 6 and known[1] == st.st_ino and known[3] == st.st_mtime_ns
                and known[4] == st.st_ctime_ns and known[2] == st.st_size and known[0] == st.st_dev):
            return known[5]
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())  # the identity of the bytes actually hashed
                digest = hashlib.file_digest(fh, "sha256").hexdigest()
        except FileNotFoundError:
            return None
        entries[key] = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest]
        self._dirty = True
        return digest

    def save(self) -> None:
        """Write the cache back if anything was hashed (atomically; a failure
        to write it is ignored: it is only a hint)."""
        if not self._dirty or self.cache_path is None or self._entries is None:
            return
        tmp = f"{self.cache_path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.cache_path), exist_ok=True)
            with open(tmp, "w", encoding="utf-8") as fh:  # dumps: the C encoder (dump streams through the Python one, 10x slower)
                fh.write(json.dumps(self._entries, separators=(",", ":"), sort_keys=True))
            os.replace(tmp, self.cache_path)
            self._dirty = False
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
