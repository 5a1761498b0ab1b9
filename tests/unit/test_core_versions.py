"""generator.core.versions: the order of version texts and the commit a version names."""

from __future__ import annotations

from generator.core.versions import version_commit, version_key


def test_versions_order_numbers_as_numbers_and_pre_releases_below_the_release() -> None:
    shuffled = ["v0.5.10", "v0.5.9", "0.5.9rc1", "v0.5.8.post1", "v0.5.8", "0.5.9.dev3"]
    assert sorted(shuffled, key=version_key) == [
        "v0.5.8",
        "v0.5.8.post1",
        "0.5.9.dev3",
        "0.5.9rc1",
        "v0.5.9",
        "v0.5.10",
    ]
    assert version_key("v1.0") == version_key("1.0")


def test_a_version_names_its_commit_by_setuptools_scm_suffix_only() -> None:
    assert version_commit("0.5.7.dev12+g1a2b3c4") == "1a2b3c4"
    assert version_commit("0.5.7") is None
    assert version_commit(None) is None
