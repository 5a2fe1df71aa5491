"""What the search page shows besides the answers, read from the warehouse
only, by ids the loaded index vouches for:

- a document's label (the file name it was ingested under), format and page
  count (its ``raw_documents`` row);
- a crop: ``<warehouse>/crops/<doc_id>/<block_id>.png``, served only when
  ``doc_id`` is an indexed document and ``block_id`` one of its chunks'
  attachments, the file lies under ``<warehouse>/crops/`` (after links are
  followed) and its bytes are a PNG;
- a page of the stored source (``<warehouse>/sources/…``, a PDF), rendered
  with PyMuPDF at :data:`RENDER_DPI`, at most :data:`RENDER_MAX_SIDE` pixels a
  side, one render at a time, the last :data:`RENDER_CACHE` kept.

No path from a request is ever joined to a folder: a request names ids, the
ids are looked up in the index, and the path is built from the looked-up
values. Everything else is a :class:`FileRefused` with a status and a reason.

Nothing here imports Dagster.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urlencode

import pyarrow.compute as pc

from ..warehouse import Warehouse
from .index import LoadedIndex

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
MAX_CROP_BYTES = 32 << 20
RENDER_DPI = 110
RENDER_MAX_SIDE = 2400
RENDER_CACHE = 16
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,199}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class FileRefused(LookupError):
    """A crop or a page that cannot be served, with the status and the reason."""

    def __init__(self, reason: str, status: HTTPStatus = HTTPStatus.NOT_FOUND):
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class DocumentLabel:
    """What a card says about a document: the name it was ingested under."""

    source_name: str
    format: str
    page_count: int
    sha256: str


@dataclass(frozen=True)
class CropSize:
    """A crop's pixels and the resolution it was rendered at."""

    width_px: int
    height_px: int
    dpi: int

    def css_width(self) -> int:
        """Its width in CSS pixels at the printed size (96 per inch)."""
        return max(1, round(self.width_px * 96 / self.dpi)) if self.dpi > 0 else self.width_px


def safe_id(value: str) -> bool:
    """An id that can be a file name component: no separator, no leading dot."""
    return bool(_SAFE_ID.fullmatch(value)) and ".." not in value


class PageFiles:
    """One warehouse's labels, crops and page renders for one loaded index at
    a time (a newer index starts afresh). Thread-safe."""

    def __init__(self, warehouse: Warehouse):
        self.warehouse = warehouse
        self._lock = threading.Lock()
        self._render_lock = threading.Lock()  # one PyMuPDF render at a time: bounded CPU and memory
        self._index_ref: weakref.ref[LoadedIndex] | None = None
        self._labels: dict[str, DocumentLabel | None] = {}
        self._sizes: dict[str, dict[str, CropSize]] = {}
        self._blocks: dict[str, frozenset[str]] = {}
        self._renders: OrderedDict[tuple[str, int], bytes] = OrderedDict()

    def _for(self, index: LoadedIndex) -> None:
        with self._lock:
            if self._index_ref is None or self._index_ref() is not index:
                self._index_ref = weakref.ref(index)
                self._labels, self._sizes, self._blocks = {}, {}, {}
                self._renders.clear()

    def _indexed(self, index: LoadedIndex, doc_id: str) -> str:
        if not safe_id(doc_id) or doc_id not in index.info.documents:
            raise FileRefused(f"no indexed document {doc_id[:80]!r}")
        return doc_id

    # -- documents ---------------------------------------------------------------------------

    def label(self, index: LoadedIndex, doc_id: str) -> DocumentLabel | None:
        """The document's raw_documents row, or None when it cannot be read."""
        self._for(index)
        if doc_id in self._labels:
            return self._labels[doc_id]
        found = None
        if safe_id(doc_id) and doc_id in index.info.documents:
            try:
                table = self.warehouse.read_table("raw_documents", doc_id)
            except (OSError, ValueError, RuntimeError):
                table = None
            if table is not None and table.num_rows:
                row = table.slice(0, 1).select(["source_name", "format", "page_count", "sha256"]).to_pylist()[0]
                found = DocumentLabel(row["source_name"] or doc_id, str(row["format"] or ""), int(row["page_count"] or 0), row["sha256"] or "")
        self._labels[doc_id] = found
        return found

    def crop_sizes(self, index: LoadedIndex, doc_id: str) -> dict[str, CropSize]:
        """{block_id: size} from the document's ``crops`` rows ({} when absent)."""
        self._for(index)
        if doc_id not in self._sizes:
            sizes: dict[str, CropSize] = {}
            try:
                table = self.warehouse.read_table("crops", doc_id) if safe_id(doc_id) else None
            except (OSError, ValueError, RuntimeError):
                table = None
            if table is not None:
                for row in table.select(["block_id", "width_px", "height_px", "dpi"]).to_pylist():
                    sizes[row["block_id"]] = CropSize(int(row["width_px"] or 0), int(row["height_px"] or 0), int(row["dpi"] or 0))
            self._sizes[doc_id] = sizes
        return self._sizes[doc_id]

    def _attachment_ids(self, index: LoadedIndex, doc_id: str) -> frozenset[str]:
        if doc_id not in self._blocks:
            rows = index.rows.select(["doc_id", "attachments"])
            mine = rows.filter(pc.equal(rows["doc_id"], doc_id)).column("attachments").to_pylist()
            self._blocks[doc_id] = frozenset(a["block_id"] for atts in mine for a in atts or () if a.get("block_id"))
        return self._blocks[doc_id]

    # -- crops --------------------------------------------------------------------------------

    def crop(self, index: LoadedIndex, doc_id: str, block_id: str) -> bytes:
        """The PNG of one attachment's crop (see the module docstring)."""
        self._for(index)
        self._indexed(index, doc_id)
        if not safe_id(block_id) or block_id not in self._attachment_ids(index, doc_id):
            raise FileRefused(f"document {doc_id!r} has no attachment {block_id[:80]!r}")
        target = self.warehouse.path("crops", doc_id, f"{block_id}.png")
        if self.warehouse.is_local:
            root = os.path.realpath(str(self.warehouse.path("crops")))
            real = os.path.realpath(str(target))
            if os.path.commonpath([root, real]) != root:
                raise FileRefused(f"the crop of {block_id!r} is not inside the warehouse's crops/", HTTPStatus.FORBIDDEN)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise FileRefused(f"the crop of {block_id!r} is missing from the warehouse; read the source at its page") from None
        except OSError as exc:
            raise FileRefused(f"the crop of {block_id!r} cannot be read: {exc.strerror or exc}", HTTPStatus.SERVICE_UNAVAILABLE) from None
        if len(data) > MAX_CROP_BYTES or not data.startswith(PNG_MAGIC):
            raise FileRefused(f"the crop of {block_id!r} is not a PNG image", HTTPStatus.UNPROCESSABLE_ENTITY)
        return data

    # -- page renders -----------------------------------------------------------------------------

    def can_render(self, label: DocumentLabel | None, page: int | None) -> bool:
        return bool(label and label.format == "pdf" and page and 1 <= page <= label.page_count)

    def render(self, index: LoadedIndex, doc_id: str, page_text: str) -> bytes:
        """Page ``page_text`` (1-based) of the document's stored PDF as a PNG."""
        self._for(index)
        self._indexed(index, doc_id)
        if not re.fullmatch(r"[0-9]{1,6}", page_text):
            raise FileRefused(f"page must be a whole number, got {page_text[:20]!r}", HTTPStatus.BAD_REQUEST)
        page = int(page_text)
        label = self.label(index, doc_id)
        if label is None:
            raise FileRefused(f"document {doc_id!r} has no stored source to render")
        if label.format != "pdf":
            raise FileRefused(f"document {doc_id!r} is a {label.format or 'file'} without pages to render; open the source file")
        if not self.can_render(label, page):
            raise FileRefused(f"document {doc_id!r} has pages 1 to {label.page_count}, not {page}")
        key = (doc_id, page)
        with self._lock:
            if key in self._renders:
                self._renders.move_to_end(key)
                return self._renders[key]
        if not _SHA256.fullmatch(label.sha256):
            raise FileRefused(f"document {doc_id!r} has no stored source to render")
        with self._render_lock:
            try:
                data = self.warehouse.read_source(label.sha256)
            except OSError:
                raise FileRefused(f"the stored source of {doc_id!r} is missing from the warehouse") from None
            png = render_pdf_page(data, page)
        with self._lock:
            self._renders[key] = png
            while len(self._renders) > RENDER_CACHE:
                self._renders.popitem(last=False)
        return png


def render_pdf_page(data: bytes, page: int, dpi: int = RENDER_DPI, max_side: int = RENDER_MAX_SIDE) -> bytes:
    """One page of a PDF as PNG bytes, at ``dpi`` unless that would make a
    side longer than ``max_side`` pixels."""
    from ..parse.pdf.engine import load_pymupdf

    pymupdf = load_pymupdf()
    try:
        with pymupdf.open(stream=data, filetype="pdf") as doc:
            if doc.needs_pass:
                raise FileRefused("the stored PDF is encrypted; open the source file", HTTPStatus.UNPROCESSABLE_ENTITY)
            target = doc[page - 1]
            longest = max(target.rect.width, target.rect.height) or 1.0
            zoom = min(dpi / 72, max_side / longest)
            return target.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).tobytes("png")
    except FileRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - a reason, never a stack trace
        raise FileRefused(f"the page could not be rendered: {type(exc).__name__}: {exc}", HTTPStatus.UNPROCESSABLE_ENTITY) from None


def crop_url(doc_id: str, block_id: str) -> str:
    return "/crop?" + urlencode({"doc": doc_id, "block": block_id})


def render_url(doc_id: str, page: int) -> str:
    return "/render?" + urlencode({"doc": doc_id, "page": page})
