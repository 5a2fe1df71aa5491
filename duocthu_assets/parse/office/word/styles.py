"""Paragraph styles: which make headings (and at what level) and which make
lists, through the ``basedOn`` chain."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from .package import W_VAL, int_or_none, w

_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_HEADING_ID = re.compile(r"^Heading([1-9])$")
BODY_TEXT_OUTLINE = 9


@dataclass(frozen=True)
class Style:
    name: str
    based_on: str | None
    outline: int | None
    numbered: bool


class Styles:
    """Paragraph styles: which make headings (and at what level) and lists."""

    def __init__(self, root: etree._Element | None):
        self.styles: dict[str, Style] = {}
        self.default: str | None = None
        self._levels: dict[str | None, int | None] = {}
        self.hidden: frozenset[str] = frozenset()
        self.struck: frozenset[str] = frozenset()
        self.scripts: dict[str, str] = {}  # character style id → the script mark it sets its text in
        if root is None:
            return
        runs = style_runs(root)  # each style's run properties and base, read once for the three below
        self.hidden = styles_setting(runs, HIDDEN)
        self.struck = styles_setting(runs, STRUCK)
        self.scripts = styles_script(runs)
        for s in root.iter(w("style")):
            if s.get(w("type"), "paragraph") != "paragraph":
                continue
            sid = s.get(w("styleId"), "")
            name_el, based_el = s.find(w("name")), s.find(w("basedOn"))
            outline_el = s.find(f"{w('pPr')}/{w('outlineLvl')}")
            num_el = s.find(f"{w('pPr')}/{w('numPr')}/{w('numId')}")
            self.styles[sid] = Style(
                name=name_el.get(W_VAL, "") if name_el is not None else sid,
                based_on=based_el.get(W_VAL) if based_el is not None else None,
                outline=int_or_none(outline_el.get(W_VAL)) if outline_el is not None else None,
                numbered=num_el is not None and num_el.get(W_VAL) not in ("0", None),
            )
            if s.get(w("default")) in ("1", "true", "on"):
                self.default = sid

    def chain(self, style_id: str | None) -> list[tuple[str, Style]]:
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


def is_on(el: etree._Element | None) -> bool:
    """A WordprocessingML toggle property (``<w:vanish/>``, ``w:val="0"`` off)."""
    return el is not None and el.get(W_VAL, "true").lower() not in ("0", "false", "off")


HIDDEN = ("vanish",)  # the Hidden font effect: neither shown nor printed
STRUCK = ("strike", "dstrike")  # Strikethrough and Double strikethrough: shown, crossed out


SCRIPT_MARKS = {"superscript": "^", "subscript": "_"}  # w:vertAlign's values → the mark a script is written after


def style_runs(root: etree._Element) -> dict[str, tuple[etree._Element | None, str | None]]:
    """Each style's id → its run properties (``w:rPr``, or None) and the id
    of the style it is based on (or None)."""
    out: dict[str, tuple[etree._Element | None, str | None]] = {}
    for s in root.iter(w("style")):
        based_el = s.find(w("basedOn"))
        out[s.get(w("styleId"), "")] = (s.find(w("rPr")), based_el.get(W_VAL) if based_el is not None else None)
    return out


def _inherited(runs: dict[str, tuple[etree._Element | None, str | None]], read) -> dict[str, object]:
    """For each style id, what ``read`` finds in its run properties (None:
    not set there), or else in the style it is based on, and so on up the
    ``basedOn`` chain; ids where nothing sets it are left out."""
    own = {sid: read(rpr) if rpr is not None else None for sid, (rpr, _) in runs.items()}
    out: dict[str, object] = {}
    for sid in own:
        cur, seen = sid, set()
        while cur in own and cur not in seen:
            seen.add(cur)
            if own[cur] is not None:
                out[sid] = own[cur]
                break
            cur = runs[cur][1]
    return out


def toggle(rpr: etree._Element, props: tuple[str, ...]) -> bool | None:
    """Whether run properties switch on one of the toggles ``props``; None
    when they set none of them."""
    set_here = [el for el in (rpr.find(w(p)) for p in props) if el is not None]
    return any(is_on(el) for el in set_here) if set_here else None


def script_mark(rpr: etree._Element) -> str | None:
    """``"^"`` / ``"_"`` when run properties set a superscript / subscript,
    ``""`` when they set the baseline, None when they set neither."""
    align = rpr.find(w("vertAlign"))
    return None if align is None else SCRIPT_MARKS.get(align.get(W_VAL, ""), "")


def styles_setting(runs: dict[str, tuple[etree._Element | None, str | None]], props: tuple[str, ...]) -> frozenset[str]:
    """The ids of the styles (paragraph or character; ``runs`` from
    :func:`style_runs`) whose run properties, their own or through
    ``basedOn``, switch on one of the toggles ``props``
    (:data:`HIDDEN`: text Word neither shows nor prints; :data:`STRUCK`: text
    shown crossed out). A style's own setting, on or off, decides before the
    style it is based on."""
    return frozenset(sid for sid, on in _inherited(runs, lambda rpr: toggle(rpr, props)).items() if on)


def styles_script(runs: dict[str, tuple[etree._Element | None, str | None]]) -> dict[str, str]:
    """Style id → ``"^"`` or ``"_"`` for the styles that set their text as a
    superscript or subscript (``w:vertAlign``, their own or inherited): a
    note's mark typed by hand in the Footnote Reference style."""
    return {sid: mark for sid, mark in _inherited(runs, script_mark).items() if mark}


def _builtin_heading(style_id: str, name: str) -> int | None:
    match = _HEADING_NAME.match(name.strip()) or _HEADING_ID.match(style_id)
    if match:
        return int(match.group(1))
    if name.strip().lower() == "title" or style_id == "Title":
        return 1
    return None
