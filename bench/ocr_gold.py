"""Structure read from scans, against gold: the sample formulary's
monographs and sections (``data/inbox/formulary/duoc_thu_mau.gold.json``)
and tables (its gold blocks; for the real scans, the ``[table]`` blocks of
``eval/ocr_truth``).

A monograph is found when the pipeline names an entry with the gold's
``entry_id``, or, its title garbled by OCR, any entry starting on the gold
monograph's page (then counted as ``found by page``). A section is found
when that entry holds a segment with the gold section's key; a section the
pipeline names that the gold monograph does not have is ``invented``. A
gold table is found when a lifted table block on its page overlaps its box
(any overlap); table blocks overlapping no gold table are ``extra``.
"""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORMULARY_GOLD = REPO / "data" / "inbox" / "formulary" / "duoc_thu_mau.gold.json"


def load_gold(path: Path = FORMULARY_GOLD) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def sections_found(sections: list[dict], gold: dict) -> dict:
    """``sections``: the pipeline's ``{entry_id, section_key, page}`` per segment."""
    named: dict[str, set[str]] = {}
    first_page: dict[str, int] = {}
    for s in sections:
        named.setdefault(s["entry_id"], set())
        if s["section_key"] and s["section_key"] != s["entry_id"]:  # not the entry's own heading
            named[s["entry_id"]].add(s["section_key"])
        if s.get("page") is not None:
            first_page[s["entry_id"]] = min(first_page.get(s["entry_id"], s["page"]), s["page"])
    out = {"monographs": len(gold["monographs"]), "monographs_found": 0, "found_by_page": 0, "sections": 0,
           "sections_found": 0, "sections_invented": 0, "entries_named": len(named), "missing": []}
    used = set()
    for mono in gold["monographs"]:
        keys = {s["key"] for s in mono["sections"]}
        out["sections"] += len(keys)
        entry = mono["entry_id"] if mono["entry_id"] in named else None
        if entry is None:
            entry = next((e for e, p in first_page.items() if p == mono["page"] and e not in used), None)
            out["found_by_page"] += entry is not None
        if entry is None:
            out["missing"].append(mono["entry_id"])
            continue
        used.add(entry)
        out["monographs_found"] += 1
        out["sections_found"] += len(keys & named[entry])
        out["sections_invented"] += len(named[entry] - keys)
        out["missing"] += [f"{mono['entry_id']}/{k}" for k in sorted(keys - named[entry])]
    out["other_entries"] = sorted(set(named) - used)  # front matter, table-of-contents lines, inventions
    return out


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def tables_found(blocks_by_page: dict[int, list[dict]], gold: dict) -> dict:
    """Gold table blocks found among the pipeline's lifted table blocks."""
    gold_tables = [b for b in gold["blocks"] if b["kind"] == "table"]
    found, matched = 0, set()
    for g in gold_tables:
        for i, b in enumerate(blocks_by_page.get(g["page"], ())):
            if b["kind"] == "table" and _overlap(b["bbox"], g["bbox"]):
                found += 1
                matched.add((g["page"], i))
                break
    tables = [(p, i) for p, bs in blocks_by_page.items() for i, b in enumerate(bs) if b["kind"] == "table"]
    return {"tables": len(gold_tables), "found": found, "table_blocks": len(tables),
            "extra": len([t for t in tables if t not in matched])}


def truth_tables(raw: str) -> int:
    """How many ``[table]`` blocks a hand transcription holds."""
    return sum(1 for line in raw.splitlines() if line.strip() == "[table]")


def structure(pages, outputs: dict[str, dict]) -> dict:
    """The pipeline's structure on the bench's pages: the sample formulary's
    sections and tables against its gold (all nine synthetic pages read as
    one document), and table blocks on the real scans against the ``[table]``
    blocks of their truth."""
    out: dict = {}
    name = json.loads(FORMULARY_GOLD.read_text(encoding="utf-8"))["pdf"]
    formulary = [p for p in pages if p.kind == "synthetic" and p.file == name]
    if formulary and all(p.key in outputs for p in formulary):
        gold = load_gold()
        doc = outputs[formulary[0].key]["document"]
        if len(doc["pages"]) == gold["page_count"]:
            out["formulary_sections"] = sections_found(doc["sections"], gold)
            blocks = {p.page: outputs[p.key].get("blocks", []) for p in formulary}
            out["formulary_tables"] = tables_found(blocks, gold)
    real = []
    for p in pages:
        if p.kind == "real" and p.key in outputs:
            raw = (REPO / "eval" / "ocr_truth" / p.file / f"page-{p.page:03d}.txt").read_text(encoding="utf-8")
            found = sum(1 for b in outputs[p.key].get("blocks", []) if b["kind"] == "table")
            real.append({"page": p.key, "truth_tables": truth_tables(raw), "table_blocks": found,
                         "blocked": outputs[p.key].get("blocked", False)})
    if real:
        out["real_tables"] = real
    return out
