"""The sample formulary against its gold annotations (data/inbox/formulary).

Every table and formula is lifted with the right kind, shape, page, printed
page, entry and section, and none of its text is left in prose; the prose
around each block survives whole; monographs and their standard sections come
out as headings; the printed page differs from the physical one.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from functools import lru_cache

import pytest

from duocthu_assets.model import BlockKind, Format, SegmentKind
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.geometry import iou
from duocthu_assets.settings import Profile, collection_settings

from tests.support.paths import INBOX, REPO

FOLDER = INBOX / "formulary"
PDF = FOLDER / "duoc_thu_mau.pdf"
GOLD = json.loads((FOLDER / "duoc_thu_mau.gold.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def parsed():
    settings = collection_settings(FOLDER)
    assert settings.profile is Profile.FORMULARY
    return parse_document(PDF.read_bytes(), Format.PDF, settings)


def _match(gold_block):
    doc = parsed()
    candidates = [b for b in doc.blocks if b.page_no == gold_block["page"]]
    scored = sorted(((iou(tuple(gold_block["bbox"]), b.bbox), b) for b in candidates), key=lambda t: -t[0])
    return scored[0] if scored else (0.0, None)


def test_collection_declares_formulary_and_nfc():
    text = (FOLDER / "collection.toml").read_text(encoding="utf-8")
    assert 'profile = "formulary"' in text and 'normalization = "nfc"' in text


def test_sample_pdf_is_what_the_script_makes():
    import hashlib

    assert hashlib.sha256(PDF.read_bytes()).hexdigest() == GOLD["sha256"]


def test_page_count_and_printed_pages():
    doc = parsed()
    assert doc.page_count == GOLD["page_count"]
    printed = {p["page"]: p["printed_page"] for p in GOLD["pages"]}
    seen = set()
    for s in doc.segments:
        assert s.printed_page == printed[s.page_no], (s.segment_id, s.page_no, s.text[:40])
        seen.add(s.page_no)
    assert seen == set(printed)
    # front matter makes the printed page differ from the physical one
    assert any(p["printed_page"] is not None and p["printed_page"] != p["page"] for p in GOLD["pages"])


@pytest.mark.parametrize("gold_block", GOLD["blocks"], ids=[b["id"] for b in GOLD["blocks"]])
def test_every_block_is_lifted_with_its_metadata(gold_block):
    score, block = _match(gold_block)
    assert block is not None and score >= 0.8, f"{gold_block['id']} not found (best IoU {score:.2f})"
    assert block.kind is BlockKind(gold_block["kind"])
    assert block.shape.value == gold_block["shape"]
    assert block.printed_page == gold_block["printed_page"]
    assert block.quarantined is True and block.header_row == ()
    assert block.entry_id == gold_block["entry"]
    assert block.section_key == gold_block["section"]
    assert gold_block["contains"] in block.text
    assert block.anchor_segment_id, "a block in a section follows a segment"


def test_no_block_beyond_the_gold():
    doc = parsed()
    matched = {id(_match(g)[1]) for g in GOLD["blocks"]}
    extra = [b.block_id for b in doc.blocks if id(b) not in matched]
    assert extra == []
    assert len(doc.blocks) == len(GOLD["blocks"])


def test_block_ids_are_unique_and_readable():
    ids = [b.block_id for b in parsed().blocks]
    assert len(ids) == len(set(ids))
    for b in parsed().blocks:
        letter = "t" if b.kind is BlockKind.TABLE else "f"
        assert b.block_id.startswith(f"p{b.page_no:04d}-{letter}")


def test_continued_tables_are_linked():
    by_gold = {g["id"]: _match(g)[1] for g in GOLD["blocks"]}
    for g in GOLD["blocks"]:
        block = by_gold[g["id"]]
        if g["continues"]:
            assert block.continues == by_gold[g["continues"]].block_id
        else:
            assert block.continues == ""


def test_no_block_text_left_in_any_segment():
    texts = [s.text for s in parsed().segments]
    for g in GOLD["blocks"]:
        for probe in g["leak_probes"]:
            leaks = [t for t in texts if probe in t]
            assert not leaks, f"{g['id']}: {probe!r} leaked into {leaks[0]!r}"


def test_block_text_holds_its_cells():
    for g in GOLD["blocks"]:
        _, block = _match(g)
        for probe in g["leak_probes"]:
            assert probe in block.text, (g["id"], probe)


def _segment_index(sentence: str) -> int:
    for i, s in enumerate(parsed().segments):
        if sentence in s.text:
            return i
    raise AssertionError(f"sentence lost from the prose: {sentence!r}")


@pytest.mark.parametrize("prose", GOLD["prose"], ids=[f"{p['role']}@{p['page']}" for p in GOLD["prose"]])
def test_prose_survives_whole(prose):
    index = _segment_index(prose["text"])
    segment = parsed().segments[index]
    assert segment.kind in (SegmentKind.PARAGRAPH, SegmentKind.LIST_ITEM)
    role = prose["role"]
    if ":" in role:  # the sentence right before / after a block
        where, block_id = role.split(":")
        # a table continued elsewhere is parts "T3a", "T3b": before the first, after the last
        parts = [g for g in GOLD["blocks"] if g["id"] == block_id or (g["id"][:-1] == block_id and g["id"][-1].isalpha())]
        _, block = _match(parts[0] if where.startswith("before") else parts[-1])
        anchor = next(i for i, s in enumerate(parsed().segments) if s.segment_id == block.anchor_segment_id)
        if where.startswith("before"):
            assert index <= anchor, f"{block_id}: the sentence before it comes after its anchor"
            assert anchor - index <= 1, f"{block_id}: anchored too far from the sentence before it"
        else:
            assert index == anchor + 1, f"{block_id}: the sentence after it is not the next segment"


def test_text_is_nfc_even_where_the_pdf_is_not():
    for s in parsed().segments:
        assert unicodedata.is_normalized("NFC", s.text), s.segment_id
    nfd = next(p for p in GOLD["prose"] if p["role"] == "nfd_in_pdf")
    _segment_index(nfd["text"])  # found in NFC form


def test_running_header_and_footer_stay_out_of_prose():
    header = GOLD["running_header"]
    for s in parsed().segments:
        assert header not in s.text
        assert not s.text.strip().isdigit(), f"a page number became prose: {s.segment_id}"
        assert s.text.strip().lower() not in ("ii", "iii")


def test_monographs_and_standard_sections():
    segments = parsed().segments
    titles = [s for s in segments if s.kind is SegmentKind.HEADING and s.level == 1]
    by_title = {s.text: s for s in titles}
    for mono in GOLD["monographs"]:
        head = by_title.get(mono["title"])
        assert head is not None, f"monograph {mono['title']} is not a level-1 heading"
        assert head.page_no == mono["page"] and head.printed_page == mono["printed_page"]
        assert head.entry_id == mono["entry_id"]
        start = segments.index(head)
        following = [s for s in segments[start + 1 :]]
        end = next((i for i, s in enumerate(following) if s.kind is SegmentKind.HEADING and s.level == 1), len(following))
        sections = [s for s in following[:end] if s.kind is SegmentKind.HEADING]
        assert [s.text for s in sections] == [x["title"] for x in mono["sections"]]
        assert [s.section_key for s in sections] == [x["key"] for x in mono["sections"]]
        for s in following[:end]:
            assert s.entry_id == mono["entry_id"]
            assert s.headings[0] == mono["title"]
    assert any(s.section_key == "lieu_luong_va_cach_dung" for s in segments)


def test_sub_headings_inside_sections_are_not_headings():
    segments = parsed().segments
    for text in ("Người lớn:", "Người suy thận:"):
        hits = [s for s in segments if s.text == text]
        assert hits and all(s.kind is SegmentKind.PARAGRAPH for s in hits)
        assert all(s.section_key == "lieu_luong_va_cach_dung" for s in hits)


def test_two_column_page_reads_left_column_first():
    left = next(p for p in GOLD["prose"] if p["role"] == "two_column_left")
    right = next(p for p in GOLD["prose"] if p["role"] == "two_column_right")
    assert _segment_index(left["text"]) < _segment_index(right["text"])


def test_prose_with_numbers_and_short_lines_is_not_a_table():
    for page in GOLD["not_table_pages"]:
        assert not [b for b in parsed().blocks if b.page_no == page["page"]]


def test_segment_ids_and_sources():
    segments = parsed().segments
    assert [s.segment_id for s in segments] == [f"s{i:05d}" for i in range(1, len(segments) + 1)]
    for s in segments:
        assert s.source_ref == f"pdf:p{s.page_no}"
        assert s.bbox is not None and s.bbox[0] < s.bbox[2] and s.bbox[1] < s.bbox[3]
    doc = parsed()
    for s in segments:
        assert doc.canonical_text[s.offset : s.offset + s.length] == s.text


def test_no_pages_need_ocr():
    assert parsed().pages_needing_ocr == []


def test_parsing_is_deterministic():
    again = parse_document(PDF.read_bytes(), Format.PDF, collection_settings(FOLDER))
    assert again.canonical_text == parsed().canonical_text
    assert again.segments == parsed().segments and again.blocks == parsed().blocks


def test_the_script_rebuilds_the_committed_sample_byte_for_byte():
    import importlib.util

    script = REPO / "scripts" / "make_sample_formulary.py"
    spec = importlib.util.spec_from_file_location("make_sample_formulary", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    try:
        spec.loader.exec_module(module)
        data, gold = module.build()
    finally:
        del sys.modules[spec.name]
    assert data == PDF.read_bytes()
    assert gold == GOLD
