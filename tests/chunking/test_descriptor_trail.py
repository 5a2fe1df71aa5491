"""Descriptors carry the heading trail in generic documents (issue 15):
the headings between the entry and the section, never cell text."""

from __future__ import annotations

from checks.adr0006 import descriptor_with_unverified_columns
from checks.rules import DocumentRows
from duocthu_assets.chunking.descriptors import describe_block, heading_trail
from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.rows import to_row
from duocthu_assets.chunking import build_chunks
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path


def test_the_trail_between_entry_and_section_is_named():
    text = describe_block("Annual report", "Table A4-12", "table", 42, 50, "en", ("Annual report", "Chapter 4", "Table A4-12"))
    assert text == "Annual report — Chapter 4 — Table A4-12 — table, printed page 42."


def test_formulary_descriptors_keep_their_two_titles():
    trail = ("AMPICILIN VÀ SULBACTAM", "Liều lượng và cách dùng")
    text = describe_block(trail[0], trail[1], "table", 204, 14, "vi", trail)
    assert text == "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204."


def test_headings_of_unmapped_glyphs_are_left_out():
    assert heading_trail("Paper", "2 \ufffd , \ufffdd", ("Paper", "Experiments", "2 \ufffd , \ufffdd")) == ["Paper", "Experiments"]


def test_generic_pdf_descriptors_name_the_chapter_and_pass_invariant_8():
    data = corpus_path("docling__redp5110_sampled.pdf").read_bytes()
    parsed = parse_document(data, Format.PDF, Settings())
    chunks = build_chunks("redp", parsed.segments, parsed.blocks, {}, Settings())
    descs = [c for c in chunks if c.chunk_kind.value == "block_descriptor"]
    # the chapter's title as the page shows it (its "Chapter 1." label lies under a white box: hidden furniture)
    assert any("Securing and protecting IBM DB2 data" in c.text for c in descs)
    assert not any("Chapter 1." in c.text for c in descs)
    rows = DocumentRows(
        "redp",
        blocks=[{**b.__dict__, "kind": b.kind.value, "headings": list(b.headings)} for b in parsed.blocks],
        chunks=[to_row(c, "redp") for c in chunks],
    )
    assert descriptor_with_unverified_columns(rows).passed
    # a descriptor that names a cell is still refused
    target = next(c for c in rows.chunks if c["chunk_kind"] == "block_descriptor" and " — table, " in c["text"])
    target["text"] = target["text"].replace(" — table, ", " — QSYS_ROW_ACCESS — table, ")
    assert not descriptor_with_unverified_columns(rows).passed
