"""Write the generic office sample collection: data/inbox/office/.

    .venv/bin/python scripts/make_sample_office.py [OUT_DIR]

- ``collection.toml``: profile generic, normalization nfc.
- ``staff_handbook.docx``: Heading 1/2 styles, a list, a pay-band table with a
  provable header (text over numbers), and a letterhead laid out in a table
  whose cell holds a nested table (a layout table, folded into the prose).
- ``compensation.xlsx``: sheet "Pay scale" has a merged banner row over the
  header, departments merged vertically over their rows (forward-filled, so
  each row names its department); sheet "Grade steps" is the 30-row
  compensation table of numbers only whose first row is data — it has no
  provable header, so its rows read ``80 | 70``, never ``80: 70``; sheet
  "Notes" is empty and skipped.

Byte-identical on every run (fixed document dates and zip timestamps).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_sample_persian import FIXED_DATE, _fixed_properties, stable_zip, write_files  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "data" / "inbox" / "office"

COLLECTION_TOML = """\
# Generic English office documents: NFC normalization only.
profile = "generic"
normalization = "nfc"
"""

PAY_BANDS = [["Band", "Title", "Minimum (USD)", "Maximum (USD)"], ["B1", "Associate", "42000", "55000"],
             ["B2", "Analyst", "55000", "72000"], ["B3", "Senior analyst", "72000", "95000"]]
PAY_SCALE = [
    ("Finance", "Accountant", 4200, 5100),
    ("Finance", "Controller", 6800, 8200),
    ("Finance", "Payroll clerk", 3100, 3900),
    ("Engineering", "Engineer", 5200, 6900),
    ("Engineering", "Lead engineer", 7100, 9300),
]
# Grade steps: 30 rows of numbers only, the first row is data (ADR 0018 §4's case).
GRADE_STEPS = [(80 + k, 70 + k) for k in range(30)]


def staff_handbook_docx() -> bytes:
    from docx import Document

    doc = Document()
    _fixed_properties(doc.core_properties)
    letterhead = doc.add_table(rows=1, cols=2)
    letterhead.cell(0, 0).text = "Acme Holdings — Human Resources"
    contact = letterhead.cell(0, 1)
    contact.text = "Contacts"
    nested = contact.add_table(rows=2, cols=2)
    for r, (k, v) in enumerate([("Email", "hr@example.com"), ("Phone", "+1 555 0100")]):
        nested.cell(r, 0).text, nested.cell(r, 1).text = k, v
    doc.add_paragraph("Staff handbook", style="Heading 1")
    doc.add_paragraph("This handbook explains how pay is set and reviewed.")
    doc.add_paragraph("Pay", style="Heading 2")
    doc.add_paragraph("Pay is reviewed every year in March.")
    doc.add_paragraph("Reviews consider performance and market data.", style="List Bullet")
    doc.add_paragraph("Increases take effect on 1 April.", style="List Bullet")
    table = doc.add_table(rows=len(PAY_BANDS), cols=4)
    table.style = "Table Grid"
    for r, row in enumerate(PAY_BANDS):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    doc.add_paragraph("Leave", style="Heading 2")
    doc.add_paragraph("Full-time staff receive 25 days of paid leave per year.")
    out = io.BytesIO()
    doc.save(out)
    return stable_zip(out.getvalue())


def compensation_xlsx() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.properties.creator = "duocthu"
    wb.properties.created = FIXED_DATE
    wb.properties.modified = FIXED_DATE
    ws = wb.active
    ws.title = "Pay scale"
    ws["A1"] = "Monthly pay scale 2024 (USD)"
    ws.merge_cells("A1:D1")
    ws.append(["Department", "Role", "Minimum", "Maximum"])
    start = 3
    for department, role, low, high in PAY_SCALE:
        ws.append([department, role, low, high])
    ws.merge_cells(start_row=start, start_column=1, end_row=start + 2, end_column=1)  # Finance
    ws.merge_cells(start_row=start + 3, start_column=1, end_row=start + 4, end_column=1)  # Engineering
    steps = wb.create_sheet("Grade steps")
    for row in GRADE_STEPS:
        steps.append(list(row))
    wb.create_sheet("Notes")
    out = io.BytesIO()
    wb.save(out)
    return stable_zip(out.getvalue())


def write(out_dir: Path = OUT) -> list[Path]:
    return write_files(out_dir, {
        "collection.toml": COLLECTION_TOML.encode("utf-8"),
        "staff_handbook.docx": staff_handbook_docx(),
        "compensation.xlsx": compensation_xlsx(),
    })


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    for path in write(target):
        print(f"{path}  {path.stat().st_size:,} bytes")
