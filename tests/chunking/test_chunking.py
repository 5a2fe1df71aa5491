"""The chunker on small synthetic documents: sizes, overlap, sections, table
rows, descriptors, attachments, provenance, determinism."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from checks.adr0006 import ADR0006_RULES
from checks.chunk_contract import CONTRACT_RULES
from checks.rules import DocumentRows
from duocthu_assets.chunking import build_chunks
from duocthu_assets.chunking.descriptors import describe_block, page_reference
from duocthu_assets.chunking.packing import heading_context
from duocthu_assets.chunking.tokenizer import count_tokens, split_text, token_boundaries
from duocthu_assets.model import BlockKind, BlockShape, ChunkKind, LiftedBlock, Segment, SegmentKind
from duocthu_assets.rows import chunk_from_row, to_row
from duocthu_assets.settings import Settings

from tests.support.chunk_samples import DOC_ID, FORMULARY, build_document, formulary_document, rows_of, spreadsheet_document, vietnamese_prose

PERSIAN = "قرارداد بیمه‌ای شرکت در تاریخ ۱۴۰۲/۰۵/۱۲ میان طرفین منعقد شد؛ مدت آن یک سال است؛ پیچ و ژاله. "
# cl100k splits "ễ", "ẵ", "چ", "ژ" and astral characters across tokens
SPLIT_CHARS = "Nguyễn Thị Hằng ẵ 𝔸𝔹 鬱 "
VIETNAMESE = "Liều lượng và cách dùng: người lớn tiêm tĩnh mạch chậm, điều chỉnh liều ở người suy thận. "


def section_text(chunk) -> str:
    """The chunk body without its heading-context line."""
    return chunk.text.split("\n\n", 1)[1] if "\n\n" in chunk.text else ""


def all_rules_pass(doc, chunks) -> dict[str, str]:
    rows = DocumentRows(
        doc_id=DOC_ID,
        parsed={"canonical_text": doc.canonical},
        segments=rows_of(doc.segments, "segments"),
        blocks=rows_of(doc.blocks, "lifted_blocks"),
        chunks=rows_of(chunks, "chunks"),
    )
    results = {rule.name: rule.evaluate(rows) for rule in ADR0006_RULES + CONTRACT_RULES}
    return {name: r.message for name, r in results.items() if not r.passed}


# -- tokenizer -------------------------------------------------------------


def test_count_tokens_is_cl100k_and_treats_special_tokens_as_text():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("<|endoftext|>") > 1  # ordinary text, not the special token


@pytest.mark.parametrize("text", [VIETNAMESE * 40, PERSIAN * 40, SPLIT_CHARS * 50])
def test_token_boundaries_never_fall_inside_a_character(text):
    bounds = token_boundaries(text)
    assert bounds.chars[0] == 0 and bounds.chars[-1] == len(text)
    assert bounds.tokens[-1] == bounds.n_tokens == count_tokens(text)
    # some cl100k tokens end inside a multi-byte character; those boundaries are dropped
    assert len(bounds.chars) < bounds.n_tokens + 1
    for a, b in zip(bounds.chars, bounds.chars[1:]):
        assert "\ufffd" not in text[a:b]
        assert text[a:b].encode("utf-8").decode("utf-8") == text[a:b]


@pytest.mark.parametrize("text", [VIETNAMESE * 60, PERSIAN * 60, SPLIT_CHARS * 80, "ẵ" * 3000, "x" * 5000])
def test_split_text_respects_the_cap_covers_everything_and_overlaps(text):
    pieces = split_text(text, 100, 15)
    assert len(pieces) > 2
    assert all(count_tokens(text[a:b]) <= 100 for a, b in pieces)
    assert all("\ufffd" not in text[a:b] for a, b in pieces)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text.rstrip())
    for (a1, b1), (a2, b2) in zip(pieces, pieces[1:]):
        assert a1 < a2 < b1 < b2  # ordered, overlapping, no gap
        assert count_tokens(text[a2:b1]) >= 5


def test_split_text_prefers_sentence_ends():
    text = VIETNAMESE * 60
    pieces = split_text(text, 120, 0)
    assert all(text[a:b].endswith(".") for a, b in pieces)


# -- packing ---------------------------------------------------------------


@pytest.fixture(scope="module")
def formulary():
    doc = formulary_document()
    return doc, doc.chunks()


def test_no_chunk_exceeds_the_cap_and_token_count_is_measured(formulary):
    _, chunks = formulary
    for c in chunks:
        assert c.token_count == count_tokens(c.text) <= 512


def test_prose_is_packed_to_the_target_within_a_section(formulary):
    _, chunks = formulary
    chi_dinh = [c for c in chunks if c.section_key == "chi_dinh"]
    assert len(chi_dinh) >= 5
    bodies = [count_tokens(section_text(c)) for c in chi_dinh]
    assert all(b <= 400 for b in bodies)
    assert all(b >= 200 for b in bodies[:-1])  # full chunks, not fragments


def test_consecutive_chunks_of_a_section_overlap_by_about_60_tokens(formulary):
    doc, chunks = formulary
    chi_dinh = [c for c in chunks if c.section_key == "chi_dinh"]
    for before, after in zip(chi_dinh, chi_dinh[1:]):
        end = before.spans[-1].offset + before.spans[-1].length
        start = after.spans[0].offset
        assert start < end, (before.chunk_id, after.chunk_id)
        shared = doc.canonical[start:end]
        assert 30 <= count_tokens(shared) <= 120
        assert shared.strip() in before.text and shared.strip() in after.text


def test_no_chunk_crosses_a_section_even_when_section_keys_repeat(formulary):
    doc, chunks = formulary
    section_of = {s.segment_id: s.section_index for s in doc.segments}
    section_of.update({b.block_id: b.section_index for b in doc.blocks})
    for c in chunks:
        assert {section_of[e] for e in c.source_elements} == {c.section_index}
    dosing = [c for c in chunks if c.section_key == "lieu_luong_va_cach_dung" and c.chunk_kind is ChunkKind.PROSE]
    assert [c.entry_title for c in dosing] == ["AMPICILIN VÀ SULBACTAM", "AMOXICILIN"]
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert "AMOXICILIN" not in dosing[0].text


def test_every_chunk_carries_its_heading_trail_and_starts_with_it(formulary):
    _, chunks = formulary
    for c in chunks:
        if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR:
            continue
        assert c.headings and c.headings[-1] == c.section_title
        assert c.text.startswith(" > ".join(c.headings))


def test_the_heading_text_is_carried_once_by_the_first_chunk_of_its_section(formulary):
    doc, chunks = formulary
    first = next(c for c in chunks if c.section_key == "chi_dinh")
    assert first.source_elements[0] == "s004"
    assert first.spans[0].offset == doc.segment("s004").offset
    assert first.text.count("Chỉ định") == 1
    # a section that is only a heading still has a chunk: the entry title is not lost
    title = chunks[0]
    assert title.text == "AMPICILIN VÀ SULBACTAM" and title.source_elements == ("s001",)


def test_a_paragraph_longer_than_the_budget_is_split_at_sentence_ends(formulary):
    doc, chunks = formulary
    long = [c for c in chunks if "s009" in c.source_elements]
    assert len(long) >= 4
    for c in long[1:-1]:
        assert section_text(c).endswith(")."), c.chunk_id


def test_spans_resolve_in_order_into_the_canonical_text(formulary):
    doc, chunks = formulary
    for c in chunks:
        cursor = 0
        for span in c.spans:
            piece = doc.canonical[span.offset : span.offset + span.length]
            found = c.text.find(piece, cursor)
            assert found >= 0, (c.chunk_id, piece[:40])
            cursor = found + len(piece)


def test_every_segment_is_covered_by_some_chunk(formulary):
    doc, chunks = formulary
    covered = set()
    for c in chunks:
        for span in c.spans:
            covered.update(range(span.offset, span.offset + span.length))
    for s in doc.segments:
        assert all(k in covered or doc.canonical[k].isspace() for k in range(s.offset, s.offset + s.length)), s.segment_id


# -- table rows ------------------------------------------------------------


def test_table_rows_are_atomic_and_a_long_row_is_split_in_order():
    doc = spreadsheet_document(long_row_cells=60)
    chunks = doc.chunks(Settings())
    assert all(c.chunk_kind is ChunkKind.TABLE_ROW for c in chunks)
    by_row = {}
    for c in chunks:
        by_row.setdefault(c.source_elements[-1], []).append(c)
    for row_id in ("s002", "s003", "s005"):
        (only,) = by_row[row_id]
        assert doc.segment(row_id).text in only.text
        assert only.text.startswith("Chi nhánh\n\n")
    pieces = by_row["s004"]
    assert count_tokens(doc.segment("s004").text) > 512
    assert len(pieces) >= 3
    assert [p.chunk_index for p in pieces] == list(range(pieces[0].chunk_index, pieces[0].chunk_index + len(pieces)))
    assert all(p.token_count <= 512 for p in pieces)
    offsets = [p.spans[0].offset for p in pieces]
    assert offsets == sorted(offsets)
    assert pieces[-1].spans[0].offset + pieces[-1].spans[0].length == doc.segment("s004").offset + len(
        doc.segment("s004").text
    )
    # office formats have no page geometry: no regions
    assert all(c.regions == () for c in chunks)
    assert all_rules_pass(doc, chunks) == {}


def test_a_row_that_fits_only_without_the_heading_context_stays_whole():
    row_text = "\n".join(f"c{k}: giá trị {k}" for k in range(48))
    heading = "Bảng giá " * 30
    doc = build_document(
        [
            Segment("s001", SegmentKind.HEADING, heading.strip(), level=1),
            Segment("s002", SegmentKind.TABLE_ROW, row_text),
        ]
    )
    assert count_tokens(row_text) <= 512 < count_tokens(heading + "\n\n" + row_text)
    chunks = doc.chunks(Settings())
    rows = [c for c in chunks if "s002" in c.source_elements]
    assert len(rows) == 1 and rows[0].text == row_text
    assert all_rules_pass(doc, chunks) == {}


# -- descriptors and attachments -------------------------------------------


def test_descriptor_text_is_the_adr_example(formulary):
    _, chunks = formulary
    desc = next(c for c in chunks if c.chunk_id == f"{DOC_ID}:lieu_luong_va_cach_dung:block:p14-t1")
    assert desc.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR
    assert desc.text == "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204."
    assert desc.spans == () and desc.source_elements == ("p14-t1",)
    assert [(r.page_no, r.printed_page, r.bbox) for r in desc.regions] == [(14, 204, (56.0, 300.0, 540.0, 420.0))]
    assert desc.has_quarantined_content is True


def test_descriptor_text_in_english_and_without_a_printed_page():
    assert describe_block("AMPICILIN", "Dosage", BlockKind.FORMULA, 204, 14, "en") == (
        "AMPICILIN — Dosage — formula, printed page 204."
    )
    assert describe_block("AMPICILIN", "Liều", "table", None, 14, "vi") == "AMPICILIN — Liều — bảng, trang 14 của tệp."
    assert describe_block("", "", "table", None, 3, "fa") == "Table, page 3 of the file."
    assert page_reference("X — bảng, trang in 204.") == ("printed", 204)
    assert page_reference("X — table, page 14 of the file.") == ("physical", 14)
    assert page_reference("X — table.") is None


def test_descriptor_never_contains_block_content(formulary):
    doc, chunks = formulary
    for c in chunks:
        if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR:
            for block in doc.blocks:
                for line in block.text.splitlines():
                    for cell in line.split("\t"):
                        if cell not in block.entry_title and cell not in block.section_title:
                            assert cell not in c.text


def test_blocks_attach_to_the_chunk_next_to_them_and_descriptors_follow_it(formulary):
    doc, chunks = formulary
    host = next(c for c in chunks if "s012" in c.source_elements)
    assert [a.block_id for a in host.attachments] == ["p14-t1", "p14-f1"]
    assert host.has_quarantined_content is True
    table = host.attachments[0]
    assert table.kind == "table" and table.shape == "simple_table"
    assert (table.physical_page, table.printed_page) == (14, 204)
    assert table.header_row == () and table.quarantined is True
    assert table.source_crop == f"crops/{DOC_ID}/p14-t1.png"
    following = chunks[host.chunk_index + 1 : host.chunk_index + 3]
    assert [c.chunk_id for c in following] == [
        f"{DOC_ID}:lieu_luong_va_cach_dung:block:p14-t1",
        f"{DOC_ID}:lieu_luong_va_cach_dung:block:p14-f1",
    ]
    others = [c for c in chunks if c.chunk_kind is not ChunkKind.BLOCK_DESCRIPTOR and c is not host]
    amox = next(c for c in others if c.entry_title == "AMOXICILIN" and c.section_key == "lieu_luong_va_cach_dung")
    assert [a.block_id for a in amox.attachments] == ["p15-t1"]
    assert not any(c.attachments or c.has_quarantined_content for c in others if c is not amox)
    # the table's content never reaches any chunk's text
    assert not any("mỗi 12 giờ" in c.text or "72 x creatinin" in c.text for c in chunks)


def test_a_section_whose_only_content_is_a_block_still_references_it():
    H = SegmentKind.HEADING
    raw = [
        Segment("s001", H, "AMPICILIN", level=1, page_no=1, printed_page=10, bbox=(0, 0, 100, 20)),
        Segment("s002", H, "Liều lượng và cách dùng", level=2, page_no=1, printed_page=10, bbox=(0, 30, 100, 50)),
        Segment("s003", H, "Tương tác thuốc", level=2, page_no=1, printed_page=10, bbox=(0, 300, 100, 320)),
        Segment("s004", SegmentKind.PARAGRAPH, vietnamese_prose(3), page_no=1, printed_page=10, bbox=(0, 330, 100, 400)),
    ]
    blocks = [
        LiftedBlock("b1", BlockKind.TABLE, BlockShape.SIMPLE_TABLE, 1, 10, (0, 60, 100, 280), text="a\tb", anchor_segment_id="s002"),
        # before any segment: no chunk of its own section exists, the descriptor alone carries it
        LiftedBlock("b0", BlockKind.FORMULA, BlockShape.FORMULA_2D, 1, 10, (0, 0, 50, 10), text="x = y", anchor_segment_id=""),
    ]
    doc = build_document(raw, blocks)
    chunks = doc.chunks(FORMULARY)
    assert chunks[0].chunk_id == f"{DOC_ID}:body:block:b0"
    assert chunks[0].text == "Công thức, trang in 10."
    dosing = next(c for c in chunks if c.source_elements == ("s002",))
    assert dosing.text == "AMPICILIN > Liều lượng và cách dùng"
    assert [a.block_id for a in dosing.attachments] == ["b1"]
    assert chunks[dosing.chunk_index + 1].chunk_id == f"{DOC_ID}:lieu_luong_va_cach_dung:block:b1"
    assert all_rules_pass(doc, chunks) == {}


def test_regions_are_the_distinct_pages_and_boxes_of_the_sources(formulary):
    doc, chunks = formulary
    for c in chunks:
        if c.chunk_kind is ChunkKind.BLOCK_DESCRIPTOR:
            continue
        expected = []
        for e in c.source_elements:
            s = doc.segment(e)
            key = (s.page_no, s.printed_page, s.bbox)
            if key not in expected:
                expected.append(key)
        assert [(r.page_no, r.printed_page, r.bbox) for r in c.regions] == expected


# -- chain, ids, determinism, rows -------------------------------------------


def test_ids_chain_and_hashes(formulary):
    _, chunks = formulary
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    for n, c in enumerate(chunks):
        assert c.prev_chunk_id == (chunks[n - 1].chunk_id if n else None)
        assert c.next_chunk_id == (chunks[n + 1].chunk_id if n + 1 < len(chunks) else None)
        if c.chunk_kind is not ChunkKind.BLOCK_DESCRIPTOR:
            assert c.chunk_id == f"{DOC_ID}:{c.section_key}:{c.chunk_index}"
    assert all(c.content_hash == hashlib.sha256(c.text.encode()).hexdigest() for c in chunks)


def test_deterministic_and_round_trips_through_stored_rows(formulary):
    doc, chunks = formulary
    again = build_chunks(DOC_ID, list(doc.segments), list(doc.blocks), dict(doc.crop_paths), FORMULARY)
    assert again == chunks
    stored = rows_of(chunks, "chunks")
    assert [chunk_from_row(r) for r in stored] == chunks
    assert stored == rows_of(again, "chunks")


@pytest.mark.parametrize(
    "settings",
    [FORMULARY, Settings(chunk_size=120, chunk_overlap=20, max_chunk_tokens=150), Settings(chunk_size=512, chunk_overlap=0)],
    ids=["400-60-512", "120-20-150", "512-0-512"],
)
def test_every_rule_passes_on_the_chunkers_output(formulary, settings):
    doc, _ = formulary
    chunks = doc.chunks(settings)
    assert all(c.token_count <= settings.max_chunk_tokens for c in chunks)
    assert all_rules_pass(doc, chunks) == {}


def test_a_heading_trail_too_long_for_the_headroom_is_shortened_and_the_heading_kept_in_the_body():
    long_heading = "Điều khoản " + "rất dài " * 50
    raw = [
        Segment("s001", SegmentKind.HEADING, "Hợp đồng", level=1),
        Segment("s002", SegmentKind.HEADING, long_heading.strip(), level=2),
        Segment("s003", SegmentKind.PARAGRAPH, vietnamese_prose(4)),
    ]
    doc = build_document(raw)
    context, complete = heading_context(doc.segment("s002").headings, 512 - 400 - 1 - 8)
    assert not complete and context.endswith("…") and count_tokens(context) <= 103
    chunks = doc.chunks(Settings())
    first = next(c for c in chunks if "s002" in c.source_elements)
    assert first.text.startswith(context)
    assert long_heading.strip() in first.text  # the heading's own text, whole, in the body
    assert all(c.token_count <= 512 for c in chunks)
    assert all_rules_pass(doc, chunks) == {}


def test_a_long_trail_elides_its_middle_and_keeps_the_entry_and_the_section():
    trail = ("AMPICILIN", "Mục 5. THÔNG BÁO TÌM KIẾM NGƯỜI VẮNG MẶT TẠI NƠI CƯ TRÚ " * 3, "Liều lượng và cách dùng")
    assert heading_context(trail, 200)[0] == " > ".join(trail)  # 161 tokens
    assert heading_context(trail, 103) == ("AMPICILIN > … > Liều lượng và cách dùng", True)  # 17
    assert heading_context(trail, 12) == ("… > Liều lượng và cách dùng", True)  # 12


def test_build_chunks_refuses_duplicate_ids():
    doc = formulary_document()
    twice = doc.blocks + [dataclasses.replace(doc.blocks[0])]
    with pytest.raises(ValueError, match="duplicate block ids: p14-t1"):
        build_chunks(DOC_ID, doc.segments, twice, {}, FORMULARY)


def test_to_row_matches_the_declared_schema(formulary):
    _, chunks = formulary
    row = to_row(chunks[0], DOC_ID)
    assert row["chunk_kind"] == "prose" and row["schema_version"] >= 1
