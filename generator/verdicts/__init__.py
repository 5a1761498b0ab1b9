"""Verdicts: a run judged against the history the store holds (compare), every server's
series replayed by one rule (judge, replay, noise), and a history judged again from
scratch (rejudge). Above generator/results; generator/confirm and generator/report use
it, and it imports neither (docs/results.md, "Verdicts")."""
