"""The answer layer's obligations (ADR 0006), the same on every path (the
``duocthu search`` CLI, ``duocthu serve`` and the Python API):

1. a hit with quarantined content states that a table/formula/picture exists at its
   printed page, gives the crop, and marks itself incomplete;
2. a ``block_descriptor`` hit is answered with the crop and page only: no
   text, and never a header row (hits do not even carry one);
3. no number from a chunk carrying a quarantined attachment is shown: every
   numeral in its text is withheld (``[…]``) with a pointer to the crop.

And issue 39's: a hit read from a scan by OCR says so and offers the crop
of its region of the scan; a number inside a word OCR read below the
confidence floor (the chunk's ``uncertain_spans``) is withheld the same way.

And one of this project's: a hit whose text holds a passage struck through
in the source (``~~0,5 g~~``, :mod:`duocthu_assets.parse.inline_marks`)
says that such a passage is shown deleted, not in force.

:func:`render_answer` applies them to one hit; :func:`answer_payload` and
:func:`format_hits` are the output (schema ``duocthu.search/1``).

Nothing here imports Dagster.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Literal, Sequence

from ..model import ChunkKind
from .query import Hit, HitAttachment
from .structure import NOT_INDEXED

ANSWER_SCHEMA = "duocthu.search/2"  # /2: hits name their document and unit; a citation object (issue 40)
WITHHELD = "[…]"

_DIGITS = "0-9\u00b2\u00b3\u00b9\u2070\u2074-\u2079\u00bc-\u00be\u2150-\u215e"
_NUMERAL = re.compile(rf"(?:\d|[{_DIGITS}])+(?:[.,:](?:\d|[{_DIGITS}])+)*")


def withhold_numbers(text: str) -> tuple[str, int]:
    """``text`` with every numeral replaced by ``[…]``, and how many.

    Deliberately wider than a dose pattern (``500 mg``, ``0,5 mg/kg``,
    ``30 ml/phút``, ``1,5 triệu đơn vị``, ``x 2 lần/ngày``, ``10⁶ UI``): in a
    chunk whose section lost a table, a number without a unit (an interval, an
    age, a Clcr threshold, a tablet count) can be half of a dose, and a unit
    list is never complete. Digits inside an identifier (ATC ``J01CR01``,
    ``B12``, ``CYP3A4``) are kept: they are preceded by a letter. A multiplier
    written ``x2`` is withheld. Numbers spelled out in words are not detected.
    """
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        start = match.start()
        before = text[start - 1] if start else ""
        if before.isalpha():
            multiplier = before in "xX×" and (start < 2 or not text[start - 2].isalpha())
            if not multiplier:
                return match.group(0)
        count += 1
        return WITHHELD

    return _NUMERAL.sub(replace, text), count


def withhold_uncertain(text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, int]:
    """``text`` with every numeral inside an uncertain span (a word OCR read
    below the confidence floor, ``(offset, length)``) replaced by ``[…]``,
    and how many: wider than :func:`withhold_numbers` — a digit OCR was unsure
    of is withheld even after a letter (``B12`` may be ``B1Z``)."""
    count = 0
    for offset, length in sorted(spans, reverse=True):
        piece, n = _NUMERAL.subn(WITHHELD, text[offset : offset + length])
        if n:
            text = text[:offset] + piece + text[offset + length :]
            count += n
    return text, count


@dataclass(frozen=True)
class CropRef:
    block_id: str
    kind: str
    shape: str
    printed_page: int | None
    physical_page: int | None
    path: str | None
    exists: bool


@dataclass(frozen=True)
class Answer:
    """What may be shown for one hit.

    ``mode``: ``text`` (an ordinary chunk), ``text_incomplete`` (a chunk whose
    section lost a table/formula: numbers withheld, crops given) or
    ``crop_only`` (a block descriptor: no text at all).
    """

    rank: int
    score: float
    doc_id: str
    chunk_id: str
    chunk_kind: str
    entry_title: str
    section_title: str
    headings: tuple[str, ...]
    printed_pages: tuple[int, ...]
    physical_pages: tuple[int, ...]
    mode: Literal["text", "text_incomplete", "crop_only"]
    complete: bool
    text: str | None
    withheld_numbers: int
    crops: tuple[CropRef, ...]
    notices: tuple[str, ...]
    document: str = ""  # the document's title and number as printed, else its file name
    document_number: str = ""
    unit: str = ""  # "Điều 319", a monograph's section
    cite: str = ""  # "Bộ luật Dân sự 2015, Điều 319"
    text_source: str = "layer"  # "ocr": read from a scanned page (issue 39); the scan is the authority

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["headings"] = list(self.headings)
        data["printed_pages"] = list(self.printed_pages)
        data["physical_pages"] = list(self.physical_pages)
        data["crops"] = [asdict(c) for c in self.crops]
        data["notices"] = list(self.notices)
        return data


_KIND_LABEL = {"table": "a table", "formula": "a formula", "picture": "a picture"}


def _page_label(printed: int | None, physical: int | None, label: str = "") -> str:
    if printed is not None:
        return f"printed page {printed} (trang in {printed})"
    if label:
        return f"printed page {label} (trang in {label})"
    if physical is not None:
        return f"page {physical} of the file (no printed number)"
    return "an unknown page"


def _crop_notice(att: HitAttachment) -> str:
    what = _KIND_LABEL.get(att.kind, f"a {att.kind}")
    where = _page_label(att.printed_page, att.physical_page, att.printed_label)
    if att.crop_file and att.crop_exists:
        crop = f"crop: {att.crop_file}"
    elif att.crop_file:
        crop = f"crop expected at {att.crop_file} but the file is missing; read the source at that page"
    else:
        crop = "no crop was rendered; read the source at that page"
    return f"{what[0].upper()}{what[1:]} exists at {where} and is not in this text ({att.block_id}); {crop}"


_STRUCK_PASSAGE = re.compile(r"~~\S(?:.*?\S)?~~", re.S)
STRUCK_NOTICE = (
    "Text between ~~ and ~~ is struck through in the source (shown deleted): it is not in force and must not be "
    "stated as current; the text after it usually replaces it."
)


def _struck_notices(text: str | None) -> list[str]:
    return [STRUCK_NOTICE] if text and _STRUCK_PASSAGE.search(text) else []


def render_answer(hit: Hit) -> Answer:
    """Apply ADR 0006's obligations to one hit (see the module docstring)."""
    crops = tuple(
        CropRef(a.block_id, a.kind, a.shape, a.printed_page, a.physical_page, a.crop_file, a.crop_exists) for a in hit.attachments
    )
    quarantined = [a for a in hit.attachments if a.quarantined]
    common = dict(
        rank=hit.rank,
        score=hit.score,
        doc_id=hit.doc_id,
        chunk_id=hit.chunk_id,
        chunk_kind=hit.chunk_kind,
        entry_title=hit.entry_title,
        section_title=hit.section_title,
        headings=hit.headings,
        printed_pages=hit.printed_pages,
        physical_pages=hit.physical_pages,
        crops=crops,
        document=hit.document,
        document_number=hit.document_number,
        unit=hit.unit,
        cite=hit.cite,
        text_source=hit.text_source,
    )
    if hit.chunk_kind == ChunkKind.BLOCK_DESCRIPTOR:
        notices = [_crop_notice(a) for a in hit.attachments] or [
            "This hit stands for a lifted table or formula but carries no reference to it; read the source document"
            + (f" at {_page_label(hit.printed_pages[0] if hit.printed_pages else None, hit.physical_pages[0] if hit.physical_pages else None)}" if hit.printed_pages or hit.physical_pages else "")
        ]
        notices.append("The answer is the crop: its content is not restated as text.")
        return Answer(**common, mode="crop_only", complete=False, text=None, withheld_numbers=0, notices=tuple(notices))
    text, doubted = withhold_uncertain(hit.text, hit.uncertain_spans)  # offsets into the stored text: first
    if _doubted_heading(hit):  # the heading line is shown as metadata too: its numbers go as in the text
        common.update(entry_title=_NUMERAL.sub(WITHHELD, hit.entry_title), section_title=_NUMERAL.sub(WITHHELD, hit.section_title),
                      headings=tuple(_NUMERAL.sub(WITHHELD, h) for h in hit.headings))
    scanned = _scan_notices(hit, doubted)
    common["crops"] = crops + tuple(CropRef(a.block_id, a.kind, a.shape, a.printed_page, a.physical_page, a.crop_file, a.crop_exists) for a in hit.scans)
    if hit.quarantined:
        text, withheld = withhold_numbers(text)
        withheld += doubted
        notices = [_crop_notice(a) for a in quarantined]
        if not quarantined:
            notices.append(
                "This chunk is marked as missing a lifted table or formula but names none; read the source document"
                + (f" near {_page_label(hit.printed_pages[0] if hit.printed_pages else None, hit.physical_pages[0] if hit.physical_pages else None)}" if hit.printed_pages or hit.physical_pages else "")
            )
        notices.append("Incomplete: part of this section was lifted out as a table, formula or picture (above).")
        if withheld:
            notices.append(
                f"{withheld} number(s) withheld ({WITHHELD}): no dose may be stated from a chunk whose table, formula or "
                "picture was lifted out; read the values from the crop or the printed page."
            )
        notices += scanned + _struck_notices(text)
        return Answer(**common, mode="text_incomplete", complete=False, text=text, withheld_numbers=withheld, notices=tuple(notices))
    notices = [f"Also attached: {_crop_notice(a)}" for a in hit.attachments] + scanned + _struck_notices(text)
    if doubted:
        return Answer(**common, mode="text_incomplete", complete=False, text=text, withheld_numbers=doubted, notices=tuple(notices))
    return Answer(**common, mode="text", complete=True, text=text, withheld_numbers=0, notices=tuple(notices))


def _doubted_heading(hit: Hit) -> bool:
    """An OCR'd hit whose heading-context line (its text's first line, when
    it holds the heading trail) has an uncertain span in it."""
    if hit.text_source != "ocr" or not hit.headings:
        return False
    first = hit.text.split("\n", 1)[0]
    return hit.headings[-1] in first and any(offset < len(first) for offset, _ in hit.uncertain_spans)


def _scan_notices(hit: Hit, doubted: int) -> list[str]:
    """An OCR'd hit says it was read from a scan, offers the crop of each of
    its regions, and says why numbers were withheld."""
    if hit.text_source != "ocr":
        return []
    where = _page_label(hit.printed_pages[0] if hit.printed_pages else None, hit.physical_pages[0] if hit.physical_pages else None)
    crops = "; ".join(f"crop: {a.crop_file}" for a in hit.scans) or "no crop was rendered; read the source at that page"
    out = [f"Read from a scanned page by OCR ({where}): the scan is the authority, not this text — {crops}."]
    if doubted:
        out.append(
            f"{doubted} number(s) withheld ({WITHHELD}): OCR read them from the scan below its confidence floor; read "
            "them from the crop of the scan."
        )
    return out


def _where(answer: Answer) -> str:
    if answer.printed_pages:
        pages = answer.printed_pages
        label = f"trang in {pages[0]}" if len(pages) == 1 else f"trang in {pages[0]}–{pages[-1]}"
    elif answer.physical_pages:
        pages = answer.physical_pages
        label = f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}–{pages[-1]}"
    else:
        label = ""
    named = (answer.cite,) if answer.cite else (answer.entry_title, answer.section_title)
    return " — ".join(part for part in (*named, label) if part) or answer.chunk_id


def answer_payload(answers: Sequence[Answer], *, query: str | None = None, notes: Sequence[str] = (), citation: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON object of ``duocthu search --json`` and ``GET /search``."""
    return {"schema": ANSWER_SCHEMA, "query": query, "hits": [a.as_dict() for a in answers], "notes": list(notes), "citation": citation}


def format_hits(answers: Sequence[Answer], as_json: bool = False, *, query: str | None = None, notes: Sequence[str] = (), citation: dict[str, Any] | None = None) -> str:
    """The CLI's output.

    JSON (schema ``duocthu.search/2``, keys sorted; a key is only ever added
    under a new schema name; /2 added ``citation`` and each hit's
    ``document``, ``document_number``, ``unit``, ``cite``)::

        {"schema": "duocthu.search/2", "query": str, "notes": [str],
         "citation": null | {"status": "found" | "missing", "unit": str,
                             "documents": [doc_id], "message": str},
         "hits": [{"rank": int, "score": float, "doc_id", "chunk_id", "chunk_kind",
                   "entry_title", "section_title", "headings": [str],
                   "printed_pages": [int], "physical_pages": [int],
                   "mode": "text" | "text_incomplete" | "crop_only",
                   "complete": bool, "text": str | null, "withheld_numbers": int,
                   "crops": [{"block_id", "kind", "shape", "printed_page",
                              "physical_page", "path": str | null, "exists": bool}],
                   "notices": [str], "document": str, "document_number": str,
                   "unit": str, "cite": str}]}

    Text: ``rank. score  cite — trang in N  [incomplete]`` (``entry —
    section`` when the hit names no document or unit), the
    doc and chunk id, then the (possibly withheld) text or the crop line, then
    the notices.
    """
    if as_json:
        return json.dumps(answer_payload(answers, query=query, notes=notes, citation=citation), ensure_ascii=False, indent=2, sort_keys=True)
    if not answers and citation and citation.get("status") == "missing":
        said = "not in the index" if citation["message"].startswith(NOT_INDEXED) else "no such unit"
        lines = [f"{citation['unit']}: {said}. {citation['message']}"]
    elif not answers:
        lines = ["no hits"]
    else:
        lines = []
        for a in answers:
            flag = "" if a.complete else "  [incomplete]"
            lines.append(f"{a.rank}. {a.score:.3f}  {_where(a)}{flag}")
            lines.append(f"   {a.doc_id} · {a.chunk_id}")
            if a.mode == "crop_only":
                for c in a.crops:
                    lines.append(f"   ▣ {c.kind} · {_page_label(c.printed_page, c.physical_page)} · {c.path or 'no crop rendered'}")
            elif a.text:
                lines.extend("   " + line for line in a.text.splitlines() if line.strip())
            for notice in a.notices:
                lines.append(f"   ⚠ {notice}")
            lines.append("")
    lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines).rstrip() + "\n"
