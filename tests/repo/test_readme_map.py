"""README's map of the code stays true: every path it names exists, and every
package of the code is on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import REPO

# paths the README names that are not in the tree on purpose
NAMED_BUT_ABSENT = {
    "duocthu_assets/storage.py": "named as the old home of the schemas (Schema versions)",
    "tests/output/": "made by the browser tests when they run",
}
_TOP_FOLDERS = ("duocthu_assets", "checks", "tests", "bench", "scripts", "eval", "data")


def code_map(readme: str) -> str:
    """The fenced block right under README's ``## Design`` heading."""
    design = readme.split("\n## Design\n", 1)
    if len(design) != 2:
        raise AssertionError("README.md has no '## Design' section: the map of the code lives there")
    block = re.search(r"```\n(.*?)```", design[1], re.S)
    if block is None:
        raise AssertionError("README.md's '## Design' section has no fenced map of the code")
    return block.group(1)


def map_paths(block: str) -> list[str]:
    """Each line's path: its first word, under the folder lines above it that
    are indented less (a folder line ends with ``/``)."""
    paths, folders = [], []  # folders: (indent, path) of the enclosing folder lines
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        name = line.split()[0]
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = (folders[-1][1] if folders else "") + name
        paths.append(path)
        if name.endswith("/"):
            folders.append((indent, path))
    return paths


def missing_paths(root: Path, readme: str) -> list[str]:
    named = set(map_paths(code_map(readme)))
    folders = "|".join(_TOP_FOLDERS)
    named |= set(re.findall(rf"`((?:{folders})/[^`\s*<]*)`", readme))
    return sorted(p for p in named if p not in NAMED_BUT_ABSENT and not (root / p).exists())


def unmapped_packages(root: Path, readme: str) -> list[str]:
    named = set(map_paths(code_map(readme)))
    packages = [p.parent.relative_to(root).as_posix() + "/" for top in ("duocthu_assets", "checks")
                for p in (root / top).rglob("__init__.py")]
    return sorted(p for p in packages if p not in named)


def test_every_path_the_readme_names_exists():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = missing_paths(REPO, readme)
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_every_package_is_on_the_map():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unmapped = unmapped_packages(REPO, readme)
    assert not unmapped, f"README.md's map of the code (## Design) lacks these packages: {unmapped}"


def test_the_map_is_read_as_a_tree_and_a_wrong_path_is_named(tmp_path: Path):
    (tmp_path / "duocthu_assets" / "runtime").mkdir(parents=True)
    (tmp_path / "duocthu_assets" / "runtime" / "__init__.py").write_text("")
    (tmp_path / "duocthu_assets" / "runtime" / "ingest.py").write_text("")
    (tmp_path / "duocthu_assets" / "parse").mkdir()
    (tmp_path / "duocthu_assets" / "parse" / "__init__.py").write_text("")
    readme = (
        "# x\n\n## Design\n\nThe map:\n\n```\n"
        "duocthu_assets/       the code\n"
        "  runtime/            running\n"
        "    ingest.py         `duocthu ingest`\n"
        "    event_log.py      gone\n"
        "  search.py           moved away\n"
        "```\n\nSee `duocthu_assets/runtime/ingest.py` and `checks/nowhere.py`.\n"
    )
    assert map_paths(code_map(readme)) == [
        "duocthu_assets/", "duocthu_assets/runtime/", "duocthu_assets/runtime/ingest.py",
        "duocthu_assets/runtime/event_log.py", "duocthu_assets/search.py",
    ]
    assert missing_paths(tmp_path, readme) == [
        "checks/nowhere.py", "duocthu_assets/runtime/event_log.py", "duocthu_assets/search.py",
    ]
    assert unmapped_packages(tmp_path, readme) == ["duocthu_assets/parse/"]
    with pytest.raises(AssertionError, match="no '## Design' section"):
        code_map("# x\n\n## Other\n")
