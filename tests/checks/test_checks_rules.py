"""Every chunk rule proven able to fail.

The valid input is the real chunker's output on a small synthetic formulary
(two monographs, two tables and a formula), stored as the warehouse stores
it. Each test breaks exactly one thing and asserts the rule fails, with the
count, the offending id and the message a reviewer would see.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from checks.adr0006 import ADR0006_RULES, NeedleSet
from checks.chunk_contract import CONTRACT_RULES
from checks.rules import MAX_LISTED_IDS, DocumentRows, RuleResult
from duocthu_assets.model import SCHEMA_VERSION, BlockKind, BlockShape, LiftedBlock, Segment, SegmentKind

from tests.support.chunk_samples import DOC_ID, FORMULARY, FORMULA_TEXT, TABLE_TEXT, build_document, formulary_document, rows_of

RULES = {rule.name: rule for rule in ADR0006_RULES + CONTRACT_RULES}
DOSING = f"{DOC_ID}:lieu_luong_va_cach_dung"
TABLE_DESC = f"{DOSING}:block:p14-t1"
FORMULA_DESC = f"{DOSING}:block:p14-f1"


@dataclass
class Doc:
    """Mutable copies of one document's stored rows, plus names for the
    chunks the tests break."""

    chunks: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    segments: list[dict[str, Any]]
    parsed: dict[str, Any] | None

    def rows(self) -> DocumentRows:
        return DocumentRows(DOC_ID, parsed=self.parsed, segments=self.segments, blocks=self.blocks, chunks=self.chunks)

    def chunk(self, chunk_id: str) -> dict[str, Any]:
        return next(c for c in self.chunks if c["chunk_id"] == chunk_id)

    def block(self, block_id: str) -> dict[str, Any]:
        return next(b for b in self.blocks if b["block_id"] == block_id)

    def holding(self, segment_id: str) -> dict[str, Any]:
        """The first non-descriptor chunk built from ``segment_id``."""
        return next(c for c in self.chunks if segment_id in c["source_elements"])

    @property
    def host(self) -> dict[str, Any]:
        """The prose chunk the renal table and the formula are attached to."""
        return self.holding("s012")

    def evaluate(self, name: str) -> RuleResult:
        return RULES[name].evaluate(self.rows())


def stored(doc) -> Doc:
    chunks = doc.chunks(FORMULARY)
    return Doc(
        chunks=rows_of(chunks, "chunks"),
        blocks=rows_of(doc.blocks, "lifted_blocks"),
        segments=rows_of(doc.segments, "segments"),
        parsed={"doc_id": DOC_ID, "canonical_text": doc.canonical},
    )


@pytest.fixture(scope="module")
def valid_doc() -> Doc:
    return stored(formulary_document())


@pytest.fixture
def doc(valid_doc) -> Doc:
    return copy.deepcopy(valid_doc)


def assert_fails(result: RuleResult, ids: list[str], message: str, pages: tuple[int, ...] | None = None) -> None:
    assert result.passed is False
    assert result.count == len(ids)
    assert list(result.offending_ids) == ids
    assert result.message == f"{len(ids)} {message}: {', '.join(ids)}"
    if pages is not None:
        assert result.pages == pages


# -- the rule set itself -------------------------------------------------------


def test_the_ten_adr_invariants_are_named_and_numbered_as_in_the_adr():
    assert [r.name for r in ADR0006_RULES] == [
        "adr0006_01_section_with_lifted_block_but_no_chunk_reference",
        "adr0006_02_attachment_block_id_unknown",
        "adr0006_03_attachment_without_page_or_bbox",
        "adr0006_04_block_text_leaked_into_chunk_text",
        "adr0006_05_descriptor_chunk_count_equals_block_count",
        "adr0006_06_descriptor_chunk_without_attachment",
        "adr0006_07_attachment_header_row_present",
        "adr0006_08_descriptor_with_unverified_columns",
        "adr0006_09_descriptor_range_not_attachment_page",
        "adr0006_10_attachment_without_printed_page",
    ]
    assert {r.name for r in CONTRACT_RULES} >= {
        "chunk_over_max_tokens",
        "chunk_spans_two_sections",
        "span_does_not_resolve",
        "prev_next_chain_broken",
        "schema_version_mismatch",
    }
    for rule in RULES.values():
        assert rule.asset == "chunks" and rule.description and "chunks" in rule.needs


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_passes_on_the_chunkers_output(valid_doc, name):
    result = valid_doc.evaluate(name)
    assert result.passed is True, result.message
    assert result.count == 0 and result.offending_ids == ()
    assert result.message.startswith("no ")


# -- ADR 0006 #1..#10 ----------------------------------------------------------


def test_01_a_section_whose_prose_does_not_reference_its_block(doc):
    doc.host["attachments"] = [a for a in doc.host["attachments"] if a["block_id"] != "p14-t1"]
    # the descriptor still references it, but the section's prose no longer tells
    assert_fails(
        doc.evaluate("adr0006_01_section_with_lifted_block_but_no_chunk_reference"),
        ["p14-t1"],
        "lifted blocks whose section has no chunk referencing them",
        pages=(14,),
    )


def test_02_an_attachment_to_a_block_the_document_does_not_have(doc):
    doc.host["attachments"][1]["block_id"] = "p99-t7"
    assert_fails(
        doc.evaluate("adr0006_02_attachment_block_id_unknown"),
        [f"{doc.host['chunk_id']}[p99-t7]"],
        "attachments referencing a block this document does not have",
    )


@pytest.mark.parametrize(
    "field, value",
    [("bbox", [56.0, 300.0, 56.0, 420.0]), ("bbox", None), ("physical_page", None), ("physical_page", 0)],
)
def test_03_an_attachment_without_page_or_bbox(doc, field, value):
    doc.chunk(TABLE_DESC)["attachments"][0][field] = value
    assert_fails(
        doc.evaluate("adr0006_03_attachment_without_page_or_bbox"),
        [f"{TABLE_DESC}[p14-t1]"],
        "attachments without a physical page or a usable bbox",
    )


def test_04_one_table_row_pasted_into_prose_is_a_leak(doc):
    chunk = doc.holding("s014")
    chunk["text"] += "\n\n15 - 29   1,5 - 3 g mỗi 12 giờ"  # one row of the renal table, re-spaced
    assert_fails(
        doc.evaluate("adr0006_04_block_text_leaked_into_chunk_text"),
        [chunk["chunk_id"]],
        "chunks whose text contains a quarantined block's text",
        pages=(14,),
    )


def test_04_the_whole_formula_linearised_into_a_descriptor_is_a_leak(doc):
    desc = doc.chunk(FORMULA_DESC)
    desc["text"] += " " + FORMULA_TEXT.replace("\n", " ")
    assert_fails(
        doc.evaluate("adr0006_04_block_text_leaked_into_chunk_text"),
        [FORMULA_DESC],
        "chunks whose text contains a quarantined block's text",
    )


def test_04_prose_that_the_author_wrote_is_not_a_leak(doc):
    # the formula block repeats a prose sentence (a caption): the sentence is
    # in the canonical prose, so seeing it in a chunk proves nothing
    doc.block("p14-f1")["text"] = "Độ thanh thải creatinin ước tính theo công thức Cockcroft-Gault.\n" + FORMULA_TEXT
    # and short cells ("≥ 30") are too generic to attribute
    doc.holding("s014")["text"] += " Với Clcr ≥ 30 dùng liều thường."
    assert doc.evaluate("adr0006_04_block_text_leaked_into_chunk_text").passed is True


def test_04_without_canonical_text_only_whole_block_leaks_are_judged(doc):
    doc.parsed, doc.segments = None, []
    chunk = doc.holding("s014")
    chunk["text"] += "\n\n15 - 29   1,5 - 3 g mỗi 12 giờ"
    assert doc.evaluate("adr0006_04_block_text_leaked_into_chunk_text").passed is True
    chunk["text"] += "\n\n" + TABLE_TEXT
    assert doc.evaluate("adr0006_04_block_text_leaked_into_chunk_text").offending_ids == (chunk["chunk_id"],)


def test_05_a_missing_descriptor(doc):
    doc.chunks.remove(doc.chunk(FORMULA_DESC))
    assert_fails(
        doc.evaluate("adr0006_05_descriptor_chunk_count_equals_block_count"),
        ["p14-f1"],
        "blocks without exactly one descriptor chunk (3 blocks, 2 descriptor chunks)",
        pages=(14,),
    )


def test_05_a_duplicated_descriptor_and_one_for_an_unknown_block(doc):
    extra = copy.deepcopy(doc.chunk(TABLE_DESC))
    ghost = copy.deepcopy(doc.chunk(TABLE_DESC))
    ghost["chunk_id"] = f"{DOSING}:block:p77-t1"
    doc.chunks += [extra, ghost]
    assert_fails(
        doc.evaluate("adr0006_05_descriptor_chunk_count_equals_block_count"),
        ["p14-t1", "p77-t1"],
        "blocks without exactly one descriptor chunk (3 blocks, 5 descriptor chunks)",
    )


def test_06_a_descriptor_without_its_attachment(doc):
    desc = doc.chunk(TABLE_DESC)
    desc["attachments"] = copy.deepcopy(doc.chunk(FORMULA_DESC)["attachments"])  # the wrong block's
    assert_fails(
        doc.evaluate("adr0006_06_descriptor_chunk_without_attachment"),
        [TABLE_DESC],
        "descriptor chunks without their block's attachment",
        pages=(14,),
    )


def test_07_a_header_row_on_an_attachment(doc):
    doc.host["attachments"][0]["header_row"] = ["Clcr (ml/phút)", "Liều dùng"]
    assert_fails(
        doc.evaluate("adr0006_07_attachment_header_row_present"),
        [f"{doc.host['chunk_id']}[p14-t1]"],
        "attachments with a non-empty header_row (embargoed until verified)",
    )


@pytest.mark.parametrize(
    "text",
    [
        "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng (Clcr (ml/phút), Liều dùng), trang in 204.",
        "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 204. 1,5 - 3 g mỗi 12 giờ",
        "AMOXICILIN — Liều lượng và cách dùng — bảng, trang in 204.",
    ],
    ids=["header", "cell-value", "another-entry"],
)
def test_08_a_descriptor_with_anything_beyond_its_metadata(doc, text):
    doc.chunk(TABLE_DESC)["text"] = text
    assert_fails(
        doc.evaluate("adr0006_08_descriptor_with_unverified_columns"),
        [TABLE_DESC],
        "descriptor chunks whose text is not built from their block's metadata alone",
    )


def test_08_the_english_rendering_is_metadata_too(doc):
    doc.chunk(TABLE_DESC)["text"] = "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — table, printed page 204."
    assert doc.evaluate("adr0006_08_descriptor_with_unverified_columns").passed is True


@pytest.mark.parametrize(
    "text",
    [
        "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang in 205.",
        "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng, trang 14 của tệp.",  # it does print 204
        "AMPICILIN VÀ SULBACTAM — Liều lượng và cách dùng — bảng.",
    ],
    ids=["wrong-printed-page", "physical-page-although-printed", "no-page"],
)
def test_09_a_descriptor_naming_another_page(doc, text):
    doc.chunk(TABLE_DESC)["text"] = text
    assert_fails(
        doc.evaluate("adr0006_09_descriptor_range_not_attachment_page"),
        [TABLE_DESC],
        "descriptor chunks naming a page that is not their attachment's page",
    )


def test_10_a_block_on_a_page_that_prints_no_number():
    sample = formulary_document()
    sample.blocks[0] = dataclasses.replace(sample.blocks[0], printed_page=None)
    doc = stored(sample)
    host = doc.host["chunk_id"]
    assert doc.chunk(TABLE_DESC)["text"].endswith("bảng, trang 14 của tệp.")
    assert_fails(
        doc.evaluate("adr0006_10_attachment_without_printed_page"),
        [f"{host}[p14-t1]", f"{TABLE_DESC}[p14-t1]"],
        "attachments without a printed page (physical pages 14: not proven to print no number;"
        " the document's numbered pages are 13-15)",
        pages=(14,),
    )
    # the descriptor itself is honest about it: #8 and #9 hold
    assert doc.evaluate("adr0006_08_descriptor_with_unverified_columns").passed is True
    assert doc.evaluate("adr0006_09_descriptor_range_not_attachment_page").passed is True


# -- the chunk contract --------------------------------------------------------


def test_chunk_over_max_tokens_recounts_instead_of_trusting_token_count(doc):
    chunk = doc.holding("s017")
    chunk["text"] = chunk["text"] + (" thêm nội dung" * 200)  # token_count left at its old value
    assert_fails(
        doc.evaluate("chunk_over_max_tokens"),
        [chunk["chunk_id"]],
        "chunks over 512 cl100k tokens",
        pages=(15,),
    )


def test_chunk_spanning_two_sections_with_a_repeated_section_key(doc):
    # AMPICILIN's dosing chunk also built from AMOXICILIN's dosing paragraph:
    # same section_key, different section instance
    doc.host["source_elements"].append("s017")
    assert_fails(
        doc.evaluate("chunk_spans_two_sections"),
        [doc.host["chunk_id"]],
        "chunks whose source elements are not all in the chunk's one section",
    )


def test_chunk_with_an_unknown_source_element_cannot_prove_its_section(doc):
    desc = doc.chunk(TABLE_DESC)
    desc["source_elements"] = ["p404"]
    assert_fails(
        doc.evaluate("chunk_spans_two_sections"),
        [TABLE_DESC],
        "chunks whose source elements are not all in the chunk's one section",
    )


@pytest.mark.parametrize(
    "breakage",
    ["shifted-span", "span-past-the-end", "injected-text", "reordered-spans", "no-spans"],
)
def test_span_does_not_resolve(doc, breakage):
    chunk = doc.holding("s012")
    spans = chunk["spans"]
    if breakage == "shifted-span":
        spans[1]["offset"] += 5
    elif breakage == "span-past-the-end":
        spans[-1]["length"] = len(doc.parsed["canonical_text"])
    elif breakage == "injected-text":  # text no span accounts for: content that is not the document's
        chunk["text"] = chunk["text"].replace("\n\nNgười lớn:", "\n\nLiều tối đa 12 g/ngày. Người lớn:")
    elif breakage == "reordered-spans":
        spans[1], spans[2] = spans[2], spans[1]
    else:
        chunk["spans"] = []
    assert_fails(
        doc.evaluate("span_does_not_resolve"),
        [chunk["chunk_id"]],
        "chunks whose spans do not resolve to their text",
        pages=(14,),
    )


def test_span_does_not_resolve_without_a_stored_canonical_text(doc):
    doc.parsed = None
    result = doc.evaluate("span_does_not_resolve")
    prose = [c["chunk_id"] for c in doc.chunks if c["chunk_kind"] != "block_descriptor"]
    assert result.passed is False and result.count == len(prose)
    assert "(the document's canonical text is not stored)" in result.message


def test_prev_next_chain_broken_by_a_wrong_link(doc):
    a = doc.chunks[3]
    a["next_chunk_id"] = doc.chunks[5]["chunk_id"]
    assert_fails(
        doc.evaluate("prev_next_chain_broken"),
        [a["chunk_id"]],
        "chunks whose prev/next links or chunk_index break the chain",
    )


def test_prev_next_chain_broken_by_a_missing_chunk(doc):
    removed = doc.chunks.pop(6)
    result = doc.evaluate("prev_next_chain_broken")
    assert result.passed is False
    assert doc.chunks[5]["chunk_id"] in result.offending_ids  # its next is gone
    assert doc.chunks[6]["chunk_id"] in result.offending_ids  # index gap, prev is gone
    assert removed["chunk_id"] not in result.offending_ids


def test_schema_version_mismatch(doc):
    doc.chunks[2]["schema_version"] = SCHEMA_VERSION - 1
    assert_fails(
        doc.evaluate("schema_version_mismatch"),
        [doc.chunks[2]["chunk_id"]],
        f"chunk rows with a schema_version other than {SCHEMA_VERSION} (found {SCHEMA_VERSION - 1})",
    )


def test_segment_not_covered_when_a_chunk_is_dropped(doc):
    doc.chunks.remove(doc.holding("s017"))
    assert_fails(
        doc.evaluate("segment_not_covered_by_chunks"),
        ["s016", "s017"],
        "segments with text no chunk covers",
        pages=(15,),
    )


def test_segment_not_covered_when_a_split_leaves_a_gap(doc):
    pieces = [c for c in doc.chunks if "s009" in c["source_elements"]]
    middle = pieces[2]
    (span,) = middle["spans"]
    span["length"] //= 2  # a later piece overlaps only its tail: the middle is lost
    pieces[3]["spans"][0]["offset"] += 200
    pieces[3]["spans"][0]["length"] -= 200
    assert_fails(doc.evaluate("segment_not_covered_by_chunks"), ["s009"], "segments with text no chunk covers")


@pytest.mark.parametrize("field", ["content_hash", "has_quarantined_content", "token_count", "chunk_id", "doc_id"])
def test_chunk_derived_field_mismatch(doc, field):
    chunk = doc.host
    original = chunk["chunk_id"]
    if field == "content_hash":
        chunk["text"] += " "
    elif field == "has_quarantined_content":
        chunk["has_quarantined_content"] = False
    elif field == "token_count":
        chunk["token_count"] += 1
    elif field == "chunk_id":
        chunk["chunk_id"] = original.replace(":13", ":12") if original.endswith(":13") else original + "0"
    else:
        chunk["doc_id"] = "another-document"
    assert_fails(
        doc.evaluate("chunk_derived_field_mismatch"),
        [chunk["chunk_id"]],
        "chunks whose content_hash, has_quarantined_content, token_count, doc_id or chunk_id disagree with their data",
    )


# -- evidence shape --------------------------------------------------------------


def test_offending_ids_are_capped_at_twenty_and_counted_in_full():
    # pages 1 and 26 print a number, so the unnumbered pages 1..25 of the blocks offend
    raw = [
        Segment("s001", SegmentKind.HEADING, "THUỐC", level=1, page_no=1, printed_page=1, bbox=(0, 0, 9, 9)),
        Segment("s002", SegmentKind.PARAGRAPH, "Hết.", page_no=26, printed_page=26, bbox=(0, 0, 9, 9)),
    ]
    blocks = [
        LiftedBlock(f"b{k:02d}", BlockKind.TABLE, BlockShape.SIMPLE_TABLE, k + 1, None, (0, 0, 10, 10), anchor_segment_id="s001")
        for k in range(25)
    ]
    doc = stored(build_document(raw, blocks))
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and result.count == 50  # each block on its host and its descriptor
    assert len(result.offending_ids) == MAX_LISTED_IDS
    assert result.message.endswith(" …")
    assert result.pages == tuple(range(1, 26))


def test_a_generic_document_that_prints_no_page_numbers_cites_physical_pages():
    raw = [Segment("s001", SegmentKind.HEADING, "REPORT", level=1, page_no=1, printed_page=None, bbox=(0, 0, 9, 9))]
    blocks = [LiftedBlock("b01", BlockKind.TABLE, BlockShape.SIMPLE_TABLE, 1, None, (0, 0, 10, 10), anchor_segment_id="s001")]
    doc = stored(build_document(raw, blocks))
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is True and "prints no page numbers" in result.message


def test_10_a_one_page_document_that_is_one_table_cites_its_physical_page():
    """No prose at all (camelot__medicine.pdf, font_04_vietnamese_table.pdf:
    the page is its table): the parse saw the whole page and found no number
    on it, so the physical page is the page a reader has. The same page with a
    number the parse set aside as page-label furniture still blocks."""
    blocks = [LiftedBlock("b01", BlockKind.TABLE, BlockShape.SIMPLE_TABLE, 1, None, (0, 0, 10, 10))]
    doc = stored(build_document([], blocks))
    assert doc.segments == [] and doc.parsed is not None
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is True and "prints no page numbers" in result.message, result.message
    doc.parsed["furniture"] = [{"page_no": 1, "kind": "page_label", "text": "7", "bbox": [0, 780, 9, 790]}]
    blocked = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert blocked.passed is False and blocked.pages == (1,)
    assert "attachments without a printed page (physical pages 1: not proven to print no number;" \
           " page 1 prints '7' as page-label furniture, not verified as its page number" in blocked.message


def paper(block_page: int, label_furniture_on: tuple[int, ...] = ()) -> Doc:
    """A generic three-page paper whose first page prints no number (pages 2
    and 3 print 2 and 3), with one lifted formula on ``block_page``."""
    raw = [
        Segment(f"s00{p}", SegmentKind.HEADING if p == 1 else SegmentKind.PARAGRAPH, f"Part {p}", level=1 if p == 1 else 0,
                page_no=p, printed_page=None if p == 1 else p, printed_label="" if p == 1 else str(p), bbox=(0, 0, 9, 9))
        for p in (1, 2, 3)
    ]
    printed = None if block_page == 1 else block_page
    blocks = [
        LiftedBlock("f01", BlockKind.FORMULA, BlockShape.FORMULA_2D, block_page, printed, (0, 20, 10, 30),
                    anchor_segment_id=f"s00{block_page}")
    ]
    doc = stored(build_document(raw, blocks))
    doc.parsed["furniture"] = [
        {"page_no": p, "kind": "page_label", "text": str(p), "bbox": [0, 780, 9, 790]} for p in label_furniture_on
    ]
    return doc


def test_10_a_formula_on_a_papers_unnumbered_first_page_cites_its_physical_page():
    doc = paper(block_page=1, label_furniture_on=(2, 3))
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is True
    assert result.message == (
        "attachments on pages 1 cite the physical page: those pages lie outside the numbered pages (2-3)"
        " and print no number"
    )
    descriptor = next(c for c in doc.chunks if c["chunk_kind"] == "block_descriptor")
    assert descriptor["text"].endswith("trang 1 của tệp.")  # the sample is Vietnamese: "page 1 of the file"
    assert doc.evaluate("adr0006_09_descriptor_range_not_attachment_page").passed is True


def test_10_an_unnumbered_first_page_that_records_its_page_label_offends():
    # the parse kept page 1's page-label furniture, yet the attachment lost its printed page
    doc = paper(block_page=1, label_furniture_on=(1, 2, 3))
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and result.pages == (1,)
    assert (
        "(physical pages 1: not proven to print no number; page 1 prints '1' as page-label furniture, not verified as"
        " its page number: it continues the numbering (page 2 is printed 2), yet the page has no printed page;"
        " the document's numbered pages are 2-3)"
    ) in result.message


def test_10_a_block_after_the_first_numbered_page_without_its_printed_page_offends():
    doc = paper(block_page=3)
    for row in doc.chunks:
        for attachment in row.get("attachments") or []:
            attachment["printed_page"], attachment["printed_label"] = None, ""
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and result.count == 2 and result.pages == (3,)
    assert "(physical pages 3: not proven to print no number; the document's numbered pages are 2-3)" in result.message


def test_10_a_trailing_page_whose_number_was_left_in_prose_offends():
    # code_and_formula's shape: page 3 prints "1" at its foot, read as a paragraph
    doc = paper(block_page=1)
    doc.segments.append({**doc.segments[-1], "segment_id": "s009", "kind": "paragraph", "text": "1", "page_no": 4,
                         "printed_page": None, "printed_label": ""})
    for row in doc.chunks:
        for attachment in row.get("attachments") or []:
            attachment["physical_page"] = 4
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and result.pages == (4,)
    assert (
        "page 4 prints '1' as a paragraph of prose, not verified as its page number (a page number left in a chunk's text)"
    ) in result.message


def test_10_a_lone_number_with_the_pages_text_over_and_under_it_is_no_page_number():
    """dpr p. 5: a figure's axis ticks (``90``, ``80``) read as paragraphs
    in the middle of the page are not a page number left in prose; the
    same number at the foot of the page still is."""
    doc = paper(block_page=1)
    base = doc.segments[0]
    doc.segments += [
        {**base, "segment_id": "s007", "kind": "paragraph", "text": "Above the figure.", "level": 0, "bbox": (0, 100, 200, 110)},
        {**base, "segment_id": "s008", "kind": "paragraph", "text": "90", "level": 0, "bbox": (300, 300, 310, 308)},
        {**base, "segment_id": "s009", "kind": "paragraph", "text": "Under the figure.", "level": 0, "bbox": (0, 500, 200, 510)},
    ]
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is True, result.message
    doc.segments[-1] = {**doc.segments[-1], "text": "90", "bbox": (290, 780, 305, 790)}  # now the page's last line
    doc.segments[-2] = {**doc.segments[-2], "text": "The figure's caption."}
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and "page 1 prints '90' as a paragraph of prose" in result.message, result.message


def _furniture_number_on_block_page(doc: Doc, page: int, text: str, numbered: dict[int, str]) -> None:
    """The block on ``page`` lost its printed page; ``page`` prints ``text``
    as page-label furniture; the verified labels are ``numbered``."""
    for row in doc.chunks:
        for attachment in row.get("attachments") or []:
            attachment["physical_page"], attachment["printed_page"], attachment["printed_label"] = page, None, ""
    for segment in doc.segments:
        label = numbered.get(segment["page_no"], "")
        segment["printed_page"], segment["printed_label"] = (int(label) if label else None), label
    doc.parsed["page_labels"] = [numbered.get(p, "") for p in range(1, 4)]
    doc.parsed["page_count"] = 3
    doc.parsed["furniture"] = [{"page_no": page, "kind": "page_label", "text": text, "bbox": [0, 780, 9, 790]}]


@pytest.mark.parametrize(
    "page, text, numbered, why",
    [
        # code_and_formula: two pages each print "1" at the same place
        (3, "1", {1: "1"}, "page 3 prints '1' as page-label furniture, not verified as its page number: page 1 prints it too"),
        (3, "7", {2: "2"}, "page 3 prints '7' as page-label furniture, not verified as its page number: it does not"
                            " continue the numbering (page 2 is printed 2, so page 3 would be 3)"),
        # case_03 without its page 2: "68" alone
        (1, "68", {}, "page 1 prints '68' as page-label furniture, not verified as its page number: no other page prints"
                      " a number that continues it (a lone number on a 3-page document is no proof)"),
    ],
    ids=["repeated", "off-sequence", "lone"],
)
def test_10_says_why_a_printed_number_is_not_the_page_number(page, text, numbered, why):
    doc = paper(block_page=1)
    _furniture_number_on_block_page(doc, page, text, numbered)
    result = doc.evaluate("adr0006_10_attachment_without_printed_page")
    assert result.passed is False and result.pages == (page,)
    assert why in result.message, result.message


def test_10_a_printed_label_that_is_not_a_number_is_a_printed_page():
    doc = paper(block_page=3)
    for row in doc.chunks:
        for attachment in row.get("attachments") or []:
            attachment["printed_page"], attachment["printed_label"] = None, "A-3"
    assert doc.evaluate("adr0006_10_attachment_without_printed_page").passed is True


def test_needle_search_finds_every_occurrence_of_a_long_enough_needle():
    needles = ["1,5 - 3 g mỗi 12 giờ", "Clcr (ml/phút) = 72"]
    text = "x" * 37 + needles[1] + "y" * 11 + needles[0]
    for shift in range(7):
        assert NeedleSet(needles).found_in("z" * shift + text) == {0, 1}
    assert NeedleSet(needles).found_in("1,5 - 3 g mỗi 12 gi") == set()
    with pytest.raises(ValueError):
        NeedleSet(["short"])
