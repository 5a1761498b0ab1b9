"""`generator.expand.ids`: ids that name files, kept whole up to 120 characters, else their
start and a hash of all of them."""

from __future__ import annotations

import hashlib

from generator.expand.ids import MAX_ID_CHARS, bounded


def test_a_short_id_is_kept_and_two_long_ones_stay_apart() -> None:
    assert bounded("deepseek-r1-fp8-tp4") == "deepseek-r1-fp8-tp4"
    long_a, long_b = "x" * 200 + "a", "x" * 200 + "b"
    assert bounded(long_a) != bounded(long_b)
    assert {len(bounded(long_a)), len(bounded(long_b))} == {MAX_ID_CHARS}


def test_an_id_of_exactly_the_limit_is_kept_and_one_more_character_is_hashed() -> None:
    assert MAX_ID_CHARS == 120
    assert bounded("a" * 120) == "a" * 120
    digest = hashlib.sha256(("a" * 121).encode("utf-8")).hexdigest()[:12]
    assert bounded("a" * 121) == "a" * 107 + "-" + digest


def test_the_kept_start_loses_its_trailing_dashes_and_dots_before_the_hash() -> None:
    text = "a" * 105 + "-." + "b" * 20
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    assert bounded(text) == "a" * 105 + "-" + digest
    assert bounded(text) == bounded(text)  # the same id every time
