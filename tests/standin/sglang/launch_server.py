"""Stand-in for `python -m sglang.launch_server`.

Parses its arguments as the SGLang release it plays ($SGLANG_STANDIN_VERSION, else the
newest) does: that release's server flags from the tables scripts/flag_tables.py wrote
(generator/catalog/flagtables/; the newest release at or below the version, the oldest for
an older one), with argparse's default allow_abbrev=True, so a unique prefix of a flag is
that flag (`--hos 0.0.0.0` binds 0.0.0.0) and a prefix of several exits 2 as ambiguous, as
SGLang does; a flag the release retired and refuses (the tables' `refused`) exits 2. Any
argument no flag of the release takes is accepted and kept. It appends
{"argv", "env", "pid", "start"} as one JSON line to
$SGLANG_STANDIN_RECORD, starts one "scheduler" child process that stays in the
server's process group and outlives a crashed parent (as the real server's
subprocesses can), then serves on loopback:

  GET  /health /v1/models /get_model_info /model_info /server_info /get_server_info
  POST /flush_cache (GET too) /generate /v1/completions

A model given as a local path (--model-path, --speculative-draft-model-path) must be a
directory with a config.json, or the server exits 1 at start, as the real one fails to
load it.

/server_info and its older alias /get_server_info answer {"internal_states": [{...}],
"version": ...} as the real server does. With --speculative-algorithm,
internal_states[0]["avg_spec_accept_length"] is $SGLANG_STANDIN_ACCEPT_LENGTH (default
2.5) once a generation request that decodes (more than one output token) has been served
since the last POST /flush_cache, which resets it; absent before.
$SGLANG_STANDIN_ACCEPT_LENGTH=none never reports it.

$SGLANG_STANDIN_FAIL selects a failure mode:
  exit-at-start   exit 1 right after recording
  never-ready     serve, but /health answers 503 forever
  die-after:N     exit after answering N generation requests (/generate,
                  /v1/completions); any later generation request is dropped
  wedge-after:N   after answering N generation requests, hang on every later one and
                  answer /health with 503 (a server that is alive but no longer serves)
  slow-start:S    sleep S seconds before serving

$SGLANG_STANDIN_SLOWER='{"sha256:<digest>": N}' (or '{"sha256:<digest>": {"<model path>": N}}',
a build slower for one model) makes the server N percent slower when the
image it runs in (the `@sha256:` digest of $SGLANG_STANDIN_IMAGE, which the stand-in docker
sets) has that digest: it reports internal_states[0]["standin_slower_percent"] = N, which
the stand-in client applies to its timings (throughput x (1 - N/100), latencies / (1 -
N/100)), as a slower build would measure.

$SGLANG_STANDIN_NOISE='{"cv": C, "seed": S, "state": FILE}' adds a launch's own offset to that
percentage, as a real server's launches differ: drawn from a normal distribution of standard
deviation C (a fraction) by a generator seeded with S and the number of launches FILE has
counted (each start adds one), so a sequence of launches is the same on every run.

$SGLANG_STANDIN_IGNORE_TERM=<file>: the server and its scheduler ignore SIGTERM; the
server appends the time (time.time()) it got each one to <file>.
$SGLANG_STANDIN_SETSID selects descendants that leave the process group and linger
(comma-separated):
  child    a child that calls setsid
  daemon   a grandchild that calls setsid and whose parent exits at once (an orphan)
Each lingering process writes its pid to $SGLANG_STANDIN_PIDS.
$SGLANG_STANDIN_PRINT=<text> is printed to stdout at start, as it is (a log line can hold
anything, `::error::` included).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ._standin import note_pid, print_injected, version, version_tuple

TABLES = Path(__file__).resolve().parents[3] / "generator" / "catalog" / "flagtables"

SCHEDULER_CODE = """
import os, signal, time
if os.environ.get("SGLANG_STANDIN_IGNORE_TERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
path = os.environ.get("SGLANG_STANDIN_PIDS")
if path:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\\n")
while True:
    time.sleep(60)
"""
# A process that leaves the server's session and process group, then lingers.
LINGER_CODE = """
import os, time
os.setsid()
path = os.environ.get("SGLANG_STANDIN_PIDS")
if path:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\\n")
while True:
    time.sleep(60)
"""
# A parent that starts LINGER_CODE and exits at once, so its child is an orphan.
DAEMON_CODE = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", sys.argv[1]])
"""

GSM8K_ANSWER = " The answer is 42."
FILLER_ANSWER = " standin token"


def answer_for(prompt: str) -> str:
    return GSM8K_ANSWER if "Question:" in prompt or "Answer:" in prompt else FILLER_ANSWER


class StandinServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], model_path: str, fail: str, speculative: bool
    ) -> None:
        super().__init__(address, Handler)
        self.model_path = model_path
        self.never_ready = fail == "never-ready"
        self.die_after = int(fail.split(":", 1)[1]) if fail.startswith("die-after:") else None
        self.wedge_after = int(fail.split(":", 1)[1]) if fail.startswith("wedge-after:") else None
        self.generated = 0
        self.lock = threading.Lock()
        self.speculative = speculative
        self.decoded_since_flush = False
        self.noise = launch_noise()

    def wedged(self) -> bool:
        with self.lock:
            return self.wedge_after is not None and self.generated >= self.wedge_after

    def internal_state(self) -> dict[str, Any]:
        """internal_states[0] of /server_info: the server args' share the tests need, and
        the average acceptance length of a speculative server that has decoded."""
        state: dict[str, Any] = {"model_path": self.model_path, "last_gen_throughput": 0.0}
        slower = slower_percent(self.model_path) + self.noise
        if slower:
            state["standin_slower_percent"] = slower
        accept = os.environ.get("SGLANG_STANDIN_ACCEPT_LENGTH") or "2.5"
        if self.speculative and self.decoded_since_flush and accept != "none":
            state["avg_spec_accept_length"] = float(accept)
        return state


class Handler(BaseHTTPRequestHandler):
    server: StandinServer

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"[standin server] {format % args}\n")

    def send_json(self, status: int, body: object) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        body = json.loads(raw.decode("utf-8") or "{}")
        return body if isinstance(body, dict) else {}

    def do_GET(self) -> None:
        srv = self.server
        if self.path == "/health":
            self.send_json(503 if srv.never_ready or srv.wedged() else 200, {})
        elif self.path == "/v1/models":
            model = {"id": srv.model_path, "object": "model", "created": 0, "owned_by": "sglang"}
            self.send_json(200, {"object": "list", "data": [model]})
        elif self.path in ("/get_model_info", "/model_info"):
            self.send_json(
                200,
                {
                    "model_path": srv.model_path,
                    "tokenizer_path": srv.model_path,
                    "is_generation": True,
                },
            )
        elif self.path in ("/server_info", "/get_server_info"):
            with srv.lock:
                state = srv.internal_state()
            info = {"model_path": srv.model_path, "internal_states": [state], "version": version()}
            self.send_json(200, info)
        elif self.path == "/flush_cache":
            self.flush()
        else:
            self.send_json(404, {"error": f"no route {self.path}"})

    def flush(self) -> None:
        with self.server.lock:
            self.server.decoded_since_flush = False
        self.send_json(200, {"message": "Cache flushed."})

    def do_POST(self) -> None:
        if self.path == "/flush_cache":
            self.flush()
            return
        if self.path not in ("/generate", "/v1/completions"):
            self.send_json(404, {"error": f"no route {self.path}"})
            return
        srv = self.server
        with srv.lock:
            srv.generated += 1
            count = srv.generated
        if srv.die_after is not None and count > srv.die_after:
            os._exit(1)  # the process is already going down; drop this request
        if srv.wedge_after is not None and count > srv.wedge_after:
            while True:
                time.sleep(60)  # never answered
        body = self.read_json()
        if self.path == "/generate":
            params = body.get("sampling_params") or {}
            max_new = int(params.get("max_new_tokens") or 16)
            self.answer_generate(body)
        else:
            max_new = int(body.get("max_tokens") or 16)
            self.answer_completions(body)
        if max_new > 1:
            with srv.lock:
                srv.decoded_since_flush = True
        if srv.die_after is not None and count == srv.die_after:
            sys.stderr.write(f"[standin server] die-after:{srv.die_after} reached; exiting\n")
            sys.stderr.flush()
            os._exit(1)

    def answer_generate(self, body: dict[str, Any]) -> None:
        text = body.get("text", "")
        prompts = text if isinstance(text, list) else [text]
        params = body.get("sampling_params") or {}
        max_new = int(params.get("max_new_tokens") or 16)
        outputs = []
        for prompt in prompts:
            answer = answer_for(str(prompt))
            outputs.append(
                {
                    "text": answer,
                    "meta_info": {
                        "prompt_tokens": len(str(prompt).split()),
                        "completion_tokens": min(max_new, len(answer.split())),
                        "finish_reason": {"type": "stop"},
                    },
                }
            )
        self.send_json(200, outputs if isinstance(text, list) else outputs[0])

    def answer_completions(self, body: dict[str, Any]) -> None:
        prompt = body.get("prompt", "")
        prompts = prompt if isinstance(prompt, list) else [prompt]
        texts = [answer_for(str(p)) for p in prompts]
        choices = [
            {"index": i, "text": text, "logprobs": None, "finish_reason": "stop"}
            for i, text in enumerate(texts)
        ]
        prompt_tokens = sum(len(str(p).split()) for p in prompts)
        completion_tokens = sum(len(text.split()) for text in texts)
        self.send_json(
            200,
            {
                "id": "cmpl-standin",
                "object": "text_completion",
                "created": int(time.time()),
                "model": body.get("model", self.server.model_path),
                "choices": choices,
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )


def slower_percent(model_path: str) -> float:
    """How much slower this server is on the image it runs in ($SGLANG_STANDIN_SLOWER): a
    digest's number, or its {model path: number} (a build slower for one model only)."""
    table = json.loads(os.environ.get("SGLANG_STANDIN_SLOWER") or "{}")
    digest = (os.environ.get("SGLANG_STANDIN_IMAGE") or "").partition("@")[2]
    found = table.get(digest, 0.0) if digest else 0.0
    if isinstance(found, dict):
        # The key is the model's hub path; the server may have its local copy's path.
        mine = (v for k, v in found.items() if model_path == k or model_path.endswith("/" + k))
        found = next(mine, 0.0)
    return float(found)


def launch_noise() -> float:
    """This launch's offset in percent ($SGLANG_STANDIN_NOISE), 0 without it."""
    given = json.loads(os.environ.get("SGLANG_STANDIN_NOISE") or "{}")
    if not given:
        return 0.0
    state = Path(given["state"])
    with state.open("a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        launches = len(handle.read().split())
        handle.write(f"{os.getpid()}\n")
    draw = random.Random(f"{given['seed']}-{launches}").gauss(0.0, float(given["cv"]))
    return 100.0 * draw


def note_time(path: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{time.time()}\n")


def record(argv: list[str]) -> None:
    path = os.environ.get("SGLANG_STANDIN_RECORD")
    if path:
        line = {"argv": argv, "env": dict(os.environ), "pid": os.getpid(), "start": time.time()}
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def release_table(played: str) -> dict[str, Any]:
    """The server parser's table of the release the stand-in plays (the newest release at or
    below it, the oldest for an older one)."""
    listed = json.loads((TABLES / "index.json").read_text(encoding="utf-8"))["sglang"]["releases"]
    mine = version_tuple(played)
    chosen = listed[0]
    for release in listed:  # oldest first
        if version_tuple(release) <= mine:
            chosen = release
    table = json.loads((TABLES / f"sglang-{chosen}.json").read_text(encoding="utf-8"))
    server: dict[str, Any] = table["parsers"]["server"]
    return server


def release_actions(played: str) -> list[list[str]]:
    """The server flags of the release the stand-in plays: [nargs, dest, option, ...]."""
    actions: list[list[str]] = release_table(played)["actions"]
    return actions


class _Refused(argparse.Action):
    """A flag the release has retired and refuses (SGLang's DeprecatedAction with an error
    message): the parse stops with exit 2, as SGLang's does."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        _namespace: argparse.Namespace,
        _values: object,
        option_string: str | None = None,
    ) -> None:
        parser.error(f"{option_string} is no longer supported")


def server_parser(played: str) -> argparse.ArgumentParser:
    """SGLang's server parser as the tables record it (names, dests and value counts; the
    flags the release refuses refused)."""
    parser = argparse.ArgumentParser(prog="sglang serve", conflict_handler="resolve")
    retired = release_table(played).get("deprecated", {})
    for nargs, dest, *options in release_actions(played):
        named = dest or None  # None: argparse derives it, as SGLang's parser did
        if any(retired.get(o, {}).get("refused") for o in options):
            parser.add_argument(*options, action=_Refused, nargs=0, dest=named)
        elif nargs == "0":
            parser.add_argument(*options, action="store_true", dest=named)
        elif nargs == "1":
            parser.add_argument(*options, dest=named)
        else:
            count: str | int = int(nargs) if nargs.isdigit() else nargs
            parser.add_argument(*options, nargs=count, dest=named)
    return parser


def main() -> int:
    argv = sys.argv[1:]
    args, _kept = server_parser(version()).parse_known_args(argv)
    if args.model_path is None:
        print(
            "sglang serve: error: the following arguments are required: --model-path",
            file=sys.stderr,
        )
        return 2
    args.host = args.host or "127.0.0.1"
    args.port = int(args.port or 30000)
    note_pid()
    record(argv)
    print_injected()
    fail = os.environ.get("SGLANG_STANDIN_FAIL", "")
    if fail == "exit-at-start":
        print("standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)", flush=True)
        return 1
    for model in (args.model_path, args.speculative_draft_model_path):
        if model and model.startswith("/") and not Path(model, "config.json").is_file():
            print(f"standin: cannot load {model}: no config.json there", flush=True)
            return 1
    ignore_term = os.environ.get("SGLANG_STANDIN_IGNORE_TERM")
    if ignore_term:
        signal.signal(signal.SIGTERM, lambda _signum, _frame: note_time(ignore_term))
    if fail.startswith("slow-start:"):
        time.sleep(float(fail.split(":", 1)[1]))
    subprocess.Popen([sys.executable, "-c", SCHEDULER_CODE])
    setsid = (os.environ.get("SGLANG_STANDIN_SETSID") or "").split(",")
    if "child" in setsid:
        subprocess.Popen([sys.executable, "-c", LINGER_CODE])
    if "daemon" in setsid:
        subprocess.run([sys.executable, "-c", DAEMON_CODE, LINGER_CODE], check=True)
    speculative = args.speculative_algorithm is not None
    server = StandinServer((args.host, args.port), args.model_path, fail, speculative)
    print(f"standin: serving {args.model_path} on http://{args.host}:{args.port}", flush=True)
    print("The server is fired up and ready to roll!", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
