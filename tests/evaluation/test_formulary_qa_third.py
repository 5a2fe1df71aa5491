"""eval/formulary_qa_third and eval/formulary_qa_fourth (issue 40 item 7):
each held-out formulary set holds against the sample formulary, read by
eval/formulary_qa's checker with that set's settings (ids ftNNN / f4NNN, one
split, a scenario kind), and the rules it adds are enforced. The mistakes are
fed as made-up records, so no held-out question is printed."""

from __future__ import annotations

import pytest

from tests.support.scripts import load_checker

DOSE = {"document": "duoc_thu_mau.pdf", "monograph": "PARACETAMOL", "section": "Liều lượng và cách dùng"}
SETS = {"formulary_qa_third": "ft", "formulary_qa_fourth": "f4"}  # folder: id prefix


@pytest.fixture(scope="module", params=list(SETS))
def formulary_set(request):
    checker = load_checker(request.param)
    return checker, SETS[request.param], checker.RULES.read_units(checker.RULES.read_lines(checker.RULES.PDF))


def _made_up(p: str):
    root = {"id": f"{p}901", "query": "Liều paracetamol cho trẻ em theo cân nặng", "kind": "accented", "twin_of": None,
            "answers": [dict(DOSE)], "passage": "Trẻ em: 10 - 15 mg/kg mỗi 4 - 6 giờ.", "split": "held_out"}
    twin = dict(root, id=f"{p}902", query="lieu paracetamol cho tre em theo can nang", kind="unaccented", twin_of=f"{p}901")
    scenario = dict(root, id=f"{p}903", query="Bé nhà tôi 20 kg sốt cao, uống paracetamol mấy mg một lần?", kind="scenario")
    return [root, twin, scenario]


def test_the_set_holds(formulary_set, capsys):
    assert formulary_set[0].main([]) == 0
    assert "questions: ok" in capsys.readouterr().out


def test_made_up_records_pass_but_for_the_counts(formulary_set):
    checker, p, units = formulary_set
    problems = checker.check(_made_up(p), units)
    assert problems and all("fewer than" in x for x in problems), problems


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda rs: rs[2].update(query="be nha toi 20 kg sot cao uong paracetamol may mg"), "{p}903: a scenario query carries its diacritics"),
        (lambda rs: rs[1].update(query="paracetamol"), "{p}902: keeps 1 of the"),
        (lambda rs: rs[1].update(passage="Trẻ dưới 3 tháng: 10 mg/kg."), "{p}902: twin of {p}901 with another passage"),
        (lambda rs: rs[0].update(split="dev"), "{p}901: split 'dev'"),
        (lambda rs: rs[0].update(id="fq901"), "fq901: id is not {p}NNN"),
    ],
    ids=["scenario-accents", "twin-words", "twin-passage", "dev-split", "id"],
)
def test_each_mistake_is_named(formulary_set, mutate, message):
    checker, p, units = formulary_set
    records = _made_up(p)
    mutate(records)
    problems = checker.check(records, units)
    assert any(message.format(p=p) in x for x in problems), problems


def test_the_third_sets_checker_keeps_its_own_settings():
    fourth, third = load_checker("formulary_qa_fourth"), load_checker("formulary_qa_third")  # the fourth loads the third's
    assert third.RULES.ID.pattern == r"ft\d{3}" and third.RULES.MINIMUM["missing_unit"] == 2
    assert fourth.RULES.ID.pattern == r"f4\d{3}" and fourth.RULES.MINIMUM["missing_unit"] == 3
