"""The probe runner (``typedmemeval probe``): runs the model-backed validity arms of VERTICALS.md
§3 against a reference model and records every per-question, per-sample verdict in the corpus's
sidecar, where the probe gate (:mod:`..gates.probes`) reads them.

- :mod:`.arms` — V1, V2, V3, V6, V8, V9, V10, V11: scope, sample counts, the sessions each shows;
- :mod:`.grading` — mechanical grading, commitment grades, §3.2 thresholds, V2/V3/V6 decisions;
- :mod:`.runner` — planning requests, running them through :class:`..calls.ModelCaller`, records;
- :mod:`.records` — merging records into the sidecar and writing it atomically;
- :mod:`.command` — the CLI subcommand.

Known gap (§3.2): k of a closed-choice question comes from the generator's declarations only
(``answer_key.choices``, ``candidates``); no detector reads options out of the question text, so a
question that lists options without declaring them is graded as open-ended.
"""

from .arms import ARM_ORDER, ARMS, ArmSpec, applies, contexts, parse_arms
from .grading import QuestionDecision, chance_threshold, decisions, grade, hit_threshold
from .records import write_records
from .runner import ArmReport, ProbeOptions, estimate, plan_arm, run_probes

__all__ = ["ARMS", "ARM_ORDER", "ArmReport", "ArmSpec", "ProbeOptions", "QuestionDecision",
           "applies", "chance_threshold", "contexts", "decisions", "estimate", "grade",
           "hit_threshold", "parse_arms", "plan_arm", "run_probes", "write_records"]
