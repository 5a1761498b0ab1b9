"""The click layer: options parsed, the stages called. sglang_ci.py is the root command."""
