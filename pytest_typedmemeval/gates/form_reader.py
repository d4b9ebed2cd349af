"""The question-aware form reader (adversary gate rules ``form_gold_at_1`` and ``form_auc``).

Why it exists. Every other adversary of the gate either never reads the question (the learned,
question-blind classifier; the position prior; the haystack diff) or reads only its words (the
subject-and-value reader, the phrase reader, fact-only BM25). A corpus can pass all of them and
still be beaten by a reader that uses the question only to *find the candidates* — the clauses that
hold the question's words and a value — and then picks among them by *form*: how long their words
are, whether the clause stands alone in its turn, how many commas it has. Red team 19 beat the
shipped WorkingMemory v3 (sha256 435643f2…, which passed every gate) exactly so: among the asked
kind's user clauses, the one with the fewest characters per word was gold in 60 of 60 questions
(random among those clauses 0.197), because every own frame was written in shorter words than every
competitor frame. Red team 18 had beaten the preceding bytes the same way, through the value's
punctuation. A memory system cannot use that channel legitimately: it is the generator's
handwriting, not the conversation's content.

What it does. Per question, the **candidates** are the clauses (sentences, split again at
semicolons) that hold a value-like token (:mod:`..retrieval.values`) and the largest number of
distinct question content words any such clause of the haystack holds: the tier a subject-and-value
reader cannot break. A question whose candidates lie in fewer than two sessions, or whose gold holds
none, has nothing to break and is excluded (counted). Each candidate gets **content-free** features
only — word count, characters per word, characters, commas, other punctuation, value-like tokens,
repeats of the question's words, its index in its turn and the turn's clause count, whether it is
alone in its turn, where its turn sits in its session — the first seven also centred on, and
ranked within, the question's candidates (the red team's rule was relative: "the shortest-worded
of them"). A logistic regression (numpy, Newton steps with a ridge, each training question weighing
1, half on its gold candidates and half on the rest) is trained on one half of the questions and
scores the other half's candidates, then the other way round (the halves of
:func:`..adversaries.split_halves`: questions sharing a session stay together). A session scores its
best candidate; the figures rank *candidate sessions only*, so the random expectation is the gold
share among them, not among the whole haystack.

Refused (per shape, and on the pooled row) when gold@1 exceeds random + :data:`FORM_MARGIN`, or the
mean within-question AUC exceeds :data:`FORM_AUC_REFUSE`, and in either case no-signal chance
(:func:`..adversaries.null_draws` over the candidate sessions) gives so high a figure less often
than the gate's alpha: a chance rule, like the learned adversary's.

**Two views.** The *clause* view above reads each candidate clause alone. Red team 21 beat the
rebuilt Forgetting (sha256 eaa1e882…, which passed the clause view at 0.35 against 0.26) one level
up: reading whole *episodes* — the sentence naming the asked noun with the sentences around it —
the follow-ups of gold's role ran to more sentences and commas than its competitors', because the
follow-up templates were not shared evenly by role ("Right, news on the cellar. As for the
Triique, I …"). Such a follow-up names the subject in one sentence and the value in the next, so
no clause holds both and the clause view never saw it. The *episode* view (rules
``episode_gold_at_1`` and ``episode_auc``) takes as candidates the sentences holding the most
question words among those whose *episode* — the sentence with the one before and after it in its
turn — holds a value (a subject named with no value near it is the subject-and-value reader's
business, content a memory may read), and reads each episode's form: words, characters,
characters per word, commas, other punctuation, value-like tokens, sentences, the neighbours'
lengths, the turn's sentence count, the turn's place in its session and the candidates in the
session (the first seven also centred and ranked). Everything else — the training, the halves,
the bounds, chance — is the clause view's; the two views share the gate's alpha
(``adversaries.FORM_VIEWS``).

**The tail view** (rules ``tail_gold_at_1`` and ``tail_auc``; after red teams 27 and 28). Both views
above pick their tier by *every* distinct question word, and a question's own frame words ("In what
order did I **add** names to …", "have I **booked anyone** for … **yet**") recur in the competitors'
frames ("After some thought, I did not *add* X to …"; "My partner has not *booked anyone* for …
*yet*") more than in gold's: the top tier held competitors only, and the views measured 1 of 15
Episodic list-order questions and 14 of 50 Prospective questions, while red team 27 read list-order
15 of 15 by the frame's length and red team 28 read Prospective 0.66 against 0.17 by the length of
the statement "from the subject's sentence to the end of the turn". The tail view names the subject
first: the question's words less its shape's *frame* (:func:`frame_words`: words more than half the
shape's questions hold) and less its numbers and calendar words (when, not what). Its candidates are
the sentences holding the most of those words whose **tail** — the sentence to the end of its turn —
holds a value (a subject named with no value anywhere after it is the subject-and-value reader's
business), each read on its tail with every value-like token masked to ``X`` (:func:`mask_values`:
drawn names and amounts are noise). Features (:data:`TAIL_FEATURES`): words, characters per word,
characters, commas, other punctuation, sentences, the first sentence's words, its index in the turn,
the turn's sentences, alone, the turn's place in its session, candidates in the session; the first
seven also centred and ranked. **No value count**: how many values a statement holds is what it says
(a prior attempt that let value-less sentences in with value counts read "holds a value" as gold —
content, which a relabelling null cannot see, so the null understated the false refusals). Judged at
the gate's alpha / 2, like each other view (``adversaries.FORM_VIEWS`` says why not a third).
Measured and excluded questions are counted per view and reason (:data:`EXCLUSIONS`); every row
carries its ``coverage``.

Pure: a function of the haystacks' text and a half assignment; no clock, no global random state.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..retrieval.tokenizer import tokenize
from ..retrieval.values import CALENDAR_WORDS, NUMBER_WORDS, sentences, value_like_tokens

FORM_MARGIN = 0.15
"""Refused when the form reader's gold@1 among candidate sessions exceeds random + 0.15 (and chance
is ruled out). An additive margin rather than the learned adversary's 2 x random: candidates are few
(two to a dozen), so twice random is often 1.0, a bound nothing can exceed."""
FORM_AUC_REFUSE = 0.65
"""Refused when the mean within-question AUC over candidate sessions exceeds 0.65 (as the learned
adversary's bound; Appendix D)."""
RIDGE = 1.0
"""Ridge penalty (on the standardised features, summed loss of total weight one per question)."""
NEWTON_STEPS = 25

_CLAUSE_BREAK = re.compile(r";\s+")
_LETTERS = re.compile(r"[A-Za-z]")
_OTHER_PUNCTUATION = re.compile(r"[:;!?()\"\u201c\u201d\u2018\u2019'\u2013\u2014-]")

BASE_FEATURES: tuple[str, ...] = (
    "words", "chars_per_word", "chars", "commas", "other_punctuation", "values",
    "question_word_repeats", "index_in_turn", "clauses_in_turn", "alone_in_turn", "last_in_turn",
    "turn_position", "candidates_in_session")
"""Form, never content: no word lists (a negation or a relation's pronoun is how a statement says
it is not the answer, which a memory may read), no speaker (who said it is Episodic's construct),
no place of the session in the haystack (the latest statement wins in Forgetting and Arithmetic:
recency is content there; the question-blind position prior gates positions)."""
EPISODE_FEATURES: tuple[str, ...] = (
    "words", "chars_per_word", "chars", "commas", "other_punctuation", "values", "sentences",
    "before_words", "after_words", "turn_sentences", "turn_position", "candidates_in_session")
"""The episode view's features: a candidate sentence read with its neighbours in the turn. Form
only, for the clause view's reasons."""
RELATIVE = 7
"""The first seven features of either view are also given centred on, and ranked within, the
question's candidates (the red teams' rules were relative: "the shortest-worded of them")."""
RELATIVE_FEATURES: tuple[str, ...] = BASE_FEATURES[:RELATIVE]
FEATURES: tuple[str, ...] = (*BASE_FEATURES, *(f"{name}_centred" for name in RELATIVE_FEATURES),
                             *(f"{name}_rank" for name in RELATIVE_FEATURES))
"""The clause view's full feature row."""
TAIL_FEATURES: tuple[str, ...] = (
    "words", "chars_per_word", "chars", "commas", "other_punctuation", "sentences",
    "first_sentence_words", "index_in_turn", "turn_sentences", "alone_in_turn", "turn_position",
    "candidates_in_session")
"""The tail view's features: a candidate sentence read to the end of its turn, every value-like
token masked to one letter (names and amounts are drawn at random; their lengths are noise, and
how many a statement holds is what it says, not how it is written). No value count: every tail
holds one, and a count of them is content (how much a statement states)."""
VIEWS: tuple[str, ...] = ("clause", "episode", "tail")
FRAME_SHARE = 0.5
"""A question word held by more than this share of its shape's questions is the shape's *frame*
("In what order did I add names to ...", "have I booked anyone for ... yet"), not its subject."""


class FormHaystack(Protocol):
    """What the reader needs of one question (the adversary gate's haystack view)."""

    question: str
    shape: str
    keys: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...]
    gold: frozenset[int]


@dataclass(frozen=True)
class Candidates:
    """One question's candidate clauses: their sessions and feature rows."""

    sessions: tuple[int, ...]
    rows: tuple[tuple[float, ...], ...]
    gold: frozenset[int]
    """Indices into :attr:`session_list` of the gold candidate sessions."""
    session_list: tuple[int, ...]
    """The distinct candidate sessions, in haystack order."""


def clauses(text: str) -> list[str]:
    """A turn's clauses: its sentences, split again at semicolons (two statements joined by one
    are two clauses, as a reader who splits on punctuation sees them)."""
    return [part for sentence in sentences(text) for part in _CLAUSE_BREAK.split(sentence)
            if part.strip()]


def _clause_row(clause: str, words: set[str], *, index: int, count: int,
                turn_position: float) -> list[float]:
    content = tokenize(clause)
    letters = len(_LETTERS.findall(clause))
    n = max(1, len(clause.split()))
    asked = [token for token in content if token in words]
    return [float(n), letters / n, float(len(clause)), float(clause.count(",")),
            float(len(_OTHER_PUNCTUATION.findall(clause))), float(len(value_like_tokens(clause))),
            float(len(asked) - len(set(asked))),
            float(min(index, 3)), float(min(count, 4)), float(count == 1),
            float(index == count - 1), turn_position]


def _episode_row(said: Sequence[str], i: int, turn_position: float) -> list[float]:
    """Form of sentence ``i`` of a turn read with the sentence before and after it."""
    span = said[max(0, i - 1):i + 2]
    text = " ".join(span)
    n = max(1, len(text.split()))
    return [float(n), len(_LETTERS.findall(text)) / n, float(len(text)),
            float(text.count(",")), float(len(_OTHER_PUNCTUATION.findall(text))),
            float(len(value_like_tokens(text))), float(len(span)),
            float(len(said[i - 1].split())) if i > 0 else 0.0,
            float(len(said[i + 1].split())) if i + 1 < len(said) else 0.0,
            float(min(len(said), 6)), turn_position]


def mask_values(text: str) -> str:
    """``text`` with every value-like token replaced by ``X`` (the tail view's form is read on the
    frame, not on the drawn names and amounts)."""
    for token in sorted(set(value_like_tokens(text)), key=len, reverse=True):
        text = re.sub(rf"(?<![\w$\u00a3\u20ac]){re.escape(token)}(?![\w'])", "X", text)
    return text


def _tail_row(said: Sequence[str], i: int, turn_position: float) -> list[float]:
    """Form of sentence ``i`` of a turn read to the end of the turn, values masked."""
    tail = [mask_values(sentence) for sentence in said[i:]]
    text = " ".join(tail)
    n = max(1, len(text.split()))
    return [float(n), len(_LETTERS.findall(text)) / n, float(len(text)),
            float(text.count(",")), float(len(_OTHER_PUNCTUATION.findall(text))),
            float(len(tail)), float(len(tail[0].split())), float(min(i, 3)),
            float(min(len(said), 6)), float(len(said) == 1), turn_position]


def _tail_found(haystack: FormHaystack, words: set[str]) -> list[tuple[int, int, list[float]]]:
    """The tail view: every sentence holding a subject word whose tail (it to the end of its turn)
    holds a value, with its row. Red team 28's unit: a competitor is gold's statement plus a
    stance tail ("Scratch that: ...", ", but a friend warned me off them.")."""
    found: list[tuple[int, int, list[float]]] = []
    for s, turns in enumerate(haystack.texts):
        for t, text in enumerate(turns):
            said = sentences(text)
            for i, sentence in enumerate(said):
                overlap = len(words.intersection(tokenize(sentence)))
                if overlap and value_like_tokens(" ".join(said[i:])):
                    found.append((s, overlap, _tail_row(said, i, t / max(1, len(turns) - 1))))
    return found


def frame_words(haystacks: Sequence[FormHaystack]) -> dict[str, frozenset[str]]:
    """Per shape, the question words more than :data:`FRAME_SHARE` of its questions hold: the
    shape's question frame, which names no subject."""
    by_shape: dict[str, list[set[str]]] = {}
    for haystack in haystacks:
        by_shape.setdefault(haystack.shape, []).append(set(tokenize(haystack.question)))
    out: dict[str, frozenset[str]] = {}
    for shape, questions in by_shape.items():
        counts: dict[str, int] = {}
        for words in questions:
            for word in words:
                counts[word] = counts.get(word, 0) + 1
        out[shape] = frozenset(w for w, c in counts.items() if c > FRAME_SHARE * len(questions))
    return out


def subject_words(question: str, frame: frozenset[str] = frozenset()) -> set[str]:
    """The question's content words less its shape's frame and less its numbers and calendar words
    ("ten days ago" says when, not what; a shape's questions draw it, so it escapes the frame), all
    of them when nothing is left."""
    words = set(tokenize(question))
    when = {word for word in words
            if word.isdigit() or word in NUMBER_WORDS or word in CALENDAR_WORDS}
    return (words - frame - when) or words


def _clause_found(haystack: FormHaystack, words: set[str]) -> list[tuple[int, int, list[float]]]:
    """The clause view: every clause holding a value and a question word, with its row."""
    found: list[tuple[int, int, list[float]]] = []  # (session, overlap, row)
    for s, turns in enumerate(haystack.texts):
        for t, text in enumerate(turns):
            parts = clauses(text)
            for index, clause in enumerate(parts):
                if not value_like_tokens(clause):
                    continue
                overlap = len(words.intersection(tokenize(clause)))
                if overlap:
                    found.append((s, overlap, _clause_row(
                        clause, words, index=index, count=len(parts),
                        turn_position=t / max(1, len(turns) - 1))))
    return found


def _episode_found(haystack: FormHaystack, words: set[str]) -> list[tuple[int, int, list[float]]]:
    """The episode view: every sentence holding a question word whose episode (it with the
    sentence before and after it in the turn) holds a value, with its row. The value may sit in a
    neighbour: "Right, news on the cellar. As for the Triique, I sold it." names the subject in one
    sentence and the value in the next."""
    found: list[tuple[int, int, list[float]]] = []
    for s, turns in enumerate(haystack.texts):
        for t, text in enumerate(turns):
            said = sentences(text)
            for i, sentence in enumerate(said):
                if not value_like_tokens(" ".join(said[max(0, i - 1):i + 2])):
                    continue
                overlap = len(words.intersection(tokenize(sentence)))
                if overlap:
                    found.append((s, overlap, _episode_row(
                        said, i, t / max(1, len(turns) - 1))))
    return found


EXCLUSIONS: tuple[str, ...] = ("no_candidates", "one_candidate_session", "gold_holds_none",
                                "every_candidate_session_gold")
"""Why a question is not measured in a view (counted per view in the gate's ``measured``)."""


def candidates(haystack: FormHaystack, view: str = "clause",
               frame: frozenset[str] = frozenset()) -> Candidates | None:
    """The question's candidates in one view (:data:`VIEWS`) with their features, or ``None``
    when nothing is left to break (candidates in fewer than two sessions, or none in gold).
    ``frame``: its shape's frame words (:func:`frame_words`), which the tail view sets aside."""
    got = candidates_or_exclusion(haystack, view, frame)
    return got if isinstance(got, Candidates) else None


def candidates_or_exclusion(haystack: FormHaystack, view: str = "clause",
                            frame: frozenset[str] = frozenset()) -> Candidates | str:
    """:func:`candidates`, or the reason (one of :data:`EXCLUSIONS`) the question is excluded."""
    words = set(tokenize(haystack.question))
    if view == "clause":
        found = _clause_found(haystack, words) if words else []
    elif view == "episode":
        found = _episode_found(haystack, words) if words else []
    elif view == "tail":
        found = _tail_found(haystack, subject_words(haystack.question, frame)) if words else []
    else:
        raise ValueError(f"form reader view {view!r} is not one of {VIEWS}")
    if not found:
        return "no_candidates"
    top = max(overlap for _, overlap, _ in found)
    tier = [(s, row) for s, overlap, row in found if overlap == top]
    session_list = tuple(sorted({s for s, _ in tier}))
    gold = frozenset(i for i, s in enumerate(session_list) if s in haystack.gold)
    if len(session_list) < 2:
        return "one_candidate_session"
    if not gold:
        return "gold_holds_none"
    if len(gold) == len(session_list):
        return "every_candidate_session_gold"
    per_session = {s: sum(1 for t, _ in tier if t == s) for s in session_list}
    rows = [[*row, float(per_session[s])] for s, row in tier]
    return Candidates(tuple(s for s, _ in tier), _with_relative(rows), gold, session_list)


def _with_relative(rows: Sequence[list[float]]) -> tuple[tuple[float, ...], ...]:
    """Each row with its first :data:`RELATIVE` features centred on, then ranked within, the
    question's candidates (ties share the mean rank; ranks scaled to 0..1)."""
    columns = list(zip(*rows))
    centred: list[list[float]] = [[] for _ in rows]
    ranked: list[list[float]] = [[] for _ in rows]
    span = max(1, len(rows) - 1)
    for column in columns[:RELATIVE]:
        mean = sum(column) / len(column)
        for r, value in enumerate(column):
            below = sum(1 for v in column if v < value)
            ties = sum(1 for v in column if v == value)
            centred[r].append(value - mean)
            ranked[r].append((below + (ties - 1) / 2) / span)
    return tuple(tuple(row + centred[r] + ranked[r]) for r, row in enumerate(rows))


def _fit(x: object, y: object, w: object) -> object:
    """Ridge logistic regression by Newton steps (deterministic; a handful of features)."""
    import numpy as np

    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    ws = np.asarray(w, dtype=float)
    beta = np.zeros(xs.shape[1])
    penalty = RIDGE * np.eye(xs.shape[1])
    penalty[0, 0] = 0.0  # no penalty on the intercept
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(xs @ beta, -30, 30)))
        gradient = xs.T @ (ws * (p - ys)) + penalty @ beta
        hessian = (xs * (ws * p * (1 - p))[:, None]).T @ xs + penalty
        step = np.linalg.solve(hessian + 1e-9 * np.eye(len(beta)), gradient)
        beta = beta - step
        if float(np.abs(step).max()) < 1e-8:
            break
    return beta


def form_scores(haystacks: Sequence[FormHaystack], halves: Mapping[int, int], view: str = "clause"
                ) -> tuple[dict[int, tuple[Candidates, list[float]]], dict[str, int]]:
    """Per tested question: its candidates and one score per candidate *session* (its best
    clause), from the model trained on the other half. Also counts of excluded questions: the
    total (``single_candidate_session_or_gold_outside``, its old name) and by reason
    (:data:`EXCLUSIONS`)."""
    import numpy as np

    found: dict[int, Candidates] = {}
    excluded = {"single_candidate_session_or_gold_outside": 0, **dict.fromkeys(EXCLUSIONS, 0)}
    frames = frame_words(haystacks)
    for qi in sorted(halves):
        got = candidates_or_exclusion(haystacks[qi], view, frames[haystacks[qi].shape])
        if isinstance(got, str):
            excluded["single_candidate_session_or_gold_outside"] += 1
            excluded[got] += 1
        else:
            found[qi] = got
    out: dict[int, tuple[Candidates, list[float]]] = {}
    for side in (0, 1):
        train = [qi for qi in found if halves[qi] != side]
        test = [qi for qi in found if halves[qi] == side]
        if not train or not test:
            continue
        rows, labels, weights = [], [], []
        for qi in train:
            c = found[qi]
            gold_sessions = {c.session_list[i] for i in c.gold}
            is_gold = [s in gold_sessions for s in c.sessions]
            n_gold = sum(is_gold)
            n_rest = len(is_gold) - n_gold
            for row, g in zip(c.rows, is_gold):
                rows.append(row)
                labels.append(1.0 if g else 0.0)
                weights.append(0.5 / n_gold if g else 0.5 / n_rest)
        x = np.asarray(rows, dtype=float)
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale == 0] = 1.0
        design = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
        beta = _fit(design, labels, np.asarray(weights) / len(train))
        for qi in test:
            c = found[qi]
            xt = (np.asarray(c.rows, dtype=float) - mean) / scale
            scores = np.hstack([np.ones((len(xt), 1)), xt]) @ beta
            best = {s: -math.inf for s in c.session_list}
            for s, score in zip(c.sessions, scores):
                best[s] = max(best[s], round(float(score), 9))
            out[qi] = (c, [best[s] for s in c.session_list])
    return out, excluded


__all__ = ["BASE_FEATURES", "Candidates", "EPISODE_FEATURES", "EXCLUSIONS", "FEATURES",
           "FORM_AUC_REFUSE", "FORM_MARGIN", "FRAME_SHARE", "FormHaystack", "TAIL_FEATURES",
           "VIEWS",
           "candidates", "candidates_or_exclusion", "clauses", "form_scores", "frame_words",
           "mask_values", "subject_words"]
