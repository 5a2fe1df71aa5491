"""Check the fifth held-out legal question set against the documents themselves.

The fourth set's checker (eval/legal_qa_fourth/check_questions.py: the fresh
set's readers and rules, the text-layer documents only), loaded by path as a
private copy whose settings this file replaces: this questions file, ids
l5NNN and the minimums of an 80-question set. Nothing here is a second
implementation. It prints ids and counts, never a question's text, and exits
1 on any problem. Run as `.venv/bin/python eval/legal_qa_fifth/check_questions.py
[--corpus DIR]`; the corpus defaults to $DUOCTHU_CORPUS, then ../shared/corpus
beside the repository.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

QUESTIONS = Path(__file__).resolve().with_name("questions.jsonl")
_SPEC = importlib.util.spec_from_file_location("legal_qa_fifth_base", QUESTIONS.parent.parent / "legal_qa_fourth" / "check_questions.py")
FOURTH = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(FOURTH)  # a private copy: the fourth set's own checker keeps its settings
RULES = FOURTH.RULES
vars(RULES).update(
    QUESTIONS=QUESTIONS,
    ID=re.compile(r"l5\d{3}"),
    ID_FORM="l5NNN",
    MINIMUM={"accented": 25, "unaccented": 20, "citation": 10, "scenario": 16, "multi": 4, "missing_unit": 3},
    MINIMUM_TOTAL=80,
    MINIMUM_DISTINCT_UNITS=55,
)


def main(argv: list[str] | None = None) -> int:
    """Check the set; 0 when it holds, 1 on any problem."""
    return RULES._FIRST.run_checker(argv, __doc__.split("\n\n")[0], QUESTIONS, RULES.load_documents, RULES.check, RULES.summary)


if __name__ == "__main__":
    sys.exit(main())
