"""Conversation naturalness measured from corpus text alone, blind to any generator.

VERTICALS.md Appendix D (row "§4.1 scaffolding") asks for *conversation that responds* and names
three figures to publish in the sidecar and README, with bounds: adjacent cross-speaker turns
sharing a content word (>= 50 %, LoCoMo about 67 %), distinct sentences (>= 50 %, LoCoMo about
84 %) and assistant questions answered in the next user turn (>= 80 %). This module is the
instrument. It reads only the turns a system under test would read (role and content), never a
generator's banks, templates or declarations, so a generator cannot pass it by construction and a
gate can re-derive every figure from the bytes. The fourth Appendix D figure, misfit replies in a
blind hand-labelled sample, cannot be mechanical; :func:`reply_pairs` draws that sample.

**Unit: distinct sessions.** Haystacks share filler sessions, so a session is counted once however
many haystacks hold it. Two sessions are the same when their turns are the same ``(role,
content)`` pairs in the same order (the session id is not the key: text is what a reader sees).
Sessions are visited in input order (records in order, sessions in haystack order); the first
occurrence's ``haystack_session_id`` names a session.

**Content words.** A turn's content words are its reference tokens (:func:`..retrieval.tokenizer
.tokenize`: lower-cased alphanumeric runs without :data:`~..retrieval.tokenizer.STOPWORDS`), minus
the closed-class words of :data:`..corpus.text_stats.FUNCTION_WORDS` (the reference stopword list
is short: it keeps ``us``, ``may``, ``one``, ``like`` and the contraction pieces ``don``,
``didn``...), minus :data:`CHAT_FUNCTION_WORDS`, a short list of words every chat turn may hold
whatever it is about, each reduced to its Snowball English stem (package ``snowballstemmer``) so
that ``booked``/``booking`` or ``cheese``/``cheeses`` match. A token is dropped when its *stem* is
the stem of a listed word, so ``thanked``, ``getting`` and ``liked`` go with ``thank``, ``get``
and ``like``. Numerals are content words (``gate 12`` answered by ``12, yes``).

**1. Adjacent turns sharing a content word** (:attr:`Naturalness.adjacent_shared_content_word`):
over every pair of consecutive turns ``i``, ``i + 1`` of one session whose roles differ, the share
whose content-word stem sets intersect. A pair where either turn has no content word at all
("Thanks!") counts as not sharing: the figure is over all pairs, so a corpus cannot raise it by
answering with formulae.

**2. Distinct sentences** (:attr:`Naturalness.distinct_sentences`): sentences are
:func:`..retrieval.values.sentences` of each turn (split at ``.``/``!``/``?`` followed by
whitespace and at line breaks), keeping only pieces that hold a word token (as
:func:`..corpus.text_stats.sentence_count` does; a lone ``...`` is not a sentence). Two sentences
are the same when they are equal after case folding and collapsing runs of whitespace; nothing
else is normalised (``Sounds good.`` and ``Sounds good!`` are two sentences). The figure is
distinct sentences / all sentences over the distinct sessions; the same figure within each role
(distinct user sentences / user sentences, likewise for the assistant) is reported too.

**3. Assistant questions answered** (:attr:`Naturalness.assistant_questions_answered`): an
*assistant question* is an assistant turn whose last sentence holds a ``?`` (it ends with one, or
with ``?)``/``?"``, which the sentence split keeps together); that last sentence is the *question
sentence*. Of the assistant questions followed by a user turn, the share the user turn *answers*,
decided mechanically:

- **overlap**: the user turn shares a content word (as above, stemmed) with the question
  sentence; or
- **yes/no**: the question sentence is a yes/no question — its first word, after at most
  :data:`MAX_SKIPPED_PARTICLES` leading :data:`DISCOURSE_PARTICLES` (``So did you...``,
  ``Oh, is it...``), is one of :data:`YES_NO_AUXILIARIES` (``do``, ``is``, ``can``, ``would``...
  and the negative contractions ``don``, ``didn``, ``isn``...) — and the user turn opens (after
  the same particle skip) the way an answer does (:func:`opens_with_yes_no`): with an answer
  particle (:data:`ANSWER_PARTICLES`: ``yes``, ``no``, ``sure``, ``maybe``, ``not``...), an
  answer phrase (:data:`ANSWER_PHRASES`: ``of course``, ``I think so``...), or a *short answer*:
  ``I``/``we``/``it`` and an auxiliary (or a contracted piece: ``I'm``, ``It's``) that is
  negative (``I didn't``, ``It was not``) or ends its clause (``I did.``, ``It was, yes``).

Assistant questions that end their session are unanswerable by construction and are counted
apart (:attr:`Naturalness.questions_session_final`), not in the share; so are the (rare) ones
followed by another assistant turn (:attr:`Naturalness.questions_followed_by_assistant`).

**Decisions, stated so they can be argued with.**

- Only the *last* sentence is the question: an assistant turn that asks and then goes on ("Which
  colour? I would go for blue.") answered itself and invites no reply. Such turns are not counted.
- The rule is generous, and gameable: any shared content word counts, wherever it sits in the
  user turn, so a user turn that changes the subject but repeats a word of the question ("Did you
  enjoy the film?" -> "The film festival starts Friday.") counts as answered, and so does any
  reply opening with ``Yes``/``No``/``Sure`` after a yes/no question whatever follows. A generator
  could pass it by construction; that is why Appendix D adds the hand-labelled sample
  (:func:`reply_pairs`), and why the figure is a floor check, not proof of fit.
- A subject and an auxiliary alone (``I was``, ``I have``, ``It is``) do *not* answer: English
  short answers end there or negate ("I was.", "I wasn't"), whereas "I was chatting to my cousin
  about the van" after "Was it tricky?" is a new topic that happens to open with the same two
  words. Counting every ``I was...``/``It is...`` opening (the first draft of this rule) read
  59 of the v2 corpora's 493 answerable questions as answered, every one of them by such a
  non-answer; the short-answer form reads none of them.
- Known misses (the rule under-counts): a wh-question answered with a value that repeats no word
  of it ("What time is the train?" -> "Half past six."); a yes/no question asked without an
  opening auxiliary ("You going tomorrow?", "Any luck with the plumber?", tag questions "You
  booked it, didn't you?"); a full-clause answer with no shared word and no particle ("Was it
  crowded?" -> "It was heaving."); an answer opening with a word outside the lists ("Nah",
  "Kind of", "Totally", "Haha yes" are in; "Loads", "Hardly", "A bit" are not).
- Distinctness is exact-sentence: a slot skeleton filled with different names ("I would
  recommend Orofen Navist." / "I would recommend Istcad Cadwyl.") reads as two distinct
  sentences. The figure therefore over-states the variety of templated text: passing its bound
  is necessary, not sufficient.
- A share over nothing (no cross-speaker pairs, no sentences, no answerable question) is ``None``,
  neither a pass nor a fail: a bound says nothing about an empty population.

Measured on the shipped v2 corpora (distinct sessions of each corpus): adjacent turns sharing a
content word 2.2 % (arithmetic), 3.8 % (episodic), 2.8 % (forgetting), 2.0 % (prospective), 3.3 %
(workingmemory); distinct sentences 31.6 %, 31.9 %, 34.4 %, 41.4 %, 42.3 % (assistant sentences
alone 3.5 % to 30.6 %); assistant questions answered 0 of 186, 0 of 152, 1 of 101, 0 of 54 and
none asked, with 220 of all 713 assistant questions ending their session. Appendix D's audit
figures (19 % distinct sentences, 845 assistant questions) count every haystack's copy of a
shared session and pool the five corpora: counted that way, these corpora give 19.2 % (9,768 of
50,952) and 845 assistant turns holding a ``?``.

Records may be :class:`~.models.QuestionRecord` models or the raw dicts stored in corpus JSON (a
:class:`~.loading.Corpus` is read through its ``records``). Everything is deterministic: the same
records in the same order give the same figures and, with the same seed, the same sample.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from ..retrieval.tokenizer import TOKEN_PATTERN, raw_tokens, tokenize
from ..retrieval.values import sentences
from .text_stats import FUNCTION_WORDS

CHAT_FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    yes yeah yep yup no nope nah oh ah wow hmm ok okay
    thanks thank please sorry cheers welcome hi hey hello
    well right really just also actually quite pretty sure
    good great nice lovely cool glad
    like get got go going make let take come give put know think sound
    thing lot bit
    """.split()
)
"""Words any chat turn may hold whatever it is about, so sharing one says nothing about fit:
answer particles and interjections, formulae, discourse adverbs and intensifiers, all-purpose
evaluatives, light verbs (``get``, ``go``, ``make``, ``let``, ``take``, ``come``, ``give``,
``put``: "take a while", "come out", "give it a go"; ``know``/``think``/``sound`` as in "I think",
"you know", "sounds good") and vague nouns (``thing``, ``a lot``, ``a bit``). Compared by
Snowball stem, so inflected forms go too. Closed-class words come from
:data:`..corpus.text_stats.FUNCTION_WORDS`, not from this list."""

DISCOURSE_PARTICLES: frozenset[str] = frozenset(
    "so and but oh ah well hmm um honestly actually anyway also then now ok okay haha ha".split())
"""Words skipped at the opening of a question sentence or of a reply before the yes/no tests
("So, did you...?", "Oh yes", "Well, no", "Honestly, I did")."""

MAX_SKIPPED_PARTICLES = 2
"""At most this many leading :data:`DISCOURSE_PARTICLES` are skipped."""

YES_NO_AUXILIARIES: frozenset[str] = frozenset(
    """
    do does did is are was were am have has had can could would will should shall may might must
    don doesn didn isn aren wasn weren haven hasn hadn won wouldn couldn shouldn
    """.split()
)
"""A question sentence opening with one of these (after the particle skip) is a yes/no question.
The negative forms are the pieces contractions tokenize into ("Didn't you..." -> ``didn``)."""

ANSWER_PARTICLES: frozenset[str] = frozenset(
    """
    yes yeah yep yup aye no nope nah not never sure definitely absolutely certainly indeed totally
    maybe probably perhaps possibly kind sort
    """.split()
)
"""A reply opening with one of these answers a yes/no question ("Yes, ...", "Not really",
"Maybe next week", "Kind of"/"Sort of")."""

ANSWER_PHRASES: frozenset[tuple[str, ...]] = frozenset({
    ("of", "course"), ("i", "think", "so"), ("i", "guess", "so"), ("i", "suppose", "so"),
    ("i", "hope", "so"), ("i", "think", "not"), ("i", "hope", "not"),
})
"""Multi-word openers that answer a yes/no question, as :func:`..retrieval.tokenizer.raw_tokens`."""

SHORT_ANSWER_SUBJECTS: frozenset[str] = frozenset({"i", "we", "it"})
"""Subjects of an English short answer ("I did", "We have", "It was")."""

NEGATIVE_AUXILIARIES: frozenset[str] = frozenset(
    "don doesn didn isn aren wasn weren haven hasn hadn won wouldn couldn shouldn cannot".split())
"""Negative auxiliaries as contractions tokenize ("didn't" -> ``didn``, ``t``)."""

SHORT_ANSWER_VERBS: frozenset[str] = YES_NO_AUXILIARIES | NEGATIVE_AUXILIARIES | frozenset(
    "m s re ve d ll".split())
"""The auxiliary of a short answer: the auxiliaries and their contracted pieces ("I'm" -> ``i``,
``m``; "It's" -> ``it``, ``s``; "We'd" -> ``we``, ``d``)."""

_CLAUSE_BREAK = re.compile(r"[,.;:!?\u2014\u2013]|\s-\s")

BOUNDS: Mapping[str, float] = MappingProxyType({
    "adjacent_shared_content_word": 0.50,
    "distinct_sentences": 0.50,
    "assistant_questions_answered": 0.80,
})
"""Appendix D's lower bounds for the three figures."""

REFERENCE: Mapping[str, float] = MappingProxyType(
    {"adjacent_shared_content_word": 0.67, "distinct_sentences": 0.84})
"""LoCoMo's figures as Appendix D quotes them (approximate; not measured by this module)."""


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer  # lazy: only this instrument needs it

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English stem of one lower-cased token."""
    return _stemmer().stemWord(word)


@lru_cache(maxsize=1)
def _chat_stems() -> frozenset[str]:
    return frozenset(stem(word) for word in CHAT_FUNCTION_WORDS)


def content_stems(text: str) -> frozenset[str]:
    """The stems of the content words of ``text`` (module docstring, "Content words")."""
    chat = _chat_stems()
    out = set()
    for token in tokenize(text):
        if token in FUNCTION_WORDS or token in CHAT_FUNCTION_WORDS:
            continue
        stemmed = stem(token)
        if stemmed not in chat:
            out.add(stemmed)
    return frozenset(out)


def _skip_particles(tokens: list[str]) -> list[str]:
    skipped = 0
    while tokens and skipped < MAX_SKIPPED_PARTICLES and tokens[0] in DISCOURSE_PARTICLES:
        tokens = tokens[1:]
        skipped += 1
    return tokens


def is_yes_no_question(sentence: str) -> bool:
    """Does ``sentence`` open (after the particle skip) with one of :data:`YES_NO_AUXILIARIES`?"""
    tokens = _skip_particles(raw_tokens(sentence))
    return bool(tokens) and tokens[0] in YES_NO_AUXILIARIES


def opens_with_yes_no(text: str) -> bool:
    """Does ``text`` open (after the particle skip) the way an answer to a yes/no question does?

    Yes when it opens with one of :data:`ANSWER_PARTICLES` or :data:`ANSWER_PHRASES`, or with a
    *short answer*: one of :data:`SHORT_ANSWER_SUBJECTS` and one of :data:`SHORT_ANSWER_VERBS`
    that is negative (a negative auxiliary, ``not``, ``never`` or a contracted ``n't`` next) or
    ends its clause (punctuation or the end of the text next): "I did.", "It was, yes", "I'm not
    sure", "We haven't". "I was chatting to my cousin..." and "It is funny how..." are not answers.
    """
    lowered = text.lower()
    spans = list(TOKEN_PATTERN.finditer(lowered))
    skipped = 0
    while spans and skipped < MAX_SKIPPED_PARTICLES and spans[0].group() in DISCOURSE_PARTICLES:
        spans = spans[1:]
        skipped += 1
    tokens = [span.group() for span in spans]
    if not tokens:
        return False
    if tokens[0] in ANSWER_PARTICLES:
        return True
    if any(tuple(tokens[:len(phrase)]) == phrase for phrase in ANSWER_PHRASES):
        return True
    if len(tokens) < 2 or tokens[0] not in SHORT_ANSWER_SUBJECTS or tokens[1] not in SHORT_ANSWER_VERBS:
        return False
    if tokens[1] in NEGATIVE_AUXILIARIES:
        return True
    if len(tokens) == 2:
        return True
    if tokens[2] in {"not", "never", "t"}:
        return True
    return bool(_CLAUSE_BREAK.search(lowered[spans[1].end():spans[2].start()]))


def _word_sentences(text: str) -> list[str]:
    return [sentence for sentence in sentences(text) if raw_tokens(sentence)]


def question_sentence(text: str) -> str | None:
    """The last sentence of ``text`` when it holds a ``?``, else ``None``."""
    pieces = _word_sentences(text)
    return pieces[-1] if pieces and "?" in pieces[-1] else None


def answers(question: str, reply: str) -> str | None:
    """How ``reply`` answers the question sentence ``question``: ``"overlap"``, ``"yes_no"``, or
    ``None`` when it does not (module docstring, rule 3)."""
    if content_stems(question) & content_stems(reply):
        return "overlap"
    if is_yes_no_question(question) and opens_with_yes_no(reply):
        return "yes_no"
    return None


def _normalised(sentence: str) -> str:
    return " ".join(sentence.split()).casefold()


# -- reading records -------------------------------------------------------------------------------

Session = tuple[tuple[str, str], ...]
"""A session as this module reads it: its turns' ``(role, content)`` pairs in order."""


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def distinct_sessions(records: Any) -> list[tuple[str, Session]]:
    """``(session_id, session)`` for each distinct session of ``records``, in first-seen order.

    ``records`` is an iterable of :class:`~.models.QuestionRecord` or of raw corpus dicts, or
    anything with a ``records`` attribute (a :class:`~.loading.Corpus`). A session missing an id
    is named ``<question_id>#<index>``."""
    if not isinstance(records, Mapping) and hasattr(records, "records"):
        records = records.records
    seen: set[Session] = set()
    out: list[tuple[str, Session]] = []
    for record in records:
        ids = tuple(_get(record, "haystack_session_ids", None) or ())
        for index, turns in enumerate(_get(record, "haystack_sessions", None) or ()):
            session: Session = tuple((str(_get(turn, "role")), str(_get(turn, "content", "")))
                                     for turn in turns)
            if session in seen:
                continue
            seen.add(session)
            name = ids[index] if index < len(ids) else f"{_get(record, 'question_id', '?')}#{index}"
            out.append((str(name), session))
    return out


def _cross_speaker_pairs(sessions: list[tuple[str, Session]]) -> Iterator[tuple[str, int, Session]]:
    for session_id, session in sessions:
        for index in range(len(session) - 1):
            if session[index][0] != session[index + 1][0]:
                yield session_id, index, session


# -- the figures -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Share:
    """``count`` of ``n`` items have the property; :attr:`share` is ``None`` when ``n`` is 0."""

    n: int = 0
    count: int = 0

    @property
    def share(self) -> float | None:
        return self.count / self.n if self.n else None

    def as_stats(self) -> dict[str, Any]:
        share = self.share
        return {"n": self.n, "count": self.count, "share": None if share is None else round(share, 6)}


@dataclass(frozen=True)
class Naturalness:
    """The three Appendix D figures over the distinct sessions of a corpus, with their counts."""

    sessions: int
    turns: int
    adjacent_shared_content_word: Share
    """Cross-speaker adjacent pairs (``n``) and those sharing a content-word stem (``count``)."""
    distinct_sentences: Share
    """Sentences (``n``) and distinct sentences (``count``)."""
    distinct_user_sentences: Share
    distinct_assistant_sentences: Share
    assistant_questions_answered: Share
    """Assistant questions followed by a user turn (``n``) and those it answers (``count``)."""
    assistant_questions: int
    """Every assistant question, wherever it sits."""
    answered_by_overlap: int
    answered_by_yes_no: int
    """Answered only by the yes/no rule (no shared content word)."""
    questions_session_final: int
    """Assistant questions that are the last turn of their session (unanswerable by construction)."""
    questions_followed_by_assistant: int

    def meets_bounds(self) -> dict[str, bool | None]:
        """Each figure against :data:`BOUNDS` (``None`` for a share over nothing)."""
        out: dict[str, bool | None] = {}
        for name, bound in BOUNDS.items():
            share = getattr(self, name).share
            out[name] = None if share is None else share >= bound
        return out

    def as_stats(self) -> dict[str, Any]:
        """JSON-ready figures: shares rounded to 6 places, with every count behind them."""
        distinct = self.distinct_sentences.as_stats()
        distinct["by_role"] = {"user": self.distinct_user_sentences.as_stats(),
                               "assistant": self.distinct_assistant_sentences.as_stats()}
        answered = self.assistant_questions_answered.as_stats()
        answered.update({
            "asked": self.assistant_questions,
            "by_overlap": self.answered_by_overlap,
            "by_yes_no": self.answered_by_yes_no,
            "session_final": self.questions_session_final,
            "followed_by_assistant": self.questions_followed_by_assistant,
        })
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "adjacent_shared_content_word": self.adjacent_shared_content_word.as_stats(),
            "distinct_sentences": distinct,
            "assistant_questions_answered": answered,
        }


def measure(records: Any) -> Naturalness:
    """The naturalness figures of ``records`` (QuestionRecords, raw corpus dicts or a Corpus)."""
    sessions = distinct_sessions(records)
    turns = pairs = sharing = 0
    all_sentences: dict[str, list[str]] = {"user": [], "assistant": []}
    asked = answerable = by_overlap = by_yes_no = final = followed_by_assistant = 0
    for _session_id, session in sessions:
        stems = [content_stems(content) for _role, content in session]
        turns += len(session)
        for index, (role, content) in enumerate(session):
            all_sentences.setdefault(role, []).extend(
                _normalised(sentence) for sentence in _word_sentences(content))
            if index + 1 < len(session) and session[index + 1][0] != role:
                pairs += 1
                sharing += bool(stems[index] & stems[index + 1])
            if role != "assistant":
                continue
            question = question_sentence(content)
            if question is None:
                continue
            asked += 1
            if index + 1 == len(session):
                final += 1
                continue
            next_role, reply = session[index + 1]
            if next_role != "user":
                followed_by_assistant += 1
                continue
            answerable += 1
            verdict = answers(question, reply)
            by_overlap += verdict == "overlap"
            by_yes_no += verdict == "yes_no"

    def distinct(items: list[str]) -> Share:
        return Share(len(items), len(set(items)))

    everything = [sentence for role in sorted(all_sentences) for sentence in all_sentences[role]]
    return Naturalness(
        sessions=len(sessions),
        turns=turns,
        adjacent_shared_content_word=Share(pairs, sharing),
        distinct_sentences=distinct(everything),
        distinct_user_sentences=distinct(all_sentences["user"]),
        distinct_assistant_sentences=distinct(all_sentences["assistant"]),
        assistant_questions_answered=Share(answerable, by_overlap + by_yes_no),
        assistant_questions=asked,
        answered_by_overlap=by_overlap,
        answered_by_yes_no=by_yes_no,
        questions_session_final=final,
        questions_followed_by_assistant=followed_by_assistant,
    )


def reply_pairs(corpus_or_records: Any, n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` adjacent cross-speaker turn pairs drawn at random, for a blind labeller.

    The population is every pair (turn ``index``, turn ``index + 1`` by the other speaker) of the
    distinct sessions, in first-seen order; ``random.Random(seed).sample`` draws from it (no global
    random state), and the pairs come back in draw order as plain dicts ``{session_id, index,
    first_role, first, reply}``. Fewer than ``n`` come back when the population is smaller."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    population = list(_cross_speaker_pairs(distinct_sessions(corpus_or_records)))
    chosen = random.Random(seed).sample(range(len(population)), min(n, len(population)))
    out = []
    for position in chosen:
        session_id, index, session = population[position]
        out.append({"session_id": session_id, "index": index, "first_role": session[index][0],
                    "first": session[index][1], "reply": session[index + 1][1]})
    return out


__all__ = ["BOUNDS", "CHAT_FUNCTION_WORDS", "DISCOURSE_PARTICLES", "MAX_SKIPPED_PARTICLES",
           "REFERENCE", "YES_NO_AUXILIARIES", "ANSWER_PARTICLES", "ANSWER_PHRASES",
           "NEGATIVE_AUXILIARIES", "SHORT_ANSWER_SUBJECTS", "SHORT_ANSWER_VERBS", "Naturalness",
           "Share", "answers",
           "content_stems", "distinct_sessions", "is_yes_no_question", "measure",
           "opens_with_yes_no", "question_sentence", "reply_pairs", "stem"]
