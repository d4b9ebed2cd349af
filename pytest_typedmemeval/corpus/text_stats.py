"""Text instruments measured from corpus text alone, blind to any generator.

VERTICALS.md Appendix C retires word-list padding and the echo clause: from revision 2 the
*non-linguistic filler share* of a corpus must be 0 %. This module is the instrument that measures
it, from the text a system under test would read, using nothing a generator declares (no pad bank,
no lead-in constant), so a generator cannot pass it by construction and a gate can re-derive the
figure from the bytes.

**What counts as non-linguistic filler.** Word tokens are :func:`~..retrieval.tokenizer.raw_tokens`
(lower-cased alphanumeric runs, stopwords kept). A token is filler when it sits in one of:

1. **An echo clause**: a round- or square-bracketed clause that is a bare word list, counted
   entirely (brackets' content, lead-in included). Any bracketed clause opening with the
   revision-1 lead-in ``Also on my mind:`` counts, whatever follows; so does a bracketed clause
   that opens with a short lead-in ending in a colon (``(Noted: a, b.)``) followed by items with no
   :data:`LANGUAGE_MARKERS`, or a bracketed comma list of two or more items with none
   (``(harp, typewriter)``). An ordinary parenthesis (``(twice)``, ``(see above)``, ``(on the
   left)``) is not an echo clause.
2. **A word-list sentence**: :data:`MIN_LIST_TOKENS` or more word tokens, none of them a
   :data:`LANGUAGE_MARKERS` word, no numeral, not a question, and list-shaped: it holds a comma,
   or repeats a word, or runs to :data:`MIN_BARE_LIST_TOKENS` tokens. ``Often granite, zinnia,
   lupin skylark, Pimmoz.``, ``Sadly sleet, linen, flax.``, ``Hence daisy chalk daisy.``,
   ``Totally valley sand daisy chalk moss.`` All its tokens count.
3. **A word-list tail**: in a sentence that is otherwise language, a run of
   :data:`MIN_TAIL_ITEMS` or more comma-separated items that ends the sentence, each item one or two
   word tokens and none a marker or a numeral (``We went to the market, daisy, granite, tide,
   lupin.``). The run's tokens count. A natural list closes with a conjunction (``..., tide and
   lupin``); the conjunction is a marker, so its item breaks the run.

Sentences are the text between terminal punctuation (``.``, ``!``, ``?`` followed by whitespace or
the end) and line breaks, after echo clauses are cut out.

**Language markers** (:data:`LANGUAGE_MARKERS`) are :data:`FUNCTION_WORDS`, the closed classes of
English (articles and determiners, pronouns and possessives, auxiliaries, modals and the copula,
prepositions, conjunctions, negation, wh-words, contraction pieces), plus
:data:`CONVERSATION_WORDS`, a short fixed list of chat formulae (``thanks``, ``please``, ``sorry``,
``hello``, ``cheers``...), common evaluatives (``great``, ``perfect``, ``lovely``...) and the
commonest chat verbs (``sounds``, ``agree``, ``love``...). The second list exists because
telegraphic chat drops function words but keeps a formula, an evaluative or a verb:
``Thanks, great, perfect!``, ``Sounds good, cheers.``, ``Totally agree, great idea.`` are language.
Sentence-opening discourse adverbs (``Sure``, ``Okay``, ``Well``, ``Right``, ``Yes``) are
deliberately *not* markers: they open a word list as easily as a sentence.

**Decisions, stated so they can be argued with.**

- Three words are enough for a list: ``Eggs, milk, bread.`` (no conjunction, no verb) is a word
  list and counts; ``Eggs, milk and bread.`` is language (``and``), and so is ``I need eggs, milk,
  bread.`` (a tail of three items is below :data:`MIN_TAIL_ITEMS`).
- Two-word fragments never count (``Sure thing.``, ``Excellent news.``, ``Yes, shale.``): below
  :data:`MIN_LIST_TOKENS` ordinary chat and padding cannot be told apart, so the instrument
  under-counts revision-1 padding slightly rather than flag chat. For the same reason a short
  marker-free sentence with no comma and no repeat is read as telegraphic grammar, not a list
  (``Journeys take longer.``, ``Gentle movement often eases stiffness.``, but also revision 1's
  ``Totally valley sand.``).
- A sentence with a numeral (``Flight 2490, gate 12.``) states a value and is never a list; a
  question (ending in ``?``: ``Coffee tomorrow, usual place?``) is an utterance, never a list.
- Remaining false positives are comma-separated telegraphic chat with no marker at all (``Quiet
  morning, slow start.``; ``Nice work, well done.`` is safe by ``nice``): a stray one costs a few
  tokens in a corpus of a hundred thousand, which is what the gate's tolerance absorbs.

Measured: the shipped revision-1 corpora read 0.48 (arithmetic), 0.67 (episodic), 0.61
(forgetting), 0.66 (prospective) and 0.51 (workingmemory), each within 0.04 below the share of
tokens in sentences made only of the revision-1 generators' own pad vocabulary plus their echo
clauses (the instrument does not know that vocabulary; the gap is two-word pad fragments and
comma-free short pad sentences). The shared natural chat banks of :mod:`..generate.talk`, the
revision-2 generators' corpora so far and ordinary chat read 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..retrieval.tokenizer import raw_tokens

MIN_LIST_TOKENS = 3
"""A marker-free sentence counts as a word list from this many word tokens (two-word fragments
such as "Sure thing." are ordinary chat)."""

MIN_BARE_LIST_TOKENS = 6
"""A marker-free sentence with no comma and no repeated word counts only from this many tokens:
below it, a comma-free run of content words is usually telegraphic grammar ("Journeys take
longer.", "Gentle movement often eases stiffness.": subject and verb, function words dropped)."""

MIN_TAIL_ITEMS = 4
"""A comma-separated run of marker-free one- or two-token items ending an otherwise linguistic
sentence counts from this many items (an asyndetic list of three is still plausible English)."""

MAX_TAIL_ITEM_TOKENS = 2
"""Longest item (in word tokens) of a word-list tail."""

ECHO_LEAD_INS: tuple[str, ...] = ("also on my mind",)
"""Bracketed lead-ins that mark a clause as an echo clause whatever follows (revision 1, §4.2)."""

FUNCTION_WORDS: frozenset[str] = frozenset(
    """
    a an the this that these those some any each every either neither no all both half several
    many much more most few fewer less least other another such own same what whatever which
    whichever whose
    i me my mine myself you your yours yourself yourselves he him his himself she her hers herself
    it its itself we us our ours ourselves they them their theirs themselves one ones oneself
    who whom whoever someone somebody something anyone anybody anything everyone everybody
    everything nobody nothing none
    am is are was were be been being have has had having do does did doing done
    will would shall should can could may might must ought
    to of in on at by for with from into onto upon about above below under over after before
    between among through during without within along across behind beyond near off out up down
    around against toward towards past since until till via per than like unlike despite
    and or but nor so yet because although though if unless whether while whereas as once
    when where why how then there here
    not never don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn can
    cannot mustn mightn needn shan ll ve re m d s t
    """.split()
)
"""Closed-class English words: articles and determiners, pronouns and possessives (indefinite
pronouns included), the copula, auxiliaries and modals, prepositions, conjunctions and
subordinators, wh-words and pro-adverbs, negation and the pieces contractions tokenize into
("don't" -> "don", "t"). A sentence with one of them has grammar; a word list has none."""

CONVERSATION_WORDS: frozenset[str] = frozenset(
    """
    thanks thank thx please sorry hello hi hey bye goodbye cheers congrats congratulations welcome
    regards wishes
    great perfect nice lovely awesome brilliant wonderful excellent fantastic amazing cool good
    happy merry glad best
    sounds sound agree love like hope guess know think see mean need want got get let
    lets makes make
    """.split()
)
"""Chat formulae, evaluatives and the commonest chat verbs: telegraphic chat keeps one of these
when it drops its function words ("Thanks, great, perfect!", "Sounds good, cheers.")."""

LANGUAGE_MARKERS: frozenset[str] = FUNCTION_WORDS | CONVERSATION_WORDS
"""A word from this set makes a sentence (or a list item) language rather than a word list."""

_ECHO_CLAUSE = re.compile(r"[(\[](?P<body>[^()\[\]]*)[)\]]")
_LEAD_IN = re.compile(r"^\s*(?P<lead>[A-Za-z][A-Za-z' ]{0,40}):(?P<rest>.*)$", re.DOTALL)
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])(?=\s)|\n")
_DIGIT = re.compile(r"\d")


def _is_marker_free(tokens: Iterable[str]) -> bool:
    return not any(token in LANGUAGE_MARKERS or _DIGIT.search(token) for token in tokens)


def _is_echo_clause(body: str) -> bool:
    """Is the content of a bracketed clause an echo clause (see the module docstring, rule 1)?"""
    lead = _LEAD_IN.match(body)
    if lead is not None:
        if " ".join(raw_tokens(lead.group("lead"))) in ECHO_LEAD_INS:
            return True
        items = raw_tokens(lead.group("rest"))
        return bool(items) and _is_marker_free(items)
    parts = [raw_tokens(part) for part in body.split(",")]
    return len(parts) >= 2 and all(parts) and _is_marker_free(t for part in parts for t in part)


def sentences(text: str) -> list[str]:
    """``text`` split into sentences: at ``.``/``!``/``?`` followed by whitespace, and at line breaks.

    Decimal points and the like ("$12.50") do not split; empty pieces are dropped."""
    return [piece.strip() for piece in _SENTENCE_BREAK.split(text) if piece.strip()]


def _tail_run_tokens(sentence: str) -> int:
    """Tokens in the word-list tail of ``sentence`` (rule 3), or 0."""
    items = sentence.rstrip(" .!?").split(",")
    run = 0
    tokens = 0
    for item in reversed(items):
        words = raw_tokens(item)
        if not 1 <= len(words) <= MAX_TAIL_ITEM_TOKENS or not _is_marker_free(words):
            break
        run += 1
        tokens += len(words)
    return tokens if run >= MIN_TAIL_ITEMS else 0


@dataclass(frozen=True)
class FillerCount:
    """Word tokens in total and in non-linguistic filler, by kind."""

    tokens: int = 0
    echo: int = 0
    list_sentences: int = 0
    list_tails: int = 0

    @property
    def filler(self) -> int:
        return self.echo + self.list_sentences + self.list_tails

    @property
    def share(self) -> float:
        return self.filler / self.tokens if self.tokens else 0.0

    def __add__(self, other: FillerCount) -> FillerCount:
        return FillerCount(self.tokens + other.tokens, self.echo + other.echo,
                           self.list_sentences + other.list_sentences,
                           self.list_tails + other.list_tails)


def filler_count(text: str) -> FillerCount:
    """Word tokens of ``text`` and how many of them are non-linguistic filler (module docstring)."""
    total = len(raw_tokens(text))
    echo = 0
    kept: list[str] = []
    last = 0
    for match in _ECHO_CLAUSE.finditer(text):
        if _is_echo_clause(match.group("body")):
            echo += len(raw_tokens(match.group("body")))
            kept.append(text[last:match.start()])
            kept.append(" ")
            last = match.end()
    kept.append(text[last:])
    listed = tails = 0
    for sentence in sentences("".join(kept)):
        words = raw_tokens(sentence)
        if not words or sentence.endswith("?"):
            continue
        if len(words) >= MIN_LIST_TOKENS and _is_marker_free(words) and (
                "," in sentence or len(set(words)) < len(words) or len(words) >= MIN_BARE_LIST_TOKENS):
            listed += len(words)
        else:
            tails += _tail_run_tokens(sentence)
    return FillerCount(total, echo, listed, tails)


def filler_counts(texts: Iterable[str]) -> FillerCount:
    """:func:`filler_count` summed over ``texts``."""
    out = FillerCount()
    for text in texts:
        out = out + filler_count(text)
    return out


def non_linguistic_share(texts: Iterable[str]) -> float:
    """Share of word tokens (over all ``texts``) that sit in non-linguistic filler; 0.0 for no tokens."""
    return filler_counts(texts).share


def sentence_count(texts: Iterable[str]) -> int:
    """Sentences over ``texts`` as :func:`sentences` splits them (only pieces holding a word token)."""
    return sum(1 for text in texts for sentence in sentences(text) if raw_tokens(sentence))


__all__ = ["CONVERSATION_WORDS", "ECHO_LEAD_INS", "FUNCTION_WORDS", "FillerCount",
           "LANGUAGE_MARKERS", "MAX_TAIL_ITEM_TOKENS", "MIN_LIST_TOKENS", "MIN_TAIL_ITEMS",
           "filler_count", "filler_counts", "non_linguistic_share", "sentence_count", "sentences"]
