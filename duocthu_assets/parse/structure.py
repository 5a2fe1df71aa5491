"""Entries, sections and heading trails from a flat list of segments.

Parsers decide *which* segments are headings and their levels (typography and
numbering for PDF, Heading N styles for DOCX, the sheet name for spreadsheets);
this module turns that into every segment's heading trail, entry and section,
the same way for every format:

- the entry is the enclosing level-1 heading (a drug monograph, a chapter, a
  sheet); before any, the entry is the document itself;
- the section is the innermost enclosing heading; every heading opens a new
  section instance (``section_index``), so a chunk that never crosses a
  section boundary never crosses a heading.
"""

from __future__ import annotations

import dataclasses

from ..model import LiftedBlock, Segment, SegmentKind
from ..textnorm import ascii_slug
from .profiles.legal import numbering_key

DOCUMENT_ENTRY_ID = "document"
BODY_SECTION_KEY = "body"


def heading_key(title: str, fallback: str) -> str:
    """A readable, stable key for a heading in any script: the slug of its
    legal numbering (``dieu_17``, ``madde_3``, ``tiao_17``), else the ASCII slug
    of its text, or of its transliteration when it has a letter outside the
    Latin script (Persian, Arabic, CJK: ``anyascii``), else ``fallback`` (a
    heading with no letter or digit)."""
    key = numbering_key(title)
    if key:
        return key
    if any(c.isalpha() and not ascii_slug(c) for c in title.replace("đ", "d").replace("Đ", "D")):
        key = ascii_slug(transliterate(title))  # a letter outside the Latin script: the whole title transliterated
    return key or ascii_slug(title) or fallback


def transliterate(text: str) -> str:
    """``text`` in ASCII letters (anyascii's tables: Persian ``قرارداد`` →
    ``qrardad``, Chinese ``总则`` → ``ZongZe``), with word breaks kept."""
    from anyascii import anyascii

    return " ".join(anyascii(word) for word in text.split())


def assign_sections(segments: list[Segment]) -> list[Segment]:
    """Given segments in reading order (headings carrying ``level`` >= 1), return
    them with ``headings``, ``entry_*``, ``section_*`` and ``section_index`` set."""
    trail: list[tuple[int, str]] = []
    entry_id, entry_title = DOCUMENT_ENTRY_ID, ""
    section_key, section_title = BODY_SECTION_KEY, ""
    section_index = 0
    out: list[Segment] = []
    for segment in segments:
        if segment.kind is SegmentKind.HEADING:
            level = max(segment.level, 1)
            trail = [(lvl, text) for lvl, text in trail if lvl < level]
            trail.append((level, segment.text))
            if level == 1:
                entry_title = segment.text
                entry_id = heading_key(segment.text, f"entry_{segment.segment_id}")
            section_title = segment.text
            section_key = heading_key(segment.text, f"section_{segment.segment_id}")
            section_index += 1
            segment = dataclasses.replace(segment, level=level)
        out.append(
            dataclasses.replace(
                segment,
                headings=tuple(text for _, text in trail),
                entry_id=entry_id,
                entry_title=entry_title,
                section_key=section_key,
                section_title=section_title,
                section_index=section_index,
            )
        )
    return out


def place_blocks(blocks: list[LiftedBlock], segments: list[Segment]) -> list[LiftedBlock]:
    """Give each block the entry and section of its anchor segment (the segment
    it follows in reading order); a block with no anchor opens the document."""
    by_id = {s.segment_id: s for s in segments}
    placed = []
    for block in blocks:
        anchor = by_id.get(block.anchor_segment_id)
        if anchor is None:
            # before any segment: the same document-level section assign_sections
            # gives text before the first heading (index 0, no titles)
            placed.append(
                dataclasses.replace(
                    block, entry_id=DOCUMENT_ENTRY_ID, entry_title="", section_key=BODY_SECTION_KEY,
                    section_title="", section_index=0, headings=(),
                )
            )
            continue
        placed.append(
            dataclasses.replace(
                block,
                entry_id=anchor.entry_id,
                entry_title=anchor.entry_title,
                section_key=anchor.section_key,
                section_title=anchor.section_title,
                section_index=anchor.section_index,
                headings=anchor.headings,
            )
        )
    return placed
