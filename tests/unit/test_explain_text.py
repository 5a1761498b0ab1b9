"""generator.explain_text: shell words, literal text quoted and the launcher's variables
left for the shell to fill in."""

from __future__ import annotations

from generator.explain_text import WHERE, line, quote


def test_literal_text_is_quoted_and_a_variable_is_left_to_the_shell() -> None:
    assert quote("plain") == "plain"
    assert quote("two words") == "'two words'"
    assert quote(WHERE.python) == '"${PYTHON}"'
    assert quote(f"{WHERE.logs}/server log.txt") == "\"${LOG_DIR}\"'/server log.txt'"


def test_a_line_is_its_words_each_quoted() -> None:
    assert line([WHERE.python, "-m", "sglang.launch_server", "--model", "a b"]) == (
        "\"${PYTHON}\" -m sglang.launch_server --model 'a b'"
    )
