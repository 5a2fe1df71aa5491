"""Check the third held-out legal question set against the documents themselves.

The rules and readers are those of eval/legal_qa_fresh/check_questions.py
(python-docx body paragraphs, PyMuPDF page text, the scans' hand
transcriptions in eval/ocr_truth; units "Điều N", a precedent's "Nội dung án
lệ" and "Đoạn [n]"), loaded by path as a private copy of that module whose
settings this file replaces: the questions file, ids ltNNN, and the smaller
minimums of a 60-question set. Nothing here is a second implementation.

Verifies, for eval/legal_qa_third/questions.jsonl: the record fields, unique
ids, every record held_out, that every answer unit exists and every
missing_unit citation names no unit, that each passage lies inside its first
answer's unit (after Unicode NFC and whitespace folding), how each kind is
typed, that each twin retypes its original, that `"scan": true` marks exactly
the questions on scanned documents, and the counts and spread of the mix.
Prints ids and counts, never a question's text; exits 1 on any problem.

    .venv/bin/python eval/legal_qa_third/check_questions.py [--corpus DIR]

The corpus is read from --corpus, else $DUOCTHU_CORPUS, else ../shared/corpus
beside the repository.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.jsonl"


def _fresh_set_checker():
    """A private instance of eval/legal_qa_fresh/check_questions.py (loaded by
    path: eval/ is not a package). Its module settings are set below; the
    instance is this file's own, so the fresh set's checker is unchanged."""
    spec = importlib.util.spec_from_file_location("legal_qa_third_rules", HERE.parent / "legal_qa_fresh" / "check_questions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RULES = _fresh_set_checker()
RULES.QUESTIONS = QUESTIONS
RULES.ID, RULES.ID_FORM = re.compile(r"lt\d{3}"), "ltNNN"
# Minimums over the questions on text-layer documents (the scanned ones are scored apart).
RULES.MINIMUM = {"accented": 15, "unaccented": 12, "citation": 10, "scenario": 10, "multi": 4, "missing_unit": 2}
RULES.MINIMUM_TOTAL = 60
RULES.MINIMUM_TWINS = 12
RULES.MINIMUM_SCAN = 3
RULES.MINIMUM_PER_DOCUMENT = 4
RULES.MAXIMUM_PER_UNIT = 3
RULES.MINIMUM_DISTINCT_UNITS = 40


def main(argv: list[str] | None = None) -> int:
    return RULES._FIRST.run_checker(argv, __doc__.split("\n\n")[0], QUESTIONS, RULES.load_documents, RULES.check, RULES.summary)


if __name__ == "__main__":
    sys.exit(main())
