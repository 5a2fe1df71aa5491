"""The tests' own shape: they sit in folders that mirror the package, each
folder a package (so two ``test_units.py`` in different folders do not
clash), and no test module imports another test module or a conftest. A
helper two test files need lives in tests/support/; a conftest holds only
fixtures, which pytest finds without an import."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"


def _is_forbidden(dotted: str) -> bool:
    """A name in the tests package (or a bare top-level one, as when tests/
    is on sys.path) that is a test module or a conftest."""
    parts = dotted.split(".")
    if parts[0] == "tests":
        parts = parts[1:]
    elif not (parts[0].startswith("test_") or parts[0] == "conftest"):
        return False  # another package's module, e.g. dagster._core.test_utils
    return any(p.startswith("test_") or p == "conftest" for p in parts)


def forbidden_imports(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, dotted name) of each test module or conftest that ``source``
    imports, at any depth (inside functions too); ``module`` is the dotted
    name of the file holding ``source``, to resolve relative imports."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            stem = ".".join(base + ([node.module] if node.module else []))
            names = [stem] + [f"{stem}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [(node.lineno, name) for name in names if _is_forbidden(name)]
    return sorted(set(found))


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def test_no_test_module_imports_another_test_module_or_a_conftest():
    offences = []
    for path in sorted(TESTS.rglob("*.py")):
        module, is_package = _module_name(path)
        for line, name in forbidden_imports(path.read_text(encoding="utf-8"), module, is_package):
            offences.append(f"{path.relative_to(REPO)}:{line}: imports {name}")
    assert not offences, "move what they share into tests/support/ (fixtures into a conftest.py):\n" + "\n".join(offences)


def test_an_import_of_a_test_module_or_a_conftest_is_named():
    source = (
        "from tests.support.docgen import make_docx\n"  # allowed: the shared builders
        "from dagster._core.test_utils import instance_for_test\n"  # allowed: not ours
        "from .test_office_docx import build_docx\n"
        "from tests.conftest import CORPUS\n"
        "import tests.parse.pdf.test_units\n"
        "from .. import conftest\n"
        "from . import test_office_sheets, helpers\n"
        "def f():\n"
        "    from ...e2e.test_backbone import tree_digest  # inside a function too\n"
        "import conftest\n"
    )
    assert forbidden_imports(source, "tests.parse.office.test_docx_revisions") == [
        (3, "tests.parse.office.test_office_docx"),
        (3, "tests.parse.office.test_office_docx.build_docx"),
        (4, "tests.conftest"),
        (4, "tests.conftest.CORPUS"),
        (5, "tests.parse.pdf.test_units"),
        (6, "tests.parse.conftest"),
        (7, "tests.parse.office.test_office_sheets"),
        (9, "tests.e2e.test_backbone"),
        (9, "tests.e2e.test_backbone.tree_digest"),
        (10, "conftest"),
    ]
    assert forbidden_imports("from . import helpers\n", "tests.hostile", is_package=True) == []
    assert forbidden_imports("from .test_catalog import CASES\n", "tests.hostile", is_package=True) == [
        (1, "tests.hostile.test_catalog"), (1, "tests.hostile.test_catalog.CASES"),
    ]


def test_every_test_module_sits_in_a_folder_that_is_a_package():
    """No test module at the top of tests/ (each in the folder of the code it
    tests), and an ``__init__.py`` in every folder holding Python files."""
    at_top = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert at_top == [], f"test modules at the top of tests/, not in the folder of what they test: {at_top}"
    folders = {p.parent for p in TESTS.rglob("*.py")}
    missing = sorted(str(f.relative_to(REPO)) for f in folders if not (f / "__init__.py").is_file())
    assert missing == [], f"folders of tests without an __init__.py (same-named modules would clash): {missing}"
