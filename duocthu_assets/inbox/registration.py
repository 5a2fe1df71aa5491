"""Registering documents: each file found under an inbox gets a record in
the registry (:mod:`.registry`), its settings from its folder's
``collection.toml`` and its sha256; and whether a record is due to be built.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping

from .scan import display_name, doc_id_for
from .registry import DocumentRecord, Registry
from ..settings import CollectionSettingsError, Settings, collection_settings


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def register_files(
    registry: Registry,
    found: list[tuple[Path, Path]],
    profile_override: str | None = None,
    refused: Mapping[Path, str] | None = None,
) -> tuple[list[DocumentRecord], list[str]]:
    """Register (or refresh) each found file; returns their records, and a
    line for each file that vanished since it was found. The sha256 is
    recomputed only when size or mtime changed.

    One bad input fails only itself: a file in ``refused`` (see
    :func:`.scan.scan`), a file under a ``collection.toml`` that cannot be
    used, or a file that cannot be read is registered with ``refused`` set
    to the reason (its document is rejected with it, and never read when it
    is a link leading out of the inbox); a file that vanished since it was
    found is left out, with a line among the problems returned."""
    refused = refused or {}
    records = []
    problems: list[str] = []
    settings_cache: dict[tuple[str, str | None], Settings | str] = {}
    as_dict: dict[int, tuple[Settings, dict]] = {}  # id(settings) -> (it, its registry form): made once per folder
    # paths handled as strings: at 10,000 files, pathlib's parsing and hashing per file cost more than the stat
    roots: dict[Path, str] = {}
    identity = FileIdentity(registry)
    for root, file in found:
        path = str(file)
        under = roots.get(root)
        if under is None:
            under = roots[root] = os.path.join(str(root), "")
        relative = path[len(under):].replace(os.sep, "/") if path.startswith(under) else file.relative_to(root).as_posix()
        doc_id = doc_id_for(relative)
        known = identity.doc_id_of(path, doc_id)  # one file, one document: however it was reached
        if known is not None:
            doc_id = known
        else:
            taken = registry.records.get(doc_id)
            if taken is not None and taken.path != path and os.path.exists(taken.path):
                doc_id = doc_id_for(relative, force_hash=True)  # "a/b.pdf" beside "a-b.pdf"
        key = (os.path.dirname(path), profile_override)
        if key not in settings_cache:
            try:
                settings_cache[key] = collection_settings(file.parent, profile_override, root=root)
            except CollectionSettingsError as exc:
                settings_cache[key] = f"refused with its folder: {exc}"
        settings = settings_cache[key]
        is_refused = bool(refused) and file in refused
        why = refused[file] if is_refused else ""
        if isinstance(settings, str):
            why, settings = why or settings, Settings()
        try:
            stat = os.lstat(path) if is_refused else os.stat(path)
        except FileNotFoundError:
            problems.append(f"{display_name(str(file))}: vanished while being ingested — add it again")
            continue
        except OSError as exc:
            stat, why = None, why or f"cannot look at the file: {exc.strerror or exc} — check its permissions"
        record = registry.records.get(doc_id)
        if id(settings) not in as_dict:  # the object is kept in the entry, so its id is never reused
            as_dict[id(settings)] = (settings, settings.as_record())
        settings_dict = as_dict[id(settings)][1]
        if record is None or (record.path != path and known is None):
            parts = Path(relative).parts
            record = DocumentRecord(
                doc_id=doc_id,
                path=path,
                source_name=display_name(relative),
                collection=display_name(parts[0]) if len(parts) > 1 else "",
                settings=dict(settings_dict),
            )
            registry.records[doc_id] = record
        if record.settings != settings_dict:  # equal: the record keeps its object (shared with the registry's table)
            record.settings = dict(settings_dict)
        record.status = "active"
        if stat is not None and not is_refused and (
            record.size_bytes != stat.st_size or record.mtime_ns != stat.st_mtime_ns or not record.sha256 or record.refused
        ):
            try:
                record.sha256 = file_sha256(file)
            except FileNotFoundError:
                problems.append(f"{display_name(str(file))}: vanished while being ingested — add it again")
                records.append(record)
                record.refused = why or "the file vanished while being ingested — add it again"
                continue
            except OSError as exc:
                record.sha256 = ""
                why = why or f"cannot read the file: {exc.strerror or exc} — check its permissions and ingest again"
        if stat is not None:
            record.size_bytes = stat.st_size
            record.mtime_ns = stat.st_mtime_ns
        if is_refused:
            record.sha256 = ""
        record.refused = why
        records.append(record)
    return records, problems


class FileIdentity:
    """Which registered document a file already is: the record with its path
    (as given), else the record whose file has the same real path (a link, a
    folder reached through a link). Active records first, then the doc_id the
    path would get, then the smallest: the same choice from every ingest, so
    a file ingested through its folder and then its subfolder (two relative
    paths, two slugs) stays one document. Real paths of the records are
    resolved once, and only when a path not registered as such turns up."""

    def __init__(self, registry: Registry):
        self.registry = registry
        self.by_path: dict[str, list[str]] = {}
        for doc_id, record in registry.records.items():
            self.by_path.setdefault(record.path, []).append(doc_id)
        self._by_real: dict[str, list[str]] | None = None

    def _real(self) -> dict[str, list[str]]:
        if self._by_real is None:
            self._by_real = {}
            for path, doc_ids in self.by_path.items():
                self._by_real.setdefault(os.path.realpath(path), []).extend(doc_ids)
        return self._by_real

    def doc_id_of(self, path: str, preferred: str) -> str | None:
        candidates = self.by_path.get(path)
        if candidates is None:
            candidates = self._real().get(os.path.realpath(path))
        if not candidates:
            return None
        records = self.registry.records
        return min(candidates, key=lambda d: (records[d].status != "active", d != preferred, d))


def mark_removed(registry: Registry, present_paths: set[str], under_root: Path) -> list[DocumentRecord]:
    """Mark active documents under ``under_root`` whose file is gone."""
    removed = []
    prefix = os.path.join(str(under_root), "")
    for record in registry.active():
        if record.path.startswith(prefix) and record.path not in present_paths and not os.path.exists(record.path):
            record.status = "removed"
            removed.append(record)
    return removed


def retire_duplicates(registry: Registry, present: list[DocumentRecord]) -> list[DocumentRecord]:
    """Mark removed every other active document of a file registered now
    (the same path under two doc_ids, as an older version made when a
    folder and then its subfolder were ingested): one file, one document."""
    kept = {r.path: r.doc_id for r in present}
    removed = []
    for record in registry.active():
        if kept.get(record.path, record.doc_id) != record.doc_id:
            record.status = "removed"
            removed.append(record)
    return removed


def needs_build(record: DocumentRecord, code_version: str) -> bool:
    """A document is rebuilt when its content, its settings or the code changed
    since it was last built (or it was never built)."""
    built = record.built
    return not (
        built.get("sha256") == record.sha256
        and built.get("code_version") == code_version
        and built.get("settings") == record.settings
        and built.get("status") == record.status
        and built.get("refused", "") == record.refused
    )
