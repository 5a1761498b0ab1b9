#!/usr/bin/env bash
# Usage: scripts/run_benchmark.sh JOB_JSON_FILE
#
# Resolve the job's models in $MODEL_CACHE (downloading a missing one once),
# check the GPUs, serve the job with `python -m sglang.launch_server` (the job's
# server_args and env, nothing else), sweep its points with the job's declared
# client (SGLang's `python -m sglang.bench_serving`), each within its timeout,
# and write one record per point to $RESULTS_DIR/<point id>.json. The launcher
# is generator/launch/ (Python standard library only); see docs/launchers.md
# and docs/reliability.md.
#
# Exit status: 0 every point ok and valid; 1 at least one point failed, timed
# out, hit a dead server or is invalid (unfinished requests, a missing metric);
# 2 bad input, a failed GPU check or download, a server that never became
# ready or another server on the port, or records that could not be written
# to $RESULTS_DIR; 128 + signal when cancelled (the unfinished points recorded
# as cancelled).
set -euo pipefail
exec "${PYTHON:-python3}" -I "$(dirname -- "${BASH_SOURCE[0]}")/launch.py" benchmark "$@"
