"""The live paired arm (VERTICALS.md §6.6): the same probes with memory and without, through a model.

For every probe of the corpus, two requests go through the model-call layer
(:class:`~pytest_typedmemeval.calls.ModelCaller`: response cache, price check, pre-admission against
the cost ceiling, retries of transient faults):

* **with memory** — the scenario is replayed on a fresh memory exactly as in the deterministic arm
  (:func:`.runner.prepare_scenario`, then the probes in corpus order); what the memory recalled for
  the probe (the statements its traces returned, or its reply text when it reports no traces) goes
  into a system message, and the probe question with the corpus's ``probe_instruction`` is the user
  message;
* **without memory** — the question and the instruction only.

Answers are graded mechanically (:func:`.live_evidence.grade_answer`). A request the layer refuses
(ceiling, unpriced) or gives up on (server fault) makes that arm an *error*: recorded with its
class, never graded, and the probe is not scored. The lift — with-memory minus without-memory
success rate over the scored probes — comes with Newcombe's paired interval.

The evidence is written once: :func:`run_live` refuses an existing output path (and an unusable
model) *before any request*, and creates the file exclusively, so it is never overwritten. The file
carries its own SHA-256 over the corpus digest, the model and parameters, and every per-probe row;
:func:`.live_evidence.verify` recomputes it.

Nothing here imports pytest; ``python -c`` use::

    from pytest_typedmemeval.calls import ModelCaller, ModelSettings
    from pytest_typedmemeval.scenarios import load_scenarios
    from pytest_typedmemeval.scenarios.live import run_live
    from pytest_typedmemeval.scenarios.live_evidence import verify
    from pytest_typedmemeval.scenarios.reference_memory import make_memory

    caller = ModelCaller(ModelSettings.resolve("gpt-4o-mini", max_usd=1.0))
    evidence = run_live(load_scenarios(), make_memory, caller, "live-evidence.json")
    assert verify("live-evidence.json", load_scenarios()) == []
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..calls.endpoint import ModelCallError
from .live_evidence import (EVIDENCE_FORMAT, EVIDENCE_FORMAT_VERSION, decide, evidence_digest,
                            grade_answer, summarize)
from .loading import ScenarioCorpus
from .protocol import ProbeReply
from .results import BENCHMARK_VERSION
from .runner import MemoryFactory, adapter_versions, prepare_scenario, run_probe

PROMPT_VERSION = "scenario-live-prompt-v1"
"""Bumped whenever :func:`build_messages` changes what a model is shown."""
MEMORY_HEADER = "What you remember about the user from earlier conversations:"
NOTHING_RECALLED = "(nothing recalled)"


class LiveRunError(RuntimeError):
    """The live arm cannot start (existing output, unusable output directory, unusable model);
    raised before any request is sent."""


OPTIONAL_CAPABILITIES = ("memories", "maintain", "formation_stats", "bind_clock", "versions")


class _Capturing:
    """Forwards the memory under test and keeps the last ``ask`` reply, so the with-memory prompt
    shows exactly what the deterministic metrics scored. Built by :func:`_capturing` with exactly
    the optional capabilities the memory has, as real methods: runtime protocol checks read
    attributes statically on Python 3.12+, so forwarding through ``__getattr__`` would hide them."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.last_reply: ProbeReply | str | None = None

    def add_message(self, session_id: str, text: str, *, at: datetime, scope: str) -> None:
        self._inner.add_message(session_id, text, at=at, scope=scope)

    def form(self, session_id: str, *, at: datetime, scope: str) -> None:
        self._inner.form(session_id, at=at, scope=scope)

    def ask(self, question: str, *, at: datetime, scope: str) -> ProbeReply | str:
        raw = self._inner.ask(question, at=at, scope=scope)
        self.last_reply = raw
        return raw


def _forward(name: str) -> Callable[..., Any]:
    def method(self: _Capturing, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._inner, name)(*args, **kwargs)

    method.__name__ = name
    return method


def _capturing(inner: Any) -> _Capturing:
    present = {name: _forward(name) for name in OPTIONAL_CAPABILITIES if callable(getattr(inner, name, None))}
    kind = type("_Capturing" + type(inner).__name__, (_Capturing,), present)
    capturing: _Capturing = kind(inner)
    return capturing


def recalled_statements(reply: ProbeReply | str | None) -> list[str]:
    """The statements a memory put in front of the model: every distinct memory its traces
    returned (snapshot first, then in-turn), or its reply text when it reports no traces."""
    if reply is None:
        return []
    if not isinstance(reply, ProbeReply):
        return [str(reply)] if str(reply).strip() else []
    if reply.traces is None:
        return [reply.text] if reply.text.strip() else []
    seen: dict[str, str] = {}
    for moment in ("snapshot", "in_turn"):
        for trace in reply.traces:
            if trace.moment == moment:
                for memory in trace.returned:
                    seen.setdefault(memory.memory_id, memory.statement)
    return list(seen.values())


def build_messages(question: str, instruction: str, recalled: Sequence[str] | None) -> list[dict[str, str]]:
    """The chat messages of one arm: ``recalled=None`` is the without-memory arm."""
    user = {"role": "user", "content": f"{question}\n\n{instruction}"}
    if recalled is None:
        return [user]
    lines = "\n".join(f"- {' '.join(statement.split())}" for statement in recalled) or NOTHING_RECALLED
    return [{"role": "system", "content": f"{MEMORY_HEADER}\n{lines}"}, user]


def refuse_existing(output: str | Path) -> Path:
    """The output path, or :class:`LiveRunError` if it exists or cannot be created."""
    path = Path(output)
    if path.exists() or path.is_symlink():
        raise LiveRunError(f"{path}: the live evidence file exists; evidence is never overwritten "
                           "(delete it explicitly, or name a new file)")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise LiveRunError(f"{path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise LiveRunError(f"{path}: the directory {parent} is not writable")
    return path


def write_evidence(evidence: Mapping[str, Any], output: str | Path) -> Path:
    """Create ``output`` exclusively (never overwriting) with the evidence as sorted, indented JSON."""
    path = Path(output)
    text = json.dumps(evidence, indent=1, sort_keys=True, ensure_ascii=True) + "\n"
    try:
        with open(path, "x", encoding="utf-8") as stream:
            stream.write(text)
    except FileExistsError:
        raise LiveRunError(f"{path}: appeared while the run was under way; evidence is never "
                           "overwritten, so this run's evidence was not written") from None
    return path


def _arm_cell(outcome: Any, grade: Callable[[str], dict[str, Any]]) -> tuple[dict[str, Any], str | None]:
    if isinstance(outcome, ModelCallError):
        billed = outcome.kind in ("timeout", "connection")
        return {"status": "error", "error_class": outcome.kind, "billed": billed, "cost_usd": 0.0}, None
    if isinstance(outcome, str):  # the memory failed before any request: no model call was made
        return {"status": "error", "error_class": outcome, "billed": False, "cost_usd": 0.0}, None
    cell = {"status": "answered", "answer": outcome.text, "cached": bool(outcome.cached),
            "cost_usd": round(float(outcome.cost_usd), 9), **grade(outcome.text)}
    return cell, outcome.served_model


def run_live(corpus: ScenarioCorpus, factory: MemoryFactory, caller: Any, output: str | Path, *,
             memory_origin: str = "", now: Callable[[], datetime] | None = None,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run both arms of every probe, write the evidence to ``output`` (created, never replaced) and
    return it. Raises :class:`LiveRunError` or :class:`..model_call.ModelCallError` before any
    request when the output exists or the model cannot be used."""
    path = refuse_existing(output)
    caller.check()  # unpriced model, missing key, bad settings: refused before any request
    document = corpus.document
    instruction = document.probe_instruction
    keys: list[tuple[Any, Any]] = []
    recalled_by_probe: list[list[str] | None] = []
    deterministic: list[dict[str, Any]] = []
    versions: dict[str, str] = {}
    policy_failures = 0
    for scenario in document.scenarios:
        memory_holder: dict[str, Any] = {}

        def make() -> Any:
            memory_holder["inner"] = factory()
            memory_holder["proxy"] = _capturing(memory_holder["inner"])
            return memory_holder["proxy"]

        try:
            prepared = prepare_scenario(scenario, make)
        except Exception as error:  # the memory under test failed: its probes are errors, not crashes
            failure = f"memory_{type(error).__name__}"
            for probe in scenario.probes:
                keys.append((scenario, probe))
                recalled_by_probe.append(None)
                deterministic.append({"failure": failure, "needed_total": len(probe.needed),
                                      "needed_recalled": None, "recalled_count": 0})
            continue
        if not versions:
            versions = adapter_versions(memory_holder["inner"])
        policy_failures += int(prepared.formation.counts.get("policy_failures") or 0)
        proxy: _Capturing = memory_holder["proxy"]
        for probe in scenario.probes:
            proxy.last_reply = None
            result = run_probe(prepared, probe.id)
            recalled = recalled_statements(proxy.last_reply)
            keys.append((scenario, probe))
            failure = None if result.counts.get("run_completed") else "memory_ask_failed"
            recalled_by_probe.append(None if failure else recalled)
            deterministic.append({"failure": failure, "needed_total": result.counts.get("needed_total"),
                                  "needed_recalled": result.counts.get("needed_recalled"),
                                  "recalled_count": len(recalled)})
    batch: list[tuple[list[dict[str, str]], int | None]] = []
    slots: list[tuple[int, str]] = []
    for index, ((scenario, probe), recalled) in enumerate(zip(keys, recalled_by_probe, strict=True)):
        if recalled is not None:
            batch.append((build_messages(probe.question, instruction, recalled), None))
            slots.append((index, "with_memory"))
        batch.append((build_messages(probe.question, instruction, None), None))
        slots.append((index, "without_memory"))
    outcomes = caller.complete_many(batch, progress=progress) if batch else []
    by_slot = dict(zip(slots, outcomes, strict=True))
    rows: list[dict[str, Any]] = []
    served: set[str] = set()
    for index, (scenario, probe) in enumerate(keys):
        facts = deterministic[index]

        def grade(text: str, scenario: Any = scenario, probe: Any = probe) -> dict[str, Any]:
            return grade_answer(text, probe, scenario, document.abstain_phrase)

        cells: dict[str, dict[str, Any]] = {}
        for arm in ("with_memory", "without_memory"):
            outcome = by_slot.get((index, arm), facts["failure"])
            cells[arm], served_model = _arm_cell(outcome, grade)
            if served_model:
                served.add(served_model)
        needed_total, needed_recalled = facts["needed_total"], facts["needed_recalled"]
        rows.append({
            "scenario_id": scenario.id,
            "probe_id": probe.id,
            "category": probe.category,
            "answer_kind": probe.answer.kind,
            "needed_total": needed_total,
            "needed_recalled": needed_recalled,
            "recalled_count": facts["recalled_count"],
            "recoverable": bool(probe.answer.kind != "abstain" and needed_total
                                and needed_recalled is not None and needed_recalled >= needed_total),
            "scored": all(cells[arm]["status"] == "answered" for arm in cells),
            **cells,
        })
    settings = caller.settings
    stamp = (now or (lambda: datetime.now(timezone.utc)))()
    evidence: dict[str, Any] = {
        "format": EVIDENCE_FORMAT,
        "format_version": EVIDENCE_FORMAT_VERSION,
        "benchmark_version": BENCHMARK_VERSION,
        "created_at": stamp.isoformat(),
        "corpus": {"file": corpus.path.name, "sha256": corpus.sha256,
                   "scenarios": len(document.scenarios), "probes": len(rows)},
        "model": {**settings.describe(), "served_models": sorted(served)},
        "guard": {"max_usd": float(settings.max_usd), "allow_unpriced": bool(settings.allow_unpriced),
                  "priced": getattr(caller, "price", None) is not None},
        "parameters": {"prompt_version": PROMPT_VERSION, "probe_instruction": instruction,
                       "abstain_phrase": document.abstain_phrase, "memory_header": MEMORY_HEADER},
        "memory": {"origin": memory_origin, "versions": dict(sorted(versions.items())),
                   "with_memory_policy_failures": policy_failures, "without_memory_policy_failures": 0},
        "ledger": _ledger(caller),
        "probes": rows,
    }
    evidence["summary"] = summarize(rows)
    evidence["verdict"] = decide(evidence)
    evidence["sha256"] = evidence_digest(evidence)
    write_evidence(evidence, path)
    return evidence


def _ledger(caller: Any) -> dict[str, Any]:
    try:
        snapshot = caller.ledger.snapshot()
    except Exception:  # noqa: BLE001 - a stand-in caller without a ledger
        return {}
    return {name: snapshot[name] for name in ("calls", "cache_hits", "refused", "spent_usd") if name in snapshot}


__all__ = ["LiveRunError", "MEMORY_HEADER", "PROMPT_VERSION", "build_messages", "recalled_statements",
           "refuse_existing", "run_live", "write_evidence"]
