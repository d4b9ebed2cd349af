"""A model-free gate's verdict is replayed from pytest's cache only when nothing it reads changed."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from pytest_typedmemeval.gates import replay

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "corpus" / "typedmemeval-fixture-arithmetic-v0.json"
SIDECAR = CORPUS.with_name(CORPUS.stem + ".sidecar.json")
GATES = "tme_gate_structure or tme_gate_leaks or tme_gate_separability"


def _project(pytester: pytest.Pytester) -> None:
    shutil.copy(CORPUS, pytester.path / CORPUS.name)
    shutil.copy(SIDECAR, pytester.path / SIDECAR.name)


def _run(pytester: pytest.Pytester, *extra: str) -> dict[str, tuple[str, bool]]:
    """Gate -> (outcome, replayed) from a junit XML report of one gate run."""
    pytester.runpytest(f"--tme-corpus={CORPUS.name}", "--tme-gates", "-m", GATES, "--junitxml=gates.xml", *extra)
    outcomes: dict[str, tuple[str, bool]] = {}
    for case in ElementTree.parse(pytester.path / "gates.xml").iter("testcase"):
        gate = case.get("name", "").split("[")[-1].rstrip("]")
        outcome = "failed" if case.find("failure") is not None else (
            "skipped" if case.find("skipped") is not None else "passed")
        replayed = any(prop.get("name") == "typedmemeval_gate_replayed" for prop in case.iter("property"))
        outcomes[gate] = (outcome, replayed)
    return outcomes


def test_a_second_run_replays_every_verdict_and_cache_clear_recomputes(pytester: pytest.Pytester) -> None:
    _project(pytester)
    first = _run(pytester)
    assert first and not any(replayed for _, replayed in first.values())
    second = _run(pytester)
    assert {gate: outcome for gate, (outcome, _) in second.items()} == {
        gate: outcome for gate, (outcome, _) in first.items()}
    assert all(replayed for _, replayed in second.values())
    assert not any(replayed for _, replayed in _run(pytester, "--cache-clear").values())
    assert not any(replayed for _, replayed in _run(pytester, "-p", "no:cacheprovider").values())


def test_an_edited_sidecar_or_corpus_is_judged_again(pytester: pytest.Pytester) -> None:
    _project(pytester)
    _run(pytester)
    sidecar = pytester.path / SIDECAR.name
    sidecar.write_text(sidecar.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert not any(replayed for _, replayed in _run(pytester).values())


def test_the_key_names_gate_corpus_sidecar_probe_requirement_and_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TYPEDMEMEVAL_DENSE", raising=False)
    corpus = tmp_path / CORPUS.name
    shutil.copy(CORPUS, corpus)
    base = replay.replay_key("leaks", "a" * 64, corpus, require_probes=False)
    assert base == replay.replay_key("leaks", "a" * 64, corpus, require_probes=False)
    assert base != replay.replay_key("structure", "a" * 64, corpus, require_probes=False)
    assert base != replay.replay_key("leaks", "b" * 64, corpus, require_probes=False)
    assert base != replay.replay_key("leaks", "a" * 64, corpus, require_probes=True)
    shutil.copy(SIDECAR, tmp_path / SIDECAR.name)
    with_sidecar = replay.replay_key("leaks", "a" * 64, corpus, require_probes=False)
    assert base != with_sidecar
    monkeypatch.setenv("TYPEDMEMEVAL_DENSE", "0")
    assert with_sidecar != replay.replay_key("leaks", "a" * 64, corpus, require_probes=False)


def test_the_dense_switch_is_a_typedmemeval_setting() -> None:
    from pytest_typedmemeval.gates import model_backed_arms

    assert model_backed_arms.DENSE_ENV.startswith("TYPEDMEMEVAL_")


def test_an_entry_under_another_key_or_damaged_is_not_replayed() -> None:
    class Cache(dict):  # type: ignore[type-arg]
        def set(self, key: str, value: object) -> None:
            self[key] = value

    cache = Cache()
    replay.store(cache, "c", "leaks", "k1", "passed", "leaks passed for c")
    assert replay.replayed(cache, "c", "leaks", "k1") == ("passed", "leaks passed for c")
    assert replay.replayed(cache, "c", "leaks", "k2") is None
    cache["typedmemeval/gate-verdicts/c/leaks"] = {"key": "k1", "status": "maybe", "summary": "?"}
    assert replay.replayed(cache, "c", "leaks", "k1") is None


def test_a_gate_that_raised_is_never_stored(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(pytester)
    pytester.makeconftest('''
import pytest
from pytest_typedmemeval.gates import leaks

@pytest.fixture(autouse=True)
def broken_leaks(monkeypatch):
    def raising(*args, **kwargs):
        raise OSError("disk went away")
    monkeypatch.setattr(leaks, "check", raising)
''')
    first = _run(pytester)
    assert first["leaks"] == ("failed", False)
    assert _run(pytester)["leaks"] == ("failed", False)
