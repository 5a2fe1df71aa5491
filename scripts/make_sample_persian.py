"""Write the Persian sample collection: data/inbox/persian/.

    .venv/bin/python scripts/make_sample_persian.py [OUT_DIR]

- ``collection.toml``: profile generic, normalization persian (ADR 0018 §5).
- ``service_contract.docx``: a service contract with real Heading 1/2 styles,
  mixed ك/ک and ي/ی (as text typed on Arabic and Persian keyboards mixes them),
  harakat, tatweel and a legacy ¬, a letterhead whose preamble lives in a table
  cell (a layout table: the cell is over 400 tokens), a fee table with a
  provable header, obligations in a layout table holding a nested schedule
  table, and a penalty table of numbers only (no provable header).
- ``payroll_1402.csv``: a Windows-1256 payroll export with a banner row above
  the header, a quoted comma and a quoted newline. Windows-1256 has no Persian
  ی, so like every such export it spells yeh as Arabic ي; normalization folds
  it. No ``csv_encoding`` is set: the parser detects Windows-1256 and says so
  in the document's warnings (set ``csv_encoding = "cp1256"`` in
  collection.toml to skip detection).

The output is byte-for-byte the same on every run: document properties carry a
fixed date and every zip member a fixed timestamp. The builders are imported by
the tests, so the demo documents are the tested ones.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import sys
import zipfile
from pathlib import Path

FIXED_DATE = dt.datetime(2024, 1, 1, 0, 0, 0)
ZIP_DATE = (2024, 1, 1, 0, 0, 0)
OUT = Path(__file__).resolve().parents[1] / "data" / "inbox" / "persian"

COLLECTION_TOML = """\
# Persian office documents and contracts: ADR 0018 §5 normalization.
profile = "generic"
normalization = "persian"
# csv_encoding is not set: Windows-1256 CSVs are detected (and named in the
# document's warnings). Set it to skip detection, e.g. csv_encoding = "cp1256".
"""

# Mixed forms on purpose: ك (U+0643) and ک (U+06A9), ي (U+064A) and ی (U+06CC).
PREAMBLE = [
    "اين قرارداد بين شركت داده‌پردازان پارس به نمایندگی آقای علی رضایی، که از این پس «کارفرما» نامیده می‌شود، "
    "و شرکت نرم‌افزاری آریا به نمايندگي خانم مریم کریمی، که از این پس «پیمانکار» نامیده می‌شود، منعقد می‌گردد.",
    "طرفين با آگاهی كامل از مفاد این قرارداد و با رعایت قوانین و مقررات جاری کشور، تعهدات زیر را می‌پذیرند. "
    "کارفرما سامانه مالی و حسابداری خود را در اختیار پیمانکار قرار می‌دهد تا خدمات پشتیبانی، نگهداری، "
    "رفع اشکال و به‌روزرسانی آن را مطابق شرح خدمات پیوست انجام دهد.",
    "پیمانکار متعهد است کلیه اطلاعات کارفرما را محرمانه نگه دارد و آن را در اختیار هیچ شخص ثالثی قرار ندهد. "
    "این تعهد پس از پایان مدت قرارداد نیز به مدت پنج سال به قوت خود باقی است. "
    "هرگونه نقض این تعهد موجب مسئولیت پیمانکار و جبران کلیه خسارات وارده خواهد بود.",
    "مدت این قرارداد یک سال شمسی از تاریخ امضا است و در صورت رضایت طرفین برای یک دوره مشابه قابل تمدید است. "
    "درخواست تمدید باید دست‌کم یک ماه پیش از پایان مدت به صورت کتبی به طرف دیگر اعلام شود.",
]
SUBJECT = [
    "موضوع اين قرارداد ارائه خدمات پشتيباني و نگهداري سامانه مالي كارفرما است.",
    "خدمات شامل رفع اشکال، به‌روزرسانی نسخه‌ها و آموزش کاربران کارفرما می‌باشد.",
]
FEES_HEADER = ["ردیف", "شرح خدمات", "مبلغ (ریال)"]
FEES = [
    ["۱", "پشتیبانی ماهانه سامانه", "۱۲۰٬۰۰۰٬۰۰۰"],
    ["۲", "به‌روزرسانی نسخه سالانه", "۳۵۰٬۰۰۰٬۰۰۰"],
    ["۳", "آموزش كاربران (هر جلسه)", "۱۵٬۰۰۰٬۰۰۰"],
    ["۴", "رفع اشکال اضطراری (هر مورد)", "۸٬۵۰۰٬۰۰۰"],
]
OBLIGATIONS_EMPLOYER = [
    "كارفرما موظف است دسترسی لازم به سامانه را در اختیار پیمانکار قرار دهد.",
    "پرداخت‌ها ظرف ده روز پس از تأیید صورت‌حساب انجام مي‌شود.",
]
OBLIGATIONS_CONTRACTOR = ["پیمانکار خدمات را طبق جدول زمان‌بندی زیر تحویل می‌دهد:"]
SCHEDULE = [["مرحله", "مهلت (روز)"], ["نصب و راه‌اندازی", "۱۰"], ["آموزش کاربران", "۲۰"], ["تحویل نهایی", "۴۵"]]
TERMINATION = (
    "در صورت تأخیر بیش از سی روز، کارفرما حق فســـخ قرارداد را دارد و مُدَّت باقیمانده¬ی قرارداد ملغی می‌شود."
)
PENALTIES = [["۸۰", "۷۰"], ["۸۵", "۷۵"], ["۹۰", "۸۰"], ["۹۵", "۸۵"]]  # numbers only: no provable header
SIGNATURES = ["کارفرما: شرکت داده‌پردازان پارس", "پیمانکار: شرکت نرم‌افزاری آریا"]

PAYROLL_BANNER = "فهرست حقوق كاركنان واحد مالي - سال 1402"
PAYROLL_HEADER = ["نام و نام خانوادگی", "سمت", "حقوق ماهانه (ریال)", "توضیحات"]
PAYROLL = [
    ["علی رضایی", "کارشناس مالی", "120000000", "استخدام رسمی"],
    ["مريم كريمي", "حسابدار", "95000000", "قرارداد یکساله، قابل تمدید"],
    ["پرویز احمدی", "مدير واحد", "180000000", "دارای دو سمت:\nمدیر و بازرس"],
    ["ژاله چگینی", "کارمند دفتری", "70000000", ""],
]


def stable_zip(data: bytes) -> bytes:
    """The same package with every member's timestamp fixed, so a rebuild is
    byte-identical."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_DATE)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o600 << 16
            member = src.read(info.filename)
            if info.filename == "docProps/core.xml":  # openpyxl stamps "modified" with the clock on save
                member = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)", rb"\g<1>2024-01-01T00:00:00Z\g<2>", member)
            dst.writestr(fixed, member)
    return out.getvalue()


def _rtl(paragraph) -> None:
    from docx.oxml import OxmlElement

    paragraph._p.get_or_add_pPr().append(OxmlElement("w:bidi"))


def _fixed_properties(core) -> None:
    core.author = "duocthu"
    core.last_modified_by = "duocthu"
    core.created = FIXED_DATE
    core.modified = FIXED_DATE
    core.last_printed = FIXED_DATE
    core.revision = 1


def _fill(table, rows: list[list[str]]) -> None:
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
            for p in table.cell(r, c).paragraphs:
                _rtl(p)


def persian_contract_docx() -> bytes:
    from docx import Document

    doc = Document()
    _fixed_properties(doc.core_properties)

    def para(text: str, style: str | None = None):
        p = doc.add_paragraph(text, style=style)
        _rtl(p)
        return p

    para("قرارداد ارائه خدمات پشتیبانی نرم‌افزار", "Heading 1")
    # letterhead: a layout table, the preamble's cell alone is over 400 tokens
    letterhead = doc.add_table(rows=1, cols=2)
    left, right = letterhead.cell(0, 0), letterhead.cell(0, 1)
    left.text = "شماره: ۱۴۰۲/۱۲۳"
    left.add_paragraph("تاریخ: ۱۴۰۲/۰۵/۱۲")
    right.text = PREAMBLE[0]
    for text in PREAMBLE[1:]:
        right.add_paragraph(text)
    para("ماده ۱ - موضوع قرارداد", "Heading 2")
    for text in SUBJECT:
        para(text)
    para("ماده ۲ - مبلغ قرارداد", "Heading 2")
    para("مبالغ قرارداد به شرح جدول زیر است:")
    fees = doc.add_table(rows=1 + len(FEES), cols=3)
    fees.style = "Table Grid"
    _fill(fees, [FEES_HEADER, *FEES])
    para("ماده ۳ - تعهدات طرفین", "Heading 2")
    # obligations: a layout table, one cell holds a nested schedule table
    layout = doc.add_table(rows=1, cols=2)
    employer, contractor = layout.cell(0, 0), layout.cell(0, 1)
    employer.text = OBLIGATIONS_EMPLOYER[0]
    for text in OBLIGATIONS_EMPLOYER[1:]:
        employer.add_paragraph(text)
    contractor.text = OBLIGATIONS_CONTRACTOR[0]
    nested = contractor.add_table(rows=len(SCHEDULE), cols=2)
    _fill(nested, SCHEDULE)
    contractor.add_paragraph("تأخیر در هر مرحله مشمول جریمه ماده ۵ است.")
    para("ماده ۴ - فسخ قرارداد", "Heading 2")
    para(TERMINATION)
    para("ماده ۵ - جدول جریمه تأخیر", "Heading 2")
    penalties = doc.add_table(rows=len(PENALTIES), cols=2)
    penalties.style = "Table Grid"
    _fill(penalties, PENALTIES)
    signatures = doc.add_table(rows=1, cols=2)
    _fill(signatures, [SIGNATURES])
    out = io.BytesIO()
    doc.save(out)
    return stable_zip(out.getvalue())


def persian_payroll_csv() -> bytes:
    """The payroll as Windows-1256 bytes, yeh spelled ي as the code page forces."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([PAYROLL_BANNER, "", "", ""])
    writer.writerow(PAYROLL_HEADER)
    writer.writerows(PAYROLL)
    return out.getvalue().replace("ی", "ي").encode("cp1256")


def write(out_dir: Path = OUT) -> list[Path]:
    return write_files(out_dir, {
        "collection.toml": COLLECTION_TOML.encode("utf-8"),
        "service_contract.docx": persian_contract_docx(),
        "payroll_1402.csv": persian_payroll_csv(),
    })


def write_files(out_dir: Path, files: dict[str, bytes]) -> list[Path]:
    """Write each file's bytes under out_dir; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        path = out_dir / name
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    for path in write(target):
        print(f"{path}  {path.stat().st_size:,} bytes")
