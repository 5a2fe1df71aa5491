"""The documentation stays true to the tree: the code map in
docs/architecture.md names only paths that exist and maps every package, and
every repository path or relative link named in README.md and docs/*.md
exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
ARCHITECTURE = Path("docs") / "architecture.md"
MAP_HEADING = "## Code map"
# paths the documents name that are not in the tree on purpose: a path, or a
# folder ending in "/" (everything under it)
NAMED_BUT_ABSENT = {
    "data/warehouse/": "made by `make run` (the default warehouse)",
    "tests/output/": "made by the browser tests when they run",
    "bench/out/": "made by the bench scripts when they run",
}
_TOP_FOLDERS = ("duocthu_assets", "checks", "tests", "bench", "scripts", "eval", "data", "docs")
_TOP_FILES = ("Makefile", "pyproject.toml", "workspace.yaml", "README.md", "CHANGELOG.md", "CONTRIBUTING.md")


def documents(root: Path) -> dict[str, str]:
    """README.md and every docs/*.md, by their path under ``root``."""
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return {f.relative_to(root).as_posix(): f.read_text(encoding="utf-8") for f in files if f.exists()}


def code_map(text: str) -> str:
    """The fenced block under docs/architecture.md's ``## Code map`` heading."""
    section = re.split(rf"^{re.escape(MAP_HEADING)}[ \t]*$", text, maxsplit=1, flags=re.M)
    if len(section) != 2:
        raise AssertionError(f"{ARCHITECTURE} has no '{MAP_HEADING}' section: the map of the code lives there")
    body = re.split(r"^## ", section[1], maxsplit=1, flags=re.M)[0]
    block = re.search(r"^```[^\n]*\n(.*?)^```", body, re.S | re.M)
    if block is None:
        raise AssertionError(f"{ARCHITECTURE}'s '{MAP_HEADING}' section has no fenced map of the code")
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


def named_paths(text: str) -> set[str]:
    """Every backticked repository path: one that starts with a top folder
    (up to a space, a wildcard or a placeholder), or a top-level file."""
    folders = "|".join(_TOP_FOLDERS)
    files = "|".join(re.escape(f) for f in _TOP_FILES)
    return set(re.findall(rf"`((?:{folders})/[^`\s*<]*|{files})`", text))


def linked_paths(name: str, text: str) -> set[str]:
    """Every relative Markdown link's target, as a path under the root (its
    ``#anchor`` dropped); links to the web and to ``../shared`` are not ours."""
    base = Path(name).parent
    out = set()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        target = target.split("#", 1)[0]
        if not target or re.match(r"[a-z]+:", target):
            continue
        path = (base / target).as_posix()
        parts: list[str] = []
        for part in path.split("/"):
            if part == "..":
                if not parts:
                    break
                parts.pop()
            elif part not in (".", ""):
                parts.append(part)
        else:
            out.add("/".join(parts) + ("/" if target.endswith("/") else ""))
    return out


def _absent_on_purpose(path: str) -> bool:
    folder = path.rstrip("/") + "/"  # a folder may be named with or without its slash
    return any(path == p or (p.endswith("/") and folder.startswith(p)) for p in NAMED_BUT_ABSENT)


def missing_paths(root: Path, docs: dict[str, str]) -> list[str]:
    """``where: path`` for each path a document names that does not exist."""
    named: set[tuple[str, str]] = set()
    if ARCHITECTURE.as_posix() in docs:
        named |= {(ARCHITECTURE.as_posix(), p) for p in map_paths(code_map(docs[ARCHITECTURE.as_posix()]))}
    for name, text in docs.items():
        named |= {(name, p) for p in named_paths(text) | linked_paths(name, text)}
    return sorted(f"{where}: {p}" for where, p in named if not _absent_on_purpose(p) and not (root / p).exists())


def unmapped_packages(root: Path, architecture: str) -> list[str]:
    named = set(map_paths(code_map(architecture)))
    packages = [p.parent.relative_to(root).as_posix() + "/" for top in ("duocthu_assets", "checks")
                for p in (root / top).rglob("__init__.py")]
    return sorted(p for p in packages if p not in named)


def test_every_path_the_documents_name_exists():
    missing = missing_paths(ROOT, documents(ROOT))
    assert not missing, f"the documentation names paths that do not exist: {missing}"


def test_every_package_is_on_the_map():
    unmapped = unmapped_packages(ROOT, (ROOT / ARCHITECTURE).read_text(encoding="utf-8"))
    assert not unmapped, f"{ARCHITECTURE}'s code map ({MAP_HEADING}) lacks these packages: {unmapped}"


def test_the_map_is_read_as_a_tree_and_a_wrong_path_is_named(tmp_path: Path):
    (tmp_path / "duocthu_assets" / "runtime").mkdir(parents=True)
    (tmp_path / "duocthu_assets" / "runtime" / "__init__.py").write_text("")
    (tmp_path / "duocthu_assets" / "runtime" / "ingest.py").write_text("")
    (tmp_path / "duocthu_assets" / "parse").mkdir()
    (tmp_path / "duocthu_assets" / "parse" / "__init__.py").write_text("")
    (tmp_path / "docs").mkdir()
    architecture = (
        "# x\n\n## Design\n\n```\nnot/the/map.py\n```\n\n## Code map\n\nThe map:\n\n```\n"
        "duocthu_assets/       the code\n"
        "  runtime/            running\n"
        "    ingest.py         `duocthu ingest`\n"
        "    event_log.py      gone\n"
        "  search.py           moved away\n"
        "```\n\nSee `duocthu_assets/runtime/ingest.py` and `checks/nowhere.py`.\n\n## Next\n"
    )
    (tmp_path / "docs" / "architecture.md").write_text(architecture)
    (tmp_path / "docs" / "scale.md").write_text(
        "Read [the map](architecture.md#code-map), [gone](ui.md), [web](https://dagster.io), "
        "[the design](../../shared/DESIGN.md); `data/warehouse/tables/chunks/` is made by a run.\n"
    )
    (tmp_path / "README.md").write_text("Run `make run`; see `Makefile` and [docs](docs/scale.md).\n")
    assert map_paths(code_map(architecture)) == [
        "duocthu_assets/", "duocthu_assets/runtime/", "duocthu_assets/runtime/ingest.py",
        "duocthu_assets/runtime/event_log.py", "duocthu_assets/search.py",
    ]
    assert missing_paths(tmp_path, documents(tmp_path)) == [
        "README.md: Makefile",
        "docs/architecture.md: checks/nowhere.py",
        "docs/architecture.md: duocthu_assets/runtime/event_log.py",
        "docs/architecture.md: duocthu_assets/search.py",
        "docs/scale.md: docs/ui.md",
    ]
    assert unmapped_packages(tmp_path, architecture) == ["duocthu_assets/parse/"]
    with pytest.raises(AssertionError, match="no '## Code map' section"):
        code_map("# x\n\n## Design\n\n```\nduocthu_assets/\n```\n")
    with pytest.raises(AssertionError, match="no fenced map"):
        code_map("# x\n\n## Code map\n\nnone here\n\n## Next\n\n```\nduocthu_assets/\n```\n")
