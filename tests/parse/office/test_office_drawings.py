"""Content an Office file draws instead of writing as text: a DOCX's charts
and SmartArt diagrams, a workbook's text boxes. Each was dropped with
nothing said (a DOCX's pictures and a workbook's charts were already
named): a SmartArt of a procedure's steps, a text box ``Giá chưa gồm VAT``
over a price list. Now named in a warning quoting their text. None of the
corpus's 14 DOCX and 6 workbooks holds one (their parts listed)."""

from __future__ import annotations

import io
import zipfile

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Settings

from tests.support.office import build_docx
from tests.support.office import xlsx_bytes

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
REL_DIAGRAM_DATA = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/diagramData"
DRAWN = "chart(s) and"


def _graphic(uri: str, inner: str) -> str:
    return (
        '<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
        f'<wp:extent cx="100" cy="100"/><wp:docPr id="9" name="x"/><a:graphic xmlns:a="{A}"><a:graphicData uri="{uri}">'
        f"{inner}</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>"
    )


def _rewrite(data: bytes, changes: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, changes.pop(item.filename, src.read(item.filename)))
        for name, body in changes.items():
            dst.writestr(name, body)
    return out.getvalue()


def docx_with_chart_and_diagram() -> bytes:
    data = build_docx(lambda doc: (doc.add_paragraph("Quy trình cấp phát thuốc:"), doc.add_paragraph("ANCHOR")))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        body = z.read("word/document.xml").decode()
        rels = z.read("word/_rels/document.xml.rels").decode()
    chart = _graphic("http://schemas.openxmlformats.org/drawingml/2006/chart",
                     f'<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="{R}" r:id="rId90"/>')
    diagram = _graphic("http://schemas.openxmlformats.org/drawingml/2006/diagram",
                       f'<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:r="{R}" '
                       'r:dm="rId91" r:lo="rId92" r:qs="rId93" r:cs="rId94"/>')
    body = body.replace("<w:r><w:t>ANCHOR</w:t></w:r>", chart + diagram)
    rels = rels.replace("</Relationships>", f'<Relationship Id="rId91" Type="{REL_DIAGRAM_DATA}" Target="diagrams/data1.xml"/></Relationships>')
    steps = "".join(f"<dgm:pt><dgm:t><a:p><a:r><a:t>{t}</a:t></a:r></a:p></dgm:t></dgm:pt>" for t in ("Bước 1: kê đơn", "Bước 2: duyệt", "Bước 3: cấp phát"))
    part = f'<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="{A}"><dgm:ptLst>{steps}</dgm:ptLst></dgm:dataModel>'
    return _rewrite(data, {"word/document.xml": body.encode(), "word/_rels/document.xml.rels": rels.encode(), "word/diagrams/data1.xml": part.encode()})


def test_docx_charts_and_smartart_are_named_with_their_text():
    doc = parse_document(docx_with_chart_and_diagram(), Format.DOCX, Settings())
    assert [s.text for s in doc.segments] == ["Quy trình cấp phát thuốc:"]
    [warning] = [w for w in doc.warnings if DRAWN in w]
    assert warning.startswith("1 chart(s) and 1 SmartArt diagram(s) not extracted"), warning
    assert "the diagrams read: 'Bước 1: kê đơn · Bước 2: duyệt · Bước 3: cấp phát'" in warning, warning
    plain = parse_document(build_docx(lambda d: d.add_paragraph("Liều 500 mg.")), Format.DOCX, Settings())
    assert not any(DRAWN in w for w in plain.warnings)


def test_xlsx_text_boxes_are_named():
    data = xlsx_bytes(lambda wb: [wb.active.append(r) for r in (["Thuốc", "Giá"], ["Amoxicillin", 1200])])
    drawing = (
        '<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" '
        f'xmlns:a="{A}"><xdr:twoCellAnchor><xdr:sp><xdr:txBody><a:p><a:r><a:t>Giá chưa gồm VAT</a:t></a:r></a:p>'
        "<a:p><a:r><a:t>(cập nhật 1/2026)</a:t></a:r></a:p></xdr:txBody></xdr:sp></xdr:twoCellAnchor>"
        "<xdr:twoCellAnchor><xdr:sp><xdr:txBody><a:p/></xdr:txBody></xdr:sp></xdr:twoCellAnchor></xdr:wsDr>"
    )
    doc = parse_document(_rewrite(data, {"xl/drawings/drawing1.xml": drawing.encode()}), Format.XLSX, Settings())
    said = ("1 text box(es) or shape(s) with text drawn over the sheets not read (text set over the cells is no cell "
            "value), the first: 'Giá chưa gồm VAT (cập nhật 1/2026)'")
    assert any(w.startswith(said) for w in doc.warnings), doc.warnings
    assert not any("text box" in w for w in parse_document(data, Format.XLSX, Settings()).warnings)


def test_corpus_office_files_draw_no_text(corpus):
    for name in ("docling__xlsx_01_multisheet_merged.xlsx", "poi__52348_two_row_header.xlsx", "poi__stress020_chinese_two_row_header.xlsx"):
        parsed = parse_document(corpus(name).read_bytes(), Format.XLSX, Settings())  # drawings: charts, no shape text
        assert not any("text box" in w for w in parsed.warnings), parsed.warnings
