"""What a PDF holds besides its pages' text: the files attached to it and
its pages' annotations (comments, strike-outs), read best effort so a
damaged name table or annotation never fails the parse."""

from __future__ import annotations

from typing import NamedTuple


def embedded_files(doc, attachments: list[str]) -> list[str]:
    """Names of the files attached to a PDF: the document's embedded files,
    then ``attachments``, the pages' file-attachment annotations
    (:func:`page_annotations`, read while the pages are open for their
    text: opening every page a second time for them cost a 1-page file a
    twentieth of its parse)."""
    try:
        names = [str(n) for n in doc.embfile_names()]
    except Exception:  # noqa: BLE001 - best effort: a damaged name table must not fail the parse
        return []
    return names + attachments


class PageAnnotations(NamedTuple):
    """What a page's annotations hold that its text does not."""

    attachments: list[str]  # the names of its file attachments
    comments: list[str]  # the contents of its comments: sticky notes, a highlight's note (opened from the mark)
    struck: int  # passages a reviewer's strike-out annotation marks deleted, read as text
    readable: bool  # False when an annotation could not be read (those after it were not asked)


# annotations whose own text is on the page (a text box, a form field), or that hold none of their own
_SHOWN_OR_EMPTY = {"FreeText", "Widget", "Link", "Popup", "FileAttachment"}


def page_annotations(page) -> PageAnnotations:
    """A page's file attachments, comments and strike-outs (best effort: a
    damaged annotation must not fail the parse; what was read before it is
    kept)."""
    names: list[str] = []
    comments: list[str] = []
    struck = 0
    try:
        for annot in page.annots() or []:
            kind = annot.type[1]
            if kind == "FileAttachment":
                names.append(str(annot.file_info.get("filename") or f"page {page.number + 1} attachment"))
            if kind == "StrikeOut":
                struck += 1
            if kind not in _SHOWN_OR_EMPTY:
                content = " ".join(str(annot.info.get("content") or "").split())
                if content:
                    comments.append(content)
    except Exception:  # noqa: BLE001
        return PageAnnotations(names, comments, struck, False)
    return PageAnnotations(names, comments, struck, True)
