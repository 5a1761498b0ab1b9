"""generator.catalog.server_types: a layout's GPUs and a flag's tokens."""

from __future__ import annotations

from generator.catalog.server_types import Flag, Parallel
from generator.errors import Loc


def test_dp_attention_places_the_dp_ranks_inside_the_tp_ones_and_plain_dp_beside_them() -> None:
    assert (Parallel(tp=8, dp=8).attention_dp, Parallel(tp=8, dp=8).gpus) == (True, 8)
    assert (Parallel(tp=2, dp=4, dp_attention=False).gpus, Parallel(tp=4).attention_dp) == (
        8,
        False,
    )


def test_a_flag_is_its_name_then_its_values() -> None:
    flag = Flag(name="--mem-fraction-static", values=("0.8",), loc=Loc("b.yaml", 3))
    assert flag.tokens() == ["--mem-fraction-static", "0.8"]
    assert Flag(name="--trust-remote-code", values=(), loc=Loc("b.yaml", 4)).tokens() == [
        "--trust-remote-code"
    ]
