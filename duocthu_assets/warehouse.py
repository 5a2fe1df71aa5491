"""The Parquet warehouse on disk: atomic writes, the content-addressed
source store, and the process-wide cache of decoded tables.

A write goes to a temporary name that no ``*.parquet`` glob matches, then is
renamed into place, so a reader (or a run killed mid-write) never sees a
partial file. The warehouse location is any fsspec/UPath URL (a local folder,
``memory://``, ``s3://``...). What each file holds is :mod:`.schemas`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import io
import os
import shutil
import threading
import time
import uuid
from collections import OrderedDict
from typing import Any, BinaryIO, Mapping

import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

from .model import SCHEMA_VERSION
from .schemas import ASSET_KEY, SCHEMA_VERSION_KEY

TMP_SUFFIX = ".tmp"
COPY_BLOCK = 1 << 20


class DecodedTables:
    """The tables of local Parquet files this process already decoded, keyed
    by the file's identity (path, device, inode, mtime and ctime in ns, size): a file is only
    ever replaced by a rename, which gives a new inode, so a changed file is
    never answered from here. In one run a file is read by the next stage and
    by every check on it; this decodes it once. Bounded by total table bytes,
    least recently used first out; each table counted with ``OVERHEAD``
    more than its buffers (a tiny document's table is ~1 KB of buffers and
    ~160 KB in memory: counted by buffers alone, 10,000 of them took 2 GB)."""

    OVERHEAD = 160 << 10  # bytes a decoded table holds beyond table.nbytes (measured on tiny documents)

    def __init__(self, max_bytes: int = 256 << 20):
        self.max_bytes = max_bytes
        self._tables: OrderedDict[tuple, pa.Table] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> pa.Table | None:
        with self._lock:
            table = self._tables.get(key)
            if table is not None:
                self._tables.move_to_end(key)
            return table

    def put(self, key: tuple, table: pa.Table) -> None:
        size = table.nbytes + self.OVERHEAD
        if size > self.max_bytes // 4:
            return
        with self._lock:
            if key in self._tables:
                return
            self._tables[key] = table
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, dropped = self._tables.popitem(last=False)
                self._bytes -= dropped.nbytes + self.OVERHEAD


DECODED = DecodedTables()


def _file_key(path: str, stat: os.stat_result) -> tuple:
    return (path, stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)


def stamp_table(asset: str, table: pa.Table) -> pa.Table:
    """``asset``'s table with the schema version and the asset's name in its
    schema metadata, as every file of the warehouse carries them."""
    metadata = dict(table.schema.metadata or {})
    metadata[SCHEMA_VERSION_KEY] = str(SCHEMA_VERSION).encode()
    metadata[ASSET_KEY] = asset.encode()
    return table.replace_schema_metadata(metadata)


def encode_parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", write_statistics=True, store_schema=True)
    return buffer.getvalue()


_READ_BACK_SCHEMAS: dict[bytes, pa.Schema] = {}


def as_read_back(table: pa.Table) -> pa.Table | None:
    """``table`` as reading its Parquet file back gives it, or None when that
    is not certain. The values come back as written; the schema may not: a
    list's child field comes back named ``element`` whatever it was written
    as (``item``). So the schema a read returns is learnt once per written
    schema, from an empty table's round trip, and the table is cast to it
    (renaming list children costs no copy)."""
    key = table.schema.serialize().to_pybytes()
    schema = _READ_BACK_SCHEMAS.get(key)
    if schema is None:
        schema = _READ_BACK_SCHEMAS[key] = parquet_from_bytes(encode_parquet(table.schema.empty_table())).schema
    try:
        cast = table.cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    return cast if cast.schema.equals(schema, check_metadata=True) else None


def parquet_from_bytes(data: bytes) -> pa.Table:
    """A whole Parquet file held in memory, as a table. ``ParquetFile.read``
    on one thread: for the small per-document files of this warehouse it is
    faster than ``pq.read_table``, which sets up a dataset scan (a 50-row
    chunks file: 5.6 vs 9.4 ms, machine shared), and it gives the same table
    and metadata."""
    return pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False)


class Warehouse:
    """Paths and atomic Parquet I/O under one root (any UPath)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = UPath(root)

    def __repr__(self) -> str:
        return f"Warehouse({str(self.root)!r})"

    @property
    def is_local(self) -> bool:
        return self.root.protocol in ("", "file", "local")

    def path(self, *parts: str) -> UPath:
        return self.root.joinpath(*parts)

    def asset_path(self, asset: str, doc_id: str | None = None) -> UPath:
        if doc_id is None:
            return self.path(asset, "index.parquet")
        return self.path(asset, f"{doc_id}.parquet")

    # -- bytes ---------------------------------------------------------------
    def write_bytes_atomic(self, target: UPath, data: bytes) -> int | None:
        return self.write_stream_atomic(target, io.BytesIO(data))

    def write_stream_atomic(self, target: UPath, source: BinaryIO) -> int | None:
        """Copy ``source`` to ``target`` in blocks through a temporary name no
        ``*.parquet`` glob matches, then rename: never a partial ``target``.
        The file's inode number when the warehouse is local."""
        tmp = target.with_name(temp_name(target.name))
        if self.is_local:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(tmp, "wb") as fh:
                    shutil.copyfileobj(source, fh, COPY_BLOCK)
                    fh.flush()
                    os.fsync(fh.fileno())
                    inode = os.fstat(fh.fileno()).st_ino
                os.replace(tmp, target)
                return inode
            except OSError as exc:
                raise _explained(exc, target) from exc
            finally:  # an error anywhere (disk full, interrupted): no temporary file stays behind
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with tmp.open("wb") as fh:
                shutil.copyfileobj(source, fh, COPY_BLOCK)
            tmp.fs.mv(tmp.path, target.path)
        except BaseException:
            with contextlib.suppress(Exception):
                tmp.unlink()
            raise
        return None

    def write_many_bytes_atomic(self, files: Mapping[UPath, bytes]) -> dict[UPath, int | None]:
        """Write several files, each atomically, with one durability barrier
        for all of them: every temporary file is written, then the file system
        is synced once, then each is renamed into place. A step writing 100
        documents pays one sync, not 100 fsyncs, each of which on ext4 also
        waits for whatever else the machine wrote (the event log's WAL).
        Each file's inode number when the warehouse is local."""
        if not self.is_local or len(files) < 2 or not _syncfs_available():
            return {target: self.write_bytes_atomic(target, data) for target, data in files.items()}
        inodes: dict[UPath, int | None] = {}
        written: list[tuple[str, UPath]] = []
        target = next(iter(files))
        try:
            for target, data in files.items():
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(temp_name(target.name)).path
                written.append((tmp, target))
                with open(tmp, "wb") as fh:
                    fh.write(data)
                    inodes[target] = os.fstat(fh.fileno()).st_ino
            _syncfs(written[0][0])
            while written:
                tmp, target = written[0]
                os.replace(tmp, target.path)
                written.pop(0)
            return inodes
        except OSError as exc:
            raise _explained(exc, target) from exc
        finally:
            for tmp, _ in written:  # interrupted: no temporary file is left behind
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    # -- parquet -------------------------------------------------------------
    def write_table(self, asset: str, table: pa.Table, doc_id: str | None = None) -> UPath:
        target = self.asset_path(asset, doc_id)
        table = stamp_table(asset, table)
        self._remember_written(target, table, self.write_bytes_atomic(target, encode_parquet(table)))
        return target

    def write_tables(self, asset: str, tables: Mapping[str, pa.Table]) -> None:
        """``write_table`` for each document's table, with one durability
        barrier for all (see ``write_many_bytes_atomic``)."""
        stamped = {self.asset_path(asset, doc_id): stamp_table(asset, tables[doc_id]) for doc_id in sorted(tables)}
        inodes = self.write_many_bytes_atomic({target: encode_parquet(table) for target, table in stamped.items()})
        for target, table in stamped.items():
            self._remember_written(target, table, inodes.get(target))

    def _remember_written(self, target: UPath, table: pa.Table, inode: int | None) -> None:
        """Keep the table a read of the file just written will return, so the
        next stage and the checks do not decode it again. Keyed by the file's
        identity once renamed into place, and only if it is still the file
        this process wrote (same inode)."""
        if inode is None:
            return
        as_read = as_read_back(table)
        if as_read is None:
            return
        try:
            stat = os.stat(target.path)
        except FileNotFoundError:
            return
        if stat.st_ino == inode:
            DECODED.put(_file_key(target.path, stat), as_read)

    def read_table(self, asset: str, doc_id: str | None = None) -> pa.Table | None:
        target = self.asset_path(asset, doc_id)
        if self.is_local:
            return self._read_local_table(target)
        if not target.exists():
            return None
        table = parquet_from_bytes(target.read_bytes())
        check_schema_version(table, target)
        return table

    def read_table_and_sha256(self, asset: str, doc_id: str | None = None) -> tuple[pa.Table | None, str]:
        """The table and the sha256 of its file's bytes (``"missing"`` when
        there is no file): what an index built from the file records as its
        source."""
        target = self.asset_path(asset, doc_id)
        if self.is_local:
            read = self._read_local_table(target, with_sha256=True)
            return read if read is not None else (None, "missing")
        if not target.exists():
            return None, "missing"
        data = target.read_bytes()
        table = parquet_from_bytes(data)
        check_schema_version(table, target)
        return table, hashlib.sha256(data).hexdigest()

    def _read_local_table(self, target: UPath, with_sha256: bool = False) -> Any:
        path = target.path
        try:
            with open(path, "rb") as fh:
                key = _file_key(path, os.fstat(fh.fileno()))
                table = DECODED.get(key)
                data = fh.read() if table is None or with_sha256 else b""
                if table is None:
                    table = parquet_from_bytes(data)
                    check_schema_version(table, target)
                    DECODED.put(key, table)
        except FileNotFoundError:
            return None
        return (table, hashlib.sha256(data).hexdigest()) if with_sha256 else table

    def remove(self, asset: str, doc_id: str) -> bool:
        target = self.asset_path(asset, doc_id)
        if target.exists():
            target.unlink()
            return True
        return False

    def doc_ids(self, asset: str) -> list[str]:
        folder = self.path(asset)
        if not folder.exists():
            return []
        return sorted(p.name[: -len(".parquet")] for p in folder.iterdir() if p.name.endswith(".parquet"))

    # -- content-addressed source store --------------------------------------
    def source_path(self, sha256: str) -> UPath:
        return self.path("sources", sha256[:2], sha256)

    def keep_source(self, sha256: str, data: bytes) -> str:
        target = self.source_path(sha256)
        if not target.exists():
            self.write_bytes_atomic(target, data)
        return f"sources/{sha256[:2]}/{sha256}"

    def keep_source_file(self, sha256: str, path: str | os.PathLike[str]) -> str:
        """:meth:`keep_source` for a file too large to hold in memory."""
        target = self.source_path(sha256)
        if not target.exists():
            with open(path, "rb") as fh:
                self.write_stream_atomic(target, fh)
        return f"sources/{sha256[:2]}/{sha256}"

    def read_source(self, sha256: str) -> bytes:
        return self.source_path(sha256).read_bytes()


class SchemaVersionError(RuntimeError):
    pass


class DiskFullError(OSError):
    """No space left while writing into the warehouse, said so."""


def temp_name(name: str) -> str:
    """The temporary name a file is written under before its rename: hidden,
    never ``*.parquet``, carrying the writer's pid so a later ingest can tell
    the leftovers of a dead writer (:func:`remove_stale_temp_files`)."""
    return f".{name}.{os.getpid()}-{uuid.uuid4().hex}{TMP_SUFFIX}"


def _explained(exc: OSError, target: Any) -> OSError:
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        free = ""
        with contextlib.suppress(OSError):
            free = f" ({shutil.disk_usage(os.path.dirname(str(target))).free // (1 << 20):,} MiB free)"
        return DiskFullError(exc.errno, f"no space left on device while writing {target}{free} — free some space (or "
                             "move the warehouse to a larger disk) and ingest again; what was written is complete")
    return exc


def remove_stale_temp_files(root: str | os.PathLike[str], skip: tuple[str, ...] = ("dagster_home",)) -> list[str]:
    """Delete the temporary files (:func:`temp_name`) of writers that are no
    longer running (killed mid-write, or a disk that filled); a live writer's
    are left alone. Returns what was removed."""
    removed = []
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == os.fspath(root):
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames:
            if not (name.startswith(".") and name.endswith(TMP_SUFFIX)):
                continue
            pid = _writer_pid(name)
            if pid is not None and process_alive(pid):
                continue
            if pid is None:  # an older name without the writer's pid: only when surely abandoned
                with contextlib.suppress(OSError):
                    if time.time() - os.stat(os.path.join(dirpath, name)).st_mtime < STALE_AFTER_S:
                        continue
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(dirpath, name))
                removed.append(os.path.join(dirpath, name))
    return removed


STALE_AFTER_S = 3600


def _writer_pid(name: str) -> int | None:
    """The pid in ``.<name>.<pid>-<uuid>.tmp``; None for the older
    ``.<name>.<uuid>.tmp`` (its writer unknown: removed only by age)."""
    stem = name[: -len(TMP_SUFFIX)]
    last = stem.rsplit(".", 1)[-1]
    pid, _, rest = last.partition("-")
    return int(pid) if pid.isdigit() and rest else None


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one we may not signal counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_LIBC = None


def _syncfs_available() -> bool:
    """``syncfs(2)`` (Linux): flushes one file system, and waits for it."""
    global _LIBC
    if _LIBC is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _LIBC = libc if hasattr(libc, "syncfs") else False
        except OSError:
            _LIBC = False
    return bool(_LIBC)


def _syncfs(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        if _LIBC.syncfs(fd) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"syncfs failed: {os.strerror(err)}", path)
    finally:
        os.close(fd)


def check_schema_version(table: pa.Table, where: object) -> None:
    found = (table.schema.metadata or {}).get(SCHEMA_VERSION_KEY)
    if found is not None and int(found) != SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{where} was written with schema_version {int(found)}, this code reads {SCHEMA_VERSION}: "
            "re-ingest (duocthu ingest ...) to rewrite it"
        )
