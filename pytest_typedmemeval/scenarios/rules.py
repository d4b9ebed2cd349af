"""The cross-field rules of the scenario corpus (VERTICALS.md §6.2): categories, references, totals.

An unchecked category label is only a comment, so every category is a rule here. Each check stops at
the first problem and raises :class:`RuleViolation` naming the scenario, the probe (when there is
one) and the field, so the loader can turn it into a single line a corpus author can act on.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from .matching import normalise, overlaps
from .models import CATEGORIES, BenchmarkProbe, BenchmarkScenario, MemoryBenchmarkCorpus
from .timeline import DAY_SECONDS, build_timeline

TEMPORAL_MIN_DAYS = 30
"""§6.2: a temporal probe sits at least 30 days of clock advance after its needed belief."""
MIN_PROBES_PER_CATEGORY = 3
MIN_PROTECTED_ABSTENTION_SCENARIOS = 4


class RuleViolation(ValueError):
    """A corpus rule is broken; the loader adds the file name."""

    def __init__(self, problem: str, *, scenario_id: str | None = None, probe_id: str | None = None,
                 field: str | None = None) -> None:
        self.problem = problem
        self.scenario_id = scenario_id
        self.probe_id = probe_id
        self.field = field
        super().__init__(problem)


def _duplicates(values: list[str]) -> list[str]:
    return sorted(value for value, count in Counter(values).items() if count > 1)


def check_scenario(scenario: BenchmarkScenario) -> None:
    """Uniqueness, references, supersession order and every probe's category rule."""
    sid = scenario.id
    session_ids = [session.id for session in scenario.sessions]
    for name, values in (("sessions[].id", session_ids),
                         ("beliefs[].label", [belief.label for belief in scenario.beliefs]),
                         ("probes[].id", [probe.id for probe in scenario.probes])):
        if dupes := _duplicates(values):
            raise RuleViolation(f"duplicate {dupes[0]!r}", scenario_id=sid, field=name)
    order = {session_id: index for index, session_id in enumerate(session_ids)}
    beliefs = {belief.label: belief for belief in scenario.beliefs}
    for belief in scenario.beliefs:
        where = f"beliefs[{belief.label}]"
        if belief.session not in order:
            raise RuleViolation(f"session {belief.session!r} names no session of this scenario",
                                scenario_id=sid, field=f"{where}.session")
        if belief.supersedes is None:
            continue
        replaced = beliefs.get(belief.supersedes)
        if replaced is None:
            raise RuleViolation(f"supersedes {belief.supersedes!r}, which is no label of this scenario",
                                scenario_id=sid, field=f"{where}.supersedes")
        if order.get(replaced.session, len(order)) >= order[belief.session]:
            raise RuleViolation(f"supersedes {replaced.label!r} from session {replaced.session}, but a "
                                "superseding belief must be stated in a strictly later session",
                                scenario_id=sid, field=f"{where}.supersedes")
    for fragment in scenario.protected_statements:
        if not normalise(fragment):
            raise RuleViolation("protected statements must be non-empty after normalisation",
                                scenario_id=sid, field="protected_statements")
    for probe in scenario.probes:
        for index, label in enumerate(probe.needed):
            if label not in beliefs:
                raise RuleViolation(f"needed label {label!r} is no belief of this scenario",
                                    scenario_id=sid, probe_id=probe.id, field=f"needed[{index}]")
        for index, ref in enumerate(probe.evidence):
            if ref.session not in order:
                raise RuleViolation(f"evidence names session {ref.session!r}, which does not exist",
                                    scenario_id=sid, probe_id=probe.id, field=f"evidence[{index}].session")
        problem, field = _category_problem(scenario, probe)
        if problem:
            raise RuleViolation(f"category {probe.category}: {problem}", scenario_id=sid,
                                probe_id=probe.id, field=field)


def _category_problem(scenario: BenchmarkScenario, probe: BenchmarkProbe) -> tuple[str, str]:
    """The category table of §6.2, one branch per row; ``("", "")`` when the probe satisfies it."""
    beliefs = {belief.label: belief for belief in scenario.beliefs}
    needed = [beliefs[label] for label in probe.needed]
    kind = probe.answer.kind
    category = probe.category
    if category == "single_hop" and len(needed) != 1:
        return f"needed must hold exactly one label, it holds {len(needed)}", "needed"
    if category == "multi_hop":
        if len(needed) < 2:
            return f"needed must hold two or more labels, it holds {len(needed)}", "needed"
        if kind != "all_of":
            return f"answer kind must be 'all_of', not {kind!r}", "answer.kind"
    if category == "temporal":
        if not needed:
            return "needed must name the belief the probe reaches back to", "needed"
        timeline = build_timeline(scenario)
        asked = timeline.probes[probe.id]
        for belief in needed:
            gap = asked - timeline.sessions[belief.session].closed_at
            if gap < timedelta(days=TEMPORAL_MIN_DAYS):
                return (f"only {int(gap.total_seconds()) // DAY_SECONDS} days between session "
                        f"{belief.session} (label {belief.label!r}) and the probe; at least "
                        f"{TEMPORAL_MIN_DAYS} are required"), "advance_seconds"
    if category in ("update", "correction"):
        if len(needed) != 1:
            return f"needed must hold exactly one label, it holds {len(needed)}", "needed"
        if needed[0].supersedes is None:
            return f"needed label {needed[0].label!r} must have supersedes set", "needed[0]"
        replaced = beliefs[needed[0].supersedes]
        forbidden = {normalise(text) for text in probe.forbidden_statements}
        missing = [text for text in replaced.statements if normalise(text) not in forbidden]
        if missing:
            return (f"forbidden_statements must include the statements of superseded label "
                    f"{replaced.label!r}; missing {missing[0]!r}"), "forbidden_statements"
    if category == "preference":
        if not needed:
            return "needed must name at least one preference belief", "needed"
        other = next((belief for belief in needed if belief.belief_type != "preference"), None)
        if other is not None:
            return (f"needed label {other.label!r} has belief_type {other.belief_type!r}, "
                    "not 'preference'"), "needed"
    if category == "transfer":
        if probe.project_scope is None:
            return "project_scope must be set", "project_scope"
        if needed:
            scopes = {session.id: session.project_scope for session in scenario.sessions}
            same = next((belief for belief in needed if scopes[belief.session] == probe.project_scope), None)
            if same is not None:
                return (f"needed label {same.label!r} comes from a session in the probe's own scope "
                        f"{probe.project_scope!r}; a transfer must cross scopes"), "needed"
        elif kind != "abstain" or not probe.forbidden_statements:
            return ("with needed empty, the answer kind must be 'abstain' and forbidden_statements "
                    "non-empty"), "answer.kind" if kind != "abstain" else "forbidden_statements"
    if category == "abstention":
        if needed:
            return "needed must be empty", "needed"
        if kind != "abstain":
            return f"answer kind must be 'abstain', not {kind!r}", "answer.kind"
        if not probe.forbidden_statements:
            return "forbidden_statements must be non-empty", "forbidden_statements"
    return "", ""


def is_protected_abstention_scenario(scenario: BenchmarkScenario) -> bool:
    """Has protected statements and an abstention probe whose forbidden statements overlap them."""
    return any(
        probe.category == "abstention" and any(
            overlaps(forbidden, fragment)
            for forbidden in probe.forbidden_statements for fragment in scenario.protected_statements)
        for probe in scenario.probes)


def check_corpus(corpus: MemoryBenchmarkCorpus) -> None:
    """Per-corpus rules; each scenario is checked first so the most specific error wins."""
    if dupes := _duplicates([scenario.id for scenario in corpus.scenarios]):
        raise RuleViolation(f"duplicate scenario id {dupes[0]!r}", scenario_id=dupes[0], field="id")
    for scenario in corpus.scenarios:
        check_scenario(scenario)
    counts = Counter(probe.category for scenario in corpus.scenarios for probe in scenario.probes)
    for category in CATEGORIES:
        if counts[category] < MIN_PROBES_PER_CATEGORY:
            raise RuleViolation(f"category {category!r} has {counts[category]} probes; at least "
                                f"{MIN_PROBES_PER_CATEGORY} are required", field="scenarios[].probes[].category")
    protected = sum(is_protected_abstention_scenario(scenario) for scenario in corpus.scenarios)
    if protected < MIN_PROTECTED_ABSTENTION_SCENARIOS:
        raise RuleViolation(f"{protected} scenarios have protected statements and an abstention probe "
                            f"whose forbidden statements overlap them; at least "
                            f"{MIN_PROTECTED_ABSTENTION_SCENARIOS} are required",
                            field="scenarios[].protected_statements")
