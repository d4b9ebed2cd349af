"""Cheap per-session features for the V7 separability gate (GATES.md §2).

Every feature here is something a classifier could compute without reading for meaning. The gate
asks, question by question, whether one of them picks the gold sessions out of their own haystack.

Layout of what :func:`extract_features` returns (a :class:`FeatureTable`): sessions are flattened in
corpus order (question by question, haystack order inside a question), so each question's sessions
are one contiguous block. Numeric features are a dense ``(sessions, features)`` matrix; phrase
features are binary and sparse, stored as an incidence list of (session, gram) pairs.

Numeric feature names are ``metric[scope]``. Scopes:

- ``session`` - all turns of the session;
- ``user`` / ``assistant`` - that role's turns pooled;
- ``first_user`` / ``first_assistant`` - the first turn of that role (turn slot 1);
- ``user#k`` / ``assistant#k`` for k >= 2 - the k-th turn of that role (turn slot k). Slot 1 is
  reported only as ``first_<role>`` so one quantity never appears under two names.

A scope a session lacks (no second user turn) is measured as empty text: all counts 0. Metrics:
characters, raw tokens, distinct tokens, type-token ratio, sentences, capitals and capitals per
character, digits and digits per character, punctuation marks and punctuation per character, em/en
dashes, and (for multi-turn scopes) mean turn characters. Session-level: ``turns``,
``user_turns``, ``assistant_turns``, ``position`` (index / (n - 1)); role order as
``position_k_is_<role>`` indicators (k is 1-based; 0 for both roles past the session's end) and one
indicator per whole role sequence, ``role_sequence:u|a|u|a``. Phrase features are named
``phrase:<gram>``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..corpus.loading import Corpus
from ..retrieval.tokenizer import raw_tokens

MAX_GRAM = 3
"""GATES.md §2 "Phrases": n = 1..3 over raw tokens."""
MIN_PHRASE_SESSIONS = 5
"""GATES.md §2 "Candidates": grams present in at least 5 gold sessions or 5 distractor sessions.

Sessions are counted as haystack slots: a session shared by two haystacks counts in each."""

PHRASE_PREFIX = "phrase:"
ROLE_SEQUENCE_PREFIX = "role_sequence:"
ROLES: tuple[str, ...] = ("user", "assistant")
_ROLE_LETTER = {"user": "u", "assistant": "a"}

TEXT_METRICS: tuple[str, ...] = (
    "chars",
    "tokens",
    "distinct_tokens",
    "type_token_ratio",
    "sentences",
    "capitals",
    "capitals_per_char",
    "digits",
    "digits_per_char",
    "punctuation",
    "punctuation_per_char",
    "dashes",
)
"""GATES.md §2 "Features", in that order; ``mean_turn_chars`` is added for multi-turn scopes."""
MEAN_TURN_METRIC = "mean_turn_chars"
SESSION_COUNTS: tuple[str, ...] = ("turns", "user_turns", "assistant_turns", "position")

_DASHES = ("\u2014", "\u2013")  # em dash, en dash: an early real tell (VERTICALS.md §4.3)
_SENTENCE_END = re.compile(r"[.!?\u2026]+(?=[\s\"'\u2019\u201d)\]]|$)")
_ALNUM = re.compile(r"[^\W_]")
# A word-internal joiner is not a segment boundary: "don't" and "3.5" stay one run (their tokens
# are split by raw_tokens anyway, exactly as in the token features).
_JOINER = re.compile(r"(?<=[^\W_])['\u2019\u2010-](?=[^\W_])|(?<=\d)[.,:](?=\d)")


@lru_cache(maxsize=1)
def _punctuation_characters() -> str:
    """Every Unicode punctuation character (categories P*) in the Basic Multilingual Plane."""
    return "".join(
        chr(code) for code in range(0x10000) if unicodedata.category(chr(code)).startswith("P")
    )


@lru_cache(maxsize=1)
def _punctuation_pattern() -> re.Pattern[str]:
    return re.compile("[" + re.escape(_punctuation_characters()) + "]")


@lru_cache(maxsize=1)
def _boundary_pattern() -> re.Pattern[str]:
    # Punctuation and line breaks end a segment: brackets, sentence marks, commas, colons, dashes.
    return re.compile("[" + re.escape(_punctuation_characters()) + r"\n\r]+")


def segments(text: str) -> list[str]:
    """Split text at punctuation (sentence, bracket, comma, dash, ...) and line breaks.

    A phrase is only ever formed inside one segment: "near enough. (Also ..." yields no
    "near enough also" (GATES.md §2; that phantom once scored 21 gold sessions to 0).
    """
    text = _JOINER.sub(" ", text)
    return [piece for piece in _boundary_pattern().split(text) if _ALNUM.search(piece)]


def phrase_grams(text: str, max_n: int = MAX_GRAM) -> set[str]:
    """All 1..max_n grams of raw tokens (stopwords kept), built inside punctuation segments."""
    grams: set[str] = set()
    for segment in segments(text):
        tokens = raw_tokens(segment)
        count = len(tokens)
        for n in range(1, max_n + 1):
            for start in range(count - n + 1):
                grams.add(" ".join(tokens[start:start + n]))
    return grams


def count_sentences(text: str) -> int:
    """Pieces between sentence-ending marks that hold at least one letter or digit."""
    return sum(1 for piece in _SENTENCE_END.split(text) if _ALNUM.search(piece))


@dataclass(frozen=True)
class _TextStats:
    """Additive counts of one turn's text, plus its token multiset for distinct-token unions."""

    chars: int
    tokens: tuple[str, ...]
    token_set: frozenset[str]
    sentences: int
    capitals: int
    digits: int
    punctuation: int
    dashes: int
    grams: frozenset[str]


def _text_stats(text: str) -> _TextStats:
    tokens = tuple(raw_tokens(text))
    return _TextStats(
        chars=len(text),
        tokens=tokens,
        token_set=frozenset(tokens),
        sentences=count_sentences(text),
        capitals=sum(map(str.isupper, text)),
        digits=sum(map(str.isdigit, text)),
        punctuation=len(_punctuation_pattern().findall(text)),
        dashes=sum(text.count(dash) for dash in _DASHES),
        grams=frozenset(phrase_grams(text)),
    )


_EMPTY = _text_stats("")


def _metric_values(stats: Sequence[_TextStats], *, with_mean: bool) -> list[float]:
    """TEXT_METRICS (and mean turn characters) of the pooled text of ``stats``, in order."""
    chars = sum(s.chars for s in stats)
    tokens = sum(len(s.tokens) for s in stats)
    if len(stats) == 1:
        distinct = len(stats[0].token_set)
    else:
        distinct = len(frozenset().union(*(s.token_set for s in stats))) if stats else 0
    capitals = sum(s.capitals for s in stats)
    digits = sum(s.digits for s in stats)
    punctuation = sum(s.punctuation for s in stats)
    values = [
        float(chars),
        float(tokens),
        float(distinct),
        distinct / tokens if tokens else 0.0,
        float(sum(s.sentences for s in stats)),
        float(capitals),
        capitals / chars if chars else 0.0,
        float(digits),
        digits / chars if chars else 0.0,
        float(punctuation),
        punctuation / chars if chars else 0.0,
        float(sum(s.dashes for s in stats)),
    ]
    if with_mean:
        values.append(chars / len(stats) if stats else 0.0)
    return values


def role_sequence_label(roles: Iterable[str]) -> str:
    """``u|a|u|a`` for a user/assistant/user/assistant session."""
    return "|".join(_ROLE_LETTER.get(role, role) for role in roles)


@dataclass(frozen=True)
class FeatureTable:
    """Every session's features, flattened question by question (see the module docstring)."""

    question_ids: tuple[str, ...]
    question_shapes: tuple[str, ...]
    question_starts: npt.NDArray[np.int64]
    """``(questions + 1,)`` offsets: question q's sessions are rows ``starts[q]:starts[q + 1]``."""
    session_question: npt.NDArray[np.int64]
    session_gold: npt.NDArray[np.bool_]
    numeric_names: tuple[str, ...]
    numeric: npt.NDArray[np.float64]
    """``(sessions, len(numeric_names))``."""
    role_sequences: tuple[str, ...]
    """Per session, its role sequence label (``u|a|u|a``)."""
    grams: tuple[str, ...]
    """Candidate grams, sorted; feature name is ``PHRASE_PREFIX + gram``."""
    incidence_sessions: npt.NDArray[np.int64]
    incidence_grams: npt.NDArray[np.int64]
    """Binary phrase presence: session ``incidence_sessions[i]`` holds ``grams[incidence_grams[i]]``."""
    token_sessions: dict[str, int]
    """For every raw token in any session: how many sessions hold it (rarity of instance words)."""

    @property
    def session_count(self) -> int:
        return int(self.session_question.shape[0])

    @property
    def question_count(self) -> int:
        return len(self.question_ids)

    @property
    def phrase_names(self) -> tuple[str, ...]:
        return tuple(PHRASE_PREFIX + gram for gram in self.grams)

    def phrase_vector(self, gram_id: int) -> npt.NDArray[np.float64]:
        """Dense 0/1 presence of one candidate gram over all sessions."""
        vector = np.zeros(self.session_count, dtype=np.float64)
        vector[self.incidence_sessions[self.incidence_grams == gram_id]] = 1.0
        return vector


def _numeric_layout(max_slots: dict[str, int], max_turns: int,
                    sequences: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    names: list[str] = []
    multi = ["session", *ROLES]
    single = [f"first_{role}" for role in ROLES]
    for role in ROLES:
        single += [f"{role}#{k}" for k in range(2, max_slots[role] + 1)]
    for scope in multi:
        names += [f"{metric}[{scope}]" for metric in (*TEXT_METRICS, MEAN_TURN_METRIC)]
    for scope in single:
        names += [f"{metric}[{scope}]" for metric in TEXT_METRICS]
    names += list(SESSION_COUNTS)
    for k in range(1, max_turns + 1):
        names += [f"position_{k}_is_{role}" for role in ROLES]
    names += [ROLE_SEQUENCE_PREFIX + label for label in sequences]
    return names, {name: index for index, name in enumerate(names)}


def extract_features(corpus: Corpus, *, min_phrase_sessions: int = MIN_PHRASE_SESSIONS) -> FeatureTable:
    """Compute every V7 feature for every session of ``corpus`` (pure; see the module docstring)."""
    cache: dict[str, _TextStats] = {}

    def stats_of(text: str) -> _TextStats:
        found = cache.get(text)
        if found is None:
            found = cache[text] = _text_stats(text)
        return found

    question_ids: list[str] = []
    shapes: list[str] = []
    starts = [0]
    session_question: list[int] = []
    session_gold: list[bool] = []
    session_turns: list[list[tuple[str, _TextStats]]] = []
    session_position: list[float] = []
    max_slots = {role: 1 for role in ROLES}
    max_turns = 0
    for q_index, record in enumerate(corpus.records):
        question_ids.append(record.question_id)
        shapes.append(record.shape)
        gold = set(record.gold_session_indices)
        n = len(record.haystack_sessions)
        for s_index, session in enumerate(record.haystack_sessions):
            turns: list[tuple[str, _TextStats]] = [(turn.role, stats_of(turn.content))
                                                   for turn in session]
            session_turns.append(turns)
            session_question.append(q_index)
            session_gold.append(s_index in gold)
            session_position.append(s_index / (n - 1) if n > 1 else 0.0)
            max_turns = max(max_turns, len(turns))
            for role in ROLES:
                max_slots[role] = max(max_slots[role], sum(1 for r, _ in turns if r == role))
        starts.append(len(session_question))

    sequences = [role_sequence_label(role for role, _ in turns) for turns in session_turns]
    names, column = _numeric_layout(max_slots, max_turns, sorted(set(sequences)))
    matrix = np.zeros((len(session_turns), len(names)), dtype=np.float64)
    text_width = len(TEXT_METRICS)
    for row, turns in enumerate(session_turns):
        values = matrix[row]
        all_stats = [stats for _, stats in turns]
        by_role = {role: [stats for r, stats in turns if r == role] for role in ROLES}
        base = column[f"{TEXT_METRICS[0]}[session]"]
        values[base:base + text_width + 1] = _metric_values(all_stats, with_mean=True)
        for role in ROLES:
            role_stats = by_role[role]
            base = column[f"{TEXT_METRICS[0]}[{role}]"]
            values[base:base + text_width + 1] = _metric_values(role_stats, with_mean=True)
            for k in range(1, max_slots[role] + 1):
                scope = f"first_{role}" if k == 1 else f"{role}#{k}"
                slot = role_stats[k - 1] if k <= len(role_stats) else _EMPTY
                base = column[f"{TEXT_METRICS[0]}[{scope}]"]
                values[base:base + text_width] = _metric_values([slot], with_mean=False)
        values[column["turns"]] = len(turns)
        values[column["user_turns"]] = len(by_role["user"])
        values[column["assistant_turns"]] = len(by_role["assistant"])
        values[column["position"]] = session_position[row]
        for k, (role, _) in enumerate(turns, start=1):
            name = f"position_{k}_is_{role}"
            if name in column:  # a role outside ROLES cannot occur: CorpusTurn.role is a Literal
                values[column[name]] = 1.0
        values[column[ROLE_SEQUENCE_PREFIX + sequences[row]]] = 1.0

    # Phrases: candidates by gold / distractor session counts, then a sparse incidence list.
    gold_counts: Counter[str] = Counter()
    distractor_counts: Counter[str] = Counter()
    token_sessions: Counter[str] = Counter()
    session_grams: list[frozenset[str]] = []
    for row, turns in enumerate(session_turns):
        grams = frozenset().union(*(stats.grams for _, stats in turns)) if turns else frozenset()
        session_grams.append(grams)
        (gold_counts if session_gold[row] else distractor_counts).update(grams)
        token_sessions.update(frozenset().union(*(stats.token_set for _, stats in turns))
                              if turns else ())
    candidates = sorted(
        gram for gram in set(gold_counts) | set(distractor_counts)
        if gold_counts[gram] >= min_phrase_sessions or distractor_counts[gram] >= min_phrase_sessions
    )
    gram_index = {gram: index for index, gram in enumerate(candidates)}
    inc_sessions: list[int] = []
    inc_grams: list[int] = []
    for row, grams in enumerate(session_grams):
        ids = [gram_index[gram] for gram in grams if gram in gram_index]
        inc_sessions.extend([row] * len(ids))
        inc_grams.extend(ids)

    return FeatureTable(
        question_ids=tuple(question_ids),
        question_shapes=tuple(shapes),
        question_starts=np.asarray(starts, dtype=np.int64),
        session_question=np.asarray(session_question, dtype=np.int64),
        session_gold=np.asarray(session_gold, dtype=np.bool_),
        numeric_names=tuple(names),
        numeric=matrix,
        role_sequences=tuple(sequences),
        grams=tuple(candidates),
        incidence_sessions=np.asarray(inc_sessions, dtype=np.int64),
        incidence_grams=np.asarray(inc_grams, dtype=np.int64),
        token_sessions=dict(token_sessions),
    )


__all__ = [
    "FeatureTable",
    "MAX_GRAM",
    "MIN_PHRASE_SESSIONS",
    "PHRASE_PREFIX",
    "ROLE_SEQUENCE_PREFIX",
    "count_sentences",
    "extract_features",
    "phrase_grams",
    "role_sequence_label",
    "segments",
]
