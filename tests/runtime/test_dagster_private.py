"""One door to Dagster's private API: ``duocthu_assets/runtime/dagster_private.py``
is the only module of the package and of checks/ that imports a ``dagster._…``
(or ``dagster_shared``) name, and the private members of Dagster's SQLite
event log that the custom one relies on still exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from duocthu_assets.runtime import dagster_private

from tests.support.paths import REPO

BOUNDARY = Path("duocthu_assets/runtime/dagster_private.py")
# tests, benches or scripts that still import a private name (each named,
# with its reason, in dagster_private's docstring): none
TESTS_WITH_PRIVATE_IMPORTS: set[Path] = set()


def _is_private_module(name: str | None) -> bool:
    return bool(name) and (name.startswith("dagster._") or name == "dagster_shared" or name.startswith("dagster_shared."))


def private_dagster_uses(source: str) -> list[str]:
    """Each line of ``source`` that imports (or reaches through ``dagster``)
    a private Dagster name: ``import dagster._x``, ``from dagster._x import``,
    ``from dagster import _x``, ``dagster._x`` / ``dg._x``, ``dagster_shared``."""
    tree = ast.parse(source)
    aliases = {"dagster"}
    uses: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "dagster":
                    aliases.add(alias.asname or "dagster")
                elif _is_private_module(alias.name):
                    uses.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if _is_private_module(node.module):
                uses.append((node.lineno, f"from {node.module} import ..."))
            elif node.module == "dagster":
                uses.extend((node.lineno, f"from dagster import {a.name}") for a in node.names if a.name.startswith("_"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in aliases):
            uses.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return [f"line {line}: {text}" for line, text in sorted(uses)]


def private_imports_under(root: Path, folders: tuple[str, ...]) -> dict[Path, list[str]]:
    found = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            uses = private_dagster_uses(path.read_text(encoding="utf-8"))
            if uses:
                found[path.relative_to(root)] = uses
    return found


def assert_only_the_boundary(found: dict[Path, list[str]], allowed: set[Path]) -> None:
    others = {path: uses for path, uses in found.items() if path not in allowed}
    assert not others, (
        f"only {BOUNDARY} may import Dagster's private API; import the name from there "
        "(with why and what public API would replace it) instead of in: "
        + "; ".join(f"{path} ({', '.join(uses)})" for path, uses in others.items())
    )


def test_only_the_boundary_imports_dagsters_private_api():
    found = private_imports_under(REPO, ("duocthu_assets", "checks"))
    assert BOUNDARY in found  # the scan sees the imports that are there
    assert_only_the_boundary(found, {BOUNDARY})


def test_tests_import_private_names_only_where_listed():
    found = private_imports_under(REPO, ("tests", "bench", "scripts", "eval"))
    assert_only_the_boundary(found, TESTS_WITH_PRIVATE_IMPORTS)
    for path in TESTS_WITH_PRIVATE_IMPORTS:
        assert path.name in dagster_private.__doc__, f"{path} imports a private name: say why in dagster_private's docstring"


def test_a_planted_private_import_fails_naming_its_file(tmp_path: Path):
    package = tmp_path / "duocthu_assets" / "parse"
    package.mkdir(parents=True)
    (tmp_path / "checks").mkdir()
    (package / "clean.py").write_text("import dagster as dg\nfrom dagster import AssetKey\nx = dg.AssetKey('a')\n")
    (package / "planted.py").write_text(
        "import dagster as dg\n"
        "from dagster._core.events import DagsterEventType\n"
        "import dagster._core.storage as storage\n"
        "from dagster import _check\n"
        "from dagster_shared.serdes import serialize_value\n"
        "reach = dg._core\n"
    )
    (tmp_path / "checks" / "sneaky.py").write_text("def f():\n    from dagster._core.instance import DagsterInstance\n")
    found = private_imports_under(tmp_path, ("duocthu_assets", "checks"))
    assert set(found) == {Path("duocthu_assets/parse/planted.py"), Path("checks/sneaky.py")}
    assert len(found[Path("duocthu_assets/parse/planted.py")]) == 5
    with pytest.raises(AssertionError) as failure:
        assert_only_the_boundary(found, {BOUNDARY})
    message = str(failure.value)
    assert "duocthu_assets/parse/planted.py (line 2: from dagster._core.events import ..." in message
    assert "checks/sneaky.py (line 2: from dagster._core.instance import ...)" in message
    assert "line 6: dg._core" in message


def test_every_private_member_the_event_log_relies_on_is_listed_and_still_there(tmp_path: Path):
    stock = dagster_private.SqliteEventLogStorage(str(tmp_path / "runs"))
    try:
        missing = [name for name in dagster_private.SQLITE_EVENT_LOG_PRIVATE_MEMBERS if not hasattr(stock, name)]
        assert not missing, f"Dagster's SqliteEventLogStorage no longer has {missing}: runtime/event_log.py relies on them"
        source = (REPO / "duocthu_assets/runtime/event_log.py").read_text(encoding="utf-8")
        used = set(re.findall(r"(?:self|super\(\)|storage)\.(_[a-z]\w*)", source)) | set(re.findall(r"def (_[a-z]\w*)", source))
        inherited = {name for name in used if hasattr(stock, name)}
        unlisted = inherited - set(dagster_private.SQLITE_EVENT_LOG_PRIVATE_MEMBERS)
        assert not unlisted, f"runtime/event_log.py relies on {sorted(unlisted)} of Dagster's class: list them in dagster_private"
    finally:
        stock.dispose()
