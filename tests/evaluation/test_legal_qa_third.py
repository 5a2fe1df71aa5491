"""eval/legal_qa_third (issue 40 item 7): the third held-out legal set holds
against the documents, read by eval/legal_qa_fresh's checker with this set's
settings; its own settings (ids ltNNN, the minimums) are enforced. The
mistakes are fed as made-up records, so no held-out question is printed."""

from __future__ import annotations

import pytest

from tests.support.paths import CORPUS
from tests.support.scripts import load_checker


@pytest.fixture(scope="module")
def checker():
    return load_checker("legal_qa_third")


def test_the_set_holds(checker, capsys):
    if not (CORPUS / "vn__bo_luat_dan_su_91-2015-QH13.docx").is_file():
        pytest.skip(f"no legal documents under {CORPUS}")
    assert checker.main(["--corpus", str(CORPUS)]) == 0
    assert ", 0 problem(s)" in capsys.readouterr().out


def test_the_fresh_sets_checker_keeps_its_own_settings(checker):
    fresh = load_checker("legal_qa_fresh")
    assert fresh.ID.pattern == r"lf\d{3}" and fresh.MINIMUM_TOTAL == 90
    assert checker.RULES.ID.pattern == r"lt\d{3}" and checker.RULES.MINIMUM_TOTAL == 60


def test_an_id_of_another_set_is_named(checker):
    record = {"id": "lf001", "query": "Điều 999 Bộ luật Dân sự 2015", "kind": "missing_unit", "twin_of": None,
              "answers": [], "passage": None, "split": "held_out",
              "cites": {"document": "vn__bo_luat_dan_su_91-2015-QH13.docx", "unit": "Điều 999"}}
    problems = checker.RULES.check([record], {"vn__bo_luat_dan_su_91-2015-QH13.docx": {"Điều 1": "Điều 1."}})
    assert "lf001: id is not ltNNN" in problems


def test_too_few_questions_is_named(checker):
    problems = checker.RULES.check_mix([])
    assert "0 questions on text-layer documents; at least 60" in problems
    assert "multi: 0 questions; at least 4" in problems
