"""One validated settings object for parsing, chunking and limits.

Defaults are named constants; :func:`resolve_settings` accepts None, a dict or
an instance, and validates once (pdfplumber's TableSettings is the model).
A collection's ``collection.toml`` (beside its files under the inbox) sets
``profile``, ``normalization``, ``csv_encoding``, any other field, and the PDF
stage's tuning under ``[pdf]`` (the fields of
:class:`~duocthu_assets.settings.pdf.PdfSettings`); ``duocthu ingest
--profile`` overrides the profile.

A document's settings are resolved once, when the inbox is scanned, and
stored on its raw_documents row as a typed struct (:meth:`Settings.as_record`;
:func:`row_settings` reads it back): every later stage takes them from there.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any, Mapping, TypeVar

from .config import resolve_config
from .pdf import PdfSettings, resolve_pdf_settings


T = TypeVar("T")


class Profile(StrEnum):
    FORMULARY = "formulary"
    GENERIC = "generic"
    LEGAL = "legal"


class Normalization(StrEnum):
    NFC = "nfc"
    PERSIAN = "persian"


CHUNK_SIZE = 400
CHUNK_OVERLAP = 60
MAX_CHUNK_TOKENS = 512
CROP_DPI = 150
CROP_MARGIN_PT = 4.0
PARSE_TIMEOUT_S = 120.0
MAX_FILE_BYTES = 512 * 1024 * 1024
MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200.0
MAX_CSV_FIELD_BYTES = 16 * 1024 * 1024
# grid positions of one sheet (once its empty rows/columns are collapsed) or
# one CSV: ~0.5 GB laid out from a sheet, ~1 GB from a CSV's one long line
MAX_SHEET_CELLS = 2_000_000
MEMORY_BUDGET_MB = 4096  # per document, in its parser / crop / chunk child process, beyond what the child inherited
STEP_TIMEOUT_S = 600.0  # per document, for cropping and for chunking (parsing has parse_timeout_s)
MAX_CHUNKS_PER_DOCUMENT = 20_000  # more would take hours to embed (~2-50 chunks/s on two cores)
EMBED_TIMEOUT_S = 1800.0  # per document, for computing its vectors (reused ones cost nothing)
COLLECTION_FILE = "collection.toml"
PROFILE_DEFAULT, PROFILE_FROM_FILE, PROFILE_FROM_OPTION, PROFILE_DETECTED = "default", "collection.toml", "--profile", "detected"
PROFILE_SOURCES = (PROFILE_DEFAULT, PROFILE_FROM_FILE, PROFILE_FROM_OPTION, PROFILE_DETECTED)
BYTES = {"arrow": "int64"}  # a byte limit may pass 2 GiB: an int64 column on raw_documents


def _default_pdf() -> PdfSettings:
    return PdfSettings()


@dataclass(frozen=True)
class Settings:
    profile: Profile = Profile.GENERIC
    normalization: Normalization = Normalization.NFC
    csv_encoding: str | None = None  # None: detect (UTF-8 with/without BOM, then legacy)
    language: str = "en"  # descriptor language: "vi" for the formulary, "fa", "en"
    chunk_size: int = CHUNK_SIZE
    chunk_overlap: int = CHUNK_OVERLAP
    max_chunk_tokens: int = MAX_CHUNK_TOKENS
    crop_dpi: int = CROP_DPI
    crop_margin_pt: float = CROP_MARGIN_PT
    parse_timeout_s: float = PARSE_TIMEOUT_S
    max_file_bytes: int = field(default=MAX_FILE_BYTES, metadata=BYTES)
    max_uncompressed_bytes: int = field(default=MAX_UNCOMPRESSED_BYTES, metadata=BYTES)
    max_compression_ratio: float = MAX_COMPRESSION_RATIO
    max_csv_field_bytes: int = field(default=MAX_CSV_FIELD_BYTES, metadata=BYTES)
    max_sheet_cells: int = MAX_SHEET_CELLS
    memory_budget_mb: int = MEMORY_BUDGET_MB
    step_timeout_s: float = STEP_TIMEOUT_S
    max_chunks_per_document: int = MAX_CHUNKS_PER_DOCUMENT
    embed_timeout_s: float = EMBED_TIMEOUT_S
    # the PDF stage's tuning (settings/pdf.py); a mapping of its fields
    # (a collection.toml's [pdf] table, a raw_documents row) becomes a
    # validated PdfSettings
    pdf: PdfSettings = field(default_factory=_default_pdf)
    # where ``profile`` came from: "default" (nothing named one: raw_documents
    # may read the document as a law, parse/profiles/detect.py),
    # "collection.toml", "--profile", or "detected" (it was)
    profile_source: str = PROFILE_DEFAULT

    def __post_init__(self) -> None:

        object.__setattr__(self, "pdf", resolve_pdf_settings(self.pdf))
        object.__setattr__(self, "profile", Profile(self.profile))
        object.__setattr__(self, "normalization", Normalization(self.normalization))
        if self.profile_source not in PROFILE_SOURCES:
            raise ValueError(f"profile_source {self.profile_source!r} must be one of {', '.join(PROFILE_SOURCES)}")
        if not 0 < self.chunk_size <= self.max_chunk_tokens:
            raise ValueError(f"chunk_size {self.chunk_size} must be in 1..max_chunk_tokens ({self.max_chunk_tokens})")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(f"chunk_overlap {self.chunk_overlap} must be in 0..chunk_size-1")
        if self.crop_dpi < 150:
            raise ValueError(f"crop_dpi {self.crop_dpi} is below the 150 dpi a reader needs")
        if self.parse_timeout_s <= 0:
            raise ValueError(f"parse_timeout_s {self.parse_timeout_s} must be positive")
        for name in ("max_sheet_cells", "memory_budget_mb", "step_timeout_s", "max_chunks_per_document", "embed_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} {getattr(self, name)} must be positive")
        for f in dataclasses.fields(self):  # each fits its raw_documents column (int32 unless int64)
            value, limit = getattr(self, f.name), 2**63 - 1 if f.metadata == BYTES else 2**31 - 1
            if isinstance(value, int) and value > limit:
                raise ValueError(f"{f.name} {value} is too large (at most {limit:,})")

    def replace(self, **changes: Any) -> "Settings":
        return dataclasses.replace(self, **changes)

    def as_record(self) -> dict[str, Any]:
        """Plain values (enums as their strings, ``pdf`` a nested dict): the
        document's ``settings`` struct on its raw_documents row and the JSON
        shown on that row's materialization. :func:`resolve_settings` reads
        it back to an equal Settings."""
        return {k: v.value if isinstance(v, Enum) else v for k, v in dataclasses.asdict(self).items()}


def resolve_settings(value: "Settings | Mapping[str, Any] | None" = None) -> Settings:
    return resolve_config(Settings, value, "settings")


def row_settings(row: Mapping[str, Any] | None) -> Settings:
    """The settings a document is built with, from the ``settings`` struct of
    its raw_documents row (:meth:`Settings.as_record`); defaults when it has
    no row."""
    return resolve_settings(row.get("settings")) if row else Settings()


PROFILE_DEFAULTS: dict[Profile, dict[str, Any]] = {
    Profile.FORMULARY: {"language": "vi"},
    Profile.GENERIC: {},
    Profile.LEGAL: {},
}


class CollectionSettingsError(ValueError):
    """A ``collection.toml`` that cannot be used; the message names the file."""


def collection_settings(folder: Path, profile_override: str | None = None, root: Path | None = None) -> Settings:
    """Settings for the documents in ``folder``: its nearest ``collection.toml``
    (searched upward, no higher than ``root`` — the inbox or folder given to
    ingest — when one is given), then the profile override. A file that is
    not valid TOML, or whose values are not valid settings, raises
    :class:`CollectionSettingsError` naming it."""
    values: dict[str, Any] = {}
    toml_path = None
    parents = [folder, *folder.parents]
    if root is not None:
        parents = [p for p in parents if p == root or p.is_relative_to(root)]
    for parent in parents:
        candidate = parent / COLLECTION_FILE
        if candidate.is_file():
            toml_path = candidate
            try:
                with candidate.open("rb") as fh:
                    values = tomllib.load(fh)
            except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
                raise CollectionSettingsError(f"{candidate} cannot be read: {exc} — fix the file and ingest again") from exc
            break
    if "profile" in values:
        values["profile_source"] = PROFILE_FROM_FILE
    if profile_override:
        values["profile"] = profile_override
        values["profile_source"] = PROFILE_FROM_OPTION
    try:
        profile = Profile(values.get("profile", Profile.GENERIC))
        merged = {**PROFILE_DEFAULTS[profile], **values}
        return resolve_settings(merged)
    except (ValueError, TypeError, KeyError) as exc:
        where = toml_path or "the --profile option"
        what = f"a value of the wrong type ({exc})" if isinstance(exc, TypeError) else str(exc)
        raise CollectionSettingsError(f"{where} has a setting that cannot be used: {what} — fix it and ingest again") from exc
