"""Pack the segments of one section instance into chunks (ADR 0018 §7).

A chunk's text is its *heading context* (the section's heading trail on one
line, ``AMPICILIN VÀ SULBACTAM > Liều lượng và cách dùng``), a blank line, and
its body: slices of canonical segment text joined by a blank line, exactly as
they appear in the canonical text. The body is packed to ``chunk_size`` tokens
with ``chunk_overlap`` tokens carried from the previous chunk of the same run;
the heading context lives in the ``max_chunk_tokens - chunk_size`` headroom
ADR 0018 reserves for it (less a few tokens for the embedder's task prefix),
so the whole text never exceeds ``max_chunk_tokens`` (measured on the final
text, every time).

- A section's heading segment is carried by the heading context of the
  section's first chunk (its span resolves there); it is not repeated in the
  body. A section that is only a heading still gets one chunk, so no heading
  is lost. A trail too long for the headroom is shortened: middle headings
  elided (``CÁ NHÂN > … > Điều 65. …``, the entry kept longest), then the
  entry, and only then the innermost heading cut; once the innermost heading
  is cut, the heading segment becomes ordinary body text instead.
- Paragraphs and list items accumulate; a chunk ends at a segment boundary
  once it is at least half full, otherwise the next segment is cut at the
  best safe boundary (line, sentence, clause, space) to fill it.
- A table row is atomic: one chunk of kind ``table_row``. Only a row that
  alone exceeds ``max_chunk_tokens`` is cut, into ordered pieces packed like
  prose. A row that fits only without the heading context goes without it.
- Nothing crosses the section: the caller passes one section instance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import ChunkKind, Segment, SegmentKind, Span
from ..settings import Settings
from .tokenizer import (
    LONG_TEXT,
    TokenBoundaries,
    count_tokens,
    has_content,
    split_text,
    strip_range,
    surely_over,
    token_boundaries,
)

SEPARATOR = "\n\n"
CONTEXT_JOIN = " > "
ELLIPSIS = "…"
SEPARATOR_TOKENS = 1  # "\n\n" is one cl100k token; the final count is re-measured anyway
MIN_FILL = 0.5  # end a chunk at a segment boundary only once it is this full
# ADR 0018 §7: the 400/512 gap is headroom for the heading text *and* the
# embedder's task prefix ("search_document: ", "passage: "), so the heading
# context leaves this many tokens of it unused.
TASK_PREFIX_RESERVE = 8


class TooManyChunks(ValueError):
    """A run of text certainly makes more chunks than a document may have
    (``max_chunks_per_document``): refused before packing it, since packing
    and embedding them would take hours. ``str()`` is the reason a user reads."""

    def __init__(self, tokens: int, at_least: int, limit: int):
        self.tokens, self.at_least, self.limit = tokens, at_least, limit
        super().__init__(
            f"its text is {tokens:,} tokens long in one stretch, at least {at_least:,} chunks — over the {limit:,} "
            "a document may have (max_chunks_per_document); split the file, or raise max_chunks_per_document in "
            "its collection.toml (embedding runs at about 2-50 chunks/s)"
        )


@dataclass(frozen=True)
class Slice:
    """``segment.text[start:end]`` (whitespace-trimmed) as part of a chunk body."""

    segment: Segment
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.segment.text[self.start : self.end]

    @property
    def span(self) -> Span:
        return Span(self.segment.offset + self.start, self.end - self.start)

    @property
    def reaches_end(self) -> bool:
        return not has_content(self.segment.text, self.end)


@dataclass(frozen=True)
class PackedChunk:
    """A chunk before document-wide ids and links are assigned."""

    kind: ChunkKind
    text: str
    token_count: int
    context: str  # the heading-context line at the top of text ("" when absent)
    heading: Segment | None  # the section heading carried by the context
    slices: tuple[Slice, ...]

    @property
    def source_segments(self) -> tuple[Segment, ...]:
        seen: dict[str, Segment] = {}
        if self.heading is not None:
            seen[self.heading.segment_id] = self.heading
        for s in self.slices:
            seen.setdefault(s.segment.segment_id, s.segment)
        return tuple(seen.values())

    @property
    def spans(self) -> tuple[Span, ...]:
        head = (Span(self.heading.offset, self.heading.length),) if self.heading is not None else ()
        return head + tuple(s.span for s in self.slices)

    def contains_end_of(self, segment_id: str) -> bool:
        if self.heading is not None and self.heading.segment_id == segment_id:
            return True
        return any(s.segment.segment_id == segment_id and s.reaches_end for s in self.slices)


def heading_context(headings: tuple[str, ...], max_tokens: int) -> tuple[str, bool]:
    """The heading trail as one line within ``max_tokens``, and whether its
    innermost heading is complete (so the heading's own text is in it)."""
    trail = [h for h in headings if h.strip()]
    if not trail or max_tokens <= 0:
        return "", False
    # full trail; then keep the entry (outermost: the drug, the chapter) and
    # the innermost heading, eliding the middle; then the innermost alone
    candidates = [trail]
    candidates += [[trail[0], ELLIPSIS, *trail[k:]] for k in range(2, len(trail))]
    candidates += [[ELLIPSIS, *trail[k:]] for k in range(1, len(trail))]
    for parts in candidates:
        line = CONTEXT_JOIN.join(parts)
        if count_tokens(line) <= max_tokens:
            return line, True
    innermost = trail[-1]
    pieces = split_text(innermost, max(1, max_tokens - 2))
    line = innermost[: pieces[0][1]] + ELLIPSIS if pieces else ""
    while line and count_tokens(line) > max_tokens:
        line = line[:-2] + ELLIPSIS
    return line, False


def assemble_text(context: str, slices: list[Slice] | tuple[Slice, ...]) -> str:
    parts = ([context] if context else []) + [s.text for s in slices]
    return SEPARATOR.join(parts)


@dataclass
class _Run:
    """Cursor-based packer over one run of consecutive body segments."""

    segments: list[Segment]
    settings: Settings
    _bounds: dict[int, TokenBoundaries] = field(default_factory=dict)
    _full: dict[int, int] = field(default_factory=dict)

    def bounds(self, i: int) -> TokenBoundaries:
        if i not in self._bounds:
            self._bounds[i] = token_boundaries(self.segments[i].text)
        return self._bounds[i]

    def rest_tokens(self, i: int, c: int) -> int:
        if c == 0 and i not in self._bounds and len(self.segments[i].text) <= LONG_TEXT:
            if i not in self._full:
                self._full[i] = count_tokens(self.segments[i].text)
            return self._full[i]
        # a long segment is cut anyway: tokenize it once, for its count and its cuts
        return self.bounds(i).tokens_between(c, len(self.segments[i].text))

    def refuse_if_too_many(self) -> None:
        """Fail before packing a run that certainly makes more than
        ``max_chunks_per_document`` chunks: every chunk holds at most
        ``chunk_size`` body tokens (counted as in the whole segment) plus a
        separator, and together they cover every token."""
        limit = self.settings.max_chunks_per_document
        if sum(len(s.text) for s in self.segments) <= limit * self.settings.chunk_size:
            return  # fewer characters than that many chunks could hold: no need to count
        tokens = sum(self.rest_tokens(i, 0) for i in range(len(self.segments)))
        at_least = tokens // (self.settings.chunk_size + SEPARATOR_TOKENS + 1)
        if at_least > limit:
            raise TooManyChunks(tokens, at_least, limit)

    def normalize(self, i: int, c: int) -> tuple[int, int]:
        """Skip past segment ends (and trailing whitespace) to the next content."""
        while i < len(self.segments) and not has_content(self.segments[i].text, c):
            i, c = i + 1, 0
        return i, c

    def fill(self, pos: tuple[int, int], budget: int) -> tuple[list[tuple[int, int, int]], tuple[int, int]]:
        """Raw ``(segment, start, end)`` ranges from ``pos`` within ``budget``
        body tokens, and the position after them."""
        raw: list[tuple[int, int, int]] = []
        used = 0
        i, c = pos
        while i < len(self.segments):
            text = self.segments[i].text
            rest = self.rest_tokens(i, c)
            sep = SEPARATOR_TOKENS if raw else 0
            if used + sep + rest <= budget:
                raw.append((i, c, len(text)))
                used += sep + rest
                i, c = self.normalize(i + 1, 0)
                continue
            if raw and used >= budget * MIN_FILL:
                break
            room = budget - used - sep
            cut = self.bounds(i).best_cut(c, room) if room > 0 else None
            if cut is None or cut <= c:
                if raw:
                    break
                raise ValueError(f"segment {self.segments[i].segment_id}: no safe cut within {budget} tokens")
            raw.append((i, c, cut))
            i, c = self.normalize(i, cut)
            break
        return raw, (i, c)

    def overlap_from(self, raw: list[tuple[int, int, int]], overlap: int) -> tuple[int, int] | None:
        """Where the next chunk starts so it repeats about ``overlap`` tokens
        of this one's tail; ``None`` when the whole chunk is shorter."""
        need = overlap
        for i, a, b in reversed(raw):
            have = self.bounds(i).tokens_between(a, b)
            if have > need:
                start = self.bounds(i).overlap_start(b, need, floor=a)
                return (i, start) if start is not None else None
            need -= have + SEPARATOR_TOKENS
            if need <= 0:
                return (i, a)
        return None

    def slices(self, raw: list[tuple[int, int, int]]) -> list[Slice]:
        out = []
        for i, a, b in raw:
            a, b = strip_range(self.segments[i].text, a, b)
            if a < b:
                out.append(Slice(self.segments[i], a, b))
        return out

    def pack(self, context: str, kind: ChunkKind) -> list[PackedChunk]:
        settings = self.settings
        self.refuse_if_too_many()
        out: list[PackedChunk] = []
        pos = self.normalize(0, 0)
        start_pos = pos
        while pos[0] < len(self.segments):
            budget = settings.chunk_size
            while True:
                raw, end = self.fill(pos, budget)
                slices = self.slices(raw)
                text = assemble_text(context, slices)
                tokens = count_tokens(text)
                if tokens <= settings.max_chunk_tokens:
                    break
                if budget <= 1:
                    raise ValueError(f"cannot fit a chunk of section {self.segments[0].section_key} in the cap")
                budget = max(1, budget - (tokens - settings.max_chunk_tokens) - SEPARATOR_TOKENS)
            out.append(PackedChunk(kind, text, tokens, context, None, tuple(slices)))
            if end[0] >= len(self.segments):
                break
            nxt = self.overlap_from(raw, settings.chunk_overlap) if settings.chunk_overlap else None
            if nxt is not None:
                nxt = self.normalize(*nxt)
            pos = nxt if nxt is not None and start_pos < nxt < end else end
            start_pos = pos
        return out


def _single(kind: ChunkKind, context: str, slices: list[Slice], heading: Segment | None = None) -> PackedChunk:
    text = assemble_text(context, slices)
    return PackedChunk(kind, text, count_tokens(text), context, heading, tuple(slices))


def pack_table_row(row: Segment, context: str, settings: Settings) -> list[PackedChunk]:
    """One atomic chunk for the row; ordered pieces only if the row alone
    exceeds ``max_chunk_tokens``."""
    a, b = strip_range(row.text, 0, len(row.text))
    whole = [Slice(row, a, b)]
    if surely_over(row.text[a:b], settings.max_chunk_tokens):
        return _Run([row], settings).pack(context, ChunkKind.TABLE_ROW)  # a row of megabytes is not encoded twice more
    for ctx in (context, ""):
        chunk = _single(ChunkKind.TABLE_ROW, ctx, whole)
        if chunk.token_count <= settings.max_chunk_tokens:
            return [chunk]
    return _Run([row], settings).pack(context, ChunkKind.TABLE_ROW)


def pack_section(segments: list[Segment], settings: Settings) -> list[PackedChunk]:
    """Given the segments of one section instance in reading order, return its
    chunks in reading order."""
    if not segments:
        return []
    if len({s.section_index for s in segments}) != 1:
        raise ValueError("pack_section takes one section instance (one section_index)")
    first = segments[0]
    headroom = settings.max_chunk_tokens - settings.chunk_size - SEPARATOR_TOKENS - TASK_PREFIX_RESERVE
    context, complete = heading_context(first.headings, headroom)
    heading: Segment | None = None
    body = list(segments)
    if (
        first.kind is SegmentKind.HEADING
        and complete
        and first.headings
        and first.headings[-1] == first.text
        and first.text.strip()
    ):
        heading = first
        body = body[1:]
    body = [s for s in body if s.text.strip()]

    chunks: list[PackedChunk] = []
    run: list[Segment] = []

    def flush() -> None:
        if run:
            chunks.extend(_Run(list(run), settings).pack(context, ChunkKind.PROSE))
            run.clear()

    for segment in body:
        if segment.kind is SegmentKind.TABLE_ROW:
            flush()
            chunks.extend(pack_table_row(segment, context, settings))
        else:
            run.append(segment)
    flush()

    if heading is not None:
        if chunks and chunks[0].context == context:
            c = chunks[0]
            chunks[0] = PackedChunk(c.kind, c.text, c.token_count, c.context, heading, c.slices)
        else:  # heading-only section, or its first row had to drop the context
            chunks.insert(0, _single(ChunkKind.PROSE, context, [], heading))
    return chunks
