"""A/B confirmation of suspected regressions, bisection, tracking issues
(docs/confirmation.md). The runner side, standard library only, lives in
generator/launch/ (ab.py, abjob.py, confirm.py, turns.py)."""
