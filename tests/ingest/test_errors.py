"""What a stopped ingest says (ingest/errors.py): a warehouse it cannot
write, and which failures are passing (runtime/step_failures.is_transient)."""

from __future__ import annotations

import errno

from duocthu_assets.ingest.errors import unwritable_message
from duocthu_assets.runtime.step_failures import is_transient


def test_a_read_only_warehouse_is_said_plainly_with_what_to_do():
    exc = OSError(errno.EROFS, "Read-only file system", "/mnt/wh/registry.json")
    said = unwritable_message(RuntimeError("wrapped").with_traceback(None), "/mnt/wh")
    assert said is None  # another error: left to the traceback
    try:
        raise RuntimeError("Error occurred while opening the instance") from exc
    except RuntimeError as wrapped:
        said = unwritable_message(wrapped, "/mnt/wh")
    assert said == ("the warehouse /mnt/wh cannot be written (/mnt/wh/registry.json): Read-only file system — give this "
                    "user write access to it, or choose another folder with --warehouse")


def test_a_permission_denied_is_unwritable_too():
    said = unwritable_message(PermissionError(errno.EACCES, "Permission denied", "/srv/wh/dagster_home"), "/srv/wh")
    assert said is not None and "Permission denied" in said and "--warehouse" in said


def test_passing_causes_are_retried_and_the_documents_own_are_not():
    assert is_transient("crop failed: no space left on device while writing crops/x/b1.png — free disk space and ingest again")
    assert is_transient("the cropping process died (killed by SIGKILL) on this document")
    assert is_transient("crop failed: FileNotFoundError: [Errno 2] No such file or directory: 'crops/x/.b1.png.12-ab.tmp'")
    assert not is_transient("the parser process died (killed by SIGSEGV): this file crashes the parser")
    assert not is_transient("damaged PDF: the file ends after 190,735 bytes without the PDF end marker (%%EOF)")
    assert not is_transient("crop failed: MuPDF refused an image of 200000×200000 px")
