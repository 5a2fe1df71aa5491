"""Check the fourth, held-out formulary question set against the formulary itself.

The third set's checker (eval/formulary_qa_third/check_questions.py: the
sample formulary's reader and rules, held_out only, the scenario kind,
twins), loaded by path as a private copy whose settings this file replaces:
this questions file, ids f4NNN and this set's minimums. Nothing here is a
second implementation. Prints counts only, never a question's text; exits 1
on any problem.

    .venv/bin/python eval/formulary_qa_fourth/check_questions.py [--pdf FILE]
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
_SPEC = importlib.util.spec_from_file_location("formulary_qa_fourth_base", HERE.parent / "formulary_qa_third" / "check_questions.py")
THIRD = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(THIRD)  # a private copy: the third set's own checker keeps its settings
RULES = THIRD.RULES
RULES.QUESTIONS = HERE / "questions.jsonl"
RULES.ID, RULES.ID_FORM = re.compile(r"f4\d{3}"), "f4NNN"
RULES.MINIMUM = {"accented": 15, "unaccented": 12, "citation": 5, "scenario": 8, "missing_unit": 3}
check, main = THIRD.check, THIRD.main


if __name__ == "__main__":
    raise SystemExit(main())
