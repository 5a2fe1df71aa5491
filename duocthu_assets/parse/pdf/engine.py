"""PyMuPDF, imported without its layout model, and documents opened safely.

PyMuPDF 2.0 imports ``pymupdf.layout`` from its own ``__init__`` when the
module is importable (it ships inside the wheel), and that import loads an
ONNX layout model (``pymupdf.layout.activate()``): about 0.5 s per process and
a ``find_tables`` six times slower. There is no switch for it (no environment
variable; ``pymupdf4llm.use_layout(False)`` only sets ``pymupdf._get_layout =
None`` after the model is loaded). So the first import here hides
``pymupdf.layout`` for the duration of ``import pymupdf`` and un-hides it after,
which leaves the model available to code that asks for it explicitly
(``import pymupdf.layout``) while this parser never pays for it. It also
imports ``pymupdf4llm`` (and with it numpy, about 0.3 s) for the
``Document.to_markdown`` family; that import is deferred to the first use.
This parser calls neither ``find_tables`` nor the layout model.
"""

from __future__ import annotations

import re
import sys
from types import ModuleType

from ..errors import DocumentRejected, ParseFailed

_DEFERRED = ("pymupdf.layout", "pymupdf4llm")


class _LazyModule:
    """Stands in for a module PyMuPDF imports eagerly; imports it on first use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __bool__(self) -> bool:
        return True

    def __getattr__(self, attr: str):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


def load_pymupdf() -> ModuleType:
    """Import PyMuPDF without letting it load the ONNX layout model or
    pymupdf4llm."""
    loaded = sys.modules.get("pymupdf")
    if loaded is not None:
        return loaded
    hidden = [name for name in _DEFERRED if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail
    try:
        import pymupdf
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    if "pymupdf4llm" in hidden and getattr(pymupdf, "pymupdf4llm", None) is None:
        pymupdf.pymupdf4llm = _LazyModule("pymupdf4llm")
    pymupdf.no_recommend_layout()  # we chose not to use it; do not print advice on stdout
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf


pymupdf = load_pymupdf()

ENCRYPTED_MESSAGE = "encrypted PDF: a password is needed to open it — remove the protection and add it again"

# zlib's "incorrect data check" is a checksum mismatch after the data decoded
# in full (MuPDF recovers the whole stream); anything else means lost bytes,
# as does a page whose content stream cannot be loaded at all.
_STREAM_ERROR = re.compile(
    r"(zlib|flate|lzw|ccitt|dct|jbig2|ascii85|asciihex|runlength)[^\n]*error|cannot load content stream|object is not a stream",
    re.IGNORECASE,
)
_HARMLESS = re.compile(r"incorrect data check", re.IGNORECASE)


_TRAILING_PADDING = b"\x00\t\n\x0c\r "
_EOF_WINDOW = 1024  # the end marker sits in the file's last bytes (padding aside)


def truncation(data: bytes) -> str | None:
    """What says the file was cut short, or None: a PDF ends with ``%%EOF``
    (after the cross-reference table); NUL or whitespace padding after it is
    harmless."""
    tail = data.rstrip(_TRAILING_PADDING)[-_EOF_WINDOW:]
    if b"%%EOF" in tail:
        return None
    return f"the file ends after {len(data):,} bytes without the PDF end marker (%%EOF): it was cut short (an interrupted download or copy)"


def damaged(what: str) -> ParseFailed:
    """The error for a truncated or corrupt file; the bytes stay in the
    warehouse's source store."""
    return ParseFailed(f"damaged PDF: {what} — the file's bytes are kept; download or export it again")


def open_pdf(data: bytes) -> "pymupdf.Document":
    """Open PDF bytes, or raise an error a user can act on: ``ParseFailed`` for
    empty, truncated, corrupt or page-less files (``damaged PDF: …`` naming
    what is wrong), ``DocumentRejected`` for files that need a password (an
    owner-password-only file opens with the empty password and is parsed)."""
    if not data:
        raise ParseFailed("empty file: 0 bytes, not a PDF")
    # MuPDF's character boxes as this parser reads them, whatever else in the process set:
    # importing pymupdf4llm turns its quad corrections off for every later document
    # (TOOLS.unset_quad_corrections(True)), and a parse after it read other boxes
    # (a block a point taller, equation numbers on lines of their own)
    pymupdf.TOOLS.unset_quad_corrections(False)
    pymupdf.TOOLS.mupdf_warnings(reset=True)
    cut = truncation(data)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # noqa: BLE001 - MuPDF raises plain RuntimeError/FileDataError
        raise damaged(f"MuPDF cannot open it ({exc})" + (f"; {cut}" if cut else "")) from exc
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise DocumentRejected(ENCRYPTED_MESSAGE)
    repaired = bool(getattr(doc, "is_repaired", False))
    if cut is not None and repaired:
        # MuPDF rebuilt the cross-reference table from what is left: pages,
        # fonts or images past the cut are gone, whatever still opens
        doc.close()
        raise damaged(cut)
    if doc.page_count == 0:
        doc.close()
        if repaired:
            raise damaged("its cross-reference table is broken and no page could be recovered")
        raise ParseFailed("PDF has no pages: its page tree is empty")
    pymupdf.TOOLS.mupdf_warnings(reset=True)  # repairs at open time are not content loss
    return doc


def take_stream_errors() -> tuple[list[str], list[str]]:
    """MuPDF's warnings since the last call, split into (lost-data errors,
    harmless notes). Call after reading a page's text and drawings."""
    text = pymupdf.TOOLS.mupdf_warnings(reset=True) or ""
    errors: list[str] = []
    notes: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("... repeated"):
            continue
        if _STREAM_ERROR.search(line) and not _HARMLESS.search(line):
            errors.append(line)
        elif _STREAM_ERROR.search(line):
            notes.append(line)
    return errors, notes


def text_lines(page_dict: dict):
    """The text lines of a TextPage's ``extractDICT`` or ``extractRAWDICT``,
    each as ``((block, line), line)`` numbered as ``extractWORDS`` numbers
    its words' (text blocks only), so a word finds its line."""
    block_no = -1
    for block in page_dict["blocks"]:
        if block.get("type", 0) != 0:
            continue
        block_no += 1
        for line_no, line in enumerate(block["lines"]):
            yield (block_no, line_no), line


class PageImages:
    """A page's images, each read once for every finder that asks: the
    images its resources list (``get_images``: ``(xref, smask, width,
    height, bpc, …)``, 0.05 ms) and, on first use, where each is drawn
    (``get_image_info``: a pass over the page's content). The OCR-layer,
    fraction-bar, scanned-region and picture finders read them
    (``read/hidden``, ``read/rules``, ``read/scans``, ``read/pictures``). A
    damaged image resource reads as none: the page's text was read, and
    there is nothing to say of an image that cannot be read."""

    def __init__(self, page) -> None:
        self._page = page
        try:
            self.listed = page.get_images()
        except Exception:  # noqa: BLE001 - see the class docstring
            self.listed = []
        self._drawn: list[dict] | None = None

    def any(self, test) -> bool:
        """Whether the resources list an image ``test`` accepts."""
        return any(test(image) for image in self.listed)

    def drawn(self) -> list[dict]:
        """``get_image_info()``: each image drawn, with its ``bbox``, ``width``, ``height``, ``bpc``."""
        if self._drawn is None:
            try:
                self._drawn = self._page.get_image_info()
            except Exception:  # noqa: BLE001 - see the class docstring
                self._drawn = []
        return self._drawn
