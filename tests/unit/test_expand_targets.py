"""generator.expand.targets: the index from every id a user can name to what it names."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_the_index_names_each_kind_an_id_can_be(fixture: Expanded) -> None:
    kinds = [t.kind for t in fixture.index["deepseek-r1-fp8-tp4"]]
    assert kinds == ["config", "job", "case", "preset"]
    assert [t.kind for t in fixture.index["mesh-all"]] == ["group"]
    assert [t.kind for t in fixture.index["all"]] == ["preset"]  # ds-all's alias
    assert [t.kind for t in fixture.index["DeepSeek-R1-MXFP4 TP4 MTP"]] == ["case"]
    assert [t.kind for t in fixture.index["deepseek-r1-fp8-tp4-1024-1024-4-0.8"]] == ["cell"]
