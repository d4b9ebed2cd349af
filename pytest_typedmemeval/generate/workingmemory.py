"""TypedMemEval-WorkingMemory v1 generator (VERTICALS.md §2.4, Appendix A), on the one template machinery.

**What a question looks like.** "Which gym have I joined?" The haystack states the answer once, in
one session: "I have joined the gym Arbel Corlor." Gold is the value ("Arbel Corlor").

**Geometry (Appendix A).** Five shapes, the distance rungs ``distance-8`` .. ``distance-60``, twelve
questions each: 12 fact families x 5 rungs, every (family, rung) cell its own question with its own
haystack (``tme-wm-001``..``060``, rung-major, family order fixed). Every haystack holds H = 64
non-gold sessions and G = 1 gold session at index 64 - d, so exactly d sessions lie between the
fact and the question (gold index 56, 49, 39, 24, 4; never first). ``distance_sessions`` = d.
Sessions are spaced at one constant interval (:data:`INTERVAL`) everywhere in the grid, and the
question comes one interval after the last session, so session distance and time distance agree in
every cell.

**Matched rungs.** The five haystacks of a family are built from the same plan, echo and render
streams (keyed by the family, consumed in *plan order*: the 64 filler sessions, then the fact
session), so they hold the same 64 filler sessions; what differs is the fact session's own value
(every cell asks about a different fact, so no cell rehearses another's) and where it sits. The
rung is then the only systematic difference between rungs ("only the gold session moves", §2.4):
echo density, filler wording and competition cannot drift with the independent variable, and the
per-rung calibration search lands on one echo for every rung instead of fitting each rung's noise.
Padding has its own stream per cell (its targets depend on every session, the fact included).

**One construction for gold and filler.** Each session is one exchange: the user turn carries
exactly one first-person, present-perfect statement "I have {verb phrase} {the noun} {Value}." about
the question's family (one :class:`machinery.ConstructionBank`), the assistant turn an
acknowledgement from one shared bank. Gold uses its family's fact construction (the relation the
question asks about); filler uses the family's interference constructions, which keep the subject
inside the verb phrase ("I have turned down an offer from the company ...", "I have viewed a flat
on the street ..."): same domain, same grammar and tense, never the asked relation, so no filler
can answer, repeat or contradict the fact (§2.4 rules 2, 4, 5). Interference templates are cycled
in balanced, shuffled blocks over the 64 filler sessions. Values are invented two-word names from
syllables that occur in no question; fact values and filler values come from disjoint pools
(§4.1). One exchange per session keeps the corpus (60 x 65 sessions) near 2 MB; the padding then
has two turn slots to equalise.

**Template parity, asserted at import.** Because gold is a different verb phrase from filler, the
templates are checked as a design before any corpus exists (:func:`template_parity`): for every
raw-token gram (n <= 3, inside punctuation segments) of every template, the pooled within-question
AUC the templates alone would give (gold presence against the share of the family's interference
templates that carry it, averaged over families) stays below :data:`TEMPLATE_AUC_LIMIT`, and no
gram separates gold perfectly in more than :data:`TEMPLATE_PERFECT_FAMILIES` families (5 questions
each: below the 20 % share of the V7 distribution rule). That keeps "i have", "since the", "the
winter" kinds of tells out by construction: a gold-only gram can only be one family's own verb.

**Echo.** The echo source is the question; its BM25 terms are exactly one subject noun (which every
session of the haystack states) and one relation word (which only the fact states), in every family
(:data:`QUESTION_TERMS`), so competition works the same way everywhere. A
:func:`machinery.dither` counter, blind to gold status, hands every session ``k`` question words
with mean ``echo * 2``, taken noun first; a session never echoes its own fact's question, so the
fact session's clause keeps only its neutral words (1-2 non-question words of its own haystack's
interference statements, drawn for every session alike, §4.2). Every session carries a clause, in
its statement turn. See :func:`_plan_echo` for why the noun comes first (exact BM25 ties broken by
session order would favour early gold) and why the clause shares the statement's turn
(cross-turn overlap would mark gold). The echo has its own random stream, so moving a knob changes
echo clauses and padding only.

**Randomness.** ``random.Random`` streams derived by :func:`machinery.derive_rng` from the vertical
seed: ``plan``, ``echo`` and ``render`` per family, ``pad`` per (family, rung), fact values from a
``layout`` stream.

**Validity rules** (hard errors, :class:`machinery.GenerationError`): the fact is said once (its
relation word and its value occur in the gold session only, echo clauses stripped: the lexical
pass of the leak screen; the paraphrase and human passes are not run in this revision); gold sits
exactly d sessions before the question and is read back from the rendered text (V5); every value
is stated exactly once, with its subject right before it (per turn, from the value banks); values
come from the right pools; timestamps at the constant interval; no digits or dashes; question words
rare corpus-wide (< 10 % of sessions, what the V7 relevance exemption relies on); the mechanical
judge grades every gold answer ``correct``.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from datetime import datetime, timedelta
from typing import Any

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date
from ..gates.calibration import strip_echo
from ..gates.features import phrase_grams
from ..judge.mechanical import judge_answer
from ..judge.outcomes import Outcome
from ..retrieval.tokenizer import raw_tokens, tokenize
from .machinery import (
    ECHO_LEAD_IN,
    PAD_BANKS,
    Construction,
    ConstructionBank,
    DraftTurn,
    EchoPlan,
    GenerationError,
    Placement,
    ScaffoldBanks,
    SessionPlan,
    Statement,
    align_roles,
    assert_disjoint,
    content_words,
    derive_rng,
    dither,
    draw_terms,
    pad_haystack,
    render_session,
)

VERTICAL = "workingmemory"
ABBREV = "wm"
GENERATOR = "pytest_typedmemeval.generate.workingmemory"
GENERATOR_VERSION = "1"
SEED = 20260504
"""The vertical seed of the shipped corpus (revision 1). Changing it changes the corpus."""

DISTANCES: tuple[int, ...] = (8, 15, 25, 40, 60)
"""§2.4 rungs d: sessions between the fact and the question."""
SHAPES: tuple[str, ...] = tuple(f"distance-{d}" for d in DISTANCES)
CALIBRATED_SHAPES: tuple[str, ...] = SHAPES
"""Every rung has gold (G = 1) and is calibrated on its own knob, in rung order."""

RECORDED_ECHO: dict[str, float] = {"distance-15": 0.53515625,
                                   "distance-25": 0.53515625,
                                   "distance-40": 0.53515625,
                                   "distance-60": 0.53515625,
                                   "distance-8": 0.53515625}
"""The echo per shape recorded at authoring time by ``typedmemeval generate --vertical
workingmemory --search`` (sweep, then bisection; :mod:`.calibration`). Rebuilds read these and
never search. The five rungs land on one echo because they are matched (see above): their
coverage-against-echo curves coincide point for point."""

CALIBRATION_RECORD: dict[str, Any] = {
    "by_shape": {
        "distance-15": {"bracket": [0.5, 0.625], "coverage": 0.666667, "echo": 0.53515625,
                        "iterations": 15,
                        "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                                   [0.625, 0.0], [0.75, 0.0], [0.875, 0.0], [1.0, 0.0], [0.5625, 0.0],
                                   [0.53125, 1.0], [0.546875, 0.0], [0.5390625, 0.0], [0.53515625, 0.666667],
                                   [0.533203125, 1.0]]},
        "distance-25": {"bracket": [0.5, 0.625], "coverage": 0.666667, "echo": 0.53515625,
                        "iterations": 15,
                        "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                                   [0.625, 0.0], [0.75, 0.0], [0.875, 0.0], [1.0, 0.0], [0.5625, 0.0],
                                   [0.53125, 1.0], [0.546875, 0.0], [0.5390625, 0.0], [0.53515625, 0.666667],
                                   [0.533203125, 1.0]]},
        "distance-40": {"bracket": [0.5, 0.625], "coverage": 0.666667, "echo": 0.53515625,
                        "iterations": 15,
                        "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                                   [0.625, 0.0], [0.75, 0.0], [0.875, 0.0], [1.0, 0.0], [0.5625, 0.0],
                                   [0.53125, 1.0], [0.546875, 0.0], [0.5390625, 0.0], [0.53515625, 0.666667],
                                   [0.533203125, 1.0]]},
        "distance-60": {"bracket": [0.5, 0.625], "coverage": 0.666667, "echo": 0.53515625,
                        "iterations": 15,
                        "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                                   [0.625, 0.0], [0.75, 0.0], [0.875, 0.0], [1.0, 0.0], [0.5625, 0.0],
                                   [0.53125, 1.0], [0.546875, 0.0], [0.5390625, 0.0], [0.53515625, 0.666667],
                                   [0.533203125, 1.0]]},
        "distance-8": {"bracket": [0.5, 0.625], "coverage": 0.666667, "echo": 0.53515625,
                        "iterations": 15,
                        "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0], [0.5, 1.0],
                                   [0.625, 0.0], [0.75, 0.0], [0.875, 0.0], [1.0, 0.0], [0.5625, 0.0],
                                   [0.53125, 1.0], [0.546875, 0.0], [0.5390625, 0.0], [0.53515625, 0.666667],
                                   [0.533203125, 1.0]]},
    },
    "ceiling": 0.9,
    "iterations": 75,
    "k_ref": 5,
    "method": "sweep (9 points over [0, 1]) then bisection inside the bracket (6 steps max, tol"
              "erance 0.0125), per shape in order",
    "target": 0.7,
}
"""What that authoring search reported, for the sidecar."""

DIFFICULTY_NOTE = ("declared, not validated: the band is the distance rung (1 = d 8 .. 5 = d 60), "
                   "which is also the shape (§0: the rungs are the shapes), and BM25 cannot see "
                   "position, so the reference retriever is a flat null control (§2.4), not a "
                   "validator")

H = 64
"""Appendix A: H = 64 non-gold sessions on every rung."""
N_SESSIONS = H + 1
EXCHANGES = 1
"""One user/assistant exchange per session: the statement (and its echo clause) in the user turn."""
STATEMENT_SLOT = 0
"""The user turn (slot) of the statement: the session's only user turn."""
INTERVAL = timedelta(days=2)
"""The one constant spacing between consecutive sessions (and from the last session to the
question), the same in every cell of the grid (§2.4)."""
QUESTION_TERMS = {"noun": 1, "relation": 1}
"""Every question's BM25 terms: its subject noun (in every session of its haystack) and one
relation word (in the fact session only): the same lexical competition in every family."""
NEUTRAL_TERMS = (1, 2)
"""Neutral (non-question) words per echo clause, drawn uniformly per session, gold or filler."""
MEMORY_TYPE = "workingmemory"
RARE_SHARE = 0.10
"""V7 relevance exemption: question words must stay in < 10% of sessions corpus-wide."""
TEMPLATE_AUC_LIMIT = 0.62
"""Import-time design check: the pooled AUC the statement templates alone would give any gram."""
TEMPLATE_PERFECT_FAMILIES = 2
"""Import-time design check: a gram may separate gold perfectly (by template) in at most this many
families (2 x 5 rungs = 10 questions < 20 % of 60, the V7 distribution share)."""


# --------------------------------------------------------------------------------------------
# Banks


@dataclass(frozen=True)
class Family:
    """One fact family: the question, its fact construction and its interference constructions.

    Every template is "I have ... {tail} {value}." with the same ``tail`` (which names the subject
    the value belongs to), so the value always comes right after its subject.
    """

    key: str
    question: str
    tail: str
    fact: str
    interference: tuple[str, ...]

    @property
    def noun_words(self) -> frozenset[str]:
        return frozenset(tokenize(self.tail))

    @property
    def query_terms(self) -> tuple[str, ...]:
        """The question's BM25 terms (the echo source), in a fixed order."""
        return tuple(sorted(set(tokenize(self.question))))

    @property
    def fact_words(self) -> frozenset[str]:
        """Content words only the fact construction has: the asked relation (the leak screen)."""
        others = set().union(*(tokenize(_blank(t)) for t in self.interference))
        return frozenset(tokenize(_blank(self.fact))) - others - self.noun_words


def _blank(template: str) -> str:
    return template.replace("{value}", " ")


FAMILIES: tuple[Family, ...] = (
    Family("employer", "Which company have I been hired by?", "the company",
           "I have been hired by the company {value}.",
           ("I have turned down an offer from the company {value}.",
            "I have had an interview with the company {value}.",
            "I have sent complaints to the company {value}.",
            "I have read news stories about the company {value}.",
            "I have designed logos for the company {value}.",
            "I have applied for jobs at the company {value}.")),
    Family("pet", "Which kitten have I adopted?", "the kitten",
           "I have adopted the kitten {value}.",
           ("I have fed a neighbour's pet, the kitten {value}.",
            "I have looked after my aunt's pet, the kitten {value}.",
            "I have sketched the kitten {value}.",
            "I have seen posters about the kitten {value}.",
            "I have photographed the kitten {value}.",
            "I have heard a story about the kitten {value}.")),
    Family("street", "Which street have I moved to?", "the street",
           "I have moved to a flat on the street {value}.",
           ("I have viewed a flat on the street {value}.",
            "I have parked my van on the street {value}.",
            "I have given directions to the street {value}.",
            "I have walked the dog along the street {value}.",
            "I have eaten at the diner on the street {value}.",
            "I have handed out flyers on the street {value}.")),
    Family("gym", "Which gym have I joined?", "the gym",
           "I have joined the gym {value}.",
           ("I have tried a free class at the gym {value}.",
            "I have walked past the gym {value}.",
            "I have seen adverts for the gym {value}.",
            "I have picked up leaflets from the gym {value}.",
            "I have waited for friends outside the gym {value}.",
            "I have phoned the gym {value}.")),
    Family("dentist", "Which dentist have I registered with?", "the dentist",
           "I have registered with the dentist {value}.",
           ("I have read reviews of the dentist {value}.",
            "I have taken my mother to the dentist {value}.",
            "I have heard good things about the dentist {value}.",
            "I have driven past the dentist {value}.",
            "I have booked a friend in with the dentist {value}.",
            "I have seen posters for the dentist {value}.")),
    Family("car", "Which car have I bought?", "the car",
           "I have bought the car {value}.",
           ("I have taken a test drive in the car {value}.",
            "I have rented the car {value}.",
            "I have seen adverts for the car {value}.",
            "I have read a review of the car {value}.",
            "I have had lifts in the car {value}.",
            "I have admired the car {value}.")),
    Family("bank", "Which bank have I chosen?", "the bank",
           "I have chosen the bank {value}.",
           ("I have seen adverts for the bank {value}.",
            "I have queued outside the bank {value}.",
            "I have had a phone call from the bank {value}.",
            "I have read news stories about the bank {value}.",
            "I have written to the bank {value}.",
            "I have picked up leaflets from the bank {value}.")),
    Family("college", "Which college have I enrolled at?", "the college",
           "I have enrolled at the college {value}.",
           ("I have been to an open day at the college {value}.",
            "I have taught night classes at the college {value}.",
            "I have parked near the college {value}.",
            "I have seen plays at the college {value}.",
            "I have picked up a prospectus from the college {value}.",
            "I have walked past the college {value}.")),
    Family("choir", "Which choir have I signed up to?", "the choir",
           "I have signed up to the choir {value}.",
           ("I have listened to a concert by the choir {value}.",
            "I have seen posters for the choir {value}.",
            "I have downloaded recordings of the choir {value}.",
            "I have sent a donation to the choir {value}.",
            "I have read a review of the choir {value}.",
            "I have sat through carols sung by the choir {value}.")),
    Family("village", "Which village have I settled in?", "the village",
           "I have settled in the village {value}.",
           ("I have driven through the village {value}.",
            "I have stayed a night in the village {value}.",
            "I have stopped for lunch in the village {value}.",
            "I have cycled past the village {value}.",
            "I have visited the market in the village {value}.",
            "I have got lost near the village {value}.")),
    Family("bakery", "Which bakery have I subscribed to?", "the bakery",
           "I have subscribed to the bakery {value}.",
           ("I have walked past the bakery {value}.",
            "I have picked up a single cake from the bakery {value}.",
            "I have seen queues outside the bakery {value}.",
            "I have read a review of the bakery {value}.",
            "I have tried free samples from the bakery {value}.",
            "I have sent feedback to the bakery {value}.")),
    Family("charity", "Which charity have I volunteered for?", "the charity",
           "I have volunteered for the charity {value}.",
           ("I have donated old books to the charity {value}.",
            "I have seen a collection tin for the charity {value}.",
            "I have read leaflets from the charity {value}.",
            "I have run past stalls for the charity {value}.",
            "I have had a letter from the charity {value}.",
            "I have heard radio appeals by the charity {value}.")),
)
"""The 12 fact families (§2.4). Fact: a durable first-person relation the question asks about.
Interference: the same family's subject in other, non-contradicting relations (an offer turned
down, a neighbour's kitten fed, a flat viewed) in the same construction and tense."""

FAMILY_BY_KEY: dict[str, Family] = {family.key: family for family in FAMILIES}

ASSISTANT_TALK: tuple[str, ...] = (
    "Thanks for telling me.",
    "Good to hear.",
    "That sounds nice.",
    "Understood.",
    "Got it, thanks.",
    "That makes sense.",
    "Sounds good to me.",
    "Thanks for the update.",
    "I see, that is helpful.",
    "Understood, thank you.",
    "Glad you shared that.",
    "That is good to know.",
    "Thanks, that helps.",
    "Happy to hear it.",
    "I follow, thanks.",
    "Right, that is clear.",
    "Noted, thanks for the detail.",
    "That sounds like a plan.",
    "Thanks for keeping me posted.",
    "That is useful to hear.",
)
"""Assistant replies, one bank for every assistant turn: never repeats the user's value."""

SCAFFOLD = ScaffoldBanks((), ASSISTANT_TALK)
"""No user small talk: with one exchange every user turn holds its session's statement."""

_VALUE_SYLLABLES = ("ar", "bel", "cor", "dun", "ev", "fal", "gri", "hal", "isk", "lor", "mun", "nav",
                    "osk", "pel", "rim", "sar", "tal", "ulk", "vor", "zim")
"""Invented values are assembled from syllables that appear in no question (§4.1)."""


def _words(syllables: Sequence[str]) -> list[str]:
    return sorted({(a + b).capitalize() for a in syllables for b in syllables if a != b})


FACT_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[0::2])
FILLER_VALUE_WORDS: tuple[str, ...] = tuple(_words(_VALUE_SYLLABLES)[1::2])
"""Fact values and filler values draw from disjoint pools (filler can never state a fact value),
interleaved from one sorted list so the pool a value comes from is not readable from its form."""
VALUE_WORDS = frozenset(word.lower() for word in FACT_VALUE_WORDS + FILLER_VALUE_WORDS)
_VALUE_PATTERN = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")


def _construction_bank() -> ConstructionBank:
    constructions: list[Construction] = []
    for family in FAMILIES:
        constructions.append(Construction(f"{family.key}:F", family.key, family.fact, True))
        for index, template in enumerate(family.interference):
            constructions.append(Construction(f"{family.key}:I{index}", family.key, template, True))
    return ConstructionBank(constructions)


CONSTRUCTIONS = _construction_bank()

QUESTION_WORDS = frozenset(word for family in FAMILIES for word in family.query_terms)
FAMILY_WORDS = frozenset(w for family in FAMILIES
                         for t in (family.fact, *family.interference, family.question)
                         for w in tokenize(_blank(t)))
SCAFFOLD_WORDS = content_words(ASSISTANT_TALK)


def _template_grams(template: str) -> set[str]:
    """V7 phrase grams of a template, without any gram that touches the value."""
    marker = "Zqvalueq"
    return {gram for gram in phrase_grams(template.replace("{value}", marker))
            if marker.lower() not in gram.split()}


def template_parity() -> list[tuple[float, int, str, tuple[str, ...]]]:
    """Per gram of any template: (folded pooled AUC, families separated perfectly, gram, families).

    The AUC a gram would reach from the templates alone, each family's questions weighted equally
    (every rung has one question per family): per family, gold presence g (0/1) against the share
    r of its interference templates carrying the gram; pooled raw AUC = 0.5 + (mean g - mean r)/2.
    A family is separated perfectly when g = 1, r = 0 or g = 0, r = 1. Scaffold, echo and padding
    only dilute these numbers.
    """
    rows = {family.key: (_template_grams(family.fact), [_template_grams(t) for t in family.interference])
            for family in FAMILIES}
    grams = set().union(*(gold | set().union(*others) for gold, others in rows.values()))
    out = []
    for gram in sorted(grams):
        present = []
        shares = []
        perfect: list[str] = []
        for key, (gold, others) in rows.items():
            g = gram in gold
            r = sum(gram in other for other in others) / len(others)
            present.append(g)
            shares.append(r)
            if (g and r == 0) or (not g and r == 1):
                perfect.append(key)
        raw = 0.5 + (sum(present) - sum(shares)) / (2 * len(rows))
        out.append((max(raw, 1 - raw), len(perfect), gram, tuple(perfect)))
    return sorted(out, key=lambda row: (-row[0], -row[1], row[2]))


def _assert_template_parity() -> None:
    for auc, perfect, gram, families in template_parity():
        assert auc < TEMPLATE_AUC_LIMIT, f"template gram {gram!r} reaches AUC {auc:.3f}"
        assert perfect <= TEMPLATE_PERFECT_FAMILIES, \
            f"template gram {gram!r} separates gold perfectly in {families}"


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    assert len(FAMILIES) == 12 and len(FAMILY_BY_KEY) == 12
    everything = SCAFFOLD_WORDS | PAD_BANKS.vocabulary() | frozenset(raw_tokens(ECHO_LEAD_IN))
    assert_disjoint("question words", QUESTION_WORDS, "scaffold, pad and echo lead-in", everything)
    assert_disjoint("fact values", {w.lower() for w in FACT_VALUE_WORDS}, "filler values",
                    {w.lower() for w in FILLER_VALUE_WORDS})
    assert_disjoint("values", VALUE_WORDS, "every bank",
                    everything | FAMILY_WORDS | frozenset(raw_tokens(" ".join(
                        f.question for f in FAMILIES))))
    for family in FAMILIES:
        question = family.question.lower()
        assert not any(re.search(rf"\b{re.escape(w.lower())}\b", question) for w in VALUE_WORDS)
        assert family.question.startswith("Which ") and " have I " in family.question, family
        assert family.question.endswith("?"), family
        # The question's terms: the subject noun(s) and the asked relation; the relation words
        # occur in the fact construction only (the interference never states the asked relation).
        terms = set(family.query_terms)
        assert family.noun_words <= terms, family.key
        assert len(family.noun_words) == QUESTION_TERMS["noun"] and \
            len(terms - family.noun_words) == QUESTION_TERMS["relation"], \
            f"{family.key}: every question has one subject noun and one relation word " \
            f"(the same competition in every family), got {sorted(terms)}"
        assert terms - family.noun_words <= family.fact_words, \
            f"{family.key}: question words {sorted(terms - family.noun_words - family.fact_words)} " \
            "are not the fact's own words"
        for template in (family.fact, *family.interference):
            assert template.startswith("I have ") and template.endswith(f"{family.tail} {{value}}."), \
                template
            assert template.count("{value}") == 1 and "{" not in template.replace("{value}", ""), template
            assert not re.search(r"[\d\u2013\u2014]", template), template
        for template in family.interference:
            assert not set(tokenize(_blank(template))) & family.fact_words, \
                f"{family.key}: interference {template!r} uses the fact's own words"
        assert len(family.interference) >= 5, family.key
        # A question word of one family is no other family's construction word, so the echo and
        # the rarity line only ever concern one family's haystacks.
        for other in FAMILIES:
            if other is not family:
                shared = (terms - family.noun_words) & set(tokenize(" ".join(
                    _blank(t) for t in (other.fact, *other.interference))))
                assert not shared, f"{family.key} question words {sorted(shared)} in {other.key}"
    # Every construction renders as one sentence naming its subject right before the value.
    for construction in CONSTRUCTIONS:
        family = FAMILY_BY_KEY[construction.kind]
        text = CONSTRUCTIONS.render(Statement(family.key, family.tail, "", "Arbel Corlor",
                                              construction.construction_id))
        assert "{" not in text and "  " not in text and text.endswith(".") and text[0].isupper(), text
        assert f"{family.tail} Arbel Corlor." in text, text
    _assert_template_parity()


_assert_banks()


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class Haystack:
    """One question's haystack while it is built (plan, then rendering, then the checks).

    Everything is planned in *plan order*: the 64 filler sessions first, the fact session last
    (index :data:`H`). Plan, echo and render streams are keyed by the family alone and consume
    their draws in plan order, so the five rungs of a family get the same filler sessions and the
    same fact session apart from its value; :attr:`order` then places the fact session at haystack
    index 64 - d. Only the gold session (its own fact value) and its position differ between the
    rungs of a family: the matched design that makes the rung the only systematic difference.
    """

    key: str
    family: Family
    distance: int
    gold_index: int
    knob: float
    fact_value: str
    filler_values: list[str] = field(default_factory=list)
    constructions: list[str] = field(default_factory=list)
    """Construction id per session in plan order (``<family>:F`` last)."""
    times: list[datetime] = field(default_factory=list)
    question_time: datetime | None = None
    session_ids: list[str] = field(default_factory=list)
    sessions: list[list[DraftTurn]] = field(default_factory=list)
    """Rendered sessions in haystack order (after :func:`_render`)."""
    statement_turns: list[int] = field(default_factory=list)
    echo_terms: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def order(self) -> list[int]:
        """Haystack position -> plan index (the fact session, plan index H, at the gold index)."""
        filler = list(range(H))
        return filler[: self.gold_index] + [H] + filler[self.gold_index:]

    @property
    def plan_values(self) -> list[str]:
        return [*self.filler_values, self.fact_value]

    @property
    def values(self) -> list[str]:
        """The value stated in each session, in haystack order."""
        plan = self.plan_values
        return [plan[i] for i in self.order]


def _filler_values(rng: Any, count: int) -> list[str]:
    """``count`` values from the filler pool, no word used twice in one haystack."""
    words = list(FILLER_VALUE_WORDS)
    rng.shuffle(words)
    if 2 * count > len(words):
        raise GenerationError("filler value pool too small for one haystack")
    return [f"{words[2 * i]} {words[2 * i + 1]}" for i in range(count)]


def _fact_values(seed: int) -> dict[tuple[str, int], str]:
    """One fact value per (family, rung), every word used once in the whole corpus."""
    rng = derive_rng(seed, VERTICAL, "layout", "values")
    words = list(FACT_VALUE_WORDS)
    rng.shuffle(words)
    cells = [(family.key, d) for d in DISTANCES for family in FAMILIES]
    if 2 * len(cells) > len(words):
        raise GenerationError("fact value pool too small for the corpus")
    return {cell: f"{words[2 * i]} {words[2 * i + 1]}" for i, cell in enumerate(cells)}


def _plan_haystack(seed: int, family: Family, distance: int, fact_value: str, knob: float) -> Haystack:
    key = f"{family.key}-d{distance}"
    rng = derive_rng(seed, VERTICAL, family.key, "plan")
    gold_index = H - distance
    if not 0 < gold_index < H:
        raise GenerationError(f"{key}: gold index {gold_index} out of range")
    stay = Haystack(key, family, distance, gold_index, knob, fact_value)
    stay.filler_values = _filler_values(rng, H)
    ids = [f"{family.key}:I{i}" for i in range(len(family.interference))]
    cycle: list[str] = []
    while len(cycle) < H:
        block = list(ids)
        rng.shuffle(block)
        cycle.extend(block)
    stay.constructions = [*cycle[:H], f"{family.key}:F"]
    start = datetime(2025, 1, 6, 8, 0) + timedelta(days=rng.randint(0, 400),
                                                   minutes=rng.randint(0, 12 * 60))
    stay.times = [start + index * INTERVAL for index in range(N_SESSIONS)]
    stay.question_time = stay.times[-1] + INTERVAL
    stay.session_ids = [
        "sess-" + hashlib.sha256(f"{seed}:{VERTICAL}:{key}:{i}".encode()).hexdigest()[:10]
        for i in range(N_SESSIONS)]
    if len(set(stay.session_ids)) != N_SESSIONS:
        raise GenerationError(f"{key}: session id collision")
    return stay


def _neutral_pool(stay: Haystack) -> list[str]:
    """Non-question words of this haystack's interference statements (the gold clause's words)."""
    words: set[str] = set()
    for cid in set(stay.constructions[:H]):
        words |= set(tokenize(_blank(CONSTRUCTIONS.get(cid).template)))
    return sorted(words - set(stay.family.query_terms))


def _plan_echo(seed: int, stay: Haystack) -> list[EchoPlan]:
    """Per session, in plan order: the echo clause.

    Blind to gold status: one dither counter hands every session its share of question terms and
    neutral words are drawn for everyone. The clause always sits in the turn that holds the
    session's statement (user role, the statement's slot), gold and filler alike: a clause in
    another turn would repeat the statement's subject noun across turns in filler (whose clauses
    carry it) and never in gold (whose clause has no question words), and session-level distinct
    tokens, which per-turn padding cannot equalise, would then mark gold (measured: AUC 0.70 with
    alternating roles). Inside one turn the overlap is absorbed by the turn's padding. No answer
    here depends on who spoke, so the role alternation of §4.2 (an attribution guard) has nothing
    to protect in this vertical. The
    one rule touching the fact is symmetric: a session never echoes its own fact's question, and
    only the fact construction has a question, so the fact session's clause is a distractor
    clause with the question words removed (§4.2).

    Question words are taken in a fixed priority, the subject noun first, then the relation word
    (:data:`QUESTION_TERMS` of each kind): a clause repeats the subject alone or the whole question, never the
    relation alone. A clause of the relation alone would give a distractor exactly the fact
    session's query-term counts, an exact BM25 tie whenever the two also match in length, and
    BM25 breaks ties by session order: the early-gold rungs would win ties the late-gold rungs
    lose, a position effect of the reference retriever's tie rule, not of memory.
    """
    rng = derive_rng(seed, VERTICAL, stay.family.key, "echo")
    terms = stay.family.query_terms
    counts = dither([stay.knob * len(terms)] * N_SESSIONS, rng)
    neutral_pool = _neutral_pool(stay)
    plans: list[EchoPlan] = []
    nouns = sorted(set(terms) & stay.family.noun_words)
    relation = sorted(set(terms) - stay.family.noun_words)
    for index in range(N_SESSIONS):
        drawn = (nouns + draw_terms(relation, len(relation), rng))[: counts[index]]
        if stay.constructions[index].endswith(":F"):
            drawn = []
        neutral = draw_terms(neutral_pool, rng.choice(NEUTRAL_TERMS), rng)
        listed = drawn + neutral
        rng.shuffle(listed)
        plans.append(EchoPlan(tuple(listed), "user", STATEMENT_SLOT))
    return plans


def _render(seed: int, stay: Haystack) -> None:
    rng = derive_rng(seed, VERTICAL, stay.family.key, "render")
    echoes = _plan_echo(seed, stay)
    drafts: list[list[DraftTurn]] = []
    turns: list[int] = []
    for index, (cid, value) in enumerate(zip(stay.constructions, stay.plan_values)):
        statement = Statement(stay.family.key, stay.family.tail, "", value, cid)
        plan = SessionPlan(EXCHANGES, (statement,),
                           (Placement("user", STATEMENT_SLOT),), echoes[index])
        rendered = render_session(plan, CONSTRUCTIONS, SCAFFOLD, rng)
        drafts.append(rendered.turns)
        turns.append(rendered.statement_turns[0])
    mappings = align_roles(drafts)
    turns = [mapping[turn] for mapping, turn in zip(mappings, turns)]
    reserved = FAMILY_WORDS | QUESTION_WORDS | VALUE_WORDS
    pad_haystack(drafts, derive_rng(seed, VERTICAL, stay.key, "pad"), reserved=reserved)
    stay.sessions = [drafts[i] for i in stay.order]
    stay.statement_turns = [turns[i] for i in stay.order]
    stay.echo_terms = [echoes[i].terms for i in stay.order]


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5) and the validity rules


def _fact_pattern(family: Family) -> re.Pattern[str]:
    return re.compile(re.escape(family.fact).replace(re.escape("{value}"),
                                                     r"(?P<value>[A-Z][a-z]+ [A-Z][a-z]+)"))


def read_fact(sessions: Sequence[Sequence[str]], family: Family) -> list[tuple[int, str]]:
    """Every (session index, value) where the rendered text states the family's fact (texts only,
    echo clauses stripped; never the plan)."""
    pattern = _fact_pattern(family)
    found: list[tuple[int, str]] = []
    for index, turns in enumerate(sessions):
        for text in turns:
            for match in pattern.finditer(strip_echo(text)):
                found.append((index, match.group("value")))
    return found


def _texts(stay: Haystack) -> list[list[str]]:
    return [[turn.text for turn in session] for session in stay.sessions]


def _check_values_named(stay: Haystack) -> None:
    """Per turn: every value word sits in a full value of this haystack, stated right after its
    subject; every value is stated exactly once in the haystack."""
    values = stay.values
    seen: Counter[str] = Counter()
    tail = stay.family.tail
    for index, session in enumerate(stay.sessions):
        for turn in session:
            for match in _VALUE_PATTERN.finditer(turn.text):
                first, last = match.groups()
                if not {first.lower(), last.lower()} & VALUE_WORDS:
                    continue
                value = match.group(0)
                if value not in values:
                    raise GenerationError(f"{stay.key} session {index}: value-shaped {value!r} "
                                          "belongs to no statement of this haystack")
                if not turn.text[: match.start()].endswith(f"{tail} "):
                    raise GenerationError(f"{stay.key} session {index}: {value!r} stated without "
                                          f"its subject {tail!r}: {turn.text!r}")
                seen[value] += 1
            for word in raw_tokens(turn.text):
                if word in VALUE_WORDS and not any(word in raw_tokens(v) for v in values
                                                   if v in turn.text):
                    raise GenerationError(f"{stay.key} session {index}: value word {word!r} outside "
                                          f"a full value: {turn.text!r}")
    for value in values:
        if seen[value] != 1:
            raise GenerationError(f"{stay.key}: value {value!r} stated {seen[value]} times")
    filler_words = {word for value in stay.filler_values for word in value.split()}
    if not filler_words <= set(FILLER_VALUE_WORDS) or \
            not set(stay.fact_value.split()) <= set(FACT_VALUE_WORDS):
        raise GenerationError(f"{stay.key}: a value is drawn from the wrong pool")


def _check_said_once(stay: Haystack) -> None:
    """The lexical pass of the leak screen (rule 1): outside echo clauses, the fact's own words
    (the asked relation, which no interference construction uses) and every word of its value
    occur in the gold session only, so no other session repeats or paraphrases it lexically."""
    watched = set(stay.family.fact_words) | {w.lower() for w in stay.fact_value.split()}
    for index, session in enumerate(stay.sessions):
        if index == stay.gold_index:
            continue
        text = "\n".join(strip_echo(turn.text) for turn in session)
        found = watched & set(raw_tokens(text))
        if found:
            raise GenerationError(f"{stay.key} session {index}: the fact's words {sorted(found)} "
                                  "outside the gold session (said once only)")


def _check_haystack(stay: Haystack) -> None:
    texts = _texts(stay)
    joined = "\n".join(text for turns in texts for text in turns)
    if re.search(r"[\d\u2013\u2014]", joined):
        raise GenerationError(f"{stay.key}: digits or dashes in the haystack")
    if len(stay.sessions) != N_SESSIONS or len(stay.times) != N_SESSIONS:
        raise GenerationError(f"{stay.key}: {len(stay.sessions)} sessions, expected {N_SESSIONS}")
    for earlier, later in zip(stay.times, stay.times[1:]):
        if later - earlier != INTERVAL:
            raise GenerationError(f"{stay.key}: sessions not spaced at the constant interval")
    if stay.question_time is None or stay.question_time - stay.times[-1] != INTERVAL:
        raise GenerationError(f"{stay.key}: question not one interval after the last session")
    _check_values_named(stay)
    _check_said_once(stay)
    for index, turn in enumerate(stay.statement_turns):
        text = stay.sessions[index][turn].text
        if stay.family.tail not in text or "I have " not in text:
            raise GenerationError(f"{stay.key} session {index}: statement turn lost its statement")


def _gold(stay: Haystack) -> tuple[str, int]:
    """Gold recomputed from the rendered text alone (V5): the value and the session stating it."""
    found = read_fact(_texts(stay), stay.family)
    if len(found) != 1:
        raise GenerationError(f"{stay.key}: the fact is stated {len(found)} times (said once only)")
    index, value = found[0]
    after = N_SESSIONS - 1 - index
    if after != stay.distance or index == 0:
        raise GenerationError(f"{stay.key}: {after} sessions between the fact and the question, "
                              f"rung d = {stay.distance}")
    return value, index


# --------------------------------------------------------------------------------------------
# Records


def _record(stay: Haystack, question_id: str) -> dict[str, Any]:
    value, gold = _gold(stay)
    sessions = []
    for position, session in enumerate(stay.sessions):
        turns = []
        for turn_index, turn in enumerate(session):
            flag = position == gold and turn_index == stay.statement_turns[position]
            turns.append({"role": turn.role, "content": turn.text, "has_answer": flag})
        sessions.append(turns)
    assert stay.question_time is not None
    shape = f"distance-{stay.distance}"
    key = {"accepted": [value], "wrong": [v for v in stay.filler_values]}
    AnswerKey.model_validate(key)
    band = DISTANCES.index(stay.distance) + 1
    return {
        "question_id": question_id,
        "question_type": shape,
        "question": stay.family.question,
        "answer": value,
        "question_date": format_corpus_date(stay.question_time),
        "haystack_session_ids": list(stay.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in stay.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [stay.session_ids[gold]],
        "typedmemeval": {
            "vertical": VERTICAL, "shape": shape, "memory_type": MEMORY_TYPE, "answer_key": key,
            "distance_sessions": stay.distance, "fact_family": stay.family.key,
            "gold_components": [{"kind": "statement", "session_index": gold,
                                 "memory_type": MEMORY_TYPE}],
            "difficulty": band, "dial": {"name": "distance_sessions", "value": stay.distance},
        },
    }


def _judge_gold(record: dict[str, Any]) -> None:
    key = record["typedmemeval"]["answer_key"]
    outcome, reason = _judge(record["answer"], tuple(key["accepted"]), tuple(key["wrong"]))
    if outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record['question_id']}: the mechanical judge grades the gold "
                              f"answer {outcome.value} ({reason})")


@lru_cache(maxsize=512)
def _judge(answer: str, accepted: tuple[str, ...], wrong: tuple[str, ...]) -> tuple[Outcome, str]:
    """The mechanical judge's verdict on one answer (memoised: the answer key of a question does
    not depend on the echo, so the calibration search judges each question once)."""
    verdict = judge_answer(answer, AnswerKey(accepted=accepted, wrong=wrong))
    return verdict.outcome, verdict.reason


def _check_rarity(records: Sequence[dict[str, Any]]) -> None:
    """Question words stay rare (< 10% of session slots), as the V7 relevance exemption needs."""
    holding: Counter[str] = Counter()
    total = 0
    for record in records:
        for session in record["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for record in records:
        for word in tokenize(record["question"]):
            if holding[word] >= RARE_SHARE * total:
                raise GenerationError(f"{record['question_id']}: question word {word!r} is in "
                                      f"{holding[word]} of {total} sessions (>= {RARE_SHARE:.0%})")


def _knob(echo_by_shape: Mapping[str, float], shape: str) -> float:
    value = float(echo_by_shape[shape])
    if not 0.0 <= value <= 1.0:
        raise GenerationError(f"echo for {shape} must lie in [0, 1], got {value}")
    return value


_CACHE: OrderedDict[tuple[int, str, int, float], dict[str, Any]] = OrderedDict()
_CACHE_SIZE = 256
"""Built records by (seed, family, rung, knob). A record depends on nothing else, so the search
(which moves one rung's knob at a time) rebuilds only that rung; a pure memo, never persisted."""


def build_question(seed: int, family: Family, distance: int, fact_value: str, knob: float,
                   question_id: str) -> dict[str, Any]:
    """One (family, rung) question: plan, render, check, record (memoised on its inputs)."""
    cache_key = (seed, family.key, distance, knob)
    cached = _CACHE.get(cache_key)
    if cached is not None and cached["question_id"] == question_id \
            and cached["answer"] == fact_value:
        _CACHE.move_to_end(cache_key)
        return copy.deepcopy(cached)
    stay = _plan_haystack(seed, family, distance, fact_value, knob)
    _render(seed, stay)
    _check_haystack(stay)
    record = _record(stay, question_id)
    QuestionRecord.model_validate(record)
    _judge_gold(record)
    _CACHE[cache_key] = copy.deepcopy(record)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return record


def build_records(seed: int, echo_by_shape: Mapping[str, float], *,
                  shapes: Sequence[str] = SHAPES) -> list[dict[str, Any]]:
    """The corpus as plain records in id order (deterministic in seed and echo).

    ``shapes`` limits which rungs are built; a rung's records never depend on the other rungs.
    """
    unknown = set(shapes) - set(SHAPES)
    if unknown:
        raise GenerationError(f"unknown shapes {sorted(unknown)}")
    values = _fact_values(seed)
    records: list[dict[str, Any]] = []
    for rung, distance in enumerate(DISTANCES):
        shape = f"distance-{distance}"
        if shape not in shapes:
            continue
        knob = _knob(echo_by_shape, shape)
        for index, family in enumerate(FAMILIES):
            question_id = f"tme-{ABBREV}-{rung * len(FAMILIES) + index + 1:03d}"
            records.append(build_question(seed, family, distance, values[(family.key, distance)],
                                          knob, question_id))
    records.sort(key=lambda record: record["question_id"])
    if set(shapes) == set(SHAPES):
        _check_rarity(records)
    return records


__all__ = [
    "CALIBRATED_SHAPES", "CALIBRATION_RECORD", "DISTANCES", "FAMILIES", "GENERATOR",
    "GENERATOR_VERSION", "H", "INTERVAL", "RECORDED_ECHO", "SEED", "SHAPES", "VERTICAL",
    "build_question", "build_records", "read_fact", "template_parity",
]
