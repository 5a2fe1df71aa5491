"""The OCR bench's synthetic scans (bench/ocr_scans.py): seeded, within
the issue's ranges, image only, and the truth read from the text layer."""

from __future__ import annotations


import pymupdf

from tests.support.paths import corpus_path
from tests.support.scripts import load_bench



SCANS = load_bench("ocr_scans")


def _page_pdf() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.insert_text((20, 50), "Article 11. Circular 06/2024/TT-BCT", fontname="helv", fontsize=11)
    return doc


def test_the_degradation_is_seeded_and_within_the_issue_ranges():
    params = [SCANS.scan_params("x.pdf", n) for n in range(1, 40)]
    assert all(p["dpi"] in (200, 250, 300) for p in params)
    assert all(0.3 <= abs(p["angle"]) <= 1.5 for p in params)
    assert {p["angle"] > 0 for p in params} == {True, False}
    assert SCANS.scan_params("x.pdf", 3) == SCANS.scan_params("x.pdf", 3) != SCANS.scan_params("x.pdf", 3, seed=40)


def test_the_same_page_and_seed_give_the_same_image_only_pdf():
    doc = _page_pdf()
    params = SCANS.scan_params("x.pdf", 1)
    one = SCANS.image_only_pdf(SCANS.degrade(doc[0], params), 300, 200)
    two = SCANS.image_only_pdf(SCANS.degrade(doc[0], params), 300, 200)
    assert one == two
    scan = pymupdf.open(stream=one, filetype="pdf")
    assert scan[0].get_text().strip() == ""
    assert len(scan[0].get_images()) == 1


def test_the_truth_is_the_text_layer():
    assert SCANS.layer_truth(_page_pdf()[0]).strip() == "Article 11. Circular 06/2024/TT-BCT"


def test_a_footnote_mark_stays_a_superscript_in_the_truth():
    with pymupdf.open(corpus_path("vn__an_le_so_43-2021-AL.pdf")) as doc:
        truth = SCANS.layer_truth(doc[0])
    assert "43/2021/AL¹" in truth  # not the number 43/2021/AL1


def test_a_hand_transcription_loses_its_markers_and_cell_separators():
    raw = "[stamp] ĐẾN\n[table]\nA | 1 |  | 2023 - 2024\n[/table]\n[handwriting] [?]"
    assert SCANS.truth_text(raw).split() == ["ĐẾN", "A", "1", "2023", "-", "2024"]
