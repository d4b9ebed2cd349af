"""Scoring an answer as the public datasets define it, plus our typed outcome.

Token F1 and exact match follow SQuAD's answer normalisation (lowercase, punctuation removed,
articles dropped, whitespace tokens), which LoCoMo's ``task_eval/evaluation.py`` extends by also
dropping "and" and by scoring multi-hop answers part by part (comma-split; the mean over gold parts
of the best prediction part). The text is first normalised with the mechanical judge's
:func:`~pytest_typedmemeval.judge.text.normalize` (NFKC, typographic quotes, casefold), so
"Don’t" and "don't" tokenise alike. Porter stemming, which LoCoMo adds, is not applied (no NLTK
dependency); the caveats say so.

An answer is correct at F1 >= 0.5 (VERTICALS.md §6.7). The typed outcome tells the rest apart: a
below-threshold answer that declines is ``abstained``, one that denies is ``missed``, any other is
``wrong``. Abstention probes (LoCoMo adversarial, LongMemEval ``_abs``, HaluMem Memory Boundary)
have no F1: an answer that declines or denies is ``abstained`` and counts as correct; one that
commits to the trap value, hedges a commitment, or just answers is ``wrong``. Declines and
denials are read by the mechanical judge's :class:`~pytest_typedmemeval.judge.reading.Reading`.
"""

from __future__ import annotations

import hashlib
import json
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..judge.outcomes import Outcome
from ..judge.reading import Reading
from ..judge.reading_patterns import reading_rules
from ..judge.text import NORMALISATION_RULES, normalize
from .models import DatasetQuestion

CORRECT_AT_F1 = 0.5
"""VERTICALS.md §6.7: these datasets publish F1-style scores; correct at F1 >= 0.5."""

SCORING_VERSION = "1"
"""Bump when the precedence below changes; pattern changes move the fingerprint on their own."""

DROPPED_WORDS: dict[str, frozenset[str]] = {
    "squad": frozenset({"a", "an", "the"}),
    "locomo": frozenset({"a", "an", "the", "and"}),
}
"""Words removed before tokens are compared, per rule set (SQuAD; LoCoMo's ``normalize_answer``)."""

_ASCII_PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True)
class Score:
    """One answer scored: the typed outcome, whether it counts as correct, F1 / EM where they
    apply (``None`` for an abstention probe or an adapter error), and a one-line reason."""

    outcome: Outcome
    correct: bool
    f1: float | None
    exact_match: bool | None
    reason: str


def answer_tokens(text: str, rules: str = "squad") -> list[str]:
    """``text`` as comparable tokens: judge normalisation, every punctuation character removed
    (ASCII ``string.punctuation`` as SQuAD does, and Unicode punctuation), dropped words removed."""
    base = normalize(text)
    kept = "".join(ch for ch in base
                   if ch not in _ASCII_PUNCTUATION and not unicodedata.category(ch).startswith("P"))
    dropped = DROPPED_WORDS[rules]
    return [token for token in kept.split() if token not in dropped]


def token_f1(prediction: str, gold: str, rules: str = "squad") -> float:
    """Harmonic mean of token precision and recall over the shared token multiset."""
    predicted, expected = answer_tokens(prediction, rules), answer_tokens(gold, rules)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, gold: str, rules: str = "squad") -> bool:
    """Equal token sequences after normalisation."""
    return answer_tokens(prediction, rules) == answer_tokens(gold, rules)


def multi_answer_f1(prediction: str, gold: str, rules: str = "locomo") -> float:
    """LoCoMo multi-hop: both sides split on commas; the mean over gold parts of the best F1 of
    any prediction part."""
    predictions = [part.strip() for part in prediction.split(",")]
    golds = [part.strip() for part in gold.split(",")]
    return sum(max(token_f1(p, g, rules) for p in predictions) for g in golds) / len(golds)


def best_f1(prediction: str, golds: Sequence[str], rules: str = "squad", *, multi_answer: bool = False) -> float:
    """The best F1 over the gold answers (SQuAD takes the maximum over references)."""
    measure = multi_answer_f1 if multi_answer else token_f1
    return max((measure(prediction, gold, rules) for gold in golds), default=0.0)


FUNCTION_WORD_TRAPS = frozenset({"no", "yes", "that", "this", "it", "none", "nothing", "not", "nobody"})
"""Trap answers (LoCoMo category 5) that are function words: inside an answer that declines or
denies they are the decline's own words ("No, I don't know", "That isn't something you told me"),
so there they count only as the whole answer (issue 21, item 6)."""


def score_answer(question: DatasetQuestion, answer: str) -> Score:
    """Score ``answer`` to ``question`` (see the module docstring for the rules)."""
    reading = Reading.of(answer, question.trap_answers)
    if question.abstention:
        return _score_abstention(reading, question)
    f1 = best_f1(answer, question.gold_answers, question.token_rules, multi_answer=question.multi_answer)
    em = any(exact_match(answer, gold, question.token_rules) for gold in question.gold_answers)
    if f1 >= CORRECT_AT_F1:
        return Score(Outcome.CORRECT, True, f1, em, f"token F1 {f1:.2f} >= {CORRECT_AT_F1}")
    if reading.declines:
        return Score(Outcome.ABSTAINED, False, f1, em, f"declines (token F1 {f1:.2f})")
    if reading.denies:
        return Score(Outcome.MISSED, False, f1, em, f"denies where the gold has an answer (token F1 {f1:.2f})")
    return Score(Outcome.WRONG, False, f1, em, f"token F1 {f1:.2f} < {CORRECT_AT_F1}")


def _score_abstention(reading: Reading, question: DatasetQuestion) -> Score:
    negative = reading.declines or reading.denies
    committed = [trap for trap in question.trap_answers
                 if (reading.norm == normalize(trap) if negative and normalize(trap) in FUNCTION_WORD_TRAPS
                     else reading.commits_outside_negatives(trap))]
    if committed:
        return Score(Outcome.WRONG, False, None, None, f"commits to the adversarial answer {committed[0]!r}")
    if reading.hedges_a_commitment:
        return Score(Outcome.WRONG, False, None, None, "hedged commitment on an abstention probe")
    if reading.declines or reading.denies:
        return Score(Outcome.ABSTAINED, True, None, None, "declines or denies on an abstention probe")
    if not reading.norm:
        return Score(Outcome.WRONG, False, None, None, "empty answer on an abstention probe")
    return Score(Outcome.WRONG, False, None, None, "answers an abstention probe (no decline or denial found)")


def scoring_rules() -> dict[str, object]:
    """Everything that decides a score, as plain data (folded into :data:`SCORING_FINGERPRINT`)."""
    return {
        "version": SCORING_VERSION,
        "correct_at_f1": CORRECT_AT_F1,
        "dropped_words": {name: sorted(words) for name, words in sorted(DROPPED_WORDS.items())},
        "punctuation": "string.punctuation and Unicode P*",
        "normalisation": NORMALISATION_RULES,
        "reading": reading_rules(),
        "abstention": "declines or denies -> abstained (correct); trap value, hedge or answer -> wrong",
        "function_word_traps": sorted(FUNCTION_WORD_TRAPS),
    }


SCORING_FINGERPRINT: str = hashlib.sha256(
    json.dumps(scoring_rules(), sort_keys=True, ensure_ascii=True).encode()).hexdigest()
"""Results scored under different rules are never pooled; the metrics file names this."""

