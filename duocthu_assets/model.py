"""Typed records shared by every stage: segments, lifted blocks, chunks.

Nothing here imports Dagster. Every bbox is ``(x0, y0, x1, y1)`` in PDF points
with a **top-left** origin (PyMuPDF's convention), the one declared origin for
the whole project. Pages are 1-based. ``printed_page`` is the number printed on
the page, ``None`` when the page prints none (or not a number: ``xii``);
``printed_label`` is the label as printed (the PDF's own /PageLabels when it
has them, else a page number that forms a consistent sequence), ``""`` when none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .settings import Settings

SCHEMA_VERSION = 6
"""Version of every Parquet row this code writes. Bump it (and note why in
README's "Schema versions") whenever a column is added, removed or changes
meaning."""

BBox = tuple[float, float, float, float]

# Each record below is the one definition of its Parquet row: :mod:`.schemas`
# generates the Arrow schema from the dataclass (``doc_id`` first, then the
# fields in order, then ``schema_version``). ``str`` is a string column,
# ``int`` int32, ``bool`` bool, a ``BBox`` four float64s, a tuple or list a
# list, an enum its value, a tuple of records a list of structs. A field's
# metadata says where that default is not the column: ``INT64``,
# ``LARGE_STRING``, ``after(name)`` (the column sits after ``name``'s: a field
# added last to keep positional construction valid, but placed in the file
# where schema 2 put it).
INT64: dict[str, Any] = {"arrow": "int64"}
LARGE_STRING: dict[str, Any] = {"arrow": "large_string"}


def after(name: str) -> dict[str, Any]:
    return {"after": name}


class Format(StrEnum):
    PDF = "pdf"
    DOCX = "docx"
    XLSX = "xlsx"
    CSV = "csv"
    # recognised but refused (see formats.py for the reasons shown to users)
    DOC = "doc"
    XLS = "xls"
    OLE2 = "ole2"
    ENCRYPTED_OOXML = "encrypted_ooxml"
    PPTX = "pptx"
    ZIP = "zip"
    EMPTY = "empty"
    UNKNOWN = "unknown"


class SegmentKind(StrEnum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE_ROW = "table_row"


class BlockKind(StrEnum):
    TABLE = "table"
    FORMULA = "formula"
    PICTURE = "picture"  # an image on a page of text (parse/pdf/read/pictures.py): its content is in no text


class BlockShape(StrEnum):
    SIMPLE_TABLE = "simple_table"
    MULTI_LEVEL_OR_MERGED_HEADER = "multi_level_or_merged_header"
    CROSS_PAGE_CONTINUATION = "cross_page_continuation"
    FORMULA_2D = "formula_2d"
    PICTURE = "picture"


class FurnitureKind(StrEnum):
    RUNNING_HEADER = "running_header"
    RUNNING_FOOTER = "running_footer"
    PAGE_LABEL = "page_label"
    MARGIN_STAMP = "margin_stamp"  # rotated or vertical text in a margin (an arXiv identifier)
    WATERMARK = "watermark"
    HIDDEN = "hidden"  # text the page does not show: an opaque shape drawn over it (parse/pdf/read/hidden.py)


class ChunkKind(StrEnum):
    PROSE = "prose"
    TABLE_ROW = "table_row"
    BLOCK_DESCRIPTOR = "block_descriptor"


class SourceStatus(StrEnum):
    """``raw_documents.status``: whether the file was read into the source store."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    REMOVED = "removed"


class ParseStatus(StrEnum):
    """``parsed_documents.status``: what became of the document's build."""

    OK = "ok"
    REJECTED = "rejected"
    FAILED = "failed"
    REMOVED = "removed"  # carried over from raw_documents: the file left the inbox


@dataclass(frozen=True)
class Provenance:
    """Where a piece of content came from: the one shape shared by segments,
    lifted blocks, chunk regions and attachments (each record keeps its own
    flat columns, a public contract; ``.provenance`` reads them as this)."""

    page_no: int | None
    printed_page: int | None
    printed_label: str
    bbox: BBox | None
    source_ref: str = ""  # "pdf:p3", "docx:body[12]", "Sheet1!A5", "csv:row7", or a block id


@dataclass(frozen=True)
class Segment:
    """One structural element of the canonical document, in reading order.

    ``segment_id`` is unique within the document (``s00001``...). ``headings``
    is the trail of enclosing headings, outermost first; a heading's own trail
    ends with itself. ``section_index`` counts section *instances* in the
    document (two monographs' "Liều lượng và cách dùng" differ), so a chunker
    can tell a section boundary even when two sections share a key.
    ``offset``/``length`` locate ``text`` in the canonical text; parsers leave
    them at 0 and :func:`duocthu_assets.parse.canonical.assemble` fills them.
    """

    segment_id: str
    kind: SegmentKind
    text: str
    level: int = 0  # heading level (1 = outermost); 0 for non-headings
    headings: tuple[str, ...] = ()
    entry_id: str = ""
    entry_title: str = ""
    section_key: str = ""
    section_title: str = ""
    section_index: int = 0
    page_no: int | None = None
    printed_page: int | None = None
    printed_label: str = ""  # the page's label as printed ("xii", "A-42"), "" when it prints none
    bbox: BBox | None = None
    source_ref: str = ""  # "pdf:p3", "docx:body[12]", "Sheet1!A5", "csv:row7"
    offset: int = field(default=0, metadata=INT64)
    length: int = field(default=0, metadata=INT64)

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.page_no, self.printed_page, self.printed_label, self.bbox, self.source_ref)


@dataclass(frozen=True)
class LiftedBlock:
    """A table or 2D formula lifted out of a PDF page and quarantined (ADR 0006).

    ``text`` is the block's linearised text, kept only so checks can prove it
    never leaks into embedded text. ``anchor_segment_id`` is the prose segment
    the block follows in reading order ("" when it opens its section), which is
    where the chunker attaches it. ``continues`` names the block this one
    continues (a table carried over a page or column break).
    """

    block_id: str
    kind: BlockKind
    shape: BlockShape
    page_no: int
    printed_page: int | None
    bbox: BBox
    entry_id: str = ""
    entry_title: str = ""
    section_key: str = ""
    section_title: str = ""
    section_index: int = 0
    headings: tuple[str, ...] = ()
    text: str = ""
    anchor_segment_id: str = ""
    continues: str = ""
    quarantined: bool = True
    header_row: tuple[str, ...] = ()
    printed_label: str = field(default="", metadata=after("printed_page"))  # as on Segment

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.page_no, self.printed_page, self.printed_label, self.bbox, self.block_id)


@dataclass(frozen=True)
class Furniture:
    """A line of a PDF page kept out of the prose and recorded: a running
    header or footer, a page label, a margin stamp, a watermark."""

    page_no: int
    kind: FurnitureKind
    text: str
    bbox: BBox


@dataclass(frozen=True)
class PageAccount:
    """Where the characters of one PDF page's text layer went (whitespace
    aside). ``chars_in`` equals prose + blocks + furniture + unmapped exactly
    when no character is ``missing`` (in no destination) or ``duplicated``
    (counted in a second one)."""

    page_no: int
    chars_in: int
    prose: int = 0
    blocks: int = 0
    furniture: int = 0
    unmapped: int = 0  # glyphs without a Unicode mapping, left out and counted
    missing: int = 0
    duplicated: int = 0

    @property
    def accounted(self) -> bool:
        return self.missing == 0 and self.duplicated == 0 and self.chars_in == self.prose + self.blocks + self.furniture + self.unmapped


@dataclass
class ParsedDocument:
    """What a parser returns for one document: the canonical document, and for
    a PDF its furniture and where every character of each page went."""

    segments: list[Segment]
    blocks: list[LiftedBlock] = field(default_factory=list)
    page_count: int = 0
    pages_needing_ocr: list[int] = field(default_factory=list)
    canonical_text: str = ""
    warnings: list[str] = field(default_factory=list)
    furniture: list[Furniture] = field(default_factory=list)
    page_accounts: list[PageAccount] = field(default_factory=list)
    page_labels: list[str] = field(default_factory=list)  # the printed label of each physical page ("" when none)


@dataclass(frozen=True)
class Span:
    offset: int = field(metadata=INT64)
    length: int = field(metadata=INT64)


@dataclass(frozen=True)
class Region:
    page_no: int
    printed_page: int | None
    bbox: BBox
    printed_label: str = ""

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.page_no, self.printed_page, self.printed_label, self.bbox)


@dataclass(frozen=True)
class ChunkAttachment:
    block_id: str
    kind: str
    shape: str
    physical_page: int
    printed_page: int | None
    bbox: BBox
    quarantined: bool
    header_row: tuple[str, ...] = ()  # embargoed: always empty (ADR 0006 §2)
    source_crop: str | None = None
    printed_label: str = ""

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.physical_page, self.printed_page, self.printed_label, self.bbox, self.block_id)


@dataclass(frozen=True)
class Chunk:
    chunk_id: str
    doc_id: str
    chunk_index: int  # document-wide ordinal, 0-based
    chunk_kind: ChunkKind
    text: str
    token_count: int
    entry_id: str
    entry_title: str
    section_key: str
    section_title: str
    section_index: int
    headings: tuple[str, ...]
    spans: tuple[Span, ...]
    regions: tuple[Region, ...]
    source_elements: tuple[str, ...]
    prev_chunk_id: str | None
    next_chunk_id: str | None
    content_hash: str
    attachments: tuple[ChunkAttachment, ...] = ()
    has_quarantined_content: bool = False


@dataclass(frozen=True)
class DocumentIdentity:
    """Who a document is, as its own first page or properties print it
    (parse/identity.py reads it; never guessed): "" / () where nothing is
    printed. ``kind`` is ``luật``, ``bộ luật``, ``nghị định``, ``nghị quyết``,
    ``thông tư``, ``quyết định``, ``án lệ``… ``formulary`` or ``contract``;
    ``issued`` an ISO date; ``aliases`` the names it is cited by, derived from
    the other fields; ``evidence`` the printed line behind each field."""

    title: str = ""
    number: str = ""  # "91/2015/QH13", "21/2021/NĐ-CP"
    kind: str = ""
    issuer: str = ""
    issued: str = ""  # YYYY-MM-DD
    aliases: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()

    @property
    def year(self) -> str:
        """The year the document is cited with: its date's, else its number's."""
        if self.issued:
            return self.issued[:4]
        m = re.search(r"/((?:19|20)\d\d)/", self.number)
        return m.group(1) if m else ""

    def as_record(self) -> dict[str, Any]:
        """The ``identity`` struct of a raw_documents row."""
        return {"title": self.title, "number": self.number, "kind": self.kind, "issuer": self.issuer,
                "issued": self.issued, "aliases": list(self.aliases), "evidence": list(self.evidence)}


# -- rows with no record of their own elsewhere: the one definition of their columns


@dataclass(frozen=True)
class RawDocumentRow:
    """``raw_documents``: one row per document, what the inbox found."""

    doc_id: str
    source_name: str  # path under the ingest root, as the user sees it
    collection: str
    profile: str
    normalization: str
    sha256: str
    size_bytes: int = field(metadata=INT64)
    format: str
    page_count: int  # pages (PDF), sheets (XLSX), 0 otherwise
    status: SourceStatus
    reason: str
    stored_path: str  # relative to the warehouse
    # what the document is built with (its collection.toml and the CLI's
    # --profile, resolved once at ingest): every later stage reads it here
    settings: Settings
    # issue 40: who the document is (its first page or properties), and why
    # its profile was chosen when no collection.toml or --profile named one
    identity: DocumentIdentity
    profile_evidence: tuple[str, ...]


@dataclass(frozen=True)
class ParsedDocumentRow:
    """``parsed_documents``: one row per document, the parse's outcome and its
    accounting (issue 16: whitespace aside, every character of a PDF's text
    layer is in prose, in a lifted block, in furniture or an unmapped glyph)."""

    doc_id: str
    status: ParseStatus
    reason: str
    format: str
    page_count: int
    pages_needing_ocr: tuple[int, ...]
    segment_count: int
    block_count: int
    canonical_text: str = field(metadata=LARGE_STRING)
    canonical_sha256: str
    warnings: tuple[str, ...]
    chars_in: int = field(metadata=INT64)
    chars_prose: int = field(metadata=INT64)
    chars_blocks: int = field(metadata=INT64)
    chars_furniture: int = field(metadata=INT64)
    chars_unmapped: int = field(metadata=INT64)
    page_accounts: tuple[PageAccount, ...]
    furniture: tuple[Furniture, ...]
    page_labels: tuple[str, ...]  # per physical page, the printed label ("" when none)


@dataclass(frozen=True)
class CropRow:
    """``crops``: one row per lifted block rendered to a PNG."""

    doc_id: str
    block_id: str
    path: str  # relative to the warehouse
    sha256: str
    width_px: int
    height_px: int
    dpi: int
    page_no: int
    printed_page: int | None
    printed_label: str


@dataclass(frozen=True)
class EmbeddingRow:
    """``embeddings``: one vector per chunk; ``vector`` is a fixed-size list
    of float32 whose size is the model's dimension (the schema takes it)."""

    doc_id: str
    chunk_id: str
    content_hash: str
    model_id: str
    dim: int
    vector: tuple[float, ...] = field(metadata={"arrow": "float32_vector"})
