"""Readers that learn a *table* with the question (adversary gate rules ``frame_*``,
``frame_length_*``, ``recurrence_gold_at_1``, ``offset_*``; GATES.md §7; red teams 30, 32, 34, 35).

Why they exist. The form reader (:mod:`.form_reader`) reads aggregates of a candidate — counts and
lengths — so a corpus whose own and other statements use *disjoint frames of the same aggregate
form* passes it. Red team 32 beat Arithmetic ``f6fef29e…`` with a frame table: the sentences naming
the asked subject, with subject, values, "a/an <noun>" and pronouns masked, learned against gold on
half the questions, put gold first in every money question; even the sequence of word *lengths*
split own from other frames (red team 35: Forgetting ``3498e956…``, 0.680 against 0.300). Red team
30 read *value recurrence* (the own value was the only one named in two sessions) and red team 34
read *date offsets* (Prospective ``ec1edae2…``: the statement's due date sat 4-7 days from the
asked date for gold, elsewhere for competitors).

The four views, over one candidate set: the tail view's (:func:`.form_reader.subject_words`: the
question's words less its shape's frame and its number and calendar words; the sentences holding
the most of them whose tail — the sentence to the end of its turn — holds a value; two or more
candidate sessions, gold among them, not all gold; excluded questions counted by reason):

- **frame** — each candidate sentence as its masked token sequence (:func:`frame_tokens`: values,
  subject words and numbers masked, "a/an <word>" to ``a ITEM``, pronouns, possessives and articles
  to ``P`` — who holds a thing is content a memory may read, red team 32's durations); a table
  ``P(gold | frame)`` learned on one half of the questions (smoothed towards the half's base rate,
  an unseen frame neutral), scored on the other half, both directions (:func:`.adversary_haystacks.
  split_halves`); a session scores its best candidate.
- **frame_length** — the same with every unmasked word replaced by its length (red team 35's table).
- **recurrence** — untrained: each candidate session scores the largest number of haystack sessions
  naming one of its candidates' values (a candidate's own, or its neighbours' when it names none;
  the question's own words are not values) — "the most-named value is gold" (red team 30;
  ``scripts/value_recurrence.py`` calls :func:`recurrence_scores`). Judged on gold@1 only.
- **offset** — for candidates whose tail resolves a date (:func:`intervals`: "in N days/weeks/
  months", "for the next N …", "N … from now/today", "within N …"; weeks are 7 days, months 30),
  the due date is the session date plus it; the *asked* date is the question date moved by the
  question's own interval ("N days ago" back, "in N days" forward); the candidate's feature is
  ``|due − asked|`` in 4-day buckets (:data:`OFFSET_BUCKET_DAYS`, capped at
  :data:`OFFSET_MAX_BUCKET`), learned as a table like the frames. A question with fewer than two
  candidate sessions holding an offset is excluded (``no_candidates`` or ``one_candidate_session``);
  verticals with no such phrase are not measured, with the reason.

Figures and bounds are the form reader's (:func:`.adversaries._form_row`: gold@1 among candidate
sessions against random + :data:`.form_reader.FORM_MARGIN`, mean AUC against
:data:`.form_reader.FORM_AUC_REFUSE`), each refusing only beyond chance at the gate's alpha / 2.
Chance is their own (:func:`table_null`): gold relabelled among each question's candidate sessions
:data:`TABLE_NULL_DRAWS` times and the tables relearned each time — uniform random rankings
understate a two-fold table's chance (the folds share noise).

What they cannot tell apart. A table keyed on a statement's words reads its *stance words* too
("turned down", "declined"): where a vertical says "not the answer" with a closed vocabulary inside
the statement sentence, the frame tables read content a memory may read as well as the generator's
handwriting. Both are a reader that needs no memory of the conversation's meaning, so the gate
refuses either; a corpus passes by drawing every frame for every role.

Pure: a function of the haystacks' text and dates and a half assignment; no clock, no global random
state.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from ..corpus.models import parse_corpus_date
from ..retrieval.tokenizer import tokenize
from ..retrieval.values import CALENDAR_WORDS, NUMBER_WORDS, sentences, value_like_tokens
from .form_reader import EXCLUSIONS, Candidates, frame_words, subject_words

if TYPE_CHECKING:
    import numpy as np

TABLE_VIEWS: tuple[str, ...] = ("frame", "frame_length", "recurrence", "offset")
"""The table readers as the gate names them (rule prefixes)."""
TABLE_SMOOTHING = 2.0
"""A table's rate is (gold + m * base) / (seen + m), m = 2: a frame seen once moves a little."""
OFFSET_BUCKET_DAYS = 4
"""Offsets are read in 4-day buckets (red team 34's)."""
OFFSET_MAX_BUCKET = 12
"""Offsets of 48 days or more share one bucket."""
TABLE_NULL_DRAWS = 2000
"""Relabellings per table view for its chance (:func:`table_null`; a p-value resolves to 1 / 2001,
as :func:`.adversary_chance.null_draws`)."""
TABLE_NULL_CONSTANT = "typedmemeval-adversaries-table-null-v1"

_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]*|[$\u00a3\u20ac]?\d+(?:[.,]\d+)*%?")
_HOLDERS: frozenset[str] = frozenset(
    """i me my mine myself we us our ours you your yours he him his himself she her hers herself
    they them their theirs it its the this that these those""".split())
"""Pronouns, possessives, articles and demonstratives: who holds a thing is content (red team 32's
durations twins differ only there), so a frame never reads them."""
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14, "fortnights": 14,
          "month": 30, "months": 30}
_NUMBER_VALUES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUMBER_VALUES.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                       "eighty": 80, "ninety": 90, "a": 1, "an": 1, "a couple of": 2,
                       "a few": 3, "half a": 0.5})
_COUNT = (r"(\d+|a couple of|a few|half a|an|a|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|"
          r"ninety)[- ](?:one|two|three|four|five|six|seven|eight|nine)|" +
          "|".join(sorted((w for w in _NUMBER_VALUES if " " not in w and w not in ("a", "an")),
                          key=len, reverse=True)) + r")")
_UNIT = r"(days?|weeks?|fortnights?|months?)"
_FORWARD = re.compile(rf"\b(?:in|within|for the next|for)\s+{_COUNT}\s+(?:more\s+)?{_UNIT}\b"
                      rf"|\b{_COUNT}\s+{_UNIT}\s+(?:from now|from today|later|on)\b", re.I)
_BACKWARD = re.compile(rf"\b{_COUNT}\s+{_UNIT}\s+ago\b", re.I)


class TableHaystack(Protocol):
    """What the table readers need of one question (the adversary gate's haystack view)."""

    question: str
    shape: str
    texts: tuple[tuple[str, ...], ...]
    gold: frozenset[int]
    dates: tuple[str, ...]
    question_date: str


def _count_value(text: str) -> float:
    words = text.lower().replace("-", " ")
    if words in _NUMBER_VALUES:
        return float(_NUMBER_VALUES[words])
    if words.isdigit():
        return float(words)
    parts = words.split()
    return float(sum(_NUMBER_VALUES.get(p, 0) for p in parts))


def intervals(text: str) -> tuple[list[float], list[float]]:
    """Days forward ("in N weeks", "for the next N days", "N days from now") and back ("N days
    ago") that ``text`` states, in reading order."""
    forward = [_count_value(m.group(1) or m.group(3)) * _UNITS[(m.group(2) or m.group(4)).lower()]
               for m in _FORWARD.finditer(text)]
    back = [_count_value(m.group(1)) * _UNITS[m.group(2).lower()] for m in _BACKWARD.finditer(text)]
    return forward, back


def asked_date(question: str, question_date: str) -> datetime:
    """The date a question asks about: its date moved by its own interval, back for "N days ago",
    forward for "in N days" (the as-of and prospective shapes)."""
    when = parse_corpus_date(question_date)
    forward, back = intervals(question)
    if back:
        return when - timedelta(days=back[0])
    if forward:
        return when + timedelta(days=forward[0])
    return when


def frame_tokens(sentence: str, subject: set[str]) -> tuple[str, ...]:
    """A sentence as its frame: values ``V``, subject words ``S``, numbers ``N``, the word after
    "a/an" ``ITEM``, holders (pronouns, possessives, articles) ``P``, other words lowercased."""
    values = set(value_like_tokens(sentence))
    out: list[str] = []
    after_article = False
    for match in _WORD.finditer(sentence):
        word = match.group(0)
        lower = word.lower()
        if set(tokenize(word)) & subject:
            token = "S"
        elif word in values or lower in NUMBER_WORDS or lower in CALENDAR_WORDS:
            token = "N" if (word[0].isdigit() or lower in NUMBER_WORDS) else "V"
        elif after_article:
            token = "ITEM"
        elif lower in _HOLDERS:
            token = "P"
        else:
            token = lower
        after_article = lower in ("a", "an")
        out.append(token)
    return tuple(out)


def length_tokens(frame: tuple[str, ...]) -> tuple[str, ...]:
    """The frame with every unmasked word replaced by its length (red team 35's reading)."""
    return tuple(t if t in ("V", "S", "N", "ITEM", "P") else str(len(t)) for t in frame)


def candidate_sentences(haystack: TableHaystack, frame: frozenset[str]
                        ) -> tuple[list[tuple[int, int, int]], set[str]] | str:
    """The tail view's candidates (module docstring) as (session, turn, sentence) and the subject
    words, or the exclusion reason (:data:`.form_reader.EXCLUSIONS`)."""
    words = subject_words(haystack.question, frame)
    found: list[tuple[int, int, int, int]] = []
    for s, turns in enumerate(haystack.texts):
        for t, text in enumerate(turns):
            said = sentences(text)
            for i, sentence in enumerate(said):
                overlap = len(words.intersection(tokenize(sentence)))
                if overlap and value_like_tokens(" ".join(said[i:])):
                    found.append((s, t, i, overlap))
    if not found:
        return "no_candidates"
    top = max(f[3] for f in found)
    tier = [(s, t, i) for s, t, i, overlap in found if overlap == top]
    return _checked(tier, haystack.gold) or (tier, words)


def _checked(tier: Sequence[tuple[int, int, int]], gold: frozenset[int]) -> str | None:
    """The exclusion reason of a candidate tier, ``None`` when it has something to break."""
    sessions = {c[0] for c in tier}
    if not sessions:
        return "no_candidates"
    if len(sessions) < 2:
        return "one_candidate_session"
    if not sessions & gold:
        return "gold_holds_none"
    if sessions <= gold:
        return "every_candidate_session_gold"
    return None


def _as_candidates(keys: Sequence[tuple[int, Hashable]], gold: frozenset[int]) -> Candidates:
    session_list = tuple(sorted({s for s, _ in keys}))
    return Candidates(tuple(s for s, _ in keys), (), frozenset(
        i for i, s in enumerate(session_list) if s in gold), session_list)


def _keyed(haystacks: Sequence[TableHaystack], halves: Mapping[int, int],
           key_of: Callable[[TableHaystack, list[tuple[int, int, int]], set[str]],
                            list[tuple[int, Hashable]]]
           ) -> tuple[dict[int, list[tuple[int, Hashable]]], dict[str, int]]:
    """Per measured question its candidates' (session, key); and the exclusion counts."""
    frames = frame_words(haystacks)
    found: dict[int, list[tuple[int, Hashable]]] = {}
    excluded = {"single_candidate_session_or_gold_outside": 0, **dict.fromkeys(EXCLUSIONS, 0)}
    for qi in sorted(halves):
        haystack = haystacks[qi]
        got = candidate_sentences(haystack, frames[haystack.shape])
        reason: str | None = got if isinstance(got, str) else None
        if not isinstance(got, str):
            keys = key_of(haystack, *got)
            reason = _checked([(s, 0, 0) for s, _ in keys], haystack.gold)
            if reason is None:
                found[qi] = keys
        if reason is not None:
            excluded["single_candidate_session_or_gold_outside"] += 1
            excluded[reason] += 1
    return found, excluded


def _learned_table(haystacks: Sequence[TableHaystack], halves: Mapping[int, int],
                   found: Mapping[int, list[tuple[int, Hashable]]]
                   ) -> dict[int, tuple[Candidates, list[float]]]:
    """A table P(gold | key) from one half, scoring the other half's candidate sessions (their
    best candidate), both directions; keys unseen in training score the base rate."""
    out: dict[int, tuple[Candidates, list[float]]] = {}
    for side in (0, 1):
        train = [qi for qi in found if halves[qi] != side]
        test = [qi for qi in found if halves[qi] == side]
        if not train or not test:
            continue
        gold_count: dict[Hashable, int] = defaultdict(int)
        seen: dict[Hashable, int] = defaultdict(int)
        for qi in train:
            for s, key in found[qi]:
                seen[key] += 1
                gold_count[key] += s in haystacks[qi].gold
        total = sum(seen.values())
        base = sum(gold_count.values()) / total if total else 0.0
        for qi in test:
            c = _as_candidates(found[qi], haystacks[qi].gold)
            best = {s: -1.0 for s in c.session_list}
            for s, key in found[qi]:
                rate = (gold_count.get(key, 0) + TABLE_SMOOTHING * base) / (
                    seen.get(key, 0) + TABLE_SMOOTHING)
                best[s] = max(best[s], round(rate, 9))
            out[qi] = (c, [best[s] for s in c.session_list])
    return out


def _frame_keys(haystack: TableHaystack, tier: list[tuple[int, int, int]], words: set[str]
                ) -> list[tuple[int, Hashable]]:
    return [(s, (haystack.shape, frame_tokens(sentences(haystack.texts[s][t])[i], words)))
            for s, t, i in tier]


def _length_keys(haystack: TableHaystack, tier: list[tuple[int, int, int]], words: set[str]
                 ) -> list[tuple[int, Hashable]]:
    return [(s, (shape, length_tokens(frame))) for s, (shape, frame) in
            _frame_keys(haystack, tier, words)]  # type: ignore[misc]


def _offset_keys(haystack: TableHaystack, tier: list[tuple[int, int, int]], words: set[str]
                 ) -> list[tuple[int, Hashable]]:
    """Per candidate whose tail states a forward interval: its bucketed |due - asked| days."""
    try:
        target = asked_date(haystack.question, haystack.question_date)
        dates = [parse_corpus_date(d) for d in haystack.dates]
    except ValueError:
        return []
    out: list[tuple[int, Hashable]] = []
    for s, t, i in tier:
        forward, _ = intervals(" ".join(sentences(haystack.texts[s][t])[i:]))
        if forward:
            days = abs((dates[s] + timedelta(days=forward[0]) - target).days)
            out.append((s, (haystack.shape, min(days // OFFSET_BUCKET_DAYS, OFFSET_MAX_BUCKET))))
    return out


def recurrence_scores(haystack: TableHaystack, tier: Sequence[tuple[int, int, int]]
                      ) -> dict[int, float]:
    """Per candidate session, the largest number of the haystack's sessions naming one of its
    candidates' values (red team 30's reader); sessions whose candidates name no value are left
    out."""
    asked = {w.lower() for w in _WORD.findall(haystack.question)}
    mentions: dict[str, int] = defaultdict(int)
    for turns in haystack.texts:
        for value in {v for text in turns for v in
                      (x.lower() for x in value_like_tokens(text))} - asked:
            mentions[value] += 1
    best: dict[int, float] = {}
    for s, t, i in tier:
        said = sentences(haystack.texts[s][t])
        own = {v.lower() for v in value_like_tokens(said[i])} - asked
        if not own:
            own = {v.lower() for j in (i - 1, i + 1) if 0 <= j < len(said)
                   for v in value_like_tokens(said[j])} - asked
        if own:
            best[s] = max(best.get(s, -1.0), float(max(mentions[v] for v in own)))
    return best


def table_scores(haystacks: Sequence[TableHaystack], halves: Mapping[int, int], view: str
                 ) -> tuple[dict[int, tuple[Candidates, list[float]]], dict[str, int]]:
    """One table view's per-question candidates and session scores (the form reader's shape:
    :func:`.form_reader.form_scores`), and its exclusion counts."""
    scored, excluded, _ = table_reader(haystacks, halves, view, draws=0)
    return scored, excluded


NullFigures = dict[int, tuple[Any, Any]]
"""Per measured question: its gold@1 and AUC under each relabelling."""


def table_reader(haystacks: Sequence[TableHaystack], halves: Mapping[int, int], view: str,
                 draws: int = TABLE_NULL_DRAWS
                 ) -> tuple[dict[int, tuple[Candidates, list[float]]], dict[str, int], NullFigures]:
    """:func:`table_scores` and the view's chance (:func:`table_null`, ``draws`` relabellings;
    none when 0)."""
    if view == "recurrence":
        def recurrence_keys(haystack: TableHaystack, tier: list[tuple[int, int, int]],
                            words: set[str]) -> list[tuple[int, Hashable]]:
            return [(s, score) for s, score in recurrence_scores(haystack, tier).items()]
        found, excluded = _keyed(haystacks, halves, recurrence_keys)
        scored: dict[int, tuple[Candidates, list[float]]] = {}
        for qi, keys in found.items():
            c = _as_candidates(keys, haystacks[qi].gold)
            by_session = dict(keys)
            scored[qi] = (c, [float(by_session[s]) for s in c.session_list])  # type: ignore[arg-type]
        null = _fixed_null(scored, draws, view) if draws else {}
        return scored, excluded, null
    key_of = {"frame": _frame_keys, "frame_length": _length_keys, "offset": _offset_keys}.get(view)
    if key_of is None:
        raise ValueError(f"table view {view!r} is not one of {TABLE_VIEWS}")
    found, excluded = _keyed(haystacks, halves, key_of)
    scored = _learned_table(haystacks, halves, found)
    null = table_null(haystacks, halves, found, draws, view) if draws else {}
    return scored, excluded, null


def _relabelled(rng: "np.random.Generator", draws: int, n: int, g: int) -> "np.ndarray":
    """``draws`` x ``n`` labels, each row ``g`` gold sessions drawn uniformly."""
    return rng.random((draws, n)).argsort(axis=1).argsort(axis=1) < g


def _figures(scores: "np.ndarray", labels: "np.ndarray") -> tuple["np.ndarray", "np.ndarray"]:
    """Per row: gold@1 with ties at random (:func:`.adversary_haystacks.tied_gold_at_1`) and the
    within-question AUC, ties half (:func:`.adversary_haystacks.within_auc`)."""
    import numpy as np

    top = scores.max(axis=1, keepdims=True)
    tied = scores >= top
    g1 = (tied & labels).sum(axis=1) / tied.sum(axis=1)
    diff = scores[:, :, None] - scores[:, None, :]
    pairs = labels[:, :, None] & ~labels[:, None, :]
    wins = np.where(diff > 0, 1.0, np.where(diff == 0, 0.5, 0.0))
    g = labels[0].sum()
    auc = (wins * pairs).sum(axis=(1, 2)) / (g * (labels.shape[1] - g))
    return g1, auc


def _rng(view: str) -> "np.random.Generator":
    import hashlib

    import numpy as np

    digest = hashlib.sha256(f"{TABLE_NULL_CONSTANT}\x1f{view}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _fixed_null(scored: Mapping[int, tuple[Candidates, list[float]]], draws: int, view: str
                ) -> NullFigures:
    """Chance of an untrained reader (value recurrence): its fixed scores against gold relabelled
    among each question's candidate sessions (exact under ties, which random rankings are not)."""
    import numpy as np

    rng = _rng(view)
    out: NullFigures = {}
    for qi in sorted(scored):
        c, scores = scored[qi]
        labels = _relabelled(rng, draws, len(c.session_list), len(c.gold))
        out[qi] = _figures(np.broadcast_to(np.asarray(scores, dtype=float), labels.shape), labels)
    return out


def table_null(haystacks: Sequence[TableHaystack], halves: Mapping[int, int],
               found: Mapping[int, list[tuple[int, Hashable]]], draws: int, view: str
               ) -> NullFigures:
    """Chance of a learned table: gold relabelled among every measured question's candidate
    sessions, ``draws`` times, the tables *relearned* on each relabelling (both directions) and the
    test questions scored as :func:`_learned_table` does.

    Why not :func:`.adversary_chance.null_draws` (uniform rankings, questions independent): the two
    directions share noise — a frame that chance made gold-rich in one half is rated high when
    the other half is scored, and the other half's chance alignment feeds the first half's score
    the same way — so the two halves' figures are correlated under no signal. Measured on
    Arithmetic deltas (frame table, 150 relabellings): AUC sd 0.087 against the uniform rankings'
    0.067, so uniform rankings understated chance. Relearning each relabelling is cheap for a
    counting table (numpy over the draws)."""
    import numpy as np

    rng = _rng(view)
    keys = sorted({key for qi in found for _, key in found[qi]}, key=repr)
    index = {key: i for i, key in enumerate(keys)}
    layout: dict[int, tuple[tuple[int, ...], list[int], list[int]]] = {}
    labels: dict[int, np.ndarray] = {}
    for qi in sorted(found):
        sessions = tuple(sorted({s for s, _ in found[qi]}))
        position = {s: i for i, s in enumerate(sessions)}
        layout[qi] = (sessions, [position[s] for s, _ in found[qi]],
                      [index[key] for _, key in found[qi]])
        gold = sum(1 for s in sessions if s in haystacks[qi].gold)
        labels[qi] = _relabelled(rng, draws, len(sessions), gold)
    out: NullFigures = {}
    for side in (0, 1):
        train = [qi for qi in sorted(found) if halves[qi] != side]
        test = [qi for qi in sorted(found) if halves[qi] == side]
        if not train or not test:
            continue
        gold_count = np.zeros((draws, len(keys)))
        seen = np.zeros(len(keys))
        for qi in train:
            _, at, key_ids = layout[qi]
            candidate_gold = labels[qi][:, at]
            for j, k in enumerate(key_ids):
                gold_count[:, k] += candidate_gold[:, j]
                seen[k] += 1
        base = gold_count.sum(axis=1) / seen.sum()
        rate = np.round((gold_count + TABLE_SMOOTHING * base[:, None])
                        / (seen[None, :] + TABLE_SMOOTHING), 9)
        for qi in test:
            sessions, at, key_ids = layout[qi]
            scores = np.full((draws, len(sessions)), -1.0)
            for j, k in enumerate(key_ids):
                scores[:, at[j]] = np.maximum(scores[:, at[j]], rate[:, k])
            out[qi] = _figures(scores, labels[qi])
    return out


__all__ = ["NullFigures", "OFFSET_BUCKET_DAYS", "OFFSET_MAX_BUCKET", "TABLE_NULL_DRAWS",
           "TABLE_SMOOTHING", "TABLE_VIEWS", "asked_date", "candidate_sentences", "frame_tokens",
           "intervals", "length_tokens", "recurrence_scores", "table_null", "table_reader",
           "table_scores"]
