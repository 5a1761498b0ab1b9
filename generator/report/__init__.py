"""The report: what the results show people, above the store (generator/results), the
verdicts (generator/verdicts) and the A/B (generator/confirm), none of which imports it.

summarize (the run summary) | compare_text (the verdicts as Markdown) | eventlog
(`results events`) | rundiff (`results diff`) | thresholds | report (the static plotly
site: timeline, figures, site, regressions, templates/), the `results` commands' work
(night_run, history_queries, printout). docs/results.md describes each.
"""
