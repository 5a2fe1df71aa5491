"""One document never fails the others (found ingesting the corpus's
``groundtruth/`` folder): leak_02 looked for figure labels by opening a CSV's
bytes as a PDF; the rule raised, the checks step raised with it, and all 14
documents of the run were reported ``failed`` with one CSV's "damaged PDF".
Now a rule that raises fails that document's check, named, and the others
go on; leak_02 reads a PDF's pages only for a PDF, and no flattened-formula
window on cells as typed. Text files that are markup or JSON are refused,
not cut at their commas into a table."""

from __future__ import annotations


import pytest

import checks.leaks
from checks.leaks import flattened_math_in_prose
from checks.rules import DocumentRows, Rule, RuleResult
from duocthu_assets.formats import detect_format, refusal_reason
from duocthu_assets.model import Format

from tests.support.paths import CORPUS
from tests.support.ingest import ingest_inbox
from tests.support.docgen import make_docx

# a report's title rows over its table: cells mostly empty (budget.pdf's camelot benchmark CSV)
TITLED_CSV = (
    '"","Budget Provisions, net of receipts and recoveries, for the year 2014-2015 are as under.","","","","","",""\n'
    '"","Further details are on pages indicated in the last column of this Statement","","","","","",""\n'
    '"Budget 2014-2015","","","","","","",""\n'
    '"","","","","","","(In crores of Rupees)",""\n'
    '"Ministry","Plan","Non-Plan","Total","Plan","Non-Plan","Total","Page"\n'
    '"Agriculture","1,200","340","1,540","1,100","320","1,420","12"\n'
    '"Health","2,310","880","3,190","2,150","860","3,010","14"\n'
).encode()


def test_a_rule_that_raises_fails_its_document_with_the_error():
    def boom(rows: DocumentRows) -> RuleResult:
        raise RuntimeError("cannot read page 3")

    seen = []
    rule = Rule.of("leak_99_example", "chunks", boom, ())
    result = rule.apply(DocumentRows("d"), seen.append)
    assert not result.passed and [type(e) for e in seen] == [RuntimeError]
    assert result.message.startswith("the rule could not be evaluated on this document (RuntimeError: cannot read page 3)")


def test_leak_02_reads_no_pdf_pages_for_a_csv():
    """The crash itself: a CSV's prose chunk with a run of empty cells
    (``| | | |``) made leak_02 look for figure labels on the CSV's "pages"."""
    chunk = {"chunk_id": "b:body:0", "chunk_kind": "prose", "text": "| Budget 2014-2015 |  |  |  |  |  |  | (In crores of Rupees)", "regions": []}
    result = flattened_math_in_prose(DocumentRows("b", raw={"format": "csv"}, chunks=[chunk], source=TITLED_CSV))
    assert result.passed, result.message


@pytest.mark.slow
def test_one_document_whose_rule_raises_stops_only_itself(tmp_path, monkeypatch):
    """Through ``duocthu ingest``: leak_02 raises on one DOCX's text; that
    document is blocked by leak_02 with the error named, the other DOCX and
    the titled CSV are ok (before: every document of the run ``failed``
    with the one error)."""
    real = checks.leaks.flattened_math

    def fragile(text, *args):
        if "Zymoprotein" in text:
            raise ValueError("a page that cannot be read")
        return real(text, *args)

    monkeypatch.setattr(checks.leaks, "flattened_math", fragile)
    bad, good = tmp_path / "bad.docx", tmp_path / "good.docx"
    make_docx(bad, [("Liều dùng", ["Zymoprotein 500 mg mỗi ngày, chia hai lần, uống sau bữa ăn."])])
    make_docx(good, [("Liều dùng", ["Amoxicilin 500 mg mỗi ngày, chia hai lần, uống sau bữa ăn."])])
    docs = ingest_inbox(tmp_path, {"bad.docx": bad.read_bytes(), "good.docx": good.read_bytes(), "budget.csv": TITLED_CSV})["docs"]
    assert docs["good.docx"]["status"] == "ok" and docs["budget.csv"]["status"] == "ok", docs
    blocked = docs["bad.docx"]
    assert blocked["status"] == "blocked" and blocked["failed_checks"] == ["leak_02_flattened_math_in_prose"], blocked
    assert "could not be evaluated on this document (ValueError: a page that cannot be read)" in blocked["reason"]


@pytest.mark.parametrize(
    "text, what",
    [
        (b'<?xml version="1.0"?>\n<document><table id="1"><cell start-row="0">Total, 12</cell></table></document>', "XML or HTML markup"),
        (b"<!DOCTYPE html>\n<html><body><table><tr><td>a, b</td></tr></table></body></html>", "XML or HTML markup"),
        (b'{"tables": [{"cells": ["a", "b"]}], "pages": 4}', "JSON"),
        (b'[{"drug": "Ampicilin", "dose": "1 g"}]', "JSON"),
    ],
)
def test_markup_and_json_are_refused_not_read_as_a_csv(text, what):
    fmt = detect_format(text)
    assert fmt is Format.UNKNOWN
    assert refusal_reason(fmt, text).startswith(f"unsupported format: {what}, not a CSV table")


@pytest.mark.parametrize("text", [b"[In thousands],2019,2020\nRevenue,1,2\n", b"drug,dose\n<50 kg,10 mg/kg\n", TITLED_CSV])
def test_csv_that_opens_with_a_bracket_or_holds_a_less_than_is_a_csv(text):
    assert detect_format(text) is Format.CSV


@pytest.mark.corpus
@pytest.mark.slow
def test_the_corpus_ground_truth_folder_stops_no_document(tmp_path):
    """``groundtruth/``: its CSVs ingest ok, its XML, HTML and JSON files are
    refused as such (each run reported 14 documents ``failed`` with one
    CSV's "damaged PDF" before)."""
    folder = CORPUS / "groundtruth"
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.suffix in (".csv", ".xml", ".json", ".html")}
    docs = ingest_inbox(tmp_path, files)["docs"]
    assert {d["status"] for name, d in docs.items() if name.endswith(".csv")} == {"ok"}, docs
    refused = {name: d["reason"] for name, d in docs.items() if not name.endswith(".csv")}
    assert refused and all(r.startswith("unsupported format: ") for r in refused.values()), refused
    assert {docs[n]["status"] for n in refused} == {"rejected"}
