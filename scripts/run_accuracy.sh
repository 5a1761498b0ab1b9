#!/usr/bin/env bash
# Usage: scripts/run_accuracy.sh CASE_JSON_FILE
#
# Serve one accuracy case with `python -m sglang.launch_server` (the case's
# server_args and env, nothing else), run its evaluator (lm-eval against the
# OpenAI completions endpoint, or SGLang's own sglang.test.few_shot_gsm8k)
# and write $RESULTS_DIR/<case id>.json. The launcher is generator/launch/
# (Python standard library only); see docs/launchers.md.
#
# Exit status: 0 score >= threshold; 1 score below threshold; 2 infrastructure
# failure (server never ready, evaluator crashed or gave no score, bad input);
# 128 + signal when cancelled.
set -euo pipefail
exec "${PYTHON:-python3}" -I "$(dirname -- "${BASH_SOURCE[0]}")/launch.py" accuracy "$@"
