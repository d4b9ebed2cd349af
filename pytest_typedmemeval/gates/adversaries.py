"""Adversary gate (GATES.md §7, marker ``tme_gate_adversaries``): strategies that learn or read.

V7 (:mod:`.separability`) asks whether one *named* feature tells gold from filler. The v2 corpora
passed it and were still beaten without memory (VERTICALS.md Appendix D). This gate runs five
adversaries that rank the sessions of each question's own haystack; every figure is per shape,
with its random expectation beside it.

1. **learned, question-blind** (rules ``learned_gold_at_1``, ``learned_auc``). Logistic regression
   in numpy, trained on one half of the questions' sessions (label: the session is gold) and tested
   on the other half, then the other way round. Features, never the question text: word unigrams
   (raw tokens, stopwords kept), character 3- and 4-grams of capitalised tokens, structure (turns,
   characters, relative position in the haystack) and *value membership*: the share of the
   session's value-like tokens (:mod:`..retrieval.values`) that the training half saw only in gold
   sessions, only in filler, in both, or never, plus whether any was seen only in gold / only in
   filler. Training sessions get their membership figures cross-fitted (from the other half of the
   training half), so a training gold session does not "see itself". And *haystack-relative
   recurrence* (below). Questions whose haystacks share a session (same session id or identical
   turns) are kept in one half (union-find, then a greedy shape-balanced split of the groups in
   the order of a sha256 of a fixed constant and the group's first question id). Refused when
   gold-at-rank-1 exceeds max(2 x random, 0.15), random being G / N averaged over the shape, or
   when the mean within-question AUC (gold vs filler scores) exceeds 0.65.
2. **position prior** (``position_prior``). Per shape, the rate at which a session is gold at each
   index from the start, from the end and in each tenth of the haystack, learned from the other
   half; sessions ranked by the sum. Refused when mean coverage@5 (|gold n top 5| / G) exceeds the
   random min(5, N) / N, averaged, by more than 0.25.
3. **haystack diff** (``haystack_diff``). A session is unique when its turns occur verbatim in no
   other haystack of the corpus; a question is singled out when its unique sessions are a nonempty
   set of gold sessions only. Applies only to shapes where some haystack shares a session (id or
   turns) with another; refused when more than 20 % of the shape's questions are singled out.
4. **subject-and-value reader** (``subject_value_reader``). Each session scores its best sentence
   holding a value-like token, by the number of distinct question content words
   (:func:`..retrieval.tokenizer.tokenize`) in it. Refused when gold-at-rank-1 exceeds 0.60.
5. **fact-only BM25** (``fact_only_bm25``). The reference BM25Okapi (:mod:`..retrieval.bm25`) after
   deleting every sentence without a value-like token. Refused when mean coverage@5 exceeds the
   0.90 ceiling: difficulty must not come from content-free text.

**Recurrence (the learned adversary's dense block, added after the episodic-v3 red team).** The
other features read each session in isolation, so a corpus could pass while its haystacks were
built around the asked subject. A red team beat typedmemeval-episodic-v3, which passed this gate,
with within-haystack recurrence alone: the generator surrounded the asked subject with valued
competitors (the same "tent for the wild camping" recommended and declined, recommended for a
cousin...) while other subjects appeared once or twice, so question-blind "the session whose topic
recurs most in its haystack (and is the user's own, not declined)" was gold in 0.975 of
assistant-stated questions (random 0.05), and "place frequency x predicate frequency within the
haystack" in 0.644 of participant-attribution ones (random 0.063). So per (question, session)
*slot* (one session text can sit in several haystacks with different neighbours),
:func:`_recurrence_rows` reads the session's content unigrams and bigrams (raw tokens minus the
reference stopwords and minus value-like tokens, so values never count) and, per gram, how many
OTHER sessions of the same haystack hold it, over n - 1: the max over its bigrams and over its
unigrams; whether it holds the haystack's most-recurring bigram (ties all 1); its bigram max as a
z-score within the haystack; the max and summed recurrence of the grams of its value-holding
sentences; the largest summed recurrence of one sentence; and the same in *excess* of the
corpus-wide share of sessions holding the gram (chat and framing recur in every haystack, a subject
the haystack was built around only in its own). Where two or more shapes are measured, the block
also enters once per shape (zero outside it), so the classifier can weigh it per shape: each
template's competitors recur in their own way. With it :data:`L2` went from 1e-4 to 1e-2: at 1e-4
the thousands of sparse weights memorised the training half and drowned the dense block out of
sample. On the beaten bytes (sha256 7ff37b84...) learned AUC went 0.586 -> 0.883 on
assistant-stated and 0.304 -> 0.714 on participant-attribution (gold@1 0.10 -> 0.45 and
0.00 -> 0.33): refused. The self-test injects the tell (:data:`RECURRENCE_DEFECT`) beside a clean
control where every subject of the haystack has the same cluster (:data:`RECURRENCE_CONTROL`); the
clean simulation itself was rebuilt so (it used to cluster two subjects, the asked one among them,
and give every other subject one session: the same tell, milder).

Rankings by a reader's or a prior's scores (subject-and-value reader, phrase reader, position
prior, the learned gold@1) count ties at random: a tie at the cut counts each tied session by its
chance, :func:`_tied_coverage` and :func:`_gold_at_1` (breaking them by session order, as this
gate did first, is a position prior of its own: WorkingMemory v3's far rungs put gold early, and a
phrase reader scoring the asked kind's sentences alike covered them 1.00 on ties alone). Fact-only
BM25 keeps the reference retriever's rule (ties by session order, GATES.md §3). Questions without gold (G = 0) are excluded from every
adversary and counted; so are questions whose haystack is all gold (nothing to rank against).

**Revision.** The gate binds from corpus revision 3 (:data:`FROM_REVISION`, read from the ``-v<N>``
suffix by :func:`.calibration.corpus_revision`). An earlier revision, a fixture corpus or an id that
names no revision is *skipped*, never passed: the skip reason says the revision predates the gate,
and ``measured`` still carries every figure and the findings that would refuse it
(``would_refuse``), so the README can publish how the corpus fares.

**Exemptions.** An exempt finding is measured and reported, not refused. A declared exemption
(``declared.adversary_exemptions``, :class:`.declarations.Declared` items) names **one rule**
(``name``) on its ``shapes``, with its reason: the shape's other rules still bind (participant-
attribution's question quotes its gold remark, so the phrase reader finds it by construction; the
question-blind learned adversary must still be at chance there). The ``exempt`` argument
(shape -> reason) exempts every rule of a shape (self-tests, one-off measurements). A shape exempt
from a learned rule leaves the pooled row. An exemption that no longer fires is listed as stale.

Thresholds, the split constant and the classifier's settings are code constants; nothing is read
from the sidecar. Deterministic: no wall clock, no global random state, a pure function of bytes.

Readings chosen where GATES.md §7 leaves room:

- Features are indexed by an exact vocabulary built in corpus order (collision-free and as
  deterministic as hashing into a fixed-size vector, and as fast at these sizes).
- The learned adversary sees session *slots*: a session repeated in two haystacks is two rows with
  their own positions, as in V7. Each training question weighs 1, half on its gold, half on its
  filler, so long haystacks and many-gold questions do not dominate.
- The position prior is learned per shape (from the whole other half where that half has none of
  the shape) and adds the rate in each tenth of the haystack to the index-from-start and
  index-from-end rates ("gold in the last third" with varying N escapes fixed indices). Rates are
  smoothed towards the half's base rate with weight :data:`POSITION_SMOOTHING` = 5: unsmoothed,
  indices only the longest haystacks reach dominated the ranking and refused clean corpora.
- Haystack diff applies to a shape when one of its haystacks shares a session (id or turns) with
  any other haystack of the corpus, whatever that one's shape.
- The bounds are GATES.md's first-version choices, and they still apply; what changed is
  when a figure above one counts. **Small shapes.** A per-shape proportion bound is a coin at
  four questions: one chance hit is gold@1 0.25, above max(2 x random, 0.15), and Prospective v3
  (three shapes of four) was refused by 53 of 60 random relabellings of its own gold. So each rule
  judged against a no-signal ranking (:data:`CHANCE_RULES`: learned gold@1, learned AUC, position
  prior) refuses only when its figure is above the bound *and* :func:`null_draws` (the same
  figure under uniformly random rankings of the same haystacks — one ranking per haystack, so the
  two arms of a pair are not counted as two observations — :data:`NULL_DRAWS` draws, seeded)
  puts it beyond chance at :data:`LEARNED_ALPHA` = 0.01, Bonferroni-divided over the rows tested
  (every shape, plus the pooled row). The **pooled row** (:data:`POOLED`, every measured question
  of non-exempt shapes) is new: a tell spread thinly over small shapes, which no single shape can
  show, is refused there (self-test: a value-pool split over eleven shapes of four). The reader
  and fact-only BM25 are difficulty bounds on the figure itself (as calibration's ceiling is) and
  keep no test. False refusals: clean simulated corpora 2 of 240 (as before; seeds 1000-1039 none);
  random relabellings of the shipped corpora's own gold (``scripts/adversary_null.py``, 100 each)
  in the CHANGELOG.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..corpus.loading import Corpus
from ..corpus.models import QuestionRecord
from ..retrieval.bm25 import K_REF, rank_sessions, session_document
from ..retrieval.tokenizer import STOPWORDS, raw_tokens, tokenize
from ..retrieval.values import has_value, keep_value_sentences, sentences, value_like_tokens
from .calibration import SATURATION_CEILING, corpus_revision
from .declarations import Declared, VerticalDeclarations, declarations_for
from .form_reader import FORM_AUC_REFUSE, FORM_MARGIN, Candidates, form_scores
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case
# the self-test's corpora and case checks
from .selftest.adversaries import (
    FALSE_REFUSAL_BUDGET, FalseRefusal, RECURRENCE_CONTROL, RECURRENCE_DEFECT,
    SELF_TEST_SIMULATION_TRIALS, SMALL_SHAPES, SimulationSpec, _chance_case, _exempt_case,
    _skip_case, build_simulated_corpus
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

GATE = "adversaries"
RULES: tuple[str, ...] = ("learned_gold_at_1", "learned_auc", "position_prior", "haystack_diff",
                          "subject_value_reader", "fact_only_bm25", "phrase_reader",
                          "form_gold_at_1", "form_auc", "episode_gold_at_1", "episode_auc")
ADVERSARIES: tuple[str, ...] = ("learned", "position_prior", "haystack_diff",
                                "subject_value_reader", "fact_only_bm25", "phrase_reader",
                                "form_reader", "episode_reader")

FROM_REVISION = 3
"""GATES.md §7: the gate applies from corpus revision 3 (VERTICALS.md Appendix D binds from v3)."""
LEARNED_RANDOM_FACTOR = 2.0
LEARNED_GOLD_AT_1_FLOOR = 0.15
"""Learned adversary: refused when gold@1 > max(2 x random gold@1, 0.15) (GATES.md §7)."""
LEARNED_AUC_REFUSE = 0.65
"""Learned adversary: refused when the mean within-question AUC > 0.65 (VERTICALS.md Appendix D)."""
LEARNED_ALPHA = 0.01
"""Learned adversary: a figure above its bound refuses only when no-signal chance gives one so high
less often than this (module docstring, "Small shapes")."""
FORM_VIEWS = 2
"""The form reader's two views (clause and episode) share its rows' alpha: each is judged against
chance at alpha / 2, so adding the episode view did not raise the gate's false refusals."""
POOLED = "(all shapes)"
"""The shape name of the learned adversary's pooled row: every measured question of the corpus."""
POSITION_MARGIN = 0.25
"""Position prior: refused when coverage@5 > random coverage@5 + 0.25."""
HAYSTACK_DIFF_SHARE = 0.20
"""Haystack diff: refused when more than 20 % of a shape's questions are singled out."""
READER_GOLD_AT_1 = 0.60
"""Subject-and-value reader: refused when gold@1 > 0.60."""
FACT_ONLY_CEILING = SATURATION_CEILING
"""Fact-only BM25: the calibration ceiling (0.90) on mean coverage@5."""
PHRASE_CEILING = SATURATION_CEILING
"""Phrase reader: the calibration ceiling (0.90) on mean coverage@5 (module docstring)."""
PHRASE_WEIGHT = 10.0
"""A shared question phrase outweighs any number of shared single words."""
K = K_REF

SPLIT_CONSTANT = "typedmemeval-adversaries-split-v1"
"""Seeds the deterministic order in which question groups are dealt to the two halves."""
INNER_SPLIT_CONSTANT = "typedmemeval-adversaries-inner-split-v1"
"""Seeds the split of a training half used to cross-fit its own value-membership features."""
CHAR_NGRAMS: tuple[int, ...] = (3, 4)
TRAIN_STEPS = 120
LEARNING_RATE = 0.1
L2 = 1e-2
"""Logistic regression: full-batch Adam, fixed steps, L2 on the (per-question balanced) mean loss.
Was 1e-4 until the recurrence features: so weak a penalty let the thousands of sparse weights
memorise the training half and drown the dense block out of sample."""
POSITION_BINS = 10
POSITION_SMOOTHING = 5.0

THRESHOLDS: dict[str, float] = {
    "learned_gold_at_1_floor": LEARNED_GOLD_AT_1_FLOOR,
    "learned_gold_at_1_random_factor": LEARNED_RANDOM_FACTOR,
    "learned_auc": LEARNED_AUC_REFUSE,
    "learned_alpha": LEARNED_ALPHA,
    "position_prior_margin": POSITION_MARGIN,
    "haystack_diff_share": HAYSTACK_DIFF_SHARE,
    "subject_value_reader_gold_at_1": READER_GOLD_AT_1,
    "fact_only_bm25_ceiling": FACT_ONLY_CEILING,
    "phrase_reader_ceiling": PHRASE_CEILING,
    "form_gold_at_1_margin": FORM_MARGIN,
    "form_auc": FORM_AUC_REFUSE,
}

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z'\u2019-]*")
_RECURRENCE_NAMES = ("recurrence_bigram_max", "recurrence_unigram_max", "recurrence_top_bigram",
                     "recurrence_bigram_z", "recurrence_value_bigram_max",
                     "recurrence_value_unigram_max", "recurrence_value_bigram_sum",
                     "recurrence_sentence_bigram_sum", "recurrence_sentence_unigram_sum",
                     "excess_bigram_max", "excess_value_bigram_sum",
                     "excess_sentence_unigram_sum", "excess_sentence_bigram_sum")
"""Haystack-relative recurrence features of a session slot (:func:`_recurrence_rows`)."""
_DENSE_NAMES = ("log_turns", "log_chars", "relative_position", *_RECURRENCE_NAMES,
                "value_share_only_gold", "value_share_only_filler", "value_share_both",
                "value_share_never", "no_values", "any_value_only_gold", "any_value_only_filler")


# --- the haystacks, as the adversaries see them --------------------------------------------------


def _session_key(session: Sequence[Any]) -> str:
    """Identity of a session's text: its turns (role and content), verbatim."""
    return "\x1e".join(f"{turn.role}\x1f{turn.content}" for turn in session)


@dataclass(frozen=True)
class _Haystack:
    question_id: str
    shape: str
    question: str
    ids: tuple[str, ...]
    keys: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    gold: frozenset[int]

    @property
    def n(self) -> int:
        return len(self.keys)

    @property
    def ranked(self) -> bool:
        """Whether there is something to rank: some gold and some filler."""
        return 0 < len(self.gold) < self.n


def _haystacks(records: Sequence[QuestionRecord]) -> list[_Haystack]:
    out = []
    for record in records:
        out.append(_Haystack(
            record.question_id, record.shape, record.question, tuple(record.haystack_session_ids),
            tuple(_session_key(s) for s in record.haystack_sessions),
            tuple(tuple(turn.content for turn in s) for s in record.haystack_sessions),
            frozenset(record.gold_session_indices)))
    return out


def _gold_at_1(scores: Sequence[float], gold: frozenset[int]) -> float:
    """The chance that the top-ranked session is gold when ties are broken at random: the share of
    gold among the sessions tied at the top score (1.0 or 0.0 when the top is unique).

    Ties used to go to the earliest session, which is itself a position prior: on a haystack
    whose gold sits early (WorkingMemory's far rungs) every tie went to gold, and a reader scoring
    a dozen sessions alike looked as if it found gold."""
    top = max(scores)
    tied = [i for i, score in enumerate(scores) if score == top]
    return sum(1 for i in tied if i in gold) / len(tied)


def _ranking(scores: Sequence[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def _coverage(ranking: Sequence[int], gold: frozenset[int], k: int = K) -> float:
    return len(gold.intersection(ranking[:k])) / len(gold)


def _tied_coverage(scores: Sequence[float], gold: frozenset[int], k: int = K) -> float:
    """Expected coverage@k of a ranking by ``scores`` under random tie-breaking: a gold session
    with ``above`` sessions strictly above it and ``ties`` sessions (itself included) at its score
    is in the top k with probability ``clamp((k - above) / ties, 0, 1)``. Breaking ties by session
    order instead hands every tie at the cut to the earliest session (a position prior, see
    :func:`_gold_at_1`)."""
    total = 0.0
    for g in gold:
        above = sum(1 for score in scores if score > scores[g])
        ties = sum(1 for score in scores if score == scores[g])
        total += min(1.0, max(0.0, (k - above) / ties))
    return total / len(gold)


def _auc(scores: Sequence[float], gold: frozenset[int]) -> float:
    golds = [scores[i] for i in gold]
    rest = [scores[i] for i in range(len(scores)) if i not in gold]
    total = 0.0
    for g in golds:
        for d in rest:
            total += 1.0 if g > d else 0.5 if g == d else 0.0
    return total / (len(golds) * len(rest))


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


# --- grouping and the split -----------------------------------------------------------------------


def question_groups(haystacks: Sequence[_Haystack]) -> list[int]:
    """A group label per question: questions whose haystacks share a session id or a session's
    turns verbatim, directly or through others, get one label (union-find)."""
    parent = list(range(len(haystacks)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first: dict[tuple[str, str], int] = {}
    for qi, haystack in enumerate(haystacks):
        for key in [("id", sid) for sid in haystack.ids] + [("text", k) for k in haystack.keys]:
            other = first.setdefault(key, qi)
            if other != qi:
                a, b = find(qi), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return [find(qi) for qi in range(len(haystacks))]


def _order_key(constant: str, text: str) -> str:
    return hashlib.sha256(f"{constant}\x00{text}".encode()).hexdigest()


def split_halves(haystacks: Sequence[_Haystack], members: Sequence[int], *,
                 constant: str = SPLIT_CONSTANT) -> dict[int, int]:
    """Half (0 or 1) per question index in ``members``, groups kept whole.

    Groups are dealt in the order of sha256(constant, first question id); each goes to the half
    where it leaves the per-shape question counts most even (then the smaller half, then the
    hash's parity), so every shape is split about evenly whatever the group sizes."""
    labels = question_groups(haystacks)
    groups: dict[int, list[int]] = defaultdict(list)
    for qi in members:
        groups[labels[qi]].append(qi)
    ordered = sorted(groups.values(),
                     key=lambda g: _order_key(constant, min(haystacks[q].question_id for q in g)))
    counts: list[Counter[str]] = [Counter(), Counter()]
    sizes = [0, 0]
    half: dict[int, int] = {}
    for group in ordered:
        shapes = Counter(haystacks[q].shape for q in group)

        def imbalance(side: int) -> int:
            other = 1 - side
            return sum(abs(counts[side][s] + c - counts[other][s]) for s, c in shapes.items())

        key = _order_key(constant, min(haystacks[q].question_id for q in group))
        choice = min((0, 1), key=lambda side: (imbalance(side), sizes[side] + len(group),
                                               (side + int(key[-1], 16)) % 2))
        for q in group:
            half[q] = choice
        counts[choice].update(shapes)
        sizes[choice] += len(group)
    return half


# --- adversary 1: learned, question-blind -------------------------------------------------------


@dataclass
class _SessionFeatures:
    sparse: list[str]
    values: frozenset[str]
    turns: int
    chars: int


@lru_cache(maxsize=1 << 16)
def sentence_values(text: str) -> tuple[tuple[str, tuple[str, ...], bool], ...]:
    """One turn's sentences (:func:`..retrieval.values.sentences`), each with its value-like tokens
    (:func:`..retrieval.values.value_like_tokens`) and whether it holds a value
    (:func:`..retrieval.values.has_value`); cached, as three adversaries read them."""
    return tuple((sentence, tuple(value_like_tokens(sentence)), has_value(sentence))
                 for sentence in sentences(text))


def _session_features(texts: Sequence[str]) -> _SessionFeatures:
    joined = "\n".join(texts)
    words = {f"w:{token}" for token in raw_tokens(joined)}
    grams: set[str] = set()
    for match in _CAPITALISED.finditer(joined):
        word = match.group(0)
        if word == "I" or word.startswith(("I'", "I\u2019")):
            continue
        padded = f"<{word.lower()}>"
        for n in CHAR_NGRAMS:
            grams.update(f"c:{padded[i:i + n]}" for i in range(len(padded) - n + 1))
    values = frozenset(token.lower() for text in texts for _, found, _ in sentence_values(text)
                       for token in found)
    return _SessionFeatures(sorted(words) + sorted(grams), values, len(texts), len(joined))


@dataclass(frozen=True)
class _SentenceGrams:
    """One sentence's content unigrams and bigrams (:func:`sentence_grams`)."""

    unigrams: frozenset[str]
    bigrams: frozenset[str]
    holds_value: bool


@lru_cache(maxsize=1 << 16)
def sentence_grams(text: str) -> tuple[_SentenceGrams, ...]:
    """One turn's sentences as content grams: raw tokens minus the reference stopwords
    (:data:`..retrieval.tokenizer.STOPWORDS`) and minus the sentence's value-like tokens, so a
    value never counts as recurring content; bigrams join adjacent remaining tokens."""
    out = []
    for sentence, found, holds_value in sentence_values(text):
        drop = {token.lower() for token in found}
        tokens = [t for t in raw_tokens(sentence) if t not in STOPWORDS and t not in drop]
        out.append(_SentenceGrams(frozenset(tokens),
                                  frozenset(f"{a} {b}" for a, b in zip(tokens, tokens[1:])),
                                  holds_value))
    return tuple(out)


@dataclass(frozen=True)
class _SessionGrams:
    """A session's sentences as content grams, and the union of their unigrams and bigrams."""

    sentences: tuple[_SentenceGrams, ...]
    unigrams: frozenset[str]
    bigrams: frozenset[str]

    @classmethod
    def of(cls, texts: Sequence[str]) -> _SessionGrams:
        found = tuple(g for text in texts for g in sentence_grams(text))
        return cls(found, frozenset().union(*(g.unigrams for g in found)),
                   frozenset().union(*(g.bigrams for g in found)))


@dataclass(frozen=True)
class _CorpusRates:
    """The share of the corpus's distinct sessions (by turns) that contain each gram: what a
    gram's recurrence inside one haystack would be if the haystack were drawn from the corpus at
    large (chat and framing phrases recur everywhere; a subject built into one haystack does
    not)."""

    unigrams: Mapping[str, float]
    bigrams: Mapping[str, float]

    @classmethod
    def of(cls, grams: Mapping[str, _SessionGrams]) -> _CorpusRates:
        uni: Counter[str] = Counter()
        bi: Counter[str] = Counter()
        for session in grams.values():
            uni.update(session.unigrams)
            bi.update(session.bigrams)
        others = max(1, len(grams) - 1)
        return cls({g: (c - 1) / others for g, c in uni.items()},
                   {g: (c - 1) / others for g, c in bi.items()})


def _recurrence_rows(sessions: Sequence[_SessionGrams], rates: _CorpusRates
                     ) -> list[list[float]]:
    """Haystack-relative recurrence features of every session slot of one haystack (question-blind;
    :data:`_RECURRENCE_NAMES`, in that order).

    A gram's *recurrence*, seen from one session, is the number of OTHER sessions of the same
    haystack that contain it, divided by n - 1; its *excess* is that minus the corpus-wide share
    of other sessions containing it (:class:`_CorpusRates`), so framing and chat that recur in
    every haystack count for nothing. Per session: the max recurrence over its bigrams and over its
    unigrams; whether it holds the haystack's most-recurring bigram (ties all 1; 0 when no bigram
    recurs); the z-score of its bigram max within the haystack; the max recurrence of the bigrams
    and unigrams of its value-holding sentences and the summed recurrence of those bigrams; the
    largest summed bigram and unigram recurrence of one of its sentences; then the excess
    versions: max excess over its bigrams, summed positive excess of its value-sentence bigrams,
    and the largest summed positive unigram and bigram excess of one of its sentences."""
    n = len(sessions)
    uni_df: Counter[str] = Counter()
    bi_df: Counter[str] = Counter()
    for session in sessions:
        uni_df.update(session.unigrams)
        bi_df.update(session.bigrams)
    scale = 1.0 / max(1, n - 1)
    top = max(bi_df.values(), default=0)

    rec_u = {g: (c - 1) * scale for g, c in uni_df.items()}
    rec_b = {g: (c - 1) * scale for g, c in bi_df.items()}
    ex_u = {g: max(0.0, r - rates.unigrams.get(g, 0.0)) for g, r in rec_u.items()}
    ex_b = {g: max(0.0, r - rates.bigrams.get(g, 0.0)) for g, r in rec_b.items()}
    rows = []
    for session in sessions:
        value_bigrams = frozenset().union(*(g.bigrams for g in session.sentences
                                            if g.holds_value))
        value_unigrams = frozenset().union(*(g.unigrams for g in session.sentences
                                             if g.holds_value))
        rows.append([
            max(map(rec_b.__getitem__, session.bigrams), default=0.0),
            max(map(rec_u.__getitem__, session.unigrams), default=0.0),
            1.0 if top > 1 and any(bi_df[g] == top for g in session.bigrams) else 0.0,
            0.0,
            max(map(rec_b.__getitem__, value_bigrams), default=0.0),
            max(map(rec_u.__getitem__, value_unigrams), default=0.0),
            sum(map(rec_b.__getitem__, value_bigrams)),
            max((sum(map(rec_b.__getitem__, g.bigrams)) for g in session.sentences),
                default=0.0),
            max((sum(map(rec_u.__getitem__, g.unigrams)) for g in session.sentences),
                default=0.0),
            max(map(ex_b.__getitem__, session.bigrams), default=0.0),
            sum(map(ex_b.__getitem__, value_bigrams)),
            max((sum(map(ex_u.__getitem__, g.unigrams)) for g in session.sentences),
                default=0.0),
            max((sum(map(ex_b.__getitem__, g.bigrams)) for g in session.sentences),
                default=0.0),
        ])
    maxima = [row[0] for row in rows]
    mean = sum(maxima) / len(maxima) if maxima else 0.0
    spread = math.sqrt(sum((x - mean) ** 2 for x in maxima) / len(maxima)) if maxima else 0.0
    for row in rows:
        row[3] = (row[0] - mean) / spread if spread > 0 else 0.0
    return rows


@dataclass
class _Slots:
    """Every (question, session) slot of the corpus with its features, in corpus order."""

    question: npt.NDArray[np.int64]
    label: npt.NDArray[np.float64]
    position: npt.NDArray[np.float64]
    recurrence: list[list[float]]
    shape: list[int]
    shapes: tuple[str, ...]
    keys: list[str]
    features: dict[str, _SessionFeatures]
    indptr: npt.NDArray[np.int64]
    columns: npt.NDArray[np.int64]
    data: npt.NDArray[np.float64]
    vocabulary: int
    starts: list[int]


def _slots(haystacks: Sequence[_Haystack]) -> _Slots:
    import numpy as np

    features: dict[str, _SessionFeatures] = {}
    vocabulary: dict[str, int] = {}
    encoded: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
    question, label, position, keys, starts = [], [], [], [], []
    recurrence: list[list[float]] = []
    shapes = tuple(sorted({haystack.shape for haystack in haystacks if haystack.ranked}))
    if len(shapes) < 2:
        shapes = ()
    shape: list[int] = []
    rows_columns, rows_data = [], []
    content: dict[str, _SessionGrams] = {}
    for haystack in haystacks:
        for key, texts in zip(haystack.keys, haystack.texts):
            if key not in content:
                content[key] = _SessionGrams.of(texts)
    rates = _CorpusRates.of(content)
    for qi, haystack in enumerate(haystacks):
        starts.append(len(keys))
        recurrence += _recurrence_rows([content[key] for key in haystack.keys], rates)
        shape += [shapes.index(haystack.shape) if haystack.shape in shapes else -1] * haystack.n
        for si, (key, texts) in enumerate(zip(haystack.keys, haystack.texts)):
            if key not in encoded:
                feats = _session_features(texts)
                features[key] = feats
                words = [f for f in feats.sparse if f.startswith("w:")]
                grams = [f for f in feats.sparse if f.startswith("c:")]
                cols = [vocabulary.setdefault(f, len(vocabulary)) for f in feats.sparse]
                weights = ([1.0 / math.sqrt(len(words))] * len(words) if words else []) + (
                    [1.0 / math.sqrt(len(grams))] * len(grams) if grams else [])
                encoded[key] = (np.asarray(cols, dtype=np.int64),
                                np.asarray(weights, dtype=np.float64))
            cols_arr, data_arr = encoded[key]
            rows_columns.append(cols_arr)
            rows_data.append(data_arr)
            question.append(qi)
            label.append(1.0 if si in haystack.gold else 0.0)
            position.append(si / (haystack.n - 1) if haystack.n > 1 else 0.0)
            keys.append(key)
    lengths = np.asarray([len(c) for c in rows_columns], dtype=np.int64)
    indptr = np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(lengths)])
    columns = np.concatenate(rows_columns) if rows_columns else np.zeros(0, dtype=np.int64)
    data = np.concatenate(rows_data) if rows_data else np.zeros(0, dtype=np.float64)
    return _Slots(np.asarray(question, dtype=np.int64), np.asarray(label, dtype=np.float64),
                  np.asarray(position, dtype=np.float64), recurrence, shape, shapes, keys,
                  features, indptr, columns, data,
                  len(vocabulary), starts)


def _membership_rows(slots: _Slots, rows: Sequence[int], reference: Sequence[int]
                     ) -> list[list[float]]:
    """Value-membership features of ``rows`` against the gold / filler values of ``reference``."""
    gold_values: set[str] = set()
    filler_values: set[str] = set()
    for row in reference:
        values = slots.features[slots.keys[row]].values
        (gold_values if slots.label[row] > 0.5 else filler_values).update(values)
    out = []
    for row in rows:
        values = slots.features[slots.keys[row]].values
        if not values:
            out.append([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
            continue
        only_gold = sum(1 for v in values if v in gold_values and v not in filler_values)
        only_filler = sum(1 for v in values if v in filler_values and v not in gold_values)
        both = sum(1 for v in values if v in gold_values and v in filler_values)
        never = len(values) - only_gold - only_filler - both
        n = len(values)
        out.append([only_gold / n, only_filler / n, both / n, never / n, 0.0,
                    1.0 if only_gold else 0.0, 1.0 if only_filler else 0.0])
    return out


def _rows_of(slots: _Slots, haystacks: Sequence[_Haystack], questions: Sequence[int]) -> list[int]:
    rows: list[int] = []
    for qi in questions:
        rows.extend(range(slots.starts[qi], slots.starts[qi] + haystacks[qi].n))
    return rows


def _dense(slots: _Slots, rows: Sequence[int], membership: Sequence[Sequence[float]]
           ) -> npt.NDArray[np.float64]:
    import numpy as np

    width = len(_DENSE_NAMES) + len(_RECURRENCE_NAMES) * len(slots.shapes)
    if not rows:
        return np.zeros((0, width), dtype=np.float64)
    blank = [0.0] * len(_RECURRENCE_NAMES)
    out = []
    for r, m in zip(rows, membership):
        features = slots.features[slots.keys[r]]
        recurrence = slots.recurrence[r]
        by_shape = [x for index in range(len(slots.shapes))
                    for x in (recurrence if slots.shape[r] == index else blank)]
        out.append([math.log1p(features.turns), math.log1p(features.chars),
                    float(slots.position[r]), *recurrence, *m, *by_shape])
    return np.asarray(out, dtype=np.float64)


def _sparse_block(slots: _Slots, rows: Sequence[int]
                  ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(row index per nonzero, column, value) of ``rows``, rows renumbered 0..len(rows)-1."""
    import numpy as np

    rows_arr = np.asarray(rows, dtype=np.int64)
    starts, ends = slots.indptr[rows_arr], slots.indptr[rows_arr + 1]
    lengths = ends - starts
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(lengths) - lengths, lengths)
    index = np.repeat(starts, lengths) + offsets
    return owner, slots.columns[index], slots.data[index]


def _train(owner: npt.NDArray[np.int64], cols: npt.NDArray[np.int64],
           vals: npt.NDArray[np.float64], dense: npt.NDArray[np.float64],
           y: npt.NDArray[np.float64], weight: npt.NDArray[np.float64], vocabulary: int
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """L2-regularised logistic regression by full-batch Adam for :data:`TRAIN_STEPS` steps."""
    import numpy as np

    rows = len(y)
    dims = vocabulary + dense.shape[1] + 1
    theta = np.zeros(dims)
    m = np.zeros(dims)
    v = np.zeros(dims)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for step in range(1, TRAIN_STEPS + 1):
        w_sparse, w_dense, bias = theta[:vocabulary], theta[vocabulary:-1], theta[-1]
        z = np.bincount(owner, weights=vals * w_sparse[cols], minlength=rows) + dense @ w_dense + bias
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        r = weight * (p - y)
        grad = np.empty(dims)
        grad[:vocabulary] = np.bincount(cols, weights=vals * r[owner], minlength=vocabulary)
        grad[vocabulary:-1] = dense.T @ r
        grad[-1] = r.sum()
        grad[:-1] += L2 * theta[:-1]
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        m_hat = m / (1 - beta1 ** step)
        v_hat = v / (1 - beta2 ** step)
        theta = theta - LEARNING_RATE * m_hat / (np.sqrt(v_hat) + eps)
    return theta[:vocabulary], theta[vocabulary:-1], float(theta[-1])


def _balanced_weights(slots: _Slots, haystacks: Sequence[_Haystack], questions: Sequence[int]
                      ) -> list[float]:
    """Each trainable question weighs 1 in total, half on its gold and half on its filler."""
    trainable = [qi for qi in questions if haystacks[qi].ranked]
    share = 1.0 / max(1, len(trainable))
    out: list[float] = []
    for qi in questions:
        haystack = haystacks[qi]
        for si in range(haystack.n):
            if not haystack.ranked:
                out.append(0.0)
            elif si in haystack.gold:
                out.append(share * 0.5 / len(haystack.gold))
            else:
                out.append(share * 0.5 / (haystack.n - len(haystack.gold)))
    return out


def learned_scores(haystacks: Sequence[_Haystack]) -> tuple[dict[int, list[float]], dict[str, Any]]:
    """The learned adversary's score for every session of every question it could test (question
    index -> scores in session order), and a description of the split it used."""
    import numpy as np

    slots = _slots(haystacks)
    everyone = list(range(len(haystacks)))
    half = split_halves(haystacks, everyone)
    info: dict[str, Any] = {
        "groups": len(set(question_groups(haystacks))),
        "halves": [sum(1 for q in everyone if half[q] == side) for side in (0, 1)],
        "vocabulary": slots.vocabulary, "dense_features": list(_DENSE_NAMES),
        "recurrence_by_shape": list(slots.shapes),
        "steps": TRAIN_STEPS, "learning_rate": LEARNING_RATE, "l2": L2,
        "split_constant": SPLIT_CONSTANT, "char_ngrams": list(CHAR_NGRAMS),
    }
    scores: dict[int, list[float]] = {}
    for test_side in (0, 1):
        train_q = [q for q in everyone if half[q] != test_side]
        test_q = [q for q in everyone if half[q] == test_side]
        if not test_q or not any(haystacks[q].ranked for q in train_q):
            continue
        inner = split_halves(haystacks, train_q, constant=INNER_SPLIT_CONSTANT)
        train_rows: list[int] = []
        membership: list[list[float]] = []
        for side in (0, 1):
            part = [q for q in train_q if inner[q] == side]
            other = [q for q in train_q if inner[q] != side]
            rows = _rows_of(slots, haystacks, part)
            train_rows += rows
            membership += _membership_rows(slots, rows, _rows_of(slots, haystacks, other))
        order = sorted(range(len(train_rows)), key=lambda i: train_rows[i])
        train_rows = [train_rows[i] for i in order]
        membership = [membership[i] for i in order]
        weights = _balanced_weights(slots, haystacks, sorted(train_q))
        dense_train = _dense(slots, train_rows, membership)
        mean = dense_train.mean(axis=0)
        std = dense_train.std(axis=0)
        std[std == 0] = 1.0
        owner, cols, vals = _sparse_block(slots, train_rows)
        w_sparse, w_dense, bias = _train(owner, cols, vals, (dense_train - mean) / std,
                                         slots.label[train_rows], np.asarray(weights),
                                         slots.vocabulary)
        test_rows = _rows_of(slots, haystacks, test_q)
        if not test_rows:
            continue
        dense_test = _dense(slots, test_rows, _membership_rows(
            slots, test_rows, _rows_of(slots, haystacks, train_q)))
        owner, cols, vals = _sparse_block(slots, test_rows)
        z = (np.bincount(owner, weights=vals * w_sparse[cols], minlength=len(test_rows))
             + ((dense_test - mean) / std) @ w_dense + bias)
        at = 0
        for qi in test_q:
            n = haystacks[qi].n
            scores[qi] = [float(x) for x in z[at:at + n]]
            at += n
    return scores, info


# --- adversary 2: position prior ------------------------------------------------------------------


def _position_table(haystacks: Sequence[_Haystack], questions: Sequence[int]
                    ) -> Callable[[int, int], float]:
    """A scorer (index, n) -> summed smoothed gold rates at that index from the start, from the
    end and in that tenth of the haystack, learned from ``questions``."""
    start_gold: Counter[int] = Counter()
    start_seen: Counter[int] = Counter()
    end_gold: Counter[int] = Counter()
    end_seen: Counter[int] = Counter()
    bin_gold: Counter[int] = Counter()
    bin_seen: Counter[int] = Counter()
    gold_total = seen_total = 0
    for qi in questions:
        haystack = haystacks[qi]
        if not haystack.ranked:
            continue
        n = haystack.n
        for i in range(n):
            is_gold = 1 if i in haystack.gold else 0
            b = _bin(i, n)
            start_seen[i] += 1
            end_seen[n - 1 - i] += 1
            bin_seen[b] += 1
            start_gold[i] += is_gold
            end_gold[n - 1 - i] += is_gold
            bin_gold[b] += is_gold
            gold_total += is_gold
            seen_total += 1
    base = gold_total / seen_total if seen_total else 0.0
    a = POSITION_SMOOTHING

    def rate(gold: Counter[int], seen: Counter[int], key: int) -> float:
        return (gold[key] + a * base) / (seen[key] + a)

    def score(i: int, n: int) -> float:
        return (rate(start_gold, start_seen, i) + rate(end_gold, end_seen, n - 1 - i)
                + rate(bin_gold, bin_seen, _bin(i, n)))

    return score


def _bin(i: int, n: int) -> int:
    return min(POSITION_BINS - 1, int(POSITION_BINS * i / n))


def position_coverage(haystacks: Sequence[_Haystack]) -> dict[int, float]:
    """Coverage@5 of the position prior per question, the prior learned from the other half
    (that half's questions of the same shape, or all of them where it has none of the shape)."""
    everyone = list(range(len(haystacks)))
    half = split_halves(haystacks, everyone)
    out: dict[int, float] = {}
    for test_side in (0, 1):
        train_q = [q for q in everyone if half[q] != test_side and haystacks[q].ranked]
        if not train_q:
            continue
        by_shape: dict[str, list[int]] = defaultdict(list)
        for q in train_q:
            by_shape[haystacks[q].shape].append(q)
        tables: dict[str, Callable[[int, int], float]] = {}
        fallback = _position_table(haystacks, train_q)
        for qi in everyone:
            haystack = haystacks[qi]
            if half[qi] != test_side or not haystack.ranked:
                continue
            if haystack.shape not in tables:
                tables[haystack.shape] = (_position_table(haystacks, by_shape[haystack.shape])
                                          if haystack.shape in by_shape else fallback)
            table = tables[haystack.shape]
            scores = [table(i, haystack.n) for i in range(haystack.n)]
            out[qi] = _tied_coverage(scores, haystack.gold)
    return out


# --- adversary 3: haystack diff -------------------------------------------------------------------


def haystack_diff(haystacks: Sequence[_Haystack]) -> tuple[dict[int, bool], dict[str, bool]]:
    """Per question whether its unique sessions (turns found in no other haystack) are a nonempty
    set of gold only; per shape whether any of its haystacks shares a session with another."""
    by_text: dict[str, set[int]] = defaultdict(set)
    by_id: dict[str, set[int]] = defaultdict(set)
    for qi, haystack in enumerate(haystacks):
        for sid, key in zip(haystack.ids, haystack.keys):
            by_text[key].add(qi)
            by_id[sid].add(qi)
    singled: dict[int, bool] = {}
    shares: dict[str, bool] = defaultdict(bool)
    for qi, haystack in enumerate(haystacks):
        shared = any(len(by_text[k]) > 1 for k in haystack.keys) or any(
            len(by_id[s]) > 1 for s in haystack.ids)
        shares[haystack.shape] |= shared
        unique = {i for i, key in enumerate(haystack.keys) if by_text[key] == {qi}}
        singled[qi] = bool(unique) and unique <= haystack.gold
    return singled, dict(shares)


# --- adversaries 4 and 5: the readers -------------------------------------------------------------


def _best_sentence(haystack: _Haystack, score: Callable[[str, bool], float]) -> list[float]:
    """Per session: the highest ``score(sentence, holds_value)`` over its sentences (0 if none)."""
    return [max((score(sentence, holds_value) for text in texts
                 for sentence, _, holds_value in sentence_values(text)), default=0.0)
            for texts in haystack.texts]


def reader_scores(haystack: _Haystack) -> list[float]:
    """Per session: the most distinct question content words in one of its value-holding sentences."""
    words = set(tokenize(haystack.question))
    return _best_sentence(haystack, lambda sentence, holds_value: float(
        len(words.intersection(tokenize(sentence)))) if holds_value else 0.0)


def _phrases(text: str) -> set[tuple[str, str]]:
    """Adjacent word pairs of ``text`` with at least one content word ("the annexe", "blind
    fitter"; not "for the")."""
    words = raw_tokens(text)
    return {(a, b) for a, b in zip(words, words[1:]) if a not in STOPWORDS or b not in STOPWORDS}


def phrase_scores(haystack: _Haystack) -> list[float]:
    """Per session: its best sentence's count of the question's phrases (adjacent word pairs with
    a content word), weighted by :data:`PHRASE_WEIGHT`, plus its count of question content words.
    The reader a red team wrote in one line ("a sentence with the item noun and 'for the
    <place>'"): it needs no value, no corpus knowledge and no training."""
    phrases = _phrases(haystack.question)
    words = set(tokenize(haystack.question))
    return _best_sentence(haystack, lambda sentence, _: (
        PHRASE_WEIGHT * len(phrases & _phrases(sentence))
        + len(words.intersection(tokenize(sentence)))))


def fact_only_coverage(haystack: _Haystack) -> float:
    """Coverage@5 of the reference BM25 over the haystack with every value-less sentence deleted."""
    documents = [session_document(keep_value_sentences(texts)) for texts in haystack.texts]
    return _coverage(rank_sessions(documents, haystack.question), haystack.gold)


# --- the gate -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One adversary beating its bound on one shape (before exemptions and the revision rule)."""

    rule: str
    shape: str
    value: float
    bound: float
    detail: str


def measure(records: Sequence[QuestionRecord], *, exclude_from_pool: frozenset[str] = frozenset()
            ) -> tuple[dict[str, Any], list[Finding]]:
    """Every adversary's figures per shape (with the random expectation and the bound beside each)
    and the findings that break a bound, before exemptions and revision rules are applied."""
    haystacks = _haystacks(records)
    learned, learned_info = learned_scores(haystacks) if haystacks else ({}, {})
    position = position_coverage(haystacks) if haystacks else {}
    singled, shares = haystack_diff(haystacks)
    halves = split_halves(haystacks, [qi for qi, h in enumerate(haystacks) if h.ranked]
                          ) if haystacks else {}
    form, form_excluded = form_scores(haystacks, halves) if haystacks else ({}, {})
    episode, episode_excluded = form_scores(haystacks, halves, "episode") if haystacks else ({}, {})
    shapes = sorted({h.shape for h in haystacks})
    ranked_shapes = {h.shape for h in haystacks if h.ranked}
    # Bonferroni over the rows judged against chance: every shape, and the pooled row
    alpha = LEARNED_ALPHA / max(1, len(ranked_shapes) + (1 if len(ranked_shapes) > 1 else 0))
    by_shape: dict[str, dict[str, Any]] = {}
    per_question: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    for shape in shapes:
        members = [qi for qi, h in enumerate(haystacks) if h.shape == shape]
        ranked = [qi for qi in members if haystacks[qi].ranked]
        no_gold = sum(1 for qi in members if not haystacks[qi].gold)
        all_gold = len(members) - len(ranked) - no_gold
        row: dict[str, Any] = {"questions": len(members), "measured_questions": len(ranked),
                               "excluded_no_gold": no_gold, "excluded_all_gold": all_gold}
        random_g1 = _mean([len(haystacks[q].gold) / haystacks[q].n for q in ranked])
        random_k = _mean([min(K, haystacks[q].n) / haystacks[q].n for q in ranked])
        readers = {q: reader_scores(haystacks[q]) for q in ranked}
        for q in ranked:
            per_question[haystacks[q].question_id] = {}

        tested = [q for q in ranked if q in learned]
        if tested:
            row["learned"] = _learned_figures(tested, learned, haystacks, shape, alpha)
            findings.extend(_learned_findings(row["learned"], shape, "the shape's"))
            for q in tested:
                order = _ranking(learned[q])
                per_question[haystacks[q].question_id]["learned_gold_rank"] = 1 + min(
                    order.index(i) for i in haystacks[q].gold)
        else:
            row["learned"] = {"status": "not_measured" if ranked else "not_applicable",
                              "reason": ("no question of the shape could be tested: the other "
                                         "half has nothing to train on (every haystack shares "
                                         "sessions with every other)") if ranked else
                              "no question of the shape has both gold and filler"}

        tested = [q for q in ranked if q in position]
        if tested:
            cov = _mean([position[q] for q in tested])
            rnd = _mean([min(K, haystacks[q].n) / haystacks[q].n for q in tested])
            assert cov is not None and rnd is not None
            bound = rnd + POSITION_MARGIN
            chance = p_value(null_draws([(haystacks[q].keys, haystacks[q].gold) for q in tested],
                                        key=f"position\x1f{shape}")["coverage_at_5"], cov)
            row["position_prior"] = {"status": "measured", "questions": len(tested),
                                     "coverage_at_5": cov, "random_coverage_at_5": rnd,
                                     "bound": bound, "p_value": chance, "alpha": alpha}
            if cov > bound and chance < alpha:
                findings.append(Finding("position_prior", shape, cov, bound, (
                    f"ranking sessions by where the other half's gold sits puts {cov:.3f} of gold in "
                    f"the top {K} (random {rnd:.3f}, bound random + {POSITION_MARGIN}): gold "
                    "position is predictable; draw it, never fix it")))
            for q in tested:
                per_question[haystacks[q].question_id]["position_coverage_at_5"] = position[q]
        else:
            row["position_prior"] = {"status": "not_measured" if ranked else "not_applicable",
                                     "reason": "no question of the shape could be tested"
                                     if ranked else "no question with both gold and filler"}

        if not shares.get(shape):
            row["haystack_diff"] = {"status": "not_applicable", "reason": "no haystack of the "
                                    "shape shares a session with another haystack"}
        elif ranked:
            count = sum(1 for q in ranked if singled[q])
            share = count / len(ranked)
            row["haystack_diff"] = {"status": "measured", "questions": len(ranked),
                                    "singled_out": count, "singled_out_share": share,
                                    "random": 0.0, "bound": HAYSTACK_DIFF_SHARE}
            if share > HAYSTACK_DIFF_SHARE:
                findings.append(Finding("haystack_diff", shape, share, HAYSTACK_DIFF_SHARE, (
                    f"in {count} of {len(ranked)} questions the sessions found in no other haystack "
                    "are gold and only gold: diffing haystacks that share filler finds gold")))
            for q in ranked:
                per_question[haystacks[q].question_id]["singled_out"] = singled[q]
        else:
            row["haystack_diff"] = {"status": "not_applicable",
                                    "reason": "no question with both gold and filler"}

        if ranked:
            g1 = _mean([_gold_at_1(readers[q], haystacks[q].gold) for q in ranked])
            assert g1 is not None and random_g1 is not None
            row["subject_value_reader"] = {"status": "measured", "questions": len(ranked),
                                           "gold_at_1": g1, "random_gold_at_1": random_g1,
                                           "bound": READER_GOLD_AT_1}
            if g1 > READER_GOLD_AT_1:
                findings.append(Finding("subject_value_reader", shape, g1, READER_GOLD_AT_1, (
                    f"the session whose best value-holding sentence shares most question words is "
                    f"gold in {g1:.3f} of questions (random {random_g1:.3f}): competitors must "
                    "carry values too, not content-free mentions")))
            fact = {q: fact_only_coverage(haystacks[q]) for q in ranked}
            row["fact_only_bm25"], found = _ceiling_row(
                "fact_only_bm25", shape, fact, random_k, FACT_ONLY_CEILING,
                "BM25 with every value-less sentence deleted covers {cov:.3f} of gold in the top "
                "{k} (ceiling {bound}; random {random:.3f}): the difficulty comes from content-free "
                "text")
            findings += found
            phrase = {q: _tied_coverage(phrase_scores(haystacks[q]), haystacks[q].gold)
                      for q in ranked}
            row["phrase_reader"], found = _ceiling_row(
                "phrase_reader", shape, phrase, random_k, PHRASE_CEILING,
                "ranking sessions by the question's phrases in one sentence covers {cov:.3f} of "
                "gold in the top {k} (ceiling {bound}; random {random:.3f}): too few competitors "
                "carry the subject's own phrase")
            findings += found
            for q in ranked:
                entry = per_question[haystacks[q].question_id]
                order = _ranking(readers[q])
                entry["reader_gold_rank"] = 1 + min(order.index(i) for i in haystacks[q].gold)
                entry["fact_only_coverage_at_5"] = fact[q]
                entry["phrase_coverage_at_5"] = phrase[q]
        else:
            for name in ("subject_value_reader", "fact_only_bm25", "phrase_reader"):
                row[name] = {"status": "not_applicable",
                             "reason": "no question of the shape has both gold and filler"}
        for view, scored in (("form", form), ("episode", episode)):
            name = f"{view}_reader"
            row[name] = _form_row(ranked, scored, shape, alpha / FORM_VIEWS, view)
            if row[name]["status"] == "measured":
                findings.extend(_form_findings(row[name], shape, "the shape's", view))
                for q in ranked:
                    if q in scored:
                        candidates, scores = scored[q]
                        order = _ranking(scores)
                        per_question[haystacks[q].question_id][f"{view}_gold_rank"] = 1 + min(
                            order.index(i) for i in candidates.gold)
        by_shape[shape] = row
    pooled_questions = [q for q, h in enumerate(haystacks)
                        if h.ranked and q in learned and h.shape not in exclude_from_pool]
    pooled: dict[str, Any] = {"shapes": sorted({haystacks[q].shape for q in pooled_questions}),
                              "excluded_shapes": sorted(exclude_from_pool)}
    if len({haystacks[q].shape for q in pooled_questions}) > 1:
        pooled["learned"] = _learned_figures(pooled_questions, learned, haystacks, POOLED, alpha)
        findings.extend(_learned_findings(pooled["learned"], POOLED, "all measured"))
    else:
        pooled["learned"] = {"status": "not_applicable",
                             "reason": "fewer than two measured shapes: the per-shape row is it"}
    for view, scored in (("form", form), ("episode", episode)):
        name = f"{view}_reader"
        view_pooled = [q for q, h in enumerate(haystacks)
                       if q in scored and h.shape not in exclude_from_pool]
        if len({haystacks[q].shape for q in view_pooled}) > 1:
            pooled[name] = _form_row(view_pooled, scored, POOLED, alpha / FORM_VIEWS, view)
            findings.extend(_form_findings(pooled[name], POOLED, "all measured", view))
        else:
            pooled[name] = {"status": "not_applicable",
                            "reason": "fewer than two measured shapes: the per-shape row is it"}
    measured: dict[str, Any] = {"by_shape": by_shape, "pooled": pooled,
                                "form_reader_excluded": form_excluded,
                                "episode_reader_excluded": episode_excluded,
                                "learned_split": learned_info, "per_question": per_question}
    return measured, findings


def _ceiling_row(rule: str, shape: str, coverage: Mapping[int, float], random_k: float | None,
                 bound: float, detail: str) -> tuple[dict[str, Any], list[Finding]]:
    """A difficulty bound on a reader's mean coverage@K (no chance test: the figure is the
    corpus's difficulty for that reader, as calibration's ceiling is)."""
    cov = _mean(list(coverage.values()))
    assert cov is not None and random_k is not None
    row = {"status": "measured", "questions": len(coverage), "coverage_at_5": cov,
           "random_coverage_at_5": random_k, "bound": bound}
    found = [Finding(rule, shape, cov, bound, detail.format(cov=cov, k=K, bound=bound,
                                                           random=random_k))] if cov > bound else []
    return row, found


NULL_DRAWS = 2000
"""Rankings drawn per p-value (a p-value resolves to 1 / 2001)."""
NULL_CONSTANT = "typedmemeval-adversaries-null-v1"


def null_draws(questions: Sequence[tuple[tuple[str, ...], frozenset[int]]], *, key: str
               ) -> dict[str, Any]:
    """The mean gold@1, AUC and coverage@K of these questions under :data:`NULL_DRAWS` rankings
    that know nothing (one array per figure): every *haystack* (its session keys) is re-ranked
    uniformly at random, and each question's figure read off its haystack's ranking with its own
    gold.

    One ranking per haystack, not per question: a question-blind ranker gives the two arms of a
    pair (one haystack, two questions) the same ranking, so they are one observation when their
    gold is the same and dependent when it is not (Prospective's six expiring-validity pairs are six
    observations, not twelve). Exact for any mix of gold counts and haystack sizes, which normal
    approximations are not at four questions. Seeded by ``key`` and :data:`NULL_CONSTANT`."""
    import numpy as np

    digest = hashlib.sha256(f"{NULL_CONSTANT}\x1f{key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    g1 = np.zeros(NULL_DRAWS)
    au = np.zeros(NULL_DRAWS)
    cov = np.zeros(NULL_DRAWS)
    rankings: dict[tuple[str, ...], Any] = {}
    for keys, gold in questions:
        n = len(keys)
        if keys not in rankings:
            rankings[keys] = rng.random((NULL_DRAWS, n)).argsort(axis=1).argsort(axis=1)
        ranks = rankings[keys][:, sorted(gold)]
        g = len(gold)
        g1 += (ranks.min(axis=1) == 0)
        cov += (ranks < min(K, n)).sum(axis=1) / g
        # AUC of gold ranked at r among n: fillers ranked below it, over g * (n - g) pairs
        below = (n - 1 - ranks).sum(axis=1) - g * (g - 1) / 2
        au += below / (g * (n - g))
    m = len(questions)
    return {"gold_at_1": g1 / m, "auc": au / m, "coverage_at_5": cov / m}


def p_value(draws: Any, observed: float) -> float:
    """One-sided: (1 + draws at or above ``observed``) / (1 + draws)."""
    return float((1 + int((draws >= observed - 1e-9).sum())) / (1 + len(draws)))


def _learned_figures(tested: Sequence[int], learned: Mapping[int, Sequence[float]],
                     haystacks: Sequence[_Haystack], key: str, alpha: float) -> dict[str, Any]:
    """The learned adversary's figures over some questions: gold@1 and mean AUC beside their random
    expectation, their bounds, their chance under no signal (:func:`null_draws`) and the ``alpha``
    it is judged at."""
    g1 = _mean([_gold_at_1(learned[q], haystacks[q].gold) for q in tested])
    auc = _mean([_auc(learned[q], haystacks[q].gold) for q in tested])
    rnd = _mean([len(haystacks[q].gold) / haystacks[q].n for q in tested])
    assert g1 is not None and auc is not None and rnd is not None
    draws = null_draws([(haystacks[q].keys, haystacks[q].gold) for q in tested],
                       key=f"learned\x1f{key}")
    return {"status": "measured", "questions": len(tested), "gold_at_1": g1,
            "random_gold_at_1": rnd,
            "gold_at_1_bound": max(LEARNED_RANDOM_FACTOR * rnd, LEARNED_GOLD_AT_1_FLOOR),
            "gold_at_1_p_value": p_value(draws["gold_at_1"], g1),
            "auc": auc, "random_auc": 0.5, "auc_bound": LEARNED_AUC_REFUSE,
            "auc_p_value": p_value(draws["auc"], auc), "alpha": alpha}


def _beyond_chance(row: Mapping[str, Any]) -> tuple[bool, bool]:
    """(gold@1, AUC) of a row judged against chance: each refuses when it is above its bound *and*
    no-signal chance explains it less often than the row's ``alpha`` (:data:`LEARNED_ALPHA` over
    the rows tested; module docstring). Shared by the learned adversary and the form reader."""
    alpha = row["alpha"]
    return (row["gold_at_1"] > row["gold_at_1_bound"] and row["gold_at_1_p_value"] < alpha,
            row["auc"] > row["auc_bound"] and row["auc_p_value"] < alpha)


def _learned_findings(row: Mapping[str, Any], shape: str, scope: str) -> list[Finding]:
    """The learned adversary's refusals of one row (:func:`_beyond_chance`)."""
    alpha = row["alpha"]
    out = []
    g1_refuses, auc_refuses = _beyond_chance(row)
    g1, rnd, bound, p = (row["gold_at_1"], row["random_gold_at_1"], row["gold_at_1_bound"],
                         row["gold_at_1_p_value"])
    if g1_refuses:
        out.append(Finding("learned_gold_at_1", shape, g1, bound, (
            f"a question-blind classifier trained on the other half's sessions puts gold first "
            f"in {g1:.3f} of {scope} {row['questions']} questions (random {rnd:.3f}, bound "
            f"max(2 x random, {LEARNED_GOLD_AT_1_FLOOR}) = {bound:.3f}; chance of so many with "
            f"no signal p = {p:.2g} < {alpha:.2g}): gold looks like gold without the question "
            "(value pool split by role, a frame only gold uses, gold's topic recurring in its "
            "haystack more than others' do)")))
    auc, p = row["auc"], row["auc_p_value"]
    if auc_refuses:
        out.append(Finding("learned_auc", shape, auc, LEARNED_AUC_REFUSE, (
            f"mean within-question AUC of the question-blind classifier is {auc:.3f} over "
            f"{scope} {row['questions']} questions (random 0.5, bound {LEARNED_AUC_REFUSE}; "
            f"p = {p:.2g} < {alpha:.2g} with no signal)")))
    return out


def _form_row(questions: Sequence[int], form: Mapping[int, tuple[Candidates, list[float]]],
              key: str, alpha: float, view: str = "form") -> dict[str, Any]:
    """The form reader's figures in one view over the questions it could test
    (:mod:`.form_reader`): gold@1 and mean AUC among candidate sessions, their random expectation,
    bounds and chance. ``view`` is ``form`` (clauses) or ``episode``; it seeds the null draws."""
    tested = [q for q in questions if q in form]
    if not tested:
        return {"status": "not_applicable",
                "reason": "no question of the shape has candidates in two or more sessions with "
                          "gold among them (nothing a reader of form could break)"}
    g1 = _mean([_gold_at_1(form[q][1], form[q][0].gold) for q in tested])
    auc = _mean([_auc(form[q][1], form[q][0].gold) for q in tested])
    rnd = _mean([len(form[q][0].gold) / len(form[q][0].session_list) for q in tested])
    assert g1 is not None and auc is not None and rnd is not None
    draws = null_draws([(tuple(f"{q}\x1f{s}" for s in form[q][0].session_list), form[q][0].gold)
                        for q in tested], key=f"{view}\x1f{key}")
    return {"status": "measured", "questions": len(tested), "gold_at_1": g1,
            "random_gold_at_1": rnd, "gold_at_1_bound": min(1.0, rnd + FORM_MARGIN),
            "gold_at_1_p_value": p_value(draws["gold_at_1"], g1),
            "mean_candidate_sessions": _mean([len(form[q][0].session_list) for q in tested]),
            "auc": auc, "random_auc": 0.5, "auc_bound": FORM_AUC_REFUSE,
            "auc_p_value": p_value(draws["auc"], auc), "alpha": alpha}


_FORM_VIEW_WORDS = {
    "form": ("form", "among the clauses holding the question's words and a value, a classifier of "
             "their form alone (word lengths, punctuation, place in the turn)",
             "gold's statement is written differently from its competitors'; draw every frame for "
             "every role"),
    "episode": ("episode", "among the sentences holding the question's words, each read with the "
                "sentences around it in its turn, a classifier of their form alone (lengths, "
                "commas, sentences, neighbours)",
                "gold's episode (its intro, statement and follow-up) is shaped differently from its "
                "competitors'; draw every intro and follow-up for every role"),
}
"""Per view: the rule prefix, what the reader does, and the usual cause (the findings' words)."""


def _form_findings(row: Mapping[str, Any], shape: str, scope: str, view: str = "form"
                   ) -> list[Finding]:
    """One view's form-reader refusals of one row (:func:`_beyond_chance`)."""
    prefix, reads, cause = _FORM_VIEW_WORDS[view]
    out = []
    alpha = row["alpha"]
    g1_refuses, auc_refuses = _beyond_chance(row)
    g1, rnd, bound, p = (row["gold_at_1"], row["random_gold_at_1"], row["gold_at_1_bound"],
                         row["gold_at_1_p_value"])
    if g1_refuses:
        out.append(Finding(f"{prefix}_gold_at_1", shape, g1, bound, (
            f"{reads}, trained on the other half, puts a gold session first in {g1:.3f} of "
            f"{scope} {row['questions']} questions (random among those sessions {rnd:.3f}, bound "
            f"random + {FORM_MARGIN}; p = {p:.2g} < {alpha:.2g} with no signal): {cause}")))
    auc, p = row["auc"], row["auc_p_value"]
    if auc_refuses:
        out.append(Finding(f"{prefix}_auc", shape, auc, FORM_AUC_REFUSE, (
            f"mean within-question AUC of the {view} reader among candidate sessions is "
            f"{auc:.3f} over {scope} {row['questions']} questions (random 0.5, bound "
            f"{FORM_AUC_REFUSE}; p = {p:.2g} < {alpha:.2g} with no signal)")))
    return out


LEARNED_RULES = ("learned_gold_at_1", "learned_auc")
"""The learned adversary's rules: a shape exempt from either leaves the pooled row."""
ANY_RULE = "*"
"""An exemption of every rule of a shape (the ``exempt`` argument's)."""


def _exemptions(declared: VerticalDeclarations, exempt: Mapping[str, str] | None
                ) -> dict[str, dict[str, str]]:
    """shape -> {rule (or :data:`ANY_RULE`) -> reason}: declared ones name one rule each."""
    out: dict[str, dict[str, str]] = {}
    for item in declared.adversary_exemptions:
        if item.name not in RULES:
            raise ValueError(f"adversary exemption names no rule: {item.name!r} "
                             f"(rules: {', '.join(RULES)})")
        for shape in item.shapes:
            out.setdefault(shape, {})[item.name] = item.reason
    for shape, reason in (exempt or {}).items():
        out.setdefault(str(shape), {})[ANY_RULE] = str(reason)
    return out


def _exempt_reason(exemptions: Mapping[str, Mapping[str, str]], shape: str, rule: str
                   ) -> str | None:
    rules = exemptions.get(shape, {})
    return rules.get(rule) or rules.get(ANY_RULE)


def _worst(by_shape: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    def top(adversary: str, figure: str) -> dict[str, Any] | None:
        rows = [(row[adversary][figure], shape) for shape, row in by_shape.items()
                if row.get(adversary, {}).get("status") == "measured"]
        if not rows:
            return None
        value, shape = max(rows, key=lambda item: (item[0], item[1]))
        return {"value": value, "shape": shape}

    out: dict[str, Any] = {}
    for key, adversary, figure in (
            ("learned_gold_at_1", "learned", "gold_at_1"), ("learned_auc", "learned", "auc"),
            ("position_prior", "position_prior", "coverage_at_5"),
            ("haystack_diff", "haystack_diff", "singled_out_share"),
            ("subject_value_reader", "subject_value_reader", "gold_at_1"),
            ("fact_only_bm25", "fact_only_bm25", "coverage_at_5"),
            ("phrase_reader", "phrase_reader", "coverage_at_5"),
            ("form_gold_at_1", "form_reader", "gold_at_1"), ("form_auc", "form_reader", "auc"),
            ("episode_gold_at_1", "episode_reader", "gold_at_1"),
            ("episode_auc", "episode_reader", "auc")):
        found = top(adversary, figure)
        out[key] = found
    return out


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None,
          exempt: Mapping[str, str] | None = None) -> GateResult:
    """The five adversaries over one corpus (pure). ``declared`` defaults to the code constants for
    its vertical; ``exempt`` adds shape exemptions (shape -> reason). Rules: :data:`RULES`.

    Enforced from revision 3 on; an earlier revision, a fixture or an id without a revision is
    ``skipped`` with the reason, the figures and the would-be findings in ``measured``."""
    vertical = corpus.vertical.lower() if corpus.vertical else None
    declared = declarations_for(vertical) if declared is None else declared
    exemptions = _exemptions(declared, exempt)
    revision = corpus_revision(corpus.corpus_id)
    fixture = bool(getattr(corpus, "is_fixture", False))
    enforced = revision is not None and revision >= FROM_REVISION and not fixture
    learned_exempt = frozenset(shape for shape in exemptions if any(
        _exempt_reason(exemptions, shape, rule) for rule in LEARNED_RULES))
    measured, findings = measure(corpus.records, exclude_from_pool=learned_exempt)
    by_shape = measured["by_shape"]

    refusals: list[Refusal] = []
    applied: dict[str, dict[str, Any]] = {}
    order = {rule: index for index, rule in enumerate(RULES)}
    findings.sort(key=lambda f: (order[f.rule], f.shape))
    for finding in findings:
        reason = _exempt_reason(exemptions, finding.shape, finding.rule)
        if reason is not None:
            entry = applied.setdefault(finding.shape, {"reason": reason, "rules": []})
            entry["rules"].append(finding.rule)
            continue
        refusals.append(Refusal(finding.rule, finding.shape, round(finding.value, 6),
                                f"{finding.detail} [bound {finding.bound:.3f}]", vertical,
                                finding.shape))
    stale = sorted(shape for shape, rules in exemptions.items() if shape not in applied or any(
        rule != ANY_RULE and rule not in applied[shape]["rules"] for rule in rules))
    for shape, row in by_shape.items():
        rules = exemptions.get(shape)
        row["exempt"] = None if not rules else (rules[ANY_RULE] if ANY_RULE in rules else
                                                {rule: why for rule, why in sorted(rules.items())})
    notes: list[str] = [
        "reader, phrase-reader, position-prior and learned gold@1 figures count ties at random "
        "(expected coverage); fact-only BM25 breaks ties by session order as the reference does; "
        "questions without gold, or all gold, are excluded and counted per shape",
        "learned adversary: question-blind logistic regression, 2-fold over question groups that "
        "share no session; value-membership features cross-fitted inside the training half; "
        "haystack-relative recurrence features per session slot",
    ]
    for shape in stale:
        notes.append(f"{shape}: adversary exemption declared but not needed (shape absent or no "
                     "adversary fires on it); delete it")
    for shape, entry in applied.items():
        notes.append(f"{shape}: exempt from {', '.join(entry['rules'])} ({entry['reason']})")
    not_measured = sorted(
        f"{shape}/{name}" for shape, row in by_shape.items() for name in ADVERSARIES
        if row.get(name, {}).get("status") == "not_measured"
        and ANY_RULE not in exemptions.get(shape, {}))

    measured.update({
        "vertical": vertical, "revision": revision, "enforced": enforced,
        "from_revision": FROM_REVISION, "thresholds": dict(THRESHOLDS), "k": K,
        "excluded_no_gold": sum(row["excluded_no_gold"] for row in by_shape.values()),
        "excluded_all_gold": sum(row["excluded_all_gold"] for row in by_shape.values()),
        "worst": _worst(by_shape),
        "exemptions_applied": applied, "stale_exemptions": stale,
        "would_refuse": [{"rule": r.rule, "shape": r.shape, "value": r.value} for r in refusals],
        "not_measured": not_measured,
    })
    status: GateStatus
    skip_reason = None
    if not enforced:
        status = "skipped"
        why = ("a fixture corpus" if fixture else
               "its id names no revision" if revision is None else f"revision {revision}")
        verdict = (f"{len(refusals)} finding(s) would refuse it: " + "; ".join(
            f"{r.shape} {r.rule} {r.value:.3f}" for r in refusals[:6])
                   + (" ..." if len(refusals) > 6 else "")) if refusals else \
            "no adversary would refuse it"
        skip_reason = (f"the adversary gate binds from corpus revision {FROM_REVISION} (GATES.md §7) "
                       f"and this is {why}, which predates it: measured, not enforced; {verdict} "
                       "(figures in measured)")
        refusals = []
    elif refusals:
        status = "refused"
    elif not_measured:
        status = "skipped"
        skip_reason = ("adversaries not measured: " + ", ".join(not_measured)
                       + " (an unmeasured adversary is never a pass)")
    elif not any(row["measured_questions"] for row in by_shape.values()):
        status = "skipped"
        skip_reason = "no question has both gold and filler sessions: nothing to rank"
    else:
        status = "passed"
    return GateResult(GATE, corpus.corpus_id, status, tuple(refusals), measured, tuple(notes),
                      skip_reason=skip_reason)


# --- the false-refusal simulation and the self-test (corpora: :mod:`.selftest.adversaries`) -----


def false_refusal_rate(trials: int = 40, *, seed: int = 1000,
                       spec: SimulationSpec | None = None) -> FalseRefusal:
    """Run the gate over ``trials`` clean simulated corpora (seeds ``seed``..``seed + trials - 1``)
    and count refusals. A refusal of a clean corpus is a false refusal."""
    by_rule: Counter[str] = Counter()
    refused: list[int] = []
    none = VerticalDeclarations()
    for trial in range(trials):
        result = check(build_simulated_corpus(seed + trial, spec), declared=none)
        if result.status == "refused":
            refused.append(seed + trial)
            by_rule.update(result.refused_rules())
    return FalseRefusal(trials, len(refused), dict(sorted(by_rule.items())), tuple(refused))


def _pooled_case(name: str, result: GateResult) -> SelfTestCase:
    """A tell spread over small shapes: refused by the learned rule on the pooled row itself."""
    pooled = sorted(r.rule for r in result.refusals if r.shape == POOLED)
    ok = result.status == "refused" and "learned_gold_at_1" in pooled
    return SelfTestCase(name, "defect", "learned_gold_at_1", ok,
                        f"expected learned_gold_at_1 on {POOLED}; fired there {pooled or 'nothing'}"
                        f"; all {sorted(result.refused_rules())}")


def _false_refusal_case(trials: int) -> SelfTestCase:
    found = false_refusal_rate(trials)
    ok = found.rate <= FALSE_REFUSAL_BUDGET
    return SelfTestCase(
        f"false-refusal rate on {trials} clean simulated corpora <= {FALSE_REFUSAL_BUDGET}",
        "control", None, ok,
        f"{found.refused} of {found.trials} refused ({found.rate:.3f}); by rule {found.by_rule}; "
        f"seeds {list(found.refused_seeds)}")


def self_test() -> list[SelfTestCase]:
    """Each injected tell refused by its intended rule; clean controls that must pass."""
    none = VerticalDeclarations()
    cases: list[SelfTestCase] = []
    split = build_simulated_corpus(11, SimulationSpec(pools="split"))
    split_result = check(split, declared=none)
    cases.append(defect_case("value pool split by role (gold values from one list, filler from "
                             "another)", split_result, "learned_gold_at_1"))
    cases.append(defect_case("value pool split by role: within-question AUC", split_result,
                             "learned_auc"))
    cases.append(defect_case("gold at a fixed index (second from the end)",
                             check(build_simulated_corpus(12, SimulationSpec(gold_position=1)),
                                   declared=none), "position_prior"))
    content_free = check(build_simulated_corpus(13, SimulationSpec(content_free_competitors=True)),
                         declared=none)
    cases.append(defect_case("content-free-only competition: the subject-and-value sentence is "
                             "gold's", content_free, "subject_value_reader"))
    cases.append(defect_case("content-free-only competition: BM25 after deleting value-less "
                             "sentences", content_free, "fact_only_bm25"))
    cases.append(defect_case("competitors name the asked item at another place: only gold holds "
                             "the question's phrase", check(build_simulated_corpus(
                                 17, SimulationSpec(phrase_free_competitors=True)),
                                 declared=none), "phrase_reader"))
    cases.append(defect_case("haystacks sharing filler that differ only in gold",
                             check(build_simulated_corpus(14, SimulationSpec(family=4)),
                                   declared=none), "haystack_diff"))
    cases.append(defect_case("competitors cluster around the asked subject only (gold and 4-7 "
                             "valued competitors, every other subject once): within-haystack "
                             "recurrence", check(build_simulated_corpus(15, RECURRENCE_DEFECT),
                                                 declared=none), "learned_auc"))

    form_tell = check(build_simulated_corpus(18, SimulationSpec(form_tell=True)), declared=none)
    cases.append(defect_case("competitors' statements worded longer than gold's (same frames and "
                             "values, a tag only competitors carry): the form reader's gold@1",
                             form_tell, "form_gold_at_1"))
    cases.append(defect_case("competitors' statements worded longer than gold's: the form "
                             "reader's within-question AUC", form_tell, "form_auc"))
    episode_tell = check(build_simulated_corpus(19, SimulationSpec(episode_tell=True)),
                         declared=none)
    cases.append(defect_case("competitors' statements introduced by a longer lead-in naming the "
                             "subject than gold's (every statement has one; the statement clauses "
                             "alike): the episode reader's gold@1", episode_tell,
                             "episode_gold_at_1"))
    cases.append(defect_case("competitors' lead-ins longer than gold's: the episode reader's "
                             "within-question AUC", episode_tell, "episode_auc"))
    cases.append(control_case("clean: one template machinery, one value pool, roles after the "
                              "draw, random positions, competitors with values (plus a shape "
                              "without gold, excluded and counted)",
                              check(build_simulated_corpus(21, SimulationSpec(
                                  no_gold_questions=4)), declared=none)))
    cases.append(control_case("clean families sharing filler, each haystack adding its own "
                              "filler besides gold",
                              check(build_simulated_corpus(22, SimulationSpec(
                                  family=4, family_own_filler=3)), declared=none)))
    cases.append(control_case("clean: every subject of a haystack has the same cluster (5-8 valued "
                              "sessions), the asked one chosen after the draw",
                              check(build_simulated_corpus(24, RECURRENCE_CONTROL),
                                    declared=none)))
    cases.append(control_case("clean paired arms sharing a byte-identical haystack",
                              check(build_simulated_corpus(23, SimulationSpec(paired=True)),
                                    declared=none)))
    small_split = check(build_simulated_corpus(16, replace(SMALL_SHAPES, pools="split")),
                        declared=none)
    cases.append(_pooled_case("value pool split across eleven shapes of four questions: the "
                              "pooled row refuses what no single small shape can show",
                              small_split))
    cases.append(_chance_case("clean, eleven shapes of four questions: a chance hit is not a tell",
                              check(build_simulated_corpus(25, SMALL_SHAPES), declared=none)))
    cases.append(_exempt_case("value pool split on a shape declared exempt: reported, not refused",
                              check(split, declared=none, exempt={
                                  "lookup": "self-test: an exemption is reported with its reason"}),
                              "lookup"))
    one_rule = VerticalDeclarations(adversary_exemptions=(Declared(
        "phrase_reader", "self-test: a one-rule exemption", shapes=("lookup",)),))
    cases.append(defect_case("value pool split on a shape exempt from the phrase reader only: "
                             "the learned rules still refuse it",
                             check(split, declared=one_rule), "learned_gold_at_1"))
    cases.append(_skip_case("a revision-2 corpus with the split is skipped with its figures, "
                            "never passed",
                            check(replace(split, corpus_id="selftest-adversaries-v2"),
                                  declared=none)))
    cases.append(_tie_case())
    cases.append(_false_refusal_case(SELF_TEST_SIMULATION_TRIALS))
    return cases


def _tie_case() -> SelfTestCase:
    """Ties at the cut count at random, never by session order: gold first among twenty sessions
    scored alike covers 5/20 at 5 and 1/20 at rank 1 (session order would say 1.0 and 1.0, a
    position prior); gold strictly on top still covers 1.0; gold tied with three others at ranks
    4-7 covers 2/4."""
    flat, gold = [1.0] * 20, frozenset({0})
    top = [2.0] + [1.0] * 19
    cut = [5.0, 4.0, 3.0, 2.0, 2.0, 2.0, 2.0] + [1.0] * 13
    figures = {"flat coverage": _tied_coverage(flat, gold), "flat gold@1": _gold_at_1(flat, gold),
               "top coverage": _tied_coverage(top, gold), "top gold@1": _gold_at_1(top, gold),
               "cut coverage": _tied_coverage(cut, frozenset({6})),
               "session-order coverage": _coverage(_ranking(flat), gold)}
    want = {"flat coverage": 0.25, "flat gold@1": 0.05, "top coverage": 1.0, "top gold@1": 1.0,
            "cut coverage": 0.5, "session-order coverage": 1.0}
    ok = all(abs(figures[k] - v) < 1e-12 for k, v in want.items())
    return SelfTestCase("ties at the cut are counted at random, not by session order (phrase "
                        "reader, subject-and-value reader, position prior, learned gold@1)",
                        "control", None, ok, f"figures {figures}, expected {want}")


__all__ = ["ADVERSARIES", "FALSE_REFUSAL_BUDGET", "FROM_REVISION", "FalseRefusal", "GATE",
           "POOLED", "RECURRENCE_CONTROL", "RECURRENCE_DEFECT", "RULES", "SMALL_SHAPES", "SimulationSpec", "THRESHOLDS",
           "build_simulated_corpus", "check", "false_refusal_rate", "measure", "question_groups",
           "self_test", "split_halves"]
