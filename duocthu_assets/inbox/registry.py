"""The registry: the project's own record of every document it was given.

A :class:`DocumentRecord` says where the file is, its collection settings,
its sha256 when last seen, and what it was last built with; the
:class:`Registry` holds them by doc_id (``<warehouse>/registry.json``, its
text :mod:`.registry_file`'s). The inbox sensor, the nightly schedule and
``duocthu ingest`` all register through
:func:`.registration.register_files`, so a doc_id means the same file on
every path.
"""

from __future__ import annotations

import contextlib
import fcntl
from dataclasses import dataclass, field
from typing import Iterator

from .registry_file import read_registry_file, write_registry_file
from ..settings import Settings
from ..warehouse import Warehouse


@dataclass
class DocumentRecord:
    doc_id: str
    path: str  # absolute path of the source file
    source_name: str  # path under the root, as the user sees it
    collection: str
    settings: dict
    sha256: str = ""
    size_bytes: int = 0
    mtime_ns: int = 0
    status: str = "active"  # active | removed
    built: dict = field(default_factory=dict)  # {"sha256":..., "code_version":..., "settings":...}
    refused: str = ""  # why the file is refused before it is read (a link out of the inbox, a bad collection.toml, unreadable)
    # what `duocthu ingest` found when it last summarized this document, and the
    # ``built`` it holds for: an unchanged document is summarized from here, not
    # from its Parquet files (see ingest/report.summarize_unchanged)
    outcome: dict = field(default_factory=dict)

    def resolved_settings(self) -> Settings:
        return Settings(**self.settings)


def active_doc_ids(warehouse: Warehouse) -> list[str]:
    """The sorted doc_ids of ``Registry(warehouse).active()``, read without
    making a record object of each document (for callers that only read:
    the index refresh, the review, the ingest's index check; 10,000 records
    made and dropped cost ~0.05 s each time)."""
    return sorted(doc_id for doc_id, values in read_registry_file(warehouse).items() if values.get("status", "active") == "active")


class Registry:
    """The documents the project owns, keyed by doc_id.

    Several writers share one registry: two `duocthu ingest` processes, the
    inbox sensor, the run-status sensors, the nightly schedule. So a save
    never writes back what this process only read: under an exclusive lock
    (``registry.json.lock``, local warehouses) it reads the file again, puts
    in only the records this process added or changed since it loaded them,
    and writes the result atomically. Two processes registering different
    files both keep theirs; one record changed by both keeps the last
    writer's version of that record."""

    LOCK_NAME = "registry.json.lock"

    def __init__(self, warehouse: Warehouse):
        self.warehouse = warehouse
        self.path = warehouse.path("registry.json")
        self.records: dict[str, DocumentRecord] = {}
        self._loaded: dict[str, dict] = {}
        self._holding = False
        self.reload()

    def _read(self) -> dict[str, dict]:
        return read_registry_file(self.warehouse)

    def reload(self) -> None:
        """Take in what others saved since; this process's unsaved changes stay."""
        changed = self._changed()
        on_disk = self._read()
        self.records = {doc_id: DocumentRecord(**values) for doc_id, values in on_disk.items()}
        self._loaded = on_disk
        for doc_id, record in changed.items():
            self.records[doc_id] = record

    def _changed(self) -> dict[str, DocumentRecord]:
        # vars(): the record's fields as they are now (a dataclass's __dict__ holds
        # exactly its fields), compared without asdict()'s deep copy of each one
        return {doc_id: r for doc_id, r in self.records.items() if self._loaded.get(doc_id) != vars(r)}

    def save(self) -> None:
        """Write the records this process added or changed (nothing to write:
        the file is not touched, so an unchanged inbox costs no write)."""
        if not self._changed():
            return
        with self.lock():
            changed = self._changed()
            on_disk = self._read()
            for doc_id, record in changed.items():
                on_disk[doc_id] = dict(vars(record))  # serialized below, never kept
            for doc_id, values in on_disk.items():
                if doc_id not in changed and self._loaded.get(doc_id) != values:
                    self.records[doc_id] = DocumentRecord(**values)  # another process's change
            self._loaded = dict(write_registry_file(self.warehouse, on_disk, changed.keys()))

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive among the processes of this machine (flock on a local
        warehouse; re-entrant within this object; a remote one has no lock and relies on its writers taking
        turns)."""
        if not self.warehouse.is_local or self._holding:
            yield  # held already (a registration saving under its own lock): taken once
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.warehouse.path(self.LOCK_NAME).path, "a+b") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            self._holding = True
            try:
                yield
            finally:
                self._holding = False
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def get(self, doc_id: str) -> DocumentRecord:
        try:
            return self.records[doc_id]
        except KeyError:
            raise KeyError(f"document {doc_id!r} is not registered; add it with `duocthu ingest PATH` or drop it in the inbox") from None

    def active(self) -> list[DocumentRecord]:
        return [r for r in self.records.values() if r.status == "active"]
