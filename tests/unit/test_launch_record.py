"""generator.launch.record: a point's metrics from the client's result line."""

from __future__ import annotations

from generator.launch.record import acceptance_rate, point_metrics

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
