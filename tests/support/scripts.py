"""The repository's generator scripts (scripts/*.py), benches (bench/*.py)
and gold checkers (eval/*/check_questions.py) loaded as modules, for the
tests that check what they make."""

from __future__ import annotations

import importlib.util
import sys

from tests.support.paths import REPO


def load_script(name: str):
    """``scripts/<name>.py`` executed as the module ``name`` (registered in
    ``sys.modules``, where its dataclasses look their module up; scripts/
    on the path, for the siblings it imports)."""
    return _load("scripts", name)


def load_bench(name: str):
    """``bench/<name>.py`` executed as the module ``name``, as :func:`load_script`."""
    return _load("bench", name)


def load_checker(folder: str):
    """``eval/<folder>/check_questions.py`` as a private module: every gold
    set's checker has that file name, so none is registered in
    ``sys.modules`` and each call gives a fresh copy."""
    spec = importlib.util.spec_from_file_location(f"{folder}_check_questions", REPO / "eval" / folder / "check_questions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load(folder: str, name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(REPO / folder))
    spec.loader.exec_module(module)
    return module
