"""The report: what the results show people, above the store (generator/results), the
verdicts (generator/verdicts) and the A/B (generator/confirm), none of which imports it.

summarize and summary_markdown (the run summary) | compare_text (the verdicts as Markdown)
| eventlog (`results events`) | rundiff (`results diff`) | thresholds | dashboard (the
static plotly site: timeline, figures, site, index_page, config_page, regressions and the
modules of their parts, templates/*.html.j2), markdown (templates/*.md.j2), the `results`
commands' work (night_run, history_queries, printout). docs/results.md describes each.
"""
