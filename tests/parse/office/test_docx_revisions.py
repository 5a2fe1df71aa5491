"""Tracked changes nobody accepted or rejected (``word/revisions.py``): the
DOCX is read as Word's final view (insertions in, deletions out, as pandoc
and mammoth do), and the parse says so — before, a document whose pending
change turns ``one hundred and twenty`` days into ``sixty`` ingested with
``sixty`` as its text and nothing to say the text in force may differ."""

from __future__ import annotations

from docx.oxml import parse_xml

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.office import build_docx, texts

NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
TRACKED = "tracked change(s) neither accepted nor rejected"


def _revised(doc, deleted: str, inserted: str) -> None:
    p = doc.add_paragraph("Liều khởi đầu ")
    p._p.append(parse_xml(f'<w:del {NS} w:id="1" w:author="DS"><w:r><w:delText>{deleted}</w:delText></w:r></w:del>'))
    p._p.append(parse_xml(f'<w:ins {NS} w:id="2" w:author="DS"><w:r><w:t>{inserted}</w:t></w:r></w:ins>'))
    p.add_run(" mỗi 12 giờ.")


def test_a_pending_replacement_reads_the_final_view_and_says_so():
    doc = parse_document(build_docx(lambda d: _revised(d, "0,375 g", "0,5 g")), Format.DOCX, Settings())
    assert texts(doc) == ["Liều khởi đầu 0,5 g mỗi 12 giờ."]
    [warning] = [w for w in doc.warnings if TRACKED in w]
    assert warning.startswith("2 tracked change(s)") and "1 insertion(s) as text, 1 deletion(s) left out" in warning
    assert "'0,375 g' → '0,5 g'" in warning and "accept or reject them in Word" in warning


def test_paragraph_mark_revisions_and_no_revisions_say_nothing():
    def marks_only(doc):
        p = doc.add_paragraph("Đoạn văn.")
        p._p.get_or_add_pPr().append(parse_xml(f'<w:rPr {NS}><w:ins w:id="3" w:author="DS"/></w:rPr>'))
        doc.add_paragraph("Không có thay đổi.")

    doc = parse_document(build_docx(marks_only), Format.DOCX, Settings())
    assert texts(doc) == ["Đoạn văn.", "Không có thay đổi."]
    assert not any(TRACKED in w for w in doc.warnings)


def test_corpus_municipal_code_with_pending_changes(corpus):
    """Apache POI's stress023, a US municipal code chapter under review: 87
    insertions and 50 deletions hold text (the rest mark paragraph marks)."""
    doc = parse_document(corpus("poi__stress023_municipal_code.docx").read_bytes(), Format.DOCX, Settings())
    body = "\n".join(texts(doc))
    assert "sixty" in body and "one hundred and twenty" not in body  # the final view
    [warning] = [w for w in doc.warnings if TRACKED in w]
    assert "87 insertion(s) as text, 50 deletion(s) left out" in warning
    assert "'A wholly within existing development' → 'Such an'" in warning
