"""The stress layouts of scripts/make_stress_pdfs.py, loaded once as the
module ``stress``: ``stress.build(name)`` gives a case's PDF bytes and what
a correct parse must find."""

from __future__ import annotations

from tests.support.scripts import load_script

stress = load_script("make_stress_pdfs")
