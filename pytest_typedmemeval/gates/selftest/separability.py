"""The separability gate's self-test fixtures and its synthetic corpus: invented-word haystacks with
gold and filler drawn alike, and the tells (length drift, role order, dashes, a one-in-two marker,
boundary phrases) that one feature separates.

:func:`build_synthetic_corpus` also drives ``benchmarks/bench_separability.py`` and the V7
false-refusal simulation.

One template machinery: gold and filler sessions are rendered by the same function from random
values; they differ only in whose fact they state. Defects are injected by a small decorator
applied to the rendered drafts, so each self-test case differs from the clean control in the
defect alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ...corpus.loading import Corpus
from ...corpus.models import QuestionRecord
from ..result import GateResult, SelfTestCase, defect_case


_QUESTION_SYLLABLES = ("ka", "lo", "ren", "mi", "tu", "sav", "del", "or")
_FILLER_SYLLABLES = ("bi", "pe", "gon", "zu", "fa", "mel", "tir", "ux")
_ATTRIBUTES = ("locker code", "gate code", "desk number", "parking bay", "gym badge",
               "shelf label", "bike lock", "bus pass")
_FACT_FRAMES = ("{subject}'s {attribute} is {value}.",
                "For {subject}, the {attribute} is {value}.",
                "The {attribute} for {subject} is {value}, as far as I know.")
_OPENERS = ("Quick note about {subject}.", "Something about {subject} for later.",
            "A detail on {subject}, please.", "About {subject} again.")
_ACKS = ("Noted, thanks.", "Got it, I will keep that.", "Understood.", "Thanks, that is saved.",
         "All right, it is stored.")
_USER_TALK = ("I walked {n} blocks this morning and the weather was {adj}.",
              "The kettle took {n} minutes today, which felt {adj}.",
              "My neighbour {name} waved at me {n} times.",
              "We tried a {adj} recipe with {n} steps, and it worked.",
              "I think we have {n} of those left in the cupboard.",
              "Traffic was {adj}; it took {n} minutes to get home.")
_ASSISTANT_TALK = ("That sounds {adj}.", "Interesting, {n} is quite a number.",
                   "Sounds like a {adj} day overall.", "I can see why that felt {adj}.",
                   "Good to hear, {name} sounds friendly.", "Thanks for sharing that.")
_ADJECTIVES = ("calm", "odd", "bright", "slow", "busy", "quiet", "mild", "brisk")
_PAD_UNIT = "it was a long and quiet week."
_ECHO_WORDS = ("lamp", "river", "garden", "window", "paper", "coffee", "market", "bridge")
_START = datetime(2026, 1, 5, 9, 0)
_GOLD_COUNTS = (2, 3)
"""G per question in the synthetic corpora. With G = 1 and 8-12 sessions the chance of a perfect
split is 2/n, about 0.2, so the 0.20 share floor of the distribution rule stops binding and the
significance test alone decides over ~900 correlated features. The retired uncorrected z >= 2.5
refused 43% of such clean corpora (173 of 400 seeds); with the Holm correction it is 2.8% (11 of
400), and 0.2% with G in {2, 3} (benchmarks/bench_v7_false_refusal.py; docs/V7.md). The controls
keep G in {2, 3}; the Holm cases (``_ranked_corpus``) use G = 1, where the correction matters."""


@dataclass
class _Plan:
    """One question being built: whose fact the gold states, and free slots for defect knobs."""

    index: int
    subject: str
    attribute: str
    answer: str
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Draft:
    """One session being built; ``turns`` items are [role, text, has_answer]."""

    gold: bool
    gold_rank: int
    turns: list[list[Any]]
    fact: int
    """Index of the user turn that states the session's fact (gold's or filler's alike)."""

    @property
    def fact_turn(self) -> list[Any]:
        return self.turns[self.fact]


_Decorate = Callable[[random.Random, _Plan, _Draft], None]
_PlanHook = Callable[[random.Random, _Plan], None]
_Arrange = Callable[[random.Random, _Plan, Sequence[_Draft]], None]
"""Like ``_Decorate``, but sees the whole haystack of one question at once."""


def _invented_name(rng: random.Random, syllables: Sequence[str], taken: set[str]) -> str:
    while True:
        name = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))).capitalize()
        if name not in taken:
            taken.add(name)
            return name


def _small_talk(rng: random.Random, bank: Sequence[str], names: Sequence[str]) -> str:
    return rng.choice(bank).format(n=rng.randint(2, 60), adj=rng.choice(_ADJECTIVES),
                                   name=rng.choice(names))


def _render_session(rng: random.Random, subject: str, attribute: str, value: str, *,
                    gold: bool, frames: Sequence[str],
                    names: Sequence[str]) -> tuple[list[list[Any]], int]:
    """The one template machinery: gold and filler differ only in the arguments.

    Returns the turns and the index of the fact-stating user turn."""
    exchanges = rng.randint(2, 4)
    fact_at = rng.randrange(exchanges)
    turns: list[list[Any]] = []
    for index in range(exchanges):
        if index == fact_at:
            opener = rng.choice(_OPENERS).format(subject=subject)
            fact = rng.choice(frames).format(subject=subject, attribute=attribute, value=value)
            turns.append(["user", f"{opener} {fact}", gold])
            turns.append(["assistant", rng.choice(_ACKS), False])
        else:
            turns.append(["user", _small_talk(rng, _USER_TALK, names), False])
            turns.append(["assistant", _small_talk(rng, _ASSISTANT_TALK, names), False])
    return turns, 2 * fact_at


def _build_corpus(seed: int, *, questions: int = 40, sessions: tuple[int, int] = (8, 12),
                  gold_counts: Sequence[int] = _GOLD_COUNTS, frames: Sequence[str] = _FACT_FRAMES,
                  question_frame: str = "What is {subject}'s {attribute}?",
                  plan_hook: _PlanHook | None = None, decorate: _Decorate | None = None,
                  arrange: _Arrange | None = None,
                  corpus_id: str = "synthetic-separability") -> Corpus:
    rng = random.Random(seed)
    taken: set[str] = set()
    filler_names = [_invented_name(rng, _FILLER_SYLLABLES, taken) for _ in range(40)]
    records = []
    for q_index in range(questions):
        plan = _Plan(q_index, _invented_name(rng, _QUESTION_SYLLABLES, taken),
                     rng.choice(_ATTRIBUTES), str(rng.randint(10, 9999)))
        if plan_hook is not None:
            plan_hook(rng, plan)
        n = rng.randint(*sessions)
        gold_indices = sorted(rng.sample(range(n), min(rng.choice(gold_counts), n)))
        drafts = []
        for s_index in range(n):
            gold = s_index in gold_indices
            if gold:
                turns, fact = _render_session(rng, plan.subject, plan.attribute, plan.answer, gold=True,
                                        frames=frames, names=filler_names)
            else:
                turns, fact = _render_session(rng, rng.choice(filler_names), rng.choice(_ATTRIBUTES),
                                        str(rng.randint(10, 9999)), gold=False, frames=frames,
                                        names=filler_names)
            drafts.append(_Draft(gold, gold_indices.index(s_index) if gold else -1, turns, fact))
        _align_role_sequences(drafts)
        if decorate is not None:
            for draft in drafts:
                decorate(rng, plan, draft)
        if arrange is not None:
            arrange(rng, plan, drafts)
        session_ids = [f"syn{q_index:03d}-s{s_index:02d}" for s_index in range(n)]
        records.append(QuestionRecord.model_validate({
            "question_id": f"tme-syn-{q_index + 1:03d}",
            "question_type": "synthetic-lookup",
            "question": question_frame.format(subject=plan.subject, attribute=plan.attribute),
            "answer": plan.answer,
            "question_date": _format_date(_START + timedelta(days=n + 1)),
            "haystack_session_ids": session_ids,
            "haystack_dates": [_format_date(_START + timedelta(days=i)) for i in range(n)],
            "haystack_sessions": [[{"role": role, "content": text, "has_answer": bool(flag)}
                                   for role, text, flag in draft.turns] for draft in drafts],
            "answer_session_ids": [session_ids[i] for i in gold_indices],
            "typedmemeval": {"vertical": "synthetic", "shape": "lookup",
                             "answer_key": {"accepted": [plan.answer]}},
        }))
    return Corpus(corpus_id=corpus_id, path=Path(f"<{corpus_id}>"), sha256="0" * 64,
                  records=tuple(records), sidecar=None, vertical="synthetic")


def _align_role_sequences(drafts: Sequence[_Draft]) -> None:
    """Pad every session of a question with empty exchanges to the longest (VERTICALS.md §4.4):
    sessions are alternating exchanges, so that length is their shortest common supersequence."""
    longest = max(len(draft.turns) for draft in drafts)
    for draft in drafts:
        while len(draft.turns) < longest:
            draft.turns += [["user", "", False], ["assistant", "", False]]


def _format_date(moment: datetime) -> str:
    from ...corpus.models import format_corpus_date

    return format_corpus_date(moment)


def build_synthetic_corpus(seed: int, *, questions: int = 40,
                           sessions: tuple[int, int] = (8, 12)) -> Corpus:
    """A clean corpus from the self-test's one template machinery (for benchmarks and demos)."""
    return _build_corpus(seed, questions=questions, sessions=sessions)



_MARKER = "Noted \u2014 I have that down."
_ONE_IN_TWO_MARKER = "Pinned for later, then."


def _acknowledgement_marker(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    if draft.gold:
        draft.turns[draft.fact + 1][1] = _MARKER


def _length_drift_plan(rng: random.Random, plan: _Plan) -> None:
    plan.extra["pad"] = rng.randint(0, 40)


def _length_tell(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    units = plan.extra["pad"] + (6 if draft.gold else rng.randint(0, 3))
    turn = draft.fact_turn
    turn[1] = turn[1] + "".join(" " + _PAD_UNIT for _ in range(units))


def _i_have_gold_only(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    if draft.gold:
        turn = draft.fact_turn
        turn[1] = "I have to say, " + turn[1][0].lower() + turn[1][1:]


def _role_order_tell(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    if draft.gold:  # same turns, same count: the last exchange answers before it is asked
        draft.turns[-2], draft.turns[-1] = draft.turns[-1], draft.turns[-2]


def _dash_modes(questions: int, seed: int) -> list[str]:
    modes = (["up"] * round(0.3 * questions) + ["down"] * round(0.2 * questions))
    modes += ["noise"] * (questions - len(modes))
    random.Random(seed).shuffle(modes)
    return modes


def _dash_tell(modes: Sequence[str]) -> tuple[_PlanHook, _Decorate]:
    """Dashes separate perfectly in half the questions, in opposite directions (30% up, 20% down),
    and tie everywhere in the other half, so the pooled AUC reads about 0.3 + 0.5 * 0.5 = 0.55
    while the distribution rule sees the perfect half."""

    def plan_hook(rng: random.Random, plan: _Plan) -> None:
        plan.extra["mode"] = modes[plan.index]

    def decorate(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
        mode = plan.extra["mode"]
        if mode == "up":
            count = 2 if draft.gold else rng.randint(0, 1)
        elif mode == "down":
            count = 0 if draft.gold else rng.randint(1, 2)
        else:  # one dash everywhere: these questions add exactly 0.5 per pair to the pool
            count = 1
        turn = draft.turns[0]
        turn[1] = turn[1] + " \u2013" * count

    return plan_hook, decorate


def _one_in_two_plan(rng: random.Random, plan: _Plan) -> None:
    plan.extra["marked"] = rng.random() < 0.4


def _one_in_two_marker(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    if draft.gold and draft.gold_rank == 0 and plan.extra["marked"]:
        turn = draft.fact_turn
        turn[1] = f"{turn[1]} {_ONE_IN_TWO_MARKER}"


_RANKED_SESSIONS = 12
"""Haystack size of the Holm cases: G = 1 in 12 sessions, so a perfect split has chance 2/12 = 1/6
and the 0.20 share floor sits barely above chance (the regime where the uncorrected rule failed)."""
_RANKED_QUESTIONS = 40


def _ranked_modes(up: int, down: int, seed: int) -> list[str]:
    modes = ["up"] * up + ["down"] * down + ["middle"] * (_RANKED_QUESTIONS - up - down)
    random.Random(seed).shuffle(modes)
    return modes


def _ranked_dashes(modes: Sequence[str]) -> tuple[_PlanHook, _Arrange]:
    """Each haystack's first user turns carry 0..n-1 dashes, a random permutation over its sessions
    (distinct values: p_q = 2/n exactly). Gold holds the most ("up") or the fewest ("down") in the
    chosen questions and a value strictly inside the range elsewhere, so exactly ``up + down``
    questions separate perfectly, in both directions (pooled AUC near 0.5)."""

    def plan_hook(rng: random.Random, plan: _Plan) -> None:
        plan.extra["mode"] = modes[plan.index]

    def arrange(rng: random.Random, plan: _Plan, drafts: Sequence[_Draft]) -> None:
        n = len(drafts)
        values = list(range(n))
        mode = plan.extra["mode"]
        gold_value = n - 1 if mode == "up" else 0 if mode == "down" else rng.randint(1, n - 2)
        values.remove(gold_value)
        rng.shuffle(values)
        rest = iter(values)
        for draft in drafts:
            count = gold_value if draft.gold else next(rest)
            turn = draft.turns[0]
            turn[1] = turn[1] + " \u2013" * count

    return plan_hook, arrange


def _ranked_corpus(seed: int, up: int, down: int) -> Corpus:
    hook, arrange = _ranked_dashes(_ranked_modes(up, down, seed))
    return _build_corpus(seed, questions=_RANKED_QUESTIONS, gold_counts=(1,),
                         sessions=(_RANKED_SESSIONS, _RANKED_SESSIONS), plan_hook=hook,
                         arrange=arrange)


_RANKED_FEATURE = "dashes[session]"
_CHANCE_SIZED = (7, 6)
"""13 of 40 questions perfect against E = 40/6 = 6.67, V = 5.56: z = 2.69 (one-sided p = 0.0036),
share 0.33. The uncorrected rule (z >= 2.5, share >= 0.20) refused it; among ~1,000 features tested
its Holm-adjusted p is about 1, as it should be: one of a thousand noise features reaches z = 2.69
more often than not."""
_STRONG_SINGLE = (9, 9)
"""18 of 40 perfect: z = 4.81 (p = 7.6e-7), Holm-adjusted about 7e-4 at ~1,000 features. With G = 1
in 12 sessions the corrected rule refuses from 16 of 40 (z = 3.96) at that family size."""



def _boundary_phrase(rng: random.Random, plan: _Plan, draft: _Draft) -> None:
    """Everyone says "near enough" and "Also on my mind"; only gold puts them side by side, with
    a sentence end and a bracket between them, so no real phrase spans the two."""
    words = ", ".join(rng.sample(_ECHO_WORDS, 2))
    turn = draft.fact_turn
    if draft.gold:
        turn[1] = f"{turn[1]} That is near enough. (Also on my mind: {words}.)"
    else:
        turn[1] = f"{turn[1]} (Also on my mind: {words}.) That is near enough."


_QUESTION_WORD_FRAMES = ("{subject}'s {attribute}: {value}.",)


def _question_word_plan(questions: int, seed: int) -> _PlanHook:
    """A quarter of the questions ask for an "aquarium code" only their gold states: gold-only
    corpus-wide in 25% >= 20% of questions (exclusivity would refuse it but for the exemption),
    while "aquarium" stays instance vocabulary (about 6% of sessions, under the 10% line)."""
    chosen = set(random.Random(seed).sample(range(questions), round(0.25 * questions)))

    def plan_hook(rng: random.Random, plan: _Plan) -> None:
        if plan.index in chosen:
            plan.attribute = "aquarium code"

    return plan_hook


def _expect(name: str, result: GateResult, rule: str, subject: Callable[[str], bool],
            *, not_by: Sequence[str] = ()) -> SelfTestCase:
    """defect_case, and the intended rule must fire on the intended feature (and not others)."""
    case = defect_case(name, result, rule)
    if not case.ok:
        return case
    hits = [r.subject for r in result.refusals if r.rule == rule and subject(r.subject)]
    if not hits:
        return SelfTestCase(name, "defect", rule, False,
                            f"{rule} fired, but not on the intended feature; fired on "
                            f"{sorted({r.subject for r in result.refusals if r.rule == rule})[:5]}")
    wrong = [r.subject for r in result.refusals if r.rule in not_by and r.subject in hits]
    if wrong:
        return SelfTestCase(name, "defect", rule, False,
                            f"{rule} fired on {hits[:3]}, but so did {list(not_by)} on {wrong[:3]}, "
                            "which this case is built to escape")
    return replace(case, detail=f"{case.detail}; {rule} on {hits[:3]}")


def _grams_of(text: str) -> set[str]:
    from ..features import PHRASE_PREFIX, phrase_grams

    return {PHRASE_PREFIX + gram for gram in phrase_grams(text)}
