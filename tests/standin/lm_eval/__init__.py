"""Stand-in for the `lm_eval` package (EleutherAI lm-evaluation-harness) CLI."""
