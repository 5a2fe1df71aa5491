"""No number read by OCR is silently wrong (issue 39): a blocking rule on
every chunk whose text OCR read.

``ocr_uncertain_numbers_withheld`` fails a document when one of its OCR'd
chunks

- carries uncertain spans that do not fit its text (out of its bounds,
  overlapping, out of order), so the answer layer could not withhold them;
- lost a word its segment read below the confidence floor: the word stands
  in the chunk's text (found by the segment text around it) outside every
  uncertain span of the chunk;
- is made of segments read by OCR yet says ``text_source`` ``layer``; or
- would still show a digit inside an uncertain span once the answer layer
  withheld its numbers (:func:`duocthu_assets.retrieval.answer.withhold_uncertain`).
"""

from __future__ import annotations

from collections.abc import Callable

from duocthu_assets.parse.pdf.furniture.page_numbers import parse_page_number
from duocthu_assets.retrieval.answer import withhold_uncertain

from .rules import DocumentRows, Row, Rule, RuleResult

ANCHOR = 12  # characters of the segment's text either side of an uncertain word that find it in a chunk


def _spans(row: dict) -> list[tuple[int, int]]:
    return [(int(s["offset"]), int(s["length"])) for s in row.get("uncertain_spans") or ()]


def _well_formed(spans: list[tuple[int, int]], size: int) -> bool:
    end = 0
    for offset, length in spans:
        if offset < end or length <= 0 or offset + length > size:
            return False
        end = offset + length
    return True


def _covered(at: int, length: int, spans: list[tuple[int, int]]) -> bool:
    return any(o <= at and at + length <= o + n for o, n in spans)


def _lost_words(chunk: dict, segments: dict[str, dict]) -> list[str]:
    """The uncertain words of the chunk's segments that stand in its text
    outside its uncertain spans. Each segment is looked for after the one
    before it: whole (its spans then land exactly), else — a segment the
    chunk holds only part of — each uncertain word by the segment text
    around it."""
    text, spans = chunk["text"] or "", _spans(chunk)
    lost = []
    cursor = 0
    for sid in chunk.get("source_elements") or ():
        seg = segments.get(sid)
        if seg is None:
            continue
        own = seg["text"] or ""
        at = text.find(own, cursor) if own else -1
        if at >= 0:
            lost += [own[o : o + n] for o, n in _spans(seg) if not _covered(at + o, n, spans)]
            cursor = at + len(own)
            continue
        for offset, length in _spans(seg):
            start = max(offset - ANCHOR, 0)
            anchor = own[start : offset + length + ANCHOR]
            found = text.find(anchor, cursor)
            if found >= 0 and not _covered(found + offset - start, length, spans):
                lost.append(own[offset : offset + length])
    return lost


def chunk_problem(chunk: dict, segments: dict[str, dict]) -> str:
    """What is wrong with one chunk under the rule ("" when nothing)."""
    text, spans = chunk["text"] or "", _spans(chunk)
    from_ocr = any((segments.get(s) or {}).get("text_source") == "ocr" for s in chunk.get("source_elements") or ())
    if from_ocr and chunk.get("text_source") != "ocr":
        return "its segments were read by OCR but it says text_source layer"
    if chunk.get("text_source") != "ocr":
        return ""
    if not _well_formed(spans, len(text)):
        return f"its uncertain spans {spans[:5]} do not fit its text ({len(text)} characters)"
    lost = _lost_words(chunk, segments)
    if lost:
        return f"words read below the confidence floor stand outside its uncertain spans: {lost[:3]}"
    for offset, length in spans:
        shown, _ = withhold_uncertain(text[offset : offset + length], [(0, length)])
        if any(c.isdigit() for c in shown):
            return f"a digit inside the uncertain span {text[offset : offset + length]!r} would be shown"
    return ""


def ocr_uncertain_numbers_withheld(rows: DocumentRows) -> RuleResult:
    segments = {s["segment_id"]: s for s in rows.segments}
    problems = {c["chunk_id"]: chunk_problem(c, segments) for c in rows.chunks}
    bad = {k: v for k, v in problems.items() if v}
    ocr = sum(1 for c in rows.chunks if c.get("text_source") == "ocr")
    if not bad:
        return RuleResult(True, message=f"{ocr} chunk(s) read by OCR, every uncertain word marked and its numbers withheld")
    first = next(iter(bad))
    pages = {r["page_no"] for c in rows.chunks if c["chunk_id"] in bad for r in c.get("regions") or () if r.get("page_no")}
    result = RuleResult.from_offenders(bad, "OCR'd chunk(s) could show a number OCR was unsure of", pages)
    return RuleResult(False, result.count, result.offending_ids, result.pages,
                      f"{result.message} — {first}: {bad[first]}; rebuild the document (its chunks and segments disagree)")


def number_in_doubt(segment: Row) -> bool:
    """Whether OCR read every digit of the segment without certainty (inside
    its uncertain spans): a page number read so is no evidence either way
    (adr0006_10 trusts only page numbers read with certainty)."""
    text = segment.get("text") or ""
    if segment.get("text_source") != "ocr" or not any(c.isdigit() for c in text):
        return False
    spans = [(int(sp["offset"]), int(sp["length"])) for sp in segment.get("uncertain_spans") or ()]
    return all(any(o <= k < o + n for o, n in spans) for k, c in enumerate(text) if c.isdigit())


def doubted_page_numbers(rows: DocumentRows, at_head_or_foot: Callable[[Row, list], bool]) -> set[int]:
    """The pages read by OCR whose printed page number was read in doubt: a
    segment that is nothing but a page number, at the head or the foot of
    the page (``at_head_or_foot``), every digit of it uncertain."""
    ocr = set((rows.parsed or {}).get("pages_ocr") or ())
    return {
        s["page_no"] for s in rows.segments
        if s.get("page_no") in ocr and s.get("kind") != "heading" and number_in_doubt(s)
        and parse_page_number(s.get("text") or "") and at_head_or_foot(s, rows.segments)
    }


OCR_RULES = [
    Rule("ocr_uncertain_numbers_withheld", "chunks",
         "Every chunk read by OCR marks the words OCR was unsure of, and no number inside one can be shown as read.",
         ocr_uncertain_numbers_withheld, ("chunks", "segments")),
]
