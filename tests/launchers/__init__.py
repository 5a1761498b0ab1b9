"""End-to-end tests of scripts/run_benchmark.sh and scripts/run_accuracy.sh."""
