"""``<warehouse>/registry.json`` on disk: its text, reading it and writing it.

The file is a settings table (:data:`SETTINGS_TABLE`) then one record a
line. A local file is parsed once per process while its identity is
unchanged (:func:`read_registry_file`), and a write remembers what it wrote
(:func:`write_registry_file`), so the next read need not parse it again.
Who may write which record, and when, is :class:`.registry.Registry`'s
business; this module only reads and writes the text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import Iterable

from ..warehouse import Warehouse

RecordLines = dict[str, tuple[dict, str]]
"""doc_id -> (a record's values as read or written, its line in the file):
the line of a record whose values are that very object is not encoded again."""

_PARSED: dict[str, tuple[tuple, dict[str, dict], RecordLines]] = {}  # registry path -> (file identity, parsed records, their lines)

SETTINGS_TABLE = "@settings"
"""The registry's first entry (never a doc_id: those are ``[a-z0-9._-]``):
each distinct settings dict once, by a digest of it; a record's
``settings`` and ``built.settings`` name it (``"@<digest>"``). Ten
thousand documents of one collection share one entry: the file is ~0.8 KB a
record instead of ~4 KB, so reading and writing it costs about a fifth (7.8 MB at 10,000)."""


class _SettingsTable:
    """The settings table of one encoding: each distinct settings dict once,
    by a digest of it (one digest per distinct object)."""

    def __init__(self) -> None:
        self.entries: dict[str, dict] = {}
        self._refs: dict[int, str] = {}  # id(settings) -> its reference; the objects outlive the encoding

    def ref(self, settings: dict) -> str:
        ref = self._refs.get(id(settings))
        if ref is None:
            text = json.dumps(settings, ensure_ascii=False, sort_keys=True)
            ref = self._refs[id(settings)] = "@" + hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]
            self.entries.setdefault(ref, settings)
        return ref

    def line(self, doc_id: str, values: dict) -> str:
        """A record's line, its settings dicts replaced by their references."""
        values = dict(values)
        if isinstance(values.get("settings"), dict):
            values["settings"] = self.ref(values["settings"])
        built = values.get("built")
        if isinstance(built, dict) and isinstance(built.get("settings"), dict):
            values["built"] = {**built, "settings": self.ref(built["settings"])}
        return f"{json.dumps(doc_id, ensure_ascii=False)}: {json.dumps(values, ensure_ascii=False, sort_keys=False)}"


def encode_registry(records: dict[str, dict], known: RecordLines | None = None) -> tuple[str, RecordLines]:
    """The registry file's text: the settings table, then one record a line
    (each by the C encoder: json's indent= is pure Python, 10x slower),
    every settings dict replaced by its reference in the table; and each
    record's line. ``known``: lines encoded earlier, reused for a record
    whose values are the same object (values are replaced, never changed in
    place; the line depends only on them, so the text is the same bytes)."""
    table = _SettingsTable()
    known = known or {}
    lines: RecordLines = {}
    for doc_id, values in records.items():
        line = known.get(doc_id)
        if line is not None and line[0] is values:
            for settings in (values.get("settings"), (values.get("built") or {}).get("settings")):
                if isinstance(settings, dict):  # its table entry (one digest per distinct object)
                    table.ref(settings)
            lines[doc_id] = line
        else:
            lines[doc_id] = (values, table.line(doc_id, values))
    head = f"{json.dumps(SETTINGS_TABLE)}: {json.dumps(dict(sorted(table.entries.items())), ensure_ascii=False)}"
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


def write_registry_file(warehouse: Warehouse, records: dict[str, dict], changed: Iterable[str]) -> dict[str, dict]:
    """Write ``records`` (every record, by doc_id) as the registry file,
    atomically; returns what was written: the ``changed`` records copied
    (sharing nothing with the dicts given), the others as they were read
    (so their lines are reused by the next write of this process)."""
    path = warehouse.path("registry.json")
    cached = _PARSED.get(path.path)
    text, lines = encode_registry(dict(sorted(records.items())), known=cached[2] if cached else None)
    # A file name that is not valid UTF-8 reaches Python as lone surrogates
    # (surrogateescape); written as JSON \udcXX escapes they read back to
    # the same path, where a plain encode() would stop the whole ingest.
    inode = warehouse.write_bytes_atomic(path, text.encode("utf-8", "backslashreplace"))
    written = dict(records)
    for doc_id in changed:
        written[doc_id] = json.loads(json.dumps(records[doc_id], ensure_ascii=False))
        lines[doc_id] = (written[doc_id], lines[doc_id][1])
    _PARSED.pop(path.path, None)
    if inode is not None:  # the next read in this process need not parse it again
        with contextlib.suppress(OSError):
            st = os.stat(path.path)
            if st.st_ino == inode:
                _PARSED[path.path] = ((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), written, lines)
    return written
