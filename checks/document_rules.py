"""Gates on a document before it is chunked or indexed: accepted, parsed,
nothing needing OCR, not empty, every block cropped, every chunk embedded.
Each is a blocking asset check; a document that fails one never reaches the
index, and the message says what to do."""

from __future__ import annotations

from duocthu_assets.parse.pdf.read.hidden import INVISIBLE_TEXT
from duocthu_assets.parse.pdf.read.scans import SCANNED_REGION
from duocthu_assets.parse.pdf.warnings import OCR_BLOCKED, OCR_NOT_INSTALLED

from .rules import DocumentRows, Rule, RuleResult


def document_accepted(rows: DocumentRows) -> RuleResult:
    raw = rows.raw
    if raw is None:
        return RuleResult(False, 1, (rows.doc_id,), message="no raw_documents row")
    if raw["status"] != "accepted":
        return RuleResult(False, 1, (rows.doc_id,), message=f"{raw['status']}: {raw['reason']}")
    return RuleResult(True, message=f"accepted as {raw['format']}")


def document_parsed(rows: DocumentRows) -> RuleResult:
    parsed = rows.parsed
    if parsed is None:
        return RuleResult(False, 1, (rows.doc_id,), message="no parsed_documents row")
    if parsed["status"] != "ok":
        return RuleResult(False, 1, (rows.doc_id,), message=f"{parsed['status']}: {parsed['reason']}")
    return RuleResult(True, message=f"{parsed['segment_count']} segments, {parsed['block_count']} blocks")


def no_pages_need_ocr(rows: DocumentRows) -> RuleResult:
    parsed = rows.parsed or {}
    pages = list(parsed.get("pages_needing_ocr") or [])
    if not pages:
        return RuleResult(True, message="every page has a text layer")
    shown = ", ".join(str(p) for p in pages[:20]) + (" …" if len(pages) > 20 else "")
    warnings = parsed.get("warnings") or ()
    # what OCR made of them (read but still blocked, or not installed), when it ran
    ocr = "".join(f" — {w}" for w in warnings if OCR_BLOCKED in w or OCR_NOT_INSTALLED in w)
    # what the parse said of text no reader sees (an OCR layer), when it did
    layer = "".join(f" — {w}" for w in warnings if INVISIBLE_TEXT in w or SCANNED_REGION in w)
    if any(OCR_BLOCKED in w for w in warnings):
        advice = ("OCR read them but could not read them well enough: scan them again (300 dpi, straight, clean), "
                  "or lower [pdf] ocr_confidence_floor only if the scan is known good")
    else:
        advice = ("OCR is off or not installed for this collection: run `make ocr` and set ocr = true under [pdf] in its "
                  "collection.toml, or OCR the file (e.g. ocrmypdf) and add it again to a collection that accepts OCR text "
                  "as it reads (accept_ocr_text = true under [pdf])")
    return RuleResult(
        False,
        len(pages),
        tuple(f"page {p}" for p in pages[:20]),
        tuple(pages),
        message=f"{len(pages)} page(s) have no usable text layer (scanned, drawn as outlines, glyphs without a Unicode mapping, "
        f"only an OCR program's reading of a scan, which no reader sees, or a scanned picture with no text over it) and need OCR: "
        f"{shown} — nothing is OCRed silently; {advice}{ocr}{layer}",
    )


def document_has_text(rows: DocumentRows) -> RuleResult:
    parsed = rows.parsed or {}
    if parsed.get("pages_needing_ocr"):
        # a scan: no_pages_need_ocr says which pages and what to do; one reason, not two
        return RuleResult(True, message="no text layer on the pages named by no_pages_need_ocr")
    if parsed.get("status") == "ok" and not parsed.get("segment_count") and not parsed.get("block_count"):
        return RuleResult(False, 1, (rows.doc_id,), message="the document yielded no text at all; nothing would be chunked")
    return RuleResult(True, message="the document has text")


def every_block_cropped(rows: DocumentRows) -> RuleResult:
    cropped = {c["block_id"] for c in rows.crops if c.get("sha256") and c.get("dpi", 0) >= 150}
    missing = [b["block_id"] for b in rows.blocks if b["block_id"] not in cropped]
    return RuleResult.from_offenders(missing, "lifted blocks without a crop of at least 150 dpi", (b["page_no"] for b in rows.blocks if b["block_id"] in missing))


def every_chunk_embedded(rows: DocumentRows) -> RuleResult:
    vectors = {(e["chunk_id"], e["content_hash"]) for e in rows.embeddings}
    missing = [c["chunk_id"] for c in rows.chunks if (c["chunk_id"], c["content_hash"]) not in vectors]
    extra = {e["chunk_id"] for e in rows.embeddings} - {c["chunk_id"] for c in rows.chunks}
    return RuleResult.from_offenders([*missing, *sorted(extra)], "chunks without a current vector (or vectors without a chunk)")


RAW_RULES = [Rule("document_accepted", "raw_documents", "The file is a supported format (detected from its bytes).", document_accepted, ("raw",))]
PARSED_RULES = [
    Rule("document_parsed", "parsed_documents", "The parser read the document without error or time-out.", document_parsed, ("parsed",)),
    Rule("no_pages_need_ocr", "parsed_documents", "Every page has a text layer; scanned pages fail loudly, naming the pages.", no_pages_need_ocr, ("parsed",)),
    Rule("document_has_text", "parsed_documents", "The document yielded text: nothing is chunked empty.", document_has_text, ("parsed",)),
]
def step_completed(stage: str):
    """The step's work on this document did not raise (duocthu_assets/runtime/step_failures.py):
    when it did, the document fails alone, with the reason the step recorded."""

    def evaluate(rows: DocumentRows) -> RuleResult:
        reason = rows.failures.get(stage)
        if reason:
            return RuleResult(False, 1, (rows.doc_id,), message=reason)
        return RuleResult(True, message=f"{stage} built for this document")

    return evaluate


def _step_rule(name: str, stage: str) -> Rule:
    return Rule(name, stage, f"The {stage} step built this document without error; otherwise it fails alone, saying why.",
                step_completed(stage), ("failures",))


CROP_RULES = [
    _step_rule("crop_step_completed", "crops"),
    Rule("every_block_cropped", "crops", "Every lifted block has a PNG crop of at least 150 dpi.", every_block_cropped, ("blocks", "crops")),
]
CHUNK_STEP_RULES = [_step_rule("chunk_step_completed", "chunks")]
EMBEDDING_RULES = [
    _step_rule("embedding_step_completed", "embeddings"),
    Rule("every_chunk_embedded", "embeddings", "Every chunk has exactly one current vector.", every_chunk_embedded, ("chunks", "embeddings")),
]
