# shellcheck shell=bash
# Shared SGLang server lifecycle for scripts/run_benchmark.sh and
# scripts/run_accuracy.sh. Source it after `set -euo pipefail`; never execute it.
#
# The server is started as `python -m sglang.launch_server` in its own session
# and process group (setsid). An EXIT/INT/TERM trap stops that group (SIGTERM,
# SERVER_STOP_GRACE_S seconds of grace, then SIGKILL) and the group of any
# running client, whether the server ever started or not.
#
# Knobs (read once, never exported or modified, so the server inherits the
# caller's environment untouched): PYTHON, SGLANG_PORT, READY_TIMEOUT_S,
# READY_POLL_S, SERVER_STOP_GRACE_S, RESULTS_DIR, LOG_DIR.

LAUNCHER_LIB_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
L_PY="${PYTHON:-python3}"
L_HELPER=("$L_PY" -I -S "$LAUNCHER_LIB_DIR/launcher.py")
L_PORT="${SGLANG_PORT:-30000}"
L_HOST="127.0.0.1"
L_READY_TIMEOUT="${READY_TIMEOUT_S:-3600}"
L_READY_POLL="${READY_POLL_S:-5}"
L_GRACE="${SERVER_STOP_GRACE_S:-30}"
L_RESULTS="${RESULTS_DIR:-results}"
L_LOGS="${LOG_DIR:-$L_RESULTS/logs}"

SRV_ID=""         # job or case id
SRV_MODEL=""      # model_path
SRV_META=()       # kind-specific fields from `launcher.py describe`
SRV_CMD=()        # argv handed to exec (python -m sglang.launch_server ...)
SRV_ENV=()        # K=V entries added on top of the inherited environment
SRV_LOG=""        # server stdout+stderr, appended across restarts
SRV_PID=""        # pid == process-group id of the running server
SRV_STARTS=0      # how many times the server was launched
SRV_START_S=""    # seconds from launch to ready, for the current server
SRV_FAIL_REASON=""
CHILD_PID=""      # pid == process-group id of the running client, if any
L_TMP=""          # private scratch directory, removed on exit
L_SLEEP_FD=""     # fd that never becomes readable: `read -t` sleeps without a process

log() {
  printf '[launcher %s] %s\n' "$(date -u +%H:%M:%S)" "$*"
}

die_usage() {
  printf '%s\n' "$*" >&2
  exit 2
}

is_uint() {
  [[ $1 =~ ^[0-9]+$ ]]
}

is_udecimal() {
  [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]
}

# pause_s SECONDS: sleep in-process (interruptible by trapped signals, no child).
pause_s() {
  local _ignored
  read -r -t "$1" -u "$L_SLEEP_FD" _ignored || true
}

# Wall-clock time in integer microseconds, locale independent.
now_us() {
  local us
  if [[ -n ${EPOCHREALTIME:-} ]]; then
    us=${EPOCHREALTIME//[!0-9]/}
  else
    us=$(date +%s%6N)
  fi
  printf '%d' "$((10#$us))"
}

# Wall-clock seconds with microseconds, locale independent.
now_s() {
  local us
  us=$(now_us)
  printf '%d.%06d' "$((us / 1000000))" "$((us % 1000000))"
}

# Seconds between two now_s stamps, three decimals.
elapsed_s() {
  local a=${1//[!0-9]/} b=${2//[!0-9]/}
  local d=$((10#$b - 10#$a))
  printf '%d.%03d' "$((d / 1000000))" "$(((d % 1000000) / 1000))"
}

lib_init() {
  is_uint "$L_PORT" || die_usage "SGLANG_PORT must be an integer, got '$L_PORT'"
  is_uint "$L_READY_TIMEOUT" || die_usage "READY_TIMEOUT_S must be an integer, got '$L_READY_TIMEOUT'"
  is_udecimal "$L_READY_POLL" || die_usage "READY_POLL_S must be a number, got '$L_READY_POLL'"
  is_uint "$L_GRACE" || die_usage "SERVER_STOP_GRACE_S must be an integer, got '$L_GRACE'"
  command -v curl >/dev/null || die_usage "curl is required"
  command -v setsid >/dev/null || die_usage "setsid (util-linux) is required"
  mkdir -p -- "$L_RESULTS" "$L_LOGS"
  # Absolute, because evaluators run in their own working directories.
  L_RESULTS=$(cd -- "$L_RESULTS" && pwd)
  L_LOGS=$(cd -- "$L_LOGS" && pwd)
  L_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sglang-launcher.XXXXXX")
  exec {L_SLEEP_FD}<> <(:)
  trap on_exit EXIT
  trap 'on_signal INT 2' INT
  trap 'on_signal TERM 15' TERM
}

helper() {
  "${L_HELPER[@]}" "$@"
}

# tokens_into ARRAY SUBCOMMAND ARGS...: fill ARRAY with the NUL-terminated
# tokens the helper prints. Never word-split, never glob, never eval'd.
tokens_into() {
  local -n _tokens_out=$1
  shift
  local file="$L_TMP/tokens"
  helper "$@" >"$file"
  mapfile -d '' -t _tokens_out <"$file"
}

# srv_prepare job|case FILE: validate FILE and build SRV_CMD and SRV_ENV from
# it; sets SRV_ID, SRV_MODEL and SRV_META (see `launcher.py describe`).
srv_prepare() {
  local -a t=()
  tokens_into t describe "$1" "$2"
  SRV_ID=${t[0]}
  SRV_MODEL=${t[1]}
  local i=2 n
  n=${t[i]}
  # shellcheck disable=SC2034 # SRV_META is read by the scripts sourcing this file
  SRV_META=("${t[@]:i+1:n}")
  i=$((i + 1 + n))
  n=${t[i]}
  local -a args=("${t[@]:i+1:n}")
  i=$((i + 1 + n))
  n=${t[i]}
  SRV_ENV=("${t[@]:i+1:n}")
  SRV_CMD=("$L_PY" -m sglang.launch_server --model-path "$SRV_MODEL"
    --host "$L_HOST" --port "$L_PORT" "${args[@]}")
  SRV_LOG="$L_LOGS/$SRV_ID.server.log"
  : >"$SRV_LOG"
}

srv_print_command() {
  log "server environment additions and command:"
  helper quote "${#SRV_ENV[@]}" "${SRV_ENV[@]}" "${SRV_CMD[@]}"
}

# True while the server process exists and is not a zombie awaiting reaping.
srv_alive() {
  if [[ -z $SRV_PID ]] || ! kill -0 "$SRV_PID" 2>/dev/null; then
    return 1
  fi
  local stat=""
  if [[ -r /proc/$SRV_PID/stat ]]; then
    stat=$(<"/proc/$SRV_PID/stat") || stat=""
  fi
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}

# Reap a server that exited on its own, log its exit status, and stop what is
# left of its process group (e.g. orphaned scheduler processes).
srv_reap() {
  if [[ -n $SRV_PID ]] && ! srv_alive; then
    local rc=0
    wait "$SRV_PID" 2>/dev/null || rc=$?
    log "server pid $SRV_PID exited with status $rc"
    srv_stop
  fi
}

srv_tail() {
  local lines=${1:-200}
  printf '===== last %s lines of %s =====\n' "$lines" "$SRV_LOG"
  tail -n "$lines" -- "$SRV_LOG" || true
  printf '===== end of server log =====\n'
}

# True while process group PGID has a member that is not a zombie. Orphaned
# zombies wait for PID 1 to reap them and must not stall the shutdown.
group_alive() {
  local pgid=$1 f line state pgrp _ppid _rest
  kill -0 -- "-$pgid" 2>/dev/null || return 1
  [[ -r /proc/self/stat ]] || return 0
  for f in /proc/[0-9]*/stat; do
    line=""
    { read -r line <"$f"; } 2>/dev/null || continue
    read -r state _ppid pgrp _rest <<<"${line##*) }"
    if [[ $pgrp == "$pgid" && $state != Z && $state != X ]]; then
      return 0
    fi
  done
  return 1
}

# Stop every process of group PGID: SIGTERM, grace, SIGKILL; then reap PGID.
stop_group() {
  local pgid=$1 what=$2
  if group_alive "$pgid"; then
    log "stopping $what (process group $pgid): SIGTERM, ${L_GRACE}s grace"
    kill -TERM -- "-$pgid" 2>/dev/null || true
    local deadline=$(($(now_us) + L_GRACE * 1000000))
    while group_alive "$pgid"; do
      if (($(now_us) >= deadline)); then
        log "$what still running after ${L_GRACE}s: SIGKILL"
        kill -KILL -- "-$pgid" 2>/dev/null || true
        break
      fi
      pause_s 0.1
    done
  fi
  wait "$pgid" 2>/dev/null || true
}

srv_stop() {
  if [[ -n $SRV_PID ]]; then
    stop_group "$SRV_PID" "sglang server"
    SRV_PID=""
  fi
}

srv_start() {
  SRV_STARTS=$((SRV_STARTS + 1))
  SRV_START_S=""
  printf '===== server start #%d at %s =====\n' "$SRV_STARTS" "$(date -u +%FT%TZ)" >>"$SRV_LOG"
  # No job control in this shell, so setsid execs in place: $! is both the
  # server pid and its process-group id.
  setsid env -- "${SRV_ENV[@]}" "${SRV_CMD[@]}" >>"$SRV_LOG" 2>&1 </dev/null {L_SLEEP_FD}<&- &
  SRV_PID=$!
  log "server start #$SRV_STARTS: pid $SRV_PID, log $SRV_LOG"
}

# Poll /health then /v1/models until both answer 200, the process exits, or
# READY_TIMEOUT_S elapses. Sets SRV_START_S or SRV_FAIL_REASON.
srv_wait_ready() {
  local t0=$1 base="http://$L_HOST:$L_PORT" stage=health
  local deadline=$(($(now_us) + L_READY_TIMEOUT * 1000000))
  while :; do
    if ! srv_alive; then
      local rc=0
      wait "$SRV_PID" 2>/dev/null || rc=$?
      SRV_FAIL_REASON="server process exited with status $rc before becoming ready"
      return 1
    fi
    if [[ $stage == health ]] && curl -fs -o /dev/null --max-time 5 "$base/health"; then
      stage=models
    fi
    if [[ $stage == models ]] && curl -fs -o /dev/null --max-time 5 "$base/v1/models"; then
      SRV_START_S=$(elapsed_s "$t0" "$(now_s)")
      log "server ready after ${SRV_START_S}s"
      return 0
    fi
    if (($(now_us) >= deadline)); then
      SRV_FAIL_REASON="server not ready after READY_TIMEOUT_S=${L_READY_TIMEOUT}s (last stage: /$stage)"
      return 1
    fi
    pause_s "$L_READY_POLL"
  done
}

# Launch the server and wait for it; on failure print the log tail, stop
# whatever is left and return 1 with SRV_FAIL_REASON set.
srv_launch() {
  if curl -s -o /dev/null --max-time 2 "http://$L_HOST:$L_PORT/health"; then
    SRV_FAIL_REASON="port $L_PORT already answers HTTP before the server was started"
    log "$SRV_FAIL_REASON"
    return 1
  fi
  local t0
  t0=$(now_s)
  srv_start
  if srv_wait_ready "$t0"; then
    return 0
  fi
  log "server failed to become ready: $SRV_FAIL_REASON"
  srv_tail 200
  srv_stop
  return 1
}

# run_child LOG CMD...: run a client in its own process group so a cancelled
# job can stop it with its descendants; returns its exit status.
run_child() {
  run_child_in . "$@"
}

# run_child_in DIR LOG CMD...: same, with DIR as the working directory.
run_child_in() {
  local dir=$1 out=$2
  shift 2
  (cd -- "$dir" && exec setsid "$@") >>"$out" 2>&1 </dev/null {L_SLEEP_FD}<&- &
  CHILD_PID=$!
  local rc=0
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=""
  return "$rc"
}

cleanup() {
  if [[ -n $CHILD_PID ]]; then
    stop_group "$CHILD_PID" "client"
    CHILD_PID=""
  fi
  srv_stop
  if [[ -n $L_TMP ]]; then
    rm -rf -- "$L_TMP"
    L_TMP=""
  fi
}

on_exit() {
  local rc=$?
  trap - EXIT
  trap '' INT TERM
  cleanup
  exit "$rc"
}

on_signal() {
  local name=$1 num=$2
  trap - EXIT
  trap '' INT TERM
  log "received SIG$name: stopping"
  cleanup
  exit $((128 + num))
}

# append_summary TEXT-FILE: append to the GitHub step summary when there is one.
append_summary() {
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    cat -- "$1" >>"$GITHUB_STEP_SUMMARY" || log "warning: cannot append to GITHUB_STEP_SUMMARY"
  fi
}
