"""The runner side of sglang-ci, standard library only: it runs inside the job's container
on the image's own `python3`, where nothing but the standard library is installed, and
imports only generator/core besides (no other package imports it)."""
