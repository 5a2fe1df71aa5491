"""Write the sample formulary the PDF parser is tested against.

Outputs, under ``data/inbox/formulary/``:

- ``duoc_thu_mau.pdf``: a small Vietnamese drug formulary in the layout of the
  Dược thư quốc gia: three pages of front matter numbered in roman numerals (so
  the printed page differs from the physical page), then drug monographs with
  the standard sections, running header and footer, renal-dosing tables of each
  shape (ruled; borderless with rules only above and below; merged two-level
  header; continued across a page; continued across a column of a two-column
  page), two stacked fractions (Cockcroft-Gault among them) and a page of
  ordinary prose with numbers and short lines that is not a table;
- ``duoc_thu_mau.gold.json``: what a correct parse must find (monographs,
  sections, printed pages, every block with page, printed page, bbox, shape and
  its cell strings, prose that must survive);
- ``collection.toml``: ``profile = "formulary"``, ``normalization = "nfc"``.

The text is DejaVu Sans, embedded and subset, which renders Vietnamese. The
output is deterministic: fixed metadata, no new file id, so two runs give the
same bytes (``--check`` verifies that).

    .venv/bin/python scripts/make_sample_formulary.py [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from duocthu_assets.parse.pdf.engine import pymupdf  # noqa: E402  # PyMuPDF without its layout model
from duocthu_assets.parse.profiles.formulary import STANDARD_SECTIONS  # noqa: E402
from duocthu_assets.textnorm import ascii_slug  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "data" / "inbox" / "formulary"
PDF_NAME = "duoc_thu_mau.pdf"
GOLD_NAME = "duoc_thu_mau.gold.json"

FONT_REGULAR = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FONT_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONT_BOLD_ITALIC = "/usr/share/fonts/truetype/dejavu/DejaVuSans-BoldOblique.ttf"

PAGE_W, PAGE_H = 595.28, 841.89
MARGIN_X = 56.7
BODY_TOP = 78.0
BODY_BOTTOM = 782.0
GUTTER = 18.0
BODY_SIZE = 10.0
LEAD = 13.8
CELL_SIZE = 9.0
ROW_H = 15.0
HEADER_BASELINE = 44.0
HEADER_RULE_Y = 52.0
FOOTER_BASELINE = 812.0
BOOK_TITLE = "DƯỢC THƯ QUỐC GIA VIỆT NAM – BẢN MẪU"
FRONT_MATTER_LABELS = ["", "ii", "iii"]  # the cover prints no number


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@dataclass
class Gold:
    monographs: list[dict] = field(default_factory=list)
    blocks: list[dict] = field(default_factory=list)
    prose: list[dict] = field(default_factory=list)
    pages: list[dict] = field(default_factory=list)
    not_table_pages: list[dict] = field(default_factory=list)
    all_prose: list[str] = field(default_factory=list)


class Writer:
    """A tiny flow layout: paragraphs, headings, tables and fractions placed
    top to bottom in one or two columns, with page furniture."""

    def __init__(self) -> None:
        self.doc = pymupdf.open()
        self.fonts = {
            "r": pymupdf.Font(fontfile=FONT_REGULAR),
            "b": pymupdf.Font(fontfile=FONT_BOLD),
            "bi": pymupdf.Font(fontfile=FONT_BOLD_ITALIC),
        }
        self.font_files = {"r": FONT_REGULAR, "b": FONT_BOLD, "bi": FONT_BOLD_ITALIC}
        self.gold = Gold()
        self.page: pymupdf.Page | None = None
        self.printed: int | None = None
        self.label = ""
        self.running_title = ""
        self.columns = 1
        self.col = 0
        self.y = BODY_TOP
        self.body_started = False
        self.furniture: list[list] = []

    # --- pages and columns -------------------------------------------------

    def new_page(self, label: str | None = None) -> None:
        self.page = self.doc.new_page(width=PAGE_W, height=PAGE_H)
        for name, path in self.font_files.items():
            self.page.insert_font(fontname=f"dv{name}", fontfile=path)
        if label is None:
            self.printed = (self.printed or 0) + 1
            self.label = str(self.printed)
        else:
            self.label = label
        self.col = 0
        self.y = BODY_TOP
        self.gold.pages.append(
            {
                "page": self.page.number + 1,
                "printed_label": self.label,
                "printed_page": int(self.label) if self.label.isdigit() else None,
            }
        )
        self.furniture.append([self.page.number, self.label, self.body_started, self.running_title])

    def draw_furniture(self) -> None:
        """Running header (book title left, the monograph at the top of the
        page right, a rule) and the printed page number, drawn last so the
        header can name a monograph that opens its page."""
        for number, label, body, title in self.furniture:
            page = self.page = self.doc[number]
            if body:
                self.text(MARGIN_X, HEADER_BASELINE, BOOK_TITLE, 8, "r")
                if title:
                    width = self.fonts["r"].text_length(title, 8)
                    self.text(PAGE_W - MARGIN_X - width, HEADER_BASELINE, title, 8, "r")
                page.draw_line((MARGIN_X, HEADER_RULE_Y), (PAGE_W - MARGIN_X, HEADER_RULE_Y), width=0.5)
            if label:
                width = self.fonts["r"].text_length(label, 9)
                self.text((PAGE_W - width) / 2, FOOTER_BASELINE, label, 9, "r")

    @property
    def col_width(self) -> float:
        full = PAGE_W - 2 * MARGIN_X
        return full if self.columns == 1 else (full - GUTTER) / 2

    @property
    def col_x(self) -> float:
        return MARGIN_X + self.col * (self.col_width + GUTTER)

    def set_columns(self, n: int) -> None:
        self.columns = n
        self.col = 0

    def next_column(self) -> None:
        if self.columns == 2 and self.col == 0:
            self.col = 1
            self.y = self.column_top
        else:
            self.new_page()
            self.column_top = BODY_TOP

    column_top = BODY_TOP

    def ensure(self, height: float) -> None:
        if self.y + height > BODY_BOTTOM:
            self.next_column()

    # --- text --------------------------------------------------------------

    def text(self, x: float, baseline: float, text: str, size: float, style: str) -> tuple[float, float, float, float]:
        assert self.page is not None
        self.page.insert_text((x, baseline), text, fontsize=size, fontname=f"dv{style}")
        font = self.fonts[style]
        width = font.text_length(unicodedata.normalize("NFC", text), size)
        return (x, baseline - font.ascender * size, x + width, baseline - font.descender * size)

    def wrap(self, text: str, size: float, style: str, width: float, first_indent: float = 0.0) -> list[str]:
        words = text.split(" ")
        lines: list[str] = []
        current = ""
        limit = width - first_indent
        for word in words:
            trial = f"{current} {word}" if current else word
            if self.fonts[style].text_length(nfc(trial), size) <= limit:
                current = trial
            else:
                lines.append(current)
                current = word
                limit = width
        lines.append(current)
        return lines

    def paragraph(
        self,
        text: str,
        *,
        style: str = "r",
        size: float = BODY_SIZE,
        before: float = 2.0,
        after: float = 3.0,
        label: str | None = None,
        label_style: str = "b",
        role: str | None = None,
        raw_text: str | None = None,
    ) -> None:
        """A left-aligned paragraph; ``label`` is a bold run opening its first
        line ("Mã ATC:"). ``raw_text`` writes other code points than ``text``
        (an NFD paragraph, to prove the parser normalises to NFC)."""
        self.y += before
        written = raw_text if raw_text is not None else text
        indent = 0.0
        if label:
            indent = self.fonts[label_style].text_length(label + " ", size)
        lines = self.wrap(written, size, style, self.col_width, indent)
        for i, line in enumerate(lines):
            self.ensure(LEAD)
            baseline = self.y + size
            x = self.col_x
            if i == 0 and label:
                self.text(x, baseline, label, size, label_style)
                x += indent
            self.text(x, baseline, line, size, style)
            self.y += LEAD
        self.y += after
        if not label:
            self.gold.all_prose.append(nfc(text))
        else:
            self.gold.all_prose.append(nfc(f"{label} {text}"))
        if role:
            self.gold.prose.append({"role": role, "text": nfc(text), "page": self.page.number + 1})

    def monograph(self, title: str, sections: list[str]) -> None:
        self.ensure(60)
        if self.y <= self.column_top + 1 and self.col == 0:
            self.furniture[-1][3] = title  # the monograph opens the page: the header names it
        self.y += 10
        self.running_title = title
        baseline = self.y + 14
        self.text(self.col_x, baseline, title, 14, "b")
        self.y += 24
        entry = {
            "title": title,
            "page": self.page.number + 1,
            "printed_page": self.printed,
            "sections": sections,
        }
        self.gold.monographs.append(entry)

    def section(self, title: str) -> None:
        self.ensure(LEAD * 3)
        self.y += 4
        self.text(self.col_x, self.y + BODY_SIZE, title, BODY_SIZE, "b")
        self.y += LEAD + 1

    # --- blocks ------------------------------------------------------------

    def _record_block(self, block_id: str, kind: str, shape: str, bbox, cells: list[str], contains: str, continues: str | None = None, entry: str = "", section: str = "") -> None:
        self.gold.blocks.append(
            {
                "id": block_id,
                "kind": kind,
                "shape": shape,
                "page": self.page.number + 1,
                "printed_page": self.printed,
                "bbox": [round(v, 2) for v in bbox],
                "contains": nfc(contains),
                "cells": [nfc(c) for c in cells],
                "continues": continues,
                "entry": entry,
                "section": section,
            }
        )

    def table(
        self,
        block_id: str,
        widths: list[float],
        header: list[list[tuple[str, int, int]]],
        rows: list[list[str]],
        *,
        style: str,
        contains: str,
        entry: str,
        section: str,
        shape: str,
        repeat_header: bool = True,
        push_rows: int | None = None,
    ) -> None:
        """Draw a table. ``header`` rows hold (text, colspan, rowspan) cells;
        ``style`` is "grid" (every rule) or "rules" (a rule above and a rule
        below, nothing else). Rows that do not fit continue in the next
        column or page (header repeated), recorded as linked blocks."""
        scale = self.col_width / sum(widths) if sum(widths) > self.col_width else 1.0
        widths = [w * scale for w in widths]
        header_h = ROW_H * len(header)
        self.y += 4
        self.ensure(header_h + 2 * ROW_H)
        if push_rows is not None:
            # start low enough that only ``push_rows`` rows fit: the table then
            # runs to the foot of the column and continues in the next one
            target = BODY_BOTTOM - header_h - push_rows * ROW_H - 0.5
            assert target >= self.y, f"{block_id}: {target - self.y:.1f} pt too little room to push"
            self.y = target
        part = 0
        remaining = list(rows)
        previous_id: str | None = None
        while remaining:
            fit = int((BODY_BOTTOM - self.y - header_h) // ROW_H)
            if fit < 2:
                self.next_column()
                continue
            chunk, remaining = remaining[:fit], remaining[fit:]
            part_id = block_id if not (remaining or part) else f"{block_id}{'abcdefgh'[part]}"
            with_header = part == 0 or repeat_header
            bbox, cells = self._draw_table_part(widths, header if with_header else [], chunk, style)
            part_shape = shape if not (remaining or part) else "cross_page_continuation"
            self._record_block(
                part_id,
                "table",
                part_shape,
                bbox,
                cells,
                contains if part == 0 else chunk[0][0],
                continues=previous_id,
                entry=entry,
                section=section,
            )
            previous_id = part_id
            part += 1
            self.y = bbox[3] + 6
            if remaining:
                self.next_column()

    def _draw_table_part(self, widths, header, rows, style):
        page = self.page
        x0 = self.col_x
        x1 = x0 + sum(widths)
        top = self.y
        col_x = [x0]
        for w in widths:
            col_x.append(col_x[-1] + w)
        cells: list[str] = []
        y = top
        # header: a grid of (text, colspan, rowspan); occupied[r][c] tracks spans
        n_rows = len(header)
        occupied = [[False] * len(widths) for _ in range(n_rows)]
        header_cells = []  # (r, c, colspan, rowspan, text)
        for r, hrow in enumerate(header):
            c = 0
            for text, colspan, rowspan in hrow:
                while occupied[r][c]:
                    c += 1
                for rr in range(r, r + rowspan):
                    for cc in range(c, c + colspan):
                        occupied[rr][cc] = True
                header_cells.append((r, c, colspan, rowspan, text))
                c += colspan
        for r, c, colspan, rowspan, text in header_cells:
            cx0, cx1 = col_x[c], col_x[c + colspan]
            cy0 = top + r * ROW_H
            cy1 = cy0 + rowspan * ROW_H
            width = self.fonts["b"].text_length(nfc(text), CELL_SIZE)
            baseline = (cy0 + cy1) / 2 + CELL_SIZE * 0.35
            self.text((cx0 + cx1 - width) / 2, baseline, text, CELL_SIZE, "b")
            cells.append(text)
            if style == "grid":
                # rule under a spanning cell that has cells below it in the header
                if r + rowspan < n_rows:
                    page.draw_line((cx0, cy1), (cx1, cy1), width=0.5)
                # vertical rule on the right of the cell, over its own rows only
                if c + colspan < len(widths):
                    page.draw_line((cx1, cy0), (cx1, cy1), width=0.5)
        y = top + n_rows * ROW_H
        body_top = y
        for row in rows:
            for c, text in enumerate(row):
                width = self.fonts["r"].text_length(nfc(text), CELL_SIZE)
                baseline = y + ROW_H / 2 + CELL_SIZE * 0.35
                if c == 0:
                    x = col_x[c] + 4
                else:
                    x = (col_x[c] + col_x[c + 1] - width) / 2
                self.text(x, baseline, text, CELL_SIZE, "r")
                cells.append(text)
            y += ROW_H
            if style == "grid" and row is not rows[-1]:
                page.draw_line((x0, y), (x1, y), width=0.5)
        bottom = y
        if style == "grid":
            page.draw_rect(pymupdf.Rect(x0, top, x1, bottom), width=0.8)
            if header:
                page.draw_line((x0, body_top), (x1, body_top), width=0.8)
            for cx in col_x[1:-1]:
                page.draw_line((cx, body_top), (cx, bottom), width=0.5)
        else:  # rules above and below only
            page.draw_line((x0, top), (x1, top), width=0.8)
            page.draw_line((x0, bottom), (x1, bottom), width=0.8)
        return (x0, top, x1, bottom), cells

    def fraction(self, block_id: str, lhs: str, numerator: str, denominator: str, *, entry: str, section: str) -> None:
        """A 2D formula: ``lhs`` then a numerator over a drawn rule over a
        denominator, as a formulary prints Cockcroft-Gault."""
        size = BODY_SIZE
        self.ensure(3 * LEAD + 8)
        self.y += 6
        top = self.y
        x = self.col_x + 20
        lhs_w = self.fonts["r"].text_length(nfc(lhs), size)
        num_w = self.fonts["r"].text_length(nfc(numerator), size)
        den_w = self.fonts["r"].text_length(nfc(denominator), size)
        bar_w = max(num_w, den_w) + 8
        bar_x0 = x + lhs_w + 6
        bar_y = top + LEAD + 3
        b_num = self.text(bar_x0 + (bar_w - num_w) / 2, bar_y - 4, numerator, size, "r")
        self.page.draw_line((bar_x0, bar_y), (bar_x0 + bar_w, bar_y), width=0.6)
        b_den = self.text(bar_x0 + (bar_w - den_w) / 2, bar_y + 4 + size, denominator, size, "r")
        b_lhs = self.text(x, bar_y + size * 0.35, lhs, size, "r")
        bbox = (
            min(b_lhs[0], b_num[0], b_den[0]),
            min(b_num[1], b_lhs[1]),
            max(bar_x0 + bar_w, b_num[2], b_den[2]),
            max(b_den[3], b_lhs[3]),
        )
        self._record_block(block_id, "formula", "formula_2d", bbox, [numerator, denominator], numerator, entry=entry, section=section)
        self.y = bbox[3] + 8


# --- content ------------------------------------------------------------------

STANDARD = list(STANDARD_SECTIONS)  # the vocabulary DESIGN.md fixes, one copy


def front_matter(w: Writer) -> None:
    w.new_page(FRONT_MATTER_LABELS[0])
    w.y = 300
    w.paragraph("DƯỢC THƯ QUỐC GIA VIỆT NAM", style="b", size=20, after=12)
    w.paragraph("Bản mẫu dùng để kiểm thử bộ phân tích tài liệu, không dùng cho điều trị.", after=6, role="cover")
    w.paragraph("Hà Nội – Nhà xuất bản Mẫu")

    w.new_page(FRONT_MATTER_LABELS[1])
    w.paragraph("LỜI NÓI ĐẦU", style="b", size=14, after=10)
    w.paragraph(
        "Dược thư quốc gia là tài liệu chính thức về thuốc, cung cấp thông tin cập nhật cho thầy thuốc, "
        "dược sĩ và người làm công tác y tế. Mỗi chuyên luận trình bày tên chung quốc tế, mã ATC, loại "
        "thuốc, dạng thuốc và hàm lượng, dược lý, dược động học, chỉ định, chống chỉ định, thận trọng, "
        "liều lượng và cách dùng cùng các thông tin khác.",
        role="front_matter",
    )
    w.paragraph(
        "Bảng liều theo chức năng thận và các công thức tính liều được in nguyên dạng. Người đọc cần đối "
        "chiếu với trang in tương ứng, không suy ra liều từ văn bản đã chuyển đổi."
    )

    w.new_page(FRONT_MATTER_LABELS[2])
    w.paragraph("MỤC LỤC", style="b", size=14, after=10)
    for name, printed in [("AMPICILIN VÀ SULBACTAM", 1), ("GENTAMICIN", 3), ("VANCOMYCIN", 4), ("AMIKACIN", 6), ("PARACETAMOL", 7)]:
        dots = "." * 60
        w.paragraph(f"{name} {dots} {printed}", after=1)


def ampicilin(w: Writer) -> None:
    entry = "ampicilin_va_sulbactam"
    sec = "lieu_luong_va_cach_dung"
    w.monograph(
        "AMPICILIN VÀ SULBACTAM",
        [
            "Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Dạng thuốc và hàm lượng", "Dược lý và cơ chế tác dụng",
            "Dược động học", "Chỉ định", "Chống chỉ định", "Thận trọng", "Thời kỳ mang thai", "Thời kỳ cho con bú",
            "Tác dụng không mong muốn (ADR)", "Liều lượng và cách dùng", "Tương tác thuốc", "Độ ổn định và bảo quản",
            "Quá liều và xử trí",
        ],
    )
    w.paragraph("Ampicillin and sulbactam.", label="Tên chung quốc tế:")
    w.paragraph("J01CR01.", label="Mã ATC:")
    w.paragraph("Kháng sinh nhóm beta-lactam phối hợp với chất ức chế beta-lactamase.", label="Loại thuốc:")
    w.section("Dạng thuốc và hàm lượng")
    w.paragraph("Lọ bột pha tiêm chứa ampicilin natri tương ứng 1 g ampicilin và sulbactam natri tương ứng 0,5 g sulbactam.")
    w.section("Dược lý và cơ chế tác dụng")
    w.paragraph(
        "Sulbactam gắn không thuận nghịch với beta-lactamase, bảo vệ ampicilin khỏi bị thủy phân. Phối hợp "
        "này mở rộng phổ tác dụng của ampicilin trên các vi khuẩn tiết beta-lactamase như tụ cầu vàng, "
        "Haemophilus influenzae và nhiều chủng vi khuẩn kỵ khí.",
        role="survives",
    )
    w.section("Dược động học")
    nfc_text = "Sau khi tiêm tĩnh mạch, nồng độ đỉnh trong huyết thanh đạt được ngay cuối thời gian tiêm truyền. Cả hai thuốc đều thải trừ chủ yếu qua thận dưới dạng không đổi."
    w.paragraph(nfc_text, raw_text=unicodedata.normalize("NFD", nfc_text), role="nfd_in_pdf")
    w.paragraph(
        "Nửa đời thải trừ của mỗi thuốc khoảng 1 giờ ở người có chức năng thận bình thường và kéo dài rõ "
        "rệt khi độ thanh thải creatinin giảm, vì vậy cần điều chỉnh khoảng cách giữa các liều."
    )
    w.section("Chỉ định")
    w.paragraph("Nhiễm khuẩn da và mô mềm, nhiễm khuẩn ổ bụng, nhiễm khuẩn phụ khoa do vi khuẩn tiết beta-lactamase nhạy cảm.")
    w.section("Chống chỉ định")
    w.paragraph("Người có tiền sử dị ứng với bất kỳ penicilin nào.")
    w.section("Thận trọng")
    w.paragraph("Cần hỏi kỹ tiền sử dị ứng với penicilin, cephalosporin và các dị nguyên khác trước khi bắt đầu điều trị.")
    w.section("Thời kỳ mang thai")
    w.paragraph("Chỉ dùng khi thật cần thiết.")
    w.section("Thời kỳ cho con bú")
    w.paragraph("Thuốc bài tiết vào sữa mẹ với lượng nhỏ; thận trọng khi dùng.")
    w.section("Tác dụng không mong muốn (ADR)")
    w.paragraph("Thường gặp: đau tại chỗ tiêm, tiêu chảy, phát ban. Ít gặp: buồn nôn, nôn, ngứa.")
    w.section("Liều lượng và cách dùng")
    w.paragraph("Người lớn:", style="b", after=1)
    w.paragraph("Tiêm tĩnh mạch chậm hoặc truyền tĩnh mạch 1,5 - 3 g (ampicilin 1 g + sulbactam 0,5 g đến ampicilin 2 g + sulbactam 1 g) mỗi 6 giờ.")
    w.paragraph("Người suy thận:", style="bi", after=1)
    w.paragraph(
        "Ở người suy thận, khoảng cách giữa các liều được kéo dài theo độ thanh thải creatinin như trong bảng sau.",
        role="before_table:T1",
    )
    w.ensure(LEAD + 4 * ROW_H + 8)  # the caption keeps with its table
    w.paragraph("Bảng 1. Khoảng cách liều theo độ thanh thải creatinin", style="b", size=9, after=0)
    w.table(
        "T1",
        [160, 150, 170],
        [[("Clcr (ml/phút)", 1, 1), ("Liều mỗi lần", 1, 1), ("Khoảng cách liều", 1, 1)]],
        [["≥ 30", "1,5 - 3 g", "mỗi 6 - 8 giờ"], ["15 - 29", "1,5 - 3 g", "mỗi 12 giờ"], ["5 - 14", "1,5 - 3 g", "mỗi 24 giờ"]],
        style="grid",
        contains="mỗi 6 - 8 giờ",
        entry=entry,
        section=sec,
        shape="simple_table",
    )
    w.paragraph(
        "Sau khi chỉnh liều, cần theo dõi chức năng thận và đáp ứng lâm sàng trong suốt đợt điều trị.",
        role="after_table:T1",
    )
    w.paragraph("Độ thanh thải creatinin được ước tính theo công thức Cockcroft-Gault:", role="before_formula:F1")
    w.fraction(
        "F1",
        "Clcr (ml/phút) =",
        "(140 - tuổi) x cân nặng (kg)",
        "72 x creatinin huyết thanh (mg/100 ml)",
        entry=entry,
        section=sec,
    )
    w.paragraph("Với người bệnh nữ, nhân kết quả tính được với 0,85.", role="after_formula:F1")
    w.section("Tương tác thuốc")
    w.paragraph("Alopurinol làm tăng tỷ lệ phát ban da khi dùng cùng ampicilin.")
    w.section("Độ ổn định và bảo quản")
    w.paragraph("Bảo quản bột pha tiêm ở nhiệt độ dưới 30 °C.")
    w.section("Quá liều và xử trí")
    w.paragraph("Quá liều có thể gây kích thích thần kinh cơ hoặc co giật; thẩm phân máu giúp loại thuốc khỏi tuần hoàn.", role="survives")


def gentamicin(w: Writer) -> None:
    entry = "gentamicin"
    sec = "lieu_luong_va_cach_dung"
    w.next_column()  # a two-column monograph starts on its own page
    w.set_columns(2)
    w.column_top = BODY_TOP
    w.monograph(
        "GENTAMICIN",
        ["Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Chỉ định", "Thận trọng", "Liều lượng và cách dùng", "Tương tác thuốc"],
    )
    w.paragraph("Gentamicin.", label="Tên chung quốc tế:")
    w.paragraph("J01GB03.", label="Mã ATC:")
    w.paragraph("Kháng sinh nhóm aminoglycosid.", label="Loại thuốc:")
    w.section("Chỉ định")
    w.paragraph(
        "Nhiễm khuẩn nặng do vi khuẩn Gram âm hiếu khí nhạy cảm, thường phối hợp với một kháng sinh beta-lactam "
        "trong nhiễm khuẩn huyết, viêm nội tâm mạc và nhiễm khuẩn đường tiết niệu có biến chứng.",
        role="two_column_left",
    )
    w.section("Thận trọng")
    w.paragraph(
        "Gentamicin có thể gây độc cho thận và tai. Nguy cơ tăng khi nồng độ đáy trong huyết thanh cao kéo "
        "dài, ở người cao tuổi, người mất nước và khi dùng cùng thuốc lợi tiểu quai. Cần theo dõi nồng độ "
        "thuốc trong huyết thanh, chức năng thận và thính lực trong suốt đợt điều trị."
    )
    w.paragraph(
        "Không nên dùng quá 7 - 10 ngày nếu không thật cần thiết. Khi phải điều trị dài hơn, cần đo nồng "
        "độ đáy trước mỗi liều và điều chỉnh liều theo kết quả."
    )
    w.section("Liều lượng và cách dùng")
    w.paragraph(
        "Liều tính theo cân nặng lý tưởng. Người lớn có chức năng thận bình thường: 3 - 5 mg/kg/ngày, chia "
        "làm nhiều lần hoặc dùng một lần mỗi ngày."
    )
    w.paragraph("Khoảng cách liều ở người suy thận được cho trong bảng dưới đây.", role="before_table:T2")
    w.table(
        "T2",
        [80, 75, 80],
        [[("Clcr (ml/phút)", 1, 1), ("Liều (mg/kg)", 1, 1), ("Khoảng cách", 1, 1)]],
        [["> 60", "1,5 - 2", "8 giờ"], ["40 - 60", "1,2 - 1,5", "12 giờ"], ["20 - 40", "1,0 - 1,2", "24 giờ"], ["< 20", "1,0", "48 giờ"]],
        style="rules",
        contains="1,2 - 1,5",
        entry=entry,
        section=sec,
        shape="simple_table",
    )
    w.paragraph("Nồng độ đỉnh mong muốn từ 5 đến 10 microgam/ml.", role="after_table:T2")
    w.paragraph(
        "Ở trẻ sơ sinh, khoảng cách liều phụ thuộc tuổi thai và tuổi sau sinh. Liều tham khảo ghi trong bảng "
        "sau, tiếp tục sang cột bên phải.",
        role="before_table:T5",
    )
    w.table(
        "T5",
        [95, 70, 70],
        [[("Tuổi thai (tuần)", 1, 1), ("Liều (mg/kg)", 1, 1), ("Khoảng cách", 1, 1)]],
        [
            ["≤ 29 tuần", "5 mg/kg", "48 giờ"],
            ["30 - 34 tuần", "4,5 mg/kg", "36 giờ"],
            ["≥ 35 tuần", "4 mg/kg", "24 giờ"],
            ["Ngày 0 - 7", "5 mg/kg", "48 giờ"],
            ["Ngày 8 - 28", "4 mg/kg", "36 giờ"],
            ["Ngày ≥ 29", "4 mg/kg", "24 giờ"],
        ],
        style="grid",
        contains="4,5 mg/kg",
        entry=entry,
        section=sec,
        shape="simple_table",
        push_rows=3,
    )
    w.paragraph("Liều cho trẻ lớn hơn tính như người lớn theo cân nặng.", role="after_table:T5")
    w.paragraph(
        "Khi có kết quả nồng độ đáy, cần điều chỉnh lại khoảng cách liều cho từng trẻ. Trẻ đẻ non rất nhẹ cân "
        "cần được theo dõi chặt chẽ hơn vì chức năng thận còn chưa trưởng thành."
    )
    w.section("Tương tác thuốc")
    w.paragraph(
        "Tránh dùng đồng thời với các thuốc độc cho thận hoặc tai như amphotericin B, cisplatin, vancomycin "
        "và furosemid liều cao.",
        role="two_column_right",
    )
    w.set_columns(1)


def vancomycin(w: Writer) -> None:
    entry = "vancomycin"
    sec = "lieu_luong_va_cach_dung"
    w.new_page()
    w.column_top = BODY_TOP
    w.monograph(
        "VANCOMYCIN",
        ["Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Dược động học", "Chỉ định", "Liều lượng và cách dùng", "Độ ổn định và bảo quản"],
    )
    w.paragraph("Vancomycin.", label="Tên chung quốc tế:")
    w.paragraph("A07AA09, J01XA01.", label="Mã ATC:")
    w.paragraph("Kháng sinh nhóm glycopeptid.", label="Loại thuốc:")
    w.section("Dược động học")
    for i in range(3):
        w.paragraph(
            "Vancomycin hấp thu rất kém qua đường tiêu hóa. Sau khi truyền tĩnh mạch, thuốc phân bố vào hầu hết "
            "các mô và dịch cơ thể, nhưng thấm kém vào dịch não tủy khi màng não không bị viêm. Khoảng 80 - 90% "
            "liều được thải trừ qua lọc cầu thận dưới dạng không đổi trong 24 giờ."
            + (" Nửa đời thải trừ ở người lớn có chức năng thận bình thường là 4 - 6 giờ." if i == 0 else "")
            + (" Ở người vô niệu, nửa đời thải trừ có thể kéo dài tới 7 ngày." if i == 1 else "")
            + (" Thẩm phân máu thông thường loại bỏ rất ít vancomycin." if i == 2 else "")
        )
    w.section("Chỉ định")
    w.paragraph(
        "Nhiễm khuẩn nặng do tụ cầu kháng methicilin, viêm nội tâm mạc do liên cầu hoặc tụ cầu ở người dị ứng "
        "với penicilin, và viêm đại tràng do Clostridioides difficile (đường uống)."
    )
    w.section("Liều lượng và cách dùng")
    w.paragraph(
        "Người lớn: 15 - 20 mg/kg mỗi 8 - 12 giờ, truyền tĩnh mạch trong ít nhất 60 phút. Không vượt quá "
        "2 g mỗi lần truyền."
    )
    w.paragraph(
        "Liều nạp 25 - 30 mg/kg có thể dùng ở người bệnh nặng để nhanh chóng đạt nồng độ đích. Tốc độ "
        "truyền không quá 10 mg/phút để tránh hội chứng người đỏ, biểu hiện bằng đỏ bừng mặt, cổ và thân "
        "trên, đôi khi kèm hạ huyết áp."
    )
    w.paragraph(
        "Người lớn có chức năng thận bình thường thường cần tổng liều 2 - 3 g mỗi ngày. Trẻ em: 10 - 15 mg/kg "
        "mỗi 6 giờ. Trẻ sơ sinh: liều và khoảng cách liều tùy theo tuổi sau sinh."
    )
    w.paragraph(
        "Nên định lượng nồng độ đáy trước liều thứ tư ở người có chức năng thận ổn định, sớm hơn ở người "
        "suy thận cấp hoặc đang dùng thuốc độc cho thận khác. Ở người béo phì, liều tính theo cân nặng thực "
        "tế nhưng cần theo dõi nồng độ sát hơn."
    )
    w.paragraph(
        "Ở người suy thận, liều duy trì hằng ngày được điều chỉnh theo độ thanh thải creatinin như trong "
        "bảng dưới, bảng tiếp tục sang trang sau.",
        role="before_table:T3",
    )
    rows = [[f"{c}", f"{d} mg", f"{h}"] for c, d, h in [
        ("100", "1 545", "mỗi 24 giờ"), ("90", "1 390", "mỗi 24 giờ"), ("80", "1 235", "mỗi 24 giờ"),
        ("70", "1 080", "mỗi 24 giờ"), ("60", "925", "mỗi 24 giờ"), ("50", "770", "mỗi 24 giờ"),
        ("40", "620", "mỗi 24 giờ"), ("30", "465", "mỗi 24 giờ"), ("20", "310", "mỗi 24 giờ"),
        ("10", "155", "mỗi 48 giờ"),
    ]]
    w.table(
        "T3",
        [150, 150, 150],
        [[("Clcr (ml/phút)", 1, 1), ("Liều vancomycin", 1, 1), ("Nhắc lại", 1, 1)]],
        rows,
        style="grid",
        contains="1 545 mg",
        entry=entry,
        section=sec,
        shape="simple_table",
        push_rows=5,
    )
    w.paragraph(
        "Nồng độ đáy nên được duy trì trong khoảng 10 - 20 microgam/ml tùy loại nhiễm khuẩn.",
        role="after_table:T3",
    )
    w.section("Độ ổn định và bảo quản")
    w.paragraph("Dung dịch sau khi pha ổn định 14 ngày trong tủ lạnh.")


def amikacin(w: Writer) -> None:
    entry = "amikacin"
    sec = "lieu_luong_va_cach_dung"
    w.monograph(
        "AMIKACIN",
        ["Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Chống chỉ định", "Thời kỳ mang thai", "Liều lượng và cách dùng", "Quá liều và xử trí"],
    )
    w.paragraph("Amikacin.", label="Tên chung quốc tế:")
    w.paragraph("J01GB06.", label="Mã ATC:")
    w.paragraph("Kháng sinh nhóm aminoglycosid.", label="Loại thuốc:")
    w.section("Chống chỉ định")
    w.paragraph("Người bệnh nhược cơ; người có tiền sử dị ứng với aminoglycosid.")
    w.section("Thời kỳ mang thai")
    w.paragraph("Aminoglycosid qua nhau thai và có thể gây điếc bẩm sinh; chỉ dùng khi không có thuốc thay thế.")
    w.section("Liều lượng và cách dùng")
    w.paragraph(
        "Liều nạp và liều duy trì ở người suy thận được cho trong bảng có tiêu đề hai tầng dưới đây.",
        role="before_table:T4",
    )
    w.table(
        "T4",
        [120, 90, 130, 130],
        [
            [("Clcr (ml/phút)", 1, 2), ("Liều nạp", 1, 2), ("Liều duy trì", 2, 1)],
            [("Liều (mg/kg)", 1, 1), ("Khoảng cách (giờ)", 1, 1)],
        ],
        [["≥ 70", "7,5 mg/kg", "7,5", "12"], ["35 - 69", "7,5 mg/kg", "5,8", "18"], ["< 35", "7,5 mg/kg", "4,5", "24 - 36"]],
        style="grid",
        contains="24 - 36",
        entry=entry,
        section=sec,
        shape="multi_level_or_merged_header",
    )
    w.paragraph("Theo dõi nồng độ đỉnh và nồng độ đáy sau liều thứ ba.", role="after_table:T4")
    w.paragraph("Có thể ước tính liều điều chỉnh theo tỷ lệ độ thanh thải:", role="before_formula:F2")
    w.fraction(
        "F2",
        "Liều điều chỉnh =",
        "Liều thường dùng x Clcr của người bệnh",
        "Clcr bình thường (100 ml/phút)",
        entry=entry,
        section=sec,
    )
    w.paragraph("Làm tròn liều tính được đến 25 mg gần nhất.", role="after_formula:F2")
    w.section("Quá liều và xử trí")
    w.paragraph("Thẩm phân máu hoặc thẩm phân phúc mạc giúp loại amikacin khỏi máu.")


def paracetamol(w: Writer) -> None:
    """A page of ordinary prose with numbers and short lines: not a table."""
    w.new_page()
    w.monograph(
        "PARACETAMOL",
        ["Tên chung quốc tế", "Mã ATC", "Loại thuốc", "Liều lượng và cách dùng", "Quá liều và xử trí"],
    )
    w.paragraph("Paracetamol.", label="Tên chung quốc tế:")
    w.paragraph("N02BE01.", label="Mã ATC:")
    w.paragraph("Giảm đau, hạ sốt.", label="Loại thuốc:")
    w.section("Liều lượng và cách dùng")
    w.paragraph("Người lớn: 0,5 - 1 g mỗi 4 - 6 giờ, tối đa 4 g mỗi ngày.", role="short_lines")
    w.paragraph("Trẻ em: 10 - 15 mg/kg mỗi 4 - 6 giờ.")
    w.paragraph("Trẻ dưới 3 tháng: 10 mg/kg.")
    w.paragraph("Trẻ 3 tháng - 1 tuổi: 60 - 120 mg.")
    w.paragraph("Trẻ 1 - 5 tuổi: 120 - 250 mg.")
    w.paragraph("Trẻ 6 - 12 tuổi: 250 - 500 mg.")
    w.paragraph("Không dùng quá 5 ngày ở trẻ em nếu không có ý kiến thầy thuốc.", role="survives")
    w.section("Quá liều và xử trí")
    w.paragraph(
        "Quá liều paracetamol gây hoại tử tế bào gan phụ thuộc liều. Ngưỡng nguy cơ ở người lớn là 150 mg/kg "
        "hoặc 7,5 g trong 24 giờ; ở người nghiện rượu, suy dinh dưỡng hoặc dùng thuốc cảm ứng enzym, ngưỡng "
        "thấp hơn.",
    )
    w.paragraph("Các bước xử trí:", after=1)
    w.paragraph("1. Rửa dạ dày trong vòng 4 giờ sau khi uống.", after=1)
    w.paragraph("2. Uống than hoạt 50 g nếu đến sớm.", after=1)
    w.paragraph("3. Dùng N-acetylcystein càng sớm càng tốt, tốt nhất trong 8 giờ đầu.", after=1)
    w.paragraph("4. Định lượng paracetamol huyết tương sau 4 giờ.", after=4)
    w.paragraph("Ngưỡng điều trị theo nồng độ huyết tương:", after=1)
    w.paragraph("Sau 4 giờ: 150 microgam/ml.", after=1)
    w.paragraph("Sau 8 giờ: 75 microgam/ml.", after=1)
    w.paragraph("Sau 12 giờ: 37,5 microgam/ml.", after=4, role="short_lines")
    w.paragraph(
        "Phác đồ N-acetylcystein tiêm truyền: 150 mg/kg trong 200 ml glucose 5% truyền trong 60 phút, sau "
        "đó 50 mg/kg trong 500 ml truyền trong 4 giờ, rồi 100 mg/kg trong 1 000 ml truyền trong 16 giờ.",
        role="survives",
    )
    w.paragraph("Theo dõi men gan, INR và creatinin trong 72 giờ.", role="survives")
    w.gold.not_table_pages.append({"page": w.page.number + 1, "note": "prose with numbers and short lines"})


def build() -> tuple[bytes, dict]:
    w = Writer()
    front_matter(w)
    w.body_started = True
    w.printed = 0
    w.new_page()
    ampicilin(w)
    gentamicin(w)
    vancomycin(w)
    amikacin(w)
    paracetamol(w)

    w.draw_furniture()
    w.doc.subset_fonts()
    w.doc.set_metadata(
        {
            "title": "Dược thư quốc gia Việt Nam – bản mẫu",
            "author": "duocthu",
            "subject": "sample formulary for parser tests",
            "creator": "scripts/make_sample_formulary.py",
            "producer": "PyMuPDF",
            "creationDate": "D:20240101000000Z",
            "modDate": "D:20240101000000Z",
        }
    )
    data = w.doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    gold = assemble_gold(w, data)
    return data, gold


def assemble_gold(w: Writer, data: bytes) -> dict:
    prose_all = w.gold.all_prose
    blocks = []
    for block in w.gold.blocks:
        # cell strings that also occur in prose cannot prove a leak; keep the distinctive ones
        leak_probes = sorted({c for c in block["cells"] if len(c) >= 5 and not any(c in p for p in prose_all)})
        assert block["contains"] in block["cells"] or block["kind"] == "table", block
        blocks.append({**block, "leak_probes": leak_probes})
    monographs = []
    for m in w.gold.monographs:
        monographs.append(
            {
                "title": m["title"],
                "entry_id": ascii_slug(m["title"]),
                "page": m["page"],
                "printed_page": m["printed_page"],
                "sections": [{"title": s, "key": ascii_slug(s)} for s in m["sections"]],
            }
        )
    return {
        "pdf": PDF_NAME,
        "sha256": hashlib.sha256(data).hexdigest(),
        "page_count": w.doc.page_count,
        "pages": w.gold.pages,
        "monographs": monographs,
        "blocks": blocks,
        "prose": w.gold.prose,
        "not_table_pages": w.gold.not_table_pages,
        "running_header": BOOK_TITLE,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="build twice and fail unless the bytes are identical")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    data, gold = build()
    if args.check:
        again, _ = build()
        if again != data:
            print("not deterministic: two builds differ", file=sys.stderr)
            return 1
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / PDF_NAME).write_bytes(data)
    (args.out / GOLD_NAME).write_text(json.dumps(gold, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (args.out / "collection.toml").write_text(
        '# Read as a drug formulary: entries are monographs, sections the standard headings.\n'
        'profile = "formulary"\nnormalization = "nfc"\n',
        encoding="utf-8",
    )
    print(f"wrote {args.out / PDF_NAME} ({len(data)} bytes, {gold['page_count']} pages, {len(gold['blocks'])} blocks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
