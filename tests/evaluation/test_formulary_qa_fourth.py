"""eval/formulary_qa_fourth (issue 40 item 7): the fourth held-out formulary
set holds against the sample formulary, read by eval/formulary_qa's checker
with this set's settings (ids f4NNN, one split, a scenario kind), and the
rules it adds are enforced. The mistakes are fed as made-up records, so no
held-out question is printed."""

from __future__ import annotations

import pytest

from tests.support.scripts import load_checker

DOSE = {"document": "duoc_thu_mau.pdf", "monograph": "PARACETAMOL", "section": "Liều lượng và cách dùng"}


@pytest.fixture(scope="module")
def checker():
    return load_checker("formulary_qa_fourth")


@pytest.fixture(scope="module")
def units(checker):
    return checker.RULES.read_units(checker.RULES.read_lines(checker.RULES.PDF))


def _made_up():
    root = {"id": "f4901", "query": "Liều paracetamol cho trẻ em theo cân nặng", "kind": "accented", "twin_of": None,
            "answers": [dict(DOSE)], "passage": "Trẻ em: 10 - 15 mg/kg mỗi 4 - 6 giờ.", "split": "held_out"}
    twin = dict(root, id="f4902", query="lieu paracetamol cho tre em theo can nang", kind="unaccented", twin_of="f4901")
    scenario = dict(root, id="f4903", query="Bé nhà tôi 20 kg sốt cao, uống paracetamol mấy mg một lần?", kind="scenario")
    return [root, twin, scenario]


def test_the_set_holds(checker, capsys):
    assert checker.main([]) == 0
    assert "questions: ok" in capsys.readouterr().out


def test_made_up_records_pass_but_for_the_counts(checker, units):
    problems = checker.check(_made_up(), units)
    assert problems and all("fewer than" in p for p in problems), problems


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda rs: rs[2].update(query="be nha toi 20 kg sot cao uong paracetamol may mg"), "f4903: a scenario query carries its diacritics"),
        (lambda rs: rs[1].update(query="paracetamol"), "f4902: keeps 1 of the"),
        (lambda rs: rs[1].update(passage="Trẻ dưới 3 tháng: 10 mg/kg."), "f4902: twin of f4901 with another passage"),
        (lambda rs: rs[0].update(split="dev"), "f4901: split 'dev'"),
        (lambda rs: rs[0].update(id="fq901"), "fq901: id is not f4NNN"),
    ],
    ids=["scenario-accents", "twin-words", "twin-passage", "dev-split", "id"],
)
def test_each_mistake_is_named(checker, units, mutate, message):
    records = _made_up()
    mutate(records)
    problems = checker.check(records, units)
    assert any(message in p for p in problems), problems


def test_the_third_sets_checker_keeps_its_own_settings(checker):
    third = load_checker("formulary_qa_third")
    assert third.RULES.ID.pattern == r"ft\d{3}" and third.RULES.MINIMUM["missing_unit"] == 2
    assert checker.RULES.ID.pattern == r"f4\d{3}" and checker.RULES.MINIMUM["missing_unit"] == 3
