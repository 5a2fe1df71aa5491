"""The blocking rule on OCR'd chunks (checks/ocr.py), proven on the real
chunker's output and shown able to fail: a chunk that lost an uncertain
word, spans that do not fit the text, provenance lost."""

from __future__ import annotations

import copy

from checks.ocr import OCR_RULES
from checks.rules import DocumentRows
from duocthu_assets.chunking import build_chunks
from duocthu_assets.model import Segment, SegmentKind, Span, TextSource
from duocthu_assets.parse.canonical import assemble
from duocthu_assets.parse.structure import assign_sections
from duocthu_assets.rows import to_row
from duocthu_assets.settings import Settings

RULE = OCR_RULES[0]
TEXT = "Căn cứ Nghị định số 96/2022/NĐ-CP ngày 29 tháng ] 1 năm 2022 của Chính phủ"


def _rows() -> DocumentRows:
    at = TEXT.index("] 1")
    segments = [
        Segment("s00001", SegmentKind.PARAGRAPH, TEXT, page_no=1, bbox=(72, 100, 500, 130), source_ref="pdf:p1",
                text_source=TextSource.OCR, uncertain_spans=(Span(at, 3),)),
        Segment("s00002", SegmentKind.PARAGRAPH, "Điều 1. Phạm vi điều chỉnh", page_no=1, bbox=(72, 140, 500, 160),
                source_ref="pdf:p1", text_source=TextSource.OCR),
    ]
    _, segments = assemble(assign_sections(segments))
    chunks = build_chunks("d.pdf", segments, [], {}, Settings())
    return DocumentRows("d.pdf", segments=[to_row(s, "d.pdf") for s in segments], chunks=[to_row(c, "d.pdf") for c in chunks])


def test_the_chunkers_output_passes_and_marks_the_doubtful_number():
    rows = _rows()
    result = RULE.apply(rows)
    assert result.passed, result.message
    chunk = rows.chunks[0]
    assert chunk["text_source"] == "ocr"
    spans = [chunk["text"][s["offset"] : s["offset"] + s["length"]] for s in chunk["uncertain_spans"]]
    assert spans == ["] 1"]


def test_a_chunk_that_lost_an_uncertain_word_fails():
    rows = _rows()
    broken = copy.deepcopy(rows.chunks)
    broken[0]["uncertain_spans"] = []
    result = RULE.apply(DocumentRows("d.pdf", segments=rows.segments, chunks=broken))
    assert not result.passed and result.count == 1 and result.offending_ids == (broken[0]["chunk_id"],)
    assert "could show a number OCR was unsure of" in result.message
    assert "words read below the confidence floor stand outside its uncertain spans: ['] 1']" in result.message


def test_spans_that_do_not_fit_the_text_fail():
    rows = _rows()
    broken = copy.deepcopy(rows.chunks)
    broken[0]["uncertain_spans"] = [{"offset": len(broken[0]["text"]) - 2, "length": 5}]
    result = RULE.apply(DocumentRows("d.pdf", segments=rows.segments, chunks=broken))
    assert not result.passed and "do not fit its text" in result.message


def test_an_ocr_chunk_that_says_layer_fails():
    rows = _rows()
    broken = copy.deepcopy(rows.chunks)
    broken[0]["text_source"] = "layer"
    result = RULE.apply(DocumentRows("d.pdf", segments=rows.segments, chunks=broken))
    assert not result.passed and "its segments were read by OCR but it says text_source layer" in result.message


def test_a_word_certain_in_one_segment_and_uncertain_in_the_next_passes():
    """The same words read twice (a preamble repeats a title): each segment's
    doubt is looked for where that segment stands in the chunk."""
    first = "Thỏa thuận thúc đẩy thương mại song phương"
    second = "Thực hiện Bản Thỏa thuận thúc đẩy thương mại song phương"
    segments = [
        Segment("s00001", SegmentKind.PARAGRAPH, first, page_no=1, bbox=(72, 100, 500, 130), text_source=TextSource.OCR),
        Segment("s00002", SegmentKind.PARAGRAPH, second, page_no=1, bbox=(72, 140, 500, 160), text_source=TextSource.OCR,
                uncertain_spans=(Span(second.index("đẩy"), 3),)),
    ]
    _, segments = assemble(assign_sections(segments))
    chunks = build_chunks("d.pdf", segments, [], {}, Settings())
    rows = DocumentRows("d.pdf", segments=[to_row(s, "d.pdf") for s in segments], chunks=[to_row(c, "d.pdf") for c in chunks])
    assert RULE.apply(rows).passed


# -- adr0006_10 on pages read by OCR: only page numbers read with certainty count --


def _ocr_paper(foot: str, uncertain: bool) -> DocumentRows:
    """Three scanned pages printed 1, 2, 3; OCR read page 2's folio as
    ``foot`` (in doubt when ``uncertain``), so the parse could not verify it,
    and page 2 holds a lifted formula."""
    from duocthu_assets.model import BlockKind, BlockShape, LiftedBlock
    from tests.support.chunk_samples import FORMULARY, build_document, rows_of

    ocr = {"text_source": TextSource.OCR, "source_ref": "pdf:p1"}
    raw = [
        Segment("s001", SegmentKind.HEADING, "Phần 1", level=1, page_no=1, printed_page=1, printed_label="1", bbox=(0, 0, 9, 9), **ocr),
        Segment("s002", SegmentKind.PARAGRAPH, "Phần 2", page_no=2, bbox=(0, 0, 9, 9), **ocr),
        Segment("s003", SegmentKind.PARAGRAPH, foot, page_no=2, bbox=(300, 780, 310, 790),
                uncertain_spans=(Span(0, len(foot)),) if uncertain else (), **ocr),
        Segment("s004", SegmentKind.PARAGRAPH, "Phần 3", page_no=3, printed_page=3, printed_label="3", bbox=(0, 0, 9, 9), **ocr),
    ]
    blocks = [LiftedBlock("f01", BlockKind.FORMULA, BlockShape.FORMULA_2D, 2, None, (0, 20, 10, 30), anchor_segment_id="s002")]
    doc = build_document(raw, blocks)
    return DocumentRows("d.pdf", parsed={"doc_id": "d.pdf", "canonical_text": doc.canonical, "pages_ocr": [1, 2, 3]},
                        segments=rows_of(doc.segments, "segments"), blocks=rows_of(doc.blocks, "lifted_blocks"),
                        chunks=rows_of(doc.chunks(FORMULARY), "chunks"))


def _adr0006_10():
    from checks.adr0006 import ADR0006_RULES

    return next(r for r in ADR0006_RULES if r.name == "adr0006_10_attachment_without_printed_page")


def test_10_a_page_number_ocr_read_in_doubt_is_no_evidence_against_the_numbering():
    rule = _adr0006_10()
    result = rule.evaluate(_ocr_paper("2", uncertain=True))
    assert result.passed, result.message
    assert result.message == ("attachments on pages 2 cite the physical page: those pages were read by OCR and their printed"
                              " number only in doubt (no evidence against the numbering)")
    assert "only page numbers read with certainty count" in rule.description  # the check's metadata says so


def test_10_a_page_number_ocr_read_wrong_with_certainty_still_blocks():
    result = _adr0006_10().evaluate(_ocr_paper("7", uncertain=False))
    assert result.passed is False and result.pages == (2,)
    assert "page 2 prints '7' as a paragraph of prose, not verified as its page number" in result.message, result.message


def test_10_the_same_folio_read_with_certainty_but_unverified_still_blocks():
    result = _adr0006_10().evaluate(_ocr_paper("2", uncertain=False))
    assert result.passed is False and result.pages == (2,)
