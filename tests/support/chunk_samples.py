"""Small synthetic documents for the chunker and chunk-rule tests.

Built the way a parser's output reaches the chunker: raw segments with kinds
and levels, then ``assign_sections`` → ``assemble`` → ``place_blocks`` (the
real structure and canonical-text code), so spans point into a real canonical
text. Nothing here reads the corpus or a parser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from duocthu_assets.chunking import build_chunks
from duocthu_assets.model import (
    BlockKind,
    BlockShape,
    Chunk,
    LiftedBlock,
    Segment,
    SegmentKind,
)
from duocthu_assets.parse.canonical import assemble
from duocthu_assets.parse.structure import assign_sections, place_blocks
from duocthu_assets.rows import to_row
from duocthu_assets.settings import Settings
from duocthu_assets.schemas import table_from_rows

DOC_ID = "duoc-thu-sample"
FORMULARY = Settings(profile="formulary", language="vi")

_CLAUSES = [
    "Ampicilin là kháng sinh nhóm beta-lactam, có phổ tác dụng rộng trên vi khuẩn Gram dương và Gram âm",
    "Sulbactam ức chế không thuận nghịch các beta-lactamase do tụ cầu và nhiều trực khuẩn Gram âm tiết ra",
    "Thuốc được dùng theo đường tiêm bắp hoặc tiêm tĩnh mạch chậm trong ít nhất 10 đến 15 phút",
    "Ở người suy thận cần giảm liều và kéo dài khoảng cách giữa các lần dùng thuốc",
    "Theo dõi chức năng gan, thận và công thức máu khi điều trị kéo dài trên {n} ngày",
    "Phản ứng quá mẫn, kể cả sốc phản vệ, đã được báo cáo ở người bệnh dùng penicilin",
    "Không dùng cho người có tiền sử dị ứng với bất kỳ kháng sinh nhóm penicilin nào",
    "Nồng độ đỉnh trong huyết thanh đạt được sau khoảng {n} phút kể từ khi tiêm bắp",
]


def vietnamese_prose(sentences: int, seed: int = 0) -> str:
    """Plausible formulary prose, varied so no two sentences are identical."""
    out = []
    for k in range(sentences):
        clause = _CLAUSES[(k + seed) % len(_CLAUSES)].format(n=7 + (k * 3 + seed) % 23)
        out.append(f"{clause} (mục {seed}.{k}).")
    return " ".join(out)


TABLE_TEXT = "Clcr (ml/phút)\tLiều dùng\n≥ 30\t1,5 - 3 g mỗi 6 - 8 giờ\n15 - 29\t1,5 - 3 g mỗi 12 giờ\n5 - 14\t1,5 - 3 g mỗi 24 giờ"
FORMULA_TEXT = "Clcr (ml/phút) = (140 - tuổi) x cân nặng (kg)\n72 x creatinin huyết thanh (mg/dl)"


@dataclass
class SampleDocument:
    segments: list[Segment]
    blocks: list[LiftedBlock]
    canonical: str
    crop_paths: dict[str, str] = field(default_factory=dict)

    def chunks(self, settings: Settings = FORMULARY) -> list[Chunk]:
        return build_chunks(DOC_ID, self.segments, self.blocks, self.crop_paths, settings)

    def segment(self, segment_id: str) -> Segment:
        return next(s for s in self.segments if s.segment_id == segment_id)


def build_document(raw: list[Segment], blocks: list[LiftedBlock] = ()) -> SampleDocument:
    segments = assign_sections(raw)
    canonical, segments = assemble(segments)
    placed = place_blocks(list(blocks), segments)
    crops = {b.block_id: f"crops/{DOC_ID}/{b.block_id}.png" for b in placed}
    return SampleDocument(segments, placed, canonical, crops)


def _pdf(seg_id: str, kind: SegmentKind, text: str, page: int, level: int = 0) -> Segment:
    y = 60.0 + (int(seg_id[1:]) % 12) * 50.0
    return Segment(
        segment_id=seg_id,
        kind=kind,
        text=text,
        level=level,
        page_no=page,
        printed_page=page + 190,
        bbox=(56.0, y, 540.0, y + 40.0),
        source_ref=f"pdf:p{page}",
    )


def formulary_document() -> SampleDocument:
    """Two monographs. AMPICILIN VÀ SULBACTAM has a long ``Chỉ định`` (several
    chunks) and a ``Liều lượng và cách dùng`` holding a renal-dosing table on
    printed page 204 and a Cockcroft-Gault formula; AMOXICILIN repeats the
    section key ``lieu_luong_va_cach_dung`` with a block of its own."""
    H, P, L = SegmentKind.HEADING, SegmentKind.PARAGRAPH, SegmentKind.LIST_ITEM
    raw = [
        _pdf("s001", H, "AMPICILIN VÀ SULBACTAM", 13, level=1),
        _pdf("s002", H, "Tên chung quốc tế", 13, level=2),
        _pdf("s003", P, "Ampicillin and sulbactam.", 13),
        _pdf("s004", H, "Chỉ định", 13, level=2),
        _pdf("s005", P, vietnamese_prose(14, seed=1), 13),
        _pdf("s006", P, vietnamese_prose(12, seed=2), 13),
        _pdf("s007", L, "Nhiễm khuẩn da và mô mềm do vi khuẩn nhạy cảm.", 14),
        _pdf("s008", L, "Nhiễm khuẩn ổ bụng, nhiễm khuẩn phụ khoa.", 14),
        _pdf("s009", P, vietnamese_prose(40, seed=3), 14),  # alone longer than the budget
        _pdf("s010", P, vietnamese_prose(6, seed=4), 14),
        _pdf("s011", H, "Liều lượng và cách dùng", 14, level=2),
        _pdf("s012", P, "Người lớn: liều thường dùng tính theo tổng lượng hai hoạt chất. Với người suy thận, xem bảng.", 14),
        _pdf("s013", P, "Độ thanh thải creatinin ước tính theo công thức Cockcroft-Gault.", 14),
        _pdf("s014", P, vietnamese_prose(5, seed=5), 14),
        _pdf("s015", H, "AMOXICILIN", 15, level=1),
        _pdf("s016", H, "Liều lượng và cách dùng", 15, level=2),
        _pdf("s017", P, vietnamese_prose(4, seed=6), 15),
    ]
    blocks = [
        LiftedBlock(
            block_id="p14-t1",
            kind=BlockKind.TABLE,
            shape=BlockShape.SIMPLE_TABLE,
            page_no=14,
            printed_page=204,
            bbox=(56.0, 300.0, 540.0, 420.0),
            text=TABLE_TEXT,
            anchor_segment_id="s012",
        ),
        LiftedBlock(
            block_id="p14-f1",
            kind=BlockKind.FORMULA,
            shape=BlockShape.FORMULA_2D,
            page_no=14,
            printed_page=204,
            bbox=(120.0, 440.0, 470.0, 490.0),
            text=FORMULA_TEXT,
            anchor_segment_id="s013",
        ),
        LiftedBlock(
            block_id="p15-t1",
            kind=BlockKind.TABLE,
            shape=BlockShape.MULTI_LEVEL_OR_MERGED_HEADER,
            page_no=15,
            printed_page=205,
            bbox=(56.0, 500.0, 540.0, 700.0),
            text="Tuổi\tLiều\nTrẻ em dưới 40 kg\t20 - 40 mg/kg/ngày chia 3 lần",
            anchor_segment_id="s017",
        ),
    ]
    return build_document(raw, blocks)


def spreadsheet_document(long_row_cells: int = 400) -> SampleDocument:
    """A sheet of table rows (office format: no pages, no bboxes); the third
    row alone is far longer than 512 tokens."""
    T = SegmentKind.TABLE_ROW
    raw = [
        Segment("s001", SegmentKind.HEADING, "Chi nhánh", level=1, source_ref="Sheet1"),
        Segment("s002", T, "branch_name: Tehran Central\ncity: Tehran\nphone: 021-8899", source_ref="Sheet1!A2"),
        Segment("s003", T, "branch_name: Shiraz\ncity: Shiraz\nphone: 071-3322", source_ref="Sheet1!A3"),
        Segment(
            "s004",
            T,
            "\n".join(f"note_{k}: شعبه شماره {k} در خیابان ولیعصر، پلاک {k * 7}" for k in range(long_row_cells)),
            source_ref="Sheet1!A4",
        ),
        Segment("s005", T, "branch_name: Tabriz\ncity: Tabriz\nphone: 041-5566", source_ref="Sheet1!A5"),
    ]
    return build_document(raw)


def rows_of(records: list, asset: str) -> list[dict]:
    """Records as the warehouse stores them: ``to_row`` through the declared
    Arrow schema and back, exactly what a check reads."""
    return table_from_rows(asset, [to_row(r, DOC_ID) for r in records]).to_pylist()
