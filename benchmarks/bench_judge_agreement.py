"""Measure how closely a judge grades the labelled answer bank the way docs/JUDGING.md says.

Not a test: run ``python benchmarks/bench_judge_agreement.py [--main | --heldout | --bank PATH]
[--judge mechanical]``. By default it grades both banks and prints the same tables for each:

* the main bank (``tests/judge_bank/bank.jsonl``, built by ``tests/judge_bank/build_bank.py``):
  realistic answers to the shipped questions in templated phrasing families, labelled from the
  contract alone;
* the held-out set (``tests/judge_bank/heldout.jsonl``, see ``heldout_README.md``): answers written
  by hand, one by one, in the styles real chat models and memory products use, labelled from the
  contract before any judge graded them. The main bank's templates were written together with the
  judge's rules, so agreement on it proves less than it seems; the held-out figure is the honest one.

Either way this is the judge's second instrument: where ``tests/test_judge_bank.py`` only says pass or fail, this script
says *where* a judge departs from the contract — agreement overall, per phrasing family and per
vertical (each with n), the expected x judged confusion matrix, how many declines and denials were
graded ``wrong`` (the failure the contract forbids outright), and the first disagreements with
the judge's own reason, so a fix can start from the case rather than from a percentage.

Agreement counts a case only when both the outcome and the Forgetting sub-counts match. The
``llm`` and ``hybrid`` judges need ``--judge-model`` and an ``OPENAI_API_KEY``; they grade the
same bank with the question text the adapter would have seen.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from judge_bank.build_bank import (  # noqa: E402  (needs tests/ on sys.path)
    BANK_PATH,
    HELDOUT_PATH,
    HELDOUT_QUESTIONS_PATH,
    DECLINE_FAMILIES,
    DENIAL_FAMILIES,
    load_records,
)

from pytest_typedmemeval.corpus.models import AnswerKey  # noqa: E402
from pytest_typedmemeval.judge.outcomes import Verdict  # noqa: E402

OUTCOMES = ("correct", "wrong", "abstained", "missed", "premature", "unjudged")
JUDGES = ("mechanical", "llm", "hybrid")

Grader = Callable[[str, AnswerKey, str], Verdict]
Row = tuple[dict[str, Any], Verdict]


def build_grader(name: str, model: str | None, base_url: str | None) -> Grader:
    """The judge to measure, behind one call shape: (answer, key, question) -> Verdict."""
    if name == "mechanical":
        from pytest_typedmemeval.judge.mechanical import judge_answer

        return lambda answer, key, question: judge_answer(answer, key, surfaced_items=None,
                                                          question=question)
    from pytest_typedmemeval.judge.choice import JudgeChoice

    judge = JudgeChoice.parse(name, model, base_url).build()
    return lambda answer, key, question: judge.judge(answer, key, None, question=question)


def grade(bank: Iterable[dict[str, Any]], grader: Grader, questions: Path | None = None) -> list[Row]:
    """Grade every case against its question's key, found by (corpus id, question id): the shipped
    corpora for the templated bank, the frozen questions a hand-written set was written for
    (``heldout_questions.jsonl``, or the set's own ``<name>_questions.jsonl``) before them."""
    frozen = [json.loads(line) for path in (HELDOUT_QUESTIONS_PATH, questions) if path is not None
              for line in path.read_text(encoding="utf-8").splitlines()]
    records = {(record["corpus_id"], record["question_id"]): record
               for record in (*load_records(), *frozen)}
    keys: dict[tuple[str, str], AnswerKey] = {}
    rows = []
    for case in bank:
        found = (case["corpus_id"], case["question_id"])
        record = records[found]
        key = keys.get(found)
        if key is None:
            key = keys[found] = AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
        rows.append((case, grader(case["answer"], key, record["question"])))
    return rows


def agrees(case: Mapping[str, Any], verdict: Verdict) -> bool:
    return (verdict.outcome.value == case["expected"]
            and sorted(verdict.subcounts) == list(case["expected_subcounts"]))


def print_breakdown(title: str, rows: list[Row], key: Callable[[dict[str, Any]], str]) -> None:
    """Agreement per group, worst first, with n (a rate without its n says nothing)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for case, verdict in rows:
        groups[key(case)].append(agrees(case, verdict))
    print(f"\n{title}")
    width = max(len(name) for name in groups)
    for name, hits in sorted(groups.items(), key=lambda item: (sum(item[1]) / len(item[1]), item[0])):
        print(f"  {name:<{width}}  {sum(hits) / len(hits):7.2%}  ({sum(hits)}/{len(hits)})")


def print_confusion(rows: list[Row]) -> None:
    """Expected (rows) x judged (columns) outcomes; the diagonal is agreement on the outcome."""
    matrix: Counter[tuple[str, str]] = Counter((c["expected"], v.outcome.value) for c, v in rows)
    judged = [*OUTCOMES, *sorted({v.outcome.value for _, v in rows} - set(OUTCOMES))]
    print("\nconfusion (rows: expected, columns: judged)")
    print(" " * 11 + "".join(f"{name[:9]:>10}" for name in judged) + f"{'n':>8}")
    for expected in OUTCOMES:
        cells = [matrix[expected, name] for name in judged]
        print(f"  {expected:<9}" + "".join(f"{cell:>10}" for cell in cells) + f"{sum(cells):>8}")


def print_disagreements(rows: list[Row], limit: int) -> None:
    bad = [(case, verdict) for case, verdict in rows if not agrees(case, verdict)]
    print(f"\ndisagreements: {len(bad)} (showing up to {limit})")
    for case, verdict in bad[:limit]:
        answer = case["answer"] if len(case["answer"]) <= 110 else case["answer"][:107] + "..."
        expected = case["expected"] + (f" {case['expected_subcounts']}" if case["expected_subcounts"] else "")
        got = verdict.outcome.value + (f" {sorted(verdict.subcounts)}" if verdict.subcounts else "")
        print(f"  {case['case_id']}  [{case['rule']}]\n    answer:   {answer!r}\n"
              f"    expected: {expected}   got: {got}\n    reason:   {verdict.reason}")


def report(path: Path, grader: Grader, judge: str, show: int) -> None:
    """Grade one bank file and print every table for it."""
    bank = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    start = time.perf_counter()
    sibling = path.with_name(f"{path.stem}_questions.jsonl")
    rows = grade(bank, grader, sibling if sibling.exists() else None)
    seconds = time.perf_counter() - start

    hits = sum(agrees(case, verdict) for case, verdict in rows)
    outcome_hits = sum(case["expected"] == verdict.outcome.value for case, verdict in rows)
    declines_wrong = sum(1 for case, verdict in rows
                         if case["family"] in DECLINE_FAMILIES | DENIAL_FAMILIES
                         and verdict.outcome.value == "wrong")
    print(f"judge: {judge}   bank: {path} ({len(rows)} cases, graded in {seconds:.2f} s, "
          f"{1000 * seconds / max(len(rows), 1):.2f} ms/case)")
    print(f"agreement: {hits / len(rows):.2%} ({hits}/{len(rows)}; outcome only "
          f"{outcome_hits / len(rows):.2%})")
    print(f"declines/denials graded wrong: {declines_wrong}")
    print_breakdown("per vertical", rows, lambda case: case["vertical"])
    print_breakdown("per (vertical, shape, arm)", rows,
                    lambda case: f"{case['vertical']}/{case['shape']}/{case['arm'] or '-'}")
    print_breakdown("per family", rows, lambda case: case["family"])
    if all("style" in case for case, _ in rows):
        # held-out answers carry their writing styles ("verbose+markdown"); a case counts in each
        print_style_breakdown(rows)
    print_confusion(rows)
    print_disagreements(rows, show)


def print_style_breakdown(rows: list[Row]) -> None:
    """Agreement per writing style (held-out set): a case with several styles counts in each."""
    expanded: list[Row] = []
    for case, verdict in rows:
        for style in case["style"].split("+"):
            expanded.append(({**case, "style": style}, verdict))
    print_breakdown("per style", expanded, lambda case: case["style"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--main", action="store_true", help="grade only the main bank")
    which.add_argument("--heldout", action="store_true", help="grade only the hand-written held-out set")
    which.add_argument("--bank", type=Path, default=None, help="grade only this bank file")
    parser.add_argument("--judge", choices=JUDGES, default="mechanical")
    parser.add_argument("--judge-model", default=None, help="model for --judge llm/hybrid")
    parser.add_argument("--judge-base-url", default=None, help="endpoint for --judge llm/hybrid")
    parser.add_argument("--show", type=int, default=30, help="disagreements to list per bank")
    args = parser.parse_args()

    if args.bank is not None:
        paths = [args.bank]
    elif args.main:
        paths = [BANK_PATH]
    elif args.heldout:
        paths = [HELDOUT_PATH]
    else:
        paths = [BANK_PATH, HELDOUT_PATH]
    grader = build_grader(args.judge, args.judge_model, args.judge_base_url)
    for index, path in enumerate(paths):
        if index:
            print("\n" + "=" * 100 + "\n")
        report(path, grader, args.judge, args.show)


if __name__ == "__main__":
    main()
