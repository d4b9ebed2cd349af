"""Run state of one pytest session, kept on the config stash (no module-level mutable globals).

One :class:`TypedMemEvalSession` per process holds what the run was asked (options read at
:mod:`.configure`), what it loaded (the corpora), what it built on first use (the judge, the
adapter call helpers, a reference LLM agent and its model caller) and what it gathered (results,
the selection, causes of questions that did not run). Every item module reads and fills it; none
keeps state of its own about the corpus run. Knows pytest only as far as ``Config`` and the stash go.
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pytest

from ..judge.choice import JudgeChoice
from ..report.thresholds import marker_name as marker_name  # re-exported: the items mark with it

if TYPE_CHECKING:
    from ..adapter.bounded_calls import AdapterCalls
    from ..adapter.llm_agents import LLMMemoryAgent
    from ..calls import ModelCaller, ModelSettings
    from ..corpus.index import CorpusIndex, QuestionHead
    from ..corpus.shards import ShardSpec
    from ..judge.protocol import Judge
    from ..results import QuestionResult

# Importing this module stays cheap (no pydantic, asyncio, corpus models): the plugin imports it in
# every pytest process, enabled or not. What a run needs is imported where it is first used.

BASELINE_DIRNAME = "__baseline__"
"""The directory, beside the virtual corpus and scenario modules, that holds ``--tme-baseline``'s
snapshots (:mod:`.baseline_extension`): not syrupy's ``__snapshots__``, which syrupy scans for
unused snapshots in every run that collects the items (issue 22, item 1)."""
LEGACY_SNAPSHOT_DIRNAME = "__snapshots__"
"""Where baselines were kept before issue 22; a file found there is refused with the move to make."""

QUESTION_FUNCTION = "question"
"""The plugin-owned test function every corpus question is parametrized over."""




@dataclass
class TypedMemEvalSession:
    """Everything a run needs and accumulates. One per pytest process."""

    config: pytest.Config
    corpora: list[CorpusIndex] = field(default_factory=list)
    agent_spec: str | None = None
    """``--tme-agent``, else the ini ``typedmemeval_agent`` (see :attr:`agent_from_command_line`)."""
    agent_from_command_line: bool = False
    """The spec came from ``--tme-agent``: it overrides any ``typedmemeval_agent`` fixture. An ini
    spec is what the plugin's own fixture builds, so a conftest override wins over it."""
    agent_source: dict[str, Any] | None = None
    """Which adapter source answered (set at the end of the session; see
    :func:`.adapter_fixture.describe_agent_source`)."""
    spec_agent: Any = None
    """The adapter built from :attr:`agent_spec`, once per process."""
    timeout: float | None = None
    parallel: int = 1
    """``--tme-parallel``: questions in flight in this process (:mod:`.questions_in_flight`)."""
    slot_agents: list[Any] = field(default_factory=list)
    """With ``parallel`` > 1: one adapter instance per question in flight (slot 0 first)."""
    in_flight: Any = None
    """With ``parallel`` > 1: this process's :class:`..adapter.in_flight.QuestionsInFlight`."""
    factory_agent: Any = None
    """The instance an :class:`..adapter.factories.AdapterFactory` fixture value built first."""
    report_path: Path | None = None
    html_path: Path | None = None
    """``--tme-html``: where the self-contained HTML report goes (controller only)."""
    baseline: bool = False
    fail_under: dict[str, float] = field(default_factory=dict)
    """Vertical -> minimum correct rate; key ``"*"`` applies to every vertical."""
    require_probes: bool = False
    collect_gates: bool = False
    shard: ShardSpec | None = None
    """``--tme-shard K/N``: this run measures shard K of the selection (:mod:`.shard_selection`)."""
    shard_plan: dict[str, Any] | None = None
    """The selection before sharding (count and fingerprint), set where the items are collected;
    an xdist controller reads it from a worker's spool line."""
    results: dict[tuple[str, str], QuestionResult] = field(default_factory=dict)
    baseline_changes: list[dict[str, Any]] = field(default_factory=list)
    produced_keys: set[tuple[str, str]] = field(default_factory=set)
    """Results this process produced (a worker reports them so the controller can spot losses)."""
    expected_from_workers: set[tuple[str, str]] = field(default_factory=set)
    workers_without_payload: list[str] = field(default_factory=list)
    threshold_failures: list[str] = field(default_factory=list)
    agreement_line: str | None = None
    """The model judge's agreement bound, said in one line (J13.14); ``None`` under the mechanical
    judge or a hook's judge."""
    agreement_failed: bool = False
    judge_choice: JudgeChoice = field(default_factory=JudgeChoice)
    selected: dict[tuple[str, str], str] = field(default_factory=dict)
    """Questions this run set out to measure (after -m/-k/--lf deselection): key -> node id."""
    not_run_causes: dict[tuple[str, str], str] = field(default_factory=dict)
    """Why a selected question has no result, where a report said so (a skip, a setup error)."""
    adapter_failure: str | None = None
    """One line: the adapter fixture or ``--tme-agent`` factory raised, or a systematic fault
    stopped the run (:mod:`..adapter.fault_watch`); nothing more can run."""
    fault_watch: Any = None
    """This process's :class:`..adapter.fault_watch.FaultWatch` (built when a question first runs)."""
    checked_agent: Any = None
    """The adapter instance last found usable by ``check_agent``: a session-scoped adapter is
    checked once, not once per question (``inspect.signature`` of three methods each time)."""
    refused: str | None = None
    """The run was refused after collection, before any question ran (no adapter): no report."""
    notes: list[str] = field(default_factory=list)
    """Lines the TypedMemEval summary prints even when there is no report (e.g. questions
    deselected because ``--tme-gates`` ran without an adapter)."""
    stop_reason: str | None = None
    """Why the run ended before every selected question ran (Ctrl-C, -x, an unusable adapter)."""
    workers_lost: list[dict[str, str | None]] = field(default_factory=list)
    """xdist workers that died, each with the question it was running (``None``: between questions)."""
    spool_dir: Path | None = None
    """Controller: where workers also append their results (read back if their reports never
    arrive, e.g. after Ctrl-C); worker: the directory its own spool file lives in."""
    reported: bool = False
    """The end of the session produced a report (so the terminal summary has something to say)."""
    not_run: list[dict[str, str]] = field(default_factory=list)
    """Selected questions without a result, each with its cause (set at the end of the session)."""
    thresholds_evaluated: bool = True
    errored: int = 0
    """Results with outcome ``error`` (set at the end of the session): thresholds are then not evaluated."""
    recovered_from_spool: int = 0
    report_error: str | None = None
    exit_status: int | None = None
    """The exit status the end of the session decided (``None``: keep pytest's)."""
    model_settings: ModelSettings | None = None
    """Set when a reference LLM agent (``--tme-agent llm-*``) answers: what it calls, and with
    ``ledger_path`` the spend ledger every process of the run shares."""
    ledger_dir: Path | None = None
    """Controller (or a run without xdist): the temporary directory holding the shared ledger."""
    ledger_path: Path | None = None
    """The spend ledger every process of the run shares, when a model answers or judges."""
    judge_guard: dict[str, Any] | None = None
    """The run's guard (ceiling, ledger, cache, prices) for a model judge's calls."""
    served_models: set[str] = field(default_factory=set)
    """Controller: model names the servers said answered, as reported by the workers."""
    model_report: dict[str, Any] | None = None
    """The report's ``model`` block, set at the end of the session (``None``: no model answered)."""
    _spool: IO[str] | None = None
    _judge: Judge | None = None
    _judge_from_hook: bool = False
    _calls: AdapterCalls | None = None
    _caller: ModelCaller | None = None
    _llm_agent: LLMMemoryAgent | None = None
    _item_ids: dict[str, dict[str, str]] = field(default_factory=dict)
    _nodeid_index: dict[str, tuple[CorpusIndex, QuestionHead]] | None = None
    _gc_frozen: bool = False

    # --- the garbage collector ----------------------------------------------------------------

    def freeze_gc(self) -> None:
        """Move every object alive now (the loaded corpora, the collected items) to the
        collector's permanent generation, so the run loop's collections, and the full collections
        pytest itself asks for, no longer walk them. Without it each full collection walks the whole
        loaded corpus graph, which makes the per-question cost grow with the corpus size.

        Nothing observable changes: these objects live until the session ends anyway. They are
        thawed (:meth:`thaw_gc`) by a config clean-up, which runs after every ``pytest_unconfigure``
        hook: pytest's own unraisable-exception plugin collects twice in its ``pytest_unconfigure``
        and would otherwise walk the whole graph again (0.1 s for the shipped corpora).
        """
        if not self._gc_frozen:
            self.config.add_cleanup(self.thaw_gc)
        gc.freeze()
        self._gc_frozen = True

    def thaw_gc(self) -> None:
        if self._gc_frozen:
            gc.unfreeze()
            self._gc_frozen = False

    @property
    def enabled(self) -> bool:
        return bool(self.corpora)

    @property
    def threshold_mode(self) -> bool:
        return bool(self.fail_under)

    def judge(self) -> Judge:
        """The judge of this process, built on first use: the hook's, else ``--tme-judge``'s."""
        if self._judge is None:
            custom = self.config.hook.pytest_typedmemeval_make_judge(config=self.config)
            self._judge_from_hook = custom is not None
            self._judge = custom if custom is not None else self.judge_choice.build(
                self.judge_guard, questions_loaded=sum(len(corpus.heads) for corpus in self.corpora))
        return self._judge

    def options_description(self) -> dict[str, Any]:
        """The report's ``options`` block: the run settings that change what an outcome means
        (which adapter, its time limit, the judge, thresholds or baseline mode), and their
        sha256 ``fingerprint`` — what ``typedmemeval report`` compares before banding runs. The
        selection (-m/-k) is compared separately, as the selected question set; worker count and
        output paths never change an outcome and are left out."""
        from ..report.run_options import options_fingerprint

        described: dict[str, Any] = {
            "agent": self.agent_spec or "typedmemeval_agent fixture",
            "timeout_seconds": self.timeout,
            "judge_mode": self.judge_choice.mode, "judge_model": self.judge_choice.model,
            "fail_under": dict(sorted(self.fail_under.items())), "baseline": self.baseline,
        }
        source = self.agent_source or {}
        if source.get("agent"):
            described["agent"] = source["agent"]
        # Where the adapter came from is reported beside it, outside the fingerprint: the same
        # adapter given by a flag or by a fixture measures the same thing.
        return {**described, "agent_source": source.get("source"), "agent_overrides": source.get("overrides"),
                "fingerprint": options_fingerprint(described)}

    def judge_description(self) -> dict[str, str | None]:
        """The report's ``judge`` block: mode, name, model and fingerprint."""
        judge = self.judge()
        return {"mode": "hook" if self._judge_from_hook else self.judge_choice.mode, "name": judge.name,
                "model": getattr(judge, "model", None), "fingerprint": judge.fingerprint}

    def adapter_calls(self) -> AdapterCalls:
        """The process's way of calling the adapter (helper threads and event loop live here)."""
        if self._calls is None:
            from ..adapter.bounded_calls import AdapterCalls

            self._calls = AdapterCalls(self.timeout)
        return self._calls

    # --- the reference LLM agents -------------------------------------------------------------

    def llm_agent(self) -> LLMMemoryAgent:
        """The process's reference LLM agent, on one :class:`~..calls.ModelCaller` (built on first
        use, closed with the session)."""
        if self._llm_agent is None:
            from ..adapter.llm_agents import make_llm_agent
            from ..calls import ModelCaller

            assert self.model_settings is not None and self.agent_spec is not None
            self._caller = ModelCaller(self.model_settings)
            self._llm_agent = make_llm_agent(self.agent_spec, self._caller)
        return self._llm_agent

    def another_llm_agent(self) -> LLMMemoryAgent:
        """One more reference LLM agent on the same caller (its cache, ledger and in-flight bound):
        a question in flight of its own (``--tme-parallel``)."""
        from ..adapter.llm_agents import make_llm_agent

        first = self.llm_agent()
        assert self.agent_spec is not None
        return make_llm_agent(self.agent_spec, first.caller)

    def all_served_models(self) -> set[str]:
        """Served model names seen by this process's agent and reported by workers."""
        own = set(self._llm_agent.served_models) if self._llm_agent is not None else set()
        for agent in self.slot_agents:  # the llm-* agents of the other questions in flight
            own |= set(getattr(agent, "served_models", set()) or set())
        return self.served_models | own

    def model_description(self) -> dict[str, Any] | None:
        """The report's ``model`` block: the settings that decide a reply, the model name(s) the
        server said answered, and the run's spend ledger (read from the shared file, so it counts
        every worker's calls). When only a model judge called (no model answered), the block
        holds just the ledger, so the judge's spend is reported too. ``None`` when no model was
        called at all."""
        settings = self.model_settings
        from ..calls import CostLedger

        if settings is None:
            if self.ledger_path is None or self.judge_guard is None:
                return None
            snapshot = CostLedger(float(self.judge_guard["max_usd"]), self.ledger_path).snapshot()
            return {"agent": None, "judge_model": self.judge_choice.model, "served_models": [],
                    "ledger": {name: snapshot[name] for name in
                               ("calls", "cache_hits", "refused", "spent_usd", "ceiling_usd")}}
        if settings.ledger_path is not None:
            snapshot = CostLedger(settings.max_usd, settings.ledger_path).snapshot()
        elif self._caller is not None:
            snapshot = self._caller.ledger.snapshot()
        else:
            snapshot = CostLedger(settings.max_usd).snapshot()
        ledger = {name: snapshot[name] for name in ("calls", "cache_hits", "refused", "spent_usd",
                                                    "ceiling_usd")}
        return {**settings.describe(), "agent": self.agent_spec,
                "served_models": sorted(self.all_served_models()), "ledger": ledger}

    def close(self) -> None:
        if self.in_flight is not None:
            self.in_flight.close()
            self.in_flight = None
        if self._caller is not None:
            self._caller.close()
            self._caller = None
        close_judge = getattr(self._judge, "close", None)
        if callable(close_judge):
            close_judge()
        if self._calls is not None:
            self._calls.close()
            self._calls = None
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def add_result(self, result: QuestionResult) -> None:
        self.results[result.key] = result

    # --- item ids ---------------------------------------------------------------------------

    def item_ids(self, corpus: CorpusIndex) -> dict[str, str]:
        """Question id -> the label-free id its item carries (see :mod:`..item_ids`)."""
        if corpus.corpus_id not in self._item_ids:
            from ..item_ids import item_ids

            self._item_ids[corpus.corpus_id] = item_ids(corpus.heads, corpus.sha256)
        return self._item_ids[corpus.corpus_id]

    def case_for_nodeid(self, nodeid: str) -> tuple[CorpusIndex, QuestionHead] | None:
        """The question a node id names, or ``None`` (a gate item, a user test). Works on the xdist
        controller, which collects nothing: node ids are rebuilt from the corpora it loaded."""
        if self._nodeid_index is None:
            self._nodeid_index = {}
            for corpus in self.corpora:
                for head in corpus.heads:
                    self._nodeid_index[question_nodeid(corpus, self.item_ids(corpus)[head.question_id])] = (
                        corpus, head)
        return self._nodeid_index.get(nodeid.partition("@")[0])

    # --- the spool (xdist) ------------------------------------------------------------------

    def open_spool(self, worker_id: str) -> None:
        assert self.spool_dir is not None
        self._spool = open(self.spool_dir / f"{worker_id}.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def spool(self, payload: dict[str, Any]) -> None:
        """Worker: append one result line and flush it, before the report leaves the process."""
        if self._spool is not None:
            self._spool.write(json.dumps({"version": SPOOL_VERSION, **payload}) + "\n")
            self._spool.flush()

    def read_spool(self) -> list[dict[str, Any]]:
        """Controller: every complete line any worker spooled (a torn last line is skipped: its
        report cannot have been sent either, so the question is named as not run)."""
        payloads: list[dict[str, Any]] = []
        if self.spool_dir is None or not self.spool_dir.is_dir():
            return payloads
        for path in sorted(self.spool_dir.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    payload = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(payload, dict) and payload.get("version") == SPOOL_VERSION:
                    payloads.append(payload)
        return payloads


SPOOL_VERSION = 1


def question_nodeid(corpus: CorpusIndex, item_id: str) -> str:
    """The node id of a question item, relative to the rootdir (see
    :class:`.question_items.QuestionModule`)."""
    return f"typedmemeval/{corpus.corpus_id}::{QUESTION_FUNCTION}[{item_id}]"


SESSION_KEY = pytest.StashKey[TypedMemEvalSession]()


def tme_session(config: pytest.Config) -> TypedMemEvalSession:
    return config.stash[SESSION_KEY]
