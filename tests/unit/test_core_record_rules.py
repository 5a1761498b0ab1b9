"""generator.core.record_rules: a point's metrics from the client's result line."""

from __future__ import annotations

import pytest

from generator.core.record_rules import acceptance_rate, error_line, line_problems, point_metrics

LINE = {
    "completed": 4,
    "duration": 2.0,
    "total_input_tokens": 4096,
    "total_output_tokens": 1024,
    "output_throughput": 512.0,
    "median_tpot_ms": 20.0,
}


def test_the_total_throughput_is_the_client_s_or_else_computed_from_its_totals() -> None:
    given = point_metrics({**LINE, "total_throughput": 2000.0}, 8, None, None)
    computed = point_metrics(LINE, 8, None, None)
    assert (given["total_token_throughput"], computed["total_token_throughput"]) == (2000.0, 2560.0)
    assert (computed["total_token_throughput_per_gpu"], computed["output_throughput_per_gpu"]) == (
        320.0,
        64.0,
    )
    assert (computed["interactivity"], computed["completed"], computed["duration_s"]) == (
        50.0,
        4,
        2.0,
    )


def test_the_acceptance_rate_is_accepted_draft_tokens_per_drafted_token() -> None:
    metrics = point_metrics(LINE, 8, 2.5, 3)
    assert (metrics["accept_length"], metrics["acceptance_rate"]) == (2.5, 0.5)
    assert (acceptance_rate(None, 3), acceptance_rate(2.5, None)) == (None, None)


def test_a_missing_line_gives_null_metrics() -> None:
    metrics = point_metrics(None, 8, None, None)
    assert {key for key, value in metrics.items() if value is not None} == set()


def test_negative_non_numeric_and_non_finite_values_are_null() -> None:
    line = {
        **LINE,
        "output_throughput": -5.0,
        "median_ttft_ms": "12.5",
        "mean_ttft_ms": float("nan"),
        "median_tpot_ms": 1e-320,  # 1000 / it overflows to infinity
        "completed": True,
        "total_throughput": 10**400,
    }
    metrics = point_metrics(line, 8, None, None)
    assert [metrics[k] for k in ("output_throughput", "median_ttft_ms", "mean_ttft_ms")] == [
        None,
        None,
        None,
    ]
    assert (metrics["interactivity"], metrics["completed"]) == (None, None)
    assert line_problems(line) == [
        "output_throughput -5.0 is negative",
        "median_ttft_ms '12.5' is not a number",
        "completed True is not a whole number",
    ]


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            (
                "sglang.bench_serving exited with status 1:\nTraceback (most recent call last):\n"
                '  File "/x.py", line 3, in <module>\n    main()\n'
                "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host\n"
                "  0%|          | 0/40 [00:00<?, ?it/s]\n"
            ),
            (
                "sglang.bench_serving exited with status 1: "
                "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host"
            ),
        ),
        (
            (
                "evaluator exited with status 2:\nusage: lm_eval [-h]\n"
                "lm_eval: error: unrecognized arguments: --x\n"
            ),
            "evaluator exited with status 2: lm_eval: error: unrecognized arguments: --x",
        ),
        (
            "x exited with status 1:\nstarting\nserving 40 prompts\n",
            "x exited with status 1: serving 40 prompts",
        ),
        ("cannot start sglang.bench_serving: [Errno 2] No such file", None),
        ("", None),
    ],
)
def test_an_error_is_one_line_with_the_tools_last_meaningful_line(
    error: str, line: str | None
) -> None:
    expected = line if line is not None else (error or None)
    assert error_line(error) == expected
