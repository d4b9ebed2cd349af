"""Rendering the aggregate as the terminal summary's lines: the human surface of a run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .subcounts import subcounts_line

_ABBREVIATIONS = (("correct", "C"), ("wrong", "W"), ("abstained", "A"), ("missed", "M"),
                  ("premature", "P"), ("unjudged", "U"), ("error", "E"))


def _vector_line(label: str, vector: Mapping[str, Any], width: int) -> str:
    outcomes = vector["outcomes"]
    counts = " ".join(f"{abbr} {outcomes[name]['count']:>2}" for name, abbr in _ABBREVIATIONS)
    correct = outcomes["correct"]
    rate = ""
    if correct["rate"] is not None:
        low, high = correct["ci95"]
        rate = f"  correct {correct['rate']:.2f} [{low:.2f}, {high:.2f}]"
    coverage = vector["coverage"]
    cov = "cov n/a" if coverage["mean"] is None else f"cov {coverage['mean']:.2f} (n={coverage['n_defined']})"
    share = vector["attribution"]["observed_share"]
    observed = "evidence n/a" if share is None else f"evidence observed {share:.0%}"
    return f"  {label:<{width}} n={vector['n']:<3} {counts}{rate}  {cov}  {observed}"


def agreement_line(agreement: Mapping[str, Any]) -> str:
    """One line: how often the mechanical second opinion agreed with the model judge."""
    rate = agreement["agreement_rate"]
    agreed = (f"agreed {agreement['agreed']}/{agreement['compared']} ({rate:.2f} "
              f"[{agreement['ci95'][0]:.2f}, {agreement['ci95'][1]:.2f}])" if rate is not None
              else "no answer graded by both with a verdict each")
    return (f"judge agreement (mechanical vs model, n={agreement['n']}): {agreed}; mechanical "
            f"unjudged {agreement['mechanical_unjudged']}, model errors {agreement['model_errors']}")


def render_lines(aggregated: Mapping[str, Any], citations: Mapping[str, str]) -> list[str]:
    lines: list[str] = []
    for corpus in aggregated["results"]:
        for vertical in corpus["verticals"]:
            lines.append(f"{corpus['corpus_id']} — {vertical['vertical']} (n={vertical['n']})")
            width = max([len(s["shape"]) for s in vertical["shapes"]] + [len("all shapes")])
            for shape in vertical["shapes"]:
                lines.append(_vector_line(shape["shape"], shape, width))
            if len(vertical["shapes"]) > 1:
                lines.append(_vector_line("all shapes", vertical, width))
            subcounts = subcounts_line(vertical["vertical"], vertical["subcounts"])
            if subcounts is not None:
                lines.append(subcounts)
            order = vertical.get("surfaced_order")
            if order:
                lines.append(f"  list order over surfaced items (never an outcome): consistent "
                             f"{order['consistent']}/{order['n']} ({order['rate']:.2f})")
            pairs = vertical.get("pair_consistency")
            if pairs:
                lines.append(f"  pairs: {pairs['pairs']} complete, both correct {pairs['both_correct']}, "
                             f"premature {pairs['premature']}, missed on after arm {pairs['missed_after']}, "
                             f"same answer both arms {pairs['same_answer_both_arms']}")
            for row in vertical.get("outcome_by_distance", []):
                lines.append(_vector_line(f"d={row['distance_sessions']}", row, width))
    agreement = aggregated.get("judge_agreement")
    if agreement:
        lines.append(agreement_line(agreement))
    lines.append("C correct, W wrong, A abstained, M missed, P premature, U unjudged (the judge "
                 "could not read the answer; never counted as wrong), E error; "
                 "intervals are Wilson 95%; no composite score is computed.")
    for corpus_id in sorted(citations):
        if any(c["corpus_id"] == corpus_id for c in aggregated["results"]):
            lines.append(f"Cite as: {citations[corpus_id]}")
    return lines
