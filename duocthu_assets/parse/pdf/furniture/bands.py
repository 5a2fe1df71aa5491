"""The top and bottom bands of a page: rows of fragments on one baseline
that stand apart from the body (whitespace or a loose rule between), and a
lone page number at the place where other pages print theirs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Fragment, PageContent, Rule
from ....settings.pdf import PdfSettings
from .page_numbers import MAX_LONE_PAGE_DIGITS, parse_page_number


@dataclass(frozen=True)
class BandRow:
    indices: tuple[int, ...]
    top: bool  # in the top band (else the bottom band)
    outermost: bool  # the first row of the page (top band) or the last (bottom band)
    ruled: bool = False  # a loose rule separates it from the body


def band_rows(page: PageContent, settings: PdfSettings, rows: list[list[int]] | None = None) -> list[BandRow]:
    """Rows in the top/bottom bands that stand apart from the rest of the
    page (``rows``: the page's :func:`baseline_rows`, when already known)."""
    frags = page.fragments
    if not frags:
        return []
    top_limit = page.height * settings.furniture_band_frac
    bottom_limit = page.height * (1 - settings.furniture_band_frac)
    rows = baseline_rows(frags) if rows is None else rows
    out: list[BandRow] = []
    # from the top down: the leading rows inside the band, split where whitespace separates
    out += _separated_rows(rows, frags, page.rules, settings, lambda r: _row_box(r, frags)[3] <= top_limit, top=True)
    out += _separated_rows(list(reversed(rows)), frags, page.rules, settings, lambda r: _row_box(r, frags)[1] >= bottom_limit, top=False)
    return out


def baseline_rows(frags: tuple[Fragment, ...]) -> list[list[int]]:
    """Fragments on one baseline, top to bottom (vertical lines are in no row)."""
    order = sorted((i for i in range(len(frags)) if not is_rotated(frags[i])), key=lambda i: (frags[i].bbox[1], frags[i].bbox[0]))
    rows: list[list[int]] = []
    row_box = None
    for i in order:
        b = frags[i].bbox
        if row_box is not None:
            overlap = min(row_box[3], b[3]) - max(row_box[1], b[1])
            if overlap >= 0.5 * min(row_box[3] - row_box[1], b[3] - b[1]):
                rows[-1].append(i)
                row_box = (min(row_box[0], b[0]), min(row_box[1], b[1]), max(row_box[2], b[2]), max(row_box[3], b[3]))
                continue
        rows.append([i])
        row_box = b
    return rows


def _row_box(row: list[int], frags) -> tuple[float, float, float, float]:
    boxes = [frags[i].bbox for i in row]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _line_height(row: list[int], frags) -> float:
    """A row's text height: its tallest fragment. Not the row's box, which a
    page number set on a baseline of its own beside a running title
    (``Borkhataria et al.   69``) makes taller than any line of it."""
    return max(frags[i].bbox[3] - frags[i].bbox[1] for i in row)


def _rule_between(rules: tuple[Rule, ...], y_a: float, y_b: float, x0: float, x1: float) -> bool:
    """A loose horizontal rule (touching no vertical rule: not a table's)
    between two rows."""
    lo, hi = min(y_a, y_b), max(y_a, y_b)
    for r in rules:
        if r.horizontal and lo - 1 <= r.pos <= hi + 1 and r.x1 > x0 and r.x0 < x1:
            touching = any(
                not v.horizontal and r.x0 - 2 <= v.pos <= r.x1 + 2 and v.y0 - 2 <= r.pos <= v.y1 + 2 for v in rules
            )
            if not touching:
                return True
    return False


def crossed_by_vertical_rule(box, rules: tuple[Rule, ...]) -> bool:
    return any(
        not r.horizontal and r.y0 <= box[1] + 1 and r.y1 >= box[3] - 1 and box[0] - 6 <= r.pos <= box[2] + 6 for r in rules
    )


def _separated_rows(rows, frags, rules, settings: PdfSettings, in_band, top: bool) -> list[BandRow]:
    """Walk rows from the page edge inwards; group rows closer than the
    separation gap; keep the groups that lie in the band and are separated
    from the next row inwards. The outermost row alone on its line and
    reading as a page number needs only a little whitespace."""
    out: list[BandRow] = []
    group: list[list[int]] = []
    for k, row in enumerate(rows):
        if not in_band(row) or len(row) > settings.furniture_max_fragments:
            break
        box = _row_box(row, frags)
        if crossed_by_vertical_rule(box, rules):
            break  # a row of a ruled table, not a header or footer
        group.append(row)
        height = _line_height(row, frags)
        if k + 1 >= len(rows):
            # the page is all band: nothing to stand apart from, except a row
            # holding a page number on an otherwise empty (scanned) page, alone
            # or after its running title
            if len(rows) == 1 and any(parse_page_number(frags[i].text) is not None for i in row):
                out.append(BandRow(tuple(row), top, True))
            break
        nxt = _row_box(rows[k + 1], frags)
        gap = (nxt[1] - box[3]) if top else (box[1] - nxt[3])
        ruled = _rule_between(rules, box[3] if top else box[1], nxt[1] if top else nxt[3], min(box[0], nxt[0]), max(box[2], nxt[2]))
        lone_number = k == 0 and len(row) == 1 and parse_page_number(frags[row[0]].text) is not None
        if gap >= settings.furniture_gap_em * max(height, 1.0) or ruled or (lone_number and gap >= settings.lone_number_gap_em * height):
            if ruled and top and len(group) >= 2 and all(len(r) >= 2 for r in group):
                break  # rows of cells over a rule: the rest of a table carried over from the page before
            if len(group) <= settings.furniture_max_rows:
                first = k + 1 - len(group)
                out += [BandRow(tuple(r), top, first + j == 0, ruled) for j, r in enumerate(group)]
            group = []
    return out


def numbers_in_place(
    pages: list[PageContent], rows_by_page: list[list[BandRow]], settings: PdfSettings, page_rows: list[list[list[int]]] | None = None
) -> list[list[BandRow]]:
    """Add to each page's band rows a lone page number that the band rule
    missed, at the place where another page prints its lone page number: one
    short number alone on its row, a line of whitespace from the body, at the
    same height from the top or the bottom of the page and the same left,
    right or centre within ``repeat_position_tol`` as that page's (on a
    taller page, or over a paper's first page's conference lines, it lies
    outside the band). Whether the number is the page's printed page is
    :func:`~.page_numbers.resolve_page_numbers`'s question."""
    places = [
        (page, page.fragments[row.indices[0]].bbox)
        for page, rows in zip(pages, rows_by_page)
        for row in rows
        if row.outermost and len(row.indices) == 1 and _lone_number(page.fragments[row.indices[0]].text)
    ]
    if not places:
        return rows_by_page
    out = []
    for k, (page, rows) in enumerate(zip(pages, rows_by_page)):
        taken = {i for row in rows for i in row.indices}
        added = []
        for top, index, outermost in _lone_number_rows(page, settings, page_rows[k] if page_rows is not None else None):
            box = page.fragments[index].bbox
            if index not in taken and any(other is not page and _same_place(page, box, other, b, settings.repeat_position_tol) for other, b in places):
                added.append(BandRow((index,), top, outermost))
        out.append(rows + added)
    return out


def _lone_number(text: str) -> bool:
    number = parse_page_number(text)
    return number is not None and len(number.label) <= MAX_LONE_PAGE_DIGITS


def _lone_number_rows(page: PageContent, settings: PdfSettings, rows: list[list[int]] | None = None) -> list[tuple[bool, int, bool]]:
    """(upper half, fragment, outermost) for each row of the page that is one
    short number alone, a line of whitespace (``furniture_gap_em``) from the
    next row towards the middle of the page. It may have rows outside it: a
    paper's first page prints its conference line under its page number."""
    frags = page.fragments
    rows = baseline_rows(frags) if rows is None else rows
    out = []
    for k, row in enumerate(rows):
        if len(row) != 1 or not _lone_number(frags[row[0]].text):
            continue
        box = frags[row[0]].bbox
        top = box[1] + box[3] < page.height
        k_in = k + 1 if top else k - 1
        if not 0 <= k_in < len(rows):
            continue
        near = _row_box(rows[k_in], frags)
        gap = near[1] - box[3] if top else box[1] - near[3]
        if gap >= settings.furniture_gap_em * _line_height(row, frags):
            out.append((top, row[0], k in (0, len(rows) - 1)))
    return out


def _same_place(page: PageContent, box, other: PageContent, other_box, tol: float) -> bool:
    """The same height from the top or from the bottom of the page, and the
    same left, right or centre."""
    from_top = abs(box[1] - other_box[1]) <= tol and abs(box[3] - other_box[3]) <= tol
    from_bottom = abs((page.height - box[3]) - (other.height - other_box[3])) <= tol
    across = abs(box[0] - other_box[0]) <= tol or abs(box[2] - other_box[2]) <= tol or abs((box[0] + box[2]) - (other_box[0] + other_box[2])) <= 2 * tol
    return (from_top or from_bottom) and across


def is_rotated(fragment: Fragment) -> bool:
    return bool(fragment.words) and fragment.words[0].rotated
