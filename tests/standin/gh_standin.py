"""Stand-in for the GitHub CLI (`gh`): the issue and label commands the tracking issues
use, on a repository kept in a JSON file, every call recorded. Standard library only.

Commands and flags as the real CLI has them (gh's manual): `-R/--repo` on each;

  issue list   [-s/--state open|closed|all] [-l/--label L]... [-L/--limit N] [--json FIELDS]
  issue create -t/--title T (-b/--body B | -F/--body-file F) [-l/--label L]...
  issue comment {<number> | <url>} (-b/--body B | -F/--body-file F)
  issue close  {<number> | <url>} [-c/--comment C] [-r/--reason completed|"not planned"]
  issue reopen {<number> | <url>} [-c/--comment C]
  issue view   {<number> | <url>} --json FIELDS
  issue edit   {<number> | <url>} [--add-label L]... [--remove-label L]...
  label create NAME [-c/--color C] [-d/--description D] [-f/--force]
  api [-H/--header H]... [--paginate] [-q/--jq EXPR] [-X/--method GET] ENDPOINT

`api` answers a GET of ENDPOINT with the JSON the state file keeps under `api[ENDPOINT]`,
else from what it holds: `repos/OWNER/REPO` (its "repo" entry: full_name, default_branch),
`repos/OWNER/REPO/pulls/N` ("pulls"), `repos/OWNER/REPO/actions/runs/ID/attempts/N/jobs`
({"total_count", "jobs"} from "runs"), `repos/OWNER/REPO/issues/N/events` (the issue's
label events as the REST API lists them: event, label, actor, created_at); anything else
is `gh: Not Found (HTTP 404)`, exit 1, as the real CLI prints it. `--jq` filters the
answer with jq (gh embeds gojq): strings raw, other values as compact JSON, one a line, as
gh prints them.

`--json` prints the fields asked for (number, title, body, state as OPEN/CLOSED, labels as
[{"name"}], url, author, comments); `issue list` lists newest first, at most
`--limit` (30 by default, as the real CLI) issues. `create` prints the new issue's URL,
`comment` the comment's. A label that does not exist makes `create` fail as the real CLI
does; an unknown flag exits 1 with `unknown flag: --x`. Without GH_TOKEN (or GITHUB_TOKEN)
every command fails with exit 4, as an unauthenticated CLI does.

Who calls: $GH_STANDIN_ACTOR, `app/NAME` for a GitHub App's bot (the default,
`app/github-actions`: the workflow's GITHUB_TOKEN), else a user's login. Each issue, comment
and label event keeps its author, and prints it as gh does: an issue's `author` is
{"is_bot": true, "login": "app/NAME"} for a bot, {"is_bot": false, "login", "id", "name"}
for a user; a comment's is {"login"} (a bot by its bare name), with its `authorAssociation`
(OWNER for the repository's owner, COLLABORATOR for a login in the state's
"collaborators", else NONE), `createdAt` and `viewerDidAuthor` (the caller wrote it). A
comment kept as a bare string in the state file is the default bot's. What a call writes
is dated $GH_STANDIN_NOW when set (ISO 8601), else now.

$GH_STANDIN_STATE is the repository's JSON file (created when missing); $GH_STANDIN_RECORD
gets one JSON line per call: {"command": "issue create", "argv": [...], "repo": ...}.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SHORT = {
    "-R": "--repo",
    "-s": "--state",
    "-l": "--label",
    "-L": "--limit",
    "-t": "--title",
    "-b": "--body",
    "-F": "--body-file",
    "-c": "--comment",
    "-r": "--reason",
    "-d": "--description",
    "-f": "--force",
}
VALUES = {
    "issue list": {"--repo", "--state", "--label", "--limit", "--json", "--search"},
    "issue create": {"--repo", "--title", "--body", "--body-file", "--label"},
    "issue comment": {"--repo", "--body", "--body-file"},
    "issue close": {"--repo", "--comment", "--reason"},
    "issue reopen": {"--repo", "--comment"},
    "issue view": {"--repo", "--json"},
    "issue edit": {"--repo", "--add-label", "--remove-label"},
    "label create": {"--repo", "--color", "--description"},
}
FLAGS = {"label create": {"--force"}}
MULTI = {"--label", "--add-label", "--remove-label"}
BOT = "app/github-actions"


class Failure(Exception):
    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def parse(command: str, args: list[str]) -> tuple[dict[str, Any], list[str]]:
    options: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            i += 1
            continue
        key, eq, value = arg.partition("=")
        key = SHORT.get(key, key)
        if key in FLAGS.get(command, set()):
            options[key] = True
            i += 1
            continue
        if key not in VALUES[command]:
            msg = f"unknown flag: {key}\n\nUsage:  gh {command} [flags]"
            raise Failure(msg)
        if not eq:
            if i + 1 >= len(args):
                msg = f"flag needs an argument: {key}"
                raise Failure(msg)
            value, i = args[i + 1], i + 2
        else:
            i += 1
        if key in MULTI:
            options.setdefault(key, []).extend(v for v in value.split(",") if v)
        else:
            options[key] = value
    return options, positional


def load_state() -> tuple[Path, dict[str, Any]]:
    path = Path(os.environ["GH_STANDIN_STATE"])
    data = json.loads(path.read_text("utf-8")) if path.exists() else {}
    data.setdefault("issues", [])
    data.setdefault("labels", [])
    return path, data


def save_state(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), "utf-8")
    tmp.replace(path)


def body_of(options: dict[str, Any]) -> str:
    if "--body-file" in options:
        name = options["--body-file"]
        return sys.stdin.read() if name == "-" else Path(name).read_text("utf-8")
    if "--body" in options:
        return str(options["--body"])
    msg = "`--body` or `--body-file` required when not running interactively"
    raise Failure(msg)


def actor() -> str:
    return os.environ.get("GH_STANDIN_ACTOR") or BOT


def now() -> str:
    """The time of what the call writes: $GH_STANDIN_NOW when set, else the clock."""
    return os.environ.get("GH_STANDIN_NOW") or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def issue_author(login: str) -> dict[str, Any]:
    if login.startswith("app/"):
        return {"is_bot": True, "login": login}
    return {"is_bot": False, "login": login, "id": f"U_{login}", "name": ""}


def association(data: dict[str, Any], repo: str, login: str) -> str:
    if login == repo.partition("/")[0]:
        return "OWNER"
    return "COLLABORATOR" if login in data.get("collaborators", []) else "NONE"


def comment(data: dict[str, Any], repo: str, item: Any) -> dict[str, Any]:  # noqa: ANN401
    """A comment as `--json comments` prints it (a bare string: the default bot's)."""
    c = {"body": item, "author": BOT, "createdAt": None} if isinstance(item, str) else item
    login = str(c["author"])
    return {
        "author": {"login": login.removeprefix("app/")},
        "authorAssociation": association(data, repo, login),
        "body": c["body"],
        "createdAt": c.get("createdAt"),
        "viewerDidAuthor": login == actor(),
    }


def new_comment(body: str) -> dict[str, Any]:
    return {"body": body, "author": actor(), "createdAt": now()}


def url(repo: str, number: int) -> str:
    return f"https://github.com/{repo}/issues/{number}"


def find(data: dict[str, Any], ref: list[str]) -> dict[str, Any]:
    if len(ref) != 1:
        raise Failure("accepts 1 arg(s), received " + str(len(ref)))
    text = ref[0].rsplit("/", 1)[-1]
    issue: dict[str, Any]
    for issue in data["issues"]:
        if str(issue["number"]) == text:
            return issue
    msg = f"GraphQL: Could not resolve to an issue or pull request with the number of {text}."
    raise Failure(msg)


def fields(data: dict[str, Any], issue: dict[str, Any], repo: str, names: str) -> dict[str, Any]:
    full = {
        "number": issue["number"],
        "title": issue["title"],
        "body": issue["body"],
        "state": issue["state"],
        "labels": [{"name": n} for n in issue["labels"]],
        "url": url(repo, issue["number"]),
        "author": issue_author(str(issue.get("author") or BOT)),
        "createdAt": issue.get("createdAt"),
        "comments": [comment(data, repo, c) for c in issue["comments"]],
    }
    return {n: full[n] for n in names.split(",")}


def run(command: str, args: list[str]) -> str:
    options, positional = parse(command, args)
    repo = options.get("--repo") or os.environ.get("GH_REPO") or ""
    if not repo:
        msg = "no repository: pass --repo OWNER/REPO"
        raise Failure(msg)
    path, data = load_state()
    out = ""
    if command == "issue list":
        state = options.get("--state", "open")
        labels = set(options.get("--label", []))
        chosen = [
            i
            for i in sorted(data["issues"], key=lambda i: -i["number"])
            if (state == "all" or i["state"] == state.upper()) and labels <= set(i["labels"])
        ][: int(options.get("--limit", 30))]
        if "--json" in options:
            out = json.dumps([fields(data, i, repo, options["--json"]) for i in chosen])
        else:
            out = "\n".join(f"{i['number']}\t{i['state']}\t{i['title']}" for i in chosen)
    elif command == "issue create":
        if "--title" not in options:
            msg = "must provide `--title` and `--body` when not running interactively"
            raise Failure(msg)
        for label in options.get("--label", []):
            if label not in data["labels"]:
                msg = f"could not add label: '{label}' not found"
                raise Failure(msg)
        number = 1 + max((i["number"] for i in data["issues"]), default=0)
        data["issues"].append(
            {
                "number": number,
                "title": options["--title"],
                "body": body_of(options),
                "state": "OPEN",
                "labels": options.get("--label", []),
                "author": actor(),
                "createdAt": now(),
                "comments": [],
                "events": [],
            }
        )
        out = url(repo, number)
    elif command == "issue comment":
        issue = find(data, positional)
        issue["comments"].append(new_comment(body_of(options)))
        out = f"{url(repo, issue['number'])}#issuecomment-{len(issue['comments'])}"
    elif command in ("issue close", "issue reopen"):
        issue = find(data, positional)
        if "--comment" in options:
            issue["comments"].append(new_comment(options["--comment"]))
        issue["state"] = "CLOSED" if command == "issue close" else "OPEN"
        verb = "Closed" if command == "issue close" else "Reopened"
        out = f"✓ {verb} issue {repo}#{issue['number']} ({issue['title']})"
    elif command == "issue view":
        issue = find(data, positional)
        out = json.dumps(fields(data, issue, repo, options.get("--json", "number,title,body")))
    elif command == "issue edit":
        issue = find(data, positional)
        for label in options.get("--add-label", []):
            if label not in data["labels"]:
                msg = f"'{label}' not found"
                raise Failure(msg)
            if label not in issue["labels"]:
                issue["labels"].append(label)
                issue.setdefault("events", []).append(label_event("labeled", label))
        for label in options.get("--remove-label", []):
            if label in issue["labels"]:
                issue["labels"].remove(label)
                issue.setdefault("events", []).append(label_event("unlabeled", label))
        out = url(repo, issue["number"])
    elif command == "label create":
        if len(positional) != 1:
            raise Failure("accepts 1 arg(s), received " + str(len(positional)))
        if positional[0] in data["labels"] and not options.get("--force"):
            msg = f'label with name "{positional[0]}" already exists; use `--force`'
            raise Failure(msg)
        if positional[0] not in data["labels"]:
            data["labels"].append(positional[0])
        out = f'✓ Label "{positional[0]}" created in {repo}'
    save_state(path, data)
    return out


def label_event(kind: str, label: str) -> dict[str, Any]:
    """A label event as the REST API lists it (a bot's login as `NAME[bot]`)."""
    login = actor()
    shown = f"{login.removeprefix('app/')}[bot]" if login.startswith("app/") else login
    return {"event": kind, "label": {"name": label}, "actor": {"login": shown},
            "created_at": now()}  # fmt: skip


API_VALUES = {"-H": "--header", "--header": "--header", "-q": "--jq", "--jq": "--jq",
              "-X": "--method", "--method": "--method"}  # fmt: skip


def _answer(data: dict[str, Any], endpoint: str) -> Any:  # noqa: ANN401 (any JSON)
    """What the state file says a GET of `endpoint` answers, or None (404)."""
    if endpoint in data.get("api", {}):
        return data["api"][endpoint]
    parts = endpoint.lstrip("/").split("/")
    repo = data.get("repo") or {}
    # A state without a "repo" entry is the repository of whichever --repo names it.
    name = repo.get("full_name", "/".join(parts[1:3]))
    if len(parts) < 3 or parts[0] != "repos" or "/".join(parts[1:3]) != name:
        return None
    rest = parts[3:]
    if not rest:
        return repo or None
    if len(rest) == 2 and rest[0] == "pulls":
        return data.get("pulls", {}).get(rest[1])
    if len(rest) == 3 and rest[0] == "issues" and rest[2] == "events":
        found = [i for i in data.get("issues", []) if str(i["number"]) == rest[1]]
        return found[0].get("events", []) if found else None
    if len(rest) == 6 and rest[:2] == ["actions", "runs"] and rest[3::2] == ["attempts", "jobs"]:
        jobs = data.get("runs", {}).get(rest[2], {}).get(rest[4])
        return None if jobs is None else {"total_count": len(jobs), "jobs": jobs}
    return None


def api(args: list[str]) -> int:
    """`gh api ENDPOINT` for the GET requests listed above."""
    options: dict[str, str] = {}
    endpoints: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in API_VALUES and i + 1 < len(args):
            options[API_VALUES[arg]] = args[i + 1]
            i += 2
        elif arg == "--paginate":
            i += 1
        elif arg.startswith("-"):
            print(f"unknown flag: {arg}", file=sys.stderr)
            return 1
        else:
            endpoints.append(arg)
            i += 1
    if len(endpoints) != 1:
        print(f"accepts 1 arg(s), received {len(endpoints)}", file=sys.stderr)
        return 1
    _, data = load_state()
    answer = _answer(data, endpoints[0])
    if options.get("--method", "GET").upper() != "GET" or answer is None:
        print("gh: Not Found (HTTP 404)", file=sys.stderr)
        return 1
    text = json.dumps(answer)
    if "--jq" in options:
        done = subprocess.run(
            ["jq", "-r", "-c", options["--jq"]],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            print(done.stderr.strip(), file=sys.stderr)
            return 1
        sys.stdout.write(done.stdout)
        return 0
    print(text)
    return 0


def main() -> int:
    args = sys.argv[1:]
    command = "api" if args[:1] == ["api"] else " ".join(args[:2])
    line = {"command": command, "argv": args}
    record = os.environ.get("GH_STANDIN_RECORD")
    if record:
        with open(record, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
    if command == "api":
        if not (os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")):
            print("To get started with GitHub CLI, please run:  gh auth login", file=sys.stderr)
            return 4
        return api(args[1:])
    if command not in VALUES:
        print(f'unknown command "{" ".join(args[:2])}" for "gh"', file=sys.stderr)
        return 1
    if not (os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")):
        print("To get started with GitHub CLI, please run:  gh auth login", file=sys.stderr)
        return 4
    try:
        out = run(command, args[2:])
    except Failure as exc:
        print(str(exc), file=sys.stderr)
        return exc.code
    if out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
