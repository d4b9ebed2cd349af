"""The separability gate's measurements: every feature of a corpus scored before exemptions and
verdicts (:func:`score_features`), and one feature rescored on part of the corpus for an exemption
scoped to shapes (:func:`rescore`).

Per feature: the pooled within-question AUC, the perfect-separation count against its chance
expectation and variance, and (phrases) the exclusivity counts; per question: role sequences only
its gold has; per (gram, question): the relevance exemption. Split from :mod:`.separability`
because this is the vectorised numpy part, tested against the exact statistics of
:mod:`.separability_statistics`, while the gate module keeps the rules, the verdict and the
self-test. The readings behind the numbers are in :mod:`.separability`'s docstring.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from math import comb, sqrt
from typing import TYPE_CHECKING, Any, Literal

from ..corpus.loading import Corpus
from ..retrieval.tokenizer import raw_tokens

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .features import FeatureTable

INSTANCE_TOKEN_SHARE = 0.10
"""GATES.md §2 relevance exemption: an instance token is in < 10% of all sessions corpus-wide."""
MIN_PHRASE_SESSIONS = 5
"""GATES.md §2 phrase candidates: >= 5 gold sessions or >= 5 distractor sessions."""
QUESTION_RULE_NEEDS_RARE_TOKEN = True
"""GATES.md §2 "Frames are never exempt", read as covering the question-text rule too: a gram the
question text contains is exempt for that question only if one of its tokens is in < 10% of
sessions (VERTICALS.md §4.7 "instance words are exempt, frame phrases never are"). The stricter
of the two readings; False gives GATES.md's question rule word for word."""


@dataclass(frozen=True)
class FeatureScore:
    """Everything the rules look at for one feature."""

    feature: str
    kind: Literal["numeric", "phrase"]
    auc: float
    raw_auc: float
    """Before folding: above 0.5 when gold tends higher (present, for a phrase)."""
    pairs: int
    perfect_questions: int
    expected_perfect: float
    variance: float
    z: float
    questions: int
    """Q: questions with 0 < g < n that this feature is measured on."""
    gold_questions_with: int | None = None
    """Phrase only: questions (not exempt) whose gold sessions hold it."""
    distractor_sessions_with: int | None = None
    """Phrase only: distractor sessions anywhere (not exempt) that hold it."""
    questions_with_gold: int | None = None

    @property
    def perfect_share(self) -> float:
        return self.perfect_questions / self.questions if self.questions else 0.0

    @property
    def exclusive_share(self) -> float:
        """Share of questions with gold whose gold holds the phrase, if no distractor does; else 0."""
        if self.kind != "phrase" or self.distractor_sessions_with or not self.questions_with_gold:
            return 0.0
        return (self.gold_questions_with or 0) / self.questions_with_gold

    def stamp(self, *, refused: bool, rule: str | None) -> dict[str, Any]:
        """The sidecar's ``SeparabilityFeature`` shape."""
        return {"feature": self.feature, "auc": round(self.auc, 6),
                "perfect_questions": self.perfect_questions,
                "expected_perfect": round(self.expected_perfect, 6), "z": round(self.z, 6),
                "refused": refused, "rule": rule}


@dataclass(frozen=True)
class RoleSequenceFinding:
    """A question whose gold sessions show a role sequence none of its distractors has."""

    question_id: str
    shape: str
    gold_only: tuple[str, ...]
    distractor_sequences: tuple[str, ...]


@dataclass(frozen=True)
class _Bucket:
    """Questions of similar haystack size, scored together in one padded block."""

    questions: npt.NDArray[np.int64]
    sessions: npt.NDArray[np.int64]
    """Global rows of those questions' sessions, in table order."""
    local: npt.NDArray[np.int64]
    """Per session row: its question's index inside ``questions``."""
    slot: npt.NDArray[np.int64]
    """Per session row: its position inside its question."""
    width: int


@dataclass(frozen=True)
class _Layout:
    """Per-question shape of the table, shared by every scorer."""

    count: int
    starts: npt.NDArray[np.int64]
    sizes: npt.NDArray[np.int64]
    gold: npt.NDArray[np.int64]
    distractors: npt.NDArray[np.int64]
    included: npt.NDArray[np.bool_]
    pairs: npt.NDArray[np.float64]
    combinations: npt.NDArray[np.float64]
    buckets: tuple[_Bucket, ...]


def _combinations(n: int, g: int) -> float:
    count = comb(n, g)
    return float(count) if count.bit_length() < 1000 else float("inf")  # p_q is 0.0 there anyway


def _layout(table: FeatureTable) -> _Layout:
    import numpy as np

    starts = table.question_starts
    sizes = np.diff(starts)
    gold = np.bincount(table.session_question, weights=table.session_gold,
                       minlength=table.question_count).astype(np.int64)
    included = (gold > 0) & (gold < sizes)
    combinations = np.array([_combinations(int(n), int(g)) if ok else 1.0
                             for n, g, ok in zip(sizes, gold, included)], dtype=np.float64)
    # Size classes by powers of two: padding each block to its largest haystack costs at most
    # twice the real cells, so one huge haystack never pads every small question up to its size.
    slot = np.arange(table.session_count, dtype=np.int64) - starts[table.session_question]
    size_class = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    buckets = []
    for value in np.unique(size_class):
        questions = np.flatnonzero(size_class == value)
        sessions = np.flatnonzero(np.isin(table.session_question, questions))
        buckets.append(_Bucket(
            questions=questions, sessions=sessions,
            local=np.searchsorted(questions, table.session_question[sessions]),
            slot=slot[sessions], width=int(sizes[questions].max())))
    return _Layout(
        count=table.question_count, starts=starts, sizes=sizes, gold=gold,
        distractors=sizes - gold, included=included,
        pairs=(gold * (sizes - gold)).astype(np.float64), combinations=combinations,
        buckets=tuple(buckets),
    )


class _Clock:
    def __init__(self, sink: dict[str, float] | None) -> None:
        self.sink = sink

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            if self.sink is not None:
                self.sink[name] = self.sink.get(name, 0.0) + time.perf_counter() - start


@dataclass(frozen=True)
class _Columns:
    """Rule inputs for a batch of features, one entry per feature."""

    u_sum: npt.NDArray[Any]
    pairs: npt.NDArray[Any]
    perfect: npt.NDArray[Any]
    expected: npt.NDArray[Any]
    variance: npt.NDArray[Any]
    questions: npt.NDArray[Any]
    gold_questions_with: npt.NDArray[Any] | None = None
    distractor_sessions_with: npt.NDArray[Any] | None = None


def _score_dense(values: npt.NDArray[np.float64], table: FeatureTable, layout: _Layout,
                 excluded: npt.NDArray[np.bool_] | None, *, binary: bool,
                 clock: _Clock) -> _Columns:
    """Score numeric columns ``values`` (sessions x features) with midranks inside each question.

    Each size class of questions is laid into a (questions, largest haystack, features) block
    padded with +inf, so one sort along the haystack axis ranks every question and feature at
    once: O(N log n) work, no per-pair loop. U_q = (sum of gold midranks) - g(g + 1)/2 counts
    (g > d) + 0.5 (g = d).
    """
    import numpy as np

    features = values.shape[1]
    keep = ~excluded if excluded is not None else np.ones(layout.count, dtype=np.bool_)
    weight_all = (layout.included & keep).astype(np.float64)
    u_sum = np.zeros(features)
    perfect_sum = np.zeros(features)
    expected = np.zeros(features)
    variance = np.zeros(features)
    gold_with = np.zeros(features)
    distractor_with = np.zeros(features)
    for bucket in layout.buckets:
        q_count, width = bucket.questions.size, bucket.width
        weight = weight_all[bucket.questions]
        g = layout.gold[bucket.questions]
        n = layout.sizes[bucket.questions]
        real = np.zeros((q_count, width), dtype=np.bool_)
        real[bucket.local, bucket.slot] = True
        gold_mask = np.zeros((q_count, width), dtype=np.bool_)
        gold_mask[bucket.local, bucket.slot] = table.session_gold[bucket.sessions]
        distractor_mask = real & ~gold_mask

        with clock.phase("pairs"):
            block = np.full((q_count, width, features), np.inf)
            block[bucket.local, bucket.slot] = values[bucket.sessions]
            order = np.argsort(block, axis=1, kind="stable")
            ordered = np.take_along_axis(block, order, axis=1)
            index = np.arange(width).reshape(1, width, 1)
            first = np.ones(ordered.shape, dtype=np.bool_)
            first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
            last = np.ones(ordered.shape, dtype=np.bool_)
            last[:, :-1] = first[:, 1:]
            group_start = np.maximum.accumulate(np.where(first, index, 0), axis=1)
            group_end = np.minimum.accumulate(np.where(last, index, width)[:, ::-1],
                                              axis=1)[:, ::-1]
            midranks = np.empty(ordered.shape)
            np.put_along_axis(midranks, order, (group_start + group_end) / 2.0 + 1.0, axis=1)
            gold_ranks = np.einsum("qj,qjf->qf", gold_mask.astype(np.float64), midranks)
            u_sum += weight @ (gold_ranks - (g * (g + 1) / 2.0)[:, None])

        with clock.phase("distribution"):
            gold_min = np.where(gold_mask[:, :, None], block, np.inf).min(axis=1)
            gold_max = np.where(gold_mask[:, :, None], block, -np.inf).max(axis=1)
            dist_min = np.where(distractor_mask[:, :, None], block, np.inf).min(axis=1)
            dist_max = np.where(distractor_mask[:, :, None], block, -np.inf).max(axis=1)
            perfect = (gold_min > dist_max) | (gold_max < dist_min)
            if width > 1:
                # The g-th vs (g+1)-th smallest, and the same from the top; the clip only guards
                # questions whose weight is 0 (no gold or no distractors).
                rows = np.arange(q_count)
                low = np.clip(g, 1, width - 1)
                high = np.clip(n - g, 1, width - 1)
                bottom_ok = ordered[rows, low - 1] < ordered[rows, low]
                top_ok = ordered[rows, high - 1] < ordered[rows, high]
                p = (bottom_ok.astype(np.float64) + top_ok) / layout.combinations[
                    bucket.questions][:, None]
            else:
                p = np.zeros((q_count, features))
            perfect_sum += weight @ perfect.astype(np.float64)
            expected += weight @ p
            variance += weight @ (p * (1.0 - p))

        if binary:
            with clock.phase("exclusivity"):
                kept = keep[bucket.questions]
                has_gold = ((g > 0) & kept).astype(np.float64)
                gold_with += has_gold @ (gold_max > 0).astype(np.float64)
                held = (np.where(distractor_mask[:, :, None], block, 0.0) > 0).sum(axis=1)
                distractor_with += kept.astype(np.float64) @ held.astype(np.float64)
    pairs = np.full(features, float(weight_all @ layout.pairs))
    questions = np.full(features, float(weight_all.sum()))
    return _Columns(u_sum, pairs, perfect_sum, expected, variance, questions,
                    gold_with if binary else None, distractor_with if binary else None)


def _score_phrases(table: FeatureTable, layout: _Layout, exempt_keys: npt.NDArray[np.int64],
                   clock: _Clock) -> _Columns:
    """Score every candidate phrase at once from the sparse (session, gram) incidence.

    Per (gram, question) only two counts matter: a gold and b distractor sessions hold it. Then
    U_q - g d / 2 = (a d - g b) / 2, perfect is (a, b) = (g, 0) or (0, d), and p_q follows from
    m = a + b (GATES.md §2). Questions where the gram is absent add g d / 2 and nothing else, so
    the work is linear in the incidence list, not in grams x questions.
    """
    import numpy as np

    q_count, grams = layout.count, len(table.grams)
    with clock.phase("pairs"):
        sessions = table.incidence_sessions
        question = table.session_question[sessions]
        gold = table.session_gold[sessions]
        keys, inverse = np.unique(table.incidence_grams * q_count + question, return_inverse=True)
        a = np.bincount(inverse, weights=gold, minlength=keys.size)
        b = np.bincount(inverse, weights=~gold, minlength=keys.size)
        gram_of, q_of = keys // q_count, keys % q_count
        keep = ~np.isin(keys, exempt_keys, assume_unique=True)
        g = layout.gold[q_of].astype(np.float64)
        d = layout.distractors[q_of].astype(np.float64)
        measured = keep & layout.included[q_of]
        ex_gram, ex_q = exempt_keys // q_count, exempt_keys % q_count
        ex_weight = layout.included[ex_q].astype(np.float64)
        total_pairs = float(layout.pairs[layout.included].sum())
        pairs = total_pairs - np.bincount(ex_gram, weights=layout.pairs[ex_q] * ex_weight,
                                          minlength=grams)
        delta = 0.5 * (a * d - g * b)
        u_sum = 0.5 * pairs + np.bincount(gram_of[measured], weights=delta[measured],
                                          minlength=grams)

    with clock.phase("distribution"):
        perfect = measured & (((a == g) & (b == 0)) | ((a == 0) & (b == d)))
        m = a + b
        ways = (m == g).astype(np.float64) + (m == d)
        p = np.where(measured, ways / layout.combinations[q_of], 0.0)
        perfect_sum = np.bincount(gram_of[perfect], minlength=grams).astype(np.float64)
        expected = np.bincount(gram_of, weights=p, minlength=grams)
        variance = np.bincount(gram_of, weights=p * (1.0 - p), minlength=grams)
        questions = float(layout.included.sum()) - np.bincount(ex_gram, weights=ex_weight,
                                                                minlength=grams)

    with clock.phase("exclusivity"):
        gold_with = np.bincount(gram_of[keep & (a > 0)], minlength=grams).astype(np.float64)
        distractor_with = np.bincount(gram_of[keep], weights=b[keep], minlength=grams)
    return _Columns(u_sum, pairs, perfect_sum, expected, variance, questions, gold_with,
                    distractor_with)


def _feature_scores(names: Sequence[str], kind: Literal["numeric", "phrase"], columns: _Columns,
                    questions_with_gold: int) -> list[FeatureScore]:
    scores: list[FeatureScore] = []
    for index, name in enumerate(names):
        pairs = float(columns.pairs[index])
        raw = float(columns.u_sum[index]) / pairs if pairs > 0 else 0.5
        variance = float(columns.variance[index])
        perfect = int(round(float(columns.perfect[index])))
        expected = float(columns.expected[index])
        scores.append(FeatureScore(
            feature=name, kind=kind, auc=max(raw, 1.0 - raw), raw_auc=raw, pairs=int(round(pairs)),
            perfect_questions=perfect, expected_perfect=expected, variance=variance,
            z=(perfect - expected) / sqrt(variance) if variance > 0 else 0.0,
            questions=int(round(float(columns.questions[index]))),
            gold_questions_with=(int(round(float(columns.gold_questions_with[index])))
                                 if columns.gold_questions_with is not None and kind == "phrase"
                                 else None),
            distractor_sessions_with=(int(round(float(columns.distractor_sessions_with[index])))
                                      if columns.distractor_sessions_with is not None
                                      and kind == "phrase" else None),
            questions_with_gold=questions_with_gold if kind == "phrase" else None,
        ))
    return scores


# --------------------------------------------------------------------------------------------
# Relevance exemption


def _is_rare(table: FeatureTable, token: str) -> bool:
    return table.token_sessions.get(token, 0) < INSTANCE_TOKEN_SHARE * table.session_count


def relevance_exemptions(corpus: Corpus, table: FeatureTable) -> dict[str, frozenset[str]]:
    """Candidate gram -> ids of the questions that contribute nothing for it (readable form)."""
    keys = _relevance_exemption_keys(corpus, table)
    q_count = table.question_count
    found: dict[str, set[str]] = {}
    for key in keys.tolist():
        found.setdefault(table.grams[key // q_count], set()).add(table.question_ids[key % q_count])
    return {gram: frozenset(ids) for gram, ids in found.items()}


def _relevance_exemption_keys(corpus: Corpus, table: FeatureTable) -> npt.NDArray[np.int64]:
    """Sorted ``gram_id * questions + question`` keys of every exempt (gram, question).

    Question rule: the question text holds the whole gram (built the same way, inside segments)
    and the gram has a rare token (frames are never exempt). Answer rule: one of the gram's tokens
    is in the answer and rare (< 10% of sessions).
    """
    import numpy as np

    from .features import phrase_grams

    gram_index = {gram: index for index, gram in enumerate(table.grams)}
    by_token: dict[str, list[int]] = {}
    for index, gram in enumerate(table.grams):
        for token in set(gram.split()):
            by_token.setdefault(token, []).append(index)
    q_count = table.question_count
    keys: set[int] = set()
    for q_index, record in enumerate(corpus.records):
        for gram in phrase_grams(record.question):
            gram_id = gram_index.get(gram)
            if gram_id is not None and (not QUESTION_RULE_NEEDS_RARE_TOKEN or any(
                    _is_rare(table, token) for token in gram.split())):
                keys.add(gram_id * q_count + q_index)
        for token in set(raw_tokens(record.answer)):
            if _is_rare(table, token):
                keys.update(gram_id * q_count + q_index for gram_id in by_token.get(token, ()))
    return np.array(sorted(keys), dtype=np.int64)


# --------------------------------------------------------------------------------------------
# Analysis


@dataclass(frozen=True)
class SeparabilityAnalysis:
    """All V7 measurements of one corpus, before exemptions and verdicts."""

    table: FeatureTable
    scores: tuple[FeatureScore, ...]
    role_findings: tuple[RoleSequenceFinding, ...]
    exempt_keys: npt.NDArray[np.int64]
    questions_with_pairs: int
    questions_with_gold: int
    pairs: int

    def score(self, feature: str) -> FeatureScore | None:
        for item in self.scores:
            if item.feature == feature:
                return item
        return None


def _role_findings(table: FeatureTable, layout: _Layout) -> list[RoleSequenceFinding]:
    findings = []
    for q_index in range(layout.count):
        if not layout.included[q_index]:
            continue
        start, end = int(layout.starts[q_index]), int(layout.starts[q_index + 1])
        gold = {table.role_sequences[i] for i in range(start, end) if table.session_gold[i]}
        distractors = {table.role_sequences[i] for i in range(start, end)
                       if not table.session_gold[i]}
        if gold - distractors:
            findings.append(RoleSequenceFinding(
                table.question_ids[q_index], table.question_shapes[q_index],
                tuple(sorted(gold - distractors)), tuple(sorted(distractors))))
    return findings


def score_features(corpus: Corpus, *,
                   timings: dict[str, float] | None = None) -> SeparabilityAnalysis:
    """Measure every feature of ``corpus`` (pure), before exemptions and verdicts.

    ``timings``, if given, receives seconds per phase: features, relevance, pairs, distribution,
    exclusivity, role_sequence (the benchmark prints them)."""
    from .features import extract_features

    clock = _Clock(timings)
    with clock.phase("features"):
        table = extract_features(corpus, min_phrase_sessions=MIN_PHRASE_SESSIONS)
    with clock.phase("relevance"):
        exempt_keys = _relevance_exemption_keys(corpus, table)
    layout = _layout(table)
    questions_with_gold = int((layout.gold > 0).sum())
    scores: list[FeatureScore] = []
    numeric = table.numeric
    if layout.count and numeric.shape[1]:
        # Chunk features so a padded block stays near 2M cells (16 MB) whatever the corpus size.
        cells = max(bucket.questions.size * bucket.width for bucket in layout.buckets)
        step = max(1, 2_000_000 // max(1, cells))
        for begin in range(0, numeric.shape[1], step):
            columns = _score_dense(numeric[:, begin:begin + step], table, layout, None,
                                   binary=False, clock=clock)
            scores += _feature_scores(table.numeric_names[begin:begin + step], "numeric", columns,
                                      questions_with_gold)
    if table.grams:
        columns = _score_phrases(table, layout, exempt_keys, clock)
        scores += _feature_scores(table.phrase_names, "phrase", columns, questions_with_gold)
    with clock.phase("role_sequence"):
        findings = _role_findings(table, layout)
    return SeparabilityAnalysis(
        table=table, scores=tuple(scores), role_findings=tuple(findings), exempt_keys=exempt_keys,
        questions_with_pairs=int(layout.included.sum()), questions_with_gold=questions_with_gold,
        pairs=int(layout.pairs[layout.included].sum()),
    )


def rescore(analysis: SeparabilityAnalysis, feature: str, shapes: frozenset[str], *,
             inside: bool) -> FeatureScore | None:
    """One feature again on part of the corpus, for an exemption scoped to ``shapes``.

    ``inside=True`` keeps only those shapes' questions (does the exempted tell still fire there?);
    ``inside=False`` leaves them out (is the rest of the corpus clean?). Relevance exemptions still
    apply, and the exclusivity denominator is the questions with gold that remain.
    """
    import numpy as np

    from .features import PHRASE_PREFIX

    table = analysis.table
    layout = _layout(table)
    excluded = np.array([(shape in shapes) != inside for shape in table.question_shapes],
                        dtype=np.bool_)
    with_gold = int(((layout.gold > 0) & ~excluded).sum())
    clock = _Clock(None)
    if feature.startswith(PHRASE_PREFIX):
        gram = feature[len(PHRASE_PREFIX):]
        if gram not in table.grams:
            return None
        gram_id = table.grams.index(gram)
        keys = analysis.exempt_keys
        excluded[keys[keys // layout.count == gram_id] % layout.count] = True
        columns = _score_dense(table.phrase_vector(gram_id)[:, None], table, layout, excluded,
                               binary=True, clock=clock)
        return _feature_scores([feature], "phrase", columns, with_gold)[0]
    if feature not in table.numeric_names:
        return None
    column = table.numeric_names.index(feature)
    columns = _score_dense(table.numeric[:, column:column + 1], table, layout, excluded,
                           binary=False, clock=clock)
    return _feature_scores([feature], "numeric", columns, with_gold)[0]



__all__ = [
    "INSTANCE_TOKEN_SHARE",
    "MIN_PHRASE_SESSIONS",
    "QUESTION_RULE_NEEDS_RARE_TOKEN",
    "FeatureScore",
    "RoleSequenceFinding",
    "SeparabilityAnalysis",
    "relevance_exemptions",
    "rescore",
    "score_features",
]
