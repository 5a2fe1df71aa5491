"""Check the fourth, held-out formulary question set against the formulary itself.

The reader and the rules are those of eval/formulary_qa/check_questions.py
(the sample formulary read with PyMuPDF, running footers dropped; a unit is a
monograph's section), loaded by path as a private copy of that module whose
settings this file replaces: the questions file, ids f4NNN, one split
(`held_out`) and a fifth kind, `scenario`. Twins are checked with
eval/legal_qa_fresh's `check_twin` (same answers, passage and split; the
twin keeps most of its original's words once folded to ASCII). Nothing here
is a second implementation.

Verifies, for eval/formulary_qa_fourth/questions.jsonl: the record fields,
unique ids, every record held_out, that every named monograph and section
exists and every missing_unit citation names none, that each passage lies
inside its unit (after Unicode NFC and whitespace folding), how each kind is
typed (scenario questions carry their diacritics), the twins, and the counts.
Prints counts only, never a question's text; exits 1 on any problem.

    .venv/bin/python eval/formulary_qa_fourth/check_questions.py [--pdf FILE]
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(folder: str, name: str):
    """A private instance of eval/<folder>/check_questions.py (loaded by path:
    eval/ is not a package); setting its globals changes only this copy."""
    spec = importlib.util.spec_from_file_location(name, HERE.parent / folder / "check_questions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RULES = _load("formulary_qa", "formulary_qa_fourth_rules")
_TWINS = _load("legal_qa_fresh", "formulary_qa_fourth_twins")

RULES.QUESTIONS = HERE / "questions.jsonl"
RULES.ID, RULES.ID_FORM = re.compile(r"f4\d{3}"), "f4NNN"
RULES.KINDS = ("accented", "unaccented", "citation", "scenario", "missing_unit")
RULES.MINIMUM = {"accented": 15, "unaccented": 12, "citation": 5, "scenario": 8, "missing_unit": 3}
RULES.MINIMUM_TOTAL = 40
RULES.MINIMUM_PER_MONOGRAPH = 4
RULES.SPLITS = ("held_out",)  # every question is held out: the split rule puts each one there
RULES.SPLIT_ORDER = ("accented", "citation", "scenario", "missing_unit", "unaccented")
_FIRST_CHECK = RULES.check


def check(records: list[dict], units: dict[str, dict[str, str]]) -> list[str]:
    """The first set's checks with this set's settings, and what they leave to
    this set: scenario questions typed with diacritics, twins that retype."""
    problems = _FIRST_CHECK(records, units)
    by_id = {r.get("id"): r for r in records}
    for r in records:
        if r.get("kind") == "scenario" and (r.get("query") or "").isascii():
            problems.append(f"{r.get('id')}: a scenario query carries its diacritics")
        if r.get("twin_of"):
            problems += _TWINS.check_twin(r, by_id)
    return problems


RULES.check = check  # main() calls the module's check


def main(argv: list[str] | None = None) -> int:
    return RULES.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
