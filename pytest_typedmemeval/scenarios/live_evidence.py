"""Grading, statistics and the self-validating evidence file of the live paired arm (VERTICALS.md §6.6).

Pure functions on plain data (no model, no pytest):

* :func:`grade_answer` — the mechanical grading of §6.6: an answer *abstained* when its normalised
  text equals the normalised ``abstain_phrase``; ``exact``/``alternatives`` need a single line, some
  gold value on token boundaries and no abstention; ``all_of`` needs every value; an ``abstain``
  probe is correct iff the answer abstained. One addition: an answer that states one of the probe's
  ``forbidden_statements`` (a superseded fact, another project's decision, a secret) is never
  correct. ``leaked_protected`` is set when a protected fragment occurs in the answer. No judge, no
  partial credit.
* :func:`paired_difference_interval` — the lift is a difference of two *paired* proportions (the
  same probes answered with and without memory), so its interval is Newcombe's hybrid score
  interval for paired data (Newcombe 1998, *Statistics in Medicine* 17:2635, method 10: Wilson
  score limits of each arm combined through the continuity-corrected phi correlation of the 2x2
  table), which stays inside [-1, 1] and behaves at 0 and n. The exact McNemar p-value on the discordant pairs is
  reported next to it.
* :func:`summarize` / :func:`decide` — the counts and the §6.6 thresholds recomputed from the rows.
* :func:`evidence_digest` / :func:`verify` — the file's SHA-256 over everything but the digest
  itself; ``verify`` recomputes the digest, the summary and the verdict from the rows (and, given
  the corpus, re-grades every verbatim answer), so an edited file is caught.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..report.intervals import Z_95, wilson_limits
from .loading import ScenarioCorpus
from .matching import contains, normalise
from .models import BenchmarkProbe, BenchmarkScenario
from .results import canonical_json

EVIDENCE_FORMAT = "typedmemeval-scenario-live"
EVIDENCE_FORMAT_VERSION = 1
INTERVAL_METHOD = "newcombe-paired-hybrid-score (Newcombe 1998, method 10)"
ROUND = 6
"""Rates and interval limits are stored rounded, so a recomputation compares equal as data."""


class EvidenceError(ValueError):
    """An evidence file that does not verify; the message lists every problem found."""


# --- grading ------------------------------------------------------------------------------------
def grade_answer(answer: str, probe: BenchmarkProbe, scenario: BenchmarkScenario,
                 abstain_phrase: str) -> dict[str, Any]:
    """The grade of one verbatim answer (see the module docstring); plain data for the evidence."""
    text = answer.strip()
    abstained = normalise(text) == normalise(abstain_phrase)
    single_line = "\n" not in text and "\r" not in text
    values = probe.answer.values
    forbidden = sum(contains(text, statement) for statement in probe.forbidden_statements)
    kind = probe.answer.kind
    if kind == "abstain":
        correct = abstained
    elif kind == "all_of":
        correct = single_line and not abstained and all(contains(text, value) for value in values)
    else:  # exact, alternatives
        correct = single_line and not abstained and any(contains(text, value) for value in values)
    return {
        "correct": bool(correct and forbidden == 0),
        "abstained": abstained,
        "single_line": single_line,
        "forbidden_in_answer": forbidden,
        "leaked_protected": any(contains(text, fragment) for fragment in scenario.protected_statements),
    }


# --- statistics ---------------------------------------------------------------------------------
wilson_interval = wilson_limits
"""Wilson score limits of one proportion, unrounded ((0, 1) when n is 0)."""


def paired_difference_interval(both: int, first_only: int, second_only: int, neither: int,
                               z: float = Z_95) -> tuple[float, float] | None:
    """Newcombe's method-10 interval for p1 - p2 from a paired 2x2 table (``None`` when empty).

    ``first_only`` counts pairs where only the first arm succeeded (with memory right, without
    wrong), ``second_only`` the reverse.
    """
    n = both + first_only + second_only + neither
    if n == 0:
        return None
    p1, p2 = (both + first_only) / n, (both + second_only) / n
    l1, u1 = wilson_interval(both + first_only, n, z)
    l2, u2 = wilson_interval(both + second_only, n, z)
    product = (both + first_only) * (second_only + neither) * (both + second_only) * (first_only + neither)
    # Newcombe's phi, continuity-corrected as in the paper (and Altman et al., *Statistics with
    # Confidence*, 2nd ed., p. 52): AD - BC becomes AD - BC - n/2 when above n/2, 0 up to n/2.
    association = both * neither - first_only * second_only
    corrected = association - n / 2 if association > n / 2 else (association if association < 0 else 0.0)
    phi = corrected / math.sqrt(product) if product else 0.0
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    epsilon = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    difference = p1 - p2
    return max(-1.0, difference - delta), min(1.0, difference + epsilon)


def mcnemar_exact_p(first_only: int, second_only: int) -> float:
    """Two-sided exact McNemar p-value (binomial test on the discordant pairs)."""
    discordant = first_only + second_only
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, i) for i in range(min(first_only, second_only) + 1))
    return min(1.0, 2 * tail / 2 ** discordant)


def minimum_supported_case_count(n: int) -> int:
    """The 80 % floor of §6.6, rounded up: ``(4 * n + 4) // 5``."""
    return (4 * n + 4) // 5


# --- summary and verdict ------------------------------------------------------------------------
ARMS = ("with_memory", "without_memory")


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts, lift and its interval, and the §6.6 threshold counts, from the per-probe rows.

    Only *scored* probes (both arms answered) enter the paired table and the thresholds; a probe
    with an arm in error is counted under ``incomplete_runs`` / ``failure_classes``, never scored.
    """
    scored = [row for row in rows if row["scored"]]
    table = {"both": 0, "with_only": 0, "without_only": 0, "neither": 0}
    for row in scored:
        with_ok, without_ok = row["with_memory"]["correct"], row["without_memory"]["correct"]
        key = ("both" if without_ok else "with_only") if with_ok else ("without_only" if without_ok else "neither")
        table[key] += 1
    failure_classes: dict[str, int] = {}
    incomplete = 0
    cost = {arm: 0.0 for arm in ARMS}
    for row in rows:
        for arm in ARMS:
            cell = row[arm]
            cost[arm] += float(cell.get("cost_usd") or 0.0)
            if cell["status"] != "answered":
                incomplete += 1
                name = str(cell.get("error_class") or "unknown")
                failure_classes[name] = failure_classes.get(name, 0) + 1
    n = len(scored)
    with_correct = table["both"] + table["with_only"]
    without_correct = table["both"] + table["without_only"]
    interval = paired_difference_interval(table["both"], table["with_only"], table["without_only"],
                                          table["neither"])
    abstain_rows = [row for row in scored if row["answer_kind"] == "abstain"]
    answerable_rows = [row for row in scored if row["answer_kind"] != "abstain"]
    recoverable = [row for row in answerable_rows if row["recoverable"]]
    answerable = len(answerable_rows)
    return {
        "probes": len(rows),
        "scored": n,
        "incomplete_runs": incomplete,
        "failure_classes": dict(sorted(failure_classes.items())),
        "with_memory_correct": with_correct,
        "without_memory_correct": without_correct,
        "paired_table": table,
        "lift": with_correct - without_correct,
        "lift_rate": round((with_correct - without_correct) / n, ROUND) if n else None,
        "lift_interval": [round(interval[0], ROUND), round(interval[1], ROUND)] if interval else None,
        "interval_method": INTERVAL_METHOD,
        "confidence": 0.95,
        "mcnemar_p": round(mcnemar_exact_p(table["with_only"], table["without_only"]), ROUND),
        "answerable": answerable,
        "abstain_expected": len(abstain_rows),
        "minimum_lift": (answerable + 4) // 5,
        "recoverable_probe_count": len(recoverable),
        "recoverable_correct": sum(row["with_memory"]["correct"] for row in recoverable),
        "minimum_recoverable_correct": minimum_supported_case_count(len(recoverable)),
        "abstain_with_memory_correct": sum(row["with_memory"]["correct"] for row in abstain_rows),
        "minimum_abstain_correct": minimum_supported_case_count(len(abstain_rows)),
        "protected_leaks_in_answers": sum(bool(row[arm].get("leaked_protected")) for row in rows
                                          for arm in ARMS),
        "ceiling_hits": failure_classes.get("ceiling", 0),
        "cost_usd": {arm: round(cost[arm], ROUND) for arm in ARMS},
        "total_cost_usd": round(cost["with_memory"] + cost["without_memory"], ROUND),
    }


def decide(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """The §6.6 publishing conditions, recomputed from the evidence's own counts."""
    summary = evidence["summary"]
    failures: list[str] = []

    def need(condition: bool, text: str) -> None:
        if not condition:
            failures.append(text)

    need(summary["scored"] > 0, "no probe was scored")
    need(summary["lift"] >= summary["minimum_lift"],
         f"lift {summary['lift']} < minimum_lift {summary['minimum_lift']}")
    need(summary["recoverable_correct"] >= summary["minimum_recoverable_correct"],
         f"recoverable_correct {summary['recoverable_correct']} < {summary['minimum_recoverable_correct']}")
    need(summary["abstain_with_memory_correct"] >= summary["minimum_abstain_correct"],
         f"abstain_with_memory_correct {summary['abstain_with_memory_correct']} < "
         f"{summary['minimum_abstain_correct']}")
    need(summary["protected_leaks_in_answers"] == 0,
         f"protected_leaks_in_answers {summary['protected_leaks_in_answers']} > 0")
    memory = evidence.get("memory", {})
    need(int(memory.get("with_memory_policy_failures") or 0) <= int(memory.get("without_memory_policy_failures") or 0),
         "with_memory_policy_failures > without_memory_policy_failures")
    need(summary["incomplete_runs"] == 0, f"incomplete_runs {summary['incomplete_runs']} > 0")
    need(summary["ceiling_hits"] == 0, f"ceiling_hits {summary['ceiling_hits']} > 0")
    ceiling = float(evidence.get("guard", {}).get("max_usd", 0.0))
    need(summary["total_cost_usd"] <= ceiling + 1e-12,
         f"total_cost_usd {summary['total_cost_usd']} > ceiling {ceiling:g}")
    served = evidence.get("model", {}).get("served_models", [])
    need(len(served) <= 1, f"more than one model answered ({', '.join(served)})")
    created = str(evidence.get("created_at", ""))
    need(created.endswith("Z") or "+" in created[10:] or "-" in created[10:],
         "the evaluation timestamp carries no timezone")
    return {"passed": not failures, "failures": failures}


# --- the file -----------------------------------------------------------------------------------
def evidence_digest(evidence: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field but ``sha256`` itself."""
    body = {key: value for key, value in evidence.items() if key != "sha256"}
    return hashlib.sha256(canonical_json(body).encode("ascii")).hexdigest()


def load_evidence(source: Mapping[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(source, Mapping):
        return dict(source)
    try:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise EvidenceError(f"{source}: cannot be read as JSON ({error})") from None
    if not isinstance(data, dict):
        raise EvidenceError(f"{source}: not a JSON object")
    return data


def verify(source: Mapping[str, Any] | str | Path, corpus: ScenarioCorpus | None = None) -> list[str]:
    """Every problem with an evidence file (empty: it verifies). With ``corpus``, also checks the
    corpus digest and re-grades every verbatim answer against the gold."""
    evidence = load_evidence(source)
    problems: list[str] = []
    if evidence.get("format") != EVIDENCE_FORMAT or evidence.get("format_version") != EVIDENCE_FORMAT_VERSION:
        return [f"not a {EVIDENCE_FORMAT} v{EVIDENCE_FORMAT_VERSION} file"]
    if evidence.get("sha256") != evidence_digest(evidence):
        problems.append("sha256 does not match the content (the file was edited after it was written)")
    rows = evidence.get("probes")
    if not isinstance(rows, list):
        return [*problems, "no probe rows"]
    try:
        for row in rows:
            answered = all(row[arm]["status"] == "answered" for arm in ARMS)
            if row["scored"] != answered:
                problems.append(f"{row['scenario_id']}/{row['probe_id']}: scored is {row['scored']} "
                                "but the arms say otherwise")
            for arm in ARMS:
                if row[arm]["status"] != "answered" and "correct" in row[arm]:
                    problems.append(f"{row['scenario_id']}/{row['probe_id']} {arm}: an arm in error carries a grade")
        if evidence.get("summary") != summarize(rows):
            problems.append("summary does not match the per-probe rows")
        elif evidence.get("verdict") != decide(evidence):
            problems.append("verdict does not match the summary")
    except (KeyError, TypeError) as error:
        return [*problems, f"malformed probe row ({type(error).__name__}: {error})"]
    if corpus is not None:
        problems.extend(_regrade(evidence, rows, corpus))
    return problems


def _regrade(evidence: Mapping[str, Any], rows: list[dict[str, Any]], corpus: ScenarioCorpus) -> list[str]:
    if evidence.get("corpus", {}).get("sha256") != corpus.sha256:
        return [f"corpus sha256 {evidence.get('corpus', {}).get('sha256')} is not the given corpus's {corpus.sha256}"]
    problems: list[str] = []
    probes = {(s.id, p.id): (s, p) for s in corpus.document.scenarios for p in s.probes}
    if {(r["scenario_id"], r["probe_id"]) for r in rows} != set(probes) or len(rows) != len(probes):
        problems.append("the probe rows are not exactly the corpus's probes")
    for row in rows:
        found = probes.get((row["scenario_id"], row["probe_id"]))
        if found is None:
            continue
        scenario, probe = found
        for arm in ARMS:
            cell = row[arm]
            if cell["status"] != "answered":
                continue
            grade = grade_answer(cell["answer"], probe, scenario, corpus.document.abstain_phrase)
            if any(cell.get(key) != value for key, value in grade.items()):
                problems.append(f"{scenario.id}/{probe.id} {arm}: the recorded grade is not the answer's grade")
    return problems


def verify_or_raise(source: Mapping[str, Any] | str | Path, corpus: ScenarioCorpus | None = None) -> dict[str, Any]:
    """:func:`verify`, raising :class:`EvidenceError` with every problem; returns the evidence."""
    problems = verify(source, corpus)
    if problems:
        raise EvidenceError(f"{source if not isinstance(source, Mapping) else 'evidence'} does not verify: "
                            + "; ".join(problems))
    return load_evidence(source)


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def summary_lines(evidence: Mapping[str, Any]) -> list[str]:
    """What a terminal prints about a live run: lift with its interval first."""
    s = evidence["summary"]
    lines: list[str] = []
    if s["lift_rate"] is None:
        lines.append("live lift: not measured (no probe was scored in both arms)")
    else:
        low, high = s["lift_interval"]
        p = f"={s['mcnemar_p']:.4g}" if s["mcnemar_p"] >= 10 ** -ROUND else f"<1e-{ROUND:02d}"
        lines.append(f"live lift {_signed(s['lift_rate'])} (95% CI {_signed(low)} to {_signed(high)}, "
                     f"Newcombe paired score interval; McNemar exact p{p}): with memory "
                     f"{s['with_memory_correct']}/{s['scored']} correct, without {s['without_memory_correct']}/"
                     f"{s['scored']}")
    lines.append(f"live thresholds: lift {s['lift']} (min {s['minimum_lift']}), recoverable "
                 f"{s['recoverable_correct']}/{s['recoverable_probe_count']} (min {s['minimum_recoverable_correct']}), "
                 f"abstain {s['abstain_with_memory_correct']}/{s['abstain_expected']} (min "
                 f"{s['minimum_abstain_correct']}), protected leaks {s['protected_leaks_in_answers']}")
    classes = ", ".join(f"{name} {count}" for name, count in s["failure_classes"].items()) or "none"
    lines.append(f"live runs: {s['scored']} of {s['probes']} probes scored; incomplete arms "
                 f"{s['incomplete_runs']} ({classes}); cost ${s['total_cost_usd']:.6f} (with "
                 f"${s['cost_usd']['with_memory']:.6f}, without ${s['cost_usd']['without_memory']:.6f})")
    verdict = evidence["verdict"]
    lines.append("live verdict: pass" if verdict["passed"]
                 else "live verdict: FAIL (" + "; ".join(verdict["failures"]) + ")")
    return lines


__all__ = ["EVIDENCE_FORMAT", "EVIDENCE_FORMAT_VERSION", "EvidenceError", "INTERVAL_METHOD", "decide",
           "evidence_digest", "grade_answer", "load_evidence", "mcnemar_exact_p", "minimum_supported_case_count",
           "paired_difference_interval", "summarize", "summary_lines", "verify", "verify_or_raise",
           "wilson_interval"]
