"""Documents under an inbox: stable doc_ids, the files that are documents,
and the registry that maps partitions to files.

The registry (``<warehouse>/registry.json``, written atomically) is the
project's own record of every document it was given: where the file is, its
collection settings, its sha256 when last seen, and what it was last built
with. The inbox sensor, the nightly schedule and ``duocthu ingest`` all
register through :func:`register_files`, so a doc_id means the same file on
every path.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from .settings import COLLECTION_FILE, CollectionSettingsError, Settings, collection_settings
from .warehouse import Warehouse

MAX_DOC_ID = 64
_DOC_ID_DROP = re.compile(r"[^a-z0-9._-]+")
_DOTS = re.compile(r"\.{2,}")
_DASHES = re.compile(r"-{2,}")

# Files beside documents that are not documents: collection settings, gold
# annotations for tests and evaluation, notes.
SIDECAR_SUFFIXES = (".gold.json", ".boundaries.json", ".queries.json", ".md", ".toml", ".txt.license")
SIDECAR_NAMES = {COLLECTION_FILE, "README", "LICENSE", ".DS_Store", "Thumbs.db"}


def doc_id_for(relative_path: str, force_hash: bool = False) -> str:
    """A stable, readable slug of a path under the inbox: ``[a-z0-9._-]``, at
    most 64 characters, never ``..``; a short hash of the path is appended when
    the slug is not a faithful rendition of it (lossy characters, truncation),
    so two paths never share an id."""
    normalized = relative_path.replace(os.sep, "/").strip("/")
    lowered = normalized.lower().replace("/", "-").replace(" ", "_")
    if lowered.isascii():
        transliterated = lowered  # NFKD leaves ASCII as it is, with no combining mark to drop
    else:
        transliterated = unicodedata.normalize("NFKD", lowered.replace("đ", "d"))
        transliterated = "".join(c for c in transliterated if not unicodedata.combining(c))
    slug = _DOC_ID_DROP.sub("_", transliterated)
    slug = _DOTS.sub(".", slug)
    slug = _DASHES.sub("-", slug).strip("._-")
    faithful = slug == lowered and normalized == normalized.lower() and slug
    if force_hash or not faithful or len(slug) > MAX_DOC_ID:
        digest = hashlib.sha256(normalized.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        slug = f"{(slug or 'doc')[: MAX_DOC_ID - 9].rstrip('._-')}-{digest}"
    return slug


def display_name(name: str) -> str:
    """A path as text that any UTF-8 writer accepts (Parquet, JSON, a
    terminal): bytes of a name that are not valid UTF-8 show as U+FFFD. The
    record's ``path`` keeps the real name."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def is_document_file(path: Path) -> bool:
    return is_document_name(path.name)


def is_document_name(name: str) -> bool:
    if name.startswith(".") or name in SIDECAR_NAMES:
        return False
    lowered = name.lower()
    return not any(lowered.endswith(suffix) for suffix in SIDECAR_SUFFIXES)


@dataclass
class Discovery:
    """What a walk over the given files and folders found.

    ``found``: (root, file) for every document, in a stable order; a folder
    is its own root, a file's root is its folder. ``refused``: files among
    ``found`` that must not be read, and why (a symlink leading outside its
    root): each still gets a document and a status. ``problems``: paths that
    are not documents and could not be looked into (a folder that cannot be
    read, a dangling link, a link loop, a path that does not exist): each one
    line the summary prints."""

    found: list[tuple[Path, Path]] = field(default_factory=list)
    refused: dict[Path, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _resolve(path: Path) -> tuple[Path | None, str]:
    """The real path of ``path`` (every link followed), or None and why not."""
    try:
        return path.resolve(strict=True), ""
    except FileNotFoundError:
        return None, "dangling symlink (its target does not exist)"
    except RuntimeError:
        return None, "symlink loop"
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return None, "symlink loop"
        return None, f"cannot be resolved: {exc.strerror or exc}"


def scan(paths: Iterable[str | os.PathLike[str]]) -> Discovery:
    """Walk the given files and folders (see :class:`Discovery`).

    Each path is resolved once (``d/../d/x.csv`` is ``d/x.csv``), so one file
    is one document. Symlinks: a folder link is never descended (reported);
    a file link is followed only when its target lies inside the root it was
    found under and is not itself a document found there (then the file is
    one document, under its real path); a link leading outside the root is
    refused unread, so writing a link into the inbox never exposes another
    file. A folder that cannot be read is reported, not skipped silently."""
    out = Discovery()
    seen: dict[str, Path] = {}  # real path (a string: one hash per file, no pathlib parsing) -> where it was found
    links: list[tuple[Path, Path, Path]] = []  # (root, link, real target) inside the root
    for raw in paths:
        given = Path(os.path.normpath(Path(raw).absolute()))
        if given.is_dir():
            root, real_root = given, given.resolve()
            problems: list[str] = []

            def unreadable(error: OSError, problems: list[str] = problems) -> None:
                problems.append(f"{display_name(str(error.filename))}: folder cannot be read ({error.strerror}) — its documents were not ingested")

            for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
                folder = Path(dirpath)
                # no folder link is descended, so a plain file's real path is the
                # real root joined with its path under the root (no resolve() each)
                real_folder = os.path.join(str(real_root), os.path.relpath(dirpath, root))
                kept = []
                for d in sorted(dirnames):
                    if d.startswith("."):
                        continue
                    if (folder / d).is_symlink():
                        target, why = _resolve(folder / d)
                        what = why or f"symlink to the folder {display_name(str(target))}: not followed"
                        out.problems.append(f"{display_name(str(folder / d))}: {what}")
                        continue
                    kept.append(d)
                dirnames[:] = kept
                for name in sorted(filenames):
                    if not is_document_name(name):
                        continue
                    file = folder / name
                    try:
                        mode = os.lstat(os.path.join(dirpath, name)).st_mode
                    except FileNotFoundError:
                        out.problems.append(f"{display_name(str(file))}: vanished while being ingested — add it again")
                        continue
                    if stat.S_ISREG(mode):  # the common case: one lstat, no resolve
                        real = os.path.normpath(os.path.join(real_folder, name))
                        if real in seen:
                            continue
                        out.found.append((root, file))
                        seen[real] = file
                        continue
                    if stat.S_ISLNK(mode):
                        target, why = _resolve(file)
                        if target is None:
                            out.problems.append(f"{display_name(str(file))}: {why}")
                        elif not target.is_relative_to(real_root):
                            out.found.append((root, file))
                            out.refused[file] = (f"symlink leading outside the folder ingested ({display_name(str(target))}): "
                                                 "not followed, nothing read — copy the file into the inbox instead")
                        elif not target.is_file():
                            out.problems.append(f"{display_name(str(file))}: symlink to something that is not a regular file")
                        else:
                            links.append((root, file, target))
                        continue
                    if not file.is_file():
                        out.problems.append(f"{display_name(str(file))}: not a regular file (a pipe, socket or device) — skipped")
                        continue
                    real = str(file.resolve())
                    if real in seen:  # given twice (a folder and a file in it, or two spellings)
                        continue
                    out.found.append((root, file))
                    seen[real] = file
            out.problems.extend(problems)
        elif given.is_file() or given.is_symlink():
            real, why = _resolve(given)
            if real is None:
                out.problems.append(f"{display_name(str(raw))}: {why}")
            elif str(real) in seen:
                continue
            else:
                # a file named on the command line is read where it was named (a link
                # to it included: the user chose it), so its folder's collection.toml
                # applies; one file reached by two spellings is still one document
                out.found.append((given.parent, given))
                seen[str(real)] = given
        else:
            out.problems.append(f"{display_name(str(raw))}: no such file or folder")
    for root, link, target in links:
        if str(target) in seen:
            out.problems.append(f"{display_name(str(link))}: a link to {display_name(str(seen[str(target)]))}, ingested once as that file")
        else:
            seen[str(target)] = link
            out.found.append((root, link))
    return out


def discover(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, Path]]:
    """(root, file) for every document under the given files or folders (see
    :func:`scan`; what it refused or could not look into is left out here)."""
    found = scan(paths)
    return [(root, file) for root, file in found.found if file not in found.refused]


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
    # from its Parquet files (see ingest.summarize_unchanged)
    outcome: dict = field(default_factory=dict)

    def resolved_settings(self) -> Settings:
        return Settings(**self.settings)


_PARSED: dict[str, tuple[tuple, dict[str, dict], "RecordLines"]] = {}  # registry path -> (file identity, parsed records, their lines)

SETTINGS_TABLE = "@settings"
"""The registry's first entry (never a doc_id: those are ``[a-z0-9._-]``):
each distinct settings dict once, by a digest of it; a record's
``settings`` and ``built.settings`` name it (``"@<digest>"``). Ten
thousand documents of one collection share one entry: the file is ~0.8 KB a
record instead of ~4 KB, so reading and writing it costs about a fifth (7.8 MB at 10,000)."""


def _settings_ref(settings: dict, table: dict[str, dict], seen: dict[int, str]) -> str:
    ref = seen.get(id(settings))
    if ref is None:
        text = json.dumps(settings, ensure_ascii=False, sort_keys=True)
        ref = seen[id(settings)] = "@" + hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]
        table.setdefault(ref, settings)
    return ref


def _record_line(doc_id: str, values: dict, table: dict[str, dict], seen: dict[int, str]) -> str:
    values = dict(values)
    if isinstance(values.get("settings"), dict):
        values["settings"] = _settings_ref(values["settings"], table, seen)
    built = values.get("built")
    if isinstance(built, dict) and isinstance(built.get("settings"), dict):
        values["built"] = {**built, "settings": _settings_ref(built["settings"], table, seen)}
    return f"{json.dumps(doc_id, ensure_ascii=False)}: {json.dumps(values, ensure_ascii=False, sort_keys=False)}"


RecordLines = dict[str, tuple[dict, str]]
"""doc_id -> (a record's values as read or written, its line in the file):
the line of a record whose values are that very object is not encoded again."""


def encode_registry(records: dict[str, dict], known: RecordLines | None = None) -> tuple[str, RecordLines]:
    """The registry file's text: the settings table, then one record a line
    (each by the C encoder: json's indent= is pure Python, 10x slower),
    every settings dict replaced by its reference in the table; and each
    record's line. ``known``: lines encoded earlier, reused for a record
    whose values are the same object (values are replaced, never changed in
    place; the line depends only on them, so the text is the same bytes)."""
    table: dict[str, dict] = {}
    seen: dict[int, str] = {}
    known = known or {}
    lines: RecordLines = {}
    for doc_id, values in records.items():
        line = known.get(doc_id)
        if line is not None and line[0] is values:
            for settings in (values.get("settings"), (values.get("built") or {}).get("settings")):
                if isinstance(settings, dict):  # its table entry (one digest per distinct object)
                    _settings_ref(settings, table, seen)
            lines[doc_id] = line
        else:
            lines[doc_id] = (values, _record_line(doc_id, values, table, seen))
    head = f"{json.dumps(SETTINGS_TABLE)}: {json.dumps(dict(sorted(table.items())), ensure_ascii=False)}"
    return "{\n" + ",\n".join([head] + [line for _, line in lines.values()]) + "\n}", lines


def decode_registry(text: str) -> dict[str, dict]:
    """Records by doc_id from the registry file's text (with or without a
    settings table): each settings reference replaced by its dict, one
    object shared by the records that name it (records' dict fields are
    replaced, never changed in place)."""
    return decode_registry_lines(text)[0]


def decode_registry_lines(text: str) -> tuple[dict[str, dict], RecordLines]:
    """:func:`decode_registry`, and each record's line when the text is laid
    out as :func:`encode_registry` writes it (else no lines: none is reused)."""
    parsed = json.loads(text) if text.strip() else {}
    table = parsed.pop(SETTINGS_TABLE, None) or {}
    lines: RecordLines = {}
    rows = text.split("\n")
    if table and len(rows) == len(parsed) + 3 and rows[0] == "{" and rows[-1] == "}":
        for row, (doc_id, values) in zip(rows[2:-1], parsed.items()):
            line = row[:-1] if row.endswith(",") else row
            if not line.startswith(json.dumps(doc_id, ensure_ascii=False) + ": "):
                lines = {}
                break
            lines[doc_id] = (values, line)
    if table:
        for values in parsed.values():
            ref = values.get("settings")
            if isinstance(ref, str) and ref in table:
                values["settings"] = table[ref]
            built = values.get("built")
            if isinstance(built, dict) and isinstance(built.get("settings"), str) and built["settings"] in table:
                built["settings"] = table[built["settings"]]
    return parsed, lines


def read_registry_file(warehouse: Warehouse) -> dict[str, dict]:
    """The records on disk, by doc_id. A local file is parsed once per
    process while its identity (inode, size, mtime) is unchanged: every
    asset of a run and the index refresh read the registry, and at 10,000
    documents parsing it is the larger part of their cost. The dict
    returned is this caller's own; the records' values in it are shared
    (a record's dict fields are replaced, never changed in place)."""
    path = warehouse.path("registry.json")
    if warehouse.is_local:
        try:
            with open(path.path, "rb") as fh:
                st = os.fstat(fh.fileno())
                key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
                cached = _PARSED.get(path.path)
                if cached is not None and cached[0] == key:
                    return dict(cached[1])
                text = fh.read().decode("utf-8")
        except FileNotFoundError:
            return {}
        parsed, lines = decode_registry_lines(text)
        _PARSED[path.path] = (key, parsed, lines)
        return dict(parsed)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    return decode_registry(text)


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
            cached = _PARSED.get(self.path.path)
            text, lines = encode_registry(dict(sorted(on_disk.items())), known=cached[2] if cached else None)
            # A file name that is not valid UTF-8 reaches Python as lone surrogates
            # (surrogateescape); written as JSON \udcXX escapes they read back to
            # the same path, where a plain encode() would stop the whole ingest.
            inode = self.warehouse.write_bytes_atomic(self.path, text.encode("utf-8", "backslashreplace"))
            # what was written: the records this process changed copied (sharing
            # nothing with them), the others as they were read (so their lines are reused)
            written = dict(on_disk)
            for doc_id in changed:
                written[doc_id] = json.loads(json.dumps(on_disk[doc_id], ensure_ascii=False))
                lines[doc_id] = (written[doc_id], lines[doc_id][1])
            self._loaded = dict(written)
            _PARSED.pop(self.path.path, None)
            if inode is not None:  # the next read in this process need not parse it again
                with contextlib.suppress(OSError):
                    st = os.stat(self.path.path)
                    if st.st_ino == inode:
                        _PARSED[self.path.path] = ((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), written, lines)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive among the processes of this machine (flock on a local
        warehouse; a remote one has no lock and relies on its writers taking
        turns)."""
        if not self.warehouse.is_local:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.warehouse.path(self.LOCK_NAME).path, "a+b") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def get(self, doc_id: str) -> DocumentRecord:
        try:
            return self.records[doc_id]
        except KeyError:
            raise KeyError(f"document {doc_id!r} is not registered; add it with `duocthu ingest PATH` or drop it in the inbox") from None

    def active(self) -> list[DocumentRecord]:
        return [r for r in self.records.values() if r.status == "active"]



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
    problems: list[str] | None = None,
) -> list[DocumentRecord]:
    """Register (or refresh) each found file; returns their records. The sha256
    is recomputed only when size or mtime changed.

    One bad input fails only itself: a file in ``refused`` (see :func:`scan`),
    a file under a ``collection.toml`` that cannot be used, or a file that
    cannot be read is registered with ``refused`` set to the reason (its
    document is rejected with it, and never read when it is a link leading
    out of the inbox); a file that vanished since it was found is left out,
    with a line in ``problems``."""
    refused = refused or {}
    records = []
    settings_cache: dict[tuple[str, str | None], Settings | str] = {}
    as_dict: dict[int, tuple[Settings, dict]] = {}  # id(settings) -> (it, its registry form): made once per folder
    # paths handled as strings: at 10,000 files, pathlib's parsing and hashing per file cost more than the stat
    roots: dict[Path, str] = {}
    for root, file in found:
        path = str(file)
        under = roots.get(root)
        if under is None:
            under = roots[root] = os.path.join(str(root), "")
        relative = path[len(under):].replace(os.sep, "/") if path.startswith(under) else file.relative_to(root).as_posix()
        doc_id = doc_id_for(relative)
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
            if problems is not None:
                problems.append(f"{display_name(str(file))}: vanished while being ingested — add it again")
            continue
        except OSError as exc:
            stat, why = None, why or f"cannot look at the file: {exc.strerror or exc} — check its permissions"
        record = registry.records.get(doc_id)
        if id(settings) not in as_dict:  # the object is kept in the entry, so its id is never reused
            as_dict[id(settings)] = (settings, settings.as_record())
        settings_dict = as_dict[id(settings)][1]
        if record is None or record.path != path:
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
                if problems is not None:
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
    return records


def mark_removed(registry: Registry, present_paths: set[str], under_root: Path) -> list[DocumentRecord]:
    """Mark active documents under ``under_root`` whose file is gone."""
    removed = []
    for record in registry.active():
        if record.path.startswith(str(under_root)) and record.path not in present_paths and not Path(record.path).exists():
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
