"""The pipeline's value classes: quick_init builds them faster and keeps every dataclass promise."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from portkit.model import Finding, Occurrence, ParsedFile, Position, Role, Span, quick_init


def test_quick_init_keeps_defaults_order_equality_hash_and_pickling() -> None:
    a = Occurrence(Span(3, 9), Role.CALL, "cudaMalloc", Position(1, 4))
    assert (a.function, a.detail, a.parts, a.info, a.clang) == ("", "", (), None, None)
    assert a == Occurrence(Span(3, 9), Role.CALL, "cudaMalloc", Position(1, 4)) and hash(a) == hash(dataclasses.replace(a))
    assert Span(1, 2) < Span(1, 3) < Span(2, 0)
    assert pickle.loads(pickle.dumps(a)) == a
    finding = Finding("a.cu", Position(2, 1), "PK100", "cudaMalloc", "m")
    assert (finding.span, finding.fix, finding.engine, finding.shadowable) == (Span(0, 0), None, "tree-sitter", False)
    assert dataclasses.replace(finding, hip="hipMalloc").hip == "hipMalloc"


def test_quick_init_instances_stay_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Span(0, 1).start = 5  # type: ignore[misc]


def test_quick_init_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass(frozen=True)
    class Listed:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="plain defaults only"):
        quick_init(Listed)


def test_occurrences_of_roles_keep_file_order() -> None:
    def at(start: int, role: Role, text: str) -> Occurrence:
        return Occurrence(Span(start, start + 1), role, text, Position(1, start + 1))

    occurrences = (at(0, Role.KERNEL, "k"), at(2, Role.CALL, "f"), at(4, Role.DEVICE_FUNCTION, "d"),
                   at(6, Role.CALL, "g"), at(8, Role.KERNEL, "k2"))
    parsed = ParsedFile("a.cu", occurrences, frozenset(), frozenset(), 1)
    assert [o.text for o in parsed.of(Role.CALL)] == ["f", "g"]
    assert [o.text for o in parsed.of(Role.KERNEL, Role.DEVICE_FUNCTION)] == ["k", "d", "k2"]
    assert [o.text for o in parsed.of(Role.DEVICE_FUNCTION, Role.KERNEL)] == ["k", "d", "k2"]
    assert parsed.of(Role.LAUNCH) == ()
    assert parsed.device_functions == {"k", "d", "k2"}
