"""Every option of the plugin: the ``--tme-*`` flags and ``typedmemeval_*`` ini keys, declared in
one place with the parsers that check their values.

Declared at every pytest start (``pytest_addoption``), enabled or not, so this module imports only
what help texts need: the model-call defaults (:mod:`..calls.endpoint`, which loads nothing) and
the judge modes. What a run makes of the options is :mod:`.configure`; the scenario and dataset
options are read by their item modules (:mod:`.scenario_items`, :mod:`.dataset_items`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import pytest

from ..calls.endpoint import DEFAULT_TIMEOUT_SECONDS
from ..corpus.shards import ShardSpec, ShardSpecError
from ..judge.choice import (DEFAULT_JUDGE_MAX_TOKENS, DEFAULT_MIN_AGREEMENT, JUDGE_MODES,
                            MIN_AGREEMENT_COMPARED)
from ..report.thresholds import parse_fail_under

DEFAULT_MAX_USD = 1.0
"""Help-text copy of :data:`..calls.settings.DEFAULT_MAX_USD` (a test keeps the copies equal)."""
DEFAULT_CONCURRENCY = 4
"""Help-text copy of :data:`..calls.settings.DEFAULT_CONCURRENCY` (a test keeps the copies equal)."""
SCENARIO_MEMORY_FIXTURE = "typedmemeval_scenario_memory"
"""The fixture a rootdir ``conftest.py`` may define to give the scenario items their memory factory."""
REFERENCE_MEMORY_ALIAS = "reference-memory"
"""``--tme-scenario-memory`` (and ``--tme-agent``) alias of the built-in reference memory."""
SHIPPED_SCENARIOS = "\0shipped"
"""``--tme-scenarios`` given without a path."""


def _number(text: str, convert: type[float] | type[int], expected: str, accept: Callable[[float], bool],
            problem: str) -> Any:
    """``text`` converted, or one ``ArgumentTypeError`` that says what was expected."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected {expected}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return value


def parse_timeout(text: str) -> float:
    return float(_number(text, float, "seconds as a number", lambda value: value > 0,
                         "the timeout must be positive"))


def parse_rate(text: str) -> float:
    return float(_number(text, float, "a rate as a number", lambda value: 0.0 <= value <= 1.0,
                         "the rate must lie in [0, 1]"))


def parse_usd(text: str) -> float:
    return float(_number(text, float, "US dollars as a number",
                         lambda value: math.isfinite(value) and value >= 0,
                         "the ceiling must be a finite amount >= 0"))


def parse_positive_int(text: str) -> int:
    return int(_number(text, int, "a whole number", lambda value: value >= 1, "must be at least 1"))


def parse_whole_number(text: str) -> int:
    """Any integer, negative included (``--tme-dataset-seed``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number") from None


def parse_shard(text: str) -> ShardSpec:
    """``--tme-shard K/N``, checked when pytest parses the command line."""
    try:
        return ShardSpec.parse(text)
    except ShardSpecError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_options(parser: pytest.Parser) -> None:
    """Declare every flag and ini key (``pytest_addoption``): the corpus run, the model options of
    the ``llm-*`` agents, then the scenario and the dataset options, in the groups ``--help`` shows."""
    group = parser.getgroup("typedmemeval", "TypedMemEval memory benchmark")
    group.addoption("--typedmemeval", action="store_true", default=None,
                    help="collect every question of every shipped TypedMemEval corpus")
    group.addoption("--tme-corpus", action="append", default=[], metavar="PATH",
                    help="collect the questions of this corpus file (repeatable); alone, only these")
    group.addoption("--tme-agent", default=None, metavar="MODULE:FACTORY",
                    help="adapter factory to call, or a built-in: 'reference' (lexical baseline, no "
                    "model), 'llm-full-context' (whole haystack in the prompt), 'llm-bm25' (BM25 top-5 "
                    "sessions), 'llm-no-memory' (no sessions); the llm-* agents need --tme-model. "
                    "Overrides the typedmemeval_agent fixture")
    group.addoption("--tme-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help="per adapter call; a timeout gives outcome 'error' for that question "
                    "(default: no limit, and calls run on pytest's own thread exactly as your code "
                    "would call them; with a limit they run on helper threads)")
    group.addoption("--tme-parallel", type=parse_positive_int, default=None, metavar="N",
                    help="questions in flight: answer up to N questions at once in this process, each "
                    "on its own adapter instance (async adapters on one event loop, sync ones on N "
                    "threads); items still report one by one in order (default 1; per xdist worker)")
    group.addoption("--tme-report", default=None, metavar="PATH", help="write the JSON report here")
    group.addoption("--tme-html", default=None, metavar="PATH",
                    help="write a self-contained HTML report here (no network: inline styles and "
                         "charts); typedmemeval report RUN.json ... --html PATH bands several runs")
    group.addoption("--tme-baseline", action="store_true", default=False,
                    help="pass an item iff its outcome equals the syrupy snapshot (--snapshot-update "
                    "re-records)")
    group.addoption("--tme-fail-under", action="append", type=parse_fail_under, default=[],
                    metavar="[VERTICAL=]RATE",
                    help="threshold mode: items do not fail one by one; the session fails when a "
                    "vertical's correct rate is below RATE (repeatable, per vertical)")
    group.addoption("--tme-shard", type=parse_shard, default=None, metavar="K/N",
                    help="run shard K of N of the selected questions (deterministic, balanced per "
                    "vertical and shape); merge the N reports with typedmemeval report --merge")
    group.addoption("--tme-gates", action="store_true", default=False,
                    help="collect the certification gate items (also implied by -m naming a tme_gate_ marker)")
    group.addoption("--tme-require-probes", action="store_true", default=False,
                    help="a shape without probe records fails tme_gate_probes instead of skipping")
    group.addoption("--tme-judge", choices=JUDGE_MODES, default=None,
                    help="who grades answers: mechanical (default; rules, no network), llm (a model "
                    "over an OpenAI-compatible endpoint; the mechanical outcome is kept as a second "
                    "opinion) or hybrid (the model only where the mechanical judge is unjudged)")
    group.addoption("--tme-judge-model", default=None, metavar="NAME",
                    help="model name for --tme-judge llm/hybrid (the key comes from OPENAI_API_KEY only)")
    group.addoption("--tme-judge-base-url", default=None, metavar="URL",
                    help="OpenAI-compatible endpoint for the model judge (default: OPENAI_BASE_URL, "
                    "else the public OpenAI API)")
    group.addoption("--tme-judge-min-agreement", type=parse_rate, default=None, metavar="RATE",
                    help="with a model judge (llm, hybrid), fail the session when the mechanical and "
                    "the model judge agree on fewer than RATE of the answers both graded (at least "
                    f"{MIN_AGREEMENT_COMPARED} compared; default {DEFAULT_MIN_AGREEMENT:g}; ini "
                    "typedmemeval_judge_min_agreement)")
    group.addoption("--tme-judge-max-tokens", type=parse_positive_int, default=None, metavar="N",
                    help="token budget of one model-judge verdict; a verdict cut off by it is asked "
                    f"once more with twice the budget before it is 'error' (default "
                    f"{DEFAULT_JUDGE_MAX_TOKENS}; ini typedmemeval_judge_max_tokens)")
    group.addoption("--tme-judge-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help=f"per request of the model judge; a timeout grades that answer 'error' "
                    f"(default {DEFAULT_TIMEOUT_SECONDS:g})")
    model = parser.getgroup("typedmemeval-model", "TypedMemEval reference LLM agents (--tme-agent llm-*)")
    model.addoption("--tme-model", default=None, metavar="NAME",
                    help="model the llm-* agents ask (required for them; ini typedmemeval_model); the "
                    "API key comes from OPENAI_API_KEY only, and a server on localhost needs none")
    model.addoption("--tme-base-url", default=None, metavar="URL",
                    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8765/v1 for a local "
                    "llama.cpp server (default: OPENAI_BASE_URL, else the public OpenAI API; ini "
                    "typedmemeval_base_url)")
    model.addoption("--tme-max-usd", type=parse_usd, default=None, metavar="USD",
                    help="cost ceiling for the whole run, shared by every xdist worker: a call whose "
                    "worst-case cost would cross it is refused unsent (outcome 'error'); default "
                    f"{DEFAULT_MAX_USD:g} (ini typedmemeval_max_usd)")
    model.addoption("--tme-allow-unpriced", action="store_true", default=False,
                    help="run a model that has no price (its calls count as free, so the ceiling "
                    "cannot stop them); better: give it a price, zero included, with --tme-prices")
    model.addoption("--tme-prices", default=None, metavar="PATH",
                    help='JSON price table over the built-in one: {"NAME": {"input_per_million": 0.15, '
                    '"output_per_million": 0.6}} in USD per million tokens')
    model.addoption("--tme-cache-dir", default=None, metavar="DIR",
                    help="on-disk response cache (a rerun of the same requests makes no calls); "
                    "default $TYPEDMEMEVAL_CACHE_DIR, else ~/.cache/pytest-typedmemeval/model-calls")
    model.addoption("--tme-no-cache", action="store_true", default=False,
                    help="neither read nor write the response cache: every request goes to the server")
    model.addoption("--tme-concurrency", type=parse_positive_int, default=None, metavar="N",
                    help=f"requests in flight per process (default {DEFAULT_CONCURRENCY}); questions run "
                    "one at a time "
                    "per process, so -n N (pytest-xdist) is what runs several at once")
    model.addoption("--tme-model-timeout", type=parse_timeout, default=None, metavar="SECONDS",
                    help=f"per request attempt of the llm-* agents (default {DEFAULT_TIMEOUT_SECONDS:g}); "
                    "a timeout is retried a few times, then the question is 'error'")
    parser.addini("typedmemeval", "collect the shipped TypedMemEval corpora", type="bool", default=False)
    parser.addini("typedmemeval_corpus", "corpus files to collect", type="paths", default=[])
    parser.addini("typedmemeval_agent", "adapter factory as module:factory", default="")
    parser.addini("typedmemeval_timeout", "per adapter call timeout in seconds", default="")
    parser.addini("typedmemeval_parallel", "questions in flight per process (--tme-parallel)", default="")
    parser.addini("typedmemeval_report", "path of the JSON report", default="")
    parser.addini("typedmemeval_judge", "judge mode: mechanical, llm or hybrid", default="")
    parser.addini("typedmemeval_judge_model", "model name for the llm/hybrid judge", default="")
    parser.addini("typedmemeval_judge_base_url", "OpenAI-compatible endpoint for the model judge", default="")
    parser.addini("typedmemeval_judge_max_tokens", "token budget of one model-judge verdict",
                  default="")
    parser.addini("typedmemeval_judge_min_agreement",
                  "with a model judge, the least agreement of mechanical and model judge", default="")
    parser.addini("typedmemeval_model", "model the llm-* reference agents ask", default="")
    parser.addini("typedmemeval_base_url", "OpenAI-compatible endpoint of the llm-* reference agents",
                  default="")
    parser.addini("typedmemeval_max_usd", "cost ceiling in USD for the llm-* reference agents", default="")
    _add_scenario_options(parser)
    _add_dataset_options(parser)


def _add_scenario_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("typedmemeval-scenarios", "TypedMemEval scenario memory benchmark")
    group.addoption("--tme-scenarios", nargs="?", const=SHIPPED_SCENARIOS, default=None, metavar="PATH",
                    help="collect the scenario benchmark: one item per probe and per scenario's "
                    "formation, of the shipped scenarios-v1.json or of PATH (write --tme-scenarios=PATH; "
                    "ini typedmemeval_scenarios)")
    group.addoption("--tme-scenario-memory", default=None, metavar="MODULE:FACTORY",
                    help="zero-argument factory of the ScenarioMemory under test (a fresh instance per "
                    f"scenario), or '{REFERENCE_MEMORY_ALIAS}' (the built-in reference memory); overrides "
                    f"the {SCENARIO_MEMORY_FIXTURE} fixture (ini typedmemeval_scenario_memory)")
    group.addoption("--tme-scenario-report", default=None, metavar="PATH",
                    help="write the run's canonical metrics here (JSON, byte-identical across runs)")
    group.addoption("--tme-scenario-live", default=None, metavar="OUT.json",
                    help="also run the paired live arm (with and without memory) through --tme-model "
                    "and write its self-verifying evidence to OUT.json, which must not exist")
    parser.addini("typedmemeval_scenarios", "scenario corpus to collect: 'shipped' or a path", default="")
    parser.addini("typedmemeval_scenario_memory", "scenario memory factory as module:factory", default="")


def _add_dataset_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("typedmemeval-datasets",
                            "TypedMemEval public datasets (LoCoMo, LongMemEval, HaluMem, read from a local file)")
    group.addoption("--tme-dataset", action="append", default=[], metavar="NAME=PATH",
                    help="collect the questions of a public dataset from your local copy (repeatable): "
                    "locomo=PATH (locomo10.json), longmemeval=PATH (longmemeval_s/_m/_oracle.json), "
                    "halumem=PATH (HaluMem-*.jsonl). Never downloaded; scored as --tme-dataset-scoring says and "
                    "reported apart from TypedMemEval results")
    group.addoption("--tme-dataset-principal", choices=("a", "b"), default=None,
                    help="LoCoMo: whose turns are the user's (speaker_a or speaker_b; default a); "
                    "every question is scored either way")
    group.addoption("--tme-dataset-scoring", choices=("upstream", "typed", "both"), default=None,
                    help="upstream: the dataset's own token metric, exactly (LoCoMo's evaluation.py; "
                    "needs the 'upstream' extra) decides pass/fail; typed: TypedMemEval's reading "
                    "(token F1 >= 0.5, declines read); both (default): the two side by side, typed "
                    "decides (without the extra: typed, with a notice)")
    group.addoption("--tme-dataset-sample", type=parse_positive_int, default=None, metavar="N",
                    help="run N questions per dataset, drawn deterministically with --tme-dataset-seed")
    group.addoption("--tme-dataset-seed", type=parse_whole_number, default=None, metavar="S",
                    help="seed of the --tme-dataset-sample draw (default 0)")
    group.addoption("--tme-dataset-metrics", default=None, metavar="DIR",
                    help="write DIR/<name>-metrics.json per dataset: derived figures only (no path, "
                    "no question or answer text)")
