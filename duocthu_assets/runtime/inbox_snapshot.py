"""What the last ingest of an inbox found, remembered so that the next one
over the same, unchanged inbox (a no-op `duocthu ingest`, a tick of the
nightly schedule) costs a listing of the inbox, not a pass over every
document's record, its check statuses and its index entry.

A snapshot (``<DAGSTER_HOME>/duocthu-inbox-snapshot.json``, one slot) holds
the summary of every document as a no-op ingest would print it, under a key
that names everything that summary depends on:

- the inbox: every file and folder under the roots given (hidden folders
  aside, as :func:`duocthu_assets.inbox.scan` skips them) with its size,
  mtime, ctime and inode, listed BEFORE the ingest scanned it (a file that
  changed while it ran makes the next listing differ);
- the registry file (``registry.json``: inode, size, mtime): every writer of
  a record replaces it, so any registration, build or removal since changes it;
- the warehouse's folders (inode, mtime, ctime of each): a per-document file
  written, renamed into place or deleted, by a run or by hand, changes its
  folder;
- the instance's latest run (id, status, last update) and that no run is
  unfinished: check results, and so which documents pass, change only in runs;
- the code version, the profile and the roots given.

Anything else (a symlink or a special file in the inbox, a folder that
cannot be read, problems reported, a run error) writes no snapshot, and the
ingest takes its full path. What this trusts: a file rewritten in place with
the same size, mtime and ctime (a clock set back by hand) is not seen, as
``register_files`` would not see it either; a dynamic partition deleted by
hand in the UI (no run) is added back by the next ingest that finds a change,
not by a no-op. Nothing here writes the warehouse.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from typing import Iterable

import dagster as dg

from .gates import UNFINISHED, home_file

NAME = "duocthu-inbox-snapshot.json"


def roots_of(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    return [os.path.normpath(os.path.abspath(os.fspath(p))) for p in paths]


def listing_digest(paths: Iterable[str | os.PathLike[str]]) -> str | None:
    """A digest of every entry under ``paths`` (name, type, size, mtime,
    ctime, inode), or None when the inbox holds what only the full scan
    judges (a symlink, a pipe or device, a folder that cannot be read, a
    path that does not exist)."""
    digest = hashlib.sha256()
    for root in roots_of(paths):
        try:
            top = os.lstat(root)
        except OSError:
            return None
        digest.update(f"{root}\0{top.st_mode}\0{top.st_size}\0{top.st_mtime_ns}\0{top.st_ctime_ns}\0{top.st_ino}\n"
                      .encode("utf-8", "surrogateescape"))
        if stat.S_ISREG(top.st_mode):
            continue
        if not stat.S_ISDIR(top.st_mode):
            return None
        folders = [root]
        while folders:
            folder = folders.pop()
            lines = []
            try:
                with os.scandir(folder) as entries:
                    for entry in sorted(entries, key=lambda e: e.name):
                        st = entry.stat(follow_symlinks=False)
                        if stat.S_ISDIR(st.st_mode):
                            if entry.name.startswith("."):
                                continue  # scan() never looks into a hidden folder
                            folders.append(entry.path)
                        elif not stat.S_ISREG(st.st_mode):
                            return None
                        lines.append(f"{entry.path}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}")
            except OSError:
                return None
            digest.update("\n".join(lines).encode("utf-8", "surrogateescape"))
            digest.update(b"\n\n")
    return digest.hexdigest()


def warehouse_state(root: str) -> list | None:
    """The registry file's identity and each folder of the warehouse (its
    Dagster home aside, which the runs' key covers)."""
    try:
        registry = os.stat(os.path.join(root, "registry.json"))
        with os.scandir(root) as entries:
            folders = sorted(
                (e.name, s.st_ino, s.st_mtime_ns, s.st_ctime_ns)
                for e in entries
                if e.is_dir(follow_symlinks=False) and e.name != "dagster_home"
                for s in [e.stat(follow_symlinks=False)]
            )
    except OSError:
        return None
    return [[registry.st_ino, registry.st_size, registry.st_mtime_ns], folders]


def runs_state(instance: dg.DagsterInstance) -> list | None:
    """The latest run (id, status, last update); None while any run is unfinished."""
    if instance.get_run_records(filters=dg.RunsFilter(statuses=UNFINISHED), limit=1):
        return None
    latest = instance.get_run_records(limit=1)
    if not latest:
        return []
    record = latest[0]
    return [record.dagster_run.run_id, record.dagster_run.status.value, record.update_timestamp.timestamp()]


def snapshot_key(
    instance: dg.DagsterInstance, warehouse_root: str, paths: list[str], profile: str | None, version: str, listing: str | None
) -> str | None:
    """The key of the state now (None: no snapshot can hold for it)."""
    if listing is None:
        return None
    warehouse = warehouse_state(warehouse_root)
    if warehouse is None:
        return None
    runs = runs_state(instance)
    if runs is None:
        return None
    parts = {"roots": roots_of(paths), "profile": profile or "", "code_version": version, "listing": listing,
             "warehouse": warehouse, "runs": runs}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()


def _path(instance: dg.DagsterInstance) -> str | None:
    return home_file(instance, NAME)


def load(instance: dg.DagsterInstance, key: str | None) -> dict | None:
    """The snapshot saved under ``key`` (``documents``: the summaries as
    dicts; ``all_present``: every active document under the roots has its
    file), or None."""
    path = _path(instance)
    if key is None or path is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("documents"), list):
        return None
    return data


def save(instance: dg.DagsterInstance, key: str | None, documents: list[dict], all_present: bool) -> None:
    """Remember ``documents`` under ``key`` (nothing when there is no key);
    written atomically, and a write that fails leaves no snapshot."""
    path = _path(instance)
    if path is None:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        if key is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as fh:
            # dumps, not dump: dump() feeds the file through the pure-Python encoder
            fh.write(json.dumps({"key": key, "all_present": all_present, "documents": documents}, ensure_ascii=False, separators=(",", ":")))
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        with contextlib.suppress(OSError):
            os.unlink(path)
