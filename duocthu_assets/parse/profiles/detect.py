"""A Vietnamese legal document recognised from its own head, so it is read
with the ``legal`` profile when nothing named a profile.

A law, decree, resolution or circular prints three things at its head: the
national header (``CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM``), its number line
(``Số: 21/2021/NĐ-CP``, ``Luật số: 91/2015/QH13``), and articles numbered in
a run from one (``Điều 1.``, ``Điều 2.`` …). Any two of the three make it a
legal document; one alone does not (a letter carries the national header, a
contract cites ``Điều 5.`` of a law). A court precedent prints none of them
but its title, ``ÁN LỆ SỐ 43/2021/AL``, which is enough alone. :func:`detect_legal` returns the lines
it found, which raw_documents keeps as ``profile_evidence``;
:func:`apply_detection` turns them into the document's settings, only when
its profile came from nobody (``profile_source == "default"``): a
``collection.toml`` that names ``profile = "generic"`` (or any profile), or
``duocthu ingest --profile``, is obeyed and nothing is detected.

Pure: no Dagster, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ...settings import PROFILE_DEFAULT, PROFILE_DETECTED, Profile, Settings
from .legal import PRECEDENT_TITLE

NATIONAL_HEADER = re.compile(r"CỘNG\s+H(?:OÀ|ÒA|OA)\s+XÃ\s+HỘI\s+CHỦ\s+NGHĨA\s+VIỆT\s+NAM", re.IGNORECASE)
NUMBER_LINE = re.compile(
    r"^(?:[^\W\d_]+\s+){0,2}số\s*:\s*(?:\d{1,5})?\s*/\s*(?:(?:19|20)\d\d\s*/\s*)?(?:UBTVQH\d{1,2}|QH\d{1,2}|[A-ZĐ]{2,}(?:-[A-ZĐ0-9]+)*)",
    re.IGNORECASE,
)
ARTICLE = re.compile(r"^Điều\s+(\d{1,4})\s*[.:]", re.IGNORECASE)
MIN_ARTICLES = 2  # Điều 1 then Điều 2: a run, not a citation
SIGNALS_NEEDED = 2


def _lines(lines: Sequence[str]) -> list[str]:
    out = []
    for line in lines:
        for part in unicodedata.normalize("NFC", line).split("\n"):
            part = " ".join(part.split())
            if part:
                out.append(part)
    return out


def detect_legal(lines: Sequence[str]) -> tuple[str, ...]:
    """The evidence that ``lines`` (a document's head, in reading order) open
    a Vietnamese legal document: one line per signal found, or () when fewer
    than two of the three signals are there."""
    text_lines = _lines(lines)
    precedent = next((ln for ln in text_lines[:20] if PRECEDENT_TITLE.match(ln)), None)
    if precedent:
        return (f"precedent title: {precedent[:80]}",)
    found: list[str] = []
    header = next((ln for ln in text_lines if NATIONAL_HEADER.search(ln)), None)
    if header:
        found.append(f"national header: {header[:80]}")
    number = next((ln for ln in text_lines[:60] if NUMBER_LINE.match(ln)), None)
    if number:
        found.append(f"number line: {number[:80]}")
    run = _article_run(text_lines)
    if len(run) >= MIN_ARTICLES:
        found.append(f"articles in a run: Điều {run[0]} to Điều {run[-1]} ({len(run)} found)")
    return tuple(found) if len(found) >= SIGNALS_NEEDED else ()


def _article_run(lines: list[str]) -> list[int]:
    """The longest run Điều 1, 2, 3 … opening lines, in order."""
    run: list[int] = []
    for line in lines:
        m = ARTICLE.match(line)
        if not m:
            continue
        n = int(m.group(1))
        if n == len(run) + 1:
            run.append(n)
        elif n == 1 and not run:
            run = [1]
    return run


def apply_detection(settings: Settings, lines: Sequence[str]) -> tuple[Settings, tuple[str, ...]]:
    """``settings`` read as a law when its profile came from nobody and
    ``lines`` show a legal document; the evidence (``()`` when unchanged)."""
    if settings.profile_source != PROFILE_DEFAULT or settings.profile is Profile.LEGAL:
        return settings, ()
    evidence = detect_legal(lines)
    if not evidence:
        return settings, ()
    return settings.replace(profile=Profile.LEGAL, profile_source=PROFILE_DETECTED), evidence
