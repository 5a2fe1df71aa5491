"""Check the fresh held-out legal question set against the documents themselves.

Reads each text-layer legal document of the shared corpus with its own reader,
not the project's parser: python-docx body paragraphs in order, PyMuPDF page
text (the page number alone on a page's first line dropped). A unit "Điều N"
is the text from the line "Điều N." to the line "Điều N+1." (headings taken in
sequence, so a cross-reference inside a clause never starts a unit); for the
precedent, "Nội dung án lệ" runs from its heading to the end and "Đoạn [n]" is
paragraph [n] of "Nhận định của Tòa án". The three scanned `vnlaw__` PDFs have
no text layer beyond a signature stamp: their units are read from the hand
transcriptions in eval/ocr_truth/<file>/page-NNN.txt (the pages transcribed
there; a heading "Điều N." starts a unit when N is above the last one).

Verifies, for eval/legal_qa_fresh/questions.jsonl: the record fields, unique
ids lfNNN, every record in the held_out split, that every answer unit exists
and every missing_unit citation names no unit, that each passage lies inside
its first answer's unit (after Unicode NFC and whitespace folding), how each
kind is typed, that each twin matches its original (same answers, passage
and split; its words, folded, those of the original), that scanned documents
are tagged `"scan": true` and only they, and the counts and spread of the mix.
Prints a summary (ids and counts, never a question's text) and exits 1 on any
problem.

    .venv/bin/python eval/legal_qa_fresh/check_questions.py [--corpus DIR]

The corpus is read from --corpus, else $DUOCTHU_CORPUS, else ../shared/corpus
beside the repository.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _first_set_checker():
    """eval/legal_qa/check_questions.py, whose readers this checker shares
    (loaded by path: eval/ is not a package, and both files have one name)."""
    spec = importlib.util.spec_from_file_location("legal_qa_check_questions", HERE.parent / "legal_qa" / "check_questions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_FIRST = _first_set_checker()
nfc, fold, read_lines = _FIRST.nfc, _FIRST.fold, _FIRST.read_lines
precedent_units, has_diacritics = _FIRST.precedent_units, _FIRST.has_diacritics
QUESTIONS = HERE / "questions.jsonl"
OCR_TRUTH = HERE.parent / "ocr_truth"

TEXT_DOCUMENTS = (
    "vn__bo_luat_dan_su_91-2015-QH13.docx",
    "vn__nghi_dinh_99-2022-ND-CP.docx",
    "vn__nghi_dinh_19-2019-ND-CP.docx",
    "vn__an_le_so_43-2021-AL.pdf",
    "diepxuan__49-2026-ND-CP.pdf",
    "diepxuan__50-2026-ND-CP.pdf",
)
SCANNED = ("vnlaw__59-nd.signed.pdf", "vnlaw__06-bct.signed.pdf", "vnlaw__28-pt.signed.pdf")
DOCUMENTS = TEXT_DOCUMENTS + SCANNED
CIVIL_CODE = "vn__bo_luat_dan_su_91-2015-QH13.docx"
PRECEDENT = "vn__an_le_so_43-2021-AL.pdf"

KINDS = ("accented", "unaccented", "citation", "scenario", "multi", "missing_unit")
# Minimums over the questions on text-layer documents (the scanned ones are scored apart).
MINIMUM = {"accented": 25, "unaccented": 20, "citation": 15, "scenario": 20, "multi": 6, "missing_unit": 4}
MINIMUM_TOTAL = 90
MINIMUM_TWINS = 20
MINIMUM_SCAN = 3
MINIMUM_PER_DOCUMENT = 4      # every text-layer document answers at least this many questions
MAXIMUM_PER_UNIT = 3          # no unit answers more than this many questions (twins not counted)
MINIMUM_DISTINCT_UNITS = 60
TWIN_WORDS = 0.6              # share of the original's folded words a twin keeps

FIELDS = ("id", "query", "kind", "twin_of", "answers", "passage", "split")
ID = re.compile(r"lf\d{3}")
ID_FORM = "lfNNN"            # how ID reads in a message
ARTICLE = re.compile(r"\s*Điều\s+(\d+)\s*\.")
ARTICLE_UNIT = re.compile(r"Điều (\d+)")
PARAGRAPH = re.compile(r"\s*\[(\d+)\]")


def unaccent_words(text: str) -> list[str]:
    """Lower case, no diacritics, đ as d, words of letters and digits."""
    bare = "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if not unicodedata.combining(c))
    return re.findall(r"[a-z0-9]+", bare.replace("đ", "d"))


# ---------------------------------------------------------------- documents

def article_units(lines: list[str], gaps: bool = False) -> dict[str, str]:
    """``{"Điều N": text}`` from the headings taken in sequence (with
    ``gaps``, any heading above the last one: transcribed pages skip some)."""
    starts: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        m = ARTICLE.match(line)
        if not m:
            continue
        n, last = int(m.group(1)), (starts[-1][1] if starts else 0)
        if n == last + 1 or (gaps and n > last):
            starts.append((i, n))
    units = {}
    for k, (start, n) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        units[f"Điều {n}"] = "\n".join(lines[start:end])
    return units


def transcribed_lines(name: str) -> list[str]:
    """The hand-transcribed pages of a scanned document, in page order."""
    lines: list[str] = []
    for page in sorted((OCR_TRUTH / name).glob("page-*.txt")):
        lines.extend(nfc(line) for line in page.read_text(encoding="utf-8").splitlines())
    return lines


def load_documents(corpus: Path) -> tuple[dict[str, dict[str, str]], list[str]]:
    documents: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    for name in DOCUMENTS:
        if name in SCANNED:
            documents[name] = article_units(transcribed_lines(name), gaps=True)
            if not documents[name]:
                notes.append(f"{name}: no transcribed page under {OCR_TRUTH}")
            continue
        path = corpus / name
        if not path.is_file():
            notes.append(f"{name}: not found in {corpus}")
            documents[name] = {}
            continue
        lines = read_lines(path)
        units = article_units(lines)
        if name == PRECEDENT:
            units.update(precedent_units(lines))
        documents[name] = units
    return documents, notes


# ---------------------------------------------------------------- checks

def answered_documents(record: dict) -> set[str]:
    if record.get("kind") == "missing_unit":
        return {str((record.get("cites") or {}).get("document"))}
    return {a.get("document") for a in record.get("answers") or [] if isinstance(a, dict)}


def check_record(r: dict, documents: dict[str, dict[str, str]]) -> list[str]:
    """What is wrong with one record on its own (fields aside)."""
    rid, kind, query = r["id"], r.get("kind"), r.get("query") or ""
    problems: list[str] = []
    if kind == "unaccented" and has_diacritics(query):
        problems.append(f"{rid}: an unaccented query has a diacritic or đ")
    if kind in ("accented", "scenario", "multi") and not has_diacritics(query):
        problems.append(f"{rid}: a {kind} query has no diacritics")
    if kind in ("citation", "missing_unit") and not re.search(r"\d", query):
        problems.append(f"{rid}: a {kind} query names no number")
    answers = r.get("answers")
    if not isinstance(answers, list):
        return problems + [f"{rid}: answers is not a list"]
    if kind == "missing_unit":
        if answers:
            problems.append(f"{rid}: a missing_unit question has answers")
        if r.get("passage") is not None:
            problems.append(f"{rid}: a missing_unit question has a passage")
        cites = r.get("cites") or {}
        units = documents.get(cites.get("document"))
        if cites.get("document") in SCANNED:
            problems.append(f"{rid}: a missing unit of a scanned document cannot be confirmed absent")
        elif not units:
            problems.append(f"{rid}: cites an unknown or unreadable document")
        elif cites.get("unit") in units:
            problems.append(f"{rid}: cites {cites.get('unit')}, which exists")
        elif not ARTICLE_UNIT.fullmatch(cites.get("unit") or ""):
            problems.append(f"{rid}: cites a unit not named 'Điều N'")
        return problems
    if not answers:
        return problems + [f"{rid}: no answer"]
    if any(not isinstance(a, dict) or set(a) != {"document", "unit"} for a in answers):
        return problems + [f"{rid}: an answer is not {{document, unit}}"]
    pairs = [(a["document"], a["unit"]) for a in answers]
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
    if bool(named & set(SCANNED)) != (r.get("scan") is True):
        problems.append(f"{rid}: 'scan': true must mark exactly the questions on scanned documents")
    passage = r.get("passage")
    text = documents.get(pairs[0][0], {}).get(pairs[0][1])
    if not isinstance(passage, str) or not passage.strip():
        problems.append(f"{rid}: empty passage")
    elif text is not None and fold(passage) not in fold(text):
        problems.append(f"{rid}: passage not found in {pairs[0][1]} of {pairs[0][0]}")
    return problems


def check_twin(r: dict, by_id: dict[str, dict]) -> list[str]:
    rid, root_id = r["id"], r.get("twin_of")
    root = by_id.get(root_id)
    problems = []
    if r.get("kind") != "unaccented":
        problems.append(f"{rid}: only an unaccented question is a twin")
    if root is None or root.get("kind") != "accented":
        return problems + [f"{rid}: twin_of {root_id} is not an accented question"]
    for field in ("answers", "passage", "split", "scan"):
        if root.get(field) != r.get(field):
            problems.append(f"{rid}: twin of {root_id} with another {field}")
    words, twin_words = set(unaccent_words(root.get("query", ""))), set(unaccent_words(r.get("query", "")))
    if words and len(words & twin_words) < TWIN_WORDS * len(words):
        problems.append(f"{rid}: keeps {len(words & twin_words)} of the {len(words)} words of {root_id}: not a retyping")
    return problems


def check(records: list[dict], documents: dict[str, dict[str, str]]) -> list[str]:
    problems: list[str] = []
    by_id: dict[str, dict] = {}
    for n, r in enumerate(records, 1):
        rid = r.get("id")
        where = rid if isinstance(rid, str) else f"line {n}"
        expected = set(FIELDS) | ({"cites"} if r.get("kind") == "missing_unit" else set()) | ({"scan"} if "scan" in r else set())
        if set(r) != expected:
            problems.append(f"{where}: fields {sorted(set(r) ^ expected)} missing or unexpected")
        if not isinstance(rid, str) or not ID.fullmatch(rid):
            problems.append(f"{where}: id is not {ID_FORM}")
        elif rid in by_id:
            problems.append(f"{where}: duplicate id")
        else:
            by_id[rid] = r
        if r.get("kind") not in KINDS:
            problems.append(f"{where}: unknown kind {r.get('kind')!r}")
        if r.get("split") != "held_out":
            problems.append(f"{where}: every question of this set is held_out")
        if "scan" in r and r["scan"] is not True:
            problems.append(f"{where}: 'scan' is true or absent")
        if not isinstance(r.get("query"), str) or not r.get("query", "").strip():
            problems.append(f"{where}: empty query")
    queries = Counter(fold(str(r.get("query"))).casefold() for r in by_id.values())
    problems += [f"a query is asked {n} times" for q, n in queries.items() if n > 1]
    for r in by_id.values():
        problems += check_record(r, documents)
        if r.get("twin_of") is not None:
            problems += check_twin(r, by_id)
    return problems + check_mix(list(by_id.values()))


def check_mix(records: list[dict]) -> list[str]:
    """The counts and the spread over documents and units."""
    problems = []
    text = [r for r in records if not r.get("scan")]
    counts = Counter(r.get("kind") for r in text)
    if len(text) < MINIMUM_TOTAL:
        problems.append(f"{len(text)} questions on text-layer documents; at least {MINIMUM_TOTAL}")
    problems += [f"{k}: {counts[k]} questions; at least {m}" for k, m in MINIMUM.items() if counts[k] < m]
    twins = sum(1 for r in text if r.get("twin_of"))
    if twins < MINIMUM_TWINS:
        problems.append(f"{twins} twins; at least {MINIMUM_TWINS}")
    if sum(1 for r in records if r.get("scan")) < MINIMUM_SCAN:
        problems.append(f"fewer than {MINIMUM_SCAN} questions on the scanned documents")
    answered = [r for r in records if r.get("answers")]
    civil = sum(1 for r in answered if CIVIL_CODE in answered_documents(r))
    if answered and civil * 2 > len(answered):
        problems.append(f"the Civil Code answers {civil} of {len(answered)} questions: more than half")
    per_doc = Counter(d for r in records for d in answered_documents(r))
    problems += [f"{d}: {per_doc[d]} questions; at least {MINIMUM_PER_DOCUMENT}"
                 for d in TEXT_DOCUMENTS if per_doc[d] < MINIMUM_PER_DOCUMENT]
    per_unit = Counter((a.get("document"), a.get("unit")) for r in answered if not r.get("twin_of")
                       for a in r["answers"] if isinstance(a, dict))
    problems += [f"{u} of {d} answers {n} questions; at most {MAXIMUM_PER_UNIT}"
                 for (d, u), n in per_unit.items() if n > MAXIMUM_PER_UNIT]
    if len(per_unit) < MINIMUM_DISTINCT_UNITS:
        problems.append(f"{len(per_unit)} distinct answer units; at least {MINIMUM_DISTINCT_UNITS}")
    return problems


# ---------------------------------------------------------------- report

def summary(records: list[dict], documents: dict[str, dict[str, str]]) -> list[str]:
    out = ["documents (units read):"]
    for name in DOCUMENTS:
        units = documents.get(name, {})
        articles = sum(1 for u in units if u.startswith("Điều "))
        extra = sorted(u for u in units if not u.startswith("Điều "))
        shown = f"{articles} articles" + (f" + {', '.join(extra)}" if extra else "")
        source = "hand transcription of its transcribed pages" if name in SCANNED else "text layer"
        out.append(f"  {name:40} {shown} ({source})")
    counts = Counter((r["kind"], bool(r.get("scan"))) for r in records)
    out += ["", f"  {'kind':14} {'text':>5} {'scan':>5} {'total':>6}"]
    for kind in KINDS:
        t, s = counts[kind, False], counts[kind, True]
        out.append(f"  {kind:14} {t:5} {s:5} {t + s:6}")
    t, s = sum(counts[k, False] for k in KINDS), sum(counts[k, True] for k in KINDS)
    out.append(f"  {'all':14} {t:5} {s:5} {t + s:6}")
    out.append(f"  unaccented twins of accented questions: {sum(1 for r in records if r.get('twin_of'))}")
    out += ["", "questions per document (a multi question counts for each of its documents;",
            "missing_unit questions count for the document they cite):"]
    per_doc = Counter(d for r in records for d in answered_documents(r))
    for name in DOCUMENTS:
        out.append(f"  {name:40} {per_doc[name]:4}")
    answered = [r for r in records if r.get("answers")]
    civil = sum(1 for r in answered if CIVIL_CODE in answered_documents(r))
    units = {(a["document"], a["unit"]) for r in answered for a in r["answers"]}
    out.append(f"  Civil Code share of answered questions: {civil}/{len(answered)}")
    out.append(f"  distinct answer units: {len(units)}")
    out.append(f"  passages checked inside their unit: {sum(1 for r in records if r.get('passage') is not None)}")
    out.append(f"  missing units confirmed absent: {sum(1 for r in records if r.get('kind') == 'missing_unit')}")
    return out


def main(argv: list[str] | None = None) -> int:
    return _FIRST.run_checker(argv, __doc__.split("\n\n")[0], QUESTIONS, load_documents, check, summary)


if __name__ == "__main__":
    sys.exit(main())
