"""Check the fifth held-out legal question set against the documents themselves.

Rules and readers: eval/legal_qa_fresh/check_questions.py (python-docx body
paragraphs, PyMuPDF page text; units "Điều N", a precedent's "Nội dung án lệ"
and "Đoạn [n]"), loaded by path as a private module instance whose settings
are replaced below: this questions file, ids l5NNN, the text-layer documents
only (the scans are not read, so a question on one is refused) and the
minimums of an 80-question set. Nothing here is a second implementation.

It prints ids and counts, never a question's text, and exits 1 on any problem
(fields, ids, held_out, units and passages, kinds, twins, the mix). Run as
`.venv/bin/python eval/legal_qa_fifth/check_questions.py [--corpus DIR]`; the
corpus defaults to $DUOCTHU_CORPUS, then ../shared/corpus beside the repository.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

QUESTIONS = Path(__file__).resolve().with_name("questions.jsonl")
# A private instance (eval/ is not a package): the fresh set's own checker keeps its settings.
_RULES_FILE = QUESTIONS.parent.parent / "legal_qa_fresh" / "check_questions.py"
_SPEC = importlib.util.spec_from_file_location("legal_qa_fifth_rules", _RULES_FILE)
RULES = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(RULES)
# This set's settings. Text-layer documents only: the scans are not read, so a question answered
# from one names an unknown document, and a `"scan": true` record fails the scan rule.
vars(RULES).update(
    QUESTIONS=QUESTIONS,
    ID=re.compile(r"l5\d{3}"),
    ID_FORM="l5NNN",
    SCANNED=(),
    DOCUMENTS=RULES.TEXT_DOCUMENTS,
    MINIMUM={"accented": 25, "unaccented": 20, "citation": 10, "scenario": 16, "multi": 4, "missing_unit": 3},
    MINIMUM_TOTAL=80,
    MINIMUM_TWINS=20,
    MINIMUM_SCAN=0,
    MINIMUM_PER_DOCUMENT=4,
    MAXIMUM_PER_UNIT=3,
    MINIMUM_DISTINCT_UNITS=55,
)


def main(argv: list[str] | None = None) -> int:
    """Check the set; 0 when it holds, 1 on any problem."""
    title = __doc__.split("\n\n")[0]
    return RULES._FIRST.run_checker(argv, title, QUESTIONS, RULES.load_documents, RULES.check, RULES.summary)


if __name__ == "__main__":
    sys.exit(main())
