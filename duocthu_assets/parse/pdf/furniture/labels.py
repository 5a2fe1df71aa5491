"""Each page's label from the PDF's own ``/PageLabels`` tree (``xii``,
``A-42``): preferred over the numbers printed on the pages when the
document declares them."""

from __future__ import annotations

from ..engine import pymupdf


def own_page_labels(doc) -> list[str] | None:
    """The label of every page from the PDF's own ``/PageLabels`` (``xii``,
    ``A-42``), or None when the document declares none."""
    try:
        rules = doc.get_page_labels()
        if not rules:
            return None
        return labels_from_rules(rules, doc.page_count)
    except Exception:  # noqa: BLE001 - a malformed /PageLabels tree: read the printed numbers instead
        return None


def labels_from_rules(rules: list[dict], page_count: int) -> list[str]:
    """Each page's label from the ``/PageLabels`` rules as
    ``Document.get_page_labels()`` lists them, computed the way PyMuPDF's
    ``Page.get_label`` does (the rule with the last start page at or before
    the page; no rule: no label), but from one read of the tree:
    ``get_label`` reads the whole tree again for every page."""
    ordered = sorted(rules, key=lambda r: r["startpage"])
    labels: list[str] = []
    k = -1
    for pno in range(page_count):
        while k + 1 < len(ordered) and ordered[k + 1]["startpage"] <= pno:
            k += 1
        if k < 0:
            labels.append("")
            continue
        rule = ordered[k]
        style = rule.get("style", "")
        number = pno - rule["startpage"] + rule["firstpagenum"] - (1 if style in ("a", "A") else 0)
        labels.append(pymupdf.utils.construct_label(style, rule.get("prefix", ""), number) or "")
    return labels
