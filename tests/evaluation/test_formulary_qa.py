"""eval/formulary_qa (issue 40): the formulary's drug + section questions hold
against the formulary read without the pipeline, and the checker catches
every kind of mistake it is there for."""

from __future__ import annotations

import copy
import importlib.util
import json

import pytest

from tests.support.paths import REPO

FOLDER = REPO / "eval" / "formulary_qa"


@pytest.fixture(scope="module")
def checker():
    spec = importlib.util.spec_from_file_location("formulary_check", FOLDER / "check_questions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def units(checker):
    return checker.read_units(checker.read_lines(checker.PDF))


@pytest.fixture(scope="module")
def records():
    return [json.loads(line) for line in (FOLDER / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]


def test_the_set_holds(checker, units, records):
    assert checker.check(records, units) == []
    assert checker.main([]) == 0
    assert set(units) == {"AMPICILIN VÀ SULBACTAM", "GENTAMICIN", "VANCOMYCIN", "AMIKACIN", "PARACETAMOL"}
    assert len(records) >= 40


def _first(records, kind, twin=False):
    return next(r for r in records if r["kind"] == kind and bool(r["twin_of"]) is twin)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda rs: _first(rs, "accented")["answers"][0].update(section="Tương tác thuốc (không có)"), "has no section"),
        (lambda rs: _first(rs, "accented")["answers"][0].update(monograph="AMOXICILIN"), "no monograph 'AMOXICILIN'"),
        (lambda rs: _first(rs, "accented").update(passage="Một câu không có trong dược thư."), "passage not inside"),
        (lambda rs: _first(rs, "unaccented").update(query="liều gentamicin"), "an unaccented query is ASCII"),
        (lambda rs: _first(rs, "accented").update(split="held_out" if _first(rs, "accented")["split"] == "dev" else "dev"),
         "but the rule gives"),
        (lambda rs: _first(rs, "unaccented", twin=True)["answers"][0].update(section="Chỉ định"), "a twin has its root's answers"),
        (lambda rs: _first(rs, "missing_unit")["cites"].update(monograph="GENTAMICIN", section="Chỉ định"), "which exists"),
        (lambda rs: rs.append(dict(rs[0])), "duplicate id"),
    ],
    ids=["section", "monograph", "passage", "accents", "split", "twin", "missing-exists", "duplicate"],
)
def test_each_mistake_is_named(checker, units, records, mutate, message):
    broken = copy.deepcopy(records)
    mutate(broken)
    problems = checker.check(broken, units)
    assert any(message in p for p in problems), problems


def test_too_few_questions_is_a_problem(checker, units, records):
    problems = checker.check(records[:10], units)
    assert any("fewer than 40" in p for p in problems)
