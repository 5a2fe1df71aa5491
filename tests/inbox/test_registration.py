"""Registering files (inbox/registration.py): one file, one document,
however it is reached, and older duplicates retired; a file gone from a
folder marked removed (the prefix of a folder is not the folder)."""

from __future__ import annotations

from pathlib import Path

from duocthu_assets.inbox.registration import (
    mark_removed,
    register_files,
    retire_duplicates,
)
from duocthu_assets.inbox.registry import DocumentRecord, Registry
from duocthu_assets.inbox.scan import scan
from duocthu_assets.warehouse import Warehouse


def _inbox(tmp_path: Path) -> Path:
    (tmp_path / "ov" / "a").mkdir(parents=True)
    (tmp_path / "ov" / "a" / "x.csv").write_text("a,b\n1,2\n")
    return tmp_path / "ov"


def test_a_file_reached_through_its_subfolder_or_a_link_keeps_its_doc_id(tmp_path):
    inbox = _inbox(tmp_path)
    registry = Registry(Warehouse(str(tmp_path / "wh")))
    (first,), _ = register_files(registry, scan([inbox]).found)
    (again,), _ = register_files(registry, scan([inbox / "a"]).found)
    (tmp_path / "link.csv").symlink_to(inbox / "a" / "x.csv")
    (linked,), _ = register_files(registry, scan([tmp_path / "link.csv"]).found)
    assert first.doc_id == again.doc_id == linked.doc_id == "a-x.csv"
    assert list(registry.records) == ["a-x.csv"] and linked.path == str(inbox / "a" / "x.csv")


def test_two_documents_of_one_file_left_by_an_older_version_become_one(tmp_path):
    inbox = _inbox(tmp_path)
    registry = Registry(Warehouse(str(tmp_path / "wh")))
    path = str(inbox / "a" / "x.csv")
    registry.records["x.csv"] = DocumentRecord("x.csv", path, "x.csv", "", {})
    registry.records["a-x.csv"] = DocumentRecord("a-x.csv", path, "a/x.csv", "a", {})
    present, _ = register_files(registry, scan([inbox]).found)
    retired = retire_duplicates(registry, present)
    assert [r.doc_id for r in present] == ["a-x.csv"] and [r.doc_id for r in retired] == ["x.csv"]
    assert registry.records["x.csv"].status == "removed"


def test_a_file_gone_is_marked_removed_but_not_one_in_a_folder_sharing_the_prefix(tmp_path):
    inbox = _inbox(tmp_path)
    (tmp_path / "ov2").mkdir()
    (tmp_path / "ov2" / "y.csv").write_text("a,b\n1,2\n")
    registry = Registry(Warehouse(str(tmp_path / "wh")))
    register_files(registry, scan([inbox, tmp_path / "ov2"]).found)
    (inbox / "a" / "x.csv").unlink()
    (tmp_path / "ov2" / "y.csv").unlink()
    removed = mark_removed(registry, set(), inbox)
    assert [r.doc_id for r in removed] == ["a-x.csv"]
    assert [r.status for r in registry.records.values() if r.path.startswith(str(tmp_path / "ov2"))] == ["active"]
