"""Every character of a PDF accounted for (issue 16), per page.

The parser follows every word of a page's text layer (as PyMuPDF reports it,
whitespace aside) to where it went: a prose segment, a lifted block, or a
recorded piece of furniture; glyphs without a Unicode mapping are counted
apart. It stores the counts per page (``parsed_documents.page_accounts``) and
the furniture lines (``parsed_documents.furniture``). This rule holds it to
them, from the stored rows:

- on every page, characters in = prose + blocks + furniture + unmapped, with
  nothing missing (in no destination) and nothing duplicated (in two);
- the furniture record holds exactly the furniture characters counted;
- a page with prose characters has a segment on it; a page with block
  characters has a lifted block on it.

A failure names the pages and the count of characters unaccounted for.
"""

from __future__ import annotations

from duocthu_assets.parse.pdf.read.rtl import LOST_LETTERS

from .rules import DocumentRows, Rule, RuleResult

RULE_NAME = "every_pdf_character_accounted"


def _nonspace(text: str) -> int:
    return sum(1 for c in text if not c.isspace())


def page_problems(rows: DocumentRows) -> list[tuple[int, int, str]]:
    """(page, characters unaccounted for, what is wrong) for every page that
    breaks the rule."""
    parsed = rows.parsed or {}
    furniture: dict[int, int] = {}
    for line in parsed.get("furniture") or []:
        furniture[line["page_no"]] = furniture.get(line["page_no"], 0) + _nonspace(line["text"])
    segment_pages = {s.get("page_no") for s in rows.segments}
    block_pages = {b.get("page_no") for b in rows.blocks}
    problems: list[tuple[int, int, str]] = []
    for a in parsed.get("page_accounts") or []:
        page = a["page_no"]
        out = a["prose"] + a["blocks"] + a["furniture"] + a["unmapped"]
        if a["missing"] or a["duplicated"] or out != a["chars_in"]:
            count = max(a["missing"] + a["duplicated"], abs(a["chars_in"] - out))
            problems.append(
                (page, count, f"{a['chars_in']} in, {out} out ({a['missing']} in no place, {a['duplicated']} in two)")
            )
        elif furniture.get(page, 0) != a["furniture"]:
            count = abs(furniture.get(page, 0) - a["furniture"])
            problems.append((page, count, f"{a['furniture']} furniture characters counted, {furniture.get(page, 0)} recorded"))
        elif a["prose"] and page not in segment_pages:
            problems.append((page, a["prose"], f"{a['prose']} prose characters but no segment on the page"))
        elif a["blocks"] and page not in block_pages:
            problems.append((page, a["blocks"], f"{a['blocks']} block characters but no lifted block on the page"))
    return problems


def every_pdf_character_accounted(rows: DocumentRows) -> RuleResult:
    parsed = rows.parsed or {}
    if parsed.get("status") != "ok" or parsed.get("format") != "pdf":
        return RuleResult(True, message="not a parsed PDF: nothing to account for")
    accounts = parsed.get("page_accounts") or []
    if parsed.get("page_count") and not accounts:
        return RuleResult(False, 1, (rows.doc_id,), message="a parsed PDF without its per-page character accounting (page_accounts)")
    problems = page_problems(rows)
    if not problems:
        return RuleResult(
            True,
            message=(
                f"all {parsed.get('chars_in', 0):,} characters accounted for: {parsed.get('chars_prose', 0):,} in prose, "
                f"{parsed.get('chars_blocks', 0):,} in blocks, {parsed.get('chars_furniture', 0):,} in furniture, "
                f"{parsed.get('chars_unmapped', 0):,} unmapped glyphs"
            ),
        )
    total = sum(n for _, n, _ in problems)
    shown = "; ".join(f"page {p}: {why}" for p, _, why in problems[:10]) + (" …" if len(problems) > 10 else "")
    # what the parse said of letters it could not place (right-to-left lines), when it did
    shown += "".join(f" — {w}" for w in parsed.get("warnings") or () if LOST_LETTERS in w)
    return RuleResult(
        False,
        total,
        tuple(f"page {p}" for p, _, _ in problems[:20]),
        tuple(p for p, _, _ in problems),
        message=f"{total} character(s) of the text layer unaccounted for on {len(problems)} page(s): {shown}",
    )


ACCOUNTING_RULES = [
    Rule(
        RULE_NAME,
        "parsed_documents",
        "Every character of a PDF page's text layer ends in exactly one of: prose, a lifted block, recorded furniture (or is a counted unmapped glyph).",
        every_pdf_character_accounted,
        ("parsed", "segments", "blocks"),
    )
]
