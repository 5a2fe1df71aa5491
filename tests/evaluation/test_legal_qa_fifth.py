"""eval/legal_qa_fifth (issue 40 item 7): the fifth held-out legal set holds
against the documents, read by eval/legal_qa_fresh's checker with this set's
settings; its own settings (ids l5NNN, text-layer documents only, the
minimums) are enforced. The mistakes are fed as made-up records, so no
held-out question is printed."""

from __future__ import annotations

import pytest

from tests.support.paths import CORPUS
from tests.support.scripts import load_checker

CIVIL_CODE = "vn__bo_luat_dan_su_91-2015-QH13.docx"


@pytest.fixture(scope="module")
def checker():
    return load_checker("legal_qa_fifth")


def test_the_set_holds(checker, capsys):
    if not (CORPUS / CIVIL_CODE).is_file():
        pytest.skip(f"no legal documents under {CORPUS}")
    assert checker.main(["--corpus", str(CORPUS)]) == 0
    assert ", 0 problem(s)" in capsys.readouterr().out


def test_the_fresh_sets_checker_keeps_its_own_settings(checker):
    fresh = load_checker("legal_qa_fresh")
    assert fresh.ID.pattern == r"lf\d{3}" and fresh.MINIMUM_TOTAL == 90 and fresh.SCANNED
    assert checker.RULES.ID.pattern == r"l5\d{3}" and checker.RULES.MINIMUM_TOTAL == 80
    assert checker.RULES.SCANNED == () and CIVIL_CODE in checker.RULES.DOCUMENTS


def test_an_id_of_another_set_is_named(checker):
    record = {"id": "lt001", "query": "Điều 999 Bộ luật Dân sự 2015", "kind": "missing_unit", "twin_of": None,
              "answers": [], "passage": None, "split": "held_out",
              "cites": {"document": CIVIL_CODE, "unit": "Điều 999"}}
    problems = checker.RULES.check([record], {CIVIL_CODE: {"Điều 1": "Điều 1."}})
    assert "lt001: id is not l5NNN" in problems


def test_a_question_on_a_scan_is_refused(checker):
    scan = "vnlaw__59-nd.signed.pdf"
    record = {"id": "l5001", "query": "Điều 3 Nghị định 59/2022", "kind": "citation", "twin_of": None,
              "answers": [{"document": scan, "unit": "Điều 3"}], "passage": "Điều 3.", "split": "held_out",
              "scan": True}
    problems = checker.RULES.check([record], {CIVIL_CODE: {"Điều 1": "Điều 1."}})
    assert f"l5001: unknown document {scan}" in problems
    assert "l5001: 'scan': true must mark exactly the questions on scanned documents" in problems


def test_too_few_questions_is_named(checker):
    problems = checker.RULES.check_mix([])
    assert "0 questions on text-layer documents; at least 80" in problems
    assert "scenario: 0 questions; at least 16" in problems
    assert "missing_unit: 0 questions; at least 3" in problems
    assert "citation: 0 questions; at least 10" in problems
    assert not any("scanned documents" in p for p in problems)
