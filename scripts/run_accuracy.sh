#!/usr/bin/env bash
# Usage: scripts/run_accuracy.sh CASE_JSON_FILE
#
# Resolve the case's models in $MODEL_CACHE (downloading a missing one once),
# check the GPUs, serve the case with `python -m sglang.launch_server` (the
# case's server_args and env, nothing else), run its evaluator (lm-eval against
# the OpenAI completions endpoint, or SGLang's own few-shot GSM8K through
# scripts/few_shot_gsm8k.py) within its time limit, and write
# $RESULTS_DIR/<case id>.json. The launcher is generator/launch/ (Python
# standard library only); see docs/launchers.md and docs/reliability.md.
#
# Exit status: 0 passed; 1 score (or acceptance rate) below its threshold;
# 2 error or timeout (bad input, GPU check, download, server never ready or
# not ours, server died during the evaluation, evaluator crashed, ran out of
# time or gave no usable score, record not writable to $RESULTS_DIR);
# 128 + signal when cancelled (the case recorded as cancelled).
set -euo pipefail
exec "${PYTHON:-python3}" -I "$(dirname -- "${BASH_SOURCE[0]}")/launch.py" accuracy "$@"
