"""Stage `plan`: what a selection, a cron group or the week costs (week.py; as text:
text.py, week_text.py), what a change adds to the week (change.py, change_text.py), the A/B
confirmation's bound and expected cost (budget.py), and the coverage counts the rendered
docs show (coverage.py, coverage_markdown.py); columns.py shows the numbers."""
