"""ADR 0018 (DOCX and spreadsheet parsing, fixed-size chunking) as rules on
the ``chunks`` asset, each against the document's *own* settings (the ones
its collection.toml gave it, on its raw_documents row).

- §7: no chunk over the document's ``max_chunk_tokens`` (cl100k, recounted).
- §5: Persian normalization is a pipeline invariant: in a ``persian``
  collection no chunk keeps an Arabic-form letter (ك ي ى أ إ), a haraka or a
  tatweel; and digits are as authored (the digit scripts of the canonical
  text are those of the file: ۱۲۳ never becomes 123, nor ١٢٣ ۱۲۳).
- §3: a DOCX table is data or layout by its structure alone (a cell holding
  a nested table or a text box, or a cell over ``chunk_size`` tokens, makes it
  layout), re-derived here from the stored file: a data table's rows are
  TABLE_ROW segments, a layout table's cells are prose.
- ADR 0006 §2 descriptors, in the document's language, re-derived from the
  lifted block's metadata by this module's own reading of the grammar (not the
  chunker's :func:`describe_block`), so a bug in the builder cannot pass.

Every rule here reads what is stored (rows, the kept source bytes, the
settings on the raw_documents row); none calls the parser or the chunker.
"""

from __future__ import annotations

import html
import io
import re
import zipfile
from typing import Any

from lxml import etree

from duocthu_assets.chunking.tokenizer import count_tokens
from duocthu_assets.schemas import first_row
from duocthu_assets.settings import Normalization, Settings, row_settings
from duocthu_assets.textnorm import normalize_block

from .adr0006 import DESCRIPTOR, descriptor_block_id
from .rules import DocumentRows, Row, Rule, RuleResult

ASSET = "chunks"


def _pages(chunk: Row) -> list[int]:
    return [r["page_no"] for r in chunk.get("regions") or []]


def _settings(rows: DocumentRows) -> Settings:
    return rows.settings if rows.settings is not None else Settings()


# -- §7 tokens -------------------------------------------------------------------------


def chunk_over_document_max_tokens(rows: DocumentRows) -> RuleResult:
    """No chunk is over its document's own max_chunk_tokens (cl100k, recounted;
    ADR 0018 §7): a collection that lowers the cap is held to it."""
    limit = _settings(rows).max_chunk_tokens
    bad = [c for c in rows.chunks if count_tokens(c["text"]) > limit]
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        f"chunks over this document's max_chunk_tokens ({limit} cl100k tokens)",
        (p for c in bad for p in _pages(c)),
    )


# -- §5 Persian normalization -----------------------------------------------------------

# ADR 0018 §5's folds (ك→ک, ي→ی, ى→ی, أ/إ→ا), the harakat U+064B..U+0652,
# tatweel U+0640 and ¬: none may be left once a block is normalized
ARABIC_FORMS = {
    "\u0643": "ARABIC LETTER KAF (ك)",
    "\u064a": "ARABIC LETTER YEH (ي)",
    "\u0649": "ARABIC LETTER ALEF MAKSURA (ى)",
    "\u0623": "ARABIC LETTER ALEF WITH HAMZA ABOVE (أ)",
    "\u0625": "ARABIC LETTER ALEF WITH HAMZA BELOW (إ)",
    "\u0640": "ARABIC TATWEEL",
    "\u00ac": "NOT SIGN (¬)",
    **{chr(c): f"haraka U+{c:04X}" for c in range(0x064B, 0x0653)},
}


def _is_persian(rows: DocumentRows) -> bool:
    stored = (rows.raw or {}).get("normalization")
    if stored:
        return stored == Normalization.PERSIAN
    return _settings(rows).normalization is Normalization.PERSIAN


def arabic_forms_in_persian_chunks(rows: DocumentRows) -> RuleResult:
    """In a persian collection no chunk keeps an Arabic-form letter (ك ي ى أ
    إ), a haraka, a tatweel or ¬ (ADR 0018 §5: normalization is a pipeline
    invariant, whatever the format or the path the text took)."""
    if not _is_persian(rows):
        return RuleResult(passed=True, message="not a persian collection")
    bad, found = [], set()
    for chunk in rows.chunks:
        left = {ch for ch in chunk["text"] if ch in ARABIC_FORMS}
        if left:
            bad.append(chunk)
            found |= left
    what = "chunks of a persian collection with Arabic forms left"
    if found:
        what += f" ({', '.join(ARABIC_FORMS[ch] for ch in sorted(found))})"
    return RuleResult.from_offenders((c["chunk_id"] for c in bad), what, (p for c in bad for p in _pages(c)))


DIGIT_SCRIPTS = {"ascii": range(0x30, 0x3A), "arabic-indic": range(0x660, 0x66A), "persian": range(0x6F0, 0x6FA)}


def digit_scripts(text: str) -> set[str]:
    found = set()
    for ch in set(text):
        for script, codes in DIGIT_SCRIPTS.items():
            if ord(ch) in codes:
                found.add(script)
    return found


_W_T = re.compile(r"<w:t(?:\s[^>]*)?>([^<]*)</w:t>")
_FALLBACK = re.compile(r"<mc:Fallback\b.*?</mc:Fallback>", re.S)
_X_T = re.compile(r"<(?:\w+:)?t(?:\s[^>]*)?>([^<]*)</(?:\w+:)?t>")
_SHEET_NAME = re.compile(r"<(?:\w+:)?sheet\b[^>]*\bname=\"([^\"]*)\"")


def _xml_texts(data: bytes, pattern: re.Pattern[str]) -> str:
    text = _FALLBACK.sub("", data.decode("utf-8", "replace"))
    return " ".join(html.unescape(t) for t in pattern.findall(text))


def source_texts(fmt: str, data: bytes) -> tuple[str, str] | None:
    """The authored text of a file, read with no parser of this project:
    (text every extracted character comes from, text that is all extracted)
    — a superset and a subset of what the parser reads. None for a format
    read here only by its parser (PDF)."""
    try:
        if fmt == "docx":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = [n for n in zf.namelist() if n.startswith("word/") and n.endswith(".xml")]
                everything = " ".join(_xml_texts(zf.read(n), _W_T) for n in names)
                body = " ".join(_xml_texts(zf.read(n), _W_T) for n in names if n in ("word/document.xml", "word/footnotes.xml", "word/endnotes.xml"))
                return everything, body
        if fmt == "xlsx":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                names = [n for n in zf.namelist() if n.startswith("xl/") and n.endswith(".xml")]
                everything = " ".join(_xml_texts(zf.read(n), _X_T) for n in names)
                everything += " " + " ".join(_SHEET_NAME.findall(zf.read("xl/workbook.xml").decode("utf-8", "replace"))) if "xl/workbook.xml" in names else ""
                return everything + " 0123456789", ""  # numbers are rendered in ASCII; the subset is not provable
        if fmt == "csv":
            if data.startswith((b"\xff\xfe", b"\xfe\xff")):
                text = data.decode("utf-16")
            else:
                try:
                    text = data.decode("utf-8-sig")
                except UnicodeDecodeError:
                    text = data.decode("cp1256", "replace")  # legacy: its digits are ASCII only
            return text, text
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, OSError):
        return None
    return None


def digits_not_as_authored(rows: DocumentRows) -> RuleResult:
    """In a persian collection the digits are as authored (ADR 0018 §5):
    every digit script of the canonical text is in the file (ASCII aside:
    footnote marks and numbers are written in it), and every Persian or
    Arabic-Indic script of the file's extracted parts is in the canonical text,
    read from the stored file (DOCX, XLSX, CSV)."""
    if not _is_persian(rows):
        return RuleResult(passed=True, message="not a persian collection")
    parsed, raw = rows.parsed or {}, rows.raw or {}
    if parsed.get("status") != "ok" or rows.source is None:
        return RuleResult(passed=True, message="no parsed text or stored file to compare")
    texts = source_texts(str(raw.get("format", "")), rows.source)
    if texts is None:
        return RuleResult(passed=True, message=f"digits not re-read for format {raw.get('format')!r}")
    everything, extracted = texts
    canonical = digit_scripts(parsed.get("canonical_text") or "")
    invented = sorted(canonical - digit_scripts(everything) - {"ascii"})
    lost = sorted(digit_scripts(extracted) - canonical - {"ascii"})
    problems = [f"{s} digits the file does not have" for s in invented] + [f"the file's {s} digits are gone" for s in lost]
    if not problems:
        return RuleResult(passed=True, message="digits as authored")
    return RuleResult(passed=False, count=len(problems), offending_ids=(rows.doc_id,),
                      message=f"digits not as authored: {'; '.join(problems)} (normalization must not rewrite digits)")


# -- §3 data versus layout tables ------------------------------------------------------

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_TBL, _TC, _P, _T, _TXBX = (f"{{{W}}}{n}" for n in ("tbl", "tc", "p", "t", "txbxContent"))
_ROW_REF = re.compile(r"^docx:body\[(\d+)\]/tbl\[r\d+\]$")
_CELL_REF = re.compile(r"^docx:body\[(\d+)\]/tbl\[r\d+c\d+\]")


def docx_table_kinds(data: bytes, settings: Settings) -> dict[int, str]:
    """Each top-level table of the document body, by its index among the
    body's elements: ``"layout"`` when a cell holds a nested table or a text
    box or a cell's text alone is over ``chunk_size`` tokens, else ``"data"``."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        root = etree.fromstring(zf.read("word/document.xml"), etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    body = root.find(f"{{{W}}}body")
    kinds: dict[int, str] = {}
    if body is None:
        return kinds
    for i, child in enumerate(c for c in body if isinstance(c.tag, str)):
        if child.tag != _TBL:
            continue
        layout = any(el is not child for el in child.iter(_TBL)) or next(child.iter(_TXBX), None) is not None
        if not layout:
            for tc in child.iter(_TC):
                text = " ".join("".join(t.text or "" for t in p.iter(_T)) for p in tc.iter(_P))
                text = normalize_block(text, settings.normalization)
                if len(text.encode("utf-8")) > settings.chunk_size and count_tokens(text) > settings.chunk_size:
                    layout = True
                    break
        kinds[i] = "layout" if layout else "data"
    return kinds


def docx_table_data_or_layout(rows: DocumentRows) -> RuleResult:
    """A DOCX table is data or layout by structure alone (ADR 0018 §3),
    re-derived from the stored file with the document's chunk_size: a data
    table gives TABLE_ROW segments and no prose from its cells, a layout
    table gives prose from its cells and no TABLE_ROW."""
    raw = rows.raw or {}
    if raw.get("format") != "docx" or rows.source is None or (rows.parsed or {}).get("status") != "ok":
        return RuleResult(passed=True, message="not a parsed DOCX")
    try:
        kinds = docx_table_kinds(rows.source, _settings(rows))
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        return RuleResult(passed=False, count=1, offending_ids=(rows.doc_id,), message=f"the stored DOCX cannot be re-read: {exc}")
    bad = []
    for segment in rows.segments:
        ref = segment.get("source_ref") or ""
        as_row, as_cell = _ROW_REF.match(ref), _CELL_REF.match(ref)
        if as_row and segment["kind"] == "table_row" and kinds.get(int(as_row.group(1))) == "layout":
            bad.append(segment)
        elif as_cell and kinds.get(int(as_cell.group(1))) == "data":
            bad.append(segment)
    return RuleResult.from_offenders(
        (f"{s['segment_id']} ({s['source_ref']})" for s in bad),
        "segments whose table was read as data when its structure makes it layout, or the reverse",
    )


# -- descriptors, re-derived -------------------------------------------------------------

WORDS = {
    "vi": {"table": "bảng", "formula": "công thức", "picture": "hình"},
    "en": {"table": "table", "formula": "formula", "picture": "picture"},
}
PAGES = {"vi": ("trang in {}", "trang {} của tệp"), "en": ("printed page {}", "page {} of the file")}


def expected_descriptor(block: Row, language: str) -> str:
    """ADR 0006 §2, read afresh: the entry title, the headings between it and
    the section, the section title (blank, repeated or U+FFFD ones out), then
    ``<kind word>, <page>.`` — the printed page (or printed label) when the
    page prints one, else the file's page, said so. Vietnamese for ``vi``,
    English otherwise."""
    lang = "vi" if language == "vi" else "en"
    printed, physical = PAGES[lang]
    if block.get("printed_page") is not None:
        page = printed.format(block["printed_page"])
    elif block.get("printed_label"):
        page = printed.format(block["printed_label"])
    else:
        page = physical.format(block["page_no"])
    entry, section = (block.get("entry_title") or "").strip(), (block.get("section_title") or "").strip()
    trail = [h.strip() for h in block.get("headings") or []]
    if entry in trail:
        trail = trail[trail.index(entry) + 1 :]
    if section in trail:
        trail = trail[: trail.index(section)]
    titles: list[str] = []
    for title in (entry, *trail, section):
        if title and "\ufffd" not in title and title not in titles:
            titles.append(title)
    tail = f"{WORDS[lang][block['kind']]}, {page}."
    return " — ".join([*titles, tail]) if titles else tail[:1].upper() + tail[1:]


def descriptor_not_from_block_metadata(rows: DocumentRows) -> RuleResult:
    """Each block_descriptor chunk's text is exactly what its block's stored
    metadata says in the document's language (re-derived here, not by the
    chunker): a descriptor naming the wrong page, title or kind, or one in
    the other language, fails."""
    blocks = {b["block_id"]: b for b in rows.blocks}
    language = _settings(rows).language
    bad = []
    for chunk in rows.chunks:
        if chunk["chunk_kind"] != DESCRIPTOR:
            continue
        block = blocks.get(descriptor_block_id(chunk))
        if block is None or block.get("kind") not in WORDS["en"] or chunk["text"] != expected_descriptor(block, language):
            bad.append(chunk)
    return RuleResult.from_offenders(
        (c["chunk_id"] for c in bad),
        "descriptor chunks whose text is not their block's metadata",
        (p for c in bad for p in _pages(c)),
    )


# -- settings of a document ------------------------------------------------------------


def document_settings(warehouse: Any, doc_id: str) -> Settings | None:
    """The settings the document was built with: the struct on its
    raw_documents row, or None when it has no row."""
    row = first_row(warehouse.read_table("raw_documents", doc_id))
    return row_settings(row) if row else None


def _rule(name: str, evaluate, needs: tuple[str, ...]) -> Rule:
    return Rule.of(name, ASSET, evaluate, needs)


ADR0018_RULES: list[Rule] = [
    _rule("adr0018_03_docx_table_data_or_layout", docx_table_data_or_layout, ("segments", "raw", "parsed", "source", "settings")),
    _rule("adr0018_05_arabic_forms_in_persian_chunks", arabic_forms_in_persian_chunks, ("chunks", "raw", "settings")),
    _rule("adr0018_05_digits_not_as_authored", digits_not_as_authored, ("parsed", "raw", "source", "settings")),
    _rule("adr0018_07_chunk_over_document_max_tokens", chunk_over_document_max_tokens, ("chunks", "settings")),
    _rule("adr0018_descriptor_not_from_block_metadata", descriptor_not_from_block_metadata, ("chunks", "blocks", "settings")),
]
