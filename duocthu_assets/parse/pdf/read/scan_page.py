"""A page read by OCR made into the :class:`..records.PageContent` the later
steps read, as if it had been read from a text layer: Tesseract's words
(each with its confidence) grouped into its lines, sized by their line's
height, the rules and pictures of the page image (:mod:`.scan_image`); a
chart's tick labels (lines of numbers beside a picture) are its picture's.

A page of text with a scanned picture in it keeps its text layer: only the
words read inside the scanned regions are added. A page on which OCR read
nothing, or mostly words below the confidence floor, is marked blocked
(``PageContent.ocr.blocked``): it stays in ``pages_needing_ocr``, named.
"""

from __future__ import annotations

import dataclasses
import re
import statistics

from ....settings.pdf import PdfSettings
from ..geometry import BBox, center, contains_point
from ..records import OcrRead, PageContent, Picture, Word
from .ocr import OcrWord
from .ocr_doubt import uncertain_words
from .ocr_need import ocr_layer
from .ocr_pages import ScanRead
from .scan_image import image_features
from .words import words_to_fragments

OCR_LINE_IDS = 1_000_000  # OCR lines are numbered from here: apart from a text layer's lines on the same page
LINE_HEIGHT_EM = 1.25  # a line's box (ascenders to descenders, Vietnamese marks above) is about this many times its size
SAME_SIZE = (0.7, 1.45)
TICK_REACH_PT = 14.0  # a line of numbers this close to a picture (a chart) is its tick labels
_TICK = re.compile(r"[-+−]?[0-9]+(?:[.,][0-9]+)*%?")  # a line this close to the page's usual line height is set in the body size


def only_regions(content: PageContent) -> bool:
    """Whether only the page's scanned pictures need OCR, its text layer
    being good: a page of text with scanned regions that cover less than
    most of it."""
    if not content.scanned or not content.words or ocr_layer(content):
        return False
    return sum(share for _, share in content.scanned) < 0.9


def ocr_words(words: tuple[OcrWord, ...], pictures: list[BBox], settings: PdfSettings) -> list[Word]:
    """Tesseract's words as page words: their line's size (the page's usual
    line height gives the body size), each with its confidence and whether
    it is uncertain (:func:`.ocr_doubt.uncertain_words`). A word read below
    the floor inside a picture is the picture's ink misread (a seal's
    letters, a signature's strokes): left to the picture."""
    vietnamese = bool({"vie", "Vietnamese"} & set(settings.ocr_languages.split("+")))
    doubt = uncertain_words(words, settings.ocr_confidence_floor, settings.ocr_number_confidence_floor, syllables=vietnamese)
    floor = settings.ocr_confidence_floor
    kept = [(w, u) for w, u in zip(words, doubt) if not (w.confidence < floor and any(contains_point(p, *center(w.bbox)) for p in pictures))]
    lines: dict[tuple[int, int, int], list[tuple[OcrWord, bool]]] = {}
    for w, u in kept:
        lines.setdefault((w.block, w.paragraph, w.line), []).append((w, u))
    heights = {key: max(w.bbox[3] for w, _ in ws) - min(w.bbox[1] for w, _ in ws) for key, ws in lines.items()}
    usual = statistics.median(heights.values()) if heights else 12.0
    body = max(round(usual / LINE_HEIGHT_EM * 2) / 2, 4.0)
    out: list[Word] = []
    for n, (key, ws) in enumerate(lines.items()):
        ratio = heights[key] / usual if usual else 1.0
        size = body if SAME_SIZE[0] <= ratio <= SAME_SIZE[1] else max(round(body * ratio * 2) / 2, 4.0)
        out += [Word(w.text, w.bbox, size, False, False, OCR_LINE_IDS + n, confidence=w.confidence, uncertain=u) for w, u in ws]
    return out


def chart_labels(words: tuple[OcrWord, ...], pictures: list[BBox]) -> tuple[tuple[OcrWord, ...], list[BBox]]:
    """A chart's tick labels given to its picture: the lines made only of
    numbers (``0.4``, ``20 25 30``) standing within :data:`TICK_REACH_PT` of a
    picture are taken out of the words and the picture grown over them, so
    they are shown in the picture's crop and never read as text."""
    if not pictures:
        return words, pictures
    lines: dict[tuple[int, int, int], list[OcrWord]] = {}
    for w in words:
        lines.setdefault((w.block, w.paragraph, w.line), []).append(w)
    grown = list(pictures)
    taken: set[tuple[int, int, int]] = set()
    for key, ws in lines.items():
        if not all(_TICK.fullmatch(w.text) for w in ws):
            continue
        box = (min(w.bbox[0] for w in ws), min(w.bbox[1] for w in ws), max(w.bbox[2] for w in ws), max(w.bbox[3] for w in ws))
        for k, p in enumerate(grown):
            if _near(box, p):
                grown[k] = (min(p[0], box[0]), min(p[1], box[1]), max(p[2], box[2]), max(p[3], box[3]))
                taken.add(key)
                break
    return tuple(w for w in words if (w.block, w.paragraph, w.line) not in taken), grown


def _near(box: BBox, picture: BBox) -> bool:
    reach = TICK_REACH_PT
    return box[0] < picture[2] + reach and box[2] > picture[0] - reach and box[1] < picture[3] + reach and box[3] > picture[1] - reach


def scan_content(content: PageContent, scan: ScanRead, settings: PdfSettings) -> PageContent:
    """``content`` read again from its OCR (see the module docstring)."""
    page = scan.ocr
    rules, pictures = image_features(scan.image.png, page.dpi, page.words)
    text_words, pictures = chart_labels(page.words, pictures)
    words = ocr_words(text_words, pictures, settings)
    if only_regions(content):
        regions = [box for box, _ in content.scanned]
        words = [w for w in words if any(contains_point(r, *center(w.bbox)) for r in regions)]
        pictures = [p for p in pictures if any(contains_point(r, *center(p)) for r in regions)]
        keep = {"words": content.words + tuple(words), "rules": content.rules + tuple(r for r in rules if any(contains_point(g, *center(r.bbox)) for g in regions))}
    else:
        keep = {"words": tuple(words), "rules": tuple(rules), "width": page.width, "height": page.height, "graphics": (), "path_count": 0,
                    "unmapped": 0, "lost": 0, "hidden": (), "sideways": None, "sideways_matrix": None, "script_hosts": {}, "bars": (), "figures": (), "struck": ()}
    uncertain = sum(1 for w in words if w.uncertain)
    blocked = ""
    if not words:
        blocked = "OCR read no words on it"
    elif uncertain > settings.ocr_max_uncertain_frac * len(words):
        blocked = (f"OCR read {len(words)} words, {uncertain} ({100 * uncertain / len(words):.0f} %) of them uncertain "
                   f"(below the confidence floor {settings.ocr_confidence_floor:g}, or numbers in doubt)")
    read = OcrRead(page.engine, page.version, page.languages, page.dpi, len(words), uncertain, blocked)
    if blocked:  # its reading is not used: the page stays as it was, blocked, named
        return dataclasses.replace(content, ocr=read)
    fragments = words_to_fragments(list(keep["words"]), settings)
    return dataclasses.replace(content, **keep, fragments=tuple(fragments), scanned=(), invisible=0,
                               pictures=tuple(Picture(p) for p in pictures) + (content.pictures if only_regions(content) else ()), ocr=read)

