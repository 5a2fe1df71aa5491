"""Page furniture: running headers and footers, and the printed page number.

A band row (fragments on one baseline in the top or bottom band of the page)
is furniture when it stands apart from the body (whitespace or a rule between)
and either carries the page number or recurs, digits aside, on other pages.
Anything else in the bands (a footnote, a first line of body text) stays
content: removing text is the costly mistake here.

The printed page is the number in the furniture (front matter makes it differ
from the physical page); roman numerals are kept as a label only (``None`` as
an int). A page that prints no number gets one only between two pages whose
numbers agree on the same offset from the physical page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import Fragment, PageContent, Rule
from ....settings.pdf import PdfSettings

_DASHES = "-–—－‐−"  # ASCII, en and em dashes, fullwidth hyphen-minus ("－15 －"), hyphen, minus
_ORNAMENTS = _DASHES + "\ufffd"  # ... around a page number, or a glyph of its font with no Unicode mapping ("�15 �")
_STANDALONE_PATTERNS = [
    re.compile(rf"^[{_ORNAMENTS}(\[]?\s*(?P<n>\d{{1,6}})\s*[{_ORNAMENTS})\]]?$"),  # 47698: accepted only in a sequence
    re.compile(r"^(?:page|trang|tr\.|p\.|pg\.?)\s*(?P<n>\d{1,4})(?:\s*(?:/|of|trên|sur)\s*\d{1,4})?$", re.IGNORECASE),
    re.compile(r"^(?P<n>\d{1,4})\s*(?:/|of|trên)\s*\d{1,4}$", re.IGNORECASE),
]
_PREFIXED = re.compile(rf"^(?P<p>[A-Z]{{1,2}}[{_DASHES}.])\s?(?P<n>\d{{1,4}})$")  # "A-42": an appendix's pages
_ROMAN = re.compile(rf"^[{_ORNAMENTS}(\[]?\s*(?P<r>[ivxlc]{{1,7}})\s*[{_ORNAMENTS})\]]?$", re.IGNORECASE)  # front matter: no d, m
_ROMAN_VALID = re.compile(r"^(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$|^c{1,3}(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$")
_EMBEDDED = re.compile(r"^(?P<a>\d{1,4})\s+\S.*|.*\S\s+(?P<b>\d{1,4})$")
_DIGITS = re.compile(r"\d+")
_COUNTER = re.compile(r"^\d{1,4}\s*/\s*\d{1,4}$")  # "12/80"
_SPACES = re.compile(r"\s+")
# "Table 1. Lower Muschelkalk Facies" beside the page number (case_03 p. 1, turned to read): the table's caption, content
_NUMBERED_CAPTION = re.compile(r"^(table|tab\.|bảng|figure|fig\.|hình|exhibit)\s*[A-Z]?\d+\b", re.IGNORECASE)


@dataclass(frozen=True)
class PageNumber:
    value: int | None  # arabic value; None for a roman numeral
    label: str  # as printed ("12", "xx")
    standalone: bool  # the number stands alone on its fragment


@dataclass(frozen=True)
class PageFurniture:
    page_no: int
    furniture: frozenset[int]  # indices into PageContent.fragments
    printed_page: int | None
    printed_label: str
    kinds: tuple[tuple[int, str], ...] = ()  # (fragment index, FurnitureKind value) for every index in ``furniture``

    def kind_of(self, index: int) -> str:
        return dict(self.kinds).get(index, "running_header")


@dataclass(frozen=True)
class BandRow:
    indices: tuple[int, ...]
    top: bool  # in the top band (else the bottom band)
    outermost: bool  # the first row of the page (top band) or the last (bottom band)
    ruled: bool = False  # a loose rule separates it from the body


def parse_page_number(text: str) -> PageNumber | None:
    """``"12"``, ``"- 12 -"``, ``"Trang 12"``, ``"12/40"`` → 12; ``"(xx)"`` →
    roman ``xx``; anything else → None."""
    text = text.strip()
    for pattern in _STANDALONE_PATTERNS:
        m = pattern.match(text)
        if m:
            return PageNumber(int(m.group("n")), m.group("n"), True)
    m = _ROMAN.match(text)
    if m and _ROMAN_VALID.match(m.group("r").lower()):
        return PageNumber(None, m.group("r"), True)
    m = _PREFIXED.match(text)
    if m:
        return PageNumber(None, f"{m.group('p')}{m.group('n')}", True)
    return None


def embedded_page_number(text: str) -> PageNumber | None:
    m = _EMBEDDED.match(text.strip())
    if not m:
        return None
    n = m.group("a") or m.group("b")
    return PageNumber(int(n), n, False)


def furniture_key(text: str) -> str:
    """Text as compared across pages: digits and spacing do not count."""
    return _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()


def band_rows(page: PageContent, settings: PdfSettings, rows: list[list[int]] | None = None) -> list[BandRow]:
    """Rows in the top/bottom bands that stand apart from the rest of the
    page (``rows``: the page's :func:`_rows`, when already known)."""
    frags = page.fragments
    if not frags:
        return []
    top_limit = page.height * settings.furniture_band_frac
    bottom_limit = page.height * (1 - settings.furniture_band_frac)
    rows = _rows(frags) if rows is None else rows
    out: list[BandRow] = []
    # from the top down: the leading rows inside the band, split where whitespace separates
    out += _separated_rows(rows, frags, page.rules, settings, lambda r: _row_box(r, frags)[3] <= top_limit, top=True)
    out += _separated_rows(list(reversed(rows)), frags, page.rules, settings, lambda r: _row_box(r, frags)[1] >= bottom_limit, top=False)
    return out


def _rows(frags: tuple[Fragment, ...]) -> list[list[int]]:
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


def _crossed_by_vertical_rule(box, rules: tuple[Rule, ...]) -> bool:
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
        if _crossed_by_vertical_rule(box, rules):
            break  # a row of a ruled table, not a header or footer
        group.append(row)
        height = _line_height(row, frags)
        if k + 1 >= len(rows):
            # the page is all band: nothing to stand apart from, except a row
            # holding a page number on an otherwise empty (scanned) page, alone
            # or after its running title (the Federal Register's p. 8, a scan)
            if len(rows) == 1 and any(parse_page_number(frags[i].text) is not None for i in row):
                out.append(BandRow(tuple(row), top, True))
            break
        nxt = _row_box(rows[k + 1], frags)
        gap = (nxt[1] - box[3]) if top else (box[1] - nxt[3])
        ruled = _rule_between(rules, box[3] if top else box[1], nxt[1] if top else nxt[3], min(box[0], nxt[0]), max(box[2], nxt[2]))
        lone_number = k == 0 and len(row) == 1 and parse_page_number(frags[row[0]].text) is not None
        if gap >= settings.furniture_gap_em * max(height, 1.0) or ruled or (lone_number and gap >= settings.lone_number_gap_em * height):
            if ruled and top and len(group) >= 2 and all(len(r) >= 2 for r in group):
                break  # rows of cells over a rule: the rest of a table carried over from the page before (issue 15)
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
    right or centre within ``repeat_position_tol`` as that page's. Two LaTeX
    pages of different sizes each print ``1`` at the same spot; on the taller
    one it lies above the band. A paper's first page prints ``4969`` where
    the next pages print ``4970``…, with the conference's lines under it (a
    group of three rows, too many for a footer). Whether the number is the
    page's printed page is :func:`resolve_page_numbers`'s question."""
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
    rows = _rows(frags) if rows is None else rows
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


def repeated_lines(pages: list[PageContent], settings: PdfSettings, page_rows: list[list[list[int]]] | None = None) -> list[set[int]]:
    """Per page, the fragments repeated at the same place on most pages,
    wherever on the page they sit: the same text, digits aside (a page
    counter, a date), within ``repeat_position_tol`` of the same baseline and
    the same left, right or centre; on most pages in the top or bottom band,
    on nearly all (``repeat_anywhere_page_frac``, three at least) elsewhere.
    Rows of many fragments and cells of ruled tables are never furniture,
    nor are the lines of a page that repeats more than ``repeat_max_rows``
    rows of another. A browser's ``00:53 6/4/26 about:blank``
    and ``about:blank 12/80`` print too close to the body for the band rule."""
    out: list[set[int]] = [set() for _ in pages]
    if len(pages) < 2:
        return out
    need = max(settings.furniture_min_repeats, -(-len(pages) * settings.repeat_min_page_frac // 1))
    need_anywhere = max(need, 3, -(-len(pages) * settings.repeat_anywhere_page_frac // 1))
    by_key: dict[str, list[tuple[int, int, tuple[float, float, float, float]]]] = {}
    for k, page in enumerate(pages):
        for i, f in enumerate(page.fragments):
            if len(f.text) > settings.repeat_max_chars or is_rotated(f):
                continue  # a paragraph, or a vertical line (margin_stamps reads those)
            key = furniture_key(f.text)
            if len(key.replace("#", "").strip()) >= 2 or _COUNTER.match(f.text.strip()):
                by_key.setdefault(key, []).append((k, i, f.bbox))
    tol = settings.repeat_position_tol
    for key, hits in by_key.items():
        if len({k for k, _, _ in hits}) < need:
            continue
        hits = [h for h in hits if not _crossed_by_vertical_rule(h[2], pages[h[0]].rules)]  # a cell of a ruled table
        by_level: dict[int, list[tuple[int, int, tuple[float, float, float, float]]]] = {}
        for hit in hits:  # baselines in bands of 2 * tol: only neighbouring bands can match
            by_level.setdefault(int((hit[2][1] + hit[2][3]) // (4 * tol)), []).append(hit)
        for k, i, b in hits:
            level = int((b[1] + b[3]) // (4 * tol))
            near = [h for lv in (level - 1, level, level + 1) for h in by_level.get(lv, ())]
            same_place = {
                k2
                for k2, _, b2 in near
                if abs((b[1] + b[3]) - (b2[1] + b2[3])) <= 2 * tol
                and (abs(b[0] - b2[0]) <= tol or abs(b[2] - b2[2]) <= tol or abs((b[0] + b[2]) - (b2[0] + b2[2])) <= 2 * tol)
            }
            band = pages[k].height * settings.furniture_band_frac
            in_band = b[3] <= band or b[1] >= pages[k].height - band
            if len(same_place) >= (need if in_band else need_anywhere):
                out[k].add(i)
    for k, page in enumerate(pages):
        for row in _rows(page.fragments) if page_rows is None else page_rows[k]:
            if len(row) > settings.furniture_max_fragments and not all(i in out[k] for i in row):
                out[k].difference_update(row)  # a table row with a repeated cell (a date column) is not furniture
        rows = {round((page.fragments[i].bbox[1] + page.fragments[i].bbox[3]) / 2 / tol) for i in out[k]}
        if len(rows) > settings.repeat_max_rows:
            out[k] = set()  # a page repeated line by line (a form, a template, numbered lines) is content
    return out


def is_rotated(fragment: Fragment) -> bool:
    return bool(fragment.words) and fragment.words[0].rotated


def margin_stamps(page: PageContent) -> set[int]:
    """Vertical lines standing in a side margin, clear of the page's
    horizontal text (an arXiv identifier, a typesetter's job line)."""
    flat = [f.bbox for f in page.fragments if not is_rotated(f)]
    if not flat:
        return set()
    left = min(b[0] for b in flat)
    right = max(b[2] for b in flat)
    return {i for i, f in enumerate(page.fragments) if is_rotated(f) and (f.bbox[2] <= left + 1 or f.bbox[0] >= right - 1)}


def furniture_kind(page: PageContent, fragment: Fragment) -> str:
    """How a piece of furniture is recorded: a page label (upright or
    turned), a margin stamp, a running header (top half) or footer (bottom
    half)."""
    if parse_page_number(fragment.text) is not None:
        return "page_label"
    if is_rotated(fragment):
        return "margin_stamp"
    return "running_header" if fragment.bbox[1] + fragment.bbox[3] < page.height else "running_footer"


def detect_furniture(
    pages: list[PageContent], settings: PdfSettings, body_size: float = 0.0, own_labels: list[str] | None = None
) -> list[PageFurniture]:
    """Per page: which fragments are furniture, and the printed page number.

    A band row is furniture when it carries the page number, recurs on other
    pages, or heads the page set smaller than the body and ruled off from it
    (a running head naming the monograph on that page only; a footnote ruled
    off at the foot of the page is content), or is repeated at the same place
    on most pages (:func:`repeated_lines`). The printed page comes from the
    PDF's own ``/PageLabels`` (``own_labels``) when it has them, else from
    :func:`resolve_page_numbers`."""
    page_rows = [_rows(p.fragments) for p in pages]  # once per page: the band, page-number and repeat passes all read them
    rows_by_page = numbers_in_place(pages, [band_rows(p, settings, rows) for p, rows in zip(pages, page_rows)], settings, page_rows)
    seen = _recurrence(pages, rows_by_page)
    min_repeats = settings.furniture_min_repeats

    def recurring(page: PageContent, row: BandRow) -> bool:
        return any(len(seen.get((row.top, furniture_key(page.fragments[i].text)), ())) >= min_repeats for i in row.indices)

    repeated = repeated_lines(pages, settings, page_rows)
    stamps = [margin_stamps(page) for page in pages]
    candidates: list[list[tuple[PageNumber, frozenset[int]]]] = []
    for page, rows, extra, beside in zip(pages, rows_by_page, repeated, stamps):
        found: list[tuple[PageNumber, frozenset[int]]] = []
        band = {i for row in rows for i in row.indices}
        for i in sorted(band | extra | beside):  # beside: a folio upright on paper at the side of a page turned to read
            n = parse_page_number(page.fragments[i].text)
            if n is not None:
                found.append((n, frozenset([i])))
        for row in rows:
            if row.outermost:
                # "Running title ... 9": a number opening or closing the outermost row
                for i in row.indices:
                    n = embedded_page_number(page.fragments[i].text)
                    if n is not None:
                        found.append((n, frozenset(row.indices)))
        candidates.append(found)
    chosen = resolve_page_numbers(pages, candidates, own_labels)
    out = []
    for page, rows, pick in zip(pages, rows_by_page, chosen):
        furniture: set[int] = set()
        for row in rows:
            small_ruled = row.top and row.ruled and body_size > 0 and all(page.fragments[i].size < settings.small_head_ratio * body_size for i in row.indices)
            if small_ruled or recurring(page, row):
                furniture.update(row.indices)
            elif any(parse_page_number(page.fragments[i].text) for i in row.indices):
                furniture.update(i for i in row.indices if not _NUMBERED_CAPTION.match(page.fragments[i].text))
        value, label, where = pick
        furniture.update(where)
        out.append(PageFurniture(page.page_no, frozenset(furniture), value, label))
    for k in range(len(pages)):
        repeated[k] |= stamps[k]
    for k, extra in enumerate(repeated):
        if extra - out[k].furniture:
            out[k] = PageFurniture(out[k].page_no, out[k].furniture | extra, out[k].printed_page, out[k].printed_label)
    return [
        PageFurniture(f.page_no, f.furniture, f.printed_page, f.printed_label,
                      tuple((i, furniture_kind(page, page.fragments[i])) for i in sorted(f.furniture)))
        for page, f in zip(pages, out)
    ]


def _recurrence(pages: list[PageContent], rows_by_page: list[list[BandRow]]) -> dict[tuple[bool, str], set[int]]:
    """On which pages each band text (digits aside) appears, per band."""
    seen: dict[tuple[bool, str], set[int]] = {}
    for page, rows in zip(pages, rows_by_page):
        for row in rows:
            for i in row.indices:
                key = furniture_key(page.fragments[i].text)
                if len(key) >= 3:
                    seen.setdefault((row.top, key), set()).add(page.page_no)
    return seen


_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_YEARS = range(1900, 2101)
MAX_LONE_PAGE_DIGITS = 4  # a one-page document's lone number is a page number up to this many digits


def roman_value(text: str) -> int:
    total, prev = 0, 0
    for c in reversed(text.lower()):
        v = _ROMAN_VALUES[c]
        total = total - v if v < prev else total + v
        prev = max(prev, v)
    return total


def roman_text(n: int, upper: bool = False) -> str:
    out = ""
    for v, r in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out, n = out + r, n - v
    return out.upper() if upper else out


def series_of(n: PageNumber) -> tuple[str, int]:
    """The numbering a page number belongs to and its place in it: arabic
    (``""``), roman (``"roman"``/``"ROMAN"``) or a prefix (``"A-"``)."""
    if n.value is not None:
        return "", n.value
    m = _PREFIXED.match(n.label)
    if m:
        return m.group("p"), int(m.group("n"))
    return ("ROMAN" if n.label.isupper() else "roman"), roman_value(n.label)


def label_in(series: str, number: int) -> str:
    if series == "":
        return str(number)
    if series in ("roman", "ROMAN"):
        return roman_text(number, series == "ROMAN") if number > 0 else ""
    return f"{series}{number}"


def resolve_page_numbers(
    pages: list[PageContent], candidates: list[list[tuple[PageNumber, frozenset[int]]]], own_labels: list[str] | None = None
) -> list[tuple[int | None, str, frozenset[int]]]:
    """Each page's (printed page, printed label, fragments that print it).

    The PDF's own ``/PageLabels`` win when present. Otherwise a number found
    in the furniture is accepted only when it forms a consistent sequence with
    the physical pages: another page carries a number of the same series at
    the same offset from its physical page, or the number is the physical
    page itself; a one-page document's lone number is accepted when it is
    not a year. A year, a document number or a date printed on every page
    changes its offset from page to page and is never a page number. Pages
    between two that agree on the offset get it too."""
    n = len(pages)
    if own_labels and any(own_labels):
        out = []
        for page, label, found in zip(pages, own_labels, candidates):
            where = frozenset(i for num, idx in found if num.label == label or label.endswith(num.label) for i in idx)
            out.append((int(label) if label.isdigit() else None, label, where))
        return out
    runs: dict[tuple[str, int], set[int]] = {}
    for k, found in enumerate(candidates):
        for num, _ in found:
            series, number = series_of(num)
            runs.setdefault((series, number - pages[k].page_no), set()).add(k)
    accepted: dict[int, tuple[str, int, PageNumber, frozenset[int]]] = {}
    for k, found in enumerate(candidates):
        best = None
        for num, idx in found:
            series, number = series_of(num)
            offset = number - pages[k].page_no
            support = len(runs[(series, offset)])
            lone = n == 1 and num.standalone and (series != "" or (len(num.label) <= MAX_LONE_PAGE_DIGITS and number not in _YEARS))
            if support >= 2 or (offset == 0 and num.standalone) or lone:
                rank = (num.standalone, support, series == "")
                if best is None or rank > best[0]:
                    best = (rank, (series, offset, num, idx))
        if best is not None:
            accepted[k] = best[1]
    out: list[tuple[int | None, str, frozenset[int]]] = []
    for k in range(n):
        if k in accepted:
            series, offset, num, idx = accepted[k]
            out.append((num.value if series == "" else None, num.label, idx))
            continue
        before = max((j for j in accepted if j < k), default=None)
        after = min((j for j in accepted if j > k), default=None)
        if before is not None and after is not None and accepted[before][:2] == accepted[after][:2]:
            series, offset = accepted[before][:2]
            number = pages[k].page_no + offset
            out.append((number if series == "" else None, label_in(series, number), frozenset()))
        else:
            out.append((None, "", frozenset()))
    return out
