"""Issue 15's stress layouts (scripts/make_stress_pdfs.py), loaded once as
the module ``stress``: ``stress.build(name)`` gives a case's PDF bytes and
what a correct parse must find."""

from __future__ import annotations

import importlib.util
import sys

from tests.support.paths import REPO

_spec = importlib.util.spec_from_file_location("make_stress_pdfs", REPO / "scripts" / "make_stress_pdfs.py")
stress = importlib.util.module_from_spec(_spec)
sys.modules["make_stress_pdfs"] = stress  # its dataclasses look their module up
_spec.loader.exec_module(stress)
