"""The options the command groups share (generator/cli/options.py): an option given at
most once, one selection of group, cron or preset, the --policy option and the output as
JSON or text."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from generator.cli.options import (
    DIR,
    FILE,
    emit,
    image_option,
    one_selection,
    policy_option,
    selection_options,
    show,
    single,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import Invoke


@click.command()
@selection_options
@image_option
@single("--name", "chosen")
def selected(**values: str | None) -> None:
    """Each option's value, one `name=value` a line."""
    one_selection(values["group"], values["cron"], values["preset"])
    for key, value in sorted(values.items()):
        click.echo(f"{key}={value}")


def test_each_option_given_once_is_its_value_and_an_absent_one_none() -> None:
    result = CliRunner().invoke(selected, ["--suite", "oob", "--image", "x:1", "--name", "n"])
    assert (result.exit_code, result.output) == (
        0,
        "chosen=n\ncron=None\ngroup=None\nimage=x:1\nmode=None\npreset=None\nsuite=oob\n",
    )


def test_an_option_given_twice_names_both_values_and_exits_2() -> None:
    result = CliRunner().invoke(selected, ["--name", "a", "--name", "b"])
    assert result.exit_code == 2
    assert "Invalid value for '--name': given 2 times ('a', 'b'); give it once" in result.output


@pytest.mark.parametrize("option", ["--preset", "--suite", "--mode"])
def test_a_selection_option_given_twice_is_refused_not_overridden(cli: Invoke, option: str) -> None:
    result = cli("jobs", option, "all-qwen", option, "ds-all")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}': given 2 times ('all-qwen', 'ds-all'); give it once" in (
        result.stderr
    )


@pytest.mark.parametrize(
    "given",
    [
        {"group": "g", "cron": "0 1 * * *", "preset": None},
        {"group": "g", "cron": None, "preset": "p"},
        {"group": None, "cron": "0 1 * * *", "preset": "p"},
    ],
)
def test_two_of_group_cron_and_preset_are_a_usage_error(given: dict[str, str | None]) -> None:
    with pytest.raises(
        click.UsageError, match=r"^pass at most one of --group, --cron and --preset$"
    ):
        one_selection(**given)


def test_one_or_none_of_group_cron_and_preset_is_a_selection() -> None:
    one_selection(None, None, None)
    one_selection("g", None, None)
    one_selection(None, None, "p")


def test_usage_errors_exit_2(cli: Invoke) -> None:
    result = cli("cells", "--preset", "mtp", "--group", "mesh-all")
    assert result.exit_code == 2
    assert "pass at most one of --group, --cron and --preset" in result.stderr


def test_the_policy_option_is_a_file_path_whose_help_names_the_default(tmp_path: Path) -> None:
    @click.command()
    @policy_option("the catalog under --root")
    def cmd(policy_path: Path | None) -> None:
        click.echo(repr(policy_path))

    runner = CliRunner()
    assert runner.invoke(cmd, []).output == "None\n"
    given = tmp_path / "p.yaml"
    assert runner.invoke(cmd, ["--policy", str(given)]).output == f"{given!r}\n"
    refused = runner.invoke(cmd, ["--policy", str(tmp_path)])
    assert refused.exit_code == 2
    assert f"File '{tmp_path}' is a directory." in refused.output
    shown = " ".join(runner.invoke(cmd, ["--help"]).output.split())
    default = "(default: the catalog under --root)."
    assert f"--policy FILE A YAML/JSON file with the regression section {default}" in shown


def test_dir_refuses_a_file_and_gives_a_path(tmp_path: Path) -> None:
    @click.command()
    @click.option("--at", type=DIR)
    @click.option("--out", type=FILE)
    def cmd(at: Path | None, out: Path | None) -> None:
        click.echo(f"{type(at).__name__} {type(out).__name__}")

    (tmp_path / "f").write_text("")
    runner = CliRunner()
    assert runner.invoke(cmd, ["--at", str(tmp_path), "--out", "o"]).output == (
        "PosixPath PosixPath\n"
    )
    refused = runner.invoke(cmd, ["--at", str(tmp_path / "f")])
    assert refused.exit_code == 2
    assert f"Directory '{tmp_path / 'f'}' is a file." in refused.output


def test_show_writes_json_with_json_else_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    data = {"b": 1, "a": float("nan")}
    show(data, True, lambda _: "unused")
    assert capsys.readouterr().out == '{\n  "b": 1,\n  "a": null\n}\n'
    show(data, False, lambda d: f"{len(d)} keys")
    assert capsys.readouterr().out == "2 keys"  # the text's own newlines, none added


def test_emit_writes_the_one_json_encoding(capsys: pytest.CaptureFixture[str]) -> None:
    emit(["é", 1.5])
    assert capsys.readouterr().out == '[\n  "é",\n  1.5\n]\n'
