"""Where a segment's words read by OCR below the confidence floor stand in
its text: spans ``(offset, length)`` into the segment's final text (after
normalisation and whatever the headings step made of its paragraph), so
that a number inside one is never shown as read.

Words are found in order, each after the last one found. An uncertain word
that cannot be found in any of its paragraph's segments (a word the text
was rewritten around) makes those segments uncertain as a whole: a span is
never lost, at worst it is wider than the word.
"""

from __future__ import annotations

from ...model import Span, TextSource, merge_spans
from ...textnorm import normalize_block
from .records import Word


def segment_provenance(texts: list[str], words: list[Word], normalization: str) -> list[tuple[TextSource, tuple[Span, ...]]]:
    """For each of one paragraph's segment texts (in order), where it was
    read (``ocr`` when any of the paragraph's words was read by OCR) and the
    spans of its uncertain words (:attr:`.records.Word.uncertain`)."""
    if not any(w.ocr for w in words):
        return [(TextSource.LAYER, ()) for _ in texts]
    found: list[list[Span]] = [[] for _ in texts]
    lost = False
    cursors = [0] * len(texts)
    current = 0  # the text the last word was found in: words run through the texts in order
    for w in words:
        needle = normalize_block(w.text, normalization).strip()
        uncertain = w.ocr and w.uncertain
        if not needle:
            continue
        hit = False
        for k in range(current, len(texts)):
            at = texts[k].find(needle, cursors[k])
            if at < 0:
                continue
            current, cursors[k] = k, at + len(needle)
            if uncertain:
                found[k].append(Span(at, len(needle)))
            hit = True
            break
        if uncertain and not hit:
            lost = True
    if lost:
        return [(TextSource.OCR, (Span(0, len(text)),) if text else ()) for text in texts]
    return [(TextSource.OCR, merge_spans(with_numbers_beside(text, spans))) for text, spans in zip(texts, found)]


def with_numbers_beside(text: str, spans: list[Span]) -> list[Span]:
    """Each span grown over the word right before and right after it (one
    blank between at most) when that word holds a digit: OCR that misreads
    ``11`` as ``] 1`` is unsure of the ``]`` only, yet the ``1`` beside it
    is half a number."""
    out: list[Span] = []
    for sp in spans:
        start, end = sp.offset, sp.offset + sp.length
        before = text[:start]
        before = before.removesuffix(" ")
        word_start = before.rfind(" ") + 1
        if any(c.isdigit() for c in before[word_start:]):
            start = word_start
        after = end + (1 if text[end : end + 1] == " " else 0)
        word_end = text.find(" ", after)
        word_end = len(text) if word_end < 0 else word_end
        if any(c.isdigit() for c in text[after:word_end]):
            end = word_end
        out.append(Span(start, end - start))
    return out
