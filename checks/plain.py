"""Every rule said in plain words: what is wrong with the document and what
to do, for a reader who is not an engineer (a pharmacist, a paralegal).
The rule's own message keeps the technical detail and its id stays beside
it (the review table, a failed check's ``what_to_do``); docs/checks.md has
the table of them all, and tests/checks/test_plain_messages.py checks that
every rule has one and its shape. Dagster-free."""

from __future__ import annotations

from dataclasses import dataclass

from .rules import RuleResult

_FIX_CODE = "this is a fault in duocthu, not in the file: send the document and this message to the team that runs duocthu"


@dataclass(frozen=True)
class Plain:
    wrong: str  # what is wrong, in plain words (no rule id, no field names)
    todo: str  # what the reader can do about it


PLAIN: dict[str, Plain] = {
    "document_accepted": Plain("the file is not a kind duocthu reads", "save it as PDF, DOCX, XLSX or CSV and add it again"),
    "document_parsed": Plain("the file could not be opened or read", "open it yourself; if it opens, save or export it again and add it again"),
    "no_pages_need_ocr": Plain(
        "some pages are pictures of text (a scan) that could not be read well enough, or OCR is off for this collection",
        "scan the pages again (300 dpi, straight, clean) and add the file again, or ask for the original digital file; if OCR is off, ask the team that runs duocthu to turn it on",
    ),
    "document_has_text": Plain("the file holds no text at all", "check that it is the right file; if it is a scan, run OCR on it first"),
    "every_pdf_character_accounted": Plain(
        "some text of the PDF would be lost in reading it",
        "export the PDF again from its source program (or print it to PDF) and add it again; if that fails, " + _FIX_CODE,
    ),
    "crop_step_completed": Plain("a table or formula could not be cut out as a picture", "add the file again later; if it fails again, " + _FIX_CODE),
    "every_block_cropped": Plain("a table or formula has no picture to show the reader", "add the file again; if it fails again, " + _FIX_CODE),
    "chunk_step_completed": Plain("the text could not be cut into passages", "add the file again later; if it fails again, " + _FIX_CODE),
    "adr0006_01_section_with_lifted_block_but_no_chunk_reference": Plain(
        "a table or formula would be missing from the passages of its section", _FIX_CODE
    ),
    "adr0006_02_attachment_block_id_unknown": Plain("a passage points to a table or formula the document does not have", _FIX_CODE),
    "adr0006_03_attachment_without_page_or_bbox": Plain("a table or formula has no page to cite", _FIX_CODE),
    "adr0006_04_block_text_leaked_into_chunk_text": Plain(
        "the raw text of a table or formula got into a passage, where a search would read it out of place", _FIX_CODE
    ),
    "adr0006_05_descriptor_chunk_count_equals_block_count": Plain("a table or formula is described twice, or not at all", _FIX_CODE),
    "adr0006_06_descriptor_chunk_without_attachment": Plain("the description of a table or formula lost its picture", _FIX_CODE),
    "adr0006_07_attachment_header_row_present": Plain("a table's header row was kept where it must not be", _FIX_CODE),
    "adr0006_08_descriptor_with_unverified_columns": Plain("the description of a table or formula says more than the document shows", _FIX_CODE),
    "adr0006_09_descriptor_range_not_attachment_page": Plain("the description of a table or formula names the wrong page", _FIX_CODE),
    "adr0006_10_attachment_without_printed_page": Plain(
        "a table or formula cannot be cited by the page number printed on its page (the numbers printed on the pages "
        "repeat or do not follow on)",
        "check the page numbers printed in the file; correct them (or set page labels) in the source and export it again; "
        "if the printed numbers are right, send the file and this message to the team that runs duocthu",
    ),
    "chunk_over_max_tokens": Plain("a passage is too long to be searched", _FIX_CODE),
    "chunk_spans_two_sections": Plain("a passage runs across two sections of the document", _FIX_CODE),
    "span_does_not_resolve": Plain("a passage does not match the document's text", _FIX_CODE),
    "ocr_uncertain_numbers_withheld": Plain(
        "on a scanned page, a number the text recognition was unsure of could be shown as if it were certain",
        "add the file again; if it fails again, " + _FIX_CODE,
    ),
    "prev_next_chain_broken": Plain("the passages are out of order", _FIX_CODE),
    "schema_version_mismatch": Plain("the document was built by an older version of duocthu", "add the file again (or run `duocthu ingest` again)"),
    "segment_not_covered_by_chunks": Plain("some of the document's text is in no passage, so no search would find it", _FIX_CODE),
    "chunk_derived_field_mismatch": Plain("a passage's stored record disagrees with its text", "add the file again; if it fails again, " + _FIX_CODE),
    "leak_01_table_row_in_prose": Plain(
        "a row of a table was read as running text, so its cells would be searched out of their table",
        "check the table on that page: a row outside its ruled lines is the usual cause; fix the table in the source and export it again, "
        "or send the file and this message to the team that runs duocthu",
    ),
    "leak_02_flattened_math_in_prose": Plain(
        "a formula, or text the PDF does not encode readably, was read as running text",
        "export the PDF again from its source program; if the formula is an image or odd glyphs, send the file and this message "
        "to the team that runs duocthu",
    ),
    "adr0018_03_docx_table_data_or_layout": Plain("a Word table was read the wrong way (as data or as page layout)", _FIX_CODE),
    "adr0018_05_arabic_forms_in_persian_chunks": Plain("the Persian text keeps Arabic letter forms, so searches would miss it", _FIX_CODE),
    "adr0018_05_digits_not_as_authored": Plain("digits were changed from how the document writes them", _FIX_CODE),
    "adr0018_07_chunk_over_document_max_tokens": Plain(
        "a passage is longer than the limit set for its collection",
        "raise max_chunk_tokens in the collection's collection.toml if the limit is too low; otherwise " + _FIX_CODE,
    ),
    "adr0018_descriptor_not_from_block_metadata": Plain("the description of a table or formula does not come from the document alone", _FIX_CODE),
    "embedding_step_completed": Plain("the passages could not be prepared for search", "add the file again later; if it fails again, " + _FIX_CODE),
    "every_chunk_embedded": Plain("some passages are not ready for search", "add the file again (or run `duocthu ingest` again)"),
}


def plain_message(rule: str, result: RuleResult) -> str:
    """What is wrong, on which pages, and what to do, in plain words."""
    plain = PLAIN[rule]
    pages = list(result.pages)
    where = ""
    if pages:
        shown = ", ".join(str(p) for p in pages[:10]) + (" …" if len(pages) > 10 else "")
        where = f" (page{'s' if len(pages) > 1 else ''} {shown})"
    return f"{plain.wrong[0].upper()}{plain.wrong[1:]}{where}. What to do: {plain.todo}."


STOPPED_SHOWN = 5  # documents named in a stopped step's description; its metadata lists them all


def stopped_description(stops: list[tuple[str, str, str, str]]) -> str:
    """What a step stopped by rules says on the run page, in plain words:
    one line per document — ``(doc_id, status, asset.rule, plain words)``,
    the first rule it failed — then how many more."""
    lines = [
        f"{doc} {status}{' by' if status == 'blocked' else ':'} {rule}. {words}" for doc, status, rule, words in stops[:STOPPED_SHOWN]
    ]
    if len(stops) > STOPPED_SHOWN:
        lines.append(f"… and {len(stops) - STOPPED_SHOWN} more documents (see the run's tags and the review asset)")
    return "\n".join(lines)
