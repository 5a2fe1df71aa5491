"""What a failed run or ingest says to the user: the cause of a step's
error, and the advice for a disk that filled while the warehouse was written.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path


def root_cause(error) -> str:
    """The innermost cause of a step's error (a ``SerializableErrorInfo``),
    which says what happened: "Error occurred while executing op crops" does
    not; "no space left on device while writing …" does."""
    while getattr(error, "cause", None) is not None and (error.cls_name or "").startswith("Dagster"):
        error = error.cause  # Dagster's wrappers ("Error occurred while executing op …") say where, not what
    return (error.message or "").strip() or "run failed"


def _chain(exc: BaseException):
    """``exc`` and the errors it was raised from or during, innermost last
    (each once: a chain may loop)."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def disk_full_message(exc: BaseException, warehouse_root: str) -> str | None:
    """For an ingest that stopped because the disk filled (Dagster's SQLite
    event log says only "disk I/O error" or "database or disk is full"), what
    to tell the user; None for any other error."""
    try:
        free = shutil.disk_usage(Path(warehouse_root).absolute()).free
    except OSError:
        free = None
    for error in _chain(exc):
        text = str(error).lower()
        full = (isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)) or "no space left" in text
        if isinstance(error, sqlite3.OperationalError) or "sqlite3.operationalerror" in text:
            # SQLite says "disk I/O error" when a write hits a full disk: believed when the disk is (nearly) full
            full = full or "disk is full" in text or ("disk i/o error" in text and free is not None and free < 64 << 20)
        if full:
            room = f" ({free // (1 << 20):,} MiB free now)" if free is not None else ""
            said = str(error).splitlines()[0].split(" — free some space")[0]  # a DiskFullError already advises: once is enough
            return (f"no space left on device while writing the warehouse {warehouse_root}{room}: {said} — "
                    "free some space (or move the warehouse to a larger disk) and run the same ingest again; what was "
                    "written is complete, and the documents not recorded as built are built again")
    return None


def unwritable_message(exc: BaseException, warehouse_root: str) -> str | None:
    """For an ingest that stopped because the warehouse cannot be written
    (permissions, a read-only file system), what to tell the user instead
    of a traceback; None for any other error."""
    for error in _chain(exc):
        denied = isinstance(error, PermissionError) or (isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EROFS))
        text = str(error).lower()
        if denied or "readonly database" in text or "unable to open database file" in text:
            where = f" ({error.filename})" if isinstance(error, OSError) and error.filename else ""
            why = (error.strerror if isinstance(error, OSError) else None) or str(error).splitlines()[0]
            return (f"the warehouse {warehouse_root} cannot be written{where}: {why} — give this user write access to "
                    "it, or choose another folder with --warehouse")
    return None
