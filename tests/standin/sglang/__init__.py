"""Stand-in for the `sglang` package: just enough of its CLI surface for launcher tests.

Nothing here touches a GPU. Every module talks real HTTP on 127.0.0.1.
"""
