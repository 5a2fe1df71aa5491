"""The parse reads the same boxes whatever else ran in the process before it.

PyMuPDF's quad corrections are a switch of the whole process, and importing
pymupdf4llm turns them off (``TOOLS.unset_quad_corrections(True)``, at its
import). A parse after that read other character boxes: on grobid's jcap
paper a block 0.9 pt taller on p. 2 and equation numbers set on lines of their
own on p. 11 — so the same PDF gave other segments in a process that had
imported pymupdf4llm (the bench does; a plain ``import pymupdf`` does, before
``engine``). ``engine.open_pdf`` now sets the switch for every
document."""

from __future__ import annotations

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf.engine import pymupdf
from duocthu_assets.settings import Settings

from tests.support.paths import corpus_path


def _parsed(data: bytes):
    p = parse_document(data, Format.PDF, Settings())
    return [(s.page_no, s.text, s.bbox) for s in p.segments], [(b.page_no, b.bbox, b.text) for b in p.blocks]


@pytest.mark.corpus
def test_a_parse_after_pymupdf4llm_switched_quad_corrections_off_reads_the_same():
    data = corpus_path("grobid__0807.3577_jcap_math.pdf").read_bytes()
    before = _parsed(data)
    pymupdf.TOOLS.unset_quad_corrections(True)  # what `import pymupdf4llm` does to the process
    try:
        assert _parsed(data) == before
    finally:
        pymupdf.TOOLS.unset_quad_corrections(False)
