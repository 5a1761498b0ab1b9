"""A/B confirmation of suspected regressions, bisection, tracking issues
(docs/confirmation.md). The runner side, standard library only, lives in
generator/launch/ (ab_order.py, ab_verdict.py, abjob.py, confirm_job.py, turns.py)."""
