"""Documents under an inbox: stable doc_ids, and the files that are documents.

:func:`scan` walks the files and folders it is given and says which files
are documents, which it refused unread and which paths it could not look
into; :func:`doc_id_for` gives each document a stable, readable id.
Registering what was found is :mod:`.registration`'s job; the record of
every document, :mod:`.registry`'s.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..settings import COLLECTION_FILE

INBOX_ENV = "DUOCTHU_INBOX"
DEFAULT_INBOX = "data/inbox"


def inbox_root() -> Path:
    """The inbox the sensor and the schedule watch (``DUOCTHU_INBOX``)."""
    return Path(os.environ.get(INBOX_ENV, DEFAULT_INBOX)).absolute()

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
    skipped: list[str] = field(default_factory=list)  # hidden files passed over on purpose: a line each, said, not an error


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
                        if name.startswith(".") and name not in SIDECAR_NAMES and not name.endswith(".tmp"):
                            out.skipped.append(f"{display_name(str(folder / name))}: hidden (its name starts with '.'): "
                                               "not a document — rename it to ingest it")
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
