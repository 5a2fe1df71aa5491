"""Check the legal question gold set against the documents themselves.

Reads each legal document of the shared corpus with its own reader, not the
project's parser: python-docx body paragraphs in order, PyMuPDF page text
(the page number alone on a page's first line dropped). A unit "Điều N" is
the text from the line "Điều N." to the line "Điều N+1." (headings taken in
sequence, so a cross-reference inside a clause never starts a unit); for the
precedent, "Nội dung án lệ" runs from its heading to the end and "Đoạn [n]"
is paragraph [n] of "Nhận định của Tòa án".

Verifies, for eval/legal_qa/questions.jsonl: the record fields, unique ids,
that every cited unit exists (and that a missing_unit citation really names
no unit), that each passage lies inside its first answer's unit (compared
after Unicode NFC and whitespace folding), how each kind is typed, that twins
share their root's split, the split rule of the README, and the counts per
kind, split and document. Prints a summary (ids and counts, never a held-out
question's text) and exits 1 on any problem.

    .venv/bin/python eval/legal_qa/check_questions.py [--corpus DIR]

The corpus is read from --corpus, else $DUOCTHU_CORPUS, else ../shared/corpus
beside the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.jsonl"

# The legal documents of the shared corpus this set is written over. The three
# scanned `vnlaw__` PDFs are listed so the checker shows why no question cites
# them: their text layer holds only the signature stamp, no article.
DOCUMENTS = (
    "vn__bo_luat_dan_su_91-2015-QH13.docx",
    "vn__nghi_dinh_99-2022-ND-CP.docx",
    "vn__nghi_dinh_19-2019-ND-CP.docx",
    "vn__an_le_so_43-2021-AL.pdf",
    "diepxuan__49-2026-ND-CP.pdf",
    "diepxuan__50-2026-ND-CP.pdf",
    "vnlaw__59-nd.signed.pdf",
    "vnlaw__06-bct.signed.pdf",
    "vnlaw__28-pt.signed.pdf",
)
CIVIL_CODE = "vn__bo_luat_dan_su_91-2015-QH13.docx"
PRECEDENT = "vn__an_le_so_43-2021-AL.pdf"

KINDS = ("accented", "unaccented", "citation", "scenario", "multi", "missing_unit")
MINIMUM = {"accented": 30, "unaccented": 25, "citation": 15, "scenario": 15, "multi": 5, "missing_unit": 3}
MINIMUM_TOTAL = 80
SPLITS = ("dev", "held_out")
# The split rule (README "Splits"): kinds in this order, so a twin's root
# (always accented) has its split before the twin is reached.
SPLIT_ORDER = ("accented", "citation", "scenario", "multi", "missing_unit", "unaccented")

FIELDS = ("id", "query", "kind", "twin_of", "answers", "passage", "split")
ID = re.compile(r"lq\d{3}")
ARTICLE = re.compile(r"\s*Điều\s+(\d+)\s*\.")
ARTICLE_UNIT = re.compile(r"Điều (\d+)")
PARAGRAPH = re.compile(r"\s*\[(\d+)\]")


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def fold(text: str) -> str:
    """NFC, every run of whitespace one space, no edges."""
    return " ".join(nfc(text).split())


# ---------------------------------------------------------------- documents

def read_lines(path: Path) -> list[str]:
    if path.suffix.lower() == ".docx":
        import docx

        return [nfc(p.text) for p in docx.Document(str(path)).paragraphs]
    import pymupdf

    lines: list[str] = []
    with pymupdf.open(str(path)) as pdf:
        for page in pdf:
            page_lines = page.get_text().split("\n")
            if page_lines and page_lines[0].strip().isdigit():
                page_lines = page_lines[1:]  # the page number printed atop the page
            lines.extend(nfc(line) for line in page_lines)
    return lines


def article_units(lines: list[str]) -> tuple[dict[str, str], int]:
    """``{"Điều N": text}`` from the headings taken in sequence, and how many
    heading-like lines were left out of the sequence."""
    starts: list[int] = []
    heading_like = 0
    for i, line in enumerate(lines):
        m = ARTICLE.match(line)
        if not m:
            continue
        heading_like += 1
        if int(m.group(1)) == len(starts) + 1:
            starts.append(i)
    units = {}
    for n, start in enumerate(starts, 1):
        end = starts[n] if n < len(starts) else len(lines)
        units[f"Điều {n}"] = "\n".join(lines[start:end])
    return units, heading_like - len(starts)


def precedent_units(lines: list[str]) -> dict[str, str]:
    units: dict[str, str] = {}
    stripped = [line.strip() for line in lines]
    if "NỘI DUNG ÁN LỆ" in stripped:
        units["Nội dung án lệ"] = "\n".join(lines[stripped.index("NỘI DUNG ÁN LỆ"):])
    begin = next((i for i, s in enumerate(stripped) if s.startswith("NHẬN ĐỊNH CỦA TÒA ÁN")), None)
    if begin is not None:
        end = next((i for i in range(begin + 1, len(lines))
                    if stripped[i].startswith(("Vì các lẽ trên", "QUYẾT ĐỊNH"))), len(lines))
        starts = [(i, int(m.group(1))) for i in range(begin + 1, end) if (m := PARAGRAPH.match(lines[i]))]
        for k, (i, n) in enumerate(starts):
            stop = starts[k + 1][0] if k + 1 < len(starts) else end
            units[f"Đoạn [{n}]"] = "\n".join(lines[i:stop])
    return units


def load_documents(corpus: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    documents: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    for name in DOCUMENTS:
        path = corpus / name
        if not path.is_file():
            notes.append(f"{name}: not found in {corpus}")
            documents[name] = {}
            continue
        lines = read_lines(path)
        units, stray = article_units(lines)
        if name == PRECEDENT:
            units.update(precedent_units(lines))
        if stray:
            notes.append(f"{name}: {stray} 'Điều N.' line(s) outside the heading sequence")
        documents[name] = units
    return documents, notes


# ---------------------------------------------------------------- splits

def _order(record_id: str) -> str:
    return hashlib.sha256(record_id.encode("utf-8")).hexdigest()


def primary_document(record: dict) -> str:
    """The first answer's document; for a missing_unit question, the cited one."""
    answers = record.get("answers") or []
    if answers and isinstance(answers[0], dict):
        return str(answers[0].get("document"))
    return str((record.get("cites") or {}).get("document"))


def assign_splits(records: list[dict]) -> dict[str, str]:
    """The split rule (README "Splits"). Kind by kind in SPLIT_ORDER: a twin
    takes its root's split; the other records of the kind, ordered by
    (primary document, sha256 of the id), each go to the split with fewer
    records of that kind so far, then fewer of that document, then fewer
    overall, then dev."""
    split: dict[str, str] = {}
    of_kind: Counter = Counter()
    of_document: Counter = Counter()
    overall: Counter = Counter()

    def place(record: dict, kind: str, chosen: str) -> None:
        split[record["id"]] = chosen
        of_kind[kind, chosen] += 1
        of_document[primary_document(record), chosen] += 1
        overall[chosen] += 1

    for kind in SPLIT_ORDER:
        records_of_kind = [r for r in records if r.get("kind") == kind]
        twins = sorted((r for r in records_of_kind if r.get("twin_of")), key=lambda r: _order(r["id"]))
        others = sorted((r for r in records_of_kind if not r.get("twin_of")),
                        key=lambda r: (primary_document(r), _order(r["id"])))
        for r in twins:
            if r["twin_of"] in split:  # else reported by check(): the root must be accented
                place(r, kind, split[r["twin_of"]])
        for r in others:
            document = primary_document(r)
            place(r, kind, min(SPLITS, key=lambda s: (of_kind[kind, s], of_document[document, s],
                                                      overall[s], SPLITS.index(s))))
    return split


# ---------------------------------------------------------------- checks

def has_diacritics(text: str) -> bool:
    return any(ord(c) > 127 for c in text)


def check(records: list[dict], documents: dict[str, dict[str, str]]) -> list[str]:
    problems: list[str] = []
    by_id: dict[str, dict] = {}
    for n, r in enumerate(records, 1):
        rid = r.get("id")
        where = rid if isinstance(rid, str) else f"line {n}"
        expected = set(FIELDS) | ({"cites"} if r.get("kind") == "missing_unit" else set())
        if set(r) != expected:
            problems.append(f"{where}: fields {sorted(set(r) ^ expected)} missing or unexpected")
        if not isinstance(rid, str) or not ID.fullmatch(rid):
            problems.append(f"{where}: id is not lqNNN")
        elif rid in by_id:
            problems.append(f"{where}: duplicate id")
        else:
            by_id[rid] = r
        if r.get("kind") not in KINDS:
            problems.append(f"{where}: unknown kind {r.get('kind')!r}")
        if r.get("split") not in SPLITS:
            problems.append(f"{where}: split must be dev or held_out")
        if not isinstance(r.get("query"), str) or not r.get("query", "").strip():
            problems.append(f"{where}: empty query")

    for rid, r in by_id.items():
        kind, query = r.get("kind"), r.get("query") or ""
        # how the question is typed
        if kind == "unaccented" and has_diacritics(query):
            problems.append(f"{rid}: an unaccented query has a diacritic or đ")
        if kind in ("accented", "scenario", "multi") and not has_diacritics(query):
            problems.append(f"{rid}: a {kind} query has no diacritics")
        if kind in ("citation", "missing_unit") and not re.search(r"\d", query):
            problems.append(f"{rid}: a {kind} query names no number")
        # twins
        root_id = r.get("twin_of")
        if root_id is not None:
            root = by_id.get(root_id)
            if kind != "unaccented":
                problems.append(f"{rid}: only an unaccented question is a twin")
            if root is None or root.get("kind") != "accented":
                problems.append(f"{rid}: twin_of {root_id} is not an accented question")
            else:
                if root.get("split") != r.get("split"):
                    problems.append(f"{rid}: twin of {root_id} but in another split")
                if root.get("answers") != r.get("answers"):
                    problems.append(f"{rid}: twin of {root_id} with other answers")
        # answers
        answers = r.get("answers")
        if not isinstance(answers, list):
            problems.append(f"{rid}: answers is not a list")
            continue
        if kind == "missing_unit":
            if answers:
                problems.append(f"{rid}: a missing_unit question has answers")
            if r.get("passage") is not None:
                problems.append(f"{rid}: a missing_unit question has a passage")
            cites = r.get("cites") or {}
            units = documents.get(cites.get("document"))
            if not units:
                problems.append(f"{rid}: cites an unknown or unreadable document")
            elif cites.get("unit") in units:
                problems.append(f"{rid}: cites {cites.get('unit')}, which exists")
            elif not ARTICLE_UNIT.fullmatch(cites.get("unit") or ""):
                problems.append(f"{rid}: cites a unit not named 'Điều N'")
            continue
        if not answers:
            problems.append(f"{rid}: no answer")
            continue
        pairs = [(a.get("document"), a.get("unit")) for a in answers if isinstance(a, dict)]
        if len(pairs) != len(answers) or any(set(a) != {"document", "unit"} for a in answers):
            problems.append(f"{rid}: an answer is not {{document, unit}}")
            continue
        if len(set(pairs)) != len(pairs):
            problems.append(f"{rid}: an answer is listed twice")
        for document, unit in pairs:
            if document not in documents:
                problems.append(f"{rid}: unknown document {document}")
            elif unit not in documents[document]:
                problems.append(f"{rid}: {document} has no {unit}")
        named = {d for d, _ in pairs}
        if kind == "multi" and len(named) < 2:
            problems.append(f"{rid}: a multi question answered from one document")
        if kind != "multi" and len(named) != 1:
            problems.append(f"{rid}: a {kind} question answered from {len(named)} documents")
        passage = r.get("passage")
        if passage is not None:
            document, unit = pairs[0]
            text = documents.get(document, {}).get(unit)
            if not isinstance(passage, str) or not passage.strip():
                problems.append(f"{rid}: empty passage")
            elif text is not None and fold(passage) not in fold(text):
                problems.append(f"{rid}: passage not found in {unit} of {document}")

    expected_split = assign_splits(list(by_id.values()))
    for rid, r in by_id.items():
        if r.get("kind") in KINDS and expected_split.get(rid) != r.get("split"):
            problems.append(f"{rid}: split {r.get('split')} but the rule gives {expected_split.get(rid)}")

    # counts
    records = list(by_id.values())
    counts = Counter((r.get("kind"), r.get("split")) for r in records)
    if len(records) < MINIMUM_TOTAL:
        problems.append(f"{len(records)} questions; at least {MINIMUM_TOTAL}")
    for kind in KINDS:
        total = counts[kind, "dev"] + counts[kind, "held_out"]
        if total < MINIMUM[kind]:
            problems.append(f"{kind}: {total} questions; at least {MINIMUM[kind]}")
        if not counts[kind, "dev"] or not counts[kind, "held_out"]:
            problems.append(f"{kind}: not represented in both splits")
        if abs(counts[kind, "dev"] - counts[kind, "held_out"]) > 1:
            problems.append(f"{kind}: dev {counts[kind, 'dev']} vs held_out {counts[kind, 'held_out']}")
    dev = sum(1 for r in records if r.get("split") == "dev")
    if abs(dev - (len(records) - dev)) > 2:
        problems.append(f"dev {dev} vs held_out {len(records) - dev}: not half each")
    answered = [r for r in records if r.get("answers")]
    civil = sum(1 for r in answered if any(a.get("document") == CIVIL_CODE for a in r["answers"]))
    if answered and civil * 2 > len(answered):
        problems.append(f"the Civil Code answers {civil} of {len(answered)} questions: more than half")
    for r in records:
        for a in r.get("answers") or []:
            if isinstance(a, dict) and a.get("document") in documents and not documents[a["document"]]:
                problems.append(f"{r['id']}: cites {a['document']}, whose text layer holds no unit")
    return problems


# ---------------------------------------------------------------- report

def summary(records: list[dict], documents: dict[str, dict[str, str]]) -> list[str]:
    out = ["documents (units read):"]
    for name in DOCUMENTS:
        units = documents.get(name, {})
        articles = sum(1 for u in units if u.startswith("Điều "))
        extra = sorted(u for u in units if not u.startswith("Điều "))
        shown = f"{articles} articles" + (f" + {', '.join(extra)}" if extra else "")
        out.append(f"  {name:40} {shown if units else 'skipped: no unit in its text layer'}")
    counts = Counter((r["kind"], r["split"]) for r in records)
    out.append("")
    out.append(f"  {'kind':14} {'dev':>5} {'held_out':>9} {'total':>6}")
    for kind in KINDS:
        d, h = counts[kind, "dev"], counts[kind, "held_out"]
        out.append(f"  {kind:14} {d:5} {h:9} {d + h:6}")
    d = sum(counts[k, "dev"] for k in KINDS)
    h = sum(counts[k, "held_out"] for k in KINDS)
    out.append(f"  {'all':14} {d:5} {h:9} {d + h:6}")
    twins = sum(1 for r in records if r.get("twin_of"))
    out.append(f"  unaccented twins of accented questions: {twins}")
    out.append("")
    out.append("questions per document (a multi question counts for each of its documents;")
    out.append("missing_unit questions count for the document they cite):")
    out.append(f"  {'document':40} {'dev':>5} {'held_out':>9} {'total':>6}")
    per_doc: Counter = Counter()
    for r in records:
        docs = {a["document"] for a in r.get("answers") or []}
        if r.get("kind") == "missing_unit":
            docs = {(r.get("cites") or {}).get("document")}
        for doc in docs:
            per_doc[doc, r["split"]] += 1
    for name in DOCUMENTS:
        d, h = per_doc[name, "dev"], per_doc[name, "held_out"]
        out.append(f"  {name:40} {d:5} {h:9} {d + h:6}")
    answered = [r for r in records if r.get("answers")]
    civil = sum(1 for r in answered if any(a["document"] == CIVIL_CODE for a in r["answers"]))
    passages = sum(1 for r in records if r.get("passage") is not None)
    out.append(f"  Civil Code share of answered questions: {civil}/{len(answered)}")
    out.append(f"  passages checked inside their unit: {passages}")
    return out


def read_records(path: Path) -> tuple[list[dict], list[str]]:
    """The JSON objects of ``path``, one a line, and what is wrong with the
    lines that are not one."""
    records: list[dict] = []
    problems: list[str] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"line {n}: not JSON ({error.msg})")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {n}: not an object")
            continue
        records.append(record)
    return records, problems


def run_checker(argv, description, questions, load_documents, check, summary) -> int:
    """Read a question set (``--questions``, else ``questions``) and the
    corpus (``--corpus``, else $DUOCTHU_CORPUS, else ../shared/corpus beside
    the repository), check one against the other, print the summary and the
    problems; 0 when there are none. Shared with eval/legal_qa_fresh."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", type=Path, help="the shared corpus folder")
    parser.add_argument("--questions", type=Path, default=questions)
    args = parser.parse_args(argv)
    corpus = args.corpus or Path(os.environ.get("DUOCTHU_CORPUS") or HERE.parents[2] / "shared" / "corpus")

    records, problems = read_records(args.questions)
    documents, notes = load_documents(corpus)
    problems += check(records, documents)
    try:
        print("\n".join(summary(records, documents)))
    except (KeyError, TypeError, AttributeError):
        print("(no summary: the records are malformed; see the problems below)")
    for note in notes:
        print(f"note: {note}")
    for problem in problems:
        print(f"PROBLEM {problem}")
    print(f"{len(records)} questions, {len(problems)} problem(s)")
    return 0 if not problems else 1


def main(argv: list[str] | None = None) -> int:
    return run_checker(argv, __doc__.split("\n\n")[0], QUESTIONS, load_documents, check, summary)


if __name__ == "__main__":
    sys.exit(main())
