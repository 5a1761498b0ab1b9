#!/usr/bin/env bash
# Usage: scripts/run_benchmark.sh JOB_JSON_FILE
#
# Serve one benchmark job with `python -m sglang.launch_server` (the job's
# server_args and env, nothing else), sweep its points with SGLang's own
# `python -m sglang.bench_serving`, and write one result per point to
# $RESULTS_DIR/<point id>.json. The launcher is generator/launch/ (Python
# standard library only); see docs/launchers.md.
#
# Exit status: 0 every point ok; 1 at least one point failed or hit a dead
# server; 2 the server never became ready, or the job file or a knob is
# invalid; 128 + signal when cancelled.
set -euo pipefail
exec "${PYTHON:-python3}" -I "$(dirname -- "${BASH_SOURCE[0]}")/launch.py" benchmark "$@"
