"""The core every floor may import, standard library only: the job and case contract and
its checks, the command lines, the record rules, the A/B statistics, the exits and the
one-line text of errors. The runner side (generator/launch) and the generator both use
it, so that `sglang-ci explain` prints exactly what the launcher executes."""
