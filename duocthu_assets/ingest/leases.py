"""Per-document leases: while one `duocthu ingest` builds a document, another
ingest of the same files waits for it instead of building it too.

A lease is a POSIX byte-range lock (``fcntl.lockf``) on one byte of
``<warehouse>/leases.lock``, at an offset drawn from ``sha256(doc_id)``: one
file descriptor for any number of documents (a lock file per document would
need one open file each, 10,000 at scale, past the usual limit of 1,024).
The kernel drops a process's locks when it exits, however it exits, so a
lease is never stale: a killed ingest's documents are free at once, and the
ingest waiting on them finds them still due and builds them. Locks belong to
the process, so forked workers neither hold nor release them. A warehouse
on an object store has no leases (its writers are expected to take turns).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time

from ..warehouse import Warehouse

LEASE_FILE = "leases.lock"
WAIT_STEP_S = 0.2


def offset_of(doc_id: str) -> int:
    return int.from_bytes(hashlib.sha256(doc_id.encode("utf-8", "surrogatepass")).digest()[:6], "big")


class Leases:
    """The leases this process holds on one warehouse's documents."""

    def __init__(self, warehouse: Warehouse):
        self.fd: int | None = None
        self.held: set[str] = set()
        if warehouse.is_local:
            path = warehouse.path(LEASE_FILE).path
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)

    def _lock(self, doc_id: str, wait: bool) -> bool:
        if self.fd is None:
            return True
        try:
            fcntl.lockf(self.fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB), 1, offset_of(doc_id))
        except (BlockingIOError, PermissionError):
            return False
        return True

    def take(self, doc_ids: list[str]) -> tuple[list[str], list[str]]:
        """Take every lease that is free; returns (taken, held by another process)."""
        taken, busy = [], []
        for doc_id in doc_ids:
            if doc_id in self.held or self._lock(doc_id, wait=False):
                self.held.add(doc_id)
                taken.append(doc_id)
            else:
                busy.append(doc_id)
        return taken, busy

    def wait_and_take(self, doc_ids: list[str]) -> None:
        """Take each lease, waiting while another process holds it (in
        doc_id order, so two waiters never wait on each other)."""
        for doc_id in sorted(doc_ids):
            while doc_id not in self.held and not self._lock(doc_id, wait=False):
                time.sleep(WAIT_STEP_S)  # polled, not blocking: an interrupt still reaches this process
            self.held.add(doc_id)

    def release(self, doc_ids: list[str] | None = None) -> None:
        for doc_id in list(self.held if doc_ids is None else doc_ids):
            if doc_id in self.held and self.fd is not None:
                with contextlib.suppress(OSError):
                    fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, offset_of(doc_id))
            self.held.discard(doc_id)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # drops every lock this process holds on the file
            self.fd = None
        self.held.clear()
