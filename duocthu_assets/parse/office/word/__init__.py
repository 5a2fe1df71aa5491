"""DOCX → segments (ADR 0018 §2–§5): the body walked in document order.

The children of ``w:body`` are walked as they come — paragraphs and tables
interleaved — and so are the blocks inside content controls, table cells and
text boxes. The package is checked first (:mod:`..ooxml_safety`) and its XML
read with lxml directly, so macro-enabled and template packages read the same.

- **Headings** are the structure the author declared: a built-in ``Heading N``
  (``w:name`` "heading N" or style id ``HeadingN``) or ``Title`` (level 1), a
  style based on one, or any paragraph whose style (nearest in its ``basedOn``
  chain) or whose own ``w:pPr`` declares an outline level 0..8 (``w:outlineLvl``
  N is heading level N+1, the level Word's navigation pane shows; 9 means body
  text, and a paragraph's own value overrides its style's). So converter-made
  styles such as "Tiêu đề #3" (``vn__nghi_dinh_99``) or Persian "تیتر اول"
  (``poi__stress004``) make headings in every profile. A paragraph with no
  letter or digit (a rule of dots or dashes) is never a heading. Nothing is
  made a heading from its wording here; the ``legal`` profile adds numbered
  legal headings afterwards (:mod:`...profiles.legal`).
- **Paragraphs** are one segment each (the chunker packs a section's run of
  paragraphs together); numbered or bulleted ones (``w:numPr`` on the
  paragraph or its style) are LIST_ITEM. Word's generated list numbers are not
  text in the file and are not invented here.
- **Tables**: a table with a nested table, or with a cell over
  ``settings.chunk_size`` tokens, is layout: each cell's blocks are walked like
  the body and folded into the prose around the table (source ref
  ``docx:body[12]/tbl[r1c0]``). Every other table is data: one TABLE_ROW per row
  through :mod:`..tabular` (``header: value`` when the header is provable, else
  ``" | "``), banners as paragraphs (ref ``docx:body[12]/tbl[r3]``).
- **Equations** (OMML) are kept as linear text: ``(a+b)/(2)``, ``x^(2)``,
  ``∑_(n=1)^(∞)(…)``, ``√(x)``; a warning counts them.
- **Footnotes and endnotes** are kept: the reference becomes ``[n]`` in the text
  and the note follows its paragraph (or table) as a paragraph ``[n] …``.
- Not extracted, each with a warning: images, embedded objects and
  ``altChunk`` parts, comments, page headers and footers (page furniture, as in
  PDFs), and text Word hides (the Hidden font effect, ``w:vanish``, on a run,
  its character style or its paragraph's style: not shown, not printed — as
  a PDF's text painted over). Deleted tracked changes and field instructions
  are not text.

The package's parts: :mod:`.package` (OOXML relationships, notes),
:mod:`.styles` (headings and lists declared by styles), :mod:`.equations`
(OMML to linear text), :mod:`.tables` (merged-cell geometry) and
:mod:`.walker` (the body in document order). Token counts are
:mod:`duocthu_assets.chunking.tokenizer`'s (offline cl100k, ADR 0018 §7).
"""

from __future__ import annotations

import zipfile

from ....model import ParsedDocument, Segment, SegmentKind
from ....settings import Profile, Settings
from ...profiles import legal
from ...errors import ParseFailed
from ..ooxml_safety import open_package, read_xml
from .package import W_BODY, Package, drawing_texts, part_text_count, read_notes
from .revisions import pending_revisions, revisions_warning
from .styles import Styles
from .walker import Unit, Walker


def _warnings(walker: Walker, zf: zipfile.ZipFile, package: Package) -> list[str]:
    counts = walker.counts
    out = []
    if counts.equations:
        out.append(f"{counts.equations} equations kept as linear text (e.g. x^2, (a)/(b), √(x))")
    if counts.images:
        out.append(f"{counts.images} images not extracted (image captioning is deferred, ADR 0018 §9)")
    if counts.objects:
        out.append(f"{counts.objects} embedded objects (OLE) not extracted; only their displayed text, if any, is kept")
    if counts.charts or counts.diagrams:
        texts = drawing_texts(zf, package.parts.get("diagramData", [])) if counts.diagrams else []
        out.append(
            f"{counts.charts} chart(s) and {counts.diagrams} SmartArt diagram(s) not extracted: a chart's labels and "
            f"values and a diagram's boxes are in no chunk"
            + (f", the diagrams read: {' · '.join(texts)[:200]!r}" if texts else "")
            + " — read them in the document, or give their content as text"
        )
    if counts.alt_chunks:
        out.append(f"{counts.alt_chunks} imported parts (altChunk) not extracted — open the file in Word and save it again to merge them")
    if counts.hidden_chars:
        out.append(
            f"{counts.hidden_chars} character(s) of text hidden in Word (the Hidden font effect: not shown, not printed) "
            f"left out, the first: {counts.hidden_first[:160]!r} — if it is content, unhide it in Word and add the file again"
        )
    if counts.struck_chars:
        out.append(
            f"{counts.struck_chars} character(s) struck through in Word (shown crossed out: deleted, not in force) "
            f"kept and marked ~~like this~~, the first: {counts.struck_first[:160]!r}"
        )
    for font, n in sorted(counts.symbols.items()):
        out.append(f"{n} symbol characters in font '{font}' kept as their private-use code points")
    comments = part_text_count(zf, package.parts.get("comments", []), "comment")
    if comments:
        out.append(f"{comments} comments not extracted")
    furniture = part_text_count(zf, package.parts.get("header", []) + package.parts.get("footer", []), "")
    if furniture:
        out.append(f"{furniture} page header/footer parts with text not extracted (page furniture)")
    return out


def legal_units(units: list[Unit]) -> tuple[list[Unit], list[str]]:
    """The ``legal`` profile (:mod:`...profiles.legal`): paragraphs opened by
    legal numbering become headings (a label's title line joined to it) at the
    level of their kind, and so do headings declared by styles that carry
    such numbering (re-levelled, so ``Chương`` is above ``Điều`` whichever
    way each was marked); clauses and points keep their level below the
    article. A paragraph styled as a heading inside an article that reads as
    a sentence (a numbered clause, or ending in . : ;) is article text: its
    ref is returned so a warning names how many. Table rows, and the other
    declared headings, are left as they are."""
    eligible = [u.kind is not SegmentKind.TABLE_ROW for u in units]
    marks = legal.mark([u.text for u in units], eligible)
    out: list[Unit] = []
    demoted: list[str] = []
    for unit, marked in zip(units, marks):
        if marked.role == "heading":
            out.append(Unit(SegmentKind.HEADING, " ".join(unit.text.split()), unit.ref, marked.level))
        elif marked.role == "join" and out and out[-1].kind is SegmentKind.HEADING:
            out[-1] = Unit(SegmentKind.HEADING, f"{out[-1].text} {' '.join(unit.text.split())}", out[-1].ref, out[-1].level)
        elif marked.role in (legal.CLAUSE, legal.POINT):
            if unit.kind is SegmentKind.HEADING:
                demoted.append(unit.ref)
            out.append(Unit(SegmentKind.LIST_ITEM, unit.text, unit.ref, marked.level))
        elif unit.kind is SegmentKind.HEADING and marked.in_article and legal.reads_as_sentence(unit.text):
            demoted.append(unit.ref)
            out.append(Unit(SegmentKind.PARAGRAPH, unit.text, unit.ref))
        else:
            out.append(unit)
    return out, demoted


def parse(data: bytes, settings: Settings) -> ParsedDocument:
    """Given a DOCX package, return its segments in document order."""
    zf = open_package(data, settings)
    with zf:
        package = Package.read(zf)
        root = read_xml(zf, package.main)
        if root is None:
            raise ParseFailed(f"Word package has no main document part ({package.main}) — re-save the file from Word")
        body = root.find(W_BODY)
        if body is None:
            raise ParseFailed("Word document has no body — re-save the file from Word")
        styles_name = package.first("styles")
        styles = Styles(read_xml(zf, styles_name) if styles_name else None)
        walker = Walker(settings, styles, read_notes(zf, package))
        walker.walk_body(body)
        warnings = _warnings(walker, zf, package)
    revised = revisions_warning(pending_revisions(body))
    if revised:
        warnings.append(revised)
    if settings.profile is Profile.LEGAL:
        walker.units, demoted = legal_units(walker.units)
        if demoted:
            warnings.append(
                f"{len(demoted)} paragraphs styled as headings inside an article read as sentences "
                f"(first at {demoted[0]}); kept as the article's text (legal profile: the article is the section)"
            )
    segments = [
        Segment(segment_id=f"s{n:05d}", kind=unit.kind, text=unit.text, level=unit.level, source_ref=unit.ref)
        for n, unit in enumerate(walker.units, start=1)
    ]
    return ParsedDocument(segments=segments, page_count=1, warnings=warnings)
