"""Check the formulary question gold set against the formulary itself.

Reads the sample formulary (data/inbox/formulary/duoc_thu_mau.pdf, made by
scripts/make_sample_formulary.py) with its own reader, not the project's
parser: PyMuPDF page text, line by line, with each page's running footer
(``DƯỢC THƯ QUỐC GIA VIỆT NAM – BẢN MẪU`` and the lines after it) dropped.
A monograph starts at an upper-case line followed by ``Tên chung quốc tế:``;
a section starts at a line that is one of the formulary's standard section
headings, or at an inline label (``Tên chung quốc tế:``, ``Mã ATC:``,
``Loại thuốc:``) whose text is the rest of its line. A unit (monograph,
section) runs to the next section or monograph.

Verifies, for eval/formulary_qa/questions.jsonl: the record fields, unique
ids, that every named monograph and section exists (and that a missing_unit
citation really names none), that each passage lies inside its first
answer's unit (after Unicode NFC and whitespace folding), how each kind is
typed, that twins share their root's answers and split, the split rule of
the README, and the counts. Prints a summary (ids and counts, never a
held-out question's text) and exits 1 on any problem.

    .venv/bin/python eval/formulary_qa/check_questions.py [--pdf FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.jsonl"
REPO = HERE.parents[1]
DOCUMENT = "duoc_thu_mau.pdf"
PDF = REPO / "data" / "inbox" / "formulary" / DOCUMENT
FOOTER = "DƯỢC THƯ QUỐC GIA VIỆT NAM – BẢN MẪU"

SECTIONS = (
    "Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Dạng thuốc và hàm lượng", "Dược lý và cơ chế tác dụng",
    "Dược động học", "Chỉ định", "Chống chỉ định", "Thận trọng", "Thời kỳ mang thai", "Thời kỳ cho con bú",
    "Tác dụng không mong muốn (ADR)", "Liều lượng và cách dùng", "Tương tác thuốc", "Độ ổn định và bảo quản",
    "Quá liều và xử trí",
)
INLINE = ("Tên chung quốc tế", "Mã ATC", "Loại thuốc")  # "Mã ATC: J01GB03." — the label opens its line

KINDS = ("accented", "unaccented", "citation", "missing_unit")
MINIMUM = {"accented": 20, "unaccented": 10, "citation": 4, "missing_unit": 2}
MINIMUM_TOTAL = 40
MINIMUM_PER_MONOGRAPH = 4
SPLITS = ("dev", "held_out")
SPLIT_ORDER = ("accented", "citation", "missing_unit", "unaccented")  # a twin's root (accented) comes first
FIELDS = ("id", "query", "kind", "twin_of", "answers", "passage", "split")
ID = re.compile(r"fq\d{3}")
ID_FORM = "fqNNN"  # how ID reads in a message


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def fold(text: str) -> str:
    return " ".join(nfc(text).split())


def read_lines(pdf: Path) -> list[str]:
    """The formulary's lines in page order, running footers dropped."""
    import pymupdf

    lines: list[str] = []
    with pymupdf.open(pdf) as doc:
        for page in doc:
            for line in page.get_text().splitlines():
                line = fold(line)
                if line == FOOTER:
                    break  # the footer, then the monograph's name and the page number
                if line:
                    lines.append(line)
    return lines


def read_units(lines: list[str]) -> dict[str, dict[str, str]]:
    """{monograph: {section: text}}: the text under each section heading."""
    units: dict[str, dict[str, str]] = {}
    monograph = section = None
    for i, line in enumerate(lines):
        if line.isupper() and i + 1 < len(lines) and lines[i + 1].startswith("Tên chung quốc tế:"):
            monograph, section = line, None
            units[monograph] = {}
            continue
        if monograph is None:
            continue  # front matter
        label = next((s for s in INLINE if line.startswith(s + ":")), None)
        if label:
            section = label
            units[monograph][section] = line[len(label) + 1:].strip()
            section = None  # an inline label's unit is its own line
            continue
        if line in SECTIONS:
            section = line
            units[monograph][section] = ""
            continue
        if section is not None:
            units[monograph][section] = (units[monograph][section] + " " + line).strip()
    return units


def _order(record_id: str) -> str:
    return hashlib.sha256(record_id.encode()).hexdigest()


def primary_monograph(record: dict) -> str:
    if record.get("kind") == "missing_unit":
        return (record.get("cites") or {}).get("monograph", "")
    answers = record.get("answers") or [{}]
    return answers[0].get("monograph", "")


def assign_splits(records: list[dict]) -> dict[str, str]:
    """The split rule (README "Splits"): kind by kind in SPLIT_ORDER, a twin
    takes its root's split; the others, ordered by (primary monograph, sha256
    of the id), go to the split with fewer of that kind so far, then fewer of
    that monograph, then fewer overall, then dev."""
    split: dict[str, str] = {}
    of_kind: Counter = Counter()
    of_monograph: Counter = Counter()
    overall: Counter = Counter()

    def place(record: dict, kind: str, chosen: str) -> None:
        split[record["id"]] = chosen
        of_kind[kind, chosen] += 1
        of_monograph[primary_monograph(record), chosen] += 1
        overall[chosen] += 1

    for kind in SPLIT_ORDER:
        of_this = [r for r in records if r.get("kind") == kind]
        for r in sorted((r for r in of_this if r.get("twin_of")), key=lambda r: _order(r["id"])):
            if r["twin_of"] in split:
                place(r, kind, split[r["twin_of"]])
        for r in sorted((r for r in of_this if not r.get("twin_of")), key=lambda r: (primary_monograph(r), _order(r["id"]))):
            m = primary_monograph(r)
            place(r, kind, min(SPLITS, key=lambda s: (of_kind[kind, s], of_monograph[m, s], overall[s], SPLITS.index(s))))
    return split


def check(records: list[dict], units: dict[str, dict[str, str]]) -> list[str]:
    problems: list[str] = []
    by_id: dict[str, dict] = {}
    for n, r in enumerate(records, 1):
        rid = r.get("id", f"line {n}")
        expected = set(FIELDS) | ({"cites"} if r.get("kind") == "missing_unit" else set())
        if set(r) != expected:
            problems.append(f"{rid}: fields {sorted(r)} (expected {sorted(expected)})")
        if not ID.fullmatch(str(r.get("id", ""))):
            problems.append(f"{rid}: id is not {ID_FORM}")
        if rid in by_id:
            problems.append(f"{rid}: duplicate id")
        by_id[rid] = r
        if r.get("kind") not in KINDS:
            problems.append(f"{rid}: kind {r.get('kind')!r} is not one of {', '.join(KINDS)}")
        if r.get("split") not in SPLITS:
            problems.append(f"{rid}: split {r.get('split')!r}")
        query = r.get("query") or ""
        if not query.strip():
            problems.append(f"{rid}: empty query")
        if r.get("kind") == "unaccented" and (not query.isascii() or query != query.lower() or "?" in query):
            problems.append(f"{rid}: an unaccented query is ASCII, lower case, without '?'")
        if r.get("kind") in ("accented", "citation") and query.isascii():
            problems.append(f"{rid}: an accented or citation query carries its diacritics")
        answers = r.get("answers") or []
        if r.get("kind") == "missing_unit":
            cites = r.get("cites") or {}
            if answers or r.get("passage") is not None:
                problems.append(f"{rid}: a missing_unit question has no answers and no passage")
            if cites.get("section") in units.get(cites.get("monograph", ""), {}):
                problems.append(f"{rid}: cites {cites} which exists")
            continue
        if not answers:
            problems.append(f"{rid}: no answers")
        for a in answers:
            if a.get("document") != DOCUMENT:
                problems.append(f"{rid}: document {a.get('document')!r} is not {DOCUMENT}")
            if a.get("monograph") not in units:
                problems.append(f"{rid}: no monograph {a.get('monograph')!r}")
            elif a.get("section") not in units[a["monograph"]]:
                problems.append(f"{rid}: {a['monograph']} has no section {a.get('section')!r}")
        first = answers[0] if answers else {}
        text = units.get(first.get("monograph", ""), {}).get(first.get("section", ""), "")
        if not r.get("passage") or fold(r["passage"]) not in fold(text):
            problems.append(f"{rid}: passage not inside {first.get('monograph')} / {first.get('section')}")
    for rid, r in by_id.items():
        if r.get("twin_of"):
            root = by_id.get(r["twin_of"])
            if root is None or root.get("kind") != "accented":
                problems.append(f"{rid}: twin_of {r['twin_of']} is not an accented question")
            elif root.get("answers") != r.get("answers") or root.get("split") != r.get("split"):
                problems.append(f"{rid}: a twin has its root's answers and split")
            if r.get("kind") != "unaccented":
                problems.append(f"{rid}: only an unaccented question is a twin")
    expected = assign_splits(list(by_id.values()))
    for rid, r in by_id.items():
        if r.get("split") != expected.get(rid):
            problems.append(f"{rid}: split {r.get('split')} but the rule gives {expected.get(rid)}")
    kinds = Counter(r.get("kind") for r in records)
    for kind, least in MINIMUM.items():
        if kinds[kind] < least:
            problems.append(f"{kinds[kind]} {kind} questions, fewer than {least}")
        per = Counter(r.get("split") for r in records if r.get("kind") == kind)
        if len(SPLITS) > 1 and abs(per["dev"] - per["held_out"]) > 1:  # a held-out-only set has one split
            problems.append(f"{kind}: {per['dev']} dev / {per['held_out']} held_out, more than one apart")
    if len(records) < MINIMUM_TOTAL:
        problems.append(f"{len(records)} questions, fewer than {MINIMUM_TOTAL}")
    per_monograph = Counter(primary_monograph(r) for r in records if r.get("kind") != "missing_unit")
    for monograph in units:
        if per_monograph[monograph] < MINIMUM_PER_MONOGRAPH:
            problems.append(f"{monograph}: {per_monograph[monograph]} questions, fewer than {MINIMUM_PER_MONOGRAPH}")
    return problems


def summary(records: list[dict], units: dict[str, dict[str, str]]) -> list[str]:
    out = [f"{DOCUMENT}: {len(units)} monographs, {sum(len(s) for s in units.values())} sections"]
    for monograph, sections in units.items():
        n = Counter(r["split"] for r in records if primary_monograph(r) == monograph)
        out.append(f"  {monograph}: {len(sections)} sections, questions {n['dev']} dev / {n['held_out']} held_out")
    out.append("kind          dev  held_out  total")
    for kind in KINDS:
        n = Counter(r["split"] for r in records if r["kind"] == kind)
        out.append(f"{kind:<12} {n['dev']:>4} {n['held_out']:>9} {n['dev'] + n['held_out']:>6}")
    n = Counter(r["split"] for r in records)
    out.append(f"{'all':<12} {n['dev']:>4} {n['held_out']:>9} {len(records):>6}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=PDF)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    args = ap.parse_args(argv)
    units = read_units(read_lines(args.pdf))
    records = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = check(records, units)
    print("\n".join(summary(records, units)) if not problems else "")
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    print(f"{len(records)} questions: " + ("ok" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
