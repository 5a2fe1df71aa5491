"""A second opinion on a parsed PDF, for ``checks/`` and ``bench/``: table
rows left out of a lifted block, prose taken into one, flattened math, code
listings and figure labels read as printed, glyphs lost. The reader never
imports it, so the audit cannot share the reader's mistakes by
construction."""
