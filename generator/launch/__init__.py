"""The launcher side of sglang-ci: standard library only.

It runs inside the job's container on the image's own `python3`, where nothing but the
standard library is installed; the generator imports the same modules (`commands`,
`contract`) so that `sglang-ci explain` prints exactly what the launcher executes.
"""
