"""eval/legal_qa_fourth and eval/legal_qa_fifth (issue 40 item 7): each
held-out legal set holds against the documents, read by eval/legal_qa_fresh's
checker with that set's settings; its own settings (ids l4NNN / l5NNN,
text-layer documents only, the minimums) are enforced. The mistakes are fed
as made-up records, so no held-out question is printed."""

from __future__ import annotations

import pytest

from tests.support.paths import CORPUS
from tests.support.scripts import load_checker

CIVIL_CODE = "vn__bo_luat_dan_su_91-2015-QH13.docx"
# folder, id prefix, questions at least, then per kind: scenario, missing_unit, citation (None: not asserted)
SETS = [("legal_qa_fourth", "l4", 70, 15, 2, None), ("legal_qa_fifth", "l5", 80, 16, 3, 10)]


@pytest.fixture(scope="module", params=SETS, ids=[s[0] for s in SETS])
def legal_set(request):
    folder, prefix, total, scenario, missing, citation = request.param
    return load_checker(folder), prefix, total, scenario, missing, citation


def test_the_set_holds(legal_set, capsys):
    checker = legal_set[0]
    if not (CORPUS / CIVIL_CODE).is_file():
        pytest.skip(f"no legal documents under {CORPUS}")
    assert checker.main(["--corpus", str(CORPUS)]) == 0
    assert ", 0 problem(s)" in capsys.readouterr().out


def test_the_fresh_sets_checker_keeps_its_own_settings(legal_set):
    checker, prefix, total = legal_set[:3]
    fresh = load_checker("legal_qa_fresh")
    assert fresh.ID.pattern == r"lf\d{3}" and fresh.MINIMUM_TOTAL == 90 and fresh.SCANNED
    assert checker.RULES.ID.pattern == prefix + r"\d{3}" and checker.RULES.MINIMUM_TOTAL == total
    assert checker.RULES.SCANNED == () and CIVIL_CODE in checker.RULES.DOCUMENTS


def test_the_fourth_sets_checker_keeps_its_own_settings():
    fifth, fourth = load_checker("legal_qa_fifth"), load_checker("legal_qa_fourth")  # the fifth loads the fourth's
    assert fourth.RULES.ID.pattern == r"l4\d{3}" and fourth.RULES.MINIMUM_TOTAL == 70
    assert fifth.RULES.ID.pattern == r"l5\d{3}" and fifth.RULES.MINIMUM_TOTAL == 80


def test_an_id_of_another_set_is_named(legal_set):
    checker, prefix = legal_set[:2]
    record = {"id": "lt001", "query": "Điều 999 Bộ luật Dân sự 2015", "kind": "missing_unit", "twin_of": None,
              "answers": [], "passage": None, "split": "held_out",
              "cites": {"document": CIVIL_CODE, "unit": "Điều 999"}}
    problems = checker.RULES.check([record], {CIVIL_CODE: {"Điều 1": "Điều 1."}})
    assert f"lt001: id is not {prefix}NNN" in problems


def test_a_question_on_a_scan_is_refused(legal_set):
    checker, prefix = legal_set[:2]
    scan = "vnlaw__59-nd.signed.pdf"
    record = {"id": f"{prefix}001", "query": "Điều 3 Nghị định 59/2022", "kind": "citation", "twin_of": None,
              "answers": [{"document": scan, "unit": "Điều 3"}], "passage": "Điều 3.", "split": "held_out",
              "scan": True}
    problems = checker.RULES.check([record], {CIVIL_CODE: {"Điều 1": "Điều 1."}})
    assert f"{prefix}001: unknown document {scan}" in problems
    assert f"{prefix}001: 'scan': true must mark exactly the questions on scanned documents" in problems


def test_too_few_questions_is_named(legal_set):
    checker, _, total, scenario, missing, citation = legal_set
    problems = checker.RULES.check_mix([])
    assert f"0 questions on text-layer documents; at least {total}" in problems
    assert f"scenario: 0 questions; at least {scenario}" in problems
    assert f"missing_unit: 0 questions; at least {missing}" in problems
    if citation is not None:
        assert f"citation: 0 questions; at least {citation}" in problems
    assert not any("scanned documents" in p for p in problems)
