#!/usr/bin/env bash
# Usage: scripts/run_accuracy.sh CASE_JSON_FILE
#
# Serve one accuracy case with `python -m sglang.launch_server` (the case's
# server_args and env, nothing else), run its evaluator (lm-eval against the
# OpenAI completions endpoint, or SGLang's own sglang.test.few_shot_gsm8k)
# and write $RESULTS_DIR/<case id>.json. See docs/launchers.md.
#
# Exit status: 0 score >= threshold; 1 score below threshold; 2 infrastructure
# failure (server never ready, evaluator crashed or gave no score, bad input).
set -euo pipefail

# shellcheck source=lib/server.sh
source "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/lib/server.sh"

CASE=""
RESULT=""

# finish [ACCURACY-RESULT ARGS...]: write the result file and the summary, exit.
finish() {
  local status="" md="$L_TMP/summary.md"
  status=$(helper accuracy-result --case "$CASE" --out "$RESULT" --summary "$md" "$@") || true
  if [[ -f $md ]]; then
    cat -- "$md"
    append_summary "$md"
  fi
  case $status in
    passed) exit 0 ;;
    failed) exit 1 ;;
    *) exit 2 ;;
  esac
}

main() {
  [[ $# -eq 1 ]] || die_usage "usage: run_accuracy.sh CASE_JSON_FILE"
  CASE=$1
  [[ -f $CASE ]] || die_usage "case file not found: $CASE"
  lib_init
  srv_prepare case "$CASE"
  local case_id=$SRV_ID model=$SRV_MODEL kind=${SRV_META[0]}
  RESULT="$L_RESULTS/$case_id.json"
  log "case $case_id: evaluator $kind, threshold ${SRV_META[1]}"
  srv_print_command

  if ! srv_launch; then
    finish --error "server did not become ready: $SRV_FAIL_REASON"
  fi

  local eval_log="$L_LOGS/$case_id.eval.log" work_dir output_dir=""
  : >"$eval_log"
  local -a cmd=()
  case $kind in
    lm-eval)
      output_dir=$(mktemp -d "$L_LOGS/$case_id.lm_eval.XXXXXX")
      work_dir=$output_dir
      # SRV_META: kind threshold model task num_fewshot num_concurrent
      local model_args="base_url=http://$L_HOST:$L_PORT/v1/completions,model=$model"
      model_args+=",num_concurrent=${SRV_META[5]},max_retries=3,tokenized_requests=False"
      cmd=(lm_eval --model "${SRV_META[2]}" --model_args "$model_args"
        --tasks "${SRV_META[3]}" --num_fewshot "${SRV_META[4]}" --output_path "$output_dir")
      ;;
    sglang-few-shot-gsm8k)
      # few_shot_gsm8k dumps tmp_output_gsm8k.txt into its working directory.
      work_dir=$(mktemp -d "$L_LOGS/$case_id.few_shot.XXXXXX")
      # SRV_META: kind threshold num_shots num_questions parallel
      cmd=("$L_PY" -m sglang.test.few_shot_gsm8k --num-shots "${SRV_META[2]}"
        --num-questions "${SRV_META[3]}" --parallel "${SRV_META[4]}"
        --host "http://$L_HOST" --port "$L_PORT")
      ;;
    *)
      finish --error "unknown evaluator kind: $kind"
      ;;
  esac

  log "evaluator (in $work_dir): $(printf '%q ' "${cmd[@]}")"
  local started ended rc=0
  started=$(now_s)
  run_child_in "$work_dir" "$eval_log" "${cmd[@]}" || rc=$?
  ended=$(now_s)
  tail -n 80 -- "$eval_log" || true
  log "evaluator exited with status $rc after $(elapsed_s "$started" "$ended")s"
  srv_stop
  finish --log "$eval_log" --output-dir "$output_dir" --rc "$rc" \
    --started "$started" --ended "$ended" --server-start-s "$SRV_START_S"
}

main "$@"
