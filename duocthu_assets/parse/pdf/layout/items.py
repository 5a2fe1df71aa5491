"""The layout step's records: a page item (a text fragment or a lifted
block, which moves as one box) and a leaf (a single-column region of a page,
its items in reading order)."""

from __future__ import annotations

from dataclasses import dataclass

from ..blocks.candidates import BlockCandidate
from ..geometry import BBox
from ..records import Fragment


@dataclass(frozen=True)
class Item:
    bbox: BBox
    fragment: Fragment | None = None
    block: BlockCandidate | None = None


@dataclass(frozen=True)
class Leaf:
    """A single-column region of a page, its items in reading order."""

    bbox: BBox
    items: tuple[Item, ...]
    scanned: bool = False  # the borderless-table finder ran here (its rows could hold a table)
