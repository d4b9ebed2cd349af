"""Time the model-free certification gates on a corpus the size of the full family.

Not a test: a script that prints seconds per gate and each gate's share of the total, measured
side by side on one synthetic corpus (~500 questions x ~25 sessions by default). Gate modules are
imported defensively, so it runs with whichever gates exist.

    python benchmarks/bench_gates.py [--questions 500] [--sessions 25] [--seed 20260501] [--repeat 1]

The corpus is built as ``QuestionRecord`` objects from one seeded ``random.Random`` (never the
global random state), with gold and filler sessions from the same templates, a share of
derivation (sum) questions so the leak gate's number scan has work, a share of gold-less questions,
and a sidecar carrying probe records so the probe gate computes figures instead of skipping.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from pytest_typedmemeval.corpus.loading import Corpus
from pytest_typedmemeval.corpus.models import (
    AnswerKey,
    CorpusTurn,
    Derivation,
    DerivationInput,
    ExtensionBlock,
    NumericKey,
    ProbeRecord,
    ProbeVerdict,
    QuestionRecord,
    Sidecar,
    format_corpus_date,
)

GATE_NAMES = ("structure", "separability", "calibration", "leaks", "adversaries", "probes")
VERTICAL = "arithmetic"
SHAPES = ("recall", "sum", "never-known")

_WORDS = ("garden kettle window ferry ticket market lantern pillow harbour violin bicycle orchard "
          "notebook blanket compass lemon pepper candle bridge tunnel meadow cabinet ribbon shovel "
          "button mirror parcel saddle thimble wagon anchor basket feather helmet jacket ladder "
          "marble needle pebble quiver rocket sandal teapot umbrella vessel walnut yarn zipper").split()
_ADJECTIVES = "calm odd bright slow busy quiet mild brisk warm damp plain tidy".split()
_ATTRIBUTES = ("locker code", "gate code", "desk number", "parking bay", "gym badge", "shelf label")
_NAMES = ("Ardo", "Belin", "Corra", "Dessa", "Ettor", "Fiala", "Gorun", "Hesta", "Ilvo", "Jorna")


def _sentence(rng: random.Random, words: int) -> str:
    body = " ".join(rng.choice(_WORDS) for _ in range(words))
    return f"{body.capitalize()} felt {rng.choice(_ADJECTIVES)} today."


def _filler_session(rng: random.Random, turns: int) -> tuple[CorpusTurn, ...]:
    out = []
    for index in range(turns):
        out.append(CorpusTurn(role="user" if index % 2 == 0 else "assistant", content=" ".join(
            _sentence(rng, rng.randint(6, 14)) for _ in range(rng.randint(1, 3)))))
    return tuple(out)


def _gold_session(rng: random.Random, turns: int, statement: str) -> tuple[CorpusTurn, ...]:
    session = list(_filler_session(rng, turns))
    session[0] = CorpusTurn(role="user", content=f"{statement} {_sentence(rng, 8)}", has_answer=True)
    return tuple(session)


def build_corpus(questions: int, sessions: int, seed: int) -> Corpus:
    """A synthetic corpus of ``questions`` questions with about ``sessions`` sessions each."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 5, 9, 0)
    records: list[QuestionRecord] = []
    for number in range(1, questions + 1):
        shape = SHAPES[number % len(SHAPES)]
        n = max(4, sessions + rng.randint(-3, 3))
        turns = rng.choice((4, 6))
        haystack = [_filler_session(rng, turns) for _ in range(n)]
        gold_indices = sorted(rng.sample(range(n), 2 if shape == "sum" else 1)) if shape != "never-known" else []
        name = rng.choice(_NAMES)
        attribute = rng.choice(_ATTRIBUTES)
        block: dict[str, Any] = {"vertical": VERTICAL, "shape": shape}
        if shape == "recall":
            value = f"{rng.choice(_WORDS)}-{rng.randint(100, 999)}"
            haystack[gold_indices[0]] = _gold_session(rng, turns, f"{name}'s {attribute} is {value}.")
            question, answer = f"What is {name}'s {attribute}?", value
            block["answer_key"] = AnswerKey(accepted=(value,))
        elif shape == "sum":
            amounts = [round(rng.uniform(10, 400), 2) for _ in gold_indices]
            for index, amount in zip(gold_indices, amounts):
                haystack[index] = _gold_session(rng, turns, f"The {attribute} repair for {name} cost ${amount:.2f}.")
            total = round(sum(amounts), 2)
            question, answer = f"How much did the {attribute} repairs for {name} cost in total?", f"${total:.2f}"
            block["answer_key"] = AnswerKey(accepted=(answer,), numeric=NumericKey(value=total, unit="USD"))
            block["derivation"] = Derivation(operation="sum", value=total, unit="USD", inputs=tuple(
                DerivationInput(session_index=i, value=a) for i, a in zip(gold_indices, amounts)))
        else:
            question, answer = f"What is {name}'s {attribute}?", "You never told me."
            block["answer_key"] = AnswerKey(expected_negative="abstain")
        ids = tuple(f"s{number:03d}-{index:02d}-{rng.getrandbits(24):06x}" for index in range(n))
        dates = tuple(format_corpus_date(start + timedelta(days=index, hours=rng.randint(0, 8)))
                      for index in range(n))
        records.append(QuestionRecord(
            question_id=f"tme-ari-{number:03d}" + ("_abs" if shape == "never-known" else ""),
            question_type=shape, question=question, answer=answer,
            question_date=format_corpus_date(start + timedelta(days=n + 1)),
            haystack_session_ids=ids, haystack_dates=dates, haystack_sessions=tuple(haystack),
            answer_session_ids=tuple(ids[i] for i in gold_indices),
            typedmemeval=ExtensionBlock.model_validate(block),
        ))
    text = json.dumps([record.model_dump(mode="json") for record in records], ensure_ascii=False)
    sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    sidecar = Sidecar(corpus_id="bench-gates", revision=1, vertical=VERTICAL, sha256=sha256,
                      probe_records=_probe_records(rng, records))
    return Corpus(corpus_id="bench-gates", path=Path("<bench>"), sha256=sha256,
                  records=tuple(records), sidecar=sidecar, vertical=VERTICAL)


def _probe_records(rng: random.Random, records: list[QuestionRecord]) -> tuple[ProbeRecord, ...]:
    provenance: dict[str, Any] = {"model": "bench-model", "date": "2026-05-01", "seed": 1,
                                  "temperature": 0.0}
    rates = {"V1": 0.97, "V8": 0.9, "V9": 0.55}
    out = []
    for shape in SHAPES:
        members = [r for r in records if r.shape == shape]
        if shape == "never-known":
            for arm in ("V10", "V11"):
                out.append(ProbeRecord(arm=arm, shape=shape, status="measured", **provenance, verdicts=tuple(
                    ProbeVerdict(question_id=r.question_id, sample=s, outcome="abstain")
                    for r in members for s in range(3))))
            continue
        for arm, rate in rates.items():
            out.append(ProbeRecord(arm=arm, shape=shape, status="measured", **provenance, verdicts=tuple(
                ProbeVerdict(question_id=r.question_id,
                             outcome="correct" if rng.random() < rate else "wrong")
                for r in members)))
    return tuple(out)


def _import(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"pytest_typedmemeval.gates.{name}")
    except ImportError as error:
        print(f"  (gate {name!r} not available: {error})", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=25)
    parser.add_argument("--seed", type=int, default=20260501)
    parser.add_argument("--repeat", type=int, default=1, help="runs per gate; the best is reported")
    parser.add_argument("--gates", nargs="*", default=list(GATE_NAMES), choices=GATE_NAMES)
    args = parser.parse_args(argv)

    began = time.perf_counter()
    corpus = build_corpus(args.questions, args.sessions, args.seed)
    built = time.perf_counter() - began
    sessions = sum(len(r.haystack_sessions) for r in corpus.records)
    turns = sum(len(s) for r in corpus.records for s in r.haystack_sessions)
    print(f"corpus: {len(corpus.records)} questions, {sessions} sessions, {turns} turns "
          f"(built in {built:.2f}s, seed {args.seed})")

    timings: dict[str, float] = {}
    verdicts: dict[str, str] = {}
    for name in args.gates:
        module = _import(name)
        if module is None:
            continue
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            began = time.perf_counter()
            result = module.check(corpus)
            best = min(best, time.perf_counter() - began)
        timings[name] = best
        verdicts[name] = f"{result.status} ({len(result.refusals)} refusal(s))"
    total = sum(timings.values())
    if not timings:
        print("no gate module available")
        return 1
    print(f"\n{'gate':<14}{'seconds':>10}{'share':>9}  verdict on the synthetic corpus")
    for name, seconds in sorted(timings.items(), key=lambda item: -item[1]):
        share = seconds / total if total else 0.0
        print(f"{name:<14}{seconds:>10.3f}{share:>8.1%}  {verdicts[name]}")
    print(f"{'total':<14}{total:>10.3f}{1:>8.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
