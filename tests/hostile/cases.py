"""The hostile-input catalog: every input, where it sits in the inbox, what a
user should see, and what the case proves. README.md beside this file shows
the same table (a test keeps the two in step).

Paths are relative to the inbox. The first folder says where a document is
expected to stop: ``refused/`` at raw_documents (format detected from its
bytes), ``parse/`` at the parser and its gates, ``ok/`` nowhere. Grouping them
keeps each stage's survivors contiguous in the partition order, so the one
`duocthu ingest` of the catalog needs four Dagster runs, not one per gap
(the isolation itself does not depend on the order). A folder with a
``collection.toml`` (``COLLECTION_TOML``) applies it to its cases. ``make``
writes the input; ``corpus`` names a real file from ../shared/corpus instead
(that case is skipped when the corpus is absent).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tests.support import docgen
from tests.support import hostile_makers as makers
from tests.support import hostile_ooxml as ooxml

OK, REJECTED, FAILED, BLOCKED = "ok", "rejected", "failed", "blocked"


@dataclass(frozen=True)
class Case:
    path: str
    expected: str
    reason: str = ""  # regex (case-insensitive) the summary's reason must match
    proves: str = ""
    make: Callable[[Path], Path] | None = None
    corpus: str | None = None
    failed_checks: tuple[str, ...] = ()  # blocking checks that must be among the failed ones
    indexed_text: str = ""  # for `ok`: a phrase that must reach the search index
    warning: str = ""  # regex one of parsed_documents.warnings must match
    fmt: str = ""  # the format detected from content, when the case is about it
    label: str = ""  # how README.md writes the path, when the path itself cannot be written there
    bytes_kept: bool = True  # False: the input must NOT be read (a link out of the inbox)

    @property
    def name(self) -> str:
        return self.label or self.path


COLLECTION_TOML = {
    # every parse in this folder gets one millisecond: the real per-document
    # time limit (a forked child, killed at the deadline) ends it
    "parse/time_limit": "parse_timeout_s = 0.001\n[pdf]\nocr_page_budget_s = 0.0\n",  # no OCR allowance per page
    # the collection declares its CSVs' encoding
    "parse/csv_cp1252": 'csv_encoding = "cp1252"\n',
    # a collection whose files may be at most 1 KiB (default: 512 MiB)
    "refused/size_limit": "max_file_bytes = 1024\n",
    # a collection.toml with a value of the wrong type: this folder is refused, no other
    "refused/bad_toml": 'parse_timeout_s = "soon"\n',
    # a parser child allowed 64 MiB beyond what it inherited: a real allocation fails
    "parse/memory_budget": "memory_budget_mb = 64\n",
    # a collection whose documents may have at most 10 chunks
    "steps/chunks": "max_chunks_per_document = 10\n",
    # one millisecond of embedding per document: the budget is checked between backend calls
    "steps/embeddings": "embed_timeout_s = 0.001\n",
}

SECRET = "SECRET-OUTSIDE-THE-INBOX-4711"


def _link_outside(path: Path) -> Path:
    """A symlink at inbox/refused/links/<name> to a file beside the inbox."""
    outside = path.parents[3] / "outside_the_inbox"
    outside.mkdir(exist_ok=True)
    (outside / "secret.csv").write_text(f"a,b\n{SECRET},1\n")
    path.symlink_to(outside / "secret.csv")
    return path

_CSV = "Mã,Tên hoạt chất\nJ01CA04,{0}\n"


def _csv(text: str) -> Callable[[Path], Path]:
    def make(path: Path) -> Path:
        path.write_text(_CSV.format(text), encoding="utf-8")
        return path

    return make


def _good_pdf(path: Path) -> Path:
    return docgen.make_text_pdf(path, makers.GOOD_PDF_LINES)


def _good_docx(path: Path) -> Path:
    return docgen.make_docx(path, [("Điều 1", ["Hợp đồng cung ứng thuốc kháng sinh."])])


CASES: list[Case] = [
    # ---------------------------------------------------------------- good
    Case("ok/good/huong_dan.pdf", OK, make=_good_pdf, indexed_text="ánh sáng trực tiếp",
         proves="a born-digital PDF beside the hostile files is indexed"),
    Case("ok/good/quy_trinh.docx", OK, make=lambda p: docgen.make_docx(p, [("Quy trình cấp phát", ["Bước một: kiểm tra đơn thuốc."])]),
         indexed_text="kiểm tra đơn thuốc", proves="a DOCX beside the hostile files is indexed"),
    Case("ok/good/bang_gia.xlsx", OK,
         make=lambda p: docgen.make_xlsx(p, ["Tên thuốc", "Giá (đồng)"], [["Amoxicilin", 1200], ["Gentamicin", 5400]]),
         indexed_text="Gentamicin", proves="an XLSX beside the hostile files is indexed"),
    Case("ok/good/danh_muc.csv", OK, make=_csv("Amoxicilin"), indexed_text="J01CA04",
         proves="a UTF-8 CSV beside the hostile files is indexed"),
    # ----------------------------------------------------------------- PDF
    Case("parse/pdf/truncated.pdf", FAILED, r"corrupt|damaged|truncat|broken|incomplete", make=makers.make_truncated_pdf,
         proves="a PDF cut at 60 % (MuPDF 'repairs' it into 4 text-less pages) fails as damaged, "
         "not as 'needs OCR' and not as an empty success"),
    Case("parse/pdf/garbage_after_header.pdf", FAILED, r"corrupt|cannot open|damaged", make=makers.make_garbage_pdf,
         proves="a %PDF- header over noise fails as corrupt"),
    Case("ok/pdf/zen_of_python_corrupted.pdf", OK, corpus="pdfminer__zen_of_python_corrupted.pdf",
         indexed_text="Namespaces are one honking great idea",
         proves="a Flate stream with a bad checksum: MuPDF decodes all of it, so the whole text is kept "
         "(pdfminer loses the body; we do not)"),
    Case("parse/pdf/user_password.pdf", REJECTED, r"password", make=lambda p: makers.make_encrypted_pdf(p, "secret"),
         proves="AES-256 with a user password is refused with what to do, never guessed at"),
    Case("parse/pdf/password-example.pdf", REJECTED, r"password", corpus="pdfplumber__password-example.pdf",
         proves="a real user-password PDF (pdfplumber's) is refused"),
    Case("parse/pdf/2206.01062_pg3_password.pdf", REJECTED, r"password", corpus="docling__2206.01062_pg3_password.pdf",
         proves="a real user+owner-password PDF (docling's) is refused"),
    Case("ok/pdf/owner_password_only.pdf", OK, make=lambda p: makers.make_encrypted_pdf(p, ""),
         indexed_text="amikacin 15 mg/kg", proves="encrypted with an empty user password (permissions only): parsed"),
    Case("ok/pdf/r4-owner-password.pdf", OK, corpus="pypdf__r4-owner-password.pdf", indexed_text="pdf encryption test",
         proves="pypdf's R4/AES-128 owner-password-only file parses"),
    Case("ok/pdf/trailing_nul_padding.pdf", OK, corpus="pypdf__selenium-issue-177-trailing-nul-padding.pdf",
         indexed_text="Hello World", proves="20 KB of NULs after %%EOF: the xref is found and the text kept"),
    Case("ok/pdf/embedded_files.pdf", OK, make=makers.make_pdf_with_attachments, indexed_text="tệp đính kèm",
         warning=r"2 embedded file\(s\) not extracted \(bang_gia\.xlsx, ghi_chu\.txt\)",
         proves="a PDF's attachments (an embedded file and a file-attachment note) are not read, and a warning names them"),
    Case("parse/pdf/zero_pages.pdf", FAILED, r"no pages", make=makers.make_zero_page_pdf,
         proves="a well-formed PDF with an empty page tree fails, saying it has no pages"),
    Case("parse/pdf/scanned.pdf", BLOCKED, r"OCR", make=docgen.make_scanned_pdf, failed_checks=("no_pages_need_ocr",),
         proves="image-only pages OCR reads nothing on: blocked by no_pages_need_ocr, naming the pages; nothing OCRed silently"),
    Case("ok/pdf/ocr_test_scanned.pdf", OK, corpus="docling__ocr_test_scanned.pdf", indexed_text="Docling bundles PDF document conversion",
         warning=r"1 page\(s\) read by OCR \(tesseract", proves="a real scan with no text layer is read by OCR (issue 39)"),
    Case("ok/pdf/image_scanned_report.pdf", OK, corpus="camelot__image_scanned_report.pdf", indexed_text="Total BMD CV 1.0%",
         warning=r"read by OCR", proves="a scanned table report is read by OCR, its tables lifted from the image (issue 39)"),
    Case("refused/pdf/empty.pdf", REJECTED, r"empty file", corpus="pdfplumber__empty.pdf",
         proves="0 bytes named .pdf: refused as an unfinished upload"),
    Case("parse/time_limit/long.pdf", FAILED, r"0\.001 s limit", make=makers.make_long_pdf,
         proves="the per-document time limit: a 12-page parse given 1 ms (collection.toml) is killed and "
         "fails alone; the spinning-parser unit test (test_time_limit.py) shows the same for a real infinite loop"),
    # ------------------------------------------- steps after parsing (issue 22)
    Case("steps/crops/oversized_table.pdf", FAILED, r"^crop failed: MuPDF refused an image of \d+×\d+ px",
         make=makers.make_oversized_table_pdf, failed_checks=("crop_step_completed",),
         proves="a table spanning a 14,400-pt page: MuPDF refuses its 30,000 px crop; the document fails alone with that "
         "reason (summary, parsed_documents, crop_step_completed) while the good documents of its run are indexed"),
    Case("parse/memory_budget/many_rows.csv", FAILED, r"^parsing needed more memory than its budget \(memory_budget_mb\)",
         make=makers.make_many_rows_csv,
         proves="the memory budget for real: 600,000 rows (30 MB) parsed in a child allowed 64 MiB (collection.toml) "
         "hit the address-space limit (MemoryError); that document fails alone, saying what to raise"),
    Case("steps/chunks/one_line.csv", FAILED, r"^chunking failed: its text is [\d,]+ tokens long in one stretch, at least "
         r"[\d,]+ chunks — over the 10 .*max_chunks_per_document", make=makers.make_one_line_csv,
         failed_checks=("chunk_step_completed",),
         proves="a CSV of one 0.3 MB line (the issue's 47 MB line, scaled; bench/bounded_work.py runs the real one) is "
         "refused before packing when it certainly makes more chunks than max_chunks_per_document (10 here)"),
    Case("steps/embeddings/many_rows.csv", FAILED, r"^embedding failed: took longer than its 0\.001 s budget "
         r"\(embed_timeout_s\) — 32 of its \d+ new chunk texts", make=lambda p: makers.make_many_rows_csv(p, rows=80),
         failed_checks=("embedding_step_completed",),
         proves="the per-document embedding budget: 80 rows given 1 ms (collection.toml) stop after the first backend "
         "call; its 32 vectors are kept for the next run; the others of its run are embedded and indexed"),
    # -------------------------------------------------------------- Office
    Case("parse/office/ratio_bomb.docx", REJECTED, r"zip bomb|max_compression_ratio", make=ooxml.make_ratio_bomb_docx,
         proves="~120 MiB of zeros in 160 KB (ratio ~800:1 > 200:1) refused from the central directory, nothing inflated"),
    Case("parse/office/size_bomb.xlsx", REJECTED, r"max_uncompressed_bytes", make=ooxml.make_size_bomb_xlsx,
         proves="a 1.2 MB workbook declaring 1.2 GiB (> 1 GiB) refused before any part is read"),
    Case("parse/office/billion_laughs.docx", REJECTED, r"entit", make=ooxml.make_billion_laughs_docx,
         proves="nested entities in word/document.xml refused, never expanded"),
    Case("parse/office/billion_laughs.xlsx", REJECTED, r"entit", make=ooxml.make_billion_laughs_xlsx,
         proves="nested entities in xl/sharedStrings.xml refused, never expanded"),
    Case("parse/office/external_entity.docx", REJECTED, r"entit", make=ooxml.make_external_entity_docx,
         proves="an external entity (file:///etc/passwd) is refused, nothing is fetched"),
    Case("refused/office/macro.docm", REJECTED, r"macro", make=ooxml.make_macro_docm,
         proves="a .docm (vbaProject.bin + macroEnabled type) refused; macros are never run"),
    Case("refused/office/macro.xlsm", REJECTED, r"macro", make=ooxml.make_macro_xlsm, proves="a .xlsm is refused"),
    Case("refused/office/macro_named_plain.xlsx", REJECTED, r"macro", make=ooxml.make_macro_xlsm,
         proves="a .xlsm renamed .xlsx is still refused (detection by content)"),
    Case("refused/office/macro_renamed_part.xlsm", REJECTED, r"macro", make=lambda p: ooxml.make_macro_xlsm(p, "macros1.bin"),
         proves="a VBA part not named vbaProject.bin is found by its content type / relationship"),
    Case("refused/office/legacy_sample.doc", REJECTED, r"\.docx", corpus="docling__legacy_sample.doc",
         proves="Word 97-2003 .doc refused: save as .docx"),
    Case("refused/office/powerpoint_sample.pptx", REJECTED, r"PowerPoint", corpus="docling__powerpoint_sample.pptx",
         proves="a PowerPoint deck refused: export it to PDF"),
    Case("refused/office/empty.docx", REJECTED, r"empty file", make=makers.make_empty, proves="0 bytes named .docx refused"),
    Case("refused/office/no_data.xlsx", REJECTED, r"^the workbook has no data", make=makers.make_empty_workbook,
         proves="a workbook whose sheets are all empty is refused as having no data, not blocked by a failed check"),
    Case("parse/office/truncated.docx", FAILED, r"broken|corrupt|damaged|truncat", make=lambda p: ooxml.make_truncated_ooxml(p, "docx"),
         proves="a DOCX cut in half (no central directory) fails as a damaged Word file, not as 'a zip archive'"),
    Case("parse/office/truncated.xlsx", FAILED, r"broken|corrupt|damaged|truncat", make=lambda p: ooxml.make_truncated_ooxml(p, "xlsx"),
         proves="a truncated XLSX fails as a damaged workbook"),
    Case("ok/sheets/sparse_extent.xlsx", OK, make=ooxml.make_sparse_extent_xlsx, indexed_text="ô lạc cuối bảng tính",
         proves="cells in A1 and XFD1048576: parsed in proportion to the populated cells (a 5 × 3 grid), not the "
         "17-billion-cell extent; the stray cell is kept and cited as Data!XFD1048576"),
    Case("parse/office/sparse_diagonal.xlsx", REJECTED, r"max_sheet_cells", make=ooxml.make_diagonal_xlsx,
         proves="2,100 cells on a diagonal need 4.4 million grid positions even collapsed: refused with the numbers "
         "(max_sheet_cells, default 2,000,000), never a MemoryError"),
    # ----------------------------------------------------------------- CSV
    Case("ok/csv/latin1.csv", OK, corpus="csvkit__test_latin1.csv", indexed_text="©", warning=r"not UTF-8",
         proves="non-UTF-8 (byte 0xA9): decoded in the detected code page, named in a warning, nothing replaced"),
    Case("parse/csv_cp1252/undefined_byte.csv", FAILED, r"0x81", make=lambda p: makers.write_bytes(p, b"a,b\n1,caf\x81\n"),
         proves="undecodable: byte 0x81 has no meaning in the collection's declared cp1252; fails naming byte and offset"),
    Case("parse/csv/huge_field.csv", REJECTED, r"max_csv_field_bytes", make=makers.make_huge_field_csv,
         proves="one 100 MiB field (limit 16 MiB) refused by the csv module's own limit, without splitting or truncating"),
    Case("ok/csv/utf16.csv", OK, make=makers.make_utf16_csv, indexed_text="۱۲۰۰",
         proves="Excel's 'Unicode text' (UTF-16LE with a BOM) export is read: the BOM names the encoding"),
    Case("refused/size_limit/too_large.csv", REJECTED, r"max_file_bytes", make=_csv("x" * 4096),
         proves="a file over max_file_bytes is refused before it is read into memory; its bytes are still kept "
         "(copied in blocks)"),
    Case("refused/csv/empty.csv", REJECTED, r"empty file", make=makers.make_empty, proves="0 bytes named .csv refused"),
    Case("parse/csv/blank.csv", BLOCKED, r"no text", make=lambda p: makers.write_bytes(p, b"\n\n   \n"),
         failed_checks=("document_has_text",), proves="only blank lines: blocked by document_has_text, nothing chunked empty"),
    # ------------------------------------------- one bad input fails only itself (issue 22)
    Case("refused/bad_toml/thuoc.csv", REJECTED, r"collection\.toml has a setting that cannot be used", make=_csv("bad toml"),
         proves="a collection.toml with a bad value refuses its folder's documents with the TOML error (bytes kept); "
         "every other folder is ingested"),
    Case("refused/links/outside.csv", REJECTED, r"symlink leading outside .*nothing read", make=_link_outside, bytes_kept=False,
         proves="a symlink to a file outside the inbox is refused unread: its bytes are neither stored nor indexed"),
    # ----------------------------------------------------- wrong extension
    Case("ok/wrong_ext/docx_named.pdf", OK, make=_good_docx, indexed_text="kháng sinh", fmt="docx",
         proves="a DOCX named .pdf is read as the DOCX it is (format from content)"),
    Case("ok/wrong_ext/pdf_named.csv", OK, make=_good_pdf, indexed_text="ánh sáng trực tiếp", fmt="pdf",
         proves="a PDF named .csv is read as a PDF"),
    Case("refused/wrong_ext/image_named.pdf", REJECTED, r"not a PDF, DOCX, XLSX or CSV", make=makers.make_png_named,
         proves="a PNG named .pdf refused as an unsupported format"),
    Case("refused/wrong_ext/legacy_named.docx", REJECTED, r"\.docx", corpus="docling__legacy_sample.doc",
         proves="a legacy .doc renamed .docx refused as legacy Word"),
    # ----------------------------------------------------------- file names
    Case("ok/names/tên tài liệu có dấu.csv", OK, make=_csv("Vietnamese name with spaces"), indexed_text="Vietnamese name",
         proves="spaces and Vietnamese letters in a name"),
    Case("ok/names/گزارش مالی ۱۴۰۲.csv", OK, make=_csv("Persian name"), indexed_text="Persian name",
         proves="Persian letters and digits in a name"),
    Case("ok/names/thuoc..ban...csv", OK, make=_csv("dot dot name"), indexed_text="dot dot name",
         proves="'..' inside a name never reaches a doc_id or a path"),
    Case("ok/names/so\\lieu.csv", OK, make=_csv("backslash name"), indexed_text="backslash name",
         proves="a Windows separator inside a Linux name"),
    Case("ok/names/x/y.csv", OK, make=_csv("nested separator"), indexed_text="nested separator",
         proves="'x/y.csv' and 'x-y.csv' get distinct doc_ids"),
    Case("ok/names/x-y.csv", OK, make=_csv("dash twin"), indexed_text="dash twin", proves="(its twin)"),
    Case("ok/names/line\nbreak.csv", OK, make=_csv("newline name"), indexed_text="newline name",
         label="ok/names/line\\nbreak.csv", proves="a newline in a name"),
    Case("ok/names/-rf.csv", OK, make=_csv("leading dash"), indexed_text="leading dash",
         proves="a name that looks like an option"),
    Case("ok/names/" + "rất dài " * 20 + ".csv", OK, make=_csv("long name"), indexed_text="long name",
         label="ok/names/rất dài ×20.csv",
         proves="a 224-byte name: doc_id cut to 64 characters with a hash"),
    Case("ok/names/café.csv", OK, make=_csv("NFC cafe"), indexed_text="NFC cafe",
         proves="NFC and NFD spellings of one name are two files and two doc_ids"),
    Case("ok/names/cafe\u0301.csv", OK, make=_csv("NFD cafe"), indexed_text="NFD cafe", label="ok/names/café.csv (NFD)",
         proves="(its NFD twin)"),
]

# A name that is not valid UTF-8 (Linux allows any bytes): added when the
# filesystem can store it.
NON_UTF8_NAME = Case(
    "ok/names/bad\udcff.csv", OK, make=_csv("non-UTF-8 name"), indexed_text="non-UTF-8 name", label="ok/names/bad\\xff.csv",
    proves="a file name that is not valid UTF-8 (byte 0xFF): registry, Parquet and report stay writable",
)
