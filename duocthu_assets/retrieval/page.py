"""The search page of ``duocthu serve`` (``GET /?q=…&k=…&mode=…``): the
answers of :meth:`~.searcher.Searcher.respond` — the same ones, under the same
obligations, as ``GET /search`` — written as HTML cards on the server.

A card gives the unit (entry, section, heading trail), the document it comes
from, its printed and physical pages, the text with every withheld number
marked, the notices, and every attachment's crop inline (linked to the
full-resolution crop and to the whole page rendered), or why there is none.

Every value is escaped (:func:`html.escape`, quotes included); the page has
no script at all and loads only its own stylesheet, so the server's
Content-Security-Policy (:data:`CONTENT_SECURITY_POLICY`) allows nothing
else. Each card and each text takes its direction from its own first letters
(``dir="auto"``): a Persian answer reads right to left beside Vietnamese ones.

Nothing here imports Dagster.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from importlib import resources
from typing import Any

from .answer import WITHHELD, Answer
from .index import LoadedIndex
from .page_files import PageFiles, crop_url, render_url
from .query import DEFAULT_MODE, MAX_QUERY_CHARS, MODES

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
STYLESHEET = "/static/search.css"
K_CHOICES = (5, 10, 20, 50)
_MODE_LABELS = {"hybrid": "hybrid (words and meaning)", "dense": "meaning only (dense)", "lexical": "exact words only (lexical)"}
_KIND_NAMES = {"table": "Table", "formula": "Formula", "picture": "Picture"}


def stylesheet() -> bytes:
    """The page's stylesheet, shipped inside the package."""
    return resources.files(__package__).joinpath("static", "search.css").read_bytes()


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _pages_phrase(printed: Sequence[int], physical: Sequence[int]) -> str:
    parts = []
    if printed:
        parts.append(f"printed page {printed[0]}" if len(printed) == 1 else f"printed pages {printed[0]}–{printed[-1]}")
    if physical:
        parts.append(f"page {physical[0]} of the file" if len(physical) == 1 else f"pages {physical[0]}–{physical[-1]} of the file")
    return " · ".join(parts)


def _text_html(text: str) -> str:
    """The text escaped, each withheld number marked so it is seen to be withheld."""
    marker = f'<mark class="withheld" title="number withheld: read it from the crop or the printed page">{_e(WITHHELD)}</mark>'
    return marker.join(_e(piece) for piece in text.split(WITHHELD))


def _plain_notice(notice: str, answer: Answer) -> str:
    """A notice with the crops' file paths said as where they are on the page."""
    for crop in answer.crops:
        if crop.path and crop.exists:
            notice = notice.replace(f"crop: {crop.path}", "its crop is shown below")
        elif crop.path:
            notice = notice.replace(f"crop expected at {crop.path} but the file is missing", "its crop is missing")
    return notice


def _crop_html(answer: Answer, files: PageFiles, index: LoadedIndex, can_render: Callable[[int | None], bool]) -> str:
    out = []
    sizes = files.crop_sizes(index, answer.doc_id) if answer.crops else {}
    for crop in answer.crops:
        what = _KIND_NAMES.get(crop.kind, crop.kind.capitalize() or "Block")
        where = _pages_phrase([crop.printed_page] if crop.printed_page is not None else [], [crop.physical_page] if crop.physical_page is not None else []) or "an unknown page"
        page_link = (
            f' · <a href="{_e(render_url(answer.doc_id, crop.physical_page))}">whole page</a>' if can_render(crop.physical_page) else ""
        )
        if crop.exists:
            url = _e(crop_url(answer.doc_id, crop.block_id))
            size = sizes.get(crop.block_id)
            dims = f' width="{size.css_width()}" height="{max(1, round(size.css_width() * size.height_px / size.width_px))}"' if size and size.width_px else ""
            out.append(
                f'<figure class="crop"><a href="{url}"><img src="{url}" alt="{_e(what)} at {_e(where)}"{dims}></a>'
                f'<figcaption>{_e(what)} · {_e(where)} · <a href="{url}">full resolution</a>{page_link}</figcaption></figure>'
            )
        else:
            out.append(
                f'<p class="missing">{_e(what)} at {_e(where)}: its crop is missing from the warehouse; '
                f"read the source at that page{page_link}.</p>"
            )
    return "".join(out)


def card_html(answer: Answer, files: PageFiles, index: LoadedIndex) -> str:
    """One answer as an ``<article>`` (see the module docstring)."""
    label = files.label(index, answer.doc_id)

    def can_render(page: int | None) -> bool:
        return files.can_render(label, page)

    unit = answer.unit or " — ".join(part for part in (answer.entry_title, answer.section_title) if part) or answer.chunk_id
    if answer.unit and answer.section_title.startswith(answer.unit):
        unit = answer.section_title  # "Điều 319. Hình thức cầm giữ tài sản": the unit with its printed name
    trail = [h for h in answer.headings if h and h not in (answer.entry_title, answer.section_title)]
    badges = []
    if answer.mode == "crop_only":
        badges.append('<span class="badge crop-only">the answer is the crop</span>')
    elif not answer.complete:
        badges.append('<span class="badge incomplete">incomplete: numbers withheld</span>')
    if answer.text_source == "ocr":
        badges.append('<span class="badge ocr">read from a scan</span>')
    page = answer.physical_pages[0] if answer.physical_pages else None
    page_link = f' · <a href="{_e(render_url(answer.doc_id, page))}">whole page</a>' if can_render(page) and answer.mode != "crop_only" else ""
    parts = [
        f'<article class="card" dir="auto" id="hit-{answer.rank}" data-chunk="{_e(answer.chunk_id)}">',
        f'<h2><span class="rank">{answer.rank}.</span> {_e(unit)}</h2>',
    ]
    if trail:
        parts.append(f'<p class="trail" dir="auto">{" › ".join(_e(h) for h in trail)}</p>')
    file_name = label.source_name if label else answer.doc_id
    # the document as it names itself (title and number, issue 40), else its file
    source = answer.document or file_name
    pages = _pages_phrase(answer.printed_pages, answer.physical_pages)
    pages_html = f' · <bdi class="pages">{_e(pages)}</bdi>' if pages else ""
    number = f' <bdi class="number">{_e(answer.document_number)}</bdi>' if answer.document_number and answer.document_number not in source else ""
    parts.append(f'<p class="where" dir="auto"><bdi class="doc" title="{_e(file_name)}">{_e(source)}</bdi>{number}{pages_html}{page_link}</p>')
    if badges:
        parts.append(f'<p class="badges">{"".join(badges)}</p>')
    if answer.text:
        parts.append(f'<p class="text" dir="auto">{_text_html(answer.text)}</p>')
    parts.append(_crop_html(answer, files, index, can_render))
    if answer.notices:
        items = "".join(f'<li dir="auto">{_e(_plain_notice(n, answer))}</li>' for n in answer.notices)
        parts.append(f'<ul class="notices">{items}</ul>')
    parts.append("</article>")
    return "".join(parts)


def _form_html(query: str, k: int, mode: str) -> str:
    modes = "".join(f'<option value="{m}"{" selected" if m == mode else ""}>{_e(_MODE_LABELS[m])}</option>' for m in MODES)
    ks = sorted({*K_CHOICES, k})
    k_options = "".join(f'<option value="{n}"{" selected" if n == k else ""}>{n}</option>' for n in ks)
    return (
        '<form method="get" action="/" role="search" class="search">'
        f'<input type="search" name="q" value="{_e(query)}" dir="auto" maxlength="{MAX_QUERY_CHARS}"{"" if query else " autofocus"} '
        'placeholder="liều ampicilin suy thận" aria-label="question">'
        '<button type="submit">Search</button>'
        f'<label>Ranking <select name="mode">{modes}</select></label>'
        f'<label>Results <select name="k">{k_options}</select></label>'
        "</form>"
    )


def page_html(
    *,
    query: str = "",
    k: int = 5,
    mode: str = DEFAULT_MODE,
    answers: Sequence[Answer] = (),
    notes: Sequence[str] = (),
    error: str | None = None,
    files: PageFiles | None = None,
    index: LoadedIndex | None = None,
) -> str:
    """The whole page: the form, then the error, or the cards and the notes."""
    body = []
    if error is not None:
        body.append(f'<p class="error" role="alert">{_e(error)}</p>')
    elif query:
        count = f"{len(answers)} result{'s' if len(answers) != 1 else ''}" if answers else "No results"
        body.append(f'<p class="summary" dir="auto">{count} for “{_e(query)}”</p>')
        if files is not None and index is not None:
            body.extend(card_html(a, files, index) for a in answers)
        if notes:
            body.append('<ul class="notes">' + "".join(f'<li dir="auto">{_e(n)}</li>' for n in notes) + "</ul>")
    else:
        body.append(
            '<p class="intro">Ask in your own words. Answers cite the document and its printed page; a table is shown '
            "as its image, and numbers next to a table that was lifted out are withheld — read them from the image.</p>"
        )
    title = f"{_e(query)} — duocthu" if query else "duocthu search"
    return (
        '<!doctype html><html lang="vi"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{title}</title>'
        f'<link rel="stylesheet" href="{STYLESHEET}"></head><body>'
        f'<header><h1><a href="/">duocthu</a></h1>{_form_html(query, k, mode)}</header>'
        f'<main>{"".join(body)}</main></body></html>'
    )
