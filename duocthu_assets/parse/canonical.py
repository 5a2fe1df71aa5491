"""Assemble a document's canonical text from its segments.

The canonical text is Markdown-shaped: a heading of level N is written as
``#``×N, a space and its text; other segments as their text; segments are
separated by a blank line. Each segment's ``offset``/``length`` point at its
own text inside it (the ``#`` prefix excluded), so ``canonical[offset:offset +
length] == segment.text`` holds for every segment, and chunks' spans can be
checked against the stored text.
"""

from __future__ import annotations

import dataclasses

from ..model import Segment, SegmentKind

SEPARATOR = "\n\n"


def assemble(segments: list[Segment]) -> tuple[str, list[Segment]]:
    """Given segments in reading order, return the canonical text and the
    segments with their spans filled in."""
    parts: list[str] = []
    placed: list[Segment] = []
    cursor = 0
    for segment in segments:
        if parts:
            parts.append(SEPARATOR)
            cursor += len(SEPARATOR)
        prefix = "#" * max(segment.level, 1) + " " if segment.kind is SegmentKind.HEADING else ""
        parts.append(prefix + segment.text)
        start = cursor + len(prefix)
        placed.append(dataclasses.replace(segment, offset=start, length=len(segment.text)))
        cursor = start + len(segment.text)
    return "".join(parts), placed
