"""The body walked in document order into units (kind, text, source ref):
paragraphs, headings, list items, data-table rows and the blocks of layout
tables, footnotes after their anchor."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from ....chunking.tokenizer import count_tokens
from ....model import SegmentKind
from ....settings import Settings
from ....textnorm import normalize_block
from .. import tabular
from ...inline_marks import SCRIPTS, STRUCK_CLOSE, STRUCK_OPEN, opens_with_note_mark, written
from ..symbol_font import SYMBOL_FONTS, symbol_char, symbol_text
from .equations import omml_linear
from .package import A, CHART, DIAGRAM, MC, V, W_BR, W_CR, W_CUSTOMXML, W_P, W_PTAB, W_SDT, W_SDTCONTENT, W_T, W_TAB, W_TBL, W_VAL, int_hex, int_or_none, m, w
from .styles import BODY_TEXT_OUTLINE, HIDDEN, STRUCK, Styles, script_mark, toggle
from .tables import cell_positions, table_rows, unique_cells

_W_R = w("r")
_CHART, _DIAGRAM = f"{{{CHART}}}chart", f"{{{DIAGRAM}}}relIds"
_NOTE_REFERENCES = (w("footnoteReference"), w("endnoteReference"))
_SKIP_INLINE = {w(n) for n in ("pPr", "rPr", "sdtPr", "sdtEndPr", "delText", "instrText", "delInstrText", "del",
                               "moveFrom", "fldData", "tblPr", "tcPr", "trPr", "sectPr")}


def paragraph_style(p: etree._Element) -> str | None:
    """The id of a paragraph's style (``w:pPr/w:pStyle``), or None."""
    style_el = p.find(f"{w('pPr')}/{w('pStyle')}")
    return style_el.get(W_VAL) if style_el is not None else None


def run_text(run: etree._Element) -> str:
    """A run's own text (its ``w:t``), stripped: what a warning counts and quotes."""
    return "".join(t.text or "" for t in run.iter(W_T)).strip()


def run_font(run: etree._Element) -> str:
    """The font a run sets for itself (``w:rFonts``' ``w:ascii``, else
    ``w:hAnsi``), or ``""`` (its style's or the document's)."""
    fonts = run.find(f"{w('rPr')}/{w('rFonts')}")
    if fonts is None:
        return ""
    return fonts.get(w("ascii")) or fonts.get(w("hAnsi")) or ""


def over_token_limit(text: str, limit: int) -> bool:
    """True when ``text`` has more than ``limit`` cl100k tokens (ADR 0018 §7).
    A text of n UTF-8 bytes has at most n tokens, so short texts are never encoded."""
    return len(text.encode("utf-8")) > limit and count_tokens(text) > limit


@dataclass
class Unit:
    kind: SegmentKind
    text: str
    ref: str
    level: int = 0


@dataclass
class Inline:
    text: str
    boxes: list[etree._Element] = field(default_factory=list)
    notes: list[tuple[str, str, int]] = field(default_factory=list)  # (kind, id, number)


@dataclass
class Counts:
    tables_data: int = 0
    tables_layout: int = 0
    rows: int = 0
    headed_tables: int = 0
    equations: int = 0
    images: int = 0
    objects: int = 0
    alt_chunks: int = 0
    charts: int = 0  # charts drawn in the body (DrawingML c:chart): their labels and values are no text of the body
    diagrams: int = 0  # SmartArt diagrams (dgm:relIds): their boxes' text lives in a part of its own
    symbols: dict[str, int] = field(default_factory=dict)
    hidden_chars: int = 0  # characters in runs Word hides (the Hidden font effect): left out
    hidden_first: str = ""  # the first such run's text, for the warning
    struck_chars: int = 0  # characters in struck-through runs: kept, marked ~~like this~~
    struck_first: str = ""


class Walker:
    def __init__(self, settings: Settings, styles: Styles, notes: dict[tuple[str, str], list[etree._Element]]):
        self.settings = settings
        self.styles = styles
        self.notes = notes
        self.note_numbers: dict[tuple[str, str], int] = {}
        self.units: list[Unit] = []
        self.counts = Counts()
        self._para_hidden = False  # the paragraph being read has a hidden style
        self._para_struck = False  # ... a struck-through style

    # -- text --------------------------------------------------------------
    def norm(self, text: str) -> str:
        return normalize_block(text, self.settings.normalization)

    def inline(self, el: etree._Element) -> Inline:
        out = Inline("")
        parts: list[str] = []
        outer = self._para_hidden, self._para_struck
        if el.tag == W_P:  # a paragraph style's effects apply to its runs (a run's own setting decides first)
            style = paragraph_style(el)
            self._para_hidden, self._para_struck = style in self.styles.hidden, style in self.styles.struck
        self._collect(el, parts, out)
        self._para_hidden, self._para_struck = outer
        out.text = written("".join(parts))
        return out

    def run_hidden(self, run: etree._Element) -> bool:
        """Whether Word hides this run (``w:vanish`` set on it, or on its
        character style, or on its paragraph's style): text the reader of
        the document never sees, as a PDF's text painted over."""
        return self._run_effect(run, HIDDEN, self.styles.hidden, self._para_hidden)

    def run_struck(self, run: etree._Element) -> bool:
        """Whether Word shows this run crossed out (Strikethrough or Double
        strikethrough, on the run, its character style or its paragraph's
        style): a dose struck and the new one typed after it is one
        deletion and one dose, not two doses."""
        return self._run_effect(run, STRUCK, self.styles.struck, self._para_struck)

    def run_script(self, run: etree._Element) -> str:
        """``"^"`` for a run set as a superscript (``w:vertAlign`` on the
        run, else its character style's), ``"_"`` for a subscript, ``""``
        otherwise and for a note's reference mark (written ``[n]``
        already)."""
        if any(child.tag in _NOTE_REFERENCES for child in run):
            return ""
        rpr = run.find(w("rPr"))
        if rpr is None:
            return ""
        mark = script_mark(rpr)
        if mark is not None:
            return mark
        style_el = rpr.find(w("rStyle"))
        return self.styles.scripts.get(style_el.get(W_VAL, ""), "") if style_el is not None else ""

    @staticmethod
    def _run_effect(run: etree._Element, props: tuple[str, ...], styles: frozenset[str], by_paragraph: bool) -> bool:
        rpr = run.find(w("rPr"))
        if rpr is not None:
            on = toggle(rpr, props)
            if on is not None:
                return on
            style_el = rpr.find(w("rStyle"))
            if style_el is not None and style_el.get(W_VAL) in styles:
                return True
        return by_paragraph

    def _collect(self, el: etree._Element, parts: list[str], out: Inline) -> None:
        for child in el:
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP_INLINE:
                continue
            if tag == _W_R and self.run_hidden(child):
                hidden = run_text(child)
                if hidden:
                    self.counts.hidden_chars += len(hidden)
                    self.counts.hidden_first = self.counts.hidden_first or hidden
                continue
            if tag == _W_R:
                self._run(child, parts, out)
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
                code = int_hex(child.get(w("char")))
                if code is not None:
                    char = symbol_char(font, code)  # the Symbol font's ≤ ≥ ± µ as themselves
                    if char is None:
                        char = chr(code)
                        self.counts.symbols[font] = self.counts.symbols.get(font, 0) + 1
                    parts.append(char)
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
            elif tag == _CHART:
                self.counts.charts += 1
            elif tag == _DIAGRAM:
                self.counts.diagrams += 1
            else:
                self._collect(child, parts, out)

    def _run(self, run: etree._Element, parts: list[str], out: Inline) -> None:
        """A run's text, crossed out (``~~0,5 g~~``) when Word strikes it
        through, and written after its mark when set as a superscript or
        subscript (``x^2``, ``H_2O``, ``10^{-3}``:
        :mod:`duocthu_assets.parse.inline_marks`)."""
        struck = self.run_struck(run)
        if struck:
            text = run_text(run)
            if text:
                self.counts.struck_chars += len(text)
                self.counts.struck_first = self.counts.struck_first or text
            parts.append(STRUCK_OPEN)
        mark = self.run_script(run)
        if mark:
            parts.append(SCRIPTS[mark][0])
        if run_font(run).casefold() in SYMBOL_FONTS:  # its text is the Symbol font's codes: "£" is shown "≤"
            inner: list[str] = []
            self._collect(run, inner, out)
            parts.append(symbol_text("".join(inner)))
        else:
            self._collect(run, parts, out)
        if mark:
            parts.append(SCRIPTS[mark][1])
        if struck:
            parts.append(STRUCK_CLOSE)

    # -- emission ----------------------------------------------------------
    def emit(self, kind: SegmentKind, raw: str, ref: str, level: int = 0) -> None:
        text = self.norm(raw)
        if kind is SegmentKind.HEADING:
            text = " ".join(text.split())
        if text:
            self.units.append(Unit(kind, text, ref, level))

    def emitread_notes(self, notes: list[tuple[str, str, int]]) -> None:
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
        style_id = paragraph_style(p)
        level = self.styles.heading_level(style_id)
        direct_outline = ppr.find(w("outlineLvl")) if ppr is not None else None
        if direct_outline is not None:
            outline = int_or_none(direct_outline.get(W_VAL))
            if outline is not None:
                level = None if outline >= BODY_TEXT_OUTLINE else outline + 1
        inline = self.inline(p)
        if level is not None and not any(ch.isalnum() for ch in inline.text):
            level = None  # a rule of dots or dashes declared a heading is no heading
        if level is not None and opens_with_note_mark(inline.text):
            level = None  # a footnote typed in a heading style (issue 40: "^8 Ghi rõ…" was a heading trail)
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
        self.emitread_notes(inline.notes)
        for k, box in enumerate(inline.boxes):
            self.walk_container(box, f"{ref}/txbx[{k}]")

    # -- tables ------------------------------------------------------------
    def table(self, tbl: etree._Element, ref: str) -> None:
        positions = cell_positions(table_rows(tbl))
        if not positions:
            return
        cells = unique_cells(positions)
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

    def cell_inline(self, tc: etree._Element) -> Inline:
        """A data cell's text: its paragraphs, each normalized, joined by a space."""
        out = Inline("")
        pieces = []
        for p in tc.iter(W_P):
            inline = self.inline(p)
            pieces.append(" ".join(self.norm(inline.text).split()))
            out.boxes += inline.boxes
            out.notes += inline.notes
        out.text = " ".join(piece for piece in pieces if piece)
        return out

    def data_table(self, positions, texts: dict[tuple[int, int], Inline], ref: str) -> None:
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
                self.units.append(Unit(kind, row.text, f"{ref}/tbl[r{row.row}]"))
                self.counts.rows += 0 if row.banner else 1
        for inline in texts.values():
            self.emitread_notes(inline.notes)
