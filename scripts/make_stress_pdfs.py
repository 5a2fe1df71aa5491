"""Generate the stress PDFs of issue 15: the layouts on which a table or a
formula used to be cut, leak into prose, or swallow prose.

    .venv/bin/python scripts/make_stress_pdfs.py OUT_DIR

Each case is one small PDF plus what a correct parse must find
(``CASES[name].expect``): the rows every table block must hold, the prose that
must stay prose, the formulas. The PDFs are built in memory by
:func:`build` (tests call it directly; nothing is committed) and are
deterministic (fixed metadata, no new file id).

- ``booktabs_continued``: a renal-dosing table with rules only above and under
  its header (booktabs), starting near the foot of page 1 with no closing
  rule there, continued on page 2 where a closing rule ends it;
- ``two_column_continued``: a two-column page whose left column opens with
  the rest of a table continued from the page before, beside the right
  column's prose (the next monograph's first section);
- ``column_bottom``: a booktabs table at the foot of the left column of a
  two-column page, its last rows under its last rule;
- ``inline_scripts``: prose with inline subscripts and superscripts set as
  scripts (``x₁``, ``x³``, ``10⁻³``, ``mg/m²``), which must read ``x_1``, ``x^3``;
- ``sideways_table``: a table set sideways in the left part of an upright
  page of prose;
- ``formulas``: a two-column page with the Cockcroft-Gault fraction, a sum
  with limits and a 2×2 matrix in brackets, between prose lines;
- ``word_fraction``: a decree's fraction set in words, its numerator, its
  denominator and the cells beside it over several lines each.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from duocthu_assets.parse.pdf.engine import pymupdf  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
W, H = 595.28, 841.89
LEFT, RIGHT = 56.7, W - 56.7
GUTTER = 18.0
COL_W = (RIGHT - LEFT - GUTTER) / 2
SIZE = 10.0
LEAD = 13.8
CELL = 9.0
ROW = 14.0

PROSE = (
    "Thuốc được thải trừ chủ yếu qua thận dưới dạng không đổi, vì vậy phải giảm liều ở người bệnh "
    "suy thận theo độ thanh thải creatinin. Theo dõi chức năng thận và nồng độ thuốc trong huyết "
    "thanh khi dùng kéo dài, đặc biệt ở người cao tuổi và trẻ sơ sinh. Không cần chỉnh liều ở người "
    "bệnh suy gan đơn thuần. Uống thuốc sau bữa ăn để giảm kích ứng dạ dày, uống với nhiều nước."
)
NEXT_SECTION = (
    "Chỉ định: nhiễm khuẩn đường hô hấp, đường tiết niệu và da do vi khuẩn nhạy cảm. "
    "Thuốc dùng đường uống hoặc tiêm tĩnh mạch chậm, liều chia làm hai đến ba lần mỗi ngày, "
    "tùy mức độ nặng của nhiễm khuẩn và chức năng thận của người bệnh. Không dùng cho người "
    "có tiền sử dị ứng với thành phần của thuốc hoặc các kháng sinh cùng nhóm."
)

HEADER = ["Độ thanh thải (ml/phút)", "Liều", "Khoảng cách"]
ROWS = [
    ["> 50", "0,75 g mỗi lần", "48 giờ"],
    ["30 – 50", "0,375 g mỗi lần", "12 giờ"],
    ["10 – 29", "0,25 g mỗi lần", "24 giờ"],
    ["< 10", "0,125 g mỗi lần", "48 giờ"],
]


@dataclass
class Expect:
    tables: list[list[str]] = field(default_factory=list)  # per table part, cell strings it must hold
    prose: list[str] = field(default_factory=list)  # phrases that must stay in prose (no block)
    formulas: list[str] = field(default_factory=list)  # strings each formula block must hold (one per formula)
    linked: bool = False  # the table parts are one continued chain


class Writer:
    def __init__(self) -> None:
        self.doc = pymupdf.open()
        self.fonts = {"r": pymupdf.Font(fontfile=FONT), "b": pymupdf.Font(fontfile=FONT_BOLD)}
        self.page = None

    def new_page(self):
        self.page = self.doc.new_page(width=W, height=H)
        self.page.insert_font(fontname="dvr", fontfile=FONT)
        self.page.insert_font(fontname="dvb", fontfile=FONT_BOLD)
        return self.page

    def width(self, text: str, size: float = SIZE, style: str = "r") -> float:
        return self.fonts[style].text_length(text, fontsize=size)

    def text(self, x: float, baseline: float, text: str, size: float = SIZE, style: str = "r") -> None:
        self.page.insert_text((x, baseline), text, fontsize=size, fontname=f"dv{style}")

    def paragraph(self, x: float, top: float, width: float, text: str, size: float = SIZE, style: str = "r", max_lines: int = 999) -> float:
        """Justify-free left-aligned paragraph; returns the y under it."""
        words = text.split()
        line = ""
        y = top + size
        lines = 0
        for word in words:
            trial = (line + " " + word).strip()
            if self.width(trial, size, style) > width and line:
                self.text(x, y, line, size, style)
                y += LEAD
                lines += 1
                line = word
                if lines >= max_lines:
                    return y - size
            else:
                line = trial
        if line:
            self.text(x, y, line, size, style)
            y += LEAD
        return y - size

    def rule(self, x0: float, y: float, x1: float, width: float = 0.6) -> None:
        self.page.draw_line((x0, y), (x1, y), color=(0, 0, 0), width=width)

    def table_rows(self, x: float, top: float, widths: list[float], rows: list[list[str]], style: str = "r", pitch: float = ROW) -> float:
        """Rows of cells (no rules), ``pitch`` apart; returns the y under them."""
        y = top
        for row in rows:
            cx = x
            for cell, w in zip(row, widths):
                self.text(cx + 3, y + CELL + 2, cell, CELL, style)
                cx += w
            y += pitch
        return y

    def bytes(self) -> bytes:
        self.doc.set_metadata({"creationDate": "D:20260101000000", "modDate": "D:20260101000000", "producer": "duocthu stress"})
        return self.doc.tobytes(garbage=4, deflate=True, no_new_id=True)


def _widths(total: float) -> list[float]:
    return [0.4 * total, 0.35 * total, 0.25 * total]


def booktabs_continued() -> tuple[bytes, Expect]:
    w = Writer()
    w.new_page()
    y = 70.0
    w.text(LEFT, y, "AMPICILIN VÀ SULBACTAM", 14, "b")
    y += 22
    while y < 640:
        y = w.paragraph(LEFT, y, RIGHT - LEFT, PROSE) + 8
    w.text(LEFT, y + SIZE, "Liều lượng và cách dùng", SIZE, "b")
    y += 24
    widths = _widths(RIGHT - LEFT)
    w.rule(LEFT, y, RIGHT, 1.0)
    y = w.table_rows(LEFT, y + 2, widths, [HEADER], "b")
    w.rule(LEFT, y + 1, RIGHT)
    y = w.table_rows(LEFT, y + 3, widths, ROWS[:2])
    # no closing rule: the table goes on on page 2
    w.new_page()
    y = w.table_rows(LEFT, 70.0, widths, ROWS[2:])
    w.rule(LEFT, y + 2, RIGHT, 1.0)
    w.paragraph(LEFT, y + 16, RIGHT - LEFT, "Thẩm phân máu: dùng liều bổ sung sau mỗi lần lọc máu, theo dõi nồng độ thuốc.")
    return w.bytes(), Expect(tables=[ROWS[0] + ROWS[1], ROWS[2] + ROWS[3]], prose=["Thẩm phân máu"], linked=True)


def two_column_continued() -> tuple[bytes, Expect]:
    w = Writer()
    w.new_page()
    # page 1: single column prose, then a booktabs table to the page foot
    y = 70.0
    while y < 660:
        y = w.paragraph(LEFT, y, RIGHT - LEFT, PROSE) + 8
    widths = _widths(COL_W)
    w.text(LEFT, y + SIZE, "Liều dùng cho người suy thận", SIZE, "b")
    y += 22
    w.rule(LEFT, y, LEFT + COL_W, 1.0)
    y = w.table_rows(LEFT, y + 2, widths, [HEADER[:1] + HEADER[1:]], "b")
    w.rule(LEFT, y + 1, LEFT + COL_W)
    y = w.table_rows(LEFT, y + 3, widths, ROWS[:2])
    # page 2: two columns; the left one opens with the table's last rows
    w.new_page()
    top = 70.0
    y = w.table_rows(LEFT, top, widths, ROWS[2:])
    w.rule(LEFT, y + 2, LEFT + COL_W, 1.0)
    y = w.paragraph(LEFT, y + 14, COL_W, PROSE)
    rx = LEFT + COL_W + GUTTER
    w.text(rx, top + 10, "CEFUROXIM", 12, "b")
    w.paragraph(rx, top + 18, COL_W, NEXT_SECTION)
    return w.bytes(), Expect(tables=[ROWS[0] + ROWS[1], ROWS[2] + ROWS[3]], prose=["CEFUROXIM", "Chỉ định: nhiễm khuẩn", "tiền sử dị ứng"], linked=True)


def column_bottom() -> tuple[bytes, Expect]:
    w = Writer()
    w.new_page()
    top = 70.0
    y = top
    while y < 600:
        y = w.paragraph(LEFT, y, COL_W, PROSE) + 8
    widths = _widths(COL_W)
    w.rule(LEFT, y, LEFT + COL_W, 1.0)
    y = w.table_rows(LEFT, y + 2, widths, [HEADER], "b")
    w.rule(LEFT, y + 1, LEFT + COL_W)
    y = w.table_rows(LEFT, y + 3, widths, ROWS)
    rx = LEFT + COL_W + GUTTER
    y2 = top
    while y2 < 740:
        y2 = w.paragraph(rx, y2, COL_W, NEXT_SECTION) + 8
    return w.bytes(), Expect(tables=[[c for r in ROWS for c in r]], prose=["Chỉ định: nhiễm khuẩn"])


def formulas() -> tuple[bytes, Expect]:
    w = Writer()
    w.new_page()
    top = 70.0
    y = w.paragraph(LEFT, top, COL_W, PROSE) + 14
    # Cockcroft-Gault: ClCr = (140 - tuổi) x cân nặng / (72 x creatinin)
    lhs = "ClCr ="
    num = "(140 − tuổi) × cân nặng"
    den = "72 × creatinin huyết thanh"
    x = LEFT + 10
    axis = y + 14
    w.text(x, axis + 3, lhs)
    bx = x + w.width(lhs) + 6
    bw = max(w.width(num), w.width(den)) + 6
    w.text(bx + (bw - w.width(num)) / 2, axis - 4, num)
    w.rule(bx, axis, bx + bw, 0.6)
    w.text(bx + (bw - w.width(den)) / 2, axis + 12, den)
    y = axis + 30
    y = w.paragraph(LEFT, y, COL_W, PROSE) + 14
    # a sum with limits: S = Σ_{i=1}^{n} x_i²
    axis = y + 18
    w.text(x, axis + 3, "S =")
    sx = x + w.width("S =") + 6
    w.text(sx + 4, axis - 9, "n", 7)
    w.text(sx, axis + 6, "∑", 16)
    w.text(sx + 1, axis + 15, "i=1", 7)
    w.text(sx + 18, axis + 3, "x")
    w.text(sx + 24, axis + 6, "i", 7)
    w.text(sx + 24, axis - 1, "2", 7)
    rx = LEFT + COL_W + GUTTER
    y2 = w.paragraph(rx, top, COL_W, NEXT_SECTION) + 14
    # a 2x2 matrix in brackets: A = [a b; c d]
    axis = y2 + 16
    w.text(rx + 10, axis + 3, "A =")
    mx = rx + 10 + w.width("A =") + 6
    for x0, x1 in ((mx, mx + 3), (mx + 52, mx + 49)):
        w.page.draw_line((x0, axis - 14), (x0, axis + 14), color=(0, 0, 0), width=0.7)
        w.page.draw_line((x0, axis - 14), (x1, axis - 14), color=(0, 0, 0), width=0.7)
        w.page.draw_line((x0, axis + 14), (x1, axis + 14), color=(0, 0, 0), width=0.7)
    w.text(mx + 8, axis - 3, "a₁₁")
    w.text(mx + 30, axis - 3, "a₁₂")
    w.text(mx + 8, axis + 10, "a₂₁")
    w.text(mx + 30, axis + 10, "a₂₂")
    w.paragraph(rx, axis + 24, COL_W, NEXT_SECTION)
    return w.bytes(), Expect(formulas=["140", "∑", "a₁₁"], prose=["Chỉ định: nhiễm khuẩn"])


def ruled_last_rows() -> tuple[bytes, Expect]:
    """A fully ruled grid whose last two rows were set under its last rule
    (the grid drawn for fewer rows than the table has)."""
    w = Writer()
    w.new_page()
    y = w.paragraph(LEFT, 70, RIGHT - LEFT, PROSE) + 12
    widths = _widths(RIGHT - LEFT)
    xs = [LEFT, LEFT + widths[0], LEFT + widths[0] + widths[1], RIGHT]
    top = y
    bottom = w.table_rows(LEFT, y, widths, [HEADER], "b")
    bottom = w.table_rows(LEFT, bottom, widths, ROWS[:2])
    for yy in (top, top + ROW, top + 2 * ROW, bottom):
        w.rule(LEFT, yy, RIGHT)
    for x in xs:
        w.page.draw_line((x, top), (x, bottom), color=(0, 0, 0), width=0.6)
    y = w.table_rows(LEFT, bottom, widths, ROWS[2:])
    w.paragraph(LEFT, y + 20, RIGHT - LEFT, PROSE)
    return w.bytes(), Expect(tables=[[c for r in ROWS for c in r]], prose=["Thuốc được thải trừ"])


def flattened_sum() -> tuple[bytes, Expect]:
    """Prose holding a sum with limits already flattened into a line of
    text (as a PDF without the formula's layout would give it): what the
    leak detector must catch in a chunk."""
    w = Writer()
    w.new_page()
    y = w.paragraph(LEFT, 70, RIGHT - LEFT, PROSE) + 12
    y = w.paragraph(LEFT, y, RIGHT - LEFT, "Tổng bình phương ∑ n+1 i=1 x 2 i = 1 , với ∏ k j=1 y j ≤ 1 và x i ≥ 0 cho mọi i.") + 12
    w.paragraph(LEFT, y, RIGHT - LEFT, PROSE)
    return w.bytes(), Expect(prose=["Tổng bình phương"])


SCRIPT_LINES = [
    [("Với các biến đầu vào x", ""), ("1", "_"), (", x", ""), ("2", "_"), (", x", ""), ("3", "_"), (", y", ""), ("1", "_"), (", y", ""), ("2", "_"),
     (", y", ""), ("3", "_"), (", z", ""), ("1", "_"), (" và z", ""), ("2", "_"), (" ta có", "")],
    [("x", ""), ("3", "^"), (" + y", ""), ("2", "^"), (" ≤ 10", ""), ("−3", "^"), (" và liều 25 mg/m", ""), ("2", "^"), (" da mỗi ngày.", "")],
]


def inline_scripts() -> tuple[bytes, Expect]:
    """Prose whose variables carry real inline subscripts and superscripts
    (set smaller, off the baseline): they must read ``x_1``, ``x^3``,
    ``10^{−3}``, ``mg/m^2``, never ``x1``, ``x3``, ``10−3``, ``mg/m2`` (which the
    leak detector would take for flattened math)."""
    w = Writer()
    w.new_page()
    y = w.paragraph(LEFT, 70, RIGHT - LEFT, PROSE) + 12
    for line in SCRIPT_LINES:
        x, baseline = LEFT, y + SIZE
        for text, mark in line:
            size = SIZE if not mark else 0.7 * SIZE
            shift = 0.0 if not mark else (-0.4 * SIZE if mark == "^" else 0.2 * SIZE)
            w.text(x, baseline + shift, text, size)
            x += w.width(text, size)
        y += LEAD
    w.paragraph(LEFT, y + 12, RIGHT - LEFT, PROSE)
    return w.bytes(), Expect(prose=["x_1, x_2, x_3, y_1, y_2, y_3, z_1 và z_2", "x^3 + y^2 ≤ 10^{−3}", "mg/m^2"])


def sideways_table() -> tuple[bytes, Expect]:
    """A booktabs table set sideways (running up the page) in the left part
    of an upright page, prose upright on the right: the table is found in its
    own frame and none of its cells reach the prose."""
    w = Writer()
    w.new_page()
    header = ["Độ thanh thải (ml/phút)", "Liều", "Khoảng cách"]
    rows = [header] + ROWS + [["Thẩm phân máu", "0,5 g sau lọc", "mỗi lần lọc"], ["Thẩm phân phúc mạc", "0,25 g", "24 giờ"]]
    # in the table's own frame (x along the text, y down the rows): page point = (y, H - x)
    cols = [70.0, 300.0, 480.0]
    top = 50.0
    for k, row in enumerate(rows):
        baseline = top + 14 + k * ROW
        for cx, cell in zip(cols, row):
            w.page.insert_text((baseline, H - cx), cell, fontsize=CELL, fontname="dvr", rotate=90)
    bottom = top + 18 + len(rows) * ROW
    for y in (top, top + 18, bottom):
        w.page.draw_line((y, H - 60), (y, H - 640), color=(0, 0, 0), width=0.6)
    x = bottom + 40
    y = w.paragraph(x, 70, RIGHT - x, PROSE) + 12
    w.paragraph(x, y, RIGHT - x, NEXT_SECTION)
    return w.bytes(), Expect(tables=[[c for row in rows for c in row]], prose=["Thuốc được thải trừ", "Chỉ định: nhiễm khuẩn"])


def word_fraction() -> tuple[bytes, Expect]:
    """A decree's formula set in words (50/2026/NĐ-CP p. 16): a drawn
    fraction bar with a numerator of three lines and a denominator of two,
    a cell of three lines on each side, ``=`` and ``x`` on the bar's axis,
    every line set solid; a paragraph ends just over it with a short line.
    Read by the bar's nearest rows only, the other lines went to prose as
    one garbled sentence."""
    w = Writer()
    w.new_page()
    y = w.paragraph(LEFT, 70, RIGHT - LEFT, PROSE + " Tiền thuê đất phải nộp mỗi năm được tính như sau:") + 18
    solid = 12.0  # single spacing: each line's box touches the next
    axis = y + 3 * solid

    def centred(cx: float, baseline: float, text: str) -> None:
        w.text(cx - w.width(text) / 2, baseline, text)

    left, bar0, bar1, right = LEFT + 50, LEFT + 120, LEFT + 340, LEFT + 420
    for k, line in enumerate(["Tiền thuê đất", "phải nộp mỗi", "năm"]):
        centred(left, axis + 3.4 + (k - 1) * solid, line)
    centred(bar0 - 14, axis + 3.4, "=")
    numerator = ["Diện tích đất có thu tiền thuê đất", "nhân (x) giá đất tương ứng với", "thời hạn cho thuê đất"]
    for k, line in enumerate(numerator):
        centred((bar0 + bar1) / 2, axis - 4 - (len(numerator) - 1 - k) * solid, line)
    w.rule(bar0, axis, bar1, 0.5)
    for k, line in enumerate(["Thời hạn cho thuê đất của", "đất trước khi chuyển mục đích"]):
        centred((bar0 + bar1) / 2, axis + 10.8 + k * solid, line)
    centred(bar1 + 14, axis + 3.4, "x")
    for k, line in enumerate(["Thời hạn sử", "dụng đất còn", "lại"]):
        centred(right, axis + 3.4 + (k - 1) * solid, line)
    w.paragraph(LEFT, axis + 3 * solid + 14, RIGHT - LEFT, "Trong đó: giá đất là giá đất theo quy định tại Điều 5 Nghị định này.")
    cells = numerator + ["Thời hạn cho thuê đất của", "đất trước khi chuyển mục đích", "Tiền thuê đất", "phải nộp mỗi", "năm", "Thời hạn sử", "dụng đất còn", "lại"]
    return w.bytes(), Expect(formulas=cells, prose=["được tính như sau:", "Trong đó: giá đất"])


PRICES = [
    ["Thuốc", "Dạng", "Giá (đồng)"],
    ["Ampicilin", "lọ 1 g", "12.500"],
    ["Cefuroxim", "viên 500 mg", "8.200"],
    ["Gentamicin", "ống 80 mg", "2.300"],
    ["Vancomycin", "lọ 500 mg", "95.000"],
    ["Meropenem", "lọ 1 g", "310.000"],
]


def side_by_side_tables() -> tuple[bytes, Expect]:
    """Two borderless tables side by side at the top of a two-column page,
    each in its own column, their rows set at their own pitch (aaai p. 4:
    Table 1 atop the left column, Table 3 atop the right), two columns of
    prose under them: two tables, neither holding the other's cells, none
    across the gutter."""
    w = Writer()
    w.new_page()
    top = 70.0
    left = w.table_rows(LEFT, top, _widths(COL_W), [["Clcr (ml/phút)", "Liều", "Khoảng cách"]] + ROWS, "r")
    rx = LEFT + COL_W + GUTTER
    right = w.table_rows(rx, top + 4, _widths(COL_W), PRICES, pitch=ROW + 5)  # a looser pitch than the left table's
    under = max(left, right - 4) + 16
    yl = yr = under
    while yl < 700:
        yl = w.paragraph(LEFT, yl, COL_W, PROSE) + 8
    while yr < 700:
        yr = w.paragraph(rx, yr, COL_W, NEXT_SECTION) + 8
    return w.bytes(), Expect(tables=[[c for r in ROWS for c in r], [c for r in PRICES[1:] for c in r]], prose=["Chỉ định: nhiễm khuẩn", "suy thận theo độ thanh thải"])


CASES = {
    "booktabs_continued": booktabs_continued,
    "two_column_continued": two_column_continued,
    "column_bottom": column_bottom,
    "formulas": formulas,
    "ruled_last_rows": ruled_last_rows,
    "flattened_sum": flattened_sum,
    "inline_scripts": inline_scripts,
    "sideways_table": sideways_table,
    "word_fraction": word_fraction,
    "side_by_side_tables": side_by_side_tables,
}


def build(name: str) -> tuple[bytes, Expect]:
    return CASES[name]()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    out = Path(args[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in CASES:
        data, _ = build(name)
        (out / f"stress_{name}.pdf").write_bytes(data)
        print(out / f"stress_{name}.pdf")
    return 0


if __name__ == "__main__":
    sys.exit(main())
