"""Tracked changes left in a DOCX: insertions (``w:ins``, ``w:moveTo``) and
deletions (``w:del``, ``w:moveFrom``) nobody accepted or rejected. The
walker reads Word's final view, as pandoc and mammoth do by default — the
insertions as text, the deletions left out — which is one of the document's
two readings: until the changes are accepted, the text in force may be the
deleted one (a municipal code's ``one hundred and twenty`` days proposed
as ``sixty``). So the parse says the changes are there."""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from .package import W_T, w

_INSERTED = (w("ins"), w("moveTo"))
_DELETED = (w("del"), w("moveFrom"))
_DELETED_TEXT = (w("delText"), W_T)


@dataclass(frozen=True)
class Revisions:
    inserted: int  # insertions holding text, read as text
    deleted: int  # deletions holding text, left out
    example: tuple[str, str] | None  # (deleted, inserted) of the first replacement


def _text(el: etree._Element, tags: tuple[str, ...]) -> str:
    return "".join(t.text or "" for t in el.iter(*tags))


def pending_revisions(body: etree._Element) -> Revisions:
    """The tracked changes of ``body`` that hold text (a paragraph mark's own
    insertion or deletion, an empty element, holds none)."""
    inserted = [el for el in body.iter(*_INSERTED) if _text(el, (W_T,)).strip()]
    deleted = [el for el in body.iter(*_DELETED) if _text(el, _DELETED_TEXT).strip()]
    example = None
    for el in deleted:
        after = el.getnext()
        if after is not None and after.tag in _INSERTED and _text(after, (W_T,)).strip():
            example = (" ".join(_text(el, _DELETED_TEXT).split()), " ".join(_text(after, (W_T,)).split()))
            break
    return Revisions(len(inserted), len(deleted), example)


def revisions_warning(revisions: Revisions) -> str | None:
    """The parse warning for pending tracked changes, or None."""
    if not revisions.inserted and not revisions.deleted:
        return None
    shown = f", e.g. {revisions.example[0][:80]!r} → {revisions.example[1][:80]!r}" if revisions.example else ""
    return (
        f"{revisions.inserted + revisions.deleted} tracked change(s) neither accepted nor rejected: read as Word's final view, "
        f"{revisions.inserted} insertion(s) as text, {revisions.deleted} deletion(s) left out{shown} — until they are "
        "accepted the text in force may be the deleted one; accept or reject them in Word (Review > Accept/Reject) "
        "and add the file again to make that the document's text"
    )
