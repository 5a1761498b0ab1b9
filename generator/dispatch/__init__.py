"""What a workflow run executes before a GPU job: the select step (steps.py, pr_select.py),
the files a pull request changed and the cases and jobs they touch (diff.py), and the
caller check of the reusable GPU workflows (verify.py; its commands are
generator/cli/verify_commands.py)."""
