"""The generator refuses to write a revision-3 corpus that its adversaries beat or whose
conversation misses Appendix D's naturalness bounds (GENERATION.md v3), exactly as it refuses a
wrong gold. These tests drive the refusal from sidecar data, and run the real registry path with a
declaration that builds a beaten corpus."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_typedmemeval.corpus import naturalness
from pytest_typedmemeval.generate import registry
from pytest_typedmemeval.generate.primitives import GenerationError
from pytest_typedmemeval.generate.sidecar import release_problems


def _sidecar(*, status: str = "passed", refused: tuple[str, ...] = (),
             shares: dict[str, float | None] | None = None) -> dict[str, Any]:
    shares = shares or {name: 0.9 for name in naturalness.BOUNDS}
    return {"extra": {"adversaries": {"status": status, "refused": list(refused)},
                      "naturalness": {name: {"share": share} for name, share in shares.items()}}}


def test_a_clean_sidecar_may_be_written() -> None:
    assert release_problems(_sidecar()) == []


def test_a_revision_2_sidecar_has_nothing_to_release_against() -> None:
    assert release_problems({"extra": {}}) == []


def test_an_adversary_refusal_stops_the_write() -> None:
    problems = release_problems(_sidecar(status="refused", refused=("learned_gold_at_1: x",)))
    assert problems == ["adversaries: learned_gold_at_1: x"]


def test_an_adversary_skip_is_not_a_pass() -> None:
    assert release_problems(_sidecar(status="skipped")) == ["adversaries: skipped"]


@pytest.mark.parametrize("name", sorted(naturalness.BOUNDS))
def test_each_naturalness_bound_stops_the_write(name: str) -> None:
    shares: dict[str, float | None] = {other: 0.95 for other in naturalness.BOUNDS}
    shares[name] = naturalness.BOUNDS[name] - 0.01
    assert [p.split(" = ")[0] for p in release_problems(_sidecar(shares=shares))] == [
        f"naturalness: {name}"]
    shares[name] = None  # a share over nothing is not a pass either
    assert len(release_problems(_sidecar(shares=shares))) == 1


def test_generate_refuses_and_writes_nothing(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real ``generate`` path: a sidecar with problems raises and leaves the directory empty."""
    module = SimpleNamespace(SEED=1, SHAPES=("s",), GENERATOR="g", GENERATOR_VERSION="3",
                             REVISION=3, RECORDED_COMPETITION={"s": 0.5},
                             build=lambda seed, dial, shapes: SimpleNamespace(
                                 records=[], tally=SimpleNamespace(as_stats=lambda: {})))
    monkeypatch.setattr(registry, "generator_module", lambda vertical: module)
    monkeypatch.setattr(registry, "calibration_record", lambda module: None)
    monkeypatch.setattr(registry, "build_sidecar", lambda text, **kw: _sidecar(status="refused",
                                                                                 refused=("r",)))
    with pytest.raises(GenerationError, match=r"(?s)not written.*adversaries: r"):
        registry.generate("prospective", tmp_path)
    assert list(tmp_path.iterdir()) == []
