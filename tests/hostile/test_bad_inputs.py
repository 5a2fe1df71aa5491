"""One bad input fails only itself (issue 22): an unreadable file or folder,
a bad collection.toml, a file that vanishes mid-ingest, symlinks (out of the
inbox, dangling, looping, to a folder), a FIFO, a missing path, and one file
given under two spellings — all in ONE `duocthu ingest` beside a good
document, which must come out `ok` and indexed. Each bad input is a document
with a status and a reason, or a line under "not ingested"; nothing aborts
the command, and nothing outside the inbox is read."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from duocthu_assets.inbox import scan as inbox_module
from duocthu_assets.inbox import registration
from duocthu_assets.cli import main

pytestmark = pytest.mark.slow

GOOD = "Mã,Tên hoạt chất\nJ01CA04,Amoxicilin\n"
SECRET = "SECRET-OUTSIDE-THE-INBOX-4711"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad_inputs")
    inbox = tmp / "inbox"
    for folder in ("good", "bad_toml", "links", "locked", "files"):
        (inbox / folder).mkdir(parents=True)
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.csv").write_text(f"a,b\n{SECRET},1\n")
    # a collection.toml above the inbox root must be ignored (it would break everything)
    (tmp / "collection.toml").write_text("parse_timeout_s = [\n")
    (inbox / "good" / "danh_muc.csv").write_text(GOOD, encoding="utf-8")
    (inbox / "bad_toml" / "collection.toml").write_text('parse_timeout_s = "soon"\n')
    (inbox / "bad_toml" / "thuoc.csv").write_text(GOOD, encoding="utf-8")
    (inbox / "links" / "out.csv").symlink_to(tmp / "outside" / "secret.csv")
    (inbox / "links" / "dangling.csv").symlink_to(inbox / "links" / "nowhere.csv")
    (inbox / "links" / "loop1.csv").symlink_to(inbox / "links" / "loop2.csv")
    (inbox / "links" / "loop2.csv").symlink_to(inbox / "links" / "loop1.csv")
    (inbox / "links" / "outdir").symlink_to(tmp / "outside")
    (inbox / "links" / "same.csv").symlink_to(inbox / "good" / "danh_muc.csv")
    os.mkfifo(inbox / "files" / "pipe.csv")
    (inbox / "files" / "unreadable.csv").write_text(GOOD, encoding="utf-8")
    (inbox / "files" / "vanishing.csv").write_text(GOOD, encoding="utf-8")
    (inbox / "locked" / "hidden.csv").write_text(GOOD, encoding="utf-8")
    os.chmod(inbox / "files" / "unreadable.csv", 0)
    os.chmod(inbox / "locked", 0)

    # root reads anything: make the kernel's answer for the unreadable ones
    patch = pytest.MonkeyPatch()
    real_scandir, real_sha, real_scan = os.scandir, registration.file_sha256, inbox_module.scan

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    def file_sha256(path):
        if Path(path).name == "unreadable.csv":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_sha(path)

    def scan(paths):
        found = real_scan(paths)
        (inbox / "files" / "vanishing.csv").unlink()  # gone between the walk and its registration
        return found

    patch.setattr(os, "scandir", scandir)
    patch.setattr(registration, "file_sha256", file_sha256)
    patch.setattr("duocthu_assets.ingest.run.scan", scan)
    report = tmp / "report.json"
    try:
        code = main(["ingest", str(inbox), str(inbox / "good" / ".." / "good" / "danh_muc.csv"), str(tmp / "no_such_folder"),
                     "--warehouse", str(tmp / "wh"), "--report", str(report), "--quiet"])
    finally:
        patch.undo()
        os.chmod(inbox / "locked", 0o755)
        os.chmod(inbox / "files" / "unreadable.csv", 0o644)
    data = json.loads(report.read_text())
    return code, {d["source"]: d for d in data["documents"]}, data["problems"], tmp


def test_the_good_document_is_ok_and_indexed_once(result):
    code, docs, problems, tmp = result
    assert code == 1
    assert docs["good/danh_muc.csv"]["status"] == "ok"
    indexed = pq.read_table(tmp / "wh" / "search_index" / "index.parquet", columns=["doc_id"]).column("doc_id").to_pylist()
    assert set(indexed) == {docs["good/danh_muc.csv"]["doc_id"]}
    # given as a folder, as `good/../good/danh_muc.csv` and through links/same.csv: one document
    assert [s for s in docs if s.endswith("danh_muc.csv") or s.endswith("same.csv")] == ["good/danh_muc.csv"]
    assert any("same.csv" in p and "ingested once" in p for p in problems)


@pytest.mark.parametrize("source, status, reason", [
    ("bad_toml/thuoc.csv", "rejected", r"bad_toml/collection\.toml has a setting that cannot be used"),
    ("links/out.csv", "rejected", r"symlink leading outside .*not followed, nothing read"),
    ("files/unreadable.csv", "rejected", r"cannot read the file: Permission denied"),
])
def test_a_bad_file_is_its_own_document_with_a_reason(result, source, status, reason):
    import re

    _, docs, _, _ = result
    assert docs[source]["status"] == status, docs[source]
    assert re.search(reason, docs[source]["reason"]), docs[source]["reason"]


@pytest.mark.parametrize("path, reason", [
    ("locked", r"folder cannot be read \(Permission denied\)"),
    ("links/dangling.csv", r"dangling symlink"),
    ("links/loop1.csv", r"symlink loop"),
    ("links/outdir", r"symlink to the folder .*not followed"),
    ("files/pipe.csv", r"not a regular file"),
    ("files/vanishing.csv", r"vanished while being ingested"),
    ("no_such_folder", r"no such file or folder"),
])
def test_what_is_no_document_is_reported_not_skipped(result, path, reason):
    import re

    _, _, problems, _ = result
    assert any(path in p and re.search(reason, p) for p in problems), problems


def test_nothing_outside_the_inbox_was_read(result):
    _, docs, _, tmp = result
    assert docs["links/out.csv"]["doc_id"]
    for file in (tmp / "wh").rglob("*"):
        if file.is_file() and file.suffix != ".db" and "dagster_home" not in file.parts:
            assert SECRET.encode() not in file.read_bytes(), file
    raw = pq.read_table(tmp / "wh" / "raw_documents" / f"{docs['links/out.csv']['doc_id']}.parquet").to_pylist()[0]
    assert raw["stored_path"] == "" and raw["sha256"] == ""
