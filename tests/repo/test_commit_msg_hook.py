"""The commit-msg hook of CONTRIBUTING.md refuses what the rule forbids."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO

HOOK = REPO / ".githooks" / "commit-msg"


def run_hook(tmp_path: Path, message: str) -> subprocess.CompletedProcess:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run(["sh", str(HOOK), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("message", [
    "parse: move the PDF reader into a package\n\nWhy, and the figures.\n",
    "docs: one line\n",
    "Merge branch 'docs'\n",
])
def test_a_good_message_passes(tmp_path, message):
    assert run_hook(tmp_path, message).returncode == 0


@pytest.mark.parametrize("message, says", [
    ("parse: " + "x" * 70 + "\n", "at most 72"),
    ("Moved the PDF reader\n", "area: what changed"),
    ("parse: moved\nthe body on the second line\n", "second line must be blank"),
])
def test_a_bad_message_is_refused_saying_why(tmp_path, message, says):
    done = run_hook(tmp_path, message)
    assert done.returncode == 1
    assert says in done.stderr
