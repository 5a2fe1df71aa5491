"""What ``leak_02`` says about a prose chunk it blocks (issue 15 item 5):
formula fragments, an unreadable text-layer line or symbol runs, with the
chunk id and pages; and a figure's labels, read as printed, are not math."""

from __future__ import annotations

import pytest

from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows
from duocthu_assets.parse.pdf.audit.figures import figure_labels
from duocthu_assets.parse.pdf.audit.flattened_math import flattened_math, flattened_window
from duocthu_assets.parse.pdf.records import Fragment

from tests.support.paths import CORPUS

GARBLED = "Specifies that the row permission is to be initially disabled ifi th t th i i i t b i iti ll di bl d"
SQL = "THEN ( 9999 || '-' || MONTH ( EMPLOYEES . DATE_OF_BIRTH ) || '-' || DAY (EMPLOYEES.DATE_OF_BIRTH ))"
MATH = "Tổng ∑ n+1 i=1 x 2 i = 1 , ∏ k j=1 y j ≤ 1"
LABELS = "Source MRIs and Treatments MRIs Tumor masks s1 s2 s3 Noise f f s3 s2 s1 T1 Fig. 1. An overview"


@pytest.mark.parametrize(
    "text, kind",
    [
        (GARBLED, "unreadable text-layer line (words broken into letters): ifi th t th i i i t b i"),
        (SQL, "symbol runs (code or flattened math): "),
        (MATH, "formula fragments: Tổng ∑ n+1 i=1 x 2 i = 1"),
    ],
)
def test_the_message_says_what_the_run_is(text, kind):
    assert flattened_math(text).startswith(kind)


def _chunk(chunk_id: str, text: str, *pages: int) -> dict:
    return {"chunk_id": chunk_id, "chunk_kind": "prose", "text": text,
            "regions": [{"page_no": p, "printed_page": None, "bbox": (0, 0, 1, 1)} for p in pages]}


def test_every_offender_is_named_with_its_pages_and_kind():
    rows = DocumentRows("d", chunks=[_chunk("d:a:1", GARBLED, 10), _chunk("d:b:2", MATH, 12, 13), _chunk("d:c:3", "Plain prose.", 14)])
    result = flattened_math_in_prose(rows)
    assert result.passed is False and result.offending_ids == ("d:a:1", "d:b:2") and result.pages == (10, 12, 13)
    assert result.message.startswith("2 chunks holding flattened math, an unreadable text layer or misencoded text: d:a:1, d:b:2 — ")
    assert "p10 d:a:1: unreadable text-layer line (words broken into letters): ifi th" in result.message
    assert "p12-13 d:b:2: formula fragments: Tổng ∑ n+1" in result.message


def _line(text: str, x0: float, y0: float) -> Fragment:
    return Fragment((), (x0, y0, x0 + 6 * len(text), y0 + 6), 0, text)


def test_labels_over_a_figures_images_are_figure_labels():
    window = flattened_window(LABELS)
    labels = [_line("Tumor masks", 464, 57)] + [_line(t, 95 + 38 * k, 67) for k, t in enumerate(["s1", "s2", "s3", "Noise", "f", "f", "s3", "s2"])]
    images = [(80 + 38 * k, 75, 117 + 38 * k, 112) for k in range(13)]  # a row of scans under the labels
    assert figure_labels(labels, images, window) is True
    # the same lines with no image near them (a display flattened into prose): not labels
    assert figure_labels(labels, [], window) is False
    assert figure_labels(labels, [(80, 400, 117, 440)], window) is False


STREAM = CORPUS / "doclingparse__stream_parameter_misinterpretation_01.pdf"


@pytest.mark.skipif(not STREAM.exists(), reason="corpus not present")
def test_a_figures_labels_on_a_real_page_pass_and_are_named():
    data = STREAM.read_bytes()
    chunk = _chunk("s:body:0", LABELS, 1)
    result = flattened_math_in_prose(DocumentRows("s", chunks=[chunk], source=data))
    assert result.passed is True
    assert "figure labels read as printed, not math: p1 s:body:0: Tumor masks s1 s2 s3" in result.message
    # planted: the same run on page 2, where no figure is, still blocks
    moved = flattened_math_in_prose(DocumentRows("s", chunks=[_chunk("s:body:9", LABELS, 2)], source=data))
    assert moved.passed is False and moved.offending_ids == ("s:body:9",)
