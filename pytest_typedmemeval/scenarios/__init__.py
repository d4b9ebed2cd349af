"""The scenario memory benchmark (VERTICALS.md §6): a checked-in corpus of multi-session scenarios
scored without a model — what a memory formed, what it recalled, and what it rendered that it must
never render — compared exactly against a recorded baseline.

``__all__`` is the contract of this package; its modules are importable but not promised.
"""

from .baseline import Comparison, Difference, compare
from .loading import ScenarioCorpus, ScenarioCorpusError, load_scenarios, shipped_scenarios_path
from .models import (CATEGORIES, BenchmarkProbe, BenchmarkScenario, BenchmarkSession, BenchmarkTurn,
                     EvidenceRef, LabeledBelief, MemoryBenchmarkCorpus, ProbeAnswer)
from .protocol import (GENERAL_SCOPE, FormationStats, ProbeReply, RecallTrace, RecalledMemory,
                       ScenarioClock, ScenarioMemory, StoredMemory)
from .results import FormationResult, ProbeResult, canonical_json, display_ratios
from .runner import PreparedScenario, prepare_scenario, run_corpus, run_probe, run_scenario

__all__ = [
    "CATEGORIES",
    "GENERAL_SCOPE",
    "BenchmarkProbe",
    "BenchmarkScenario",
    "BenchmarkSession",
    "BenchmarkTurn",
    "Comparison",
    "Difference",
    "EvidenceRef",
    "FormationResult",
    "FormationStats",
    "LabeledBelief",
    "MemoryBenchmarkCorpus",
    "PreparedScenario",
    "ProbeAnswer",
    "ProbeReply",
    "ProbeResult",
    "RecallTrace",
    "RecalledMemory",
    "ScenarioClock",
    "ScenarioCorpus",
    "ScenarioCorpusError",
    "ScenarioMemory",
    "StoredMemory",
    "canonical_json",
    "compare",
    "display_ratios",
    "load_scenarios",
    "prepare_scenario",
    "run_corpus",
    "run_probe",
    "run_scenario",
    "shipped_scenarios_path",
]
