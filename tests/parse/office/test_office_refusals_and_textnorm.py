"""Unsupported office inputs are refused with a reason a user can act on, and
Persian normalization follows ADR 0018 §5 only where a collection asks for it."""

from __future__ import annotations

import io
import zipfile

import pytest

from duocthu_assets.formats import detect_format, refusal_reason
from duocthu_assets.model import Format
from duocthu_assets.parse.errors import DocumentRejected, ParseFailed
from duocthu_assets.parse import parse_document
from duocthu_assets.settings import Normalization, Settings
from duocthu_assets.textnorm import normalize_block, normalize_persian


@pytest.mark.parametrize(
    ("name", "fmt", "advice"),
    [("docling__legacy_sample.doc", Format.DOC, "save as .docx"), ("docling__powerpoint_sample.pptx", Format.PPTX, "export it to PDF")],
)
def test_legacy_and_unsupported_office_files_are_refused(corpus, name, fmt, advice):
    data = corpus(name).read_bytes()
    assert detect_format(data) is fmt
    assert advice in refusal_reason(fmt)
    with pytest.raises(DocumentRejected):
        parse_document(data, fmt, Settings())


def test_password_protected_ooxml_is_refused():
    # an encrypted .docx/.xlsx is an OLE2 container holding EncryptionInfo/EncryptedPackage
    data = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100 + "EncryptionInfo".encode("utf-16-le") + b"\x00" * 100
    fmt = detect_format(data)
    assert fmt is Format.ENCRYPTED_OOXML
    assert "remove the password" in refusal_reason(fmt)
    with pytest.raises(DocumentRejected):
        parse_document(data, fmt, Settings())


def test_truncated_docx_fails_with_a_reason():
    from docx import Document

    out = io.BytesIO()
    Document().save(out)
    data = out.getvalue()
    with pytest.raises(ParseFailed, match="re-save"):
        parse_document(data[: len(data) // 2], Format.DOCX, Settings())


def test_docx_without_a_body_fails_with_a_reason():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>')
    with pytest.raises(ParseFailed, match="no body"):
        parse_document(out.getvalue(), Format.DOCX, Settings())


# ------------------------------------------------------------ normalization


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("كتاب", "کتاب"),  # ك → ک
        ("علي", "علی"),  # ي → ی
        ("مصطفى", "مصطفی"),  # ى → ی
        ("أحمد إيران", "احمد ایران"),  # أ/إ → ا
        ("\ufedb\ufe98\ufe8e\ufe8f", "کتاب"),  # presentation forms: NFKC, then folding
        ("مسي\u0654له", "مسئله"),  # ي + hamza composes to ئ first; the hamza survives
        ("خانه\u0654 ما", "خانه\u0654 ما"),  # ezafe hamza is a letter mark, not a haraka
        ("مُدَّت", "مدت"),  # harakat removed
        ("فســـخ", "فسخ"),  # tatweel removed
        ("باقیمانده¬ی", "باقیمانده ی"),  # ¬ → space
        ("  یک \n\n دو\t سه ", "یک دو سه"),  # whitespace collapsed (per block)
        ("۱۲۳ ١٢٣ 123", "۱۲۳ ١٢٣ 123"),  # digits as written
        ("الف؛ ب، ج٬ د", "الف؛ ب، ج٬ د"),  # Persian punctuation as written
        ("می\u200cشود", "می\u200cشود"),  # ZWNJ is not whitespace
    ],
)
def test_normalize_persian(raw, expected):
    assert normalize_persian(raw) == expected


def test_other_collections_get_nfc_only():
    text = "كتاب علي\u064e  e\u0301\nline"
    assert normalize_block(text, Normalization.NFC) == "كتاب علي\u064e é\nline"
    assert normalize_block(text, Normalization.PERSIAN) == "کتاب علی é line"
