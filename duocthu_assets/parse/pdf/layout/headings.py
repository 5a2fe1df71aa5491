"""Which paragraphs are headings, and at what level.

``generic`` profile: headings come from typography and numbering: text set
larger than the body, or bold and short, or opened by legal numbering
(``Điều 5``, ``Chương II``); levels rank the heading styles of the document
(larger first, bold before regular), and within one style deeper numbering
(``7.6.1`` under ``7.6`` under ``7.``) or the legal order Phần > Chương > Mục >
Điều goes one level down.

``formulary`` profile: a monograph title (upper case, set large or bold) is
level 1, a standard section heading is level 2 (also when printed as a bold
label opening a line: "Mã ATC: J01CR01." gives the heading and a paragraph),
and nothing else is a heading: sub-headings inside a section ("Người lớn:")
stay paragraphs, so a section is never cut short.

``legal`` profile (:mod:`...profiles.legal`): a paragraph opened by legal numbering
(``Điều 17.``, ``Chương II``, ``Article 3.``) is a heading whatever its
length — its bold lines are the title, however many it wraps over, and the
lines after them are a paragraph — a label alone on its line takes the title
lines below it, clauses and points are list items at their level below the
article, and nothing else is a heading.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ....model import SegmentKind
from ....settings import Profile
from ...inline_marks import opens_with_note_mark
from ...profiles import formulary, legal
from ..geometry import BBox
from .paragraphs import LIST_MARKER, Para, join_lines
from ....settings.pdf import PdfSettings

_DECIMAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")
_LETTER = re.compile(r"^[a-zđ][.)]\s+\S", re.IGNORECASE)
_ROMAN = re.compile(r"^[IVXLC]{1,6}\.\s+\S")
_LEGAL = re.compile(r"^(phần|chương|mục|tiểu mục|điều|part|chapter|section|article)\s+([\dIVXLC]+|thứ\s+\S+)\b", re.IGNORECASE)
_LEGAL_LABEL = re.compile(r"^(phần|chương|mục|part|chapter)\s+([\dIVXLC]+|thứ\s+\S+)\.?$", re.IGNORECASE)
_LEGAL_ORDER = {"phần": 1, "part": 1, "chương": 2, "chapter": 2, "mục": 3, "section": 3, "tiểu mục": 4, "điều": 5, "article": 5}
_SENTENCE_END = re.compile(r"[,;]$")
_TERMINAL = re.compile(r"[.:;!?]$")
_UPPER_LETTER = re.compile(r"^[A-Z]\.\s+\S")


@dataclass(frozen=True)
class Draft:
    """A segment before ids and sections: kind, text, level and where."""

    kind: SegmentKind
    text: str
    level: int
    page_no: int
    bbox: BBox


def numbering_depth(text: str) -> tuple[str, int] | None:
    """("decimal", 3) for "7.6.1 ...", ("legal", 5) for "Điều 5", ("letter", 1)
    for "a. ...", ("roman", 1) for "IV. ..."; None when unnumbered."""
    text = unicodedata.normalize("NFC", text.strip())
    m = _LEGAL.match(text)
    if m:
        return "legal", _LEGAL_ORDER.get(m.group(1).lower(), 5)
    m = _DECIMAL.match(text)
    if m:
        return "decimal", m.group(1).count(".") + 1
    if _ROMAN.match(text):
        return "roman", 1
    if _LETTER.match(text):
        return "letter", 1
    return None


def _style_key(p: Para) -> tuple[float, bool]:
    return (round(p.size * 2) / 2, p.bold)


def is_generic_heading(p: Para, body_size: float, settings: PdfSettings) -> bool:
    if len(p.lines) > settings.heading_max_lines or p.word_count > settings.heading_max_words:
        return False
    text = p.text.strip()
    if not text or _SENTENCE_END.search(text) or not any(c.isalpha() for c in text):
        return False
    if opens_with_note_mark(text):
        return False  # a footnote, however it is set
    larger = p.size >= settings.heading_size_ratio * body_size
    numbered = numbering_depth(text)
    if numbered and numbered[0] == "legal":
        return True
    if larger:
        return True
    if numbered and numbered[0] in ("decimal", "roman") or _UPPER_LETTER.match(text):
        # "3. Results", "IV. Discussion", "A. Setup": short, one line, no sentence
        if len(p.lines) == 1 and p.word_count <= 10 and not _TERMINAL.search(text):
            return True
    if p.bold:
        # a bold numbered list item that is a sentence is not a heading
        return not (text.endswith(".") and p.word_count > 8)
    return False


def classify_generic(paras: list[Para], body_size: float, settings: PdfSettings) -> list[list[Draft]]:
    """Drafts per paragraph (at most one each; a legal label's title line is
    joined to the label) with heading levels from typography."""
    heads = [is_generic_heading(p, body_size, settings) for p in paras]
    styles = sorted({_style_key(p) for p, h in zip(paras, heads) if h}, key=lambda k: (-k[0], not k[1]))
    rank = {k: i for i, k in enumerate(styles)}
    depths: dict[tuple[float, bool], set[tuple[str, int]]] = {}
    for p, h in zip(paras, heads):
        if h:
            n = numbering_depth(p.text)
            if n:
                depths.setdefault(_style_key(p), set()).add(n)
    out: list[list[Draft]] = []
    for k, (p, h) in enumerate(zip(paras, heads)):
        text = p.text
        if h and k > 0 and heads[k - 1] and _LEGAL_LABEL.match(paras[k - 1].text.strip()) and not numbering_depth(text) and out[-1]:
            # "Chương I" / "NHỮNG QUY ĐỊNH CHUNG": the label's title, one heading
            label = out[-1][0]
            bbox = (min(label.bbox[0], p.bbox[0]), min(label.bbox[1], p.bbox[1]), max(label.bbox[2], p.bbox[2]), max(label.bbox[3], p.bbox[3]))
            out[-1] = [Draft(SegmentKind.HEADING, f"{label.text} {text}", label.level, label.page_no, bbox)]
            out.append([])
            continue
        if h:
            key = _style_key(p)
            level = rank[key] + 1
            n = numbering_depth(text)
            if n and n[0] in ("decimal", "legal"):
                present = sorted(d for kind, d in depths.get(key, ()) if kind == n[0])
                level += present.index(n[1])
            out.append([Draft(SegmentKind.HEADING, text, min(level, 6), p.page_no, p.bbox)])
        elif LIST_MARKER.match(text):
            out.append([Draft(SegmentKind.LIST_ITEM, text, 0, p.page_no, p.bbox)])
        else:
            out.append([Draft(SegmentKind.PARAGRAPH, text, 0, p.page_no, p.bbox)])
    return out


def _label_bold(p: Para, label: str) -> bool:
    """Whether the words opening the paragraph up to ``label:`` are bold."""
    words = [w for f in p.lines[0] for w in f.words]
    taken = ""
    bold_chars = chars = 0
    for w in words:
        taken = (taken + " " + w.text).strip()
        chars += len(w.text)
        bold_chars += len(w.text) if w.bold else 0
        if ":" in w.text:
            break
    return chars > 0 and bold_chars >= 0.8 * chars


TITLE_LOOKAHEAD = 3  # an upper-case line set like the body is a title when a standard section follows this soon


def _opens_section(p: Para) -> bool:
    return len(p.lines) <= 2 and formulary.match_section_heading(p.text) is not None or formulary.split_inline_section(p.text) is not None


def classify_formulary(paras: list[Para], body_size: float, settings: PdfSettings) -> list[list[Draft]]:
    out: list[list[Draft]] = []
    for k, p in enumerate(paras):
        text = p.text
        drafts: list[Draft] = []
        prominent = p.bold or p.size >= 1.1 * body_size
        if not prominent and len(p.lines) <= 2 and formulary.is_monograph_title(text):
            # a plain upper-case line is a title only if standard sections follow it
            prominent = any(_opens_section(q) for q in paras[k + 1 : k + 1 + TITLE_LOOKAHEAD])
        if len(p.lines) <= 2 and prominent and formulary.is_monograph_title(text):
            drafts.append(Draft(SegmentKind.HEADING, text.strip(), 1, p.page_no, p.bbox))
        elif len(p.lines) <= 2 and formulary.match_section_heading(text):
            drafts.append(Draft(SegmentKind.HEADING, formulary.match_section_heading(text) or text, 2, p.page_no, p.bbox))
        else:
            inline = formulary.split_inline_section(text)
            if inline is not None and (inline[0] in formulary.INLINE_SECTIONS or _label_bold(p, inline[0])):
                title, rest = inline
                drafts.append(Draft(SegmentKind.HEADING, title, 2, p.page_no, p.bbox))
                drafts.append(Draft(SegmentKind.PARAGRAPH, rest, 0, p.page_no, p.bbox))
            elif LIST_MARKER.match(text):
                drafts.append(Draft(SegmentKind.LIST_ITEM, text, 0, p.page_no, p.bbox))
            else:
                drafts.append(Draft(SegmentKind.PARAGRAPH, text, 0, p.page_no, p.bbox))
        out.append(drafts)
    return out


def _line_bold(line) -> bool:
    words = [w for f in line for w in f.words]
    chars = sum(len(w.text) for w in words)
    return chars > 0 and sum(len(w.text) for w in words if w.bold) >= 0.8 * chars


def _union(a: BBox, b: BBox) -> BBox:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _lines_bbox(lines) -> BBox:
    boxes = [f.bbox for line in lines for f in line]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


LEGAL_PLAIN_TITLE_LINES = 3  # a legal heading set in regular type: at most this many lines are its title


def split_legal_heading(p: Para) -> tuple[int, int]:
    """How many of ``p``'s lines are the heading's title: the leading bold
    lines when the first is bold (a title wrapped over several lines), else
    the whole paragraph up to :data:`LEGAL_PLAIN_TITLE_LINES` lines, else the
    first line. Returned as (title lines, all lines)."""
    n = len(p.lines)
    if _line_bold(p.lines[0]):
        k = 1
        while k < n and _line_bold(p.lines[k]):
            k += 1
        return k, n
    return (n if n <= LEGAL_PLAIN_TITLE_LINES else 1), n


def classify_legal(paras: list[Para], body_size: float, settings: PdfSettings) -> list[list[Draft]]:
    marks = legal.mark([p.text for p in paras], emphasized=[p.bold for p in paras])
    out: list[list[Draft]] = []
    open_heading: int | None = None  # index in out of a heading still taking title lines
    for p, m in zip(paras, marks):
        if m.role == "heading":
            title_lines, n = split_legal_heading(p)
            title = join_lines([" ".join(f.text for f in line) for line in p.lines[:title_lines]])
            drafts = [Draft(SegmentKind.HEADING, title, m.level, p.page_no, _lines_bbox(p.lines[:title_lines]))]
            if title_lines < n:
                rest = p.lines[title_lines:]
                drafts.append(Draft(SegmentKind.PARAGRAPH, join_lines([" ".join(f.text for f in line) for line in rest]), 0, p.page_no, _lines_bbox(rest)))
            open_heading = len(out) if title_lines == n else None
            out.append(drafts)
            continue
        if m.role == "join" and open_heading is not None and out[open_heading][0].page_no == p.page_no:
            # "Chương I" / "NHỮNG QUY ĐỊNH CHUNG" on the same page: one heading
            head = out[open_heading][0]
            out[open_heading] = [Draft(SegmentKind.HEADING, f"{head.text} {p.text}", head.level, head.page_no, _union(head.bbox, p.bbox))]
            out.append([])
            continue
        open_heading = None
        if m.role in (legal.CLAUSE, legal.POINT):
            out.append([Draft(SegmentKind.LIST_ITEM, p.text, m.level, p.page_no, p.bbox)])
        elif LIST_MARKER.match(p.text):
            out.append([Draft(SegmentKind.LIST_ITEM, p.text, 0, p.page_no, p.bbox)])
        else:
            out.append([Draft(SegmentKind.PARAGRAPH, p.text, 0, p.page_no, p.bbox)])
    return out


def classify(paras: list[Para], profile: Profile, body_size: float, settings: PdfSettings) -> list[list[Draft]]:
    """One list of drafts per paragraph, in the same order."""
    if profile is Profile.FORMULARY:
        return classify_formulary(paras, body_size, settings)
    if profile is Profile.LEGAL:
        return classify_legal(paras, body_size, settings)
    return classify_generic(paras, body_size, settings)
