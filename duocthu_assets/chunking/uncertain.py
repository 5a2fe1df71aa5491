"""A chunk's OCR provenance (issue 39): whether any of its text was read by
OCR, and where in its ``text`` the words OCR read below the confidence floor
stand — its segments' ``uncertain_spans`` carried through the packing (each
slice found in the chunk's text), and in the heading-context line every
occurrence of an uncertain word of any heading of the document (a trail
repeats outer headings, which are other segments)."""

from __future__ import annotations

from ..model import Segment, SegmentKind, Span, TextSource, merge_spans
from .packing import PackedChunk


def heading_doubts(segments: list[Segment]) -> tuple[str, ...]:
    """The uncertain words of the document's headings, longest first."""
    words = {
        s.text[sp.offset : sp.offset + sp.length]
        for s in segments
        if s.kind is SegmentKind.HEADING
        for sp in s.uncertain_spans
    }
    return tuple(sorted((w for w in words if w.strip()), key=lambda w: (-len(w), w)))


def chunk_provenance(packed: PackedChunk, doubts: tuple[str, ...]) -> tuple[TextSource, tuple[Span, ...]]:
    """Where the chunk's text was read, and its uncertain spans."""
    sources = packed.source_segments
    if not any(s.text_source == TextSource.OCR for s in sources):
        return TextSource.LAYER, ()
    text = packed.text
    spans: list[Span] = []
    context = packed.context
    for word in doubts if context else ():
        at = context.find(word)
        while at >= 0:
            spans.append(Span(at, len(word)))
            at = context.find(word, at + 1)
    cursor = len(context)
    for piece in packed.slices:
        at = text.find(piece.text, cursor)
        if at < 0:  # never expected: the body is the slices joined; the whole chunk is then uncertain
            return TextSource.OCR, (Span(0, len(text)),) if any(s.uncertain_spans for s in sources) else ()
        for sp in piece.segment.uncertain_spans:
            start, end = max(sp.offset, piece.start), min(sp.offset + sp.length, piece.end)
            if start < end:
                spans.append(Span(at + start - piece.start, end - start))
        cursor = at + len(piece.text)
    return TextSource.OCR, merge_spans(spans)

