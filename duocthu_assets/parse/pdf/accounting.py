"""Where every character of a page went: a prose paragraph, a lifted block,
a recorded piece of furniture, or nowhere (missing) and twice (duplicated):
the page accounts a check holds every parse to."""

from __future__ import annotations

from ...model import Furniture, FurnitureKind, PageAccount
from .furniture.detect import PageFurniture
from .geometry import rounded, union
from .layout.paragraphs import Para
from .layout.page import PageLayout
from .read.hidden import line_runs
from .records import PageContent


def account_page(content: PageContent, furniture: PageFurniture, layout: PageLayout) -> tuple[PageAccount, list[Furniture]]:
    """Where every word of the page went: a prose paragraph, a lifted block,
    or a recorded piece of furniture (furniture inside a lifted block, a
    repeated table header taken for a running header, is the block's). Words
    are followed by identity, so a word in two places is caught as well as a
    word in none."""
    places: dict[int, int] = {}
    block_words: set[int] = set()
    blocks = prose = furn = 0
    for frags in layout.block_fragments.values():
        for f in frags:
            for w in f.words:
                places[id(w)] = places.get(id(w), 0) + 1
                block_words.add(id(w))
                blocks += len(w.source)
    for item in layout.items:
        if isinstance(item, Para):
            for f in item.fragments:
                for w in f.joined or f.words:  # a line with scripts joined to it: the page's own words
                    places[id(w)] = places.get(id(w), 0) + 1
                    prose += len(w.source)
    lines: list[Furniture] = []
    for i in sorted(furniture.furniture):
        f = content.fragments[i]
        if any(id(w) in block_words for w in f.words):
            continue
        for w in f.words:
            places[id(w)] = places.get(id(w), 0) + 1
            furn += len(w.source)
        # the text layer's own characters (script marks are not), as counted
        text = " ".join(w.source for w in f.words)
        lines.append(Furniture(content.page_no, FurnitureKind(furniture.kind_of(i)), text, rounded(f.bbox)))
    for run in line_runs(content.hidden):
        furn += sum(len(w.source) for w in run)
        lines.append(Furniture(content.page_no, FurnitureKind.HIDDEN, " ".join(w.source for w in run), rounded(union(w.bbox for w in run))))
    words = content.all_words
    missing = sum(len(w.source) for w in words if id(w) not in places) + content.lost
    duplicated = sum(len(w.source) * (places[id(w)] - 1) for w in words if places.get(id(w), 0) > 1)
    account = PageAccount(content.page_no, content.chars, prose, blocks, furn, content.unmapped, missing, duplicated)
    return account, lines
