"""A small gold collection for `duocthu eval`: a generated DOCX handbook of
three sections, its boundaries and queries written beside it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.docgen import make_docx

SECTIONS = [
    ("Bảo quản thuốc", ["Bảo quản thuốc ở nơi khô ráo, nhiệt độ dưới 30 độ, tránh ánh sáng trực tiếp.",
                        "Để xa tầm tay trẻ em. Không dùng thuốc đã quá hạn sử dụng."]),
    ("Liều dùng cho trẻ em", ["Trẻ em từ 6 đến 12 tuổi uống một viên mỗi lần, ngày hai lần sau bữa ăn.",
                              "Trẻ dưới 6 tuổi phải có chỉ định của bác sĩ."]),
    ("Tác dụng không mong muốn", ["Thường gặp buồn nôn, đau đầu và chóng mặt nhẹ.",
                                  "Hiếm gặp phát ban da; ngừng thuốc và báo cho bác sĩ."]),
]


def write_collection(folder: Path) -> Path:
    """The handbook, its gold and a collection.toml written into ``folder``."""
    folder.mkdir(parents=True)
    make_docx(folder / "huong_dan.docx", SECTIONS)
    boundaries = {
        "schema": "duocthu.eval.boundaries/1",
        "document": "huong_dan.docx",
        "language": "vi",
        "made_by": "written by the test from the sections it generates",
        "boundaries": [{"id": f"s{i}", "anchor": title} for i, (title, _) in enumerate(SECTIONS, 1)],
    }
    queries = {
        "schema": "duocthu.eval.queries/1",
        "document": "huong_dan.docx",
        "language": "vi",
        "made_by": "written by the test",
        "queries": [
            {"id": "q1", "query": "bảo quản thuốc ở nhiệt độ nào", "sections": ["s1"]},
            {"id": "q2", "query": "liều uống cho trẻ 8 tuổi", "sections": ["s2"], "passage": "uống một viên mỗi lần, ngày hai lần"},
            {"id": "q3", "query": "tác dụng phụ thường gặp", "sections": ["s3"]},
        ],
    }
    (folder / "huong_dan.boundaries.json").write_text(json.dumps(boundaries, ensure_ascii=False), encoding="utf-8")
    (folder / "huong_dan.queries.json").write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    (folder / "collection.toml").write_text('profile = "generic"\nnormalization = "nfc"\n', encoding="utf-8")
    return folder
