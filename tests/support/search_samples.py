"""A tiny warehouse of hand-made chunks for the search tests: a formulary's
entry (prose, a quarantined table and its descriptor, another drug) and a
Persian memo, embedded with the real default model and indexed."""

from __future__ import annotations

import argparse
import hashlib

from duocthu_assets.cli_search import add_search_parser, run_search
from duocthu_assets.embed.reuse import embed_chunks, embeddings_table
from duocthu_assets.model import SCHEMA_VERSION
from duocthu_assets.retrieval import refresh_search_index
from duocthu_assets.schemas import table_from_rows
from duocthu_assets.warehouse import Warehouse

DRUG = "AMPICILIN VÀ SULBACTAM"
DOSING = "Liều lượng và cách dùng"
CROP = "crops/duocthu-mini/b0001.png"


def attachment(block_id="b0001", *, kind="table", printed=204, physical=210, quarantined=True, header_row=(), crop=CROP):
    return {
        "block_id": block_id,
        "kind": kind,
        "shape": "simple_table" if kind == "table" else "formula_2d",
        "physical_page": physical,
        "printed_page": printed,
        "bbox": [50.0, 100.0, 500.0, 300.0],
        "quarantined": quarantined,
        "header_row": list(header_row),
        "source_crop": crop,
    }


def chunk(doc_id, index, text, *, kind="prose", entry=DRUG, section=DOSING, section_key="lieu_luong_va_cach_dung", printed=204, physical=210, attachments=(), has_q=None):
    attachments = list(attachments)
    return {
        "doc_id": doc_id,
        "chunk_id": f"{doc_id}:{section_key}:{index}" if kind != "block_descriptor" else f"{doc_id}:{section_key}:block:{attachments[0]['block_id']}",
        "chunk_index": index,
        "chunk_kind": kind,
        "text": text,
        "token_count": len(text.split()),
        "entry_id": entry.lower().replace(" ", "_"),
        "entry_title": entry,
        "section_key": section_key,
        "section_title": section,
        "section_index": 0,
        "headings": [entry, section],
        "spans": [{"offset": 0, "length": len(text)}],
        "regions": [{"page_no": physical, "printed_page": printed, "bbox": [50.0, 80.0, 500.0, 700.0]}] if physical else [],
        "source_elements": [f"s{index:05d}"],
        "prev_chunk_id": None,
        "next_chunk_id": None,
        "content_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "attachments": attachments,
        "has_quarantined_content": any(a["quarantined"] for a in attachments) if has_q is None else has_q,
        "text_source": "layer",
        "uncertain_spans": [],
        "schema_version": SCHEMA_VERSION,
    }


DOSING_TEXT = (
    "Người lớn: tiêm tĩnh mạch 1,5 g đến 3 g mỗi 6 giờ. Người suy thận có Clcr dưới 30 ml/phút "
    "cần giảm liều theo bảng dưới đây. Trẻ em: 150 mg/kg/ngày chia 4 lần."
)
DESCRIPTOR_TEXT = f"{DRUG} — {DOSING} — bảng, trang in 204."
FORMULARY = [
    chunk("duocthu-mini", 0, "Chỉ định: nhiễm khuẩn da, ổ bụng và phụ khoa do vi khuẩn sinh beta-lactamase.", section="Chỉ định", section_key="chi_dinh", printed=203, physical=209),
    chunk("duocthu-mini", 1, DOSING_TEXT, attachments=[attachment()]),
    chunk("duocthu-mini", 2, DESCRIPTOR_TEXT, kind="block_descriptor", attachments=[attachment(header_row=("Clcr (ml/phút)", "Liều 72 x creatinin"))]),
    chunk("duocthu-mini", 3, "Paracetamol: người lớn uống 500 mg mỗi 4 đến 6 giờ, tối đa 4 g mỗi ngày.", entry="PARACETAMOL", printed=300, physical=306),
]
PERSIAN = [
    chunk("persian-memo", 0, "قرارداد اجاره برای مدت یک سال از تاریخ امضا معتبر است.", entry="قرارداد", section="مدت", section_key="modat", printed=None, physical=None),
]


def store_chunks(warehouse, doc_id, rows, embedder) -> None:
    """``rows`` written as ``doc_id``'s chunks and their embeddings."""
    warehouse.write_table("chunks", table_from_rows("chunks", rows), doc_id)
    emb, stats = embed_chunks(rows, embedder, warehouse)
    warehouse.write_table("embeddings", embeddings_table(emb, stats.dim), doc_id)


def tiny_warehouse(root, embedder) -> Warehouse:
    """The formulary entry and the Persian memo stored, the crop's file
    present, the search index built."""
    wh = Warehouse(root)
    crop = wh.path(CROP)
    crop.parent.mkdir(parents=True, exist_ok=True)
    crop.write_bytes(b"\x89PNG\r\n\x1a\n")
    store_chunks(wh, "duocthu-mini", FORMULARY, embedder)
    store_chunks(wh, "persian-memo", PERSIAN, embedder)
    refresh_search_index(wh, ["duocthu-mini", "persian-memo"], model_id=embedder.model_id)
    return wh


def run_search_cli(argv, embedder, capsys):
    """``duocthu search`` parsed from ``argv`` and run with ``embedder``:
    (exit code, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="duocthu")
    add_search_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    assert args.func is run_search
    code = run_search(args, embedder=embedder)
    out = capsys.readouterr()
    return code, out.out, out.err
