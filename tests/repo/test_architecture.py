"""The shape of the code (docs/architecture.md): no import circle between
modules (imports inside functions count), the import contracts of
``.importlinter`` kept, no module over 500 lines."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from tests.support.paths import REPO

PACKAGES = ("duocthu_assets", "checks")
MAX_LINES = 500


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan's
    algorithm, iterative), each sorted; imports inside functions count, as
    grimp reads every import statement of a module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


def long_modules(root: Path, limit: int = MAX_LINES) -> list[str]:
    """Python modules under ``root`` longer than ``limit`` lines."""
    return sorted(
        f"{p.relative_to(root.parent).as_posix()}: {n} lines"
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    )


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert import_cycles(graph) == []


def test_the_cycle_finder_names_a_circle(tmp_path, monkeypatch):
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def f():\n    from .c import g  # inside a function: it counts\n")
    (package / "c.py").write_text("from .a import x\n")
    (package / "d.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circled", cache_dir=None)
    assert import_cycles(graph) == [["circled.a", "circled.b", "circled.c"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_500_lines(package):
    assert long_modules(REPO / package) == []


def test_a_long_module_is_named(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * 500)
    assert long_modules(tmp_path / "pkg") == ["pkg/long.py: 501 lines"]


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    return subprocess.run([exe, "--no-cache"], cwd=cwd, capture_output=True, text=True)


def test_the_import_contracts_are_kept():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_broken_layer_is_reported(tmp_path):
    """The same kind of contract as the PDF reader's steps, broken on purpose."""
    package = tmp_path / "steps"
    for sub in ("read", "blocks"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "read" / "page.py").write_text("from ..blocks.grids import find\n")  # a lower step importing a higher
    (package / "blocks" / "grids.py").write_text("def find():\n    return []\n")
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = steps\n\n[importlinter:contract:steps]\nname = steps\ntype = layers\n"
        "containers =\n    steps\nlayers =\n    blocks\n    read\n"
    )
    done = lint_imports(tmp_path)
    assert done.returncode == 1
    assert "steps.read.page -> steps.blocks.grids" in done.stdout
