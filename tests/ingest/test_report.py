"""The ingest summary's text (ingest/report.py): a reason is cut at a
character a reader sees, never inside one; removed documents exit 0."""

from __future__ import annotations

import io
import unicodedata

from duocthu_assets.ingest.report import (
    DocumentSummary,
    IngestResult,
    clip,
    print_summary,
)


def test_a_long_reason_is_cut_before_a_letter_with_its_combining_marks_not_between_them():
    text = unicodedata.normalize("NFD", "liều " * 40)  # ê + combining marks, decomposed
    cut = clip(text, 160)
    assert cut.endswith("…") and len(cut) <= 160
    kept = len(cut) - 1
    assert text.startswith(cut[:-1]) and not unicodedata.combining(text[kept])  # no mark cut off its letter
    assert len(clip("x" * 158 + unicodedata.normalize("NFD", "ều"), 160)) == 159  # e + two marks: all go, or none


def test_an_emoji_sequence_is_not_split_at_its_joiner():
    text = "x" * 158 + "👩\u200d⚕️ and more"
    cut = clip(text, 160)
    assert "\u200d" not in cut and cut == "x" * 158 + "…"


def test_a_short_reason_is_kept_whole():
    assert clip("no space left on device") == "no space left on device"


def test_removed_documents_and_skipped_files_are_said_and_do_not_fail_the_ingest():
    result = IngestResult("wh", [DocumentSummary("a.csv", "a.csv", "ok"), DocumentSummary("b.csv", "b.csv", "removed", "file gone")],
                          2, 1.0, skipped=[".hidden.csv: hidden (its name starts with '.')"])
    out = io.StringIO()
    print_summary(result, out)
    assert result.all_ok
    assert "1 ok, 1 removed" in out.getvalue() and "skipped (1):\n  .hidden.csv: hidden" in out.getvalue()


def test_a_failed_consolidation_fails_the_ingest_and_says_so():
    result = IngestResult("wh", [DocumentSummary("a.csv", "a.csv", "ok")], 2, 1.0,
                          tables_error="chunks: not compacted: no space left on device")
    out = io.StringIO()
    print_summary(result, out)
    assert not result.all_ok
    assert "consolidated tables/ not written: chunks: not compacted: no space left on device" in out.getvalue()
    assert '"tables_error": "chunks: not compacted' in result.to_json()
