"""Step 3: tables and two-dimensional formulas lifted out of the prose,
whole, so none is ever flattened into running text. Every finder returns a
:class:`.candidates.BlockCandidate`; :mod:`.find` runs the rule-bound ones in
order."""
