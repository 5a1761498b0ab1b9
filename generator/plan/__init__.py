"""Stage `plan`: what a selection, a cron group or the week costs (week.py, text.py), what
a change adds to the week (change.py), the A/B confirmation's bound and expected cost
(budget.py), and the coverage counts the rendered docs show (coverage.py)."""
