"""The reviewer's mixed inbox (issue 37): a document of each status, built
at test time."""

from __future__ import annotations

from pathlib import Path

from tests.support.docgen import make_docx, make_repeated_page_number_pdf, make_scanned_pdf, make_xlsx
from tests.support.hostile_makers import make_encrypted_pdf


LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600  # an OLE2 header: a legacy .doc, refused on sight


def make_mixed_inbox(inbox: Path) -> dict[str, str]:
    """The reviewer's mixed inbox: two good files, a scan, an encrypted PDF,
    a legacy ``.doc`` and the page-number case; returns doc_id -> the
    status `duocthu ingest` must give it."""
    inbox.mkdir(parents=True, exist_ok=True)
    make_docx(inbox / "a.docx", [("Một", ["Đoạn văn thứ nhất."])])
    make_xlsx(inbox / "b.xlsx", ["Tên", "Số lượng"], [["x", 1], ["y", 2]])
    make_scanned_pdf(inbox / "scan.pdf", pages=2)
    make_encrypted_pdf(inbox / "locked.pdf", user_pw="secret")
    (inbox / "old.doc").write_bytes(LEGACY_DOC)
    make_repeated_page_number_pdf(inbox / "page_numbers.pdf")
    return {"a.docx": "ok", "b.xlsx": "ok", "scan.pdf": "blocked", "locked.pdf": "rejected", "old.doc": "rejected",
            "page_numbers.pdf": "blocked"}
