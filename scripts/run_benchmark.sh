#!/usr/bin/env bash
# Usage: scripts/run_benchmark.sh JOB_JSON_FILE
#
# Serve one benchmark job with `python -m sglang.launch_server` (the job's
# server_args and env, nothing else), sweep its points with SGLang's own
# `python -m sglang.bench_serving`, and write one normalized result per point
# to $RESULTS_DIR/<point id>.json. See docs/launchers.md.
#
# Exit status: 0 every point ok; 1 at least one point failed or hit a dead
# server; 2 the server never became ready, or the job file is invalid.
set -euo pipefail

# shellcheck source=lib/server.sh
source "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/lib/server.sh"

L_MAX_RESTARTS="${MAX_SERVER_RESTARTS:-1}"
JOB=""
POINTS=0
POINT_FIELDS=() # 7 tokens per point, see `launcher.py points`
POINT_STATUS=""

# record_point INDEX STATUS ERROR: write a result for a point that did not run.
record_point() {
  local index=$1 status=$2 error=$3
  local point_id=${POINT_FIELDS[index * 7]}
  helper bench-result --job "$JOB" --index "$index" --status "$status" --error "$error" \
    --out "$L_RESULTS/$point_id.json" >/dev/null
  log "point $point_id: $status ($error)"
}

# run_point INDEX: run sglang.bench_serving for one point; sets POINT_STATUS.
run_point() {
  local index=$1
  local -a f=("${POINT_FIELDS[@]:index * 7:7}")
  local point_id=${f[0]}
  local raw="$L_LOGS/$point_id.bench.jsonl" out_log="$L_LOGS/$point_id.bench.log"
  rm -f -- "$raw"
  : >"$out_log"
  local -a cmd=("$L_PY" -m sglang.bench_serving --backend sglang
    --host "$L_HOST" --port "$L_PORT" --dataset-name random
    --random-input-len "${f[1]}" --random-output-len "${f[2]}" --random-range-ratio "${f[6]}"
    --num-prompts "${f[4]}" --warmup-requests "${f[5]}" --max-concurrency "${f[3]}"
    --request-rate inf --output-file "$raw")
  log "point $((index + 1))/$POINTS $point_id: $(printf '%q ' "${cmd[@]}")"
  local started ended rc=0
  started=$(now_s)
  run_child "$out_log" "${cmd[@]}" || rc=$?
  ended=$(now_s)
  tail -n 60 -- "$out_log" || true
  local -a dead=()
  if ! srv_alive; then
    dead=(--server-dead)
  fi
  POINT_STATUS=$(helper bench-result --job "$JOB" --index "$index" \
    --out "$L_RESULTS/$point_id.json" --raw "$raw" --log "$out_log" --rc "$rc" \
    --started "$started" --ended "$ended" --server-start-s "$SRV_START_S" "${dead[@]}")
  log "point $point_id: $POINT_STATUS (bench_serving exit $rc, $(elapsed_s "$started" "$ended")s)"
}

flush_cache() {
  if ! curl -fsS -X POST --max-time 120 -o /dev/null "http://$L_HOST:$L_PORT/flush_cache"; then
    log "warning: POST /flush_cache failed; continuing"
  fi
}

write_summary() {
  local md="$L_TMP/summary.md"
  helper bench-summary --job "$JOB" --results-dir "$L_RESULTS" --starts "$SRV_STARTS" >"$md"
  cat -- "$md"
  append_summary "$md"
}

main() {
  [[ $# -eq 1 ]] || die_usage "usage: run_benchmark.sh JOB_JSON_FILE"
  JOB=$1
  [[ -f $JOB ]] || die_usage "job file not found: $JOB"
  is_uint "$L_MAX_RESTARTS" || die_usage "MAX_SERVER_RESTARTS must be an integer"
  lib_init
  srv_prepare job "$JOB"
  POINTS=${SRV_META[0]}
  tokens_into POINT_FIELDS points "$JOB"
  log "job $SRV_ID: $POINTS point(s); results in $L_RESULTS, logs in $L_LOGS"
  srv_print_command

  local index
  if ! srv_launch; then
    for ((index = 0; index < POINTS; index++)); do
      record_point "$index" failed "server did not become ready: $SRV_FAIL_REASON"
    done
    write_summary
    exit 2
  fi

  local restarts=0 served=0 failures=0
  for ((index = 0; index < POINTS; index++)); do
    if ! srv_alive; then
      srv_reap
      if ((restarts >= L_MAX_RESTARTS)); then
        record_point "$index" server-died \
          "server not running; restart budget exhausted (MAX_SERVER_RESTARTS=$L_MAX_RESTARTS)"
        failures=$((failures + 1))
        continue
      fi
      restarts=$((restarts + 1))
      log "server is gone: restart $restarts of $L_MAX_RESTARTS"
      if ! srv_launch; then
        record_point "$index" server-died "server restart failed: $SRV_FAIL_REASON"
        failures=$((failures + 1))
        continue
      fi
      served=0
    fi
    if ((served > 0)); then
      flush_cache
    fi
    run_point "$index"
    served=$((served + 1))
    if [[ $POINT_STATUS != ok ]]; then
      failures=$((failures + 1))
    fi
  done

  write_summary
  log "$((POINTS - failures)) of $POINTS point(s) ok; server starts: $SRV_STARTS"
  if ((failures > 0)); then
    exit 1
  fi
  exit 0
}

main "$@"
