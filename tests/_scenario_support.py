"""Helpers for the scenario benchmark tests: mutate the shipped corpus, build toy adapters."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_typedmemeval.scenarios import ProbeReply, RecallTrace, RecalledMemory, shipped_scenarios_path

Mutation = Callable[[dict[str, Any]], None]


def shipped_raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(shipped_scenarios_path().read_text(encoding="utf-8"))
    return data


def write_mutated(tmp_path: Path, mutate: Mutation) -> Path:
    data = copy.deepcopy(shipped_raw())
    mutate(data)
    path = tmp_path / "scenarios-defect.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def scenario(data: dict[str, Any], scenario_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in data["scenarios"] if s["id"] == scenario_id)
    return found


def probe(data: dict[str, Any], scenario_id: str, probe_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in scenario(data, scenario_id)["probes"] if p["id"] == probe_id)
    return found


def belief(data: dict[str, Any], scenario_id: str, label: str) -> dict[str, Any]:
    found: dict[str, Any] = next(b for b in scenario(data, scenario_id)["beliefs"] if b["label"] == label)
    return found


class TextOnlyMemory:
    """The bare protocol: stores messages, answers with text, reports nothing optional."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add_message(self, session_id: str, text: str, *, at: datetime, scope: str) -> None:
        self.texts.append(text)

    def form(self, session_id: str, *, at: datetime, scope: str) -> None:
        pass

    def ask(self, question: str, *, at: datetime, scope: str) -> str:
        return self.texts[-1] if self.texts else ""


class TracingChunkMemory(TextOnlyMemory):
    """Reports recall traces (every turn containing a question word) but cannot list its store."""

    def ask(self, question: str, *, at: datetime, scope: str) -> ProbeReply:  # type: ignore[override]
        words = {word.strip("?,.").lower() for word in question.split() if len(word) > 4}
        hits = tuple(RecalledMemory(f"t{index}", text) for index, text in enumerate(self.texts)
                     if words & {w.strip("?,.!").lower() for w in text.split()})
        return ProbeReply(hits[0].statement if hits else "", (RecallTrace("in_turn", hits[:3]),))


class FailingMemory(TextOnlyMemory):
    def ask(self, question: str, *, at: datetime, scope: str) -> str:
        raise RuntimeError("backend unavailable")
