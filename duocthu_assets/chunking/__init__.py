"""Segments and lifted blocks in, ADR 0006 chunks out. No Dagster here.

:func:`build_chunks` is a chain of small steps (STYLE.md, pdfplumber's
shape): ``group_sections`` → ``pack_section`` (per section instance) →
``place_blocks_on_chunks`` → ``order_with_descriptors`` → ``link_chunks``.

- ``chunk_id`` is ``{doc_id}:{section_key}:{n}``, ``n`` the document-wide
  ``chunk_index`` (section keys repeat across monographs), or
  ``{doc_id}:{section_key}:block:{block_id}`` for a block's descriptor.
- Each lifted block is attached (a :class:`ChunkAttachment`, ``header_row``
  always empty) to the chunk holding the end of its anchor segment, else the
  first chunk of its section, and always to its own descriptor chunk.
- Descriptors sit in the chain right after the chunk they are attached to;
  a block whose section has no other chunk sits where its section would be.
- Regions are the distinct ``(page_no, printed_page, bbox)`` of the source
  segments that have a page and a bbox (PDF); descriptors carry the block's.
- Deterministic: the same input gives the same chunks, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from itertools import groupby

from ..model import (
    Chunk,
    ChunkAttachment,
    ChunkKind,
    LiftedBlock,
    Region,
    Segment,
    Span,
    TextSource,
)
from ..settings import Settings
from .descriptors import describe_block
from .packing import PackedChunk, pack_section
from .tokenizer import count_tokens
from .uncertain import chunk_provenance, heading_doubts

__all__ = [
    "build_chunks",
    "prose_chunk_id",
    "descriptor_chunk_id",
    "attachment_for",
    "content_hash",
    "DEFAULT_SECTION_KEY",
]

DEFAULT_SECTION_KEY = "body"
BLOCK_INFIX = ":block:"


def prose_chunk_id(doc_id: str, section_key: str, chunk_index: int) -> str:
    return f"{doc_id}:{section_key or DEFAULT_SECTION_KEY}:{chunk_index}"


def descriptor_chunk_id(doc_id: str, section_key: str, block_id: str) -> str:
    return f"{doc_id}:{section_key or DEFAULT_SECTION_KEY}{BLOCK_INFIX}{block_id}"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def attachment_for(block: LiftedBlock, source_crop: str | None) -> ChunkAttachment:
    return ChunkAttachment(
        block_id=block.block_id,
        kind=str(block.kind),
        shape=str(block.shape),
        physical_page=block.page_no,
        printed_page=block.printed_page,
        printed_label=block.printed_label,
        bbox=block.bbox,
        quarantined=block.quarantined,
        header_row=(),  # embargoed until a verified header dataset exists (ADR 0006 §2)
        source_crop=source_crop,
    )


@dataclass(frozen=True)
class _Draft:
    """A chunk in its final order, before ids and links."""

    kind: ChunkKind
    text: str
    token_count: int
    meta: Segment | LiftedBlock  # where entry/section/headings come from
    spans: tuple
    regions: tuple[Region, ...]
    source_elements: tuple[str, ...]
    attachments: tuple[ChunkAttachment, ...]
    block_id: str = ""
    text_source: TextSource = TextSource.LAYER
    uncertain_spans: tuple[Span, ...] = ()


def group_sections(segments: list[Segment]) -> list[list[Segment]]:
    """Consecutive segments of the same section instance."""
    return [list(g) for _, g in groupby(segments, key=lambda s: s.section_index)]


def segment_regions(segments: tuple[Segment, ...]) -> tuple[Region, ...]:
    regions: dict[tuple, Region] = {}
    for s in segments:
        if s.page_no is not None and s.bbox is not None:
            region = Region(s.page_no, s.printed_page, tuple(s.bbox), s.printed_label)
            regions.setdefault((region.page_no, region.printed_page, region.bbox), region)
    return tuple(regions.values())


def place_blocks_on_chunks(
    packed: list[PackedChunk], sections: list[int], blocks: list[LiftedBlock]
) -> list[int | None]:
    """For each block, the index of the packed chunk it is attached to: the
    first chunk holding the end of its anchor segment (same section), else
    the first chunk of its section, else ``None`` (its descriptor alone)."""
    first_in_section: dict[int, int] = {}
    end_of: dict[tuple[str, int], int] = {}  # (segment_id, section) -> first chunk holding its end
    for k, (p, sec) in enumerate(zip(packed, sections)):
        first_in_section.setdefault(sec, k)
        for segment in p.source_segments:
            if p.contains_end_of(segment.segment_id):
                end_of.setdefault((segment.segment_id, sec), k)
    hosts: list[int | None] = []
    for block in blocks:
        host = end_of.get((block.anchor_segment_id, block.section_index)) if block.anchor_segment_id else None
        if host is None:
            host = first_in_section.get(block.section_index)
        hosts.append(host)
    return hosts


def _descriptor(block: LiftedBlock, attachment: ChunkAttachment, language: str) -> _Draft:
    text = describe_block(block.entry_title, block.section_title, block.kind, block.printed_page, block.page_no, language, block.headings, block.printed_label)
    return _Draft(
        kind=ChunkKind.BLOCK_DESCRIPTOR,
        text=text,
        token_count=count_tokens(text),
        meta=block,
        spans=(),
        regions=(Region(block.page_no, block.printed_page, tuple(block.bbox), block.printed_label),),
        source_elements=(block.block_id,),
        attachments=(attachment,),
        block_id=block.block_id,
    )


def order_with_descriptors(
    packed: list[PackedChunk],
    sections: list[int],
    blocks: list[LiftedBlock],
    hosts: list[int | None],
    crop_paths: dict[str, str],
    language: str,
    doubts: tuple[str, ...] = (),
) -> list[_Draft]:
    """Every chunk in chain order: each packed chunk followed by the
    descriptors of the blocks attached to it; an unhosted block's descriptor
    before the first chunk of a later section."""
    attachments = [attachment_for(b, crop_paths.get(b.block_id)) for b in blocks]
    hosted: dict[int, list[int]] = {}
    orphans: list[int] = []
    for j, host in enumerate(hosts):
        (hosted.setdefault(host, []) if host is not None else orphans).append(j)
    orphans.sort(key=lambda j: blocks[j].section_index)  # stable: block order within a section

    drafts: list[_Draft] = []
    pending = list(orphans)

    def emit_orphans(before_section: int | None) -> None:
        while pending and (before_section is None or blocks[pending[0]].section_index < before_section):
            j = pending.pop(0)
            drafts.append(_descriptor(blocks[j], attachments[j], language))

    for k, p in enumerate(packed):
        emit_orphans(sections[k])
        sources = p.source_segments
        own = tuple(attachments[j] for j in hosted.get(k, []))
        source, uncertain = chunk_provenance(p, doubts)
        drafts.append(
            _Draft(
                kind=p.kind,
                text=p.text,
                token_count=p.token_count,
                meta=sources[0],
                spans=p.spans,
                regions=segment_regions(sources),
                source_elements=tuple(s.segment_id for s in sources),
                attachments=own,
                text_source=source,
                uncertain_spans=uncertain,
            )
        )
        for j in hosted.get(k, []):
            drafts.append(_descriptor(blocks[j], attachments[j], language))
    emit_orphans(None)
    return drafts


def link_chunks(doc_id: str, drafts: list[_Draft]) -> list[Chunk]:
    """Ids, ordinals, prev/next links and content hashes, in chain order."""
    ids = [
        descriptor_chunk_id(doc_id, d.meta.section_key, d.block_id)
        if d.kind is ChunkKind.BLOCK_DESCRIPTOR
        else prose_chunk_id(doc_id, d.meta.section_key, n)
        for n, d in enumerate(drafts)
    ]
    chunks = []
    for n, (d, chunk_id) in enumerate(zip(drafts, ids)):
        m = d.meta
        chunks.append(
            Chunk(
                chunk_id=chunk_id,
                doc_id=doc_id,
                chunk_index=n,
                chunk_kind=d.kind,
                text=d.text,
                token_count=d.token_count,
                entry_id=m.entry_id,
                entry_title=m.entry_title,
                section_key=m.section_key or DEFAULT_SECTION_KEY,
                section_title=m.section_title,
                section_index=m.section_index,
                headings=tuple(m.headings),
                spans=d.spans,
                regions=d.regions,
                source_elements=d.source_elements,
                prev_chunk_id=ids[n - 1] if n > 0 else None,
                next_chunk_id=ids[n + 1] if n + 1 < len(ids) else None,
                content_hash=content_hash(d.text),
                attachments=d.attachments,
                has_quarantined_content=any(a.quarantined for a in d.attachments),
                text_source=d.text_source,
                uncertain_spans=d.uncertain_spans,
            )
        )
    return chunks


def _require_unique(kind: str, ids: list[str]) -> None:
    duplicates = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicates:
        raise ValueError(f"duplicate {kind} ids: {', '.join(duplicates[:20])}")


def build_chunks(
    doc_id: str,
    segments: list[Segment],
    blocks: list[LiftedBlock],
    crop_paths: dict[str, str],
    settings: Settings,
) -> list[Chunk]:
    """Given one document's segments (reading order, sections assigned, spans
    filled) and lifted blocks (placed), return its chunks in chain order."""
    _require_unique("segment", [s.segment_id for s in segments])
    _require_unique("block", [b.block_id for b in blocks])
    packed: list[PackedChunk] = []
    sections: list[int] = []
    for group in group_sections(segments):
        for p in pack_section(group, settings):
            packed.append(p)
            sections.append(group[0].section_index)
    hosts = place_blocks_on_chunks(packed, sections, blocks)
    drafts = order_with_descriptors(packed, sections, blocks, hosts, crop_paths, settings.language, heading_doubts(segments))
    return link_chunks(doc_id, drafts)
