"""Page furniture: which fragments of each page are running headers and
footers, margin stamps or the printed page number.

A band row (fragments on one baseline in the top or bottom band of the page)
is furniture when it stands apart from the body (whitespace or a rule between)
and either carries the page number or recurs, digits aside, on other pages.
Anything else in the bands (a footnote, a first line of body text) stays
content: removing text is the costly mistake here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import Fragment, PageContent
from ....settings.pdf import PdfSettings
from .bands import BandRow, band_rows, baseline_rows, crossed_by_vertical_rule, is_rotated, numbers_in_place
from .page_numbers import PageNumber, embedded_page_number, parse_page_number, resolve_page_numbers

_DIGITS = re.compile(r"\d+")
_COUNTER = re.compile(r"^\d{1,4}\s*/\s*\d{1,4}$")  # "12/80"
_SPACES = re.compile(r"\s+")
# a numbered table's caption beside the page number (a page turned to read): content, not furniture
_NUMBERED_CAPTION = re.compile(r"^(table|tab\.|bảng|figure|fig\.|hình|exhibit)\s*[A-Z]?\d+\b", re.IGNORECASE)


@dataclass(frozen=True)
class PageFurniture:
    page_no: int
    furniture: frozenset[int]  # indices into PageContent.fragments
    printed_page: int | None
    printed_label: str
    kinds: tuple[tuple[int, str], ...] = ()  # (fragment index, FurnitureKind value) for every index in ``furniture``

    def kind_of(self, index: int) -> str:
        return dict(self.kinds).get(index, "running_header")


def furniture_key(text: str) -> str:
    """Text as compared across pages: digits and spacing do not count."""
    return _SPACES.sub(" ", _DIGITS.sub("#", text.lower())).strip()


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
        hits = [h for h in hits if not crossed_by_vertical_rule(h[2], pages[h[0]].rules)]  # a cell of a ruled table
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
        for row in baseline_rows(page.fragments) if page_rows is None else page_rows[k]:
            if len(row) > settings.furniture_max_fragments and not all(i in out[k] for i in row):
                out[k].difference_update(row)  # a table row with a repeated cell (a date column) is not furniture
        rows = {round((page.fragments[i].bbox[1] + page.fragments[i].bbox[3]) / 2 / tol) for i in out[k]}
        if len(rows) > settings.repeat_max_rows:
            out[k] = set()  # a page repeated line by line (a form, a template, numbered lines) is content
    return out


def in_doubt(fragment: Fragment) -> bool:
    """Whether OCR read any word of the fragment without certainty: a page
    number read so is no printed page (nor evidence against the numbering);
    it stays in the text, withheld as uncertain."""
    return any(w.uncertain for w in fragment.words)


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
    page_rows = [baseline_rows(p.fragments) for p in pages]  # once per page: the band, page-number and repeat passes all read them
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
            if n is not None and not in_doubt(page.fragments[i]):
                found.append((n, frozenset([i])))
        for row in rows:
            if row.outermost:
                # "Running title ... 9": a number opening or closing the outermost row
                for i in row.indices:
                    n = embedded_page_number(page.fragments[i].text)
                    if n is not None and not in_doubt(page.fragments[i]):
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
            elif any(parse_page_number(page.fragments[i].text) and not in_doubt(page.fragments[i]) for i in row.indices):
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
