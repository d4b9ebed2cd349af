"""The one template machinery every generator renders through (GENERATION.md, VERTICALS.md §4).

The rule it exists to keep: **no rendering function knows whether it is rendering gold.** A
vertical module plans each haystack (which facts, which sessions, which echo terms), renders every
session through :func:`render_session`, aligns role sequences with :func:`align_roles`, pads every
turn slot with :func:`pad_haystack`, and only then — outside the text path — marks ``has_answer``
on the turns its bookkeeping says hold the asked fact. Gold and filler therefore share one code
path; the only things that can differ are the *values* (instance vocabulary) and the *plan*, and a
generator keeps the plan's distributions identical for gold and filler sessions.

Pieces, in pipeline order:

- :func:`derive_rng`: one ``random.Random`` per (vertical seed, key...), never the global generator
  or the clock, so changing one question does not reshuffle the rest.
- :class:`Statement`, :class:`Construction`, :class:`ConstructionBank`: the same construction
  bank renders gold and filler statements; they differ in subject and value.
- :class:`SessionPlan`, :class:`EchoPlan`, :func:`render_session`: scaffold turns drawn per turn
  slot from shared banks (:class:`ScaffoldBanks`), statements placed where the plan says, the echo
  clause (:func:`echo_clause`) attached where the plan says.
- :func:`dither`: the gold-blind counter that hands out integer shares (echo terms, clause
  presence) so every group of sessions gets its share exactly rather than by chance.
- :func:`align_roles`: every session of a haystack aligned to one common supersequence of role
  sequences by inserting empty turns only (§4.4).
- :func:`pad_haystack`: six raw counts (characters, capitals, sentences, punctuation, tokens,
  distinct tokens) equalised *exactly* per turn slot with levers that each move one count (§4.3).
- :func:`dump_json`: the deterministic writer.

Import-time assertions here cover the machinery's own banks (pad vocabulary disjoint from scaffold
vocabulary, one capital and no punctuation per pad word, echo clause recognised by the calibration
gate). A vertical asserts its own banks against these with :func:`assert_disjoint` and
:func:`assert_person_invariant`.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..gates.calibration import ECHO_CLAUSE_PATTERN
from ..gates.features import count_sentences
from ..retrieval.tokenizer import raw_tokens, tokenize

Role = Literal["user", "assistant"]
ROLES: tuple[Role, Role] = ("user", "assistant")


class GenerationError(RuntimeError):
    """A validity rule failed while generating: the corpus is not written (a hard error)."""


# --------------------------------------------------------------------------------------------
# Randomness


def derive_rng(seed: int, *key: object) -> random.Random:
    """A fresh ``random.Random`` for (seed, key...): independent streams, stable across runs.

    The key is hashed (sha256), so ``derive_rng(7, "haystack", 3)`` never shares a stream with
    ``derive_rng(7, "haystack", 4)`` and Python's hash randomisation cannot leak in.
    """
    material = "\x1f".join(str(part) for part in (seed, *key)).encode("utf-8")
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))


def dither(expected: Sequence[float], rng: random.Random) -> list[int]:
    """Integers k_i in {floor(x_i), ceil(x_i)} whose running total tracks the running expectation.

    Error diffusion from a random phase: the total over any prefix differs from the expected total
    by less than one. This is the counter that assigns echo terms and clauses blind to gold
    status: a group of sessions gets its share exactly (two gold sessions at rate 0.5 carry one
    clause between them), not by independent coin flips.
    """
    accumulator = rng.random()
    out: list[int] = []
    for value in expected:
        if value < 0:
            raise ValueError("dither: expected values must be >= 0")
        accumulator += value
        whole = int(accumulator)
        accumulator -= whole
        out.append(whole)
    return out


# --------------------------------------------------------------------------------------------
# Grammar helpers and bank assertions

_VOWEL_SOUND = re.compile(r"^(?:[aeio]|u(?![b-df-hj-np-tv-z][aeiou]))", re.IGNORECASE)


def article(noun: str) -> str:
    """``"a"`` or ``"an"`` for ``noun``: "an" before a vowel letter, except a "you"-sounding u
    (u, consonant, vowel: "a ukulele", "a unit", "an umbrella", "an upright")."""
    return "an" if _VOWEL_SOUND.match(noun) else "a"


PERSON_PRONOUNS: dict[str, str] = {"first": "I", "second": "you"}
_PERSON_WORDS: dict[str, frozenset[str]] = {
    "first": frozenset({"i", "me", "my", "mine", "myself", "am", "im"}),
    "second": frozenset({"you", "your", "yours", "yourself", "youre"}),
}
_WRONG_VERB_AFTER: dict[str, frozenset[str]] = {
    "first": frozenset({"is", "are", "were", "has", "does", "goes", "says", "gets", "gives"}),
    "second": frozenset({"am", "is", "was", "has", "does", "goes", "says", "gets", "gives"}),
}


def person_problems(clause: str) -> list[str]:
    """Why ``clause`` (a verb phrase used as "I {clause}" and "you {clause}") misreads in a person.

    A clause read in two persons must use a verb form both share (past tense, "got discharged"
    rather than "was discharged") and must not carry a pronoun of either person (a "my" becomes
    wrong the moment the clause is put in the second person). VERTICALS.md §2.5 rule 8, §4.13.
    """
    problems: list[str] = []
    tokens = raw_tokens(clause)
    if not tokens:
        return ["empty clause"]
    for person, words in _PERSON_WORDS.items():
        found = sorted(words.intersection(tokens))
        if found:
            problems.append(f"carries {person}-person word(s) {found}")
    for person, wrong in _WRONG_VERB_AFTER.items():
        if tokens[0] in wrong:
            problems.append(f"{PERSON_PRONOUNS[person]} {tokens[0]!r} does not agree")
    return problems


def assert_person_invariant(clauses: Iterable[str], *, where: str) -> None:
    """Import-time check: every clause reads correctly after both "I" and "you"."""
    bad = {clause: person_problems(clause) for clause in clauses}
    bad = {clause: problems for clause, problems in bad.items() if problems}
    if bad:
        raise AssertionError(f"{where}: clauses that do not read in both persons: {bad}")


def content_words(texts: Iterable[str]) -> frozenset[str]:
    """Raw tokens (stopwords kept) of ``texts``: the vocabulary a bank contributes."""
    return frozenset(token for text in texts for token in raw_tokens(text))


def assert_disjoint(name_a: str, words_a: Iterable[str], name_b: str, words_b: Iterable[str]) -> None:
    """Import-time check that two banks share no token (e.g. "window cleaner" vs "cleaner")."""
    shared = sorted(set(words_a) & set(words_b))
    if shared:
        raise AssertionError(f"{name_a} and {name_b} share tokens {shared[:20]}")


# --------------------------------------------------------------------------------------------
# Statements and constructions


@dataclass(frozen=True)
class Statement:
    """One thing a session says. Gold and filler statements are the same type, drawn from the same
    constructions in the same tense and person; they differ in ``subject`` and ``value``."""

    kind: str
    subject: str
    attribute: str
    value: str | None
    construction_id: str
    person: Literal["first", "second"] = "first"


@dataclass(frozen=True)
class Construction:
    """A template for one kind of statement. Fields: ``{subject}``, ``{attribute}``, ``{value}``,
    ``{a_subject}`` (with its article), ``{I}`` / ``{my}`` / ``{me}`` / ``{am}`` (by person)."""

    construction_id: str
    kind: str
    template: str
    states_value: bool


_PERSON_FIELDS: dict[str, dict[str, str]] = {
    "first": {"I": "I", "my": "my", "me": "me", "am": "am"},
    "second": {"I": "you", "my": "your", "me": "you", "am": "are"},
}


class ConstructionBank:
    """Constructions by id and by kind; renders a :class:`Statement` (gold or filler alike)."""

    def __init__(self, constructions: Iterable[Construction]) -> None:
        self._by_id: dict[str, Construction] = {}
        self._by_kind: dict[str, list[str]] = {}
        for construction in constructions:
            if construction.construction_id in self._by_id:
                raise AssertionError(f"duplicate construction id {construction.construction_id!r}")
            self._by_id[construction.construction_id] = construction
            self._by_kind.setdefault(construction.kind, []).append(construction.construction_id)

    def ids(self, kind: str) -> tuple[str, ...]:
        return tuple(self._by_kind.get(kind, ()))

    def kinds(self) -> tuple[str, ...]:
        return tuple(self._by_kind)

    def get(self, construction_id: str) -> Construction:
        return self._by_id[construction_id]

    def __iter__(self) -> Iterator[Construction]:
        return iter(self._by_id.values())

    def render(self, statement: Statement) -> str:
        construction = self._by_id[statement.construction_id]
        if construction.kind != statement.kind:
            raise GenerationError(f"construction {construction.construction_id!r} is of kind "
                                  f"{construction.kind!r}, statement is {statement.kind!r}")
        if construction.states_value != (statement.value is not None):
            raise GenerationError(f"construction {construction.construction_id!r} and statement "
                                  f"disagree on whether a value is stated")
        fields = {"subject": statement.subject, "attribute": statement.attribute,
                  "value": statement.value or "", "a_subject": f"{article(statement.subject)} "
                  f"{statement.subject}", **_PERSON_FIELDS[statement.person]}
        return construction.template.format(**fields)


# --------------------------------------------------------------------------------------------
# Sessions


@dataclass
class DraftTurn:
    """A turn being built; ``has_answer`` is set by the vertical's bookkeeping after rendering."""

    role: Role
    text: str


@dataclass(frozen=True)
class ScaffoldBanks:
    """Scaffold text drawn per turn slot: small talk for user turns without a statement, replies
    for assistant turns. Shared by gold and filler; never depends on the session's statements."""

    user: tuple[str, ...]
    assistant: tuple[str, ...]


@dataclass(frozen=True)
class EchoPlan:
    """Where the echo clause goes and which words it lists (decided by the question, not by gold
    status). ``slot`` counts turns of ``role`` from 0."""

    terms: tuple[str, ...]
    role: Role
    slot: int


@dataclass(frozen=True)
class Placement:
    """Where a statement goes: the ``slot``-th turn (from 0) of ``role``."""

    role: Role
    slot: int


@dataclass(frozen=True)
class SessionPlan:
    """What one session says: ``exchanges`` user/assistant exchanges, the statements and their
    placements, and the echo clause. Nothing here says whether the session is gold."""

    exchanges: int
    statements: tuple[Statement, ...]
    placements: tuple[Placement, ...]
    echo: EchoPlan | None = None

    def __post_init__(self) -> None:
        if len(self.statements) != len(self.placements):
            raise GenerationError("SessionPlan: one placement per statement")
        for placement in self.placements:
            if not 0 <= placement.slot < self.exchanges:
                raise GenerationError(f"SessionPlan: placement {placement} outside "
                                      f"{self.exchanges} exchanges")


@dataclass
class RenderedSession:
    """Rendered turns and, per statement of the plan, the index of the turn that carries it."""

    turns: list[DraftTurn]
    statement_turns: list[int]


ECHO_LEAD_IN = "Also on my mind:"
"""The echo clause's lead-in, the same on every clause of every vertical (VERTICALS.md §4.2)."""


def echo_clause(terms: Sequence[str]) -> str:
    """``(Also on my mind: a, b, c.)``: an unordered bracketed word list, no syntax."""
    if not terms:
        raise GenerationError("an echo clause needs at least one term")
    return f"({ECHO_LEAD_IN} {', '.join(terms)}.)"


def render_session(plan: SessionPlan, constructions: ConstructionBank, scaffold: ScaffoldBanks,
                   rng: random.Random) -> RenderedSession:
    """Render one session from its plan. Gold-blind: the signature carries no gold status.

    Exchange j is a user turn then an assistant turn. A turn slot holding statements says them (in
    plan order, space-joined); any other turn gets scaffold text drawn for that slot, without
    repetition inside the session. The echo clause, if planned, is appended to its turn.
    """
    by_slot: dict[tuple[Role, int], list[int]] = {}
    for index, placement in enumerate(plan.placements):
        by_slot.setdefault((placement.role, placement.slot), []).append(index)
    pools = {role: list(getattr(scaffold, role)) for role in ROLES}
    turns: list[DraftTurn] = []
    statement_turns = [-1] * len(plan.statements)
    for exchange in range(plan.exchanges):
        for role in ROLES:
            held = by_slot.get((role, exchange), [])
            if held:
                text = " ".join(constructions.render(plan.statements[i]) for i in held)
                for i in held:
                    statement_turns[i] = len(turns)
            else:
                pool = pools[role]
                if not pool:
                    raise GenerationError(f"scaffold bank for {role} turns ran out")
                text = pool.pop(rng.randrange(len(pool)))
            turns.append(DraftTurn(role, text))
    if plan.echo is not None:
        indices = [i for i, turn in enumerate(turns) if turn.role == plan.echo.role]
        if not 0 <= plan.echo.slot < len(indices):
            raise GenerationError(f"echo slot {plan.echo.slot} outside the {plan.echo.role} turns")
        target = turns[indices[plan.echo.slot]]
        target.text = f"{target.text} {echo_clause(plan.echo.terms)}".strip()
    return RenderedSession(turns, statement_turns)


# --------------------------------------------------------------------------------------------
# Role-sequence alignment (§4.4)


def _scs(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """A shortest common supersequence of two sequences (classic DP; ties prefer ``a``)."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                table[i][j] = i + j
            elif a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = min(table[i - 1][j], table[i][j - 1]) + 1
    out: list[str] = []
    i, j = n, m
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] <= table[i][j - 1]:
            out.append(a[i - 1])
            i -= 1
        else:
            out.append(b[j - 1])
            j -= 1
    out.extend(reversed(a[:i]))
    out.extend(reversed(b[:j]))
    out.reverse()
    return out


def common_role_sequence(sequences: Sequence[Sequence[str]]) -> list[str]:
    """One common supersequence of every role sequence, folded pairwise in sorted order.

    Exact for two sequences; for more it is the pairwise fold, shortest in practice for the
    alternating user/assistant shapes generators use. Sorted so the result does not depend on
    haystack order (and so not on where gold sits).
    """
    distinct = sorted({tuple(sequence) for sequence in sequences})
    if not distinct:
        return []
    merged: list[str] = list(distinct[0])
    for sequence in distinct[1:]:
        merged = _scs(merged, sequence)
    return merged


def align_roles(sessions: Sequence[list[DraftTurn]]) -> list[list[int]]:
    """Align every session to one common role supersequence by inserting empty turns only.

    Returns, per session, the new index of each old turn (for statement bookkeeping). Never
    reorders; afterwards every session has the same role sequence, so ``role_sequence`` and every
    ``position_k_is_<role>`` feature tie between gold and filler by construction.
    """
    target = common_role_sequence([[turn.role for turn in session] for session in sessions])
    mappings: list[list[int]] = []
    for session in sessions:
        aligned: list[DraftTurn] = []
        mapping: list[int] = []
        position = 0
        for role in target:
            if position < len(session) and session[position].role == role:
                mapping.append(len(aligned))
                aligned.append(session[position])
                position += 1
            else:
                aligned.append(DraftTurn(role, ""))  # type: ignore[arg-type]
        if position != len(session):
            raise GenerationError("align_roles: a session is not a subsequence of the target")
        session[:] = aligned
        mappings.append(mapping)
    return mappings


# --------------------------------------------------------------------------------------------
# Counts (the same definitions as gates/features.py)


@dataclass(frozen=True)
class Counts:
    """The six raw counts padding equalises (VERTICALS.md §4.3), as gates/features.py reads them."""

    chars: int
    capitals: int
    sentences: int
    punctuation: int
    tokens: int
    distinct: int

    def minus(self, other: Counts) -> Counts:
        return Counts(self.chars - other.chars, self.capitals - other.capitals,
                      self.sentences - other.sentences, self.punctuation - other.punctuation,
                      self.tokens - other.tokens, self.distinct - other.distinct)


def is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def text_counts(text: str) -> Counts:
    tokens = raw_tokens(text)
    return Counts(
        chars=len(text),
        capitals=sum(map(str.isupper, text)),
        sentences=count_sentences(text),
        punctuation=sum(map(is_punctuation, text)),
        tokens=len(tokens),
        distinct=len(set(tokens)),
    )


# --------------------------------------------------------------------------------------------
# Padding by turn slot (§4.3)

_PAD_OPENERS: tuple[str, ...] = tuple("""
Anyway Besides Otherwise Meanwhile Honestly Really Later Lately Overall Somehow Happily Luckily
Oddly Frankly Basically Plainly Briefly Mainly Well Right Okay Sure Fine Indeed Naturally Usually
Often Sometimes Afterwards Elsewhere Nearby Outside Inside Tonight Recently Gladly Calmly Slowly
Quietly Mostly Equally Anyhow Likewise Granted Admittedly Seriously Clearly Similarly Hopefully
Sadly Gently Kindly Simply Truly Surely Rarely Gradually Openly Freely Warmly Softly Lightly
Loosely Neatly Barely Merely Fairly Largely Partly Roughly Nicely Politely Casually Lastly
Presently Shortly Soon Somewhere Upstairs Downstairs Overnight Everywhere Regardless Nonetheless
Thankfully Curiously Strangely Weirdly Obviously Apparently Evidently Certainly Definitely
Absolutely Totally Entirely Fully Thus Hence Alright Agreed Yes True Absolutely Precisely Oh Ah
""".split())
"""Capitalised sentence starters: each adds one sentence, one capital, one token, one period."""

_PAD_WORDS: tuple[str, ...] = tuple("""
ash bay cob dew elm fen fig gum hay ivy jam kelp lark moss nut oak pea rye sap tea yew
amber acorn apple aspen birch bloom brook cedar chalk cider clay clove cloud coral cress daisy
drift dune fern flint frost gale glade grove hazel heath holly honey larch lemon lilac linen
maple marsh meadow melon mint mist olive onion otter pearl pebble pine plum poppy quill rain
reed ridge robin rowan sage sand shale shore sleet slope snow sorrel spruce stone stream sun
thyme tide tulip valley violet walnut wave wheat willow wind wren breeze canyon garden harbour
hedgerow lantern marigold orchard pasture pinecone rainfall riverbank seashell snowdrop sparrow
starling sunbeam thistle thunder twilight woodland bramble buttercup dandelion evergreen
heather hillside kingfisher lavender moonlight nightfall primrose raindrop saltmarsh seabird
snowfall sunflower waterfall wildflower woodpecker barley basil bison blossom bobbin button
cactus candle carrot cherry clover cobble comet copper cotton cricket crocus cumin dapple
dusk ember fennel ferry fiddle finch flax fox garnet ginger granite gravel gull heron hickory
iris jasmine juniper kestrel kiwi lichen lime lotus lupin mallow mango meteor mulberry nectar
nettle nutmeg oat oriole paprika parsley peach peony pepper petal pigeon plover pollen pumpkin
quartz radish raven rhubarb saffron sesame shrub silt skylark slate sprig squash straw tansy
thrush timber topaz turnip umber vanilla velvet walrus wicker yarrow zinnia
""".split())
"""Lower-case nature words: each adds one token (and one distinct token unless repeated)."""

_PAD_NAME_SYLLABLES: tuple[str, ...] = ("tov", "bran", "quil", "moz", "yel", "dru", "sef", "kai",
                                        "wen", "jor", "pim", "zab")
"""Invented-name syllables for the capitals lever (a name adds a capital without a sentence)."""

MIN_PAD_SENTENCES = 1
"""Every turn gets at least one pad sentence, so the turn that sets the target is padded too and
no session is distinguished by being the unpadded one."""


def _pad_names() -> dict[int, tuple[str, ...]]:
    names = sorted({(a + b).capitalize() for a in _PAD_NAME_SYLLABLES for b in _PAD_NAME_SYLLABLES
                    if a != b})
    by_length: dict[int, list[str]] = {}
    for name in names:
        by_length.setdefault(len(name), []).append(name)
    return {length: tuple(group) for length, group in sorted(by_length.items())}


@dataclass(frozen=True)
class PadBanks:
    """The pad vocabulary by length. A vertical passes its reserved tokens (question, fact and
    value vocabulary) to :func:`pad_haystack`, which never draws them."""

    openers: Mapping[int, tuple[str, ...]]
    words: Mapping[int, tuple[str, ...]]
    names: Mapping[int, tuple[str, ...]]

    @staticmethod
    def default() -> PadBanks:
        def by_length(words: Iterable[str]) -> dict[int, tuple[str, ...]]:
            grouped: dict[int, list[str]] = {}
            for word in sorted(set(words)):
                grouped.setdefault(len(word), []).append(word)
            return {length: tuple(group) for length, group in sorted(grouped.items())}

        return PadBanks(by_length(_PAD_OPENERS), by_length(_PAD_WORDS), _pad_names())

    def vocabulary(self) -> frozenset[str]:
        return frozenset(word.lower() for bank in (self.openers, self.words, self.names)
                         for group in bank.values() for word in group)


PAD_BANKS = PadBanks.default()


def _assert_pad_banks() -> None:
    for bank, capitals in ((PAD_BANKS.openers, 1), (PAD_BANKS.words, 0), (PAD_BANKS.names, 1)):
        for group in bank.values():
            for word in group:
                assert word.isalpha() and word.isascii(), f"pad word {word!r} is not plain letters"
                assert sum(map(str.isupper, word)) == capitals and (capitals == 0 or word[0].isupper()), \
                    f"pad word {word!r} must carry exactly {capitals} capital(s), leading"
                assert len(raw_tokens(word)) == 1, f"pad word {word!r} is not one token"
    openers = {w.lower() for g in PAD_BANKS.openers.values() for w in g}
    words = {w for g in PAD_BANKS.words.values() for w in g}
    names = {w.lower() for g in PAD_BANKS.names.values() for w in g}
    assert_disjoint("pad openers", openers, "pad words", words)
    assert_disjoint("pad names", names, "pad words", words | openers)
    assert_disjoint("pad vocabulary", PAD_BANKS.vocabulary(), "echo lead-in",
                    raw_tokens(ECHO_LEAD_IN))
    assert ECHO_CLAUSE_PATTERN.search(echo_clause(["alpha"])), "echo clause not recognised by the gate"
    assert ECHO_CLAUSE_PATTERN.search(echo_clause(["alpha", "beta", "gamma"]))


_assert_pad_banks()


@dataclass(frozen=True)
class _Need:
    """What one turn's tail must add, decomposed onto the levers."""

    sentences: int
    names: int
    commas: int
    lower: int
    new_lower: int
    chars: int

    @property
    def repeats(self) -> int:
        return self.lower - self.new_lower


def _decompose(need: Counts) -> _Need | None:
    """The lever counts for ``need``, or ``None`` if no tail of this machinery can add it."""
    sentences = need.sentences
    names = need.capitals - sentences
    commas = need.punctuation - sentences
    lower = need.tokens - sentences - names
    new_lower = need.distinct - sentences - names
    if sentences < MIN_PAD_SENTENCES or names < 0 or commas < 0 or lower < 1:
        return None
    if commas > need.tokens - sentences or not 1 <= new_lower <= lower:
        return None
    return _Need(sentences, names, commas, lower, new_lower, need.chars)


def _fixed_chars(need: _Need, leading_space: bool) -> int:
    """Characters that are not letters: spaces, periods, commas."""
    tokens = need.sentences + need.names + need.lower
    return int(leading_space) + (need.sentences - 1) + (tokens - need.sentences) + need.sentences \
        + need.commas


def _length_variables(need: _Need) -> list[tuple[str, int]]:
    """(category, weight) per free word; repeats add weight to the new lower-case words they copy
    (round-robin), so a word's length counts once per occurrence."""
    weights = [1] * need.new_lower
    for index in range(need.repeats):
        weights[index % need.new_lower] += 1
    # Lower-case words first: the walk back decides them last, and their bank has many words of
    # every length, so they absorb whatever remainder the openers and names leave.
    out = [("word", weight) for weight in weights]
    return out + [("opener", 1)] * need.sentences + [("name", 1)] * need.names


def _bank(category: str) -> Mapping[int, tuple[str, ...]]:
    return {"opener": PAD_BANKS.openers, "name": PAD_BANKS.names, "word": PAD_BANKS.words}[category]


COMFORTABLE_LENGTHS: dict[str, tuple[int, int]] = {"opener": (4, 10), "name": (6, 7), "word": (3, 9)}
"""Word lengths every bank holds plenty of: targets are chosen so each turn can be met inside
these, leaving the rarer lengths as slack rather than as the only way to hit a count."""


def _letter_range(need: _Need) -> tuple[int, int]:
    low = high = 0
    for category, weight in _length_variables(need):
        lo, hi = COMFORTABLE_LENGTHS[category]
        low += weight * lo
        high += weight * hi
    return low, high


def _allocate(variables: Sequence[tuple[str, int]], total: int, available: Mapping[str, dict[int, int]],
              rng: random.Random) -> list[int] | None:
    """Lengths, one per variable, with sum(weight * length) == total and no length group used more
    often than it has unused words.

    Subset-sum style DP over reachable totals (tens of variables, totals in the hundreds), then a
    random walk back through the table that spends availability as it goes, so lengths vary
    instead of piling onto one word. ``None`` if the total is unreachable or the walk runs dry.
    """
    options = [sorted(length for length, count in available[category].items() if count > 0)
               for category, _ in variables]
    # reachable[i] is a bitmask: bit t set when the first i variables can sum to t.
    limit = (1 << (total + 1)) - 1
    reachable: list[int] = [1]
    for (_, weight), lengths in zip(variables, options):
        current = reachable[-1]
        step = 0
        for length in lengths:
            step |= current << (weight * length)
        reachable.append(step & limit)
    if not (reachable[-1] >> total) & 1:
        return None
    for _ in range(8):
        left = {category: dict(counts) for category, counts in available.items()}
        chosen = [0] * len(variables)
        remaining = total
        for index in range(len(variables) - 1, -1, -1):
            category, weight = variables[index]
            candidates = [length for length in options[index] if left[category].get(length, 0) > 0
                          and remaining - weight * length >= 0
                          and (reachable[index] >> (remaining - weight * length)) & 1]
            if not candidates:
                break
            # Stay near the mean length still owed, so no length group (the short words first)
            # is drained by earlier choices that left too little or too much for the rest.
            weight_left = sum(w for _, w in variables[:index + 1])
            mean = remaining / weight_left
            near = [length for length in candidates if abs(length - mean) <= 1.5]
            length = rng.choice(near or sorted(candidates, key=lambda x: abs(x - mean))[:1])
            left[category][length] -= 1
            chosen[index] = length
            remaining -= weight * length
        else:
            return chosen
    return None


def _lowered(category: str) -> Mapping[int, tuple[tuple[str, str], ...]]:
    return _LOWERED[category]


_LOWERED: dict[str, dict[int, tuple[tuple[str, str], ...]]] = {
    category: {length: tuple((word, word.lower()) for word in group)
               for length, group in bank.items()}
    for category, bank in (("opener", PAD_BANKS.openers), ("name", PAD_BANKS.names),
                           ("word", PAD_BANKS.words))
}


def _available(used: set[str], reserved: frozenset[str]) -> dict[str, dict[int, int]]:
    return {category: {length: sum(1 for _, low in group if low not in used and low not in reserved)
                       for length, group in _lowered(category).items()}
            for category in ("opener", "name", "word")}


def _take(category: str, length: int, used: set[str], reserved: frozenset[str],
          rng: random.Random) -> str:
    choices = [word for word, low in _lowered(category).get(length, ())
               if low not in used and low not in reserved]
    if not choices:
        raise GenerationError(f"pad bank has no unused {category} of length {length}")
    word = rng.choice(choices)
    used.add(word.lower())
    return word


def _tail(base: str, need: _Need, rng: random.Random, used: set[str],
          reserved: frozenset[str]) -> str | None:
    """A tail adding exactly ``need`` to ``base`` (or ``None`` if the letters cannot be split).

    ``used`` holds tokens already present in the session (base texts and earlier tails): new words
    are new to the whole session, so a pad word never links two turns (session-level distinct
    tokens are then base overlap only, the same mechanism in gold and filler).
    """
    leading = bool(base)
    letters = need.chars - _fixed_chars(need, leading)
    variables = _length_variables(need)
    lengths = _allocate(variables, letters, _available(used, reserved), rng)
    if lengths is None:
        return None
    openers: list[str] = []
    names: list[str] = []
    new_words: list[str] = []
    for (category, _), length in zip(variables, lengths):
        word = _take(category, length, used, reserved, rng)
        {"opener": openers, "name": names, "word": new_words}[category].append(word)
    repeats = [new_words[index % len(new_words)] for index in range(need.repeats)]
    middle = names + new_words + repeats
    rng.shuffle(middle)
    sentences: list[list[str]] = [[opener] for opener in openers]
    for word in middle:
        sentences[rng.randrange(len(sentences))].append(word)
    slots = [(s, t) for s, words in enumerate(sentences) for t in range(len(words) - 1)]
    commas = set(rng.sample(slots, need.commas))
    rendered = []
    for s, words in enumerate(sentences):
        pieces = [word + ("," if (s, t) in commas else "") for t, word in enumerate(words)]
        rendered.append(" ".join(pieces) + ".")
    return (" " if leading else "") + " ".join(rendered)


@dataclass(frozen=True)
class SlotTarget:
    role: Role
    slot: int
    target: Counts


def _slot_targets(bases: Sequence[Counts], leading: Sequence[bool], rng: random.Random,
                  slack: int = 0) -> Counts:
    """The smallest-ish common target every base in a slot can be padded to exactly.

    Built axis by axis (sentences, capitals, punctuation, tokens, distinct, characters). Every
    turn gets at least one pad sentence (so the session that sets a maximum is padded too); tokens
    are raised until distinct-token and character windows that suit every session exist, and the
    character target is drawn inside that window.
    """
    sentences = max(b.sentences for b in bases) + MIN_PAD_SENTENCES
    s = [sentences - b.sentences for b in bases]
    capitals = max(b.capitals + si for b, si in zip(bases, s))
    names = [capitals - b.capitals - si for b, si in zip(bases, s)]
    punctuation = max(b.punctuation + si for b, si in zip(bases, s))
    commas = [punctuation - b.punctuation - si for b, si in zip(bases, s)]
    tokens = max(b.tokens + si + max(ni + 1, ci) for b, si, ni, ci in zip(bases, s, names, commas))
    tokens += rng.randint(0, 1) + slack
    for _ in range(200):
        low = max(b.distinct + si + ni + 1 for b, si, ni in zip(bases, s, names))
        high = min(b.distinct + tokens - b.tokens for b in bases)
        if low > high:
            tokens += low - high
            continue
        distinct = max(low, high - rng.randint(0, 1))
        needs: list[_Need] = []
        for b in bases:
            decomposed = _decompose(Counts(0, capitals - b.capitals, sentences - b.sentences,
                                           punctuation - b.punctuation, tokens - b.tokens,
                                           distinct - b.distinct))
            assert decomposed is not None
            needs.append(decomposed)
        windows = []
        for b, need, lead in zip(bases, needs, leading):
            lo, hi = _letter_range(need)
            fixed = _fixed_chars(need, lead)
            windows.append((b.chars + fixed + lo, b.chars + fixed + hi))
        chars_low = max(lo for lo, _ in windows)
        chars_high = min(hi for _, hi in windows)
        if chars_low > chars_high:
            tokens += 1
            continue
        # Aim inside the window, not at its floor: the session that sets the floor would otherwise
        # need the shortest word of every kind, and short words run out first.
        chars = chars_low + int((chars_high - chars_low) * rng.uniform(0.25, 0.45))
        return Counts(chars, capitals, sentences, punctuation, tokens, distinct)
    raise GenerationError("pad_haystack: no common target found for a turn slot")


def pad_haystack(sessions: Sequence[list[DraftTurn]], rng: random.Random, *,
                 reserved: Iterable[str] = ()) -> list[SlotTarget]:
    """Pad every turn slot of a haystack to one target per slot, exactly, on all six counts.

    ``sessions`` must already be role-aligned (:func:`align_roles`). A turn slot is (role, k-th
    turn of that role); its target is computed from every session of the haystack (gold and
    filler alike, without knowing which is which) and every session's turn in that slot is padded
    to it with tails: a pad sentence per sentence needed (opener: capital, token, period), invented
    names for further capitals, commas for further punctuation, lower-case words for tokens (new
    ones for distinct tokens, repeats otherwise) and word lengths for characters. The result is
    verified against the target; a mismatch is a :class:`GenerationError`, never a near miss.
    """
    reserved_set = frozenset(word.lower() for word in reserved)
    sequences = {tuple(turn.role for turn in session) for session in sessions}
    if len(sequences) > 1:
        raise GenerationError("pad_haystack: sessions are not role-aligned (run align_roles)")
    if not sessions:
        return []
    roles = [turn.role for turn in sessions[0]]
    used = [set(raw_tokens(" ".join(turn.text for turn in session))) for session in sessions]
    targets: list[SlotTarget] = []
    seen: dict[Role, int] = {"user": 0, "assistant": 0}
    for index, role in enumerate(roles):
        slot = seen[role]
        seen[role] += 1
        bases = [text_counts(session[index].text) for session in sessions]
        leading = [bool(session[index].text) for session in sessions]
        for attempt in range(20):
            target = _slot_targets(bases, leading, rng, slack=attempt // 4)
            tails: list[str] = []
            trial_used = [set(u) for u in used]
            for session, base, session_used in zip(sessions, bases, trial_used):
                need = _decompose(target.minus(base))
                assert need is not None
                tail = _tail(session[index].text, need, rng, session_used, reserved_set)
                if tail is None:
                    break
                tails.append(tail)
            if len(tails) == len(sessions):
                break
        else:
            raise GenerationError(f"pad_haystack: slot ({role}, {slot}) could not be padded")
        for session, tail, session_used in zip(sessions, tails, trial_used):
            session[index].text = session[index].text + tail
            got = text_counts(session[index].text)
            if got != target:
                raise GenerationError(f"pad_haystack: slot ({role}, {slot}) padded to {got}, "
                                      f"target {target}: {session[index].text!r}")
        used = trial_used
        targets.append(SlotTarget(role, slot, target))
    return targets


# --------------------------------------------------------------------------------------------
# Writing


def dump_json(data: Any) -> str:
    """Deterministic JSON text: sorted keys (object order is never meaningful in a corpus or
    sidecar; list order always is), ``ensure_ascii=False``, two-space indent, LF, trailing LF."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def query_tokens(text: str) -> list[str]:
    """The reference BM25 tokens of ``text`` (the echo source vocabulary)."""
    return tokenize(text)


def draw_terms(pool: Iterable[str], count: int, rng: random.Random) -> list[str]:
    """``count`` distinct terms from ``pool`` as ``rng.sample(sorted(set(pool)), count)``."""
    ordered = sorted(set(pool))
    return rng.sample(ordered, min(count, len(ordered)))


__all__ = [
    "ECHO_LEAD_IN", "PAD_BANKS", "ROLES", "ConstructionBank", "Construction", "Counts", "DraftTurn",
    "EchoPlan", "GenerationError", "PadBanks", "Placement", "RenderedSession", "Role",
    "ScaffoldBanks", "SessionPlan", "SlotTarget", "Statement", "align_roles", "article",
    "assert_disjoint", "assert_person_invariant", "common_role_sequence", "content_words",
    "derive_rng", "dither", "draw_terms", "dump_json", "echo_clause", "pad_haystack",
    "person_problems", "query_tokens", "render_session", "text_counts",
]
