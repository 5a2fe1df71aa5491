"""The PDF stage's settings are part of a document's settings: set from a
collection.toml's [pdf] table, validated with it, recorded with it, and the
ones the PDF parser is given."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from duocthu_assets.model import Format
from duocthu_assets.parse import parse_document
from duocthu_assets.parse.pdf import reader as pdf
from duocthu_assets.settings.pdf import PdfSettings
from duocthu_assets.settings import CollectionSettingsError, Settings, collection_settings

from tests.support.paths import INBOX

SAMPLE = INBOX / "formulary" / "duoc_thu_mau.pdf"


def test_a_collection_sets_the_pdf_stage(tmp_path: Path):
    (tmp_path / "collection.toml").write_text('profile = "formulary"\n[pdf]\nheading_max_words = 3\n')
    settings = collection_settings(tmp_path)
    assert settings.pdf == PdfSettings(heading_max_words=3)
    # as the registry records it (JSON) and reads it back
    assert Settings(**json.loads(json.dumps(dataclasses.asdict(settings)))) == settings
    assert Settings().pdf == PdfSettings()


def test_an_unknown_pdf_setting_names_the_file(tmp_path: Path):
    (tmp_path / "collection.toml").write_text("[pdf]\nheading_words = 3\n")
    with pytest.raises(CollectionSettingsError, match=r"collection.toml.*unknown PDF settings: heading_words"):
        collection_settings(tmp_path)


def test_the_pdf_parser_is_given_the_documents_pdf_settings(monkeypatch):
    seen = {}
    real = pdf.parse

    def spy(data, settings, pdf_settings=None, stats=None, **ocr):
        seen["pdf_settings"] = pdf_settings
        return real(data, settings, pdf_settings, stats, **ocr)

    monkeypatch.setattr(pdf, "parse", spy)
    settings = Settings(profile="formulary", pdf={"heading_max_words": 3})
    parse_document(SAMPLE.read_bytes(), Format.PDF, settings)
    assert seen["pdf_settings"] is settings.pdf
