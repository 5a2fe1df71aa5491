"""Consolidated tables: the per-document Parquet files of each asset compacted
into a few part files, so a query over the warehouse opens 16 files, not one
per document.

Layout (next to the per-document files, which stay the pipeline's own)::

    <warehouse>/tables/<asset>/part-00.parquet ... part-15.parquet
    <warehouse>/tables/<asset>/.compacted        the doc_ids it holds; its mtime: when the last compaction began

- A document's rows all live in one part: ``part_of(doc_id)`` (the first four
  bytes of ``sha256(doc_id)``, modulo :data:`PARTS`). Inside a part, documents
  follow in ``doc_id`` order, each document's rows in the order of its own
  file. The columns are exactly the asset's per-document columns, and the
  rows exactly the union of its per-document files: blocked and rejected
  documents are in it as they are in ``<asset>/*.parquet`` (the search index
  still selects documents by their checks); a removed document's derived
  files are deleted, so it leaves the tables at the next compaction.
- **Atomic per document**: a part is replaced by one rename (written under a
  hidden temporary name no ``*.parquet`` glob matches, flushed first), and a
  document is in one part, so a reader sees each document's rows either all
  before or all after a replacement, never half. A crash before the renames
  leaves every part as it was; a crash among them leaves each part old or
  new, and the next compaction completes the rest.
- **Deterministic**: a part's bytes depend only on the rows of its documents'
  files (same writer settings, no timestamps): compacting incrementally gives
  the same bytes as compacting from nothing (tests/warehouse/test_compaction.py).
- **Incremental**: only the parts holding a new, replaced or gone document
  are rewritten, from the part's previous rows plus the changed documents'
  files (see :func:`compact_asset` for how a change is told). Deleting the
  marker only makes the next compaction rebuild every part (to the same bytes).

Nothing here imports Dagster; the asset is ``assets/warehouse_tables.py``.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import io
import json
import os
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .warehouse import Warehouse, check_schema_version, parquet_from_bytes, stamp_table, temp_name

TABLES = "tables"
PARTS = 16
ROW_GROUP_ROWS = 16_384
MARKER_NAME = ".compacted"
LOCK_NAME = ".compaction.lock"

COMPACTED_ASSETS = ("raw_documents", "parsed_documents", "segments", "lifted_blocks", "crops", "chunks", "embeddings")
"""Every per-document asset (``search_index`` is one file already)."""
DERIVED = COMPACTED_ASSETS[1:]
"""Those a removed document leaves (its ``raw_documents`` row stays, saying ``removed``)."""


class CompactionError(RuntimeError):
    """A part cannot be built (documents of one asset whose files disagree on the schema)."""


@functools.lru_cache(maxsize=1 << 17)
def part_of(doc_id: str, parts: int = PARTS) -> int:
    """The part holding ``doc_id``'s rows (remembered: a compaction of the
    seven assets asks it twice per document of each)."""
    digest = hashlib.sha256(doc_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "big") % parts


def part_name(part: int) -> str:
    return f"part-{part:02d}.parquet"


def tables_glob(warehouse: Warehouse, asset: str) -> str:
    """What to query: ``<warehouse>/tables/<asset>/*.parquet``."""
    return str(warehouse.path(TABLES, asset)) + "/*.parquet"


def encode_part(table: pa.Table) -> bytes:
    """A part file's bytes: one contiguous table, fixed writer settings."""
    buffer = io.BytesIO()
    pq.write_table(
        table.combine_chunks(),
        buffer,
        compression="zstd",
        write_statistics=True,
        store_schema=True,
        row_group_size=ROW_GROUP_ROWS,
    )
    return buffer.getvalue()


@dataclass
class AssetCompaction:
    """What one compaction did for one asset."""

    asset: str
    documents: int | None = 0  # per-document files the tables now hold (None: not listed, the folder is unchanged)
    changed: list[str] = field(default_factory=list)  # new or replaced documents
    gone: list[str] = field(default_factory=list)  # documents that left
    parts_written: list[int] = field(default_factory=list)
    rows_written: int = 0  # rows of the parts rewritten


# -- the pure steps --------------------------------------------------------------
def split_by_document(table: pa.Table) -> dict[str, pa.Table]:
    """A part's rows back into one table per document (rows are grouped by
    document, so each document is one slice)."""
    if table.num_rows == 0:
        return {}
    runs = pc.run_end_encode(table.column("doc_id").combine_chunks())
    ends = runs.run_ends.to_pylist()
    values = runs.values.to_pylist()
    pieces, start = {}, 0
    for doc_id, end in zip(values, ends):
        if doc_id in pieces:
            raise CompactionError(f"part rows of {doc_id!r} are not contiguous")
        pieces[doc_id] = table.slice(start, end - start)
        start = end
    return pieces


def assemble_part(asset: str, pieces: dict[str, pa.Table], fallback_schema: pa.Schema | None) -> pa.Table | None:
    """The part's table: its documents' rows in ``doc_id`` order, the asset's
    schema metadata. None when it has no document and no previous schema."""
    ordered = [pieces[doc_id].replace_schema_metadata(None) for doc_id in sorted(pieces)]
    if not ordered:
        if fallback_schema is None:
            return None
        return stamp_table(asset, fallback_schema.remove_metadata().empty_table())
    first = ordered[0].schema
    for doc_id, piece in zip(sorted(pieces), ordered):
        if not piece.schema.equals(first):
            raise CompactionError(
                f"{asset}: the file of {doc_id!r} has another schema than the file of {sorted(pieces)[0]!r} "
                f"({_schema_difference(first, piece.schema)}); ingest both again with the same settings and compact again"
            )
    return stamp_table(asset, pa.concat_tables(ordered))


def _schema_difference(a: pa.Schema, b: pa.Schema) -> str:
    for name in dict.fromkeys(a.names + b.names):
        fa = a.field(name) if name in a.names else None
        fb = b.field(name) if name in b.names else None
        if fa is None or fb is None or not fa.equals(fb):
            return f"column {name}: {fa.type if fa else 'absent'} vs {fb.type if fb else 'absent'}"
    return "field order"


# -- local compaction --------------------------------------------------------------
def _document_files(folder: str) -> dict[str, int]:
    """doc_id -> last change (ns: the later of mtime and ctime; a rename into
    place sets the ctime) of ``<asset>/<doc_id>.parquet``, hidden temporaries aside."""
    found = {}
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return {}
    for entry in entries:
        name = entry.name
        if name.endswith(".parquet") and not name.startswith("."):
            with contextlib.suppress(FileNotFoundError):
                stat = entry.stat()
                found[name[: -len(".parquet")]] = max(stat.st_mtime_ns, stat.st_ctime_ns)
    return found


def _read_table(path: str) -> pa.Table | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return None
    table = parquet_from_bytes(data)
    check_schema_version(table, path)
    return table


@contextlib.contextmanager
def _locked(folder: str) -> Iterator[None]:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, LOCK_NAME), "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def compact_asset(warehouse: Warehouse, asset: str, parts: int = PARTS, only: Iterable[str] | None = None) -> AssetCompaction:
    """Bring ``tables/<asset>/`` up to date with ``<asset>/*.parquet``,
    rewriting only the parts whose documents changed.

    What changed is told without any state that is not the tables' own: the
    marker ``tables/<asset>/.compacted`` lists the documents the last
    complete compaction found (a JSON list of doc_ids) and carries, as its
    mtime, the file system's clock when that compaction began; a
    per-document file renamed into place since then has a later ctime; a
    document gone is listed there but has no file any more. When the
    asset's folder itself has not changed since the marker (no file renamed
    in or deleted), nothing is read at all. No marker: every part is rebuilt
    from the files; a part file missing: its documents are. A document the
    marker lists, unchanged since, with no row in its part's previous rows
    has none in its file either: the file is not read again (documents
    without crops or lifted blocks were read at every compaction of their
    part: 1,250 files per add at 10,000 tiny CSVs).

    ``only``: the documents whose files the caller wrote or removed (the
    ingest that just built them). Then the folder is not listed: those
    documents' files are looked at, the parts holding them rewritten, and
    the marker lists them but keeps its time, so the next compaction without
    ``only`` still lists the folder and takes in whatever else changed since
    the last complete listing (another process's runs, a file deleted by
    hand). Without a usable marker, or with a part of a listed document
    missing, ``only`` is ignored."""
    if not warehouse.is_local:
        raise CompactionError(f"{warehouse.root}: compaction needs a local warehouse (renames are not atomic on an object store)")
    report = AssetCompaction(asset)
    source_dir = warehouse.path(asset).path
    out_dir = warehouse.path(TABLES, asset).path
    with _locked(warehouse.path(TABLES).path):
        os.makedirs(out_dir, exist_ok=True)
        marker = os.path.join(out_dir, MARKER_NAME)
        probe = os.path.join(out_dir, temp_name(MARKER_NAME))
        try:
            open(probe, "wb").close()  # this compaction's start, on the file system's own clock
            started = _clock_past(probe, os.stat(probe).st_mtime_ns)
            since, listed = _read_marker(marker)
            if since is not None and _unchanged_since(source_dir, since):
                report.documents = None
                return report
            present = set(os.listdir(out_dir))
            hinted = since is not None and only is not None and all(
                part_name(part) in present for part in {part_of(d, parts) for d in listed}
            )
            if hinted:
                current, changed, gone = _hinted_files(source_dir, listed, only)
                started = since  # only these were looked at: the next full listing starts where the last one did
            else:
                current = _document_files(source_dir)
            report.documents = len(current)
            where = {d: part_of(d, parts) for d in current}
            rebuild = {p for p in range(parts) if since is None or part_name(p) not in present}
            if not hinted:
                changed = sorted(d for d, at in current.items() if since is None or at >= since or where[d] in rebuild)
                gone = sorted(set(listed) - set(current))
            changed_set = set(changed)
            listed_set = set(listed)
            affected = sorted({where[d] for d in changed} | {part_of(d, parts) for d in gone}) if since else list(range(parts))
            by_part: dict[int, list[str]] = {}
            for doc_id, part in where.items():
                by_part.setdefault(part, []).append(doc_id)
            files: dict[str, bytes] = {}
            for part in affected:
                target = os.path.join(out_dir, part_name(part))
                previous = _read_table(target) if part not in rebuild else None
                old_pieces = split_by_document(previous) if previous is not None else {}
                pieces: dict[str, pa.Table] = {}
                for doc_id in by_part.get(part, []):
                    if doc_id in old_pieces and doc_id not in changed_set:
                        pieces[doc_id] = old_pieces[doc_id]
                        continue
                    if previous is not None and doc_id in listed_set and doc_id not in changed_set:
                        continue  # compacted, unchanged since, and no row in its part: its file has none (not read again)
                    table = _read_table(os.path.join(source_dir, f"{doc_id}.parquet"))
                    if table is None:  # deleted since it was listed: it leaves
                        current.pop(doc_id)
                    else:
                        pieces[doc_id] = table
                fallback = previous.schema if previous is not None else _existing_schema(target)
                table = assemble_part(asset, pieces, fallback)
                if table is None:
                    continue
                files[target] = encode_part(table)
                report.parts_written.append(part)
                report.rows_written += table.num_rows
            _replace_all(warehouse, files)
            # complete: the marker lists the documents the tables now hold, and
            # its mtime says when this compaction began (what changed after, the next one takes)
            with open(probe, "wb") as fh:
                fh.write(json.dumps(sorted(current), ensure_ascii=False).encode("utf-8", "surrogatepass"))
            os.utime(probe, ns=(started, started))
            os.replace(probe, marker)
        except BaseException:
            # not compacted (a full disk): without its marker the next compaction
            # rebuilds every part, and the next ingest knows it must run one
            with contextlib.suppress(FileNotFoundError):
                os.unlink(marker)
            raise
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(probe)
        report.changed = changed
        report.gone = gone
    return report


def _hinted_files(folder: str, listed: list[str], only: Iterable[str]) -> tuple[dict[str, int], list[str], list[str]]:
    """The documents the tables hold after a compaction of ``only``: those
    listed before, plus each of ``only`` whose file exists, minus each whose
    file is gone. Returns them, the changed ones and the gone ones."""
    current = dict.fromkeys(listed, 0)
    changed, gone = [], []
    for doc_id in sorted(set(only)):
        if os.path.exists(os.path.join(folder, f"{doc_id}.parquet")):
            current[doc_id] = 0
            changed.append(doc_id)
        elif current.pop(doc_id, None) is not None:
            gone.append(doc_id)
    return current, changed, gone


def _clock_past(probe: str, start: int) -> int:
    """The file system's clock once it has moved past ``start``. Its
    timestamps are coarse (a few ms on Linux): a file written in the same
    tick just before this compaction began would otherwise read as changed
    to the next one. Files are read only after this returns, so whatever
    changes later has a later timestamp."""
    for _ in range(2000):
        os.utime(probe)  # now, on the file system's clock
        now = os.stat(probe).st_mtime_ns
        if now > start:
            return now
        time.sleep(0.0005)
    return start


def _unchanged_since(folder: str, since: int) -> bool:
    """No per-document file was added, replaced or removed in ``folder``
    since ``since``: each of those is a rename or an unlink in it, which sets
    the folder's mtime (its files are never written in place)."""
    try:
        stat = os.stat(folder)
    except FileNotFoundError:
        return False
    return max(stat.st_mtime_ns, stat.st_ctime_ns) < since


def _read_marker(marker: str) -> tuple[int | None, list[str]]:
    """When the last complete compaction began, and the documents it listed
    (None, [] when there is no usable marker)."""
    try:
        with open(marker, "rb") as fh:
            at = os.fstat(fh.fileno()).st_mtime_ns
            listed = json.loads(fh.read().decode("utf-8", "surrogatepass"))
    except (FileNotFoundError, ValueError):
        return None, []
    return (at, listed) if isinstance(listed, list) else (None, [])


def compact(
    warehouse: Warehouse, assets: tuple[str, ...] = COMPACTED_ASSETS, parts: int = PARTS, only: Iterable[str] | None = None
) -> dict[str, AssetCompaction]:
    """:func:`compact_asset` for each asset."""
    return {asset: compact_asset(warehouse, asset, parts, only) for asset in assets}


def _existing_schema(path: str) -> pa.Schema | None:
    try:
        return pq.read_schema(path)
    except (FileNotFoundError, OSError, pa.ArrowInvalid):
        return None


def _replace_all(warehouse: Warehouse, files: dict[str, bytes]) -> None:
    """Write every new part under its temporary name, make them durable
    together, then rename each into place: a crash before the renames leaves
    every part as it was."""
    if not files:
        return
    from upath import UPath

    warehouse.write_many_bytes_atomic({UPath(path): data for path, data in files.items()})
