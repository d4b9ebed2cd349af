"""TypedMemEval-Episodic v1 generator (VERTICALS.md §2.2), on the one template machinery.

Memory of the conversation as an event: who said a thing, and in which order things came up. Three
shapes, each with its own haystack anatomy, every session of a haystack built from one construction
bank whatever its gold status:

- ``assistant-stated`` (20, ``tme-epi-001``..``020``): "Which campsite did you recommend for the
  lake trip?". Every session holds one exchange: a subject-free user request ("I could use a
  suggestion.") and, in the same exchange, an assistant turn recommending a value for a named
  subject ("For the campsite for the lake trip, I would recommend Velmor Dask."). Gold is the
  session whose subject is asked (G = 1); filler recommends values for parity subjects. The gold
  value sits in an assistant turn and, by a lexical screen over the whole corpus (a hard error),
  in no user turn anywhere: the assistant-stated value pools are disjoint from everything a user
  turn can say.
- ``list-order`` (15, ``021``..``035``): "In what order did I add things to the playlist for the
  road trip?". Every session holds one user statement adding one invented item to one named list
  ("I added Velmor Dask to the playlist for the road trip."). The asked list has G = 4..7 items
  (spread evenly over the 15 questions), one item per session at random positions, so the order
  is random and recoverable only from session order (no ordinal words, no story); filler lists
  (other lists, 1..7 items each) are built the same way. Each item occurs in exactly one session
  (a hard error otherwise). ``answer_key.list_order`` is the items in presented order; the
  extension block's ``list_order`` gives ``items`` (sorted), ``presented_order`` (indices into
  ``items``, in the order presented) and ``session_indices`` (per item of ``items``).
- ``participant-attribution`` (15, ``036``..``050``): "Who said that the corner pharmacy only takes
  cards now: me or you or both of us?". Every session holds one remark about a venue, rendered by
  one speaker-neutral construction ("It turns out the corner pharmacy only takes cards now.") in a
  user or an assistant turn; the speaker of every remark is drawn at random, except the gold's,
  which the answer fixes. Answers are balanced 5 / 5 / 5 ("me" = the asker, i.e. the user; "you" =
  the assistant; "both of us": the same remark once by each, G = 2). The question frame is drawn
  per question from a bank; the scaffold turns of both roles come from one role-neutral bank
  (split per session), so nothing but the role label says who spoke. Competition is same-domain:
  near-miss remarks (the asked venue, another claim) and same-claim remarks (another venue, the
  asked claim), each by a random speaker.

**Echo** (VERTICALS.md §4.2). Each question has one echo *source*: the words of its asked subject
(assistant-stated, list-order) or of its asked venue only (participant-attribution: the question
quotes the gold remark, so its claim is never echoed). Every session carries exactly one clause:
``k`` source words plus one or two neutral words (parity-subject words of the same haystack, never
the session's own). ``k`` is dithered (:func:`machinery.dither`) from ``knob * |source|``, blind
to gold status; the one rule that touches content is symmetric: a session whose remark or
statement is *about the asked subject* (gold, or an attribution near-miss) echoes no source word.
Clause roles alternate over the haystack from a random start, the slot within the role is uniform.

**Randomness.** One ``random.Random`` per haystack and purpose (``plan``, ``echo``, ``render``,
``pad``) via :func:`machinery.derive_rng`; a ``layout`` stream per shape deals subjects, list
lengths and attribution answers. The echo has its own stream, so a knob moves echo and padding only.

**Validity rules** (hard errors, :class:`machinery.GenerationError`): gold recomputed from the
rendered text (V5) — the recommended value, the list in session order, the set of speakers of the
quoted remark; assistant-stated lexical screen (no word of any assistant-stated gold value in any
user turn of the corpus, nor the value itself); each list item in exactly one session; every turn
that states a value names its subject (per turn, from the value banks); no value word outside a
full value; strictly increasing timestamps (session order = time order); no digits or dashes;
attribution remarks free of the answer words; no echo clause carrying answer words; question
subject words rare corpus-wide (< 10% of sessions, as the V7 relevance exemption needs); the
mechanical judge grades every gold answer ``correct`` and, for attribution, grades each of the two
other options ``wrong``.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from ..corpus.models import AnswerKey, QuestionRecord, format_corpus_date
from ..judge.mechanical import judge_answer
from ..judge.outcomes import Outcome
from ..retrieval.tokenizer import raw_tokens, tokenize
from .machinery import (
    ECHO_LEAD_IN,
    PAD_BANKS,
    ROLES,
    Construction,
    ConstructionBank,
    DraftTurn,
    EchoPlan,
    GenerationError,
    Placement,
    Role,
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

VERTICAL = "episodic"
ABBREV = "epi"
GENERATOR = "pytest_typedmemeval.generate.episodic"
GENERATOR_VERSION = "1"
SEED = 20260503
"""The vertical seed of the shipped corpus (revision 1). Changing it changes the corpus."""

SHAPES = ("assistant-stated", "list-order", "participant-attribution")
CALIBRATED_SHAPES = ("assistant-stated", "list-order")
"""Shapes the calibration search moves, in search order. participant-attribution is not among them:
its coverage is 1.0 at every echo (see :data:`ATTRIBUTION_SWEEP`), so there is no crossing to find;
it takes the mean of the calibrated siblings' echoes (recorded 0.0, as §4.9 does for a shape the
search cannot calibrate) so its filler still competes."""

RECORDED_ECHO: dict[str, float] = {"assistant-stated": 0.76953125, "list-order": 0.70703125,
                                   "participant-attribution": 0.0}
"""The echo per shape recorded at authoring time by ``typedmemeval generate --vertical episodic
--search`` (sweep, then bisection; :mod:`.calibration`). Rebuilds read these and never search.
participant-attribution reads 0.0 = not searched; the echo applied to it is the siblings' mean."""

CALIBRATION_RECORD: dict[str, Any] = {
    "by_shape": {"assistant-stated": {"bracket": [0.75, 0.875],
                                      "coverage": 0.7,
                                      "echo": 0.76953125,
                                      "iterations": 14,
                                      "points": [[0.0, 1.0], [0.125, 1.0], [0.25, 1.0], [0.375, 1.0],
                                                 [0.5, 0.8], [0.625, 0.8], [0.75, 0.75], [0.875, 0.3],
                                                 [1.0, 0.25], [0.8125, 0.55], [0.78125, 0.6],
                                                 [0.765625, 0.75], [0.7734375, 0.55],
                                                 [0.76953125, 0.7]]},
                 "list-order": {"bracket": [0.625, 0.75],
                                "coverage": 0.686984,
                                "echo": 0.70703125,
                                "iterations": 15,
                                "points": [[0.0, 0.898413], [0.125, 0.898413], [0.25, 0.865079],
                                           [0.375, 0.887302], [0.5, 0.831746], [0.625, 0.865079],
                                           [0.75, 0.589048], [0.875, 0.27619], [1.0, 0.193175],
                                           [0.6875, 0.769365], [0.71875, 0.664921],
                                           [0.703125, 0.741587], [0.7109375, 0.686984],
                                           [0.70703125, 0.686984], [0.705078125, 0.713175]]}},
    "ceiling": 0.9,
    "iterations": 29,
    "k_ref": 5,
    "method": "sweep (9 points over [0, 1]) then bisection inside the bracket (6 steps max, "
              "tolerance 0.0125), per shape in order",
    "target": 0.7,
}
"""What that authoring search reported, for the sidecar (coverage at search time; the sidecar's
coverage block is re-derived from the final bytes)."""

ATTRIBUTION_SWEEP: tuple[tuple[float, float], ...] = (
    (0.0, 1.0), (0.125, 1.0), (0.25, 1.0), (0.375, 1.0), (0.5, 1.0), (0.625, 1.0), (0.75, 1.0),
    (0.875, 1.0), (1.0, 1.0))
"""participant-attribution's mean BM25 coverage over the search grid (echo, coverage), measured
through :func:`build_records`: the evidence that the shape cannot be calibrated by echo. The
question names the venue and quotes the claim, so the gold remark holds every query word once and
no distractor (near-miss: venue only; same-claim: claim only, plus at most the venue's words from
its echo clause) can outrank it; with G <= 2 and K_ref = 5 it always lands in the top five.

Measured and not adopted: with 5-7 same-claim remarks per haystack instead of 1-3, coverage does
fall below the ceiling at high echo (0.93 at 0.75, 0.67 at 1.0), because enough same-claim
sessions then carry the venue's words in their echo clause to tie the gold. That only works by
scattering the quoted remark's words over both speakers' turns (venue by echo, claim by the
same-claim remarks), the very path by which an echo once gave the speaker away (V3 failed it 3/3;
VERTICALS.md §2.2 "Known defects"); the shape is declared ``ScoredOnTheReader`` by the spec instead."""

DIFFICULTY_NOTE = ("declared, not validated: list-order bands are the list length (dispersion; "
                   "coverage falls with it only because G > K_ref), assistant-stated and "
                   "participant-attribution bands are the distance from the last gold session to "
                   "the question, a position BM25 cannot feel (VERTICALS.md §2.0, §2.2 Dials)")

N_BY_SHAPE: dict[str, int] = {"assistant-stated": 20, "list-order": 15, "participant-attribution": 15}
FIRST_NUMBER: dict[str, int] = {"assistant-stated": 1, "list-order": 21, "participant-attribution": 36}
H_RANGE = (15, 25)
LIST_LENGTH = (4, 7)
"""§2.2: H 15-25 for every shape; list-order G = list length 4-7."""
FILLER_LIST_LENGTH = (1, 7)
"""Filler lists (other lists in a list-order haystack) have 1-7 items each."""
NEAR_MISS = (1, 2)
"""Attribution: remarks about the asked venue with another claim, per haystack."""
SAME_CLAIM = (1, 3)
"""Attribution: remarks of the asked claim about another venue, per haystack."""
EXCHANGES = 3
"""User/assistant exchanges per session; the statement takes a uniformly random exchange."""
NEUTRAL_TERMS = (1, 2)
"""Neutral (non-question) words per echo clause, drawn uniformly per session."""
MEMORY_TYPE = "episodic"
RARE_SHARE = 0.10
"""V7 relevance exemption: question subject words must stay in < 10% of sessions corpus-wide."""

CHOICES: tuple[str, str, str] = ("me", "you", "both of us")
ANSWER_FOR: dict[str, str] = {"user": "me", "assistant": "you", "both": "both of us"}
ATTRIBUTION_INSTRUCTION = (
    "Answer from what was said in our conversations. Reply with exactly one of the options as the "
    "question words them: me (the person asking), you (the assistant), or both of us."
)
"""Per-question instruction for attribution: the answer is an option label, read from the asker's
side, so "me" means the user. It lists every choice, so it names the gold only among them."""


# --------------------------------------------------------------------------------------------
# Banks


@dataclass(frozen=True)
class Entry:
    """A subject: a noun and what it is for ("campsite", "for the lake trip")."""

    noun: str
    purpose: str

    @property
    def anchor(self) -> str:
        return f"{self.noun} {self.purpose}"

    @property
    def words(self) -> frozenset[str]:
        return frozenset(tokenize(self.anchor))


def _entries(rows: str) -> tuple[Entry, ...]:
    out = []
    for line in rows.strip().splitlines():
        noun, purpose = (part.strip() for part in line.split("|"))
        out.append(Entry(noun, purpose))
    return tuple(out)


RECOMMEND_FACTS = _entries("""
campsite | for the lake trip
restaurant | for the anniversary dinner
paint colour | for the hallway
hiking boots | for the mountain walk
houseplant | for the shady bathroom
novel | for the transatlantic flight
board game | for the family evening
wine | for the roast lamb
hotel | for the conference stay
running shoes | for the half marathon
podcast | for the morning commute
pannier | for the touring bike
cheese | for the picnic hamper
perfume | for the birthday gift
herbal infusion | for the sleepless nights
rucksack | for the interrail summer
typeface | for the wedding invitations
mattress | for the guest bedroom
kibble | for the elderly terrier
sunscreen | for the beach holiday
""")
"""Subjects assistant-stated questions ask about (each once)."""

RECOMMEND_PARITY = _entries("""
coffee grinder | for the canteen
yoga mat | for the stretching classes
bicycle helmet | for the school drop
notebook | for the journalling habit
umbrella | for the gusty city
desk lamp | for the study nook
frying pan | for the induction hob
screen protector | for the spare tablet
bird feeder | for the back fence
toothpaste | for the sensitive gums
shampoo | for the curly hair
goggles | for the lido
picture frame | for the seaside snapshot
travel pillow | for the sleeper coach
watch strap | for the vintage watch
cookbook | for the vegetarian recipes
jigsaw | for the wet afternoons
kettle | for the caravan
duvet | for the draughty loft
sketchbook | for the art class
skipping rope | for the boxing drills
lunchbox | for the packed lunches
thermos | for the dawn angling
doormat | for the muddy porch
backgammon set | for the tavern rematches
shower curtain | for the ensuite
tripod stand | for the vlogging
massage oil | for the sore shoulders
ear plugs | for the noisy neighbours
slippers | for the tiled floors
""")
"""Parity subjects for assistant-stated filler: same kind of recommendation, never asked."""

LIST_FACTS = _entries("""
playlist | for the motorway drive
reading list | for the book club
attendees | for the housewarming
watchlist | for the film festival
itinerary | for the coastal tour
shortlist | for the baby names
roster | for the football squad
seating plan | for the gala
lineup | for the talent show
speaker schedule | for the science expo
calling tree | for the residents association
guestbook | for the retirement party
tasting menu | for the harvest feast
mixtape | for the spin sessions
carpool rota | for the piano lessons
""")
"""Lists list-order questions ask about (each once)."""

LIST_PARITY = _entries("""
slideshow | for the reunion
puzzle rounds | for the trivia contest
raffle prizes | for the church fete
relay team | for the sports day
jukebox requests | for the engagement bash
photo album | for the graduation
programme | for the recital
bracket | for the chess tournament
sampler | for the whisky masterclass
vision collage | for the gap year
cast sheet | for the pantomime
volunteer shifts | for the food bank
route stops | for the cycling sportive
backlog | for the app project
agenda | for the committee meeting
dance partners | for the ceilidh
specials boards | for the bistro launch
pitch map | for the craft bazaar
adoption listings | for the animal shelter
exhibit labels | for the gallery wing
""")
"""Parity lists for list-order filler: other lists, never asked."""

TOPICS: tuple[str, ...] = (
    "the riverside market", "the corner pharmacy", "the village library", "the leisure complex",
    "the repair workshop", "the farm shop", "the museum cafe", "the bowling alley",
    "the hardware store", "the post office", "the dry cleaner", "the climbing gym",
    "the bus depot", "the community hall", "the ice rink",
)
"""Venues participant-attribution questions ask about (each once)."""

TOPIC_PARITY: tuple[str, ...] = (
    "the car wash", "the bakery", "the cinema", "the launderette", "the dental surgery",
    "the fuel forecourt", "the bookshop", "the tennis courts", "the recycling yard",
    "the antiques auction", "the skate park", "the town pool", "the flower stall",
    "the noodle bar", "the vet practice", "the tool exchange", "the pottery studio",
    "the railway halt", "the youth centre", "the fish counter", "the stationer",
    "the scooter hire kiosk", "the plant nursery", "the charity bookstall",
)
"""Venues for attribution filler (same-claim and parity remarks), never asked."""

PREDICATES: tuple[str, ...] = (
    "closes early in winter", "opens late at weekends", "shuts for an hour at lunch",
    "gets crowded after work", "only takes cards now", "is closed for repairs",
    "changed its opening hours", "has a new manager", "is being repainted", "runs a quiz night",
    "offers a student discount", "put its prices up again", "has a long queue most mornings",
    "moved to a bigger building", "hired extra staff", "stays open until midnight",
    "started a loyalty scheme", "lost power during the storm", "plans to close permanently",
    "got a glowing review", "is looking for volunteers", "has a broken lift",
)
"""Claims any venue can carry and either speaker can make: remark = venue + claim (arbitrary)."""

RECOMMEND_BODIES: tuple[str, ...] = (
    "For the {subject} {attribute}, I would recommend {value}.",
    "I would recommend {value} for the {subject} {attribute}.",
    "For the {subject} {attribute}, I recommend {value}.",
    "My recommendation for the {subject} {attribute} is {value}.",
)
"""Assistant recommendations (assistant-stated, gold and filler alike)."""

REQUESTS: tuple[str, ...] = (
    "I could use a suggestion.",
    "What would you pick here?",
    "Any ideas on this one?",
    "I am not sure what to choose.",
    "Help me decide on something.",
    "What do you think would work?",
)
"""Subject-free user requests that open the recommendation exchange (assistant-stated): the user
turn names no subject and no value, so the subject's words occur once per session, as in filler
echo, and no user turn can hold a recommended value."""

ADD_BODIES: tuple[str, ...] = (
    "I added {value} to the {subject} {attribute}.",
    "I put {value} on the {subject} {attribute}.",
    "To the {subject} {attribute}, I added {value}.",
    "On the {subject} {attribute}, I put {value}.",
)
"""User statements adding one item to one list (list-order); no ordinal words, no tense change."""

REMARK_BODIES: tuple[str, ...] = (
    "By the way, {subject} {attribute}.",
    "It turns out {subject} {attribute}.",
    "Quick note: {subject} {attribute}.",
    "From what I hear, {subject} {attribute}.",
)
"""Speaker-neutral remark constructions (participant-attribution): the same bytes from either
role (§2.2 rule 3: statements must sound natural from either speaker)."""

ATTRIBUTION_FRAMES: tuple[str, ...] = (
    "Who said that {remark}: me or you or both of us?",
    "Which of us mentioned that {remark}? Was it me or you or both of us?",
    "Who brought up that {remark}: me or you or both of us?",
    "Who was it that said {remark}: me or you or both of us?",
    "Who pointed out that {remark}: me or you or both of us?",
    "Which of us remarked that {remark}: me or you or both of us?",
)
"""One frame drawn per question (§2.2 rule 3): "me or you or both of us" without commas, so the
closed-choice detector reads k = 3 (§3.2)."""

RECOMMEND_QUESTION = "Which {noun} did you recommend {purpose}?"
LIST_QUESTION = "In what order did I add things to the {noun} {purpose}?"

USER_TALK: tuple[str, ...] = (
    "The weather turned chilly again this week. I dug out a thick scarf.",
    "I tried a new bread recipe over the weekend. It came out a bit dense.",
    "My neighbour lent me a good thriller. I am halfway through it.",
    "Work has been busy lately. I am coping, though.",
    "I finally cleared out the junk drawer. It took ages.",
    "We had friends over to eat. Everyone stayed late.",
    "I went for a long stroll by the canal. My legs ache now.",
    "The tram was late twice this week. I missed an appointment.",
    "My sister called to catch up. We talked for ages.",
    "I have been resting better recently. Going to bed early helps.",
    "We watched an old movie on the sofa. I dozed off near the end.",
    "Next door had a loud gathering. I barely slept.",
    "I burnt my toast again. Same as always.",
    "My cousin is visiting soon. I need to tidy up.",
    "I found an old letter in a box. It made me smile.",
    "I am trying to drink more water. I keep a bottle nearby.",
    "We lost at darts by one point. It stung a little.",
    "I made soup with leftover vegetables. It was decent.",
    "My favourite mug cracked on the floor. I kept the pieces.",
    "I reorganised my bookshelf by size. It looks cheerful.",
    "I walked to work to save on fares. It was pleasant.",
    "I am learning a few words of Italian. Pronunciation is hard.",
    "I spent the afternoon tidying the shed. It looks better.",
    "I tried meditation for ten minutes. My mind wandered.",
    "I watched the sunset from the hill. It was lovely.",
    "My nephew lost his first tooth. He was thrilled.",
    "The heating clanked all night. I should bleed the radiators.",
    "I bought a cheap rug for the lounge. It feels cosy.",
    "I have a cold coming on. Lots of honey and lemon for me.",
    "My phone battery dies by noon now. It is annoying.",
)
"""Small talk for user turns without a statement (assistant-stated, list-order)."""

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
    "Good, thanks for the detail.",
    "Thanks for keeping me posted.",
)
"""Assistant replies for assistant turns without a statement (assistant-stated, list-order)."""

NEUTRAL_TALK: tuple[str, ...] = (
    "Good point.",
    "That is worth knowing.",
    "Fair enough.",
    "Interesting, I had not heard that.",
    "That makes sense.",
    "Good to keep in mind.",
    "Noted.",
    "Huh, that is news to me.",
    "That is handy to know.",
    "Makes sense, thanks.",
    "Oh, interesting.",
    "I will keep that in mind.",
    "Good to hear.",
    "That explains a lot.",
    "Thanks for that.",
    "Understood.",
)
"""Role-neutral lines either participant can say (participant-attribution scaffold, both roles):
the role of a remark leaves no trace in the surrounding talk."""

ASSISTANT_SCAFFOLD = ScaffoldBanks(USER_TALK, ASSISTANT_TALK)

_VALUE_SYLLABLES = ("vel", "dask", "mor", "tiv", "quen", "lar", "brix", "sol", "nav", "keth", "ul",
                    "prem", "jast", "oro", "fen", "wyl", "cad", "ist")
"""Invented values are assembled from syllables that appear in no question (§4.1)."""


def _value_words() -> list[str]:
    return sorted({(a + b).capitalize() for a in _VALUE_SYLLABLES for b in _VALUE_SYLLABLES
                   if a != b})


RECOMMEND_GOLD_WORDS: tuple[str, ...] = tuple(_value_words()[0::4])
RECOMMEND_PARITY_WORDS: tuple[str, ...] = tuple(_value_words()[1::4])
LIST_GOLD_WORDS: tuple[str, ...] = tuple(_value_words()[2::4])
LIST_PARITY_WORDS: tuple[str, ...] = tuple(_value_words()[3::4])
"""Four disjoint value pools, interleaved from one sorted list so they look alike: assistant-stated
gold and filler, list-order gold and filler. No user turn can say an assistant-stated value: the
only values a user turn states are list items, from the list pools."""
VALUE_WORDS = frozenset(w.lower() for w in _value_words())
_VALUE_PATTERN = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z]+)\b")
_VALUE = r"(?P<value>[A-Z][a-z]+ [A-Z][a-z]+)"


def _construction_bank() -> ConstructionBank:
    constructions: list[Construction] = []
    for index, body in enumerate(RECOMMEND_BODIES):
        constructions.append(Construction(f"A{index}", "recommend", body, True))
    for index, body in enumerate(REQUESTS):
        constructions.append(Construction(f"Q{index}", "request", body, False))
    for index, body in enumerate(ADD_BODIES):
        constructions.append(Construction(f"L{index}", "add", body, True))
    for index, body in enumerate(REMARK_BODIES):
        constructions.append(Construction(f"P{index}", "remark", body, False))
    return ConstructionBank(constructions)


CONSTRUCTIONS = _construction_bank()


def _template_words(templates: Sequence[str]) -> frozenset[str]:
    return content_words(re.sub(r"\{\w+\}", " ", t) for t in templates)


FRAME_WORDS = _template_words([*RECOMMEND_BODIES, *REQUESTS, *ADD_BODIES, *REMARK_BODIES])
QUESTION_FRAME_WORDS = _template_words([*ATTRIBUTION_FRAMES, RECOMMEND_QUESTION, LIST_QUESTION])
SCAFFOLD_WORDS = content_words(USER_TALK + ASSISTANT_TALK + NEUTRAL_TALK)
_CONNECTIVES = frozenset({"for", "the"})


def _subject_words(entries: Sequence[Entry]) -> frozenset[str]:
    return frozenset(w for e in entries for w in raw_tokens(e.anchor) if w not in _CONNECTIVES)


def _topic_words(topics: Sequence[str]) -> frozenset[str]:
    return frozenset(w for t in topics for w in raw_tokens(t) if w not in _CONNECTIVES)


SUBJECT_WORDS = (_subject_words(RECOMMEND_FACTS + RECOMMEND_PARITY + LIST_FACTS + LIST_PARITY)
                 | _topic_words(TOPICS + TOPIC_PARITY))
PREDICATE_WORDS = frozenset(tokenize(" ".join(PREDICATES)))
"""Content words (stopwords dropped) of the claims."""
ANSWER_WORDS = frozenset(w for choice in CHOICES for w in raw_tokens(choice))


def _assert_banks() -> None:
    """Import-time assertions (GENERATION.md "Checks that belong in every generator")."""
    everything = SCAFFOLD_WORDS | FRAME_WORDS | PAD_BANKS.vocabulary() | frozenset(
        raw_tokens(ECHO_LEAD_IN))
    assert_disjoint("subject banks", SUBJECT_WORDS, "scaffold, frames, pad and echo lead-in",
                    everything)
    assert_disjoint("subject banks", SUBJECT_WORDS, "claims", PREDICATE_WORDS)
    # Claims appear only in attribution haystacks, whose scaffold is the role-neutral bank.
    assert_disjoint("claims", PREDICATE_WORDS, "attribution scaffold, remark frames, pad and echo "
                    "lead-in", content_words(NEUTRAL_TALK) | _template_words(REMARK_BODIES)
                    | PAD_BANKS.vocabulary() | frozenset(raw_tokens(ECHO_LEAD_IN)))
    assert_disjoint("values", VALUE_WORDS, "every bank",
                    everything | SUBJECT_WORDS | PREDICATE_WORDS | QUESTION_FRAME_WORDS)
    assert_disjoint("question frames", tokenize(" ".join((*ATTRIBUTION_FRAMES, RECOMMEND_QUESTION,
                                                          LIST_QUESTION))),
                    "haystack vocabulary", SCAFFOLD_WORDS | SUBJECT_WORDS | PREDICATE_WORDS
                    | PAD_BANKS.vocabulary() | (FRAME_WORDS - {"recommend"}))
    pools = (RECOMMEND_GOLD_WORDS, RECOMMEND_PARITY_WORDS, LIST_GOLD_WORDS, LIST_PARITY_WORDS)
    for i, first in enumerate(pools):
        for second in pools[i + 1:]:
            assert_disjoint("value pool", {w.lower() for w in first}, "value pool",
                            {w.lower() for w in second})
    # Each subject's words belong to it alone (a gram mixing a subject word with frame words then
    # sits in one question's sessions only), and nouns / venues are unique.
    owners = Counter(w for e in RECOMMEND_FACTS + RECOMMEND_PARITY + LIST_FACTS + LIST_PARITY
                     for w in set(raw_tokens(e.anchor)) - _CONNECTIVES)
    owners.update(w for t in TOPICS + TOPIC_PARITY for w in set(raw_tokens(t)) - _CONNECTIVES)
    shared = sorted(w for w, count in owners.items() if count > 1)
    assert not shared, f"subject entries share words {shared}"
    for entry in RECOMMEND_FACTS + RECOMMEND_PARITY + LIST_FACTS + LIST_PARITY:
        assert entry.purpose.startswith("for the ") and entry.anchor == entry.anchor.lower(), entry
        assert len(tokenize(entry.anchor)) >= 2, entry
    for topic in TOPICS + TOPIC_PARITY:
        assert topic.startswith("the ") and topic == topic.lower() and len(tokenize(topic)) >= 1
    assert len(set(PREDICATES)) == len(PREDICATES)
    for predicate in PREDICATES:
        words = raw_tokens(predicate)
        assert not set(words) & (ANSWER_WORDS | {"i", "my", "your", "we", "our"}), predicate
        assert not re.search(r"[\d\u2013\u2014,]", predicate), predicate
    for frame in ATTRIBUTION_FRAMES:
        assert frame.endswith("me or you or both of us?") and "," not in frame, frame
    for construction in CONSTRUCTIONS:
        value = "Velmor Dasktiv" if construction.states_value else None
        if construction.kind == "remark":
            statement = Statement("remark", "the farm shop", "only takes cards now", None,
                                  construction.construction_id)
        else:
            statement = Statement(construction.kind, "campsite", "for the lake trip", value,
                                  construction.construction_id)
        text = CONSTRUCTIONS.render(statement)
        assert "{" not in text and "  " not in text and text[0].isupper(), text
        assert text.endswith((".", "?")), text
        if construction.kind in ("recommend", "add"):
            assert "campsite for the lake trip" in text, f"{construction.construction_id}: no subject"
        if construction.kind == "remark":
            assert "the farm shop only takes cards now." in text, construction.construction_id
    for line in NEUTRAL_TALK + USER_TALK + ASSISTANT_TALK:
        assert not re.search(r"[\d\u2013\u2014]", line), line


_assert_banks()


# --------------------------------------------------------------------------------------------
# Planning


@dataclass
class Slot:
    """What the session at one haystack position says (one statement, gold or not)."""

    kind: str
    """``recommend``, ``add`` or ``remark``."""
    subject: str
    """Recommend/add: the entry noun; remark: the venue."""
    attribute: str
    """Recommend/add: the entry purpose; remark: the claim."""
    value: str | None
    speaker: Role
    about_asked: bool
    """The statement concerns the asked subject (gold, or an attribution near-miss): such a session
    echoes no question word (the symmetric echo rule, blind to gold status)."""
    own_words: frozenset[str]
    """Echo-relevant words of the statement's subject (never drawn as its neutral echo words)."""


@dataclass
class Haystack:
    key: str
    shape: str
    n: int
    slots: list[Slot]
    source: frozenset[str]
    """Echo source: the asked subject's (venue's) words."""
    knob: float
    times: list[datetime] = field(default_factory=list)
    question_time: datetime | None = None
    session_ids: list[str] = field(default_factory=list)
    sessions: list[list[DraftTurn]] = field(default_factory=list)
    statement_turns: list[int] = field(default_factory=list)
    echo_terms: list[tuple[str, ...]] = field(default_factory=list)


def _values(rng: random.Random, words: Sequence[str], count: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < count:
        first, last = rng.sample(list(words), 2)
        if first in taken or last in taken:
            continue
        taken |= {first, last}
        out.append(f"{first} {last}")
    return out


def _stamp(seed: int, stay: Haystack, rng: random.Random) -> None:
    moment = datetime(2025, 2, 3, 8, 0) + timedelta(days=rng.randint(0, 420),
                                                    minutes=rng.randint(0, 600))
    for _ in range(stay.n):
        stay.times.append(moment)
        moment += timedelta(days=rng.randint(1, 3), minutes=rng.randint(-300, 300))
    stay.question_time = stay.times[-1] + timedelta(days=rng.randint(1, 4),
                                                    minutes=rng.randint(0, 500))
    stay.session_ids = [
        "sess-" + hashlib.sha256(f"{seed}:{VERTICAL}:{stay.key}:{i}".encode()).hexdigest()[:10]
        for i in range(stay.n)]
    if len(set(stay.session_ids)) != stay.n:
        raise GenerationError(f"{stay.key}: session id collision")


def _plan_recommend(seed: int, key: str, asked: Entry, knob: float) -> tuple[Haystack, list[int]]:
    rng = derive_rng(seed, VERTICAL, key, "plan")
    h = rng.randint(*H_RANGE)
    n = h + 1
    gold = rng.randrange(n)
    taken: set[str] = set()
    gold_value = _values(rng, RECOMMEND_GOLD_WORDS, 1, taken)[0]
    parity = rng.sample(list(RECOMMEND_PARITY), h)
    parity_values = _values(rng, RECOMMEND_PARITY_WORDS, h, taken)
    slots: list[Slot] = []
    filler = iter(zip(parity, parity_values))
    for position in range(n):
        if position == gold:
            entry, value, about = asked, gold_value, True
        else:
            entry, value = next(filler)
            about = False
        slots.append(Slot("recommend", entry.noun, entry.purpose, value, "assistant", about,
                          entry.words))
    stay = Haystack(key, "assistant-stated", n, slots, asked.words, knob)
    _stamp(seed, stay, rng)
    return stay, [gold]


def _filler_lengths(rng: random.Random, total: int) -> list[int]:
    lengths: list[int] = []
    while sum(lengths) < total:
        lengths.append(min(rng.randint(*FILLER_LIST_LENGTH), total - sum(lengths)))
    return lengths


def _plan_list(seed: int, key: str, asked: Entry, length: int, knob: float
               ) -> tuple[Haystack, list[int]]:
    rng = derive_rng(seed, VERTICAL, key, "plan")
    h = rng.randint(*H_RANGE)
    n = h + length
    gold = sorted(rng.sample(range(n), length))
    taken: set[str] = set()
    items = _values(rng, LIST_GOLD_WORDS, length, taken)
    lengths = _filler_lengths(rng, h)
    lists = rng.sample(list(LIST_PARITY), len(lengths))
    filler_entries = [entry for entry, count in zip(lists, lengths) for _ in range(count)]
    rng.shuffle(filler_entries)
    filler_values = _values(rng, LIST_PARITY_WORDS, h, taken)
    slots: list[Slot] = []
    gold_items = iter(items)
    filler = iter(zip(filler_entries, filler_values))
    for position in range(n):
        if position in gold:
            entry, value, about = asked, next(gold_items), True
        else:
            entry, value = next(filler)
            about = False
        slots.append(Slot("add", entry.noun, entry.purpose, value, "user", about, entry.words))
    stay = Haystack(key, "list-order", n, slots, asked.words, knob)
    _stamp(seed, stay, rng)
    return stay, gold


def _plan_attribution(seed: int, key: str, topic: str, stated_by: str, knob: float
                      ) -> tuple[Haystack, list[int], str]:
    rng = derive_rng(seed, VERTICAL, key, "plan")
    h = rng.randint(*H_RANGE)
    g = 2 if stated_by == "both" else 1
    n = h + g
    claim = rng.choice(PREDICATES)
    order = list(range(n))
    rng.shuffle(order)
    gold = sorted(order[:g])
    near = rng.randint(*NEAR_MISS)
    same = rng.randint(*SAME_CLAIM)
    near_positions = order[g:g + near]
    same_positions = order[g + near:g + near + same]
    parity_positions = order[g + near + same:]
    others = [p for p in PREDICATES if p != claim]
    venues = list(TOPIC_PARITY)
    rng.shuffle(venues)
    same_venues = venues[:same]
    parity_pool = venues[same:]
    speakers: list[Role] = ["user", "assistant"]
    rng.shuffle(speakers)
    by_answer: dict[str, list[Role]] = {"user": ["user"], "assistant": ["assistant"],
                                        "both": speakers}
    gold_speakers = by_answer[stated_by]
    slots: list[Slot | None] = [None] * n
    topic_words = frozenset(tokenize(topic))
    for position, speaker in zip(gold, gold_speakers):
        slots[position] = Slot("remark", topic, claim, None, speaker, True, topic_words)
    for position, other in zip(near_positions, rng.sample(others, near)):
        slots[position] = Slot("remark", topic, other, None, rng.choice(ROLES), True, topic_words)
    for position, venue in zip(same_positions, same_venues):
        slots[position] = Slot("remark", venue, claim, None, rng.choice(ROLES), False,
                               frozenset(tokenize(venue)))
    used: set[tuple[str, str]] = set()
    venue_count = max(1, (len(parity_positions) + 1) // 2)
    chosen = parity_pool[:venue_count]
    for position in parity_positions:
        while True:
            venue, other = rng.choice(chosen), rng.choice(others)
            if (venue, other) not in used:
                break
        used.add((venue, other))
        slots[position] = Slot("remark", venue, other, None, rng.choice(ROLES), False,
                               frozenset(tokenize(venue)))
    assert all(slot is not None for slot in slots)
    stay = Haystack(key, "participant-attribution", n, [s for s in slots if s is not None],
                    topic_words, knob)
    _stamp(seed, stay, rng)
    return stay, gold, claim


def _plan_echo(seed: int, stay: Haystack) -> list[EchoPlan]:
    """Per session the echo clause: ``k`` source words (0 for sessions about the asked subject,
    else dithered from ``knob * |source|``) plus one or two neutral words of the haystack's other
    subjects (never the session's own), on alternating roles from a random start, uniform slot.
    Blind to which sessions any answer key points at."""
    rng = derive_rng(seed, VERTICAL, stay.key, "echo")
    size = len(stay.source)
    expected = [0.0 if slot.about_asked else stay.knob * size for slot in stay.slots]
    counts = [min(k, size) for k in dither(expected, rng)]
    parity_words = frozenset().union(*(slot.own_words for slot in stay.slots)) - stay.source
    role_offset = rng.randrange(2)
    plans: list[EchoPlan] = []
    for position, slot in enumerate(stay.slots):
        terms = draw_terms(stay.source, counts[position], rng)
        neutral = draw_terms(parity_words - slot.own_words, rng.choice(NEUTRAL_TERMS), rng)
        listed = terms + neutral
        rng.shuffle(listed)
        if not listed:
            raise GenerationError(f"{stay.key}: session {position} has no echo term")
        role = ROLES[(position + role_offset) % 2]
        plans.append(EchoPlan(tuple(listed), role, rng.randrange(EXCHANGES)))
    return plans


def _neutral_scaffold(rng: random.Random) -> ScaffoldBanks:
    lines = list(NEUTRAL_TALK)
    rng.shuffle(lines)
    half = len(lines) // 2
    return ScaffoldBanks(tuple(lines[:half]), tuple(lines[half:]))


def _render(seed: int, stay: Haystack) -> None:
    rng = derive_rng(seed, VERTICAL, stay.key, "render")
    echoes = _plan_echo(seed, stay)
    for position, slot in enumerate(stay.slots):
        exchange = rng.randrange(EXCHANGES)
        if slot.kind == "recommend":
            request = Statement("request", "", "", None, f"Q{rng.randrange(len(REQUESTS))}")
            said = Statement("recommend", slot.subject, slot.attribute, slot.value,
                             f"A{rng.randrange(len(RECOMMEND_BODIES))}")
            statements: tuple[Statement, ...] = (request, said)
            placements: tuple[Placement, ...] = (Placement("user", exchange),
                                                 Placement("assistant", exchange))
            scaffold = ASSISTANT_SCAFFOLD
        elif slot.kind == "add":
            statements = (Statement("add", slot.subject, slot.attribute, slot.value,
                                    f"L{rng.randrange(len(ADD_BODIES))}"),)
            placements = (Placement("user", exchange),)
            scaffold = ASSISTANT_SCAFFOLD
        else:
            statements = (Statement("remark", slot.subject, slot.attribute, None,
                                    f"P{rng.randrange(len(REMARK_BODIES))}"),)
            placements = (Placement(slot.speaker, exchange),)
            scaffold = _neutral_scaffold(rng)
        plan = SessionPlan(EXCHANGES, statements, placements, echoes[position])
        rendered = render_session(plan, CONSTRUCTIONS, scaffold, rng)
        stay.sessions.append(rendered.turns)
        stay.statement_turns.append(rendered.statement_turns[-1])
        stay.echo_terms.append(echoes[position].terms)
    mappings = align_roles(stay.sessions)
    stay.statement_turns = [mapping[turn] for mapping, turn in zip(mappings, stay.statement_turns)]
    reserved = SUBJECT_WORDS | PREDICATE_WORDS | VALUE_WORDS | ANSWER_WORDS
    pad_haystack(stay.sessions, derive_rng(seed, VERTICAL, stay.key, "pad"), reserved=reserved)


# --------------------------------------------------------------------------------------------
# Reading back from the text (V5) and the validity rules


def _body_pattern(bodies: Sequence[str], subject: str, attribute: str) -> re.Pattern[str]:
    """One regex over ``bodies`` with the subject filled in and the value captured."""
    alternatives = []
    for index, body in enumerate(bodies):
        escaped = re.escape(body)
        escaped = escaped.replace(r"\{subject\}", re.escape(subject))
        escaped = escaped.replace(r"\{attribute\}", re.escape(attribute))
        escaped = escaped.replace(r"\{value\}", _VALUE.replace("value", f"v{index}"))
        alternatives.append(f"(?:{escaped})")
    return re.compile("|".join(alternatives))


@dataclass(frozen=True)
class Said:
    """One statement read back from the text: where, by whom, and the value it states."""

    session: int
    turn: int
    role: str
    value: str | None


def read_statements(sessions: Sequence[Sequence[tuple[str, str]]], kind: str, subject: str,
                    attribute: str) -> list[Said]:
    """Every statement of ``kind`` about (subject, attribute) in the rendered sessions, read from
    the texts (``(role, text)`` per turn) alone, never from the plan. Any turn naming the subject
    that no construction of ``kind`` reads is an error (an unreadable mention)."""
    bodies = {"recommend": RECOMMEND_BODIES, "add": ADD_BODIES, "remark": REMARK_BODIES}[kind]
    pattern = _body_pattern(bodies, subject, attribute)
    anchor = f"{subject} {attribute}"
    found: list[Said] = []
    for s_index, turns in enumerate(sessions):
        for t_index, (role, text) in enumerate(turns):
            if anchor not in text:
                continue
            matches = list(pattern.finditer(text))
            if len(matches) != 1 or text.count(anchor) != 1:
                raise GenerationError(f"cannot read {anchor!r} in {text!r}")
            value = next((v for v in matches[0].groupdict().values() if v), None)
            found.append(Said(s_index, t_index, role, value))
    return found


def _texts(stay: Haystack) -> list[list[tuple[str, str]]]:
    return [[(turn.role, turn.text) for turn in session] for session in stay.sessions]


def _check_values_named(stay: Haystack) -> None:
    """Per turn: a turn that states a value names the subject the value belongs to."""
    owners = {slot.value: f"{slot.subject} {slot.attribute}" for slot in stay.slots if slot.value}
    for index, session in enumerate(stay.sessions):
        for turn in session:
            for match in _VALUE_PATTERN.finditer(turn.text):
                first, last = match.groups()
                if not {first.lower(), last.lower()} & VALUE_WORDS:
                    continue
                value = match.group(0)
                if value not in owners:
                    raise GenerationError(f"{stay.key} session {index}: value-shaped {value!r} "
                                          "belongs to no statement of this haystack")
                if owners[value] not in turn.text:
                    raise GenerationError(f"{stay.key} session {index}: {value!r} stated without "
                                          f"its subject {owners[value]!r}: {turn.text!r}")
            stated = {w.lower() for v in owners if v in turn.text for w in v.split()}
            for word in raw_tokens(turn.text):
                if word in VALUE_WORDS and word not in stated:
                    raise GenerationError(f"{stay.key} session {index}: value word {word!r} "
                                          f"outside a full value: {turn.text!r}")


def _check_haystack(stay: Haystack) -> None:
    joined = "\n".join(turn.text for session in stay.sessions for turn in session)
    if re.search(r"[\d\u2013\u2014]", joined):
        raise GenerationError(f"{stay.key}: digits or dashes in the haystack")
    for earlier, later in zip(stay.times, stay.times[1:]):
        if not earlier < later:
            raise GenerationError(f"{stay.key}: timestamps not strictly increasing")
    if stay.question_time is None or not stay.question_time > stay.times[-1]:
        raise GenerationError(f"{stay.key}: the question must come after the last session")
    _check_values_named(stay)
    for position, terms in enumerate(stay.echo_terms):
        if set(terms) & (ANSWER_WORDS | VALUE_WORDS | PREDICATE_WORDS):
            raise GenerationError(f"{stay.key} session {position}: echo carries answer material "
                                  f"{sorted(set(terms) & (ANSWER_WORDS | VALUE_WORDS))}")
        if stay.slots[position].about_asked and set(terms) & stay.source:
            raise GenerationError(f"{stay.key} session {position}: a session about the asked "
                                  "subject echoes the question")


def _gold_recommend(stay: Haystack, asked: Entry) -> tuple[str, list[int], list[Said]]:
    """V5: the value the assistant recommended for the asked subject, from the text alone."""
    said = read_statements(_texts(stay), "recommend", asked.noun, asked.purpose)
    if len(said) != 1:
        raise GenerationError(f"{stay.key}: {asked.anchor!r} recommended {len(said)} times")
    if said[0].role != "assistant" or said[0].value is None:
        raise GenerationError(f"{stay.key}: the recommendation is not an assistant value")
    return said[0].value, [said[0].session], said


def _gold_list(stay: Haystack, asked: Entry) -> tuple[list[str], list[int], list[Said]]:
    """V5: the asked list's items in session order, each in exactly one session, from the text."""
    said = read_statements(_texts(stay), "add", asked.noun, asked.purpose)
    sessions = [s.session for s in said]
    if len(set(sessions)) != len(sessions):
        raise GenerationError(f"{stay.key}: two items of the asked list in one session")
    if not LIST_LENGTH[0] <= len(said) <= LIST_LENGTH[1]:
        raise GenerationError(f"{stay.key}: the asked list has {len(said)} items")
    items = [s.value for s in sorted(said, key=lambda s: s.session)]
    if any(item is None for item in items) or any(s.role != "user" for s in said):
        raise GenerationError(f"{stay.key}: a list item is not a user-stated value")
    texts = ["\n".join(turn.text for turn in session) for session in stay.sessions]
    for item in items:
        assert item is not None
        holding = [i for i, text in enumerate(texts) if item in text]
        if len(holding) != 1:
            raise GenerationError(f"{stay.key}: item {item!r} occurs in sessions {holding}, not one")
    return [item for item in items if item is not None], sorted(sessions), said


def _gold_attribution(stay: Haystack, topic: str, claim: str) -> tuple[str, list[int], list[Said]]:
    """V5: who made the quoted remark, from the text alone: the set of speakers over every session
    that says it ("me" = user, "you" = assistant, both = "both of us")."""
    said = read_statements(_texts(stay), "remark", topic, claim)
    roles = sorted({s.role for s in said})
    sessions = sorted(s.session for s in said)
    if len(set(sessions)) != len(sessions):
        raise GenerationError(f"{stay.key}: the remark occurs twice in one session")
    if roles == ["user"] and len(said) == 1:
        return "user", sessions, said
    if roles == ["assistant"] and len(said) == 1:
        return "assistant", sessions, said
    if roles == ["assistant", "user"] and len(said) == 2:
        return "both", sessions, said
    raise GenerationError(f"{stay.key}: the remark is said {len(said)} times by {roles}")


# --------------------------------------------------------------------------------------------
# Records


def _band(distance: int, n: int) -> int:
    return 1 + min(4, (5 * distance) // n)


def _record(stay: Haystack, question_id: str, question: str, answer: str, gold_turns: Sequence[Said],
            block: dict[str, Any]) -> dict[str, Any]:
    flagged = {(s.session, s.turn) for s in gold_turns}
    sessions = []
    for position, session in enumerate(stay.sessions):
        sessions.append([{"role": turn.role, "content": turn.text,
                          "has_answer": (position, t_index) in flagged}
                         for t_index, turn in enumerate(session)])
    gold = sorted({s.session for s in gold_turns})
    assert stay.question_time is not None
    return {
        "question_id": question_id,
        "question_type": stay.shape,
        "question": question,
        "answer": answer,
        "question_date": format_corpus_date(stay.question_time),
        "haystack_session_ids": list(stay.session_ids),
        "haystack_dates": [format_corpus_date(moment) for moment in stay.times],
        "haystack_sessions": sessions,
        "answer_session_ids": [stay.session_ids[i] for i in gold],
        "typedmemeval": {"vertical": VERTICAL, "shape": stay.shape, "memory_type": MEMORY_TYPE,
                         **block},
    }


def _key(**fields: Any) -> dict[str, Any]:
    key = {name: list(value) if isinstance(value, (list, tuple)) else value
           for name, value in fields.items() if value not in (None, (), [])}
    AnswerKey.model_validate(key)
    return key


def _components(said: Sequence[Said], kind: str | None = None) -> list[dict[str, Any]]:
    return [{"kind": kind or f"{s.role}_statement", "session_index": s.session,
             "memory_type": MEMORY_TYPE} for s in sorted(said, key=lambda s: s.session)]


def _recommend_record(stay: Haystack, asked: Entry, question_id: str) -> dict[str, Any]:
    value, gold, said = _gold_recommend(stay, asked)
    others = [slot.value for slot in stay.slots if slot.value and slot.value != value]
    distance = stay.n - 1 - gold[-1]
    block = {"answer_key": _key(accepted=[value], wrong=others), "stated_by": "assistant",
             "gold_components": _components(said),
             "dial": {"name": "sessions_after_gold", "value": distance},
             "difficulty": _band(distance, stay.n)}
    question = RECOMMEND_QUESTION.format(noun=asked.noun, purpose=asked.purpose)
    return _record(stay, question_id, question, value, said, block)


def _list_record(stay: Haystack, asked: Entry, question_id: str) -> dict[str, Any]:
    items, gold, said = _gold_list(stay, asked)
    others = [slot.value for slot in stay.slots if slot.value and slot.value not in items]
    ordered = sorted(items)
    by_item = {s.value: s.session for s in said}
    block = {"answer_key": _key(list_order=items, wrong=others), "stated_by": "user",
             "gold_components": _components(said, "item"),
             "gold_components_load_bearing": True,
             "list_order": {"items": ordered,
                            "presented_order": [ordered.index(item) for item in items],
                            "session_indices": [by_item[item] for item in ordered]},
             "dial": {"name": "list_length", "value": len(items)},
             "difficulty": len(items) - LIST_LENGTH[0] + 1}
    question = LIST_QUESTION.format(noun=asked.noun, purpose=asked.purpose)
    return _record(stay, question_id, question, ", ".join(items), said, block)


def _attribution_record(stay: Haystack, topic: str, claim: str, frame: str, question_id: str
                        ) -> dict[str, Any]:
    stated_by, gold, said = _gold_attribution(stay, topic, claim)
    answer = ANSWER_FOR[stated_by]
    distance = stay.n - 1 - gold[-1]
    block: dict[str, Any] = {
        "answer_key": _key(accepted=[answer], wrong=[c for c in CHOICES if c != answer],
                           choices=list(CHOICES)),
        "stated_by": stated_by, "instruction": ATTRIBUTION_INSTRUCTION,
        "gold_components": _components(said),
        "dial": {"name": "sessions_after_gold", "value": distance},
        "difficulty": _band(distance, stay.n)}
    if stated_by == "both":
        block["gold_components_load_bearing"] = True
    question = frame.format(remark=f"{topic} {claim}")
    return _record(stay, question_id, question, answer, said, block)


def _judge_gold(record: dict[str, Any]) -> None:
    """The mechanical judge must grade the gold correct (and, for attribution, each other option
    wrong: pronoun answers are fragile, so the three options are checked against each other)."""
    key = AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
    verdict = judge_answer(record["answer"], key)
    if verdict.outcome is not Outcome.CORRECT:
        raise GenerationError(f"{record['question_id']}: the mechanical judge grades the gold "
                              f"answer {verdict.outcome.value} ({verdict.reason})")
    for choice in key.choices:
        if choice != record["answer"] and judge_answer(choice, key).outcome is not Outcome.WRONG:
            raise GenerationError(f"{record['question_id']}: option {choice!r} is not graded wrong")
        if choice == record["answer"] and judge_answer(f"{choice}.", key).outcome is not Outcome.CORRECT:
            raise GenerationError(f"{record['question_id']}: {choice!r}. is not graded correct")


def _user_turn_tokens(records: Sequence[dict[str, Any]]) -> tuple[set[str], list[str]]:
    tokens: set[str] = set()
    texts: list[str] = []
    for record in records:
        for session in record["haystack_sessions"]:
            for turn in session:
                if turn["role"] == "user":
                    tokens.update(raw_tokens(turn["content"]))
                    texts.append(turn["content"])
    return tokens, texts


def screen_assistant_stated(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """§2.2 rule 1, lexical pass: no assistant-stated gold value, nor any word of it, in any user
    turn anywhere in ``records``. Returns the screen's record; raises on a hit (a hard error)."""
    tokens, texts = _user_turn_tokens(records)
    joined = "\n".join(texts).lower()
    checked = 0
    for record in records:
        if record["typedmemeval"]["shape"] != "assistant-stated":
            continue
        checked += 1
        answer = record["answer"]
        hits = sorted(set(raw_tokens(answer)) & tokens)
        if hits or answer.lower() in joined:
            raise GenerationError(f"{record['question_id']}: the assistant-stated gold {answer!r} "
                                  f"reaches a user turn ({hits or answer})")
    return {"method": "lexical: every gold unigram and the whole value against every user turn",
            "questions": checked, "user_turns": len(texts), "hits": 0}


def _check_rarity(records: Sequence[dict[str, Any]], sources: Mapping[str, frozenset[str]]) -> None:
    """Question subject words stay rare (< 10% of session slots), as the V7 relevance exemption
    needs."""
    holding: Counter[str] = Counter()
    total = 0
    for record in records:
        for session in record["haystack_sessions"]:
            total += 1
            holding.update(set(raw_tokens(" ".join(t["content"] for t in session))))
    for record in records:
        for word in sources[record["question_id"]]:
            if holding[word] >= RARE_SHARE * total:
                raise GenerationError(f"{record['question_id']}: question word {word!r} is in "
                                      f"{holding[word]} of {total} sessions (>= {RARE_SHARE:.0%})")


def _spread(count: int, low: int, high: int) -> list[int]:
    return [low + (i * (high - low + 1)) // count for i in range(count)]


def _knobs(echo_by_shape: Mapping[str, float]) -> dict[str, float]:
    knobs: dict[str, float] = {}
    for shape in CALIBRATED_SHAPES:
        value = float(echo_by_shape[shape])
        if not 0.0 <= value <= 1.0:
            raise GenerationError(f"echo for {shape} must lie in [0, 1], got {value}")
        knobs[shape] = value
    mean = sum(knobs.values()) / len(knobs)
    for shape in SHAPES:
        knobs.setdefault(shape, mean)
    return knobs


@lru_cache(maxsize=8)
def _build_shape(seed: int, shape: str, knob: float) -> str:
    """One shape's records as JSON text (records plus the echo source per question), cached so
    the calibration search rebuilds only the shape it moves."""
    layout = derive_rng(seed, VERTICAL, shape, "layout")
    first = FIRST_NUMBER[shape]
    records: list[dict[str, Any]] = []
    sources: dict[str, list[str]] = {}
    if shape == "assistant-stated":
        asked = list(RECOMMEND_FACTS)
        layout.shuffle(asked)
        for index, entry in enumerate(asked[:N_BY_SHAPE[shape]]):
            qid = f"tme-{ABBREV}-{first + index:03d}"
            stay, _ = _plan_recommend(seed, f"recommend-{index + 1:02d}", entry, knob)
            _render(seed, stay)
            _check_haystack(stay)
            records.append(_recommend_record(stay, entry, qid))
            sources[qid] = sorted(stay.source)
    elif shape == "list-order":
        asked = list(LIST_FACTS)
        layout.shuffle(asked)
        lengths = _spread(N_BY_SHAPE[shape], *LIST_LENGTH)
        layout.shuffle(lengths)
        for index, entry in enumerate(asked[:N_BY_SHAPE[shape]]):
            qid = f"tme-{ABBREV}-{first + index:03d}"
            stay, _ = _plan_list(seed, f"list-{index + 1:02d}", entry, lengths[index], knob)
            _render(seed, stay)
            _check_haystack(stay)
            records.append(_list_record(stay, entry, qid))
            sources[qid] = sorted(stay.source)
    else:
        topics = list(TOPICS)
        layout.shuffle(topics)
        count = N_BY_SHAPE[shape]
        answers = [stated for stated in ("user", "assistant", "both") for _ in range(count // 3)]
        layout.shuffle(answers)
        for index, topic in enumerate(topics[:count]):
            qid = f"tme-{ABBREV}-{first + index:03d}"
            frame = layout.choice(ATTRIBUTION_FRAMES)
            stay, _, claim = _plan_attribution(seed, f"attribution-{index + 1:02d}", topic,
                                               answers[index], knob)
            _render(seed, stay)
            _check_haystack(stay)
            records.append(_attribution_record(stay, topic, claim, frame, qid))
            sources[qid] = sorted(stay.source)
    for record in records:
        QuestionRecord.model_validate(record)
        _judge_gold(record)
    return json.dumps({"records": records, "sources": sources}, sort_keys=True)


def build_records(seed: int, echo_by_shape: Mapping[str, float], *,
                  shapes: Sequence[str] = SHAPES) -> list[dict[str, Any]]:
    """The corpus as plain records in id order (deterministic in seed and echo).

    ``shapes`` limits which haystacks are built (calibration builds only the calibrated shapes);
    the records of a shape depend only on the seed and that shape's applied echo.
    """
    knobs = _knobs(echo_by_shape)
    records: list[dict[str, Any]] = []
    sources: dict[str, frozenset[str]] = {}
    for shape in SHAPES:
        if shape not in shapes:
            continue
        built = json.loads(_build_shape(seed, shape, knobs[shape]))
        records += built["records"]
        sources.update({qid: frozenset(words) for qid, words in built["sources"].items()})
    records.sort(key=lambda record: record["question_id"])
    screen_assistant_stated(records)
    if set(shapes) == set(SHAPES):
        _check_rarity(records, sources)
    return records


__all__ = [
    "ATTRIBUTION_FRAMES", "ATTRIBUTION_INSTRUCTION", "CALIBRATED_SHAPES", "CALIBRATION_RECORD",
    "CHOICES", "GENERATOR", "GENERATOR_VERSION", "PREDICATES", "RECORDED_ECHO", "SEED", "SHAPES",
    "VERTICAL", "build_records", "read_statements", "screen_assistant_stated",
]
