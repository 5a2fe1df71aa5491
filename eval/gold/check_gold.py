"""Check gold files against the documents themselves, without the pipeline.

Reads each document with an independent reader (python-docx body walk,
openpyxl cell values, PyMuPDF page text), then verifies with the same
normalized matching the evaluation uses that every boundary anchor is found,
in order, and that every query's passage lies inside one of its sections.
Prints one line per problem and a summary per document; exits 1 on problems.

    .venv/bin/python eval/gold/check_gold.py eval/gold data/inbox/formulary
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from duocthu_assets.evaluation.gold import discover_gold, resolve_document  # noqa: E402
from duocthu_assets.evaluation.runner import default_corpus_dirs  # noqa: E402
from duocthu_assets.evaluation.scoring import locate_sections  # noqa: E402
from duocthu_assets.evaluation.textmatch import NormalizedText, find_passage  # noqa: E402


def reference_text(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".docx":
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        document = docx.Document(str(path))
        parts = []
        for element in document.element.body.iterchildren():
            tag = element.tag.rsplit("}", 1)[-1]
            if tag == "p":
                parts.append(Paragraph(element, document).text)
            elif tag == "tbl":
                for row in Table(element, document).rows:
                    parts.append(" | ".join(cell.text for cell in row.cells))
        return "\n\n".join(parts)
    if suffix == ".xlsx":
        import openpyxl

        workbook = openpyxl.load_workbook(str(path))
        parts = []
        for sheet in workbook.worksheets:
            parts.append(f"# {sheet.title}")
            for row in sheet.iter_rows(values_only=True):
                if any(v is not None for v in row):
                    parts.append(" | ".join("" if v is None else str(v) for v in row))
        return "\n\n".join(parts)
    if suffix == ".pdf":
        import pymupdf

        with pymupdf.open(str(path)) as doc:
            return "\n\n".join(page.get_text() for page in doc)
    raise ValueError(f"no reference reader for {path.name}")


def check(folder: Path) -> int:
    problems = 0
    for gold in discover_gold(folder):
        path = resolve_document(gold, default_corpus_dirs())
        if path is None:
            print(f"{gold.document}: document not found, skipped")
            continue
        norm = NormalizedText.of(reference_text(path))
        located = locate_sections(gold, norm)
        for bid in located.unlocated:
            print(f"{gold.document}: boundary {bid} not found in order")
            problems += 1
        for problem in located.scope_problems:
            print(f"{gold.document}: {problem}")
            problems += 1
        for q in gold.queries:
            ranges = [(s.start, s.end) for s in located.sections if s.id in q.sections]
            if q.passage:
                where = find_passage(norm, q.passage, ranges)
                if where is None:
                    print(f"{gold.document}: {q.id} passage not found: {q.passage!r}")
                    problems += 1
                elif ranges and not any(lo <= where[0] and where[1] <= hi for lo, hi in ranges):
                    print(f"{gold.document}: {q.id} passage lies outside its sections {q.sections}")
                    problems += 1
        print(
            f"{gold.document}: {len(gold.boundaries)} boundaries ({len(located.unlocated)} not found), "
            f"{len(gold.queries)} queries, {len(located.sections)} sections in scope"
        )
    return problems


if __name__ == "__main__":
    folders = [Path(a) for a in sys.argv[1:]] or [Path(__file__).resolve().parent]
    sys.exit(1 if sum(check(f) for f in folders) else 0)
