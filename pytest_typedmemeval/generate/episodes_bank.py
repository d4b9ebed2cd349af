"""Episodes: the conversational scaffold of revision 3 (VERTICALS.md Appendix D, GENERATION.md v3).

Why it exists: the v2 scaffold picked each reply by the *class* of the turn before it, so an outside
audit found 97 % of adjacent turns sharing no content word, half the small-talk replies misfitting
("My team lost in extra time and I am gutted." -> "I love hearing about moments like that."), no
assistant question ever answered and 19 % of sentences distinct. Here scaffold comes as *episodes*,
exchanges about one thing:

- **small talk** (:func:`small_talk_episode`): a user *opener* about an everyday topic, an assistant
  *reply* written for that opener alone (same sentiment, reusing a word or slot of it) that often
  ends with one follow-up question, the user's *answer* to that question, and a short assistant
  *close* that refers to the answer. Two or four turns, always ending on the assistant.
- **statement replies** (:func:`statement_reply`): after a vertical's fact-bearing user sentence, an
  assistant reply that fits the sentence's *stance* (the user arranged something, intends it,
  someone else arranged it, it fell through, a plain state, or the user turning down an assistant
  suggestion) and names only its ``{topic}``, never its value.

Why lines are *composed*: a corpus holds several thousand sessions, so a fixed list of lines would
repeat until distinct sentences fall far below Appendix D's 50 %. Each topic has named slots with
fillers (``{dish}`` = "lentil soup", "fish pie"...), the persona's relation slots (``{rel}``,
``{rel_subj}``, ``{rel_obj}``, ``{rel_poss}``) and inline alternatives ``[a|b|c]`` for wording that
nothing later refers to. A slot is filled once per episode, so the reply talks about the dish the
opener cooked; an alternative is drawn per line, so nothing may refer back to one.

Why so constrained: every rendered line must pass :func:`.talk.problems` (plain ASCII, no
capitalised word but a sentence's first and "I", no digits or number words, none of
:data:`.talk.FORBIDDEN_WORDS`, no judge cue): values in these corpora are capitalised words and the
judge reads polarity cues, so scaffold must never look like a value or read as an answer. That is
why answers to yes/no questions open "Yes", "Sort of", "I think so" (never "No": "no" and "not" are
forbidden words) and why declines are phrased positively ("I would rather...").

For the engine: small-talk episodes and statement replies always end on an assistant turn, so
the next episode opens with the user; :data:`ASSISTANT_LEADS` and :data:`USER_DECLINES` hold no
inline alternatives, so :func:`render` alone fills them; :func:`slot_words` is the vocabulary a
vertical's values must avoid, and ``banned`` is how a vertical keeps its subject's words out of
small talk.

Everything here is data plus small pure functions; randomness comes only through a
:class:`random.Random` argument, so a corpus is a function of its seed.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Literal

from ..retrieval.tokenizer import STOPWORDS, raw_tokens

Role = Literal["user", "assistant"]
Mood = Literal["happy", "sad", "neutral"]
Stance = Literal["arranged", "intends", "other", "declined", "state", "assistant-offer-declined",
                 "noted"]

# --- persona relations -------------------------------------------------------------------------


@dataclass(frozen=True)
class Relation:
    """A person the user talks about: the noun ("sister") and its pronouns.

    Why pronouns travel with the noun: frames say "{rel_subj} ate the lot" and "for {rel_obj}", and
    one haystack's persona must keep one set of people, so the engine picks relation keys once and
    every slot follows from the key. Every relation is gendered, so a verb after ``{rel_subj}``
    agrees whichever is drawn ("she ate", "he ate"); a "they" relation would break "{rel_subj} is".
    """

    noun: str
    subj: str
    obj: str
    poss: str


RELATIONS: dict[str, Relation] = {
    "sister": Relation("sister", "she", "her", "her"),
    "brother": Relation("brother", "he", "him", "his"),
    "neighbour-f": Relation("neighbour", "she", "her", "her"),
    "neighbour-m": Relation("neighbour", "he", "him", "his"),
    "cousin-f": Relation("cousin", "she", "her", "her"),
    "cousin-m": Relation("cousin", "he", "him", "his"),
    "partner-f": Relation("partner", "she", "her", "her"),
    "partner-m": Relation("partner", "he", "him", "his"),
    "workmate-f": Relation("friend from work", "she", "her", "her"),
    "workmate-m": Relation("friend from work", "he", "him", "his"),
}
"""Relations a persona draws two or three of (the engine draws; keys with one noun are one person,
so a persona holds at most one of "neighbour-f"/"neighbour-m")."""

REL_SLOTS: tuple[str, ...] = ("rel", "rel_subj", "rel_obj", "rel_poss")
"""The slots a relation fills: noun, subject pronoun, object pronoun, possessive."""


def relation_slots(relation: Relation) -> dict[str, str]:
    """The four slot values of ``relation`` (see :data:`REL_SLOTS`)."""
    return {"rel": relation.noun, "rel_subj": relation.subj, "rel_obj": relation.obj,
            "rel_poss": relation.poss}


# --- templates -----------------------------------------------------------------------------------

_SLOT = re.compile(r"\{([a-z_]+)\}")
_CHOICE = re.compile(r"\[([^\[\]]*)\]")
_SENTENCE_OPEN = re.compile(r"(^|[.!?] +)$")


def render(template: str, slots: Mapping[str, str]) -> str:
    """``template`` with every ``{name}`` replaced by ``slots[name]``.

    A slot that opens a sentence gets a capital ("{dish} sounds lovely." -> "Fish pie sounds
    lovely."), because fillers are lowercase noun phrases that also sit mid-sentence. Inline
    alternatives must have been chosen first (:func:`choose_alternatives`). Raises ``KeyError``
    naming the slot when ``slots`` lacks one, so a frame with a typo fails loudly."""
    out: list[str] = []
    last = 0
    for match in _SLOT.finditer(template):
        name = match.group(1)
        if name not in slots:
            raise KeyError(f"slot {{{name}}} has no value in template {template!r}")
        value = slots[name]
        out.append(template[last:match.start()])
        if _SENTENCE_OPEN.search("".join(out)):
            value = value[:1].upper() + value[1:]
        out.append(value)
        last = match.end()
    out.append(template[last:])
    return "".join(out)


def choose_alternatives(template: str, rng: random.Random) -> str:
    """``template`` with each inline alternative ``[a|b|c]`` replaced by one option, drawn by
    ``rng``. Alternatives vary wording nothing later refers back to; anything a later line reuses
    must be a slot, which is filled once per episode."""
    return _CHOICE.sub(lambda m: rng.choice(m.group(1).split("|")), template)


def expansions(template: str) -> list[str]:
    """Every way of choosing ``template``'s alternatives (for tests: each option rendered once)."""
    parts = _CHOICE.split(template)
    fixed, groups = parts[0::2], [p.split("|") for p in parts[1::2]]
    out = []
    for combo in itertools.product(*groups):
        pieces = [fixed[0]]
        for option, tail in zip(combo, fixed[1:]):
            pieces += [option, tail]
        out.append("".join(pieces))
    return out


def template_slots(template: str) -> frozenset[str]:
    """The slot names ``template`` uses."""
    return frozenset(_SLOT.findall(template))


def template_words(template: str) -> frozenset[str]:
    """Lowercase tokens of ``template``'s own text, every alternative included, slots excluded."""
    return frozenset(raw_tokens(_SLOT.sub(" ", template.replace("|", " ").replace("[", " ")
                                          .replace("]", " "))))


# --- small talk ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Episode:
    """One small-talk frame: an exchange about one thing.

    ``opener`` (user) states something; ``reply`` (assistant) fits it in sentiment (``mood``) and
    reuses a word or slot of it, and when it ends with a question, ``answer`` (user) answers that
    question and ``close`` (assistant) refers to the answer. ``answer`` and ``close`` are both
    present or both absent, so an episode is two or four turns and always ends on the assistant:
    the next episode can open with the user and roles alternate without a generic filler close."""

    topic: str
    opener: str
    reply: str
    answer: str | None = None
    close: str | None = None
    mood: Mood = "neutral"

    @property
    def lines(self) -> tuple[tuple[Role, str], ...]:
        """The frame's (role, template) turns in order."""
        turns: list[tuple[Role, str]] = [("user", self.opener), ("assistant", self.reply)]
        if self.answer is not None and self.close is not None:
            turns += [("user", self.answer), ("assistant", self.close)]
        return tuple(turns)

    @cached_property
    def slots(self) -> frozenset[str]:
        """Every slot any of the frame's lines uses."""
        return frozenset().union(*(template_slots(text) for _, text in self.lines))

    @cached_property
    def names_relation(self) -> bool:
        """Whether the frame names one of the persona's relations."""
        return bool(self.slots & set(REL_SLOTS))

    @cached_property
    def words(self) -> frozenset[str]:
        """Tokens of the frame's own text (all alternatives, no slot fillers)."""
        return frozenset().union(*(template_words(text) for _, text in self.lines))


@dataclass(frozen=True)
class Topic:
    """An everyday topic: its slot fillers and its frames."""

    name: str
    slots: Mapping[str, tuple[str, ...]]
    frames: tuple[Episode, ...]


MACROS: dict[str, str] = {
    "<yes>": "[Yes|Oh, yes|Yes, actually|Yes, as it happens]",
    "<sortof>": "[Sort of|Sort of, yes|Kind of|Yes, sort of]",
}
"""Shared alternatives for answer openers, expanded when a frame is built. Every form opens the way
an answer to a yes/no question does ("Yes", "Sort of", "Kind of"), so the answer reads as one to a
reader and to the mechanical answered-question measure alike, and none needs "no" or "not"."""


def _expand(text: str) -> str:
    for macro, alternatives in MACROS.items():
        text = text.replace(macro, alternatives)
    return text


_QUESTION_WORDS = ("Did", "Do", "Does", "Is", "Are", "Was", "Were", "Have", "Has", "Can", "Could",
                   "Will", "Would", "What", "How", "Where")
_LEAD = re.compile(r"(^|(?<=[.!?] ))(?:\[(%s)\|And [a-z]+\]|(%s)\b)(?=[^.!?]*\?$)"
                   % ("|".join(_QUESTION_WORDS), "|".join(_QUESTION_WORDS)))


def _lead_in(reply: str) -> str:
    """A reply's closing question with a lead-in alternative: "Did you..." becomes "[Did|And
    did|So did] you...". Why: the follow-up question is the reply's shortest sentence and recurs
    with its frame, so without variety it repeats across a corpus; "And"/"So" keep it a yes/no
    question (a reader and the answered-question measure both skip them)."""
    def lead(m: re.Match[str]) -> str:
        word = m.group(2) or m.group(3)
        low = word.lower()
        return f"{m.group(1)}[{word}|And {low}|So {low}]"
    return _LEAD.sub(lead, reply, count=1)


def _topic(name: str, slots: dict[str, tuple[str, ...]],
           *frames: tuple[str, ...]) -> Topic:
    """A :class:`Topic` from compact frame tuples ``(mood, opener, reply[, answer, close])``."""
    built = []
    for frame in frames:
        mood, opener, reply, *rest = (_expand(text) for text in frame)
        reply = _lead_in(reply)
        answer, close = (rest[0], rest[1]) if rest else (None, None)
        assert mood in ("happy", "sad", "neutral"), (name, frame)
        built.append(Episode(name, opener, reply, answer, close, mood))  # type: ignore[arg-type]
    return Topic(name, slots, tuple(built))


_TOPIC_LIST: tuple[Topic, ...] = (
    _topic(
        "weather",
        {
            "rough": ("hail", "sleet", "driving rain", "freezing fog", "howling gales",
                      "thunder and lightning", "sideways rain", "heavy snow", "gusty wind",
                      "torrential rain", "icy drizzle", "swirling snow"),
            "things": ("the bins", "the garden chairs", "the plant pots", "the recycling boxes",
                       "the fence panels", "the deckchairs", "the hanging baskets",
                       "the bird feeders", "the patio cushions", "the washing on the line",
                       "the garden gnomes", "the trampoline"),
            "fine": ("warm sunshine", "clear blue skies", "gentle sunshine", "crisp bright weather",
                     "soft warm air", "glorious sunshine", "bright sunshine", "balmy weather",
                     "mild sunny weather", "golden sunshine", "warm spring sunshine",
                     "lovely bright weather"),
            "spot": ("on the front step", "on the bench by the pond", "on the balcony",
                     "in the park", "by the river", "on a blanket on the lawn",
                     "at the cafe by the harbour", "on the doorstep", "on the garden wall",
                     "on the patio", "on the bench outside the shop", "by the allotment shed"),
        },
        ("sad",
         "We had {rough} [all night|through the night]. {things} [went flying|blew right across the lawn|got tipped over].",
         "Oh dear, {rough} all night sounds [grim|exhausting|horrible]. [Did|And did] {things} survive?",
         "<yes>, [just about|mostly], though I had to chase {things} down the road in my slippers.",
         "Chasing {things} in your slippers sounds [like quite a workout|exhausting|like a comedy sketch]."),
        ("happy",
         "We [finally|at last] had {fine} this afternoon. I sat {spot} with a [mug|pot] of tea.",
         "[How lovely|What a treat], {fine} and tea {spot}. [Did|And did] you have [any company|anyone with you|company out there]?",
         "<yes>, my {rel} came out and sat with me for a [natter|good chat|cup].",
         "Tea {spot} with your {rel} sounds [perfect|just right|lovely]."),
        ("sad",
         "The forecast promised {fine}, but we got {rough} instead. I was caught out [on the walk to the shops|at the bus stop|on the school run|in the park] [without a coat|in a thin jacket|with a flimsy umbrella].",
         "Oh, how [annoying|maddening], {rough} instead of {fine}. [Did|And did] you get [soaked|drenched|wet through] in the {rough}?",
         "<yes>, [completely|right through|to the skin], and my shoes squelched [all the way home|the whole way home].",
         "Squelching home through {rough} is [the worst|miserable|a special misery]."),
        ("happy",
         "I hung the washing out in {fine} and it was dry [really quickly|in a flash|by lunchtime].",
         "{fine} and dry washing, [that is a proper win|what a lovely combination|how satisfying]."),
        ("sad",
         "{rough} has been battering the windows all afternoon, so I am hiding indoors with [the heating on|a blanket and a hot drink|the curtains shut].",
         "{rough} against the windows is [miserable|grim|horrid] to listen to, so hiding indoors sounds [wise|very sensible]."),
        ("happy",
         "The rain cleared [just in time|at the last moment|right on cue] for a [barbecue|garden lunch] with my {rel}. We ate [outside|on the lawn|in the garden] in {fine}.",
         "[What luck|How lucky|Perfect timing], {fine} for eating outside. [Did|And did] your {rel} do the cooking?",
         "<yes>, {rel_subj} took charge of the cooking [like a pro|with great ceremony|in a silly apron].",
         "Your {rel} in charge of the cooking in {fine}, [lovely|what a treat|perfect]."),
        ("neutral",
         "{rough} blew in out of nowhere [on the walk home|while I was at the shops|on the school run]. I [sheltered|took cover] in a bus shelter with a [crowd|gaggle|huddle] of strangers.",
         "Sheltering from {rough} with strangers, [how very sociable|what a scene|how cosy]. [Did|So did] you [get chatting|strike up a chat|end up chatting]?",
         "<yes>, we got chatting about {rough}, [of course|naturally|what else], like proper strangers in a shelter.",
         "Chatting about {rough} in a bus shelter [is a fine tradition|is a classic|is very civilised]."),
        ("sad",
         "We had {rough} on the drive home and I could [barely|hardly] see the road. I [crawled|crept] along [at a snail pace|in low gear] with the wipers [going mad|on full].",
         "Oh dear, driving in {rough} is [nerve racking|horrible|exhausting]. [Did|And did] you pull over [for a while|somewhere|to let it pass]?",
         "<yes>, I pulled into a [lay by|garage forecourt|supermarket car park] and waited for the worst to pass.",
         "Pulling over was the [wise|sensible|right] move in {rough}."),
        ("happy",
         "I [love|adore] {fine} following a spell of {rough}. [The whole street|Everyone on our road|The whole village] was out enjoying the {fine}.",
         "[Lovely|How lovely], {fine} following {rough} lifts everyone. [Did|And did] you get out in the {fine} [too|yourself]?",
         "<yes>, I walked into town and sat outside a cafe with [an ice cream|a cold drink|a cup of coffee].",
         "Sitting outside a cafe in {fine} sounds [well earned|perfect|just right]."),
        ("neutral",
         "My {rel} rang to [moan about|complain about] the {rough} [in {rel_poss} town|up where {rel_subj} lives].",
         "[So|Ah, so] the {rough} is [everywhere|all over the place] [at the moment|this season]. [Is|And is] your {rel} [staying in|sheltering indoors]?",
         "<yes>, {rel_subj} is staying in with [a good film|the cat|a jigsaw|a pot of tea].",
         "Staying in with {rough} outside [is the sensible choice|sounds cosy|sounds right]."),
    ),
    _topic(
        "cooking",
        {
            "dish": ("lentil soup", "fish pie", "mushroom risotto", "vegetable curry",
                     "chicken stew", "leek and potato soup", "spinach lasagne", "beef casserole",
                     "prawn paella", "cauliflower cheese", "sausage casserole", "pea and ham soup"),
            "spice": ("smoked paprika", "fresh thyme", "crushed garlic", "chilli flakes",
                      "lemon zest", "grated ginger", "fresh rosemary", "fennel seeds",
                      "black pepper", "grated nutmeg", "fresh parsley", "ground cumin"),
            "mishap": ("burnt the onions", "let the pan boil over", "put in far too much salt",
                       "scorched the bottom of the pan", "set off the smoke alarm",
                       "used sugar instead of salt", "overcooked the rice", "let the pan boil dry",
                       "spilled the stock everywhere", "knocked the pepper pot into the pan",
                       "curdled the sauce", "boiled the pasta to mush"),
        },
        ("happy",
         "I made {dish} for my {rel} [the other night|last night]. The {dish} was a bit [salty|rich], but {rel_subj} ate the lot!",
         "{dish} for your {rel} sounds like a [treat|lovely meal]. [Did|And did] {rel_subj} ask for the {dish} recipe?",
         "<yes>, so I [wrote the recipe out|copied the recipe onto a card] for {rel_obj} [with a note about the salt|in my best handwriting].",
         "A recipe for {dish} worth sharing, [then|salt and all|for sure]."),
        ("sad",
         "I [tried to make|attempted] {dish} and {mishap}. The kitchen smelled of [burnt|scorched] {dish} [all afternoon|all night].",
         "Oh dear, {dish} going wrong like that is [a pain|a nuisance|so frustrating]. Was the {dish} [rescuable|salvageable] in the end?",
         "<sortof>, we ate the {dish} with plenty of [bread|toast|cheese on top] and tried to laugh about it.",
         "Plenty of [bread|cheese] can [rescue most things|cover a lot of sins], even {dish}."),
        ("happy",
         "I rustled up {dish} with {spice} from leftovers in the fridge, and it came out [really well|better than expected|beautifully]!",
         "Rustling up {dish} with {spice} from leftovers is [real kitchen magic|a proper triumph|brilliant]."),
        ("neutral",
         "I am [trying|learning] to cook more from scratch, and [this time|last night] it was {dish} with {spice}.",
         "{dish} with {spice} is a [good|solid|sensible] dish to learn on. How did the {dish} turn out?",
         "It turned out [pretty|rather|fairly] well, though the {spice} was [a bit strong|a little overpowering].",
         "Easy on the {spice} [next time|on the next go], then, and the {dish} will be perfect."),
        ("sad",
         "I {mishap} while I was making {dish} for my {rel}, [how embarrassing|what a disaster|and I was mortified].",
         "Oh dear, [poor you|what a pain], and with your {rel} watching. [Did|And did] your {rel} [notice|mind]?",
         "<yes>, {rel_subj} noticed [instantly|in a flash] and teased me [all through the meal|about it at length].",
         "Teasing over {dish} [comes with the territory|is a family sport], I suppose."),
        ("happy",
         "My {rel} [taught me|showed me] how to make {rel_poss} famous {dish}. My {dish} tasted [almost|nearly] as good as the original!",
         "Learning to make {dish} from your {rel} is a [lovely|wonderful] thing. What is the secret of the {dish}?",
         "The secret of the {dish} is {spice} and a lot of patience, [apparently|according to {rel_obj}].",
         "{spice} and patience, [good to know|a secret worth knowing|worth remembering]."),
        ("neutral",
         "I am [making|cooking] a big pot of {dish} to freeze in portions. The kitchen smells of {spice}.",
         "A kitchen that smells of {spice} sounds [inviting|very inviting], and a freezer full of {dish} is a [smart|clever] move."),
        ("sad",
         "I was [so tired|worn out] from work that I [could hardly face|barely managed] cooking. We had toast instead of {dish}.",
         "Oh dear, too tired to cook {dish} is [rotten|miserable]. Did the toast at least come with something [tasty|nice|cheering] on it [instead|to make up for it]?",
         "<yes>, toast with [lots of butter|melted cheese|a fried egg] and a cup of [tea|cocoa].",
         "Toast and a hot drink [beat|rival] {dish} on a tiring [night|shift]."),
        ("happy",
         "My {rel} cooked {dish} for me [as a surprise|out of the blue]. I came home to the smell of {spice}.",
         "Coming home to {dish} from your {rel} is a [lovely|wonderful] surprise. Was the {dish} as tasty as it smelled?",
         "<yes>, even tastier than it smelled, and {rel_subj} did the washing up [too|as well].",
         "{dish} and the washing up done by your {rel}, [lucky you|what a treat]."),
        ("neutral",
         "I am trying to cook with less salt and more {spice}. My {rel} is [suspicious|unconvinced] so far.",
         "Swapping salt for {spice} is a [clever|sensible] idea. Has your {rel} [come round to it|warmed to it]?",
         "<sortof>, {rel_subj} [admits|grudgingly admits] the {spice} is growing on {rel_obj}.",
         "{spice} growing on your {rel} is [progress|a good sign]."),
    ),
    _topic(
        "garden",
        {
            "crop": ("tomatoes", "runner beans", "courgettes", "strawberries", "lettuces",
                     "raspberries", "broad beans", "radishes", "gooseberries", "cucumbers",
                     "blackcurrants"),
            "flower": ("sweet peas", "sunflowers", "dahlias", "foxgloves", "tulips", "daffodils",
                       "lupins", "cornflowers", "marigolds", "snapdragons", "peonies"),
            "pest": ("the slugs", "the snails", "the pigeons", "the caterpillars", "the squirrels",
                     "the blackbirds", "the rabbits", "the greenfly", "the mice", "the wasps",
                     "the deer"),
            "bed": ("the raised bed", "the greenhouse", "the patio pots", "the border by the fence",
                    "the vegetable patch", "the allotment", "the pots by the door",
                    "the window box", "the bed under the apple tree", "the herb bed",
                    "the planter on the balcony"),
        },
        ("happy",
         "The {crop} in {bed} are ready at last. I ate a handful of {crop} [with lunch|straight off the plant|while I watered].",
         "Home grown {crop} from {bed} are [such a treat|a real treat|hard to beat]. Will there be [enough|plenty of] {crop} to share?",
         "<yes>, [plenty|loads|more than enough], so my {rel} is getting a bag of {crop}.",
         "A bag of {crop} is a [lovely|generous|very welcome] present for your {rel}."),
        ("sad",
         "{pest} have [eaten|munched through|demolished] most of my {crop} overnight, and I could have [cried|screamed].",
         "Oh, [how maddening|that is rotten|what a blow], losing the {crop} to {pest}. Are any {crop} left?",
         "<yes>, a few {crop} at the far end survived, so I am guarding them [closely|like a hawk|with netting].",
         "Guard those last {crop} [well|closely] from {pest}, then."),
        ("happy",
         "The {flower} in {bed} are in full bloom. The bees [are loving|love|adore] the {flower}.",
         "Blooming {flower} and busy bees in {bed} sound [glorious|lovely|wonderful]."),
        ("neutral",
         "I weeded {bed} all afternoon, and my shoulders ache [a bit|a fair bit|rather].",
         "A whole afternoon weeding {bed} will do that to the shoulders. What will you grow in {bed}?",
         "I will grow {crop} in {bed}, I think, and [maybe|perhaps] some [herbs|flowers for the bees].",
         "{crop} in {bed} sounds like a [fine|good|sensible] use of the space."),
        ("sad",
         "A late frost [got|caught] my {flower} overnight. The {flower} are all [limp and brown|black at the edges].",
         "Oh dear, losing {flower} to frost is [miserable|heartbreaking|rotten luck]. Will the {flower} recover?",
         "[I think so|Sort of|Kind of], the roots of the {flower} look healthy, so [fingers crossed|I am hopeful].",
         "Healthy roots are a [good|hopeful|promising] sign for the {flower}."),
        ("happy",
         "A blackbird followed me round {bed} while I dug, [hoping for|looking for] worms.",
         "A blackbird following you round {bed} is [charming|delightful|lovely]. Did it find [many|plenty of] worms in {bed}?",
         "<yes>, plenty of worms, and it flew off with a beakful [to its nest|over the fence].",
         "A beakful of worms from {bed}, [a very happy bird|a good haul], then."),
        ("neutral",
         "My {rel} brought me some {flower} seedlings from {rel_poss} garden.",
         "{flower} seedlings from your {rel}, [how kind|what a kind thought|how generous]. Where will the {flower} go?",
         "The {flower} will go in {bed}, [where they catch|so they get] the sun.",
         "{bed} in the sun sounds [ideal|perfect|just right] for {flower}."),
        ("sad",
         "Something dug up the bulbs I planted in {bed}, [so much for all that work|the squirrels, I suspect|and I am fuming].",
         "Oh dear, bulbs dug up in {bed} is [so disheartening|rotten luck|maddening]."),
        ("neutral",
         "I [am making|have been making] compost in a big bin by {bed}, and it is [oddly exciting|strangely satisfying].",
         "Making compost by {bed} is [quietly satisfying|oddly addictive]. What goes in the compost [bin|heap] by {bed}?",
         "The compost by {bed} gets [vegetable peelings|peelings], [coffee grounds|tea leaves] and eggshells.",
         "Peelings and eggshells make [lovely|rich|crumbly] compost for {bed}."),
        ("happy",
         "I [won|took] a prize for my {crop} at the village show!",
         "A prize for your {crop}, [brilliant|well done|how exciting]! Was there [much|stiff] competition for the {crop}?",
         "<yes>, stiff competition, [especially|mostly] from [a man with a huge greenhouse|the allotment crowd].",
         "Beating stiff competition with your {crop} makes it [even sweeter|a proper triumph]."),
    ),
    _topic(
        "walk",
        {
            "route": ("along the canal", "through the woods", "up the hill behind the village",
                      "along the river", "round the reservoir", "across the common",
                      "along the cliff path", "through the water meadows", "round the old quarry",
                      "along the disused railway line", "over the downs"),
            "sight": ("a heron", "a kingfisher", "a fox", "a family of swans", "a deer",
                      "a buzzard", "a hare", "a grass snake", "an otter", "a barn owl",
                      "a woodpecker"),
            "treat": ("a slice of cake", "a hot chocolate", "a bacon roll", "a pot of tea",
                      "an ice cream", "a scone with jam", "a bowl of chips", "a warm pasty",
                      "a mug of soup", "a toasted teacake", "a cheese toastie"),
        },
        ("happy",
         "I went for a long walk {route} and saw {sight} so close I could [hardly breathe|barely believe it]!",
         "{sight} on a walk {route}, [how wonderful|what a treat|how lucky]. [Did|And did] it hang around [for long|long enough to watch]?",
         "<sortof>, long enough for a proper look at {sight}, then it [vanished|slipped off|was gone in a flash].",
         "A proper look at {sight} is [a real treat|lucky indeed|worth the walk]."),
        ("sad",
         "I got [completely|hopelessly] lost on a walk {route}, [with a dead phone|in a field of cows|thanks to useless signposts].",
         "Oh dear, getting lost {route} is [unnerving|horrible|a real worry]. [How|So how] did you find your way [home|out]?",
         "I found my way [by following the sound of traffic|with help from a kind dog walker|by heading for the church spire] [in the end|eventually].",
         "Finding your way [home|out] [in the end|at last] [is what counts|is a relief]."),
        ("happy",
         "We walked {route} and rewarded ourselves with {treat} at the [cafe|little cafe at the end].",
         "A walk {route} with {treat} to finish sounds [perfect|just right|ideal]."),
        ("neutral",
         "My {rel} and I have taken up walking {route}, and it is a [nice|good|pleasant] habit.",
         "Walking {route} with your {rel} sounds like a [fine habit|good routine]. [Do|And do] you walk far {route}?",
         "<sortof>, we walk as far as the cafe, have {treat} and then amble home.",
         "Walking for {treat} is a [fine|civilised|very sensible] kind of exercise."),
        ("sad",
         "I walked {route} in the wrong shoes, and my heels are covered in [blisters|angry blisters].",
         "Oh, [poor you|ouch], blisters from a walk {route} are [miserable|agony]. [Have you got|Do you have] plasters [in the house|handy|to hand]?",
         "<yes>, plenty of plasters, and I am padding about in [slippers|thick socks].",
         "Plasters and a quiet night in, a [sensible|wise|proper] cure [for sore heels|for blisters]."),
        ("happy",
         "I showed my {rel} the walk {route}, and {rel_subj} [loved it|was so taken with it].",
         "Showing your {rel} a [favourite|special] walk is [lovely|such a nice thing]. Did {rel_subj} spot anything {route}?",
         "<yes>, {rel_subj} spotted {sight} [by the water|on the path ahead|in the long grass].",
         "{sight} on the walk, [lucky {rel_obj}|what a treat for {rel_obj}]."),
        ("neutral",
         "I like an aimless stroll {route} because it clears my head [better than anything|beautifully|nicely].",
         "An aimless stroll {route} does sound good for clearing the head. [Do|And do] you take music [with you|along]?",
         "<sortof>, [a podcast|the odd podcast], but mostly I listen to the birds {route}.",
         "Listening to the birds {route} [beats any podcast|sounds far nicer]."),
        ("sad",
         "It poured on our walk {route} and we got soaked [to the skin|right through].",
         "Oh dear, getting soaked {route} sounds [miserable|grim]. {treat} [afterwards|on the way home] would be well deserved."),
        ("neutral",
         "There is a bench {route} with a [lovely|little] plaque on it, and I [sit there|rest there] [most walks|for a breather].",
         "A bench {route} with a plaque [sounds like a lovely spot|is a nice place to pause]. [Do|And do] you know [whose bench it is|the story behind it]?",
         "<sortof>, the plaque is for a [keen walker|lady fond of the view|man fond of the ducks].",
         "A plaque for a [walker|kindred spirit] {route} [is a lovely tribute|feels just right]."),
    ),
    _topic(
        "film",
        {
            "genre": ("spy thriller", "silly comedy", "nature documentary", "horror film",
                      "courtroom drama", "heist film", "space adventure", "period drama",
                      "murder mystery", "war film", "romantic comedy", "musical"),
            "snack": ("a tub of popcorn", "a bowl of crisps", "a bar of chocolate", "a pot of tea",
                      "a bag of sweets", "homemade nachos", "hot buttered toast",
                      "a box of chocolates", "a bowl of cherries", "a mug of cocoa",
                      "a tray of brownies"),
            "venue": ("at the cinema", "on the sofa", "at the little cinema in town",
                      "at an outdoor screening", "on the big screen", "on the laptop in bed",
                      "at the arts centre", "at the film club", "in the village hall",
                      "at the pop up cinema", "at home on the projector"),
        },
        ("happy",
         "We watched a {genre} {venue} the other night, and it was [much|far] better than I expected.",
         "A {genre} that beats expectations is a [lovely|nice|welcome] surprise. What was the best bit of the {genre}?",
         "The best bit of the {genre} was the ending, it caught me [completely|totally] off guard.",
         "A clever ending [is worth the ticket|is what makes a film|lifts any {genre}]."),
        ("sad",
         "I dozed off in the middle of a {genre} {venue} and woke up to the credits [and a cold cup of tea|rolling].",
         "Oh dear, sleeping through a {genre} is [annoying|a shame|so frustrating]. Will you watch the end of the {genre} [another time|properly]?",
         "<yes>, I will watch the end of the {genre} [properly|wide awake], with {snack}.",
         "{snack} and the end of the {genre}, [then|a fine idea|a fine rescue]."),
        ("neutral",
         "My {rel} and I argued about the ending of a {genre} for ages. I reckon the hero of the {genre} was [dreaming|imagining] the whole thing.",
         "Debating the ending of a {genre} is [part of the fun|the best part]. [Did|And did] your {rel} agree in the end?",
         "<sortof>, {rel_subj} agreed my theory [made some sense|was worth a thought] [in the end|eventually].",
         "Winning your {rel} round to a theory [is quite a feat|is an achievement|takes skill]."),
        ("happy",
         "We had a film night with a {genre} and {snack}, [and it was perfect|exactly what we needed|pure bliss].",
         "A {genre} with {snack} sounds like a [perfect|cracking|lovely] film night."),
        ("sad",
         "Someone behind us at the cinema [chatted|rustled sweets] through the whole {genre}, [and it drove me mad|so I could barely follow it].",
         "Oh, how [maddening|annoying], chatter behind you can ruin a {genre}. [Did|And did] you move seats [in the end|to escape]?",
         "<yes>, we moved seats nearer the front, and it was [much quieter|far calmer].",
         "Moving seats was the [right|sensible] call for a {genre}."),
        ("neutral",
         "My {rel} [dragged|persuaded] me to see a {genre} {venue}, and I went along under protest.",
         "Going to a {genre} under protest [is a risky start|sounds like a test of patience]. [Did|And did] the {genre} win you over?",
         "<yes>, [much to my surprise|annoyingly], the {genre} won me over [completely|in the end].",
         "Won over by a {genre}, your {rel} must be [smug|delighted|very pleased]."),
        ("happy",
         "I saw a {genre} at the cinema that had the whole audience clapping at the end.",
         "A whole audience clapping at a {genre} sounds [wonderful|brilliant]. Was the crowd hooked [all the way through|throughout] the {genre}?",
         "<yes>, the crowd was hooked [from start to finish|throughout], [me included|and so was I].",
         "A hooked crowd makes a {genre} [feel special|even better]."),
        ("sad",
         "The {genre} [I was looking forward to|everyone raved about] was [a real letdown|so dull], and I nearly walked out.",
         "Oh, what a shame, a dull {genre} is [so disappointing|a real letdown] with hopes so high."),
        ("neutral",
         "I [watched|caught] an old {genre} {venue} with {snack}, and they [really|truly] made films differently [in that era|in those studios].",
         "An old {genre} {venue} [sounds like a treat|is a fine way to unwind]. Did the {genre} [hold up|stand the test of time]?",
         "<sortof>, the {genre} was [creaky|a bit creaky] but [charming|great fun] all the same.",
         "Creaky but charming is [the best kind of|a fine sort of] {genre}."),
    ),
    _topic(
        "football",
        {
            "moment": ("a late header", "a goal from a free kick", "a penalty save",
                       "a last gasp equaliser", "an overhead kick", "a scrappy goal off the knee",
                       "a thumping volley", "a curling shot into the top corner", "a diving header",
                       "a lob from miles out"),
            "bad": ("lost in extra time", "lost on penalties", "conceded in stoppage time",
                    "lost to a deflected goal", "missed a penalty and lost",
                    "let in a soft goal and lost", "lost to a goal off the post",
                    "lost to an own goal", "lost to a late penalty", "lost on goal difference",
                    "lost to the last kick of the game"),
            "place": ("at the pub", "on the radio", "from the stands", "on the telly",
                      "at the local ground", "on a tiny screen at the cafe", "in the club bar",
                      "on a phone on the bus", "in the sports bar",
                      "on the big screen in the square", "from the terraces"),
        },
        ("sad",
         "My team {bad} in such a [close|tight] game, and I am [gutted|heartbroken].",
         "Losing a [close|tight] game like that is [gutting|rotten|cruel], [poor you|how miserable]. Did anyone [commiserate with you|share the misery] [at least|afterwards]?",
         "<yes>, my {rel} rang and we moaned about the game together for ages.",
         "Moaning about the game with your {rel} [helps a lot|makes fine therapy|is the best cure]."),
        ("happy",
         "We won with {moment} [right at the death|in the dying seconds], and the whole place went [wild|mad]!",
         "{moment} to win it, [brilliant|what a finish|how thrilling], were you watching live?",
         "<yes>, I watched it live {place} and [shouted|screamed] myself hoarse.",
         "A hoarse voice is [worth it|a small sacrifice] for {moment}."),
        ("neutral",
         "I took my {rel} along to a local match, and {rel_subj} asked about the offside rule [constantly|all match|the whole time].",
         "Explaining offside to your {rel} mid match sounds [like a challenge|tricky|like quite a task]. Did your {rel} enjoy the match [in the end|overall]?",
         "<yes>, {rel_subj} enjoyed the match, [and the pies|mostly for the pies|pies and all].",
         "The pies at a [local|village] match [win a lot of fans|are a big draw|count for a lot]."),
        ("sad",
         "{moment} from the other side knocked us out of the cup, [and I could hardly watch|what a blow|and I am sore about it].",
         "Oh dear, going out of the cup to {moment} is [cruel|so cruel|a rotten way to lose]."),
        ("happy",
         "My {rel} and I watched the derby {place}, and the atmosphere was [electric|incredible].",
         "A derby {place} with your {rel} sounds [brilliant|like great fun|thrilling], atmosphere and all."),
        ("neutral",
         "I play walking football with my {rel} and some folk from the village, though my knees [complain|ache|creak].",
         "Walking football with your {rel} [sounds great fun|is a clever idea], complaining knees and all. [Do|And do] you and your {rel} play often?",
         "<sortof>, we play whenever enough people turn up [at the field|at the park|on the green].",
         "Playing whenever enough [people|folk] turn up sounds [very relaxed|nicely informal|just right]."),
        ("sad",
         "The match was rained off at the last moment, and I had trekked all the way to the ground with my {rel}.",
         "Oh, how [frustrating|annoying], trekking all that way with your {rel} for a match to be rained off. Did you and your {rel} [salvage|rescue] the outing [somehow|at all]?",
         "<yes>, we found a warm cafe and [had hot chocolate|warmed up with soup|shared a pot of tea].",
         "A warm cafe with your {rel} [is a decent consolation|beats a soggy terrace]."),
        ("happy",
         "My {rel} scored {moment} for {rel_poss} works team!",
         "{moment} from your {rel}, [brilliant|how exciting|what a star]! Did your {rel} celebrate [in style|properly]?",
         "<yes>, {rel_subj} celebrated with a very silly dance [and a pint|in front of the crowd].",
         "Celebrating {moment} in style, [good for {rel_obj}|quite right too]."),
        ("neutral",
         "I listened to the match {place} [while I cooked|while I did the ironing], and the commentator was [very excitable|beside himself].",
         "An excitable commentator {place} [makes any match better|sounds like good company]. [Did|And did] the match live up to the [commentary|excitement]?",
         "<sortof>, the match was [a bit dull|fairly scrappy], but the commentary was [brilliant|priceless].",
         "Brilliant commentary {place} on a [scrappy|dull] match [is a fine deal|is a happy mix]."),
    ),
    _topic(
        "reading",
        {
            "novel": ("a detective novel", "a fat family saga", "a memoir by an old sailor",
                      "a collection of ghost stories", "a history of the canals",
                      "a travel memoir about the desert", "a thriller set on a night train",
                      "a novel about a lighthouse keeper", "a biography of a painter",
                      "a comic novel about a village fete", "a spy novel set by the sea"),
            "place": ("in the bath", "on the train", "in bed", "in the garden", "at the library",
                      "on the sofa", "in the hammock", "at the cafe", "by the fire", "on the beach",
                      "in the window seat"),
        },
        ("happy",
         "I am [deep into|hooked on] {novel}. I read far too late into the night {place}.",
         "{novel} that steals your sleep is [a good sign|a treat|the best kind]. [Do|And do] you have a favourite character [so far|in it]?",
         "<yes>, my favourite character is a grumpy old aunt with [all the best lines|a sharp tongue].",
         "Grumpy aunts make the best characters, [especially|above all] in {novel}."),
        ("sad",
         "I left {novel} on the train with a few pages to go, [and I am kicking myself|how annoying].",
         "Oh, [how annoying|what a pain|how frustrating], leaving {novel} on the train so near the end. Will you get another copy of {novel}?",
         "<yes>, I reserved another copy [at the library|from the library van].",
         "A library copy of {novel} [should rescue the ending|will put you out of your misery]."),
        ("neutral",
         "My {rel} handed me {novel} and [insists|swears] I will love it.",
         "{novel} from your {rel} [sounds promising|could be a gem|sounds intriguing]. Have you [started|dipped into] it [at all|so far]?",
         "<yes>, I read a chapter {place} and it seems [charming|rather lovely].",
         "A chapter {place} is a [promising|gentle|fine] start."),
        ("happy",
         "I found {novel} at a charity stall [for pennies|in a box of odds and ends], with a lovely handwritten dedication inside.",
         "{novel} with a handwritten dedication [is a lovely find|makes a charming find|is a real treasure]."),
        ("sad",
         "I am really struggling with {novel}, as the chapters drag [terribly|on and on].",
         "Oh dear, dragging chapters [are such a slog|make reading a chore], even in {novel}. Will you [push on|persevere] with it?",
         "<sortof>, I will read a few more chapters {place} and see.",
         "A few more chapters {place} is a fair [trial|test]."),
        ("neutral",
         "Reading {place} has become my little ritual. [At the moment it is|This time it is] {novel}.",
         "Reading {place} sounds like a [lovely|very cosy] ritual. Is {novel} worth the ritual?",
         "<yes>, very much, {novel} suits the ritual [perfectly|nicely].",
         "A ritual {place} and a good novel, [what more could you want|a fine pairing]."),
        ("happy",
         "I went along to a reading group at the library, and we talked about {novel}.",
         "A reading group talking about {novel} sounds [fun|lovely|very civilised]. Were the others [friendly|welcoming] [to a newcomer|at the group]?",
         "<yes>, really friendly, and there were [biscuits|little cakes] with the tea.",
         "Friendly folk and a talk about {novel}, [a winning|a fine] combination."),
        ("sad",
         "I spilled tea over {novel} {place}, and the pages have gone all crinkly.",
         "Oh dear, tea on {novel} is [such a pain|a rotten shame], and crinkly pages [are sad to see|feel like a loss]."),
        ("neutral",
         "My {rel} reads {novel} to {rel_poss} children [at bedtime|by torchlight], and they are [gripped|hooked].",
         "{novel} at bedtime [sounds ambitious|is a bold choice] for children. [Do|And do] they beg for [more|another chapter]?",
         "<yes>, they beg for more, so {rel_subj} reads [an extra chapter|a few extra pages] [most nights|as a treat].",
         "An extra chapter of {novel} [is a fine treat|sounds like a lovely habit]."),
    ),
    _topic(
        "cold",
        {
            "symptom": ("a streaming nose", "a sore throat", "a thumping headache",
                        "a tickly cough", "a stuffy nose", "a chesty cough", "a croaky voice",
                        "a fuzzy head", "a raw throat", "aching limbs"),
            "remedy": ("honey and lemon", "hot soup", "ginger tea", "a hot water bottle",
                       "steaming mugs of tea", "a pile of blankets", "a box of tissues",
                       "a stack of old films", "a heap of cushions", "a good detective series"),
            "drink": ("honey and lemon", "ginger tea", "hot blackcurrant", "peppermint tea",
                      "lemon and ginger", "orange juice", "hot water with honey", "chicken broth",
                      "camomile tea", "hot lemon", "spiced apple juice"),
            "gift": ("a flask of soup", "a bag of oranges", "a box of tissues", "a jar of honey",
                     "a pile of magazines", "a hot water bottle", "a tub of ice cream",
                     "a bunch of grapes", "a homemade cake", "a box of chocolates",
                     "a bag of clementines"),
        },
        ("sad",
         "I have come down with a cold and {symptom}, and I feel [rotten|sorry for myself|like death warmed up].",
         "Oh dear, a cold with {symptom} is [miserable|rotten|horrid]. [Are|And are] you resting [properly|at least]?",
         "<yes>, I am resting on the sofa with {remedy}.",
         "Resting with {remedy} is [the best medicine|just right|wise], and I hope {symptom} clears quickly."),
        ("sad",
         "My {rel} passed {rel_poss} cold on to me, [typical|thanks a lot|how generous].",
         "Oh dear, catching a cold from your {rel} is [rotten luck|so annoying|hard to dodge]. Is your {rel} feeling better, at least?",
         "<yes>, {rel_subj} is feeling much better and [very apologetic|rather smug|full of beans].",
         "Your {rel} feeling better is [something, at least|a small comfort|a mixed blessing]."),
        ("neutral",
         "I think I am fighting off a cold, so I am drinking {drink} by the [gallon|bucket].",
         "{drink} by the [gallon|bucket] [sounds|seems] a [sensible|solid] defence. Is the {drink} helping?",
         "<sortof>, the {drink} is helping a little with {symptom}.",
         "{drink} and a bit of rest should help with {symptom}."),
        ("happy",
         "My [cold|stinking cold|rotten cold] has cleared up at last, and I could smell my coffee properly [this afternoon|for a change|with relief]!",
         "[Smelling|Tasting] coffee properly with a cleared cold is a [real treat|small joy|lovely thing]."),
        ("sad",
         "I have lost my voice with this cold and I sound like a [frog|creaky door|rusty gate], and my {rel} finds it [hilarious|very funny].",
         "Oh dear, losing your voice [to a cold|like that] is [so frustrating|miserable|rotten luck]. Is your {rel} being [kind|sympathetic] about it?",
         "<sortof>, {rel_subj} [giggles|chuckles] whenever I croak.",
         "Laughing at your croak is [a bit cheeky|rather unkind] of your {rel}."),
        ("neutral",
         "Everyone at work has a cold this season, so I am [dosing myself with|living on] {drink}.",
         "A cold going round [work|the office] [sounds hard to dodge|is tricky to escape]. Have you [escaped it|dodged it] so far, [touch wood|fingers crossed]?",
         "<yes>, so far, thanks to {drink} and plenty of sleep.",
         "{drink} and plenty of sleep, a [sensible|sound|proper] defence."),
        ("sad",
         "I woke up with {symptom} and had to miss lunch with my {rel}.",
         "Oh, what a shame to miss lunch with your {rel} because of {symptom}."),
        ("happy",
         "My {rel} came round with {gift} [while I was poorly|for my cold].",
         "{gift} from your {rel}, [how kind|what a lovely gesture|how thoughtful]. Did it cheer you up [a bit|at all]?",
         "<yes>, it cheered me up [enormously|a great deal].",
         "Being cheered up by your {rel} [is the best medicine|works wonders]."),
        ("neutral",
         "I am [working from the sofa|wrapped up on the sofa] with {symptom} and {remedy}.",
         "The sofa with {remedy} sounds [like the right place|wise] with {symptom}. [Are|And are] you taking it easy [at least|properly]?",
         "<sortof>, I am taking it easy between [emails|naps], with {remedy} close by.",
         "Taking it easy with {remedy} close by [is the way|sounds right]."),
    ),
    _topic(
        "cat",
        {
            "cat": ("the cat", "the old tabby", "the kitten", "the ginger cat", "the black cat",
                    "the fluffy cat", "the elderly cat", "the tortoiseshell", "the rescue cat",
                    "the new kitten", "the grumpy old tom"),
            "nook": ("on the radiator", "in the laundry basket", "in a cardboard box",
                     "on the pillows", "in the airing cupboard", "on the warm laptop",
                     "in the bathroom sink", "on top of the fridge", "in the fruit bowl",
                     "in an open suitcase", "on the ironing board"),
            "mischief": ("knocked a plant pot off the windowsill", "brought a frog into the house",
                         "shredded the toilet roll", "unravelled my knitting",
                         "climbed the curtains", "tipped over a glass of water",
                         "dragged a leaf into the bed", "pinched a sausage off the counter",
                         "shredded the arm of the sofa", "walked across my wet painting"),
        },
        ("neutral",
         "{cat} has taken to sleeping {nook}, [looking very pleased with itself|very content].",
         "A cat sleeping {nook} is [so typical|such a cat thing|classic behaviour]. Have you tried offering {cat} a proper bed?",
         "<yes>, I tried a cushion [in a basket|by the fire], but {cat} ignored it and curled up {nook} instead.",
         "Ignoring a comfy cushion to curl up {nook} is [classic cat|typical cat|pure cat]."),
        ("sad",
         "{cat} {mischief} [last night|while I was out], [what a mess|and I despair].",
         "Oh dear, [what a pain|how annoying|what a menace] {cat} can be. Did {cat} look [guilty|sorry] at all?",
         "<sortof>, {cat} sat [on the stairs|by the door|in the hall] looking smug.",
         "Smug is a speciality of {cat}, [sadly|I am afraid]."),
        ("happy",
         "{cat} curled up on my lap all afternoon and purred [like an engine|the whole time].",
         "{cat} purring on your lap all afternoon sounds [blissful|lovely|heavenly]. Did you manage to move [at all|an inch] under {cat}?",
         "<sortof>, I [dozed|read a little] and barely moved [an inch|a muscle].",
         "[Barely moving|Staying put] under {cat} is a [fine|lovely] way to pass an afternoon."),
        ("sad",
         "{cat} is off its food and [I am a bit worried|it has me worried].",
         "Oh dear, {cat} off its food is [worrying|such a worry]. I hope {cat} perks up [quickly|with a bit of fuss]."),
        ("neutral",
         "{cat} sits by the door and yowls at dawn for breakfast, [and it is relentless|louder than any alarm].",
         "{cat} yowling at dawn for breakfast is [a proper alarm clock|hard to ignore]. [Do|And do] you get up for {cat}?",
         "<yes>, I give in to {cat} and get up, [grumpily|bleary eyed].",
         "Cats [tend to win|win] that argument, [I am afraid|sadly]."),
        ("happy",
         "My {rel} came round and {cat} took a shine to {rel_obj} [straight off|instantly].",
         "{cat} taking a shine to your {rel} is [a real compliment|lovely]. Is your {rel} a cat person?",
         "<yes>, {rel_subj} is a [big|huge] cat person, so the feeling is mutual.",
         "A cat person and a friendly cat, a [perfect|happy] match for your {rel}."),
        ("neutral",
         "{cat} watches the birds [out of|through] the window all afternoon, chattering [to itself|under its breath].",
         "{cat} chattering at birds from the window is [so funny|such a cat thing|a great show]."),
        ("neutral",
         "{cat} has figured out how to open the cupboard with the treats in it. My {rel} [caught|saw] it in the act!",
         "A cat that opens the treat cupboard is a [genius|menace], and your {rel} saw it too. [Have you had|Did you have] to put a lock on the cupboard to stop {cat}?",
         "<yes>, a child lock on the cupboard, and {cat} is [furious|sulking].",
         "A [furious|sulking] cat and a locked cupboard, [fair enough|a fair trade]."),
        ("happy",
         "{cat} brought me a [present|gift] of a leaf {nook} [this afternoon|out of nowhere].",
         "A leaf {nook} from {cat}, [how sweet|what a treat]. Did you thank {cat} [properly|graciously]?",
         "<yes>, I thanked {cat} with [a chin scratch|a few treats|lots of fuss].",
         "Thanking {cat} properly [brings more presents|is only polite]."),
    ),
    _topic(
        "dog",
        {
            "dog": ("the dog", "the spaniel", "the puppy", "the old labrador", "the terrier",
                    "the collie", "the greyhound", "the beagle", "the scruffy mongrel",
                    "the dachshund", "the sheepdog"),
            "park": ("in the park", "on the beach", "by the river", "in the woods",
                     "across the fields", "round the lake", "on the common", "along the towpath",
                     "on the playing fields", "on the moors", "round the village"),
            "mischief": ("chewed a slipper", "rolled in fox muck", "dug a hole in the lawn",
                         "ate a whole sock", "jumped in the pond", "chased a squirrel up a tree",
                         "shredded a cushion", "pinched a sandwich from a picnic",
                         "ran off with a stick the size of a tree", "barked at a statue"),
            "trick": ("shake a paw", "roll over", "wait at the kerb", "fetch the ball", "play dead",
                      "spin in a circle", "ring a bell to go out", "take a bow",
                      "walk on his hind legs", "balance a biscuit on his nose",
                      "find a hidden toy"),
        },
        ("sad",
         "{dog} {mischief} [on our walk|this afternoon], and he was so pleased with himself.",
         "Oh dear, [what a pain|how maddening|what a rascal] {dog} can be. Did he look [at all sorry|the least bit sorry]?",
         "<sortof>, he wagged his tail and [looked sheepish|tried to look innocent].",
         "A wagging tail [is hard to stay cross at|melts the crossest heart], [I know|I imagine]."),
        ("happy",
         "I taught {dog} to {trick}, and it took [ages|so much patience] and a mountain of treats!",
         "Teaching {dog} to {trick} is [brilliant|a real achievement|impressive]. What is the next trick for {dog}?",
         "The next trick is teaching him to [tidy his toys|close the door|fetch my slippers], [if I am lucky|wish me luck].",
         "Going beyond {trick} would be [quite something|impressive] for {dog}."),
        ("neutral",
         "We walked {dog} {park} and he made friends with a very fluffy [poodle|spaniel].",
         "Making a fluffy new pal {park} sounds like [a fine walk|a good outing]. [Did|And did] they play together {park}?",
         "<yes>, they played chase [for ages|round and round] and {dog} came home shattered.",
         "A shattered dog is a [happy|contented] dog, [especially|above all] {park}."),
        ("sad",
         "{dog} cut his paw {park} on a sharp stone, and [he is limping a bit|the poor thing is limping].",
         "Oh dear, a sore paw for {dog} is [horrible|miserable]. Did the vet take a look at {dog}?",
         "<yes>, the vet cleaned the paw and put on a [little|bright blue] bandage.",
         "[A bandaged|A clean] paw should heal [quickly|nicely] with a bit of rest [at home|on the sofa]."),
        ("happy",
         "{dog} went mad with joy in the snow {park} and ran in circles [barking at it|snapping at snowflakes].",
         "A dog going mad with joy in the snow {park} is [pure delight|wonderful to picture]."),
        ("neutral",
         "My {rel} is minding {dog} for a few nights, and I miss him already.",
         "Your {rel} minding {dog} sounds [ideal|kind|handy]. Is {dog} behaving [for {rel_obj}|himself]?",
         "<yes>, apparently {dog} is behaving [beautifully|perfectly] and being spoilt rotten.",
         "Spoilt rotten by your {rel} sounds [about right|like a holiday for him]."),
        ("sad",
         "{dog} rolled in something [awful|revolting] {park}, and the whole car stank on the way home.",
         "Oh dear, {dog} smelling like that in the car is [grim|awful]. A bath for {dog} sounds [urgent|essential]."),
        ("happy",
         "I took {dog} to obedience classes and he came top of the class.",
         "Top of the class for {dog}, [well done|how brilliant]! Was he the smallest [there|in the class]?",
         "<yes>, the smallest there and [by far|easily] the bounciest.",
         "Smallest and bounciest, [quite a combination|what a star] {dog} is."),
        ("happy",
         "My {rel} got a puppy and sends me photos of it {park}, [and it is adorable|and I am smitten].",
         "Puppy photos from your {rel} {park}, [how lovely|what a joy]. Has your {rel} thought of a name?",
         "<yes>, a very grand name for such a tiny puppy, [of course|naturally].",
         "A grand name for a [tiny|little] puppy is [perfect|just right|adorable]."),
    ),
    _topic(
        "bike ride",
        {
            "ride": ("along the old railway path", "round the country lanes", "up to the reservoir",
                     "along the coast road", "through the forest trails", "along the river path",
                     "over the moors", "round the lake", "along the canal towpath",
                     "up the long hill out of town"),
            "trouble": ("a puncture", "a slipped chain", "a squeaky brake", "a wobbly wheel",
                        "a flat tyre", "a loose pedal", "a snapped brake cable", "a bent wheel",
                        "a jammed gear", "a rattling mudguard", "a frayed gear cable"),
            "bike": ("old bike", "rusty bike", "folding bike", "trusty bike", "racing bike",
                     "mountain bike", "ancient bike", "town bike", "electric bike", "vintage bike",
                     "hybrid bike"),
            "treat": ("a flapjack", "a bacon roll", "a slice of cake", "a hot chocolate",
                      "a cheese scone", "a mug of soup", "an ice cream", "a cream tea",
                      "a sausage roll", "a toasted teacake", "a pot of tea"),
        },
        ("happy",
         "I cycled {ride} [this afternoon|with my {rel}], and the hills nearly finished me, but the view was [worth it|stunning].",
         "Cycling {ride} sounds [wonderful|glorious], hills and all. [Did|And did] you stop for {treat}?",
         "<yes>, {treat} at a tiny cafe [by the road|with a view].",
         "{treat} earned on a bike {ride} is the best kind."),
        ("sad",
         "I had {trouble} miles from home on a ride {ride}, [what a nuisance|typical].",
         "Oh dear, {trouble} miles from home is [miserable|the worst|a real pain], so how did you get the bike home?",
         "I [pushed|wheeled] the bike home with {trouble}, [grumbling|muttering] the whole way.",
         "Walking a bike home with {trouble} is [a long slog|hard going]."),
        ("neutral",
         "I have been cycling to work {ride} instead of driving, and it wakes me up [properly|nicely|better than coffee].",
         "Cycling {ride} to work sounds a [fine|grand|clever] way to wake up. Is the route {ride} [busy|hilly]?",
         "<sortof>, the route has [a steep hill|a busy roundabout|a bumpy stretch] [in the middle|near the end].",
         "A tricky stretch {ride} [makes a route more interesting|sharpens the senses], I suppose."),
        ("happy",
         "My {rel} and I rode {ride} on a tandem, and we laughed the whole way.",
         "Cycling {ride} on a tandem with your {rel} sounds [brilliant fun|like a real laugh|wonderful]."),
        ("sad",
         "A [car|van|lorry] overtook me far too close [on the main road|on the bypass|on a country lane|at a roundabout], and I nearly came off.",
         "Oh, how [frightening|horrible], a close pass like that is [awful|scary]. [Are|And are] you all right?",
         "<yes>, I am [all right|fine], [just a bit|a little] shaken.",
         "Shaken by a close pass makes sense, so take it [gently|easy] for a while."),
        ("neutral",
         "I mended {trouble} on my bike [all by myself|with a video tutorial], and it took [ages|forever].",
         "Mending {trouble} yourself is [very satisfying|handy to know]. Was {trouble} [fiddly|messy] to fix?",
         "<yes>, [very fiddly|fiddly and oily], and my hands are covered in oil.",
         "Oil on your hands from {trouble} is the mark of a proper mechanic."),
        ("happy",
         "I got my {bike} out of the shed and [oiled the chain|pumped up the tyres], and it rides like new!",
         "Your {bike} riding like new, [lovely|how satisfying], so where will you ride it?",
         "I will ride it {ride}, [if the weather holds|weather permitting].",
         "{ride} sounds [ideal|perfect] for your {bike}."),
        ("sad",
         "My {bike} [was stolen|got stolen] from outside the [station|library|shops], and I am [so cross|gutted].",
         "Oh, that is rotten, having your {bike} stolen [is horrible|really stings]."),
        ("neutral",
         "My {rel} wants to come cycling {ride} with me, and {rel_subj} [has a brand new bike|is very keen].",
         "Cycling {ride} with your {rel} sounds [fun|lovely]. Is your {rel} [fit enough|ready] for the hills?",
         "<sortof>, {rel_subj} is [keen|determined], so I will take the hills [gently|slowly].",
         "Taking the hills gently with a keen {rel} sounds [wise|kind|sensible]."),
    ),
    _topic(
        "baking",
        {
            "bake": ("banana bread", "lemon drizzle cake", "carrot cake", "sourdough", "shortbread",
                     "coffee and walnut cake", "gingerbread", "chocolate cake", "marble cake",
                     "seed cake", "apple cake", "cherry loaf"),
            "flop": ("sank in the middle", "burnt on the bottom", "came out flat as a pancake",
                     "came out raw in the middle", "cracked right across the top",
                     "rose like a volcano and overflowed", "turned out as hard as a brick",
                     "collapsed on the cooling rack", "came out as dry as dust",
                     "slid off the plate", "split down the middle"),
            "occasion": ("for the school fair", "for the village fete", "for a birthday tea",
                         "for a bake sale", "for the allotment show", "for a picnic",
                         "for the office", "for the street party", "for the choir tea",
                         "for the church tea", "for a leaving do"),
        },
        ("happy",
         "I baked {bake} {occasion} and it went down a storm!",
         "{bake} going down a storm {occasion} is a [triumph|real win|brilliant result]. Did anyone ask for the {bake} recipe?",
         "<yes>, [loads of people|a few people] asked for the {bake} recipe, so I will write it out.",
         "Your {bake} recipe in demand, [well done|how lovely|what a compliment]."),
        ("sad",
         "My {bake} {flop}, [and I could have wept|what a disaster|so much for that].",
         "Oh dear, [what a shame|how disheartening], {bake} that {flop}. Did you rescue any of the {bake}?",
         "<sortof>, we ate the edges of the {bake} with [custard|cream].",
         "Custard can rescue [most|almost any] bakes, {bake} included."),
        ("neutral",
         "I am trying to bake {bake} the way my {rel} makes it. My {bake} is [close|nearly there] but a bit different.",
         "Baking {bake} the way your {rel} makes it is a [tall ask|high bar]. [Have you asked|Did you ask] your {rel} for tips?",
         "<yes>, I asked, and {rel_subj} swears the secret is [room temperature butter|a very slow oven].",
         "The secret to {bake} from your {rel}, [worth knowing|a real gift]."),
        ("happy",
         "The house smells of {bake} [fresh from the oven|cooling on the rack], [pure bliss|heaven|what a smell]!",
         "A house smelling of {bake} [fresh from the oven|cooling on the rack] is [pure comfort|a lovely thing]."),
        ("sad",
         "I entered my {bake} in the village show and came last, [and I am crushed|humbling stuff].",
         "Oh, [how disappointing|what a shame], coming last with your {bake}. Did the judges leave any comments on your {bake}?",
         "<yes>, the judges found the {bake} a bit dry, [fair enough|sadly].",
         "Dry {bake} is fixable with a little more butter."),
        ("happy",
         "My {rel} and I baked {bake} together all afternoon, and there was flour [everywhere|on the ceiling]!",
         "Baking {bake} with your {rel}, flour and all, sounds [great fun|lovely]. [Did|And did] you share the washing up [fairly|at least]?",
         "<sortof>, {rel_subj} washed and I licked the bowl [clean|happily].",
         "Licking the {bake} bowl is the best job [going|in the kitchen]."),
        ("neutral",
         "I tried baking {bake} with honey instead of sugar.",
         "{bake} with honey instead of sugar [is an interesting twist|sounds intriguing]. How did the {bake} taste?",
         "The {bake} tasted [a bit odd|surprisingly nice], [to be honest|honestly].",
         "A taste test is the only real judge of {bake}."),
        ("sad",
         "I burnt my hand on the tin getting out the {bake}, [ouch|and it stings].",
         "Oh, [ouch|poor you], a burn from a hot {bake} tin [is miserable|really stings]. I hope the {bake} [was worth it|survived]."),
        ("happy",
         "I baked {bake} for my {rel} as a thank you, and {rel_subj} [was thrilled|nearly cried].",
         "{bake} as a thank you for your {rel} is [a lovely gesture|so thoughtful]. Did {rel_subj} share the {bake}?",
         "<sortof>, {rel_subj} shared [a slice|a small slice] of {bake} and hid the rest.",
         "Hiding the rest of the {bake} is [fair enough|a compliment]."),
    ),
    _topic(
        "concert",
        {
            "act": ("a brass band", "a folk duo", "a string quartet", "a gospel choir",
                    "a tribute band", "a jazz band", "a ukulele orchestra", "a steel band",
                    "a big band", "a ceilidh band", "a male voice choir"),
            "hall": ("at the bandstand in the park", "in the old church hall", "in a tiny pub",
                     "at the town hall", "in the cathedral", "in a marquee on the green",
                     "at the village hall", "in a barn on a farm", "at the arts centre",
                     "at the school hall", "at the bandstand on the seafront"),
        },
        ("happy",
         "I saw {act} {hall} and they were [brilliant|fantastic], with everyone clapping along.",
         "{act} {hall} sounds [brilliant|like a great night|wonderful]. [Did|And did] you dance [at all|along]?",
         "<yes>, I danced to {act} with great enthusiasm, I admit.",
         "Enthusiastic dancing to {act} is the best kind."),
        ("sad",
         "The concert {hall} was so [packed|crowded] I could barely see {act} over the crowd.",
         "Oh, how [frustrating|annoying], barely seeing {act} over the crowd. Could you at least hear [the music|{act}]?",
         "<yes>, the music sounded [wonderful|glorious], so I shut my eyes and listened.",
         "Shutting your eyes and listening to {act} [is a fine way|can be the best way] to hear music."),
        ("neutral",
         "My {rel} [dragged|took] me to see {act} {hall}, a bit outside my comfort zone.",
         "{act} {hall} [sounds like|is quite] a stretch from the comfort zone. Did {act} grow on you?",
         "<yes>, {act} really grew on me [by the interval|by the end].",
         "Grew on you, then, [your {rel} will be pleased|a win for your {rel}]."),
        ("happy",
         "We had a picnic on the grass while {act} played in the park.",
         "A picnic on the grass with {act} playing [sounds idyllic|is a lovely way to pass the time]."),
        ("sad",
         "I queued for ages to see {act} and the last tickets went just as I reached the front.",
         "Oh, [how maddening|what rotten luck], missing out on {act} at the front of the queue. Is there another chance to see {act}?",
         "<yes>, there is another chance to see {act} {hall}, [fingers crossed|so I am hopeful].",
         "Another chance {hall}, [then|fingers crossed]."),
        ("neutral",
         "I sang in a choir concert {hall} and was so nervous beforehand.",
         "Singing in a concert {hall} takes [nerve|courage]. Did the nerves [settle|calm down] [as you sang|on the night]?",
         "<yes>, the nerves calmed down with the opening [notes|bars|song].",
         "[Nerves that calm down with the music|Nerves that fade with the opening song] are the best kind."),
        ("happy",
         "My {rel} plays in {act} and they [did a concert|played] {hall}.",
         "Watching your {rel} play with {act} {hall} sounds [like a proud moment|lovely]. Did you cheer [loudly|your loudest] for your {rel}?",
         "<yes>, I cheered so loudly that {rel_subj} [went pink|looked mortified].",
         "Cheering loudly for your {rel} is part of the job."),
        ("sad",
         "The sound cut out during the best song {hall}, right as {act} got going.",
         "Oh, what a shame, the sound cutting out on {act} [is so frustrating|would drive me mad]."),
        ("neutral",
         "There is {act} playing {hall} [this summer|in the spring], and my {rel} [fancies it|is keen].",
         "{act} {hall} [sounds fun|could be lovely]. Is your {rel} a fan of {act}?",
         "<yes>, {rel_subj} is a big fan of {act}, [oddly enough|to my surprise].",
         "A big fan of {act}, [how surprising|fancy that]."),
    ),
    _topic(
        "museum",
        {
            "museum": ("the natural history museum", "the transport museum",
                       "the little local museum", "the maritime museum", "the toy museum",
                       "the science museum", "the castle museum", "the museum of rural life",
                       "the costume museum", "the museum of childhood"),
            "exhibit": ("a whale skeleton", "tiny painted miniatures", "old steam engines",
                        "medieval armour", "ancient coins", "a mummy in a glass case",
                        "a huge dinosaur skeleton", "a working loom", "a model of the old town",
                        "a collection of old clocks"),
        },
        ("happy",
         "I took my {rel} round {museum}. {rel_subj} was [fascinated by|glued to] {exhibit}.",
         "{exhibit} at {museum} sounds [like a treat|wonderful]. Did your {rel} want to stay all afternoon?",
         "<yes>, {rel_subj} wanted to stay all afternoon, and we only left for cake.",
         "Cake is a fair [reason|excuse] to leave {museum}."),
        ("neutral",
         "{museum} has a [new|special] exhibition about the seaside, and I wandered round it for ages.",
         "An exhibition about the seaside at {museum} sounds [charming|fun]. What caught your eye at {museum}?",
         "The [old|faded] striped bathing costumes caught my eye, [and the donkey rides|and the deckchairs].",
         "Striped bathing costumes at {museum} [sound delightful|are a wonderful thing]."),
        ("happy",
         "The cafe at {museum} has the best lemon cake, and I went mainly for the cake, [honestly|to be fair].",
         "[What a find|How lovely], the best lemon cake at {museum} is reason enough to visit."),
        ("sad",
         "We drove all the way to {museum} and it was shut [for repairs|for a private event], [so annoying|what a waste of a trip].",
         "Oh, [how annoying|what a pain], driving all that way to {museum} to find it shut. Did you find something else to do [nearby|instead]?",
         "<yes>, we found a tea room [nearby|round the corner] and made the best of it.",
         "A tea room rescues most [wasted|spoilt] trips, even to a shut {museum}."),
        ("neutral",
         "I like the quiet of {museum} on a rainy afternoon, with visitors [whispering|speaking in whispers] and [drifting|moving slowly].",
         "{museum} on a rainy afternoon sounds [peaceful|like a calm retreat]. [Do|And do] you have a favourite room at {museum}?",
         "<yes>, the room with {exhibit}, [of course|for some reason].",
         "The room with {exhibit} sounds like a [fine|worthy] favourite."),
        ("sad",
         "{museum} was packed with school groups and I could barely see {exhibit}.",
         "Oh dear, {museum} packed like that [is exhausting|is hard work], and barely seeing {exhibit} is a shame."),
        ("happy",
         "I went on a guided tour of {museum}, and the guide was [a brilliant storyteller|full of gruesome stories].",
         "A guided tour of {museum} with a [brilliant|lively] guide sounds [great fun|wonderful]. Did you learn anything [surprising|odd] about {exhibit}?",
         "<yes>, I learned plenty, mostly gruesome bits about {exhibit}.",
         "Gruesome bits about {exhibit} make a tour memorable."),
        ("neutral",
         "My {rel} volunteers at {museum} [as a guide|in the gift shop].",
         "Volunteering at {museum} [sounds|must be] [rewarding|interesting] for your {rel}. Does your {rel} enjoy [it|the work]?",
         "<yes>, {rel_subj} enjoys it, especially the questions from children about {exhibit}.",
         "Children ask the best questions about {exhibit}."),
        ("happy",
         "{museum} let us handle [an ancient fossil|a medieval helmet|a very old coin] with white gloves on, [and I felt like an expert|and it was thrilling].",
         "Handling something that old at {museum} [sounds thrilling|is a rare treat]. [Were you nervous|Did your hands shake] handling it?",
         "<yes>, very nervous, my hands were shaking [the whole time|a little].",
         "Shaking hands and white gloves at {museum}, [a proper curator moment|very professional]."),
    ),
    _topic(
        "noisy street",
        {
            "noise": ("a car alarm", "a very loud party", "a leaf blower", "the bin lorry",
                      "someone learning the drums", "a pneumatic drill", "a barking dog",
                      "an ice cream van on a loop", "a lawnmower", "a squeaky gate",
                      "a man with a strimmer"),
            "where": ("next door", "across the road", "on the corner", "at the end of the road",
                      "outside the window", "down the street", "in the flat upstairs",
                      "behind the house", "over the fence", "in the next street",
                      "round the corner"),
        },
        ("sad",
         "There was {noise} {where} all afternoon, and I could barely hear myself think.",
         "Oh dear, {noise} {where} all afternoon sounds [exhausting|maddening]. Did you escape {noise} for a bit?",
         "<yes>, I escaped {noise} at the library [for some peace|with my headphones].",
         "The library sounds like a [fine|proper] refuge from {noise}."),
        ("sad",
         "{noise} {where} woke me at [dawn|the crack of dawn], and [I am shattered|I feel like a zombie].",
         "Oh, how [rotten|annoying], woken at dawn by {noise}. [Can|Could] you [catch up on sleep|have a nap]?",
         "<yes>, I might sneak a nap on the sofa [this afternoon|with the windows shut].",
         "A sofa nap sounds [well deserved|like just the thing] with {noise} {where}."),
        ("neutral",
         "I think {noise} {where} is [becoming|turning into] a regular feature.",
         "{noise} {where} as a regular feature [would test anyone|sounds wearing]. Have you [thought about|tried] earplugs?",
         "<yes>, I tried earplugs, and they help a little.",
         "Earplugs [can be a lifesaver|help more than you might think] with {noise}."),
        ("happy",
         "The roadworks {where} are finally done, and the silence is [glorious|bliss]!",
         "Finished roadworks {where} and glorious silence, [how lovely|what a relief]."),
        ("neutral",
         "There is a [new|little] bakery opening {where}, and the builders have been hammering all afternoon.",
         "A new bakery {where} [could be worth the hammering|sounds promising]. [Do|And do] you know what kind of bakery is coming {where}?",
         "<sortof>, [I heard|rumour has it] it will be a sourdough bakery.",
         "A sourdough bakery {where} [would be a treat|sounds dangerous for the waistline]."),
        ("sad",
         "My {rel} lives on a very busy road and hardly sleeps.",
         "Oh, poor {rel_obj}, a busy road [is miserable|makes sleep so hard|is exhausting]. Has your {rel} tried earplugs?",
         "<yes>, {rel_subj} tried earplugs, and a fan [as well|for background noise].",
         "Trying a few things is [worth it|sensible] for sleep, and I hope your {rel} finds the answer."),
        ("happy",
         "Our street had a party with bunting and long tables, and my {rel} [came over|came along] for it.",
         "A street party with your {rel} sounds [lovely|such fun]. Did you bring [food|something to eat] [for the tables|along]?",
         "<yes>, I brought a plate of sausage rolls [for the table|to share].",
         "Sausage rolls [are|make] the perfect street party food [for sharing|on a long table]."),
        ("neutral",
         "I have grown oddly fond of {noise} {where}.",
         "Growing fond of {noise} {where} [is a real knack|shows admirable patience]."),
        ("sad",
         "{noise} {where} woke my {rel} from a nap, and {rel_subj} was [grumpy|cross] for the rest of the afternoon.",
         "Oh dear, woken from a nap by {noise} is [rotten|maddening]. [Did|And did] your {rel} manage another nap?",
         "<sortof>, {rel_subj} dozed on the sofa with a cushion over {rel_poss} ears.",
         "A cushion over the ears [is a fine defence|works wonders] against {noise}."),
    ),
    _topic(
        "power cut",
        {
            "light": ("candles", "a head torch", "fairy lights on batteries", "the camping lantern",
                      "a phone torch", "a wind up torch", "tea lights in jam jars",
                      "an old oil lamp", "a bicycle lamp", "a torch from the car", "glow sticks"),
            "pastime": ("played cards", "did a jigsaw", "chatted for ages", "sang silly songs",
                        "played charades", "had a picnic on the floor", "played word games",
                        "made shadow puppets", "read ghost stories aloud", "played dominoes",
                        "listened to the radio"),
            "why": ("in the storm", "in the gales", "in the thunderstorm", "in the heavy snow",
                    "during the roadworks", "in the high winds", "in the blizzard",
                    "in the heatwave", "in the freezing rain", "in the lightning storm"),
            "task": ("the dinner", "the washing", "a video call", "a hot bath", "the ironing",
                     "the roast", "the big match", "the quiz show", "the vacuuming",
                     "the bread maker", "a load of laundry"),
        },
        ("neutral",
         "We had a power cut {why}, so we sat with {light} and {pastime}.",
         "A power cut with {light} [sounds rather cosy|has its charm|sounds like fun]. [Did|And did] it feel like an adventure {why}?",
         "<yes>, [a bit of an adventure|quite an adventure], sitting with {light}.",
         "Power cuts with {light} [do|can] turn into little adventures."),
        ("sad",
         "The power went off {why} in the middle of {task}, [typical timing|of course|honestly].",
         "Oh, how [annoying|maddening], a power cut in the middle of {task}. Was the power off for long {why}?",
         "<sortof>, the power was off long enough to [ruin|spoil] {task}.",
         "A power cut spoiling {task} is [rotten|a real nuisance|maddening]."),
        ("happy",
         "In the power cut, my {rel} and I {pastime} by the light of {light}, like children on a camping trip.",
         "A power cut with your {rel} and {light} sounds [lovely|wonderfully] old fashioned."),
        ("neutral",
         "The whole street lost power {why}, and everyone came out onto their doorsteps with {light}.",
         "A whole street out on the doorsteps {why} sounds [sociable|oddly festive]. [Did|And did] you meet [anyone new|any new neighbours]?",
         "<yes>, I met a [lady|man] from the end of the road with [a very chatty parrot|an enormous cat].",
         "Meeting new neighbours by the light of {light} [is a lovely thing|sounds charming]."),
        ("sad",
         "The power cut {why} went on so long that the freezer thawed, [and everything was dripping|what a mess].",
         "Oh dear, a [thawed|defrosted] freezer is [such a pain|miserable|a real nuisance]. Did you [salvage|rescue] much from the freezer?",
         "<sortof>, we had a feast of [thawed sausages and peas|melting ice cream and fish fingers].",
         "A feast from the freezer [is a silver lining|sounds like a fair rescue]."),
        ("happy",
         "I found {light} [in the drawer|under the stairs] just in time for the power cut.",
         "{light} at the ready in a power cut, [brilliant|well done]. Did you feel very smug [with {light}|as the lights went out]?",
         "<yes>, very smug, while the neighbours [hunted for matches|fumbled in the dark].",
         "Smug and well lit with {light}, [quite right|fair enough]."),
        ("neutral",
         "With the power off {why}, I noticed how quiet the house is without [the fridge humming|the boiler ticking|the telly on].",
         "A house that quiet in a power cut [must feel|sounds] [strange|eerie|peaceful]."),
        ("sad",
         "A power cut {why} [wiped|lost] my work on the laptop, and I could scream.",
         "Oh, that is [rotten|maddening], losing [work|your work] to a power cut. Can you [recover|rescue] any of the work?",
         "<sortof>, some of the work was saved, [thankfully|luckily].",
         "Some saved work is a small mercy [in a power cut|at least]."),
        ("happy",
         "My {rel} came round with {light} in the power cut [and a flask of cocoa|and a tin of biscuits].",
         "Your {rel} turning up with {light} in a power cut [is a lovely rescue|is so kind]. Did you sit up chatting by the light of {light}?",
         "<yes>, we sat up chatting [for ages|late into the night].",
         "Chatting by the light of {light} with your {rel} sounds [cosy|like a treat]."),
    ),
    _topic(
        "new recipe",
        {
            "recipe": ("a spiced lamb tagine", "a green curry", "homemade gnocchi",
                       "a tray of stuffed peppers", "a pear and almond tart", "a bean chilli",
                       "a fish stew", "a sweet potato curry", "a roast vegetable tart",
                       "a mushroom stroganoff"),
            "source": ("from a magazine", "from a cookery show", "from a library cookbook",
                       "off a food blog", "from an old cookbook", "from a chef on the radio",
                       "from a cookery card in the supermarket", "from a cooking podcast",
                       "from a friend at the choir", "from a community cookbook",
                       "from a newspaper"),
            "tricky": ("toasting the spices", "folding the pastry", "getting the sauce to thicken",
                       "shaping the dough", "timing everything", "blind baking the case",
                       "chopping everything small", "caramelising the onions",
                       "whisking the egg whites", "rolling the pasta thin", "grinding the spices"),
        },
        ("happy",
         "I tried a new recipe {source} for {recipe}, and it was a triumph!",
         "A triumph with {recipe} {source}, [brilliant|well done|how exciting]. Was {recipe} fiddly?",
         "<sortof>, {tricky} was [fiddly|the fiddly part|a bit of a faff].",
         "Fiddly bits like {tricky} are worth it for a triumph."),
        ("sad",
         "I attempted {recipe} {source} and it went [horribly|badly] wrong. {tricky} [defeated me|was beyond me].",
         "Oh dear, {tricky} [sounds tricky|is hard to get right]. Will you have another go at {recipe}?",
         "<yes>, I will have another go at {recipe}, with more patience.",
         "More patience with {tricky} [tends to help|often does the trick]."),
        ("neutral",
         "My {rel} sent me a recipe for {recipe} that needs a mountain of ingredients.",
         "{recipe} with a mountain of ingredients [sounds like quite a project|is ambitious]. Will you try the recipe from your {rel}?",
         "<yes>, I will try the recipe on a quiet afternoon [with the radio on|with music playing].",
         "A quiet afternoon with the radio sounds [ideal|perfect] for {recipe}."),
        ("happy",
         "I made {recipe} {source} and my {rel} asked for seconds.",
         "{recipe} that earns seconds from your {rel} is a [real win|proper success]."),
        ("neutral",
         "I have been collecting recipes {source} in a scrapbook. {recipe} is next in line.",
         "A scrapbook of recipes sounds [lovely|handy], and {recipe} sounds tempting. [Do|And do] you follow recipes {source} to the letter?",
         "<sortof>, I follow recipes [loosely|roughly] and [improvise|swap things in].",
         "Following recipes [loosely|your own way] is how new favourites like {recipe} happen."),
        ("sad",
         "I searched everywhere for an ingredient for {recipe} and came home empty handed.",
         "Oh, how [annoying|frustrating], searching everywhere for {recipe} and coming home empty handed."),
        ("happy",
         "I made {recipe} for a dinner party and the plates were scraped clean.",
         "Scraped clean plates mean {recipe} was a [triumph|real win]. Did anyone ask for the recipe for {recipe}?",
         "<yes>, [everyone|a few people] asked, so I passed on the recipe {source}.",
         "Passing on the recipe for {recipe} is [the best compliment|a generous thing]."),
        ("neutral",
         "The recipe {source} used a trick that was new to me, {tricky}.",
         "A new trick like {tricky} makes cooking interesting. Did {tricky} make a difference?",
         "<yes>, a real difference, [the flavour was much deeper|it tasted richer].",
         "A real difference from {tricky}, [lovely|well worth it]."),
        ("sad",
         "I made {recipe} {source} for my {rel}, but it turns out {rel_subj} [hates|dislikes] mushrooms.",
         "Oh dear, [what a shame|how deflating], {recipe} and a fussy {rel}. Did your {rel} try [any of it|a little]?",
         "<sortof>, {rel_subj} ate around the mushrooms [very politely|with great care].",
         "Eating around the mushrooms is [true love|very gracious] from your {rel}."),
    ),
    _topic(
        "knitting",
        {
            "item": ("a scarf", "a bobble hat", "a baby blanket", "a tea cosy", "a jumper",
                     "a cardigan", "a shawl", "a cushion cover", "a beanie", "a snood",
                     "a hot water bottle cover", "a poncho"),
            "colour": ("deep green", "mustard yellow", "navy blue", "soft grey", "bright red",
                       "lilac", "rust orange", "duck egg blue", "cream", "plum", "teal",
                       "heather purple"),
        },
        ("happy",
         "I have finished {item} in {colour} for my {rel}, and it took [ages|forever]!",
         "{item} in {colour} for your {rel}, how [lovely|wonderful]. Has your {rel} tried it on?",
         "<yes>, {rel_subj} tried it on and wore it all afternoon.",
         "Wearing {item} all afternoon is the best review."),
        ("sad",
         "I missed a stitch somewhere in {item} and [the pattern went wonky|the rows went crooked].",
         "Oh dear, a missed stitch in {item} is [so frustrating|maddening]. [Can|Could] you fix [it|the stitch]?",
         "<sortof>, I had to unpick [several|a few] rows and start the section over.",
         "Unpicking rows of {item} [is a test of patience|takes real patience]."),
        ("neutral",
         "My knitting group meets in a [cosy|little] cafe [by the river|in town|near the station], and we chat more than we knit.",
         "A knitting group [chatting|nattering] in a cafe sounds [lovely|very sociable]. What are you knitting [at the moment|for yourself|for the group]?",
         "I am knitting {item} in {colour}, [slowly|between chats].",
         "{item} in {colour} [sounds|will look] [smart|lovely]."),
        ("happy",
         "I knitted a tiny hat in {colour} for a new baby down the road, small enough to fit an orange!",
         "A tiny hat in {colour} small enough for an orange is [adorable|the sweetest thing]."),
        ("sad",
         "The cat got into my {colour} wool and made a tangled mess.",
         "Oh dear, tangled {colour} wool is [maddening|a real pain]. Is it worth [untangling|the effort of untangling]?",
         "<sortof>, I sat untangling the wool all afternoon [in front of the telly|with the radio on].",
         "Untangling {colour} wool is [oddly soothing|a test of patience]."),
        ("neutral",
         "I am attempting a cable pattern on {item}, and [it makes my brain hurt|it is so fiddly].",
         "A cable pattern on {item} [sounds|is] [ambitious|a proper challenge]. Is the pattern on {item} coming along?",
         "<yes>, [slowly|bit by bit], and the cables look [rather|very] smart.",
         "Smart cables on {item} [make the effort worth it|are worth the brain ache]."),
        ("happy",
         "My {rel} wants to learn to knit, so I am teaching {rel_obj}.",
         "Teaching your {rel} to knit [is a lovely idea|sounds fun]. What will your {rel} knit?",
         "{rel_subj} wants to knit {item} in {colour}.",
         "{item} in {colour} is a [fine|sensible] starting project for your {rel}."),
        ("sad",
         "I knitted {item} for my {rel} and it came out far too big.",
         "Oh dear, {item} far too big is a [rotten|poor] reward for all that knitting."),
        ("neutral",
         "I found a bag of {colour} wool at a jumble sale [for pennies|for a song].",
         "A bag of {colour} wool from a jumble sale is a [lucky find|bargain]. What will you make with the {colour} wool?",
         "I will make {item} with the wool, [I think|probably].",
         "{item} in {colour} from jumble sale wool, [very thrifty|a happy ending]."),
    ),
    _topic(
        "swimming",
        {
            "pool": ("the local pool", "the leisure centre pool", "the lido", "the open air pool",
                     "the pool at the gym", "the town baths", "the hotel pool",
                     "the pool at the sports centre", "the old lido", "the school pool"),
            "wild": ("the sea", "the lake", "the river", "a mountain tarn", "a quiet cove",
                     "a chilly loch", "the millpond", "the estuary", "the harbour", "a river pool"),
            "stroke": ("front crawl", "breaststroke", "backstroke", "butterfly", "sidestroke",
                       "doggy paddle", "elementary backstroke", "dolphin kick"),
            "feeling": ("wide awake", "starving", "pleasantly tired", "tingly all over",
                        "like a new person", "calm and cheerful", "ravenous", "loose and relaxed",
                        "buzzing", "glowing"),
        },
        ("happy",
         "I swam in {wild} at dawn and came out feeling {feeling}.",
         "A swim in {wild} at dawn leaving you {feeling} sounds [wonderful|glorious]. Was the water in {wild} cold?",
         "<yes>, the water was [bracing|freezing|icy], but I warmed up [quickly|with a flask of tea].",
         "Bracing water in {wild} and feeling {feeling}, [worth it, then|a fine trade]."),
        ("neutral",
         "I am learning {stroke} at {pool}, and I swallow [a lot of|loads of] water.",
         "Learning {stroke} [takes time|is tricky], swallowed water and all. Are you having lessons at {pool}?",
         "<yes>, lessons with a [very|truly|wonderfully] patient instructor.",
         "A patient instructor [makes all the difference|is worth a lot] with {stroke}."),
        ("sad",
         "Someone kicked me doing {stroke} at {pool}, as the lanes were packed.",
         "Oh, [ouch|poor you], a kick doing {stroke} in a packed lane [is rotten|hurts]. Are you [bruised|hurt]?",
         "<yes>, [just|a bit] bruised, and [rather|quite] cross.",
         "Bruised and cross from a packed lane at {pool} is understandable."),
        ("happy",
         "I swam further than I ever have at {pool} this afternoon.",
         "Swimming further than ever at {pool} is [brilliant|a real achievement], well done."),
        ("neutral",
         "My {rel} talked me into wild swimming in {wild}, and I shrieked as I went in.",
         "Wild swimming in {wild} with your {rel}, shrieks and all, [sounds bracing|takes nerve]. Will you swim in {wild} another time?",
         "[I think so|Yes, I think so], wild swimming in {wild} is oddly addictive.",
         "Addictive and bracing, {wild} sounds like [the best kind of habit|a fine habit]."),
        ("sad",
         "{pool} was shut for cleaning, and I had cycled all the way there.",
         "Oh, how [annoying|frustrating], cycling all the way to {pool} to find it shut."),
        ("happy",
         "I managed a whole mile of {stroke} without stopping!",
         "A whole mile of {stroke} without stopping, [brilliant|well done]! Are your arms aching from all that {stroke}?",
         "<yes>, my arms are like jelly, but I feel {feeling}.",
         "Jelly arms and feeling {feeling}, [a fair trade|well earned]."),
        ("neutral",
         "I like swimming slow lengths of {stroke} at {pool}, because it clears my head.",
         "Slow lengths of {stroke} [do|can] clear the head [nicely|wonderfully]. [Do|And do] you count the lengths [as you go|at all]?",
         "<sortof>, I count the lengths and then [drift off into daydreams|lose myself in daydreams].",
         "Daydreaming through the lengths of {stroke} sounds like the best part."),
        ("happy",
         "My {rel} and I swam in {wild} [on a hot afternoon|in the heatwave].",
         "A swim in {wild} with your {rel} on a hot afternoon sounds [perfect|glorious]. Was the water in {wild} warm?",
         "<sortof>, the water was [warm on top|warm at the edges] and [icy|freezing] underneath.",
         "Warm on top and icy underneath is [classic|so typical of] {wild}."),
    ),
    _topic(
        "board games",
        {
            "game": ("a trading game", "a word game", "a card game", "a tile laying game",
                     "a railway game", "a detective game", "a farming game",
                     "a space exploration game", "a pirate game", "a dragon game"),
            "snack": ("a bowl of crisps", "cheese on toast", "a pile of popcorn", "homemade nachos",
                      "a tin of biscuits", "a plate of sandwiches", "a big pizza",
                      "a box of chocolates", "a bowl of olives", "a plate of cheese",
                      "a bag of pretzels"),
        },
        ("happy",
         "We had a board game night and I [won at|thrashed everyone at] {game}!",
         "Winning {game} on board game night, [brilliant|well done]! Were the others [good losers|gracious in defeat]?",
         "<sortof>, my {rel} demanded a rematch [on the spot|there and then].",
         "Demanding a rematch of {game} is a [sure|classic] sign of a gripping game."),
        ("sad",
         "My {rel} thrashed us all at {game}, and the gloating was unbearable.",
         "Oh dear, losing {game} to a gloating {rel} is [rotten|painful]. Is your {rel} this competitive about everything?",
         "<yes>, [very|hugely] competitive, even at snap.",
         "A competitive streak [that reaches snap|that extends to snap] [is quite something|takes dedication]."),
        ("neutral",
         "We tried {game} that my {rel} brought along.",
         "{game} from your {rel} sounds [fun|intriguing]. Were the rules of {game} [complicated|tricky]?",
         "<yes>, the rules of {game} were complicated, but we got the hang of it [eventually|in the end].",
         "Complicated rules [make winning {game} sweeter|are part of the charm of {game}]."),
        ("happy",
         "Board game night came with {snack} and plenty of laughter, [and it was perfect|just what I needed].",
         "Games, {snack} and plenty of laughter [sound like|make] a [perfect|lovely] night in."),
        ("sad",
         "Board game night turned into a row over the rules of {game}.",
         "Oh dear, a row over the rules of {game} is [so awkward|exhausting]. Did everyone make up [in the end|afterwards]?",
         "<yes>, we made up over {snack}.",
         "{snack} can smooth over a lot of rows."),
        ("neutral",
         "I am teaching my {rel} to play {game}, and {rel_subj} is a quick learner.",
         "Teaching your {rel} {game} [sounds fun|is a nice idea]. Has your {rel} beaten you at {game}?",
         "<yes>, {rel_subj} beat me narrowly, the cheek of it.",
         "Beaten at {game} by a pupil, the cheek of it indeed."),
        ("happy",
         "We invented our own board game with my {rel}, with pirates and a great deal of shouting.",
         "Inventing your own board game with your {rel} sounds [brilliant|like great fun]. Were the rules fair [to everyone|on your {rel}]?",
         "<sortof>, the rules changed whenever {rel_subj} was losing.",
         "Flexible rules [make the best kind of game|suit a homemade game]."),
        ("neutral",
         "{game} went on for so long that we finished off {snack} and moved on to the biscuits.",
         "{game} that outlasts {snack} [is a marathon|sounds epic]."),
        ("happy",
         "My {rel} and {rel_poss} friends play {game} with me [fairly often|quite regularly].",
         "Playing {game} with your {rel} and friends sounds [lovely|like great fun]. [Do|And do] you win [often|much] at {game}?",
         "<sortof>, I win often enough to feel [smug|hopeful].",
         "Winning {game} often enough [is the sweet spot|is just right]."),
    ),
    _topic(
        "train delay",
        {
            "cause": ("a broken signal", "leaves on the line", "a points failure", "a fallen tree",
                      "a broken down train ahead", "flooding on the track", "a cow on the line",
                      "a shortage of drivers", "a flock of sheep on the line", "ice on the rails",
                      "a swan on the tracks"),
            "where": ("at a tiny station", "just outside the city", "in a tunnel", "on a viaduct",
                      "at a junction in the middle of nowhere", "between stations", "in a cutting",
                      "at a level crossing", "on a bridge over the river",
                      "at a windswept platform"),
            "pastime": ("finished my crossword", "chatted to a lady with a parrot",
                        "read most of my novel", "watched the cows", "knitted a few rows",
                        "ate all my sandwiches", "did some sketching", "wrote a letter",
                        "watched the rain", "played cards with a stranger",
                        "watched a film on my phone"),
        },
        ("sad",
         "My train was held {where} because of {cause}, with everyone [sighing|tutting].",
         "Oh, [how tedious|what a pain], held {where} by {cause}. Did you make your connection [in the end|at all]?",
         "<sortof>, I sprinted for the connection [with my bag flying|across the footbridge] and just made it.",
         "Sprinting [across a station|for a connection] [is exhausting|gets the heart going]."),
        ("neutral",
         "The train sat {where} [because of|thanks to] {cause}, so I {pastime}.",
         "Making the most of a delay {where}, [very sensible|good thinking]. Was it a long wait {where}?",
         "<sortof>, a long wait, but [the time flew|it passed quickly].",
         "A long wait {where} that flies by is the best kind."),
        ("sad",
         "The delay from {cause} made the train so packed that I stood squashed against the door the whole way.",
         "Oh dear, standing squashed against the door the whole way [is miserable|sounds grim], all because of {cause}."),
        ("happy",
         "The guard handed out free tea during the delay {where}.",
         "Free tea from the guard {where} [is a lovely touch|sounds delightful]. Did it cheer [everyone|the carriage] up?",
         "<yes>, it cheered everyone up, and strangers got chatting [about {cause}|like old friends].",
         "Strangers chatting on a [delayed|stranded] train [is a small miracle|sounds lovely]."),
        ("neutral",
         "I have got quite good at train delays, and [this time|last time] I {pastime} {where}.",
         "Being good at delays is a [real|rare] skill, so what do you take [along|with you] for long delays?",
         "I take [a flask and a crossword|a flask and a novel|snacks and a crossword] for long delays, [just in case|as a rule].",
         "[Snacks|Provisions] for long delays, [very wise|a wise move]."),
        ("sad",
         "The delay from {cause} meant I missed dinner with my {rel}.",
         "Oh, [what a shame|how rotten], missing dinner with your {rel} because of {cause}. Was your {rel} understanding?",
         "<yes>, {rel_subj} was very understanding and saved me a plate.",
         "A saved plate shows real kindness from your {rel}."),
        ("happy",
         "Because of {cause} we sat {where} and I saw a heron by the track.",
         "[How lovely|What luck], a heron by the track {where} makes up for {cause}."),
        ("neutral",
         "The announcement blamed {cause}, and the whole carriage groaned.",
         "A whole carriage groaning at {cause} sounds like a [proper|fine] shared moment. Did the delay from {cause} last long?",
         "<sortof>, long enough to finish my [crossword|puzzle magazine].",
         "A finished [crossword|puzzle] [is a silver lining|counts as a win]."),
        ("neutral",
         "My {rel} was on the same delayed train {where}, [by pure chance|of all things].",
         "Bumping into your {rel} on a delayed train {where} [is a nice surprise|makes a delay bearable]. Did you [sit together|find seats together]?",
         "<yes>, we sat together and [shared my sandwiches|caught up on the gossip].",
         "Sitting together with your {rel} [turns a delay into a treat|is a lovely bonus]."),
    ),
    _topic(
        "jigsaw",
        {
            "picture": ("a lighthouse", "a harbour full of boats", "a field of poppies",
                        "a steam train", "a vase of tulips", "a map of the world",
                        "a village green", "a snowy mountain", "a busy market",
                        "a garden full of butterflies"),
            "hard": ("the sky", "the sea", "the grass", "the snow", "the water", "the sand",
                     "the night sky", "the fog", "the ice", "the meadow"),
            "table": ("on the dining table", "on a tray by the sofa", "on the coffee table",
                      "on a board on the floor", "on the kitchen table",
                      "on a card table in the corner", "on the floor of the spare room",
                      "on a tea tray", "on a board by the window"),
        },
        ("happy",
         "I finished a jigsaw of {picture} at last, and it had lived {table} for what felt like forever!",
         "A finished jigsaw of {picture}, [well done|how satisfying], so will you frame it?",
         "<sortof>, I might glue the jigsaw and frame it for [the hall|the landing|the spare room].",
         "A framed jigsaw of {picture} [sounds lovely|is a fine trophy]."),
        ("sad",
         "I am nearly done with a jigsaw of {picture} and a piece is missing.",
         "Oh, [how maddening|that is torture], a missing piece so close to finishing {picture}. [Have you looked|Did you look] under the sofa?",
         "<yes>, I looked under the sofa and found [a lost sock|a biscuit|the remote] instead.",
         "Everything but the missing piece of {picture}, [how cruel|typical]."),
        ("neutral",
         "My {rel} and I are doing a jigsaw of {picture} {table}. We are struggling with {hard}.",
         "Struggling with {hard} [is the classic jigsaw trap|sounds very familiar]. [Do|And do] you sort the pieces [by colour|into colours]?",
         "<yes>, we sort them by colour, but it barely helps with {hard}.",
         "Sorting by colour helps, but {hard} is [a law unto itself|fiendish]."),
        ("happy",
         "A jigsaw of {picture} {table} is my [favourite|new favourite] way to unwind, just me, the radio and a pot of tea.",
         "A jigsaw of {picture} {table} with the radio on sounds [blissful|lovely]."),
        ("sad",
         "The cat walked across my jigsaw of {picture} and sent pieces everywhere.",
         "Oh dear, the cat scattering your jigsaw of {picture} is [heartbreaking|so cruel]."),
        ("neutral",
         "I found a jigsaw of {picture} at a charity shop [for pennies|in a bargain bin], so fingers crossed the pieces are all there.",
         "A charity shop jigsaw of {picture} is a bit of a gamble. Have you [counted|checked] the pieces?",
         "<sortof>, I counted the edge pieces and they are [all there|present and correct].",
         "The edge pieces all being there [bodes well|is a promising start] for {picture}."),
        ("happy",
         "My {rel} sent me a jigsaw of {picture} as a present.",
         "A jigsaw of {picture} from your {rel} [is a thoughtful present|sounds lovely]. Have you started [it|the edges]?",
         "<yes>, I started the edges {table}.",
         "Starting with the edges of {picture} [is the proper way|is the classic method]."),
        ("neutral",
         "I am doing a jigsaw without looking at the box, and I think it might be {picture}.",
         "A jigsaw without the box, [how brave|that is bold]. Is it much harder [without the picture|that way]?",
         "<yes>, much harder, but it is [fun|exciting] watching {picture} appear.",
         "{picture} appearing [bit by bit|piece by piece] sounds like a proper reward."),
        ("neutral",
         "My {rel} sneaked in the last piece of our jigsaw of {picture}, [the cheek|and I was robbed]!",
         "Your {rel} stealing the last piece of the jigsaw is [outrageous|very cheeky]. [Did|And did] you forgive your {rel}?",
         "<sortof>, I will forgive {rel_obj} [eventually|in time].",
         "Forgiving your {rel} in time is very [gracious|generous] of you."),
    ),
    _topic(
        "birdwatching",
        {
            "bird": ("a goldfinch", "a woodpecker", "a kingfisher", "a heron", "a barn owl",
                     "a nuthatch", "a long tailed tit", "a sparrowhawk", "a treecreeper",
                     "a bullfinch", "a song thrush"),
            "perch": ("at the feeder", "in the hedge", "by the pond", "on the marsh",
                      "from the bird hide", "in the old oak", "on the fence", "at the bird bath",
                      "on the washing line", "in the rushes"),
        },
        ("happy",
         "I saw {bird} {perch} this afternoon and nearly spilled my tea!",
         "{bird} {perch}, how [exciting|wonderful]! Did you get a photo [of it|in time]?",
         "<yes>, a blurry photo, but it is recognisably {bird}.",
         "A blurry photo of {bird} [counts|is proof enough]."),
        ("neutral",
         "I hung a new bird feeder [by the window|on the apple tree], and the [sparrows|starlings] squabble over it [all afternoon|constantly].",
         "A new feeder [sounds like|makes for] [free entertainment|a fine show], squabbles and all. Have you seen anything [unusual|rare] at it?",
         "<yes>, {bird} turned up at the feeder and I squealed.",
         "{bird} at the feeder is worth a squeal."),
        ("sad",
         "A sparrowhawk swooped on a blue tit {perch}, [and nature is cruel|and it was grim to watch].",
         "Oh dear, a sparrowhawk swooping on a blue tit {perch} [is hard to watch|is grim], even if it is nature."),
        ("happy",
         "My {rel} took me to a bird reserve for the afternoon. We saw {bird} {perch}!",
         "{bird} {perch} on a trip with your {rel}, [lovely|what a treat]! Is your {rel} a keen birder?",
         "<yes>, {rel_subj} is a very keen birder with proper binoculars.",
         "Proper binoculars [are the sign of|mean] a [serious|true] birder."),
        ("neutral",
         "I am trying to learn bird songs, and so far I can pick out the blackbird and {bird}.",
         "Picking out {bird} by its song [is a lovely skill|sounds fascinating]. [Do|And do] you use an app for it?",
         "<yes>, an app that listens and names the songs.",
         "An app that names {bird} by its song [is clever|feels like magic]."),
        ("sad",
         "I sat in the freezing bird hide [all afternoon|for ages] [hoping for|waiting for] {bird} and saw only a pigeon.",
         "Oh, [what a shame|how disappointing], waiting for {bird} and getting a pigeon. Will you try for {bird} another time?",
         "<yes>, I will try another time, with a warmer coat [and a flask|and more patience].",
         "A warmer coat sounds [sensible|wise] for the next try at {bird}."),
        ("happy",
         "{bird} visits {perch} most afternoons, [and I feel very honoured|the highlight of my afternoon].",
         "{bird} visiting {perch} [is a real privilege|sounds delightful]."),
        ("neutral",
         "My {rel} teases me about my birdwatching, and {rel_subj} finds it a funny hobby.",
         "Teasing about birdwatching [is fair game|comes with the hobby], I suppose. Have you taken your {rel} along?",
         "<yes>, I took {rel_obj} along, and {rel_subj} spotted {bird}, [of all things|annoyingly].",
         "Spotting {bird} might win over your {rel}."),
        ("happy",
         "My {rel} [spotted|photographed] {bird} {perch} and sent me the picture.",
         "{bird} {perch}, [what a lovely thing to share|how exciting]! Was your {rel} pleased with the picture?",
         "<yes>, {rel_subj} was [thrilled|delighted] with the picture of {bird}.",
         "A picture of {bird} {perch} is [worth sharing|a real treasure]."),
    ),
    _topic(
        "quiz night",
        {
            "round": ("the music round", "the picture round", "the geography round",
                      "the sport round", "the history round", "the science round", "the film round",
                      "the food and drink round", "the nature round",
                      "the general knowledge round"),
            "club": ("at the pub", "at the village hall", "at the cricket club",
                     "at the church hall", "at the rugby club", "at the community centre",
                     "at the social club", "at the football club", "at the library",
                     "at the golf club", "at the sailing club"),
        },
        ("happy",
         "Our team won the quiz {club}! We aced {round}.",
         "Winning the quiz {club}, [brilliant|well done]! Was there a prize {club}?",
         "<yes>, the prize was [a tin of biscuits|a box of chocolates] and bragging rights.",
         "A prize from the quiz {club} and bragging rights, [perfect|the best combination]."),
        ("sad",
         "We came last at the quiz {club}. {round} [was a total disaster|sank us].",
         "Oh dear, coming last at the quiz {club} is [rotten|a bit bruising]. Was {round} really that hard?",
         "<yes>, {round} was fiendish, and we guessed wildly.",
         "Wild guessing in {round} is [part of the fun|all part of quiz night]."),
        ("neutral",
         "My {rel} is our team captain at the quiz {club}, and {rel_subj} takes it [very|far too] seriously.",
         "A serious captain at the quiz {club} [sounds like|is] [a mixed blessing|quite something]. Does your {rel} have a specialist subject?",
         "<yes>, {rel_subj} carries us through {round}.",
         "Carrying the team through {round} [earns the captaincy|justifies the seriousness]."),
        ("happy",
         "I got the hardest question in {round} right, all by myself!",
         "Getting the hardest question in {round} all by yourself [is a proper triumph|is brilliant]."),
        ("sad",
         "We lost the quiz {club} by the narrowest margin, [so close|agonising].",
         "Oh, [how agonising|what rotten luck], losing the quiz {club} by the narrowest margin."),
        ("neutral",
         "I tagged along to the quiz {club} with my {rel}, and it was [more fun than I expected|surprisingly tense].",
         "Tagging along to the quiz {club} [sounds fun|is a good way in]. Did you get any questions right [at all|in the end]?",
         "<yes>, a handful in {round}, [to my surprise|amazingly].",
         "A handful in {round} [is a fine start|counts as a win]."),
        ("happy",
         "We came up with a terrible team name for the quiz {club} and everyone groaned.",
         "A terrible team name that gets a groan {club} is a [triumph|win] in itself. Did it involve a [pun|terrible pun]?",
         "<yes>, a dreadful pun [about {round}|on the quizmaster], of course.",
         "Dreadful puns [make|are] the best team names {club}."),
        ("sad",
         "The quizmaster {club} marked us wrong in {round} and we missed out on the prize.",
         "Oh, how [maddening|unfair], marked wrong in {round} and missing the prize. Did you argue [with the quizmaster|about it]?",
         "<sortof>, we grumbled politely [into our drinks|over our crisps].",
         "Grumbling politely {club} is the dignified way."),
        ("neutral",
         "I set the questions for the quiz {club}. {round} was [mine|my favourite].",
         "Setting the questions for the quiz {club} [sounds fun|is quite a job]. Did anyone complain about {round}?",
         "<yes>, someone complained that {round} was too hard, [naturally|of course].",
         "A complaint about {round} means you set it [well|just right]."),
    ),
    _topic(
        "painting",
        {
            "room": ("the spare room", "the hallway", "the bathroom", "the kitchen", "the bedroom",
                     "the box room", "the dining room", "the living room", "the study", "the porch",
                     "the conservatory"),
            "colour": ("sage green", "pale yellow", "duck egg blue", "warm grey", "terracotta",
                       "soft white", "deep navy", "dusty pink", "forest green", "buttercup yellow",
                       "slate blue"),
            "slip": ("got paint on the carpet", "knocked the paint tray over",
                     "painted the light switch by mistake", "got paint in my hair",
                     "painted myself into a corner", "trod in the paint tray",
                     "smudged the ceiling", "dripped paint on the cat", "splashed the window",
                     "sat on the wet windowsill"),
        },
        ("happy",
         "I [finally|at last] painted {room} {colour}, and it looks [so fresh|like a new room]!",
         "{room} in {colour} sounds [lovely|gorgeous]. Did you paint it all [yourself|on your own]?",
         "<yes>, all by myself, with a lot of tea breaks [and the radio on|and loud music].",
         "Tea breaks are an essential part of painting {room}."),
        ("sad",
         "I was painting {room} and {slip}, [I could cry|what a disaster].",
         "Oh dear, a decorating disaster in {room} is [so frustrating|miserable]. Could you clean it up [in the end|at all]?",
         "<sortof>, [some|a lot of] scrubbing got most of it out [in the end|eventually].",
         "A good scrub [rescues a lot|works wonders] in {room}."),
        ("neutral",
         "My {rel} and I have been debating the colour for {room}. I fancy {colour}.",
         "Debating a colour for {room} is part of the fun. What does your {rel} want?",
         "{rel_subj} wants plain white for {room}, of course.",
         "{colour} versus plain white, [a classic standoff|the eternal debate]."),
        ("happy",
         "My {rel} helped me paint {room} and we finished in an afternoon.",
         "Painting {room} in an afternoon with your {rel} is [brilliant|great teamwork]."),
        ("sad",
         "The {colour} looked lovely on the tin, but on the walls of {room} it looks murky.",
         "Oh dear, [what a letdown|how disappointing], {colour} that looks murky on the walls. Will you paint over the {colour}?",
         "<yes>, I will paint over the {colour} with something [paler|lighter].",
         "Something paler [should brighten|will lift] {room}."),
        ("neutral",
         "I am stripping [old|ancient] wallpaper in {room}, and there are so many layers.",
         "Layers of wallpaper in {room} are like an archaeological dig. Have you found anything [interesting|odd] underneath?",
         "<yes>, a layer of wild [orange flowers|green stripes] underneath.",
         "A hidden layer in {room} [is quite a find|sounds marvellous]."),
        ("happy",
         "I painted a little mural of birds in {room}.",
         "A mural of birds in {room} [sounds charming|is a lovely idea]. [Was it|Were the birds] fiddly to paint?",
         "<yes>, very fiddly, but the birds look [cheerful|rather sweet].",
         "Birds on the wall of {room} [are worth the fiddle|sound a lovely result]."),
        ("sad",
         "The smell of paint in {room} is giving me a headache, and the windows are wide open.",
         "Oh dear, a paint headache in {room} is [miserable|horrid]. Wide open windows [sound wise|are a sensible move]."),
        ("neutral",
         "I am [painting|doing] the skirting boards in {room}, and it is [slow going|fiddly work].",
         "Skirting boards in {room} [are slow going|take patience]. [Are|And are] you using masking tape?",
         "<yes>, masking tape everywhere, and [a very small brush|a steady hand].",
         "Masking tape [is the secret|saves a lot of bother] with skirting boards in {room}."),
    ),
)
"""The small-talk topics: about 25 everyday things, each with its slot fillers and frames."""

TOPIC_BANK: dict[str, Topic] = {topic.name: topic for topic in _TOPIC_LIST}
"""Every small-talk topic by name."""

TOPICS: tuple[str, ...] = tuple(TOPIC_BANK)
"""Small-talk topic names, in a fixed order (draws index into it, so the order is part of a seed's
output)."""

EPISODES: tuple[Episode, ...] = tuple(frame for topic in _TOPIC_LIST for frame in topic.frames)
"""Every small-talk frame, flat."""

# --- statement replies ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StatementReply:
    """A reply to a vertical's statement, by stance.

    ``reply`` names the statement's ``{topic}`` (and, for stance "other", its ``{holder}``) and
    nothing else: no value, no number, no verdict on what was stated, so gold and competitor
    sessions get the same kind of reply and the reply never confirms, repeats or rates a value.
    When ``reply`` ends with a question, ``answer`` answers it without stating any new fact and
    ``close`` refers to the answer. For stance "assistant-offer-declined" the roles flip: the
    statement is the assistant's suggestion, ``reply`` is the user turning it down and ``close``
    the assistant's acknowledgement (always present, so the episode ends on the assistant)."""

    reply: str
    answer: str | None = None
    close: str | None = None


def _replies(*rows: tuple[str | None, ...]) -> tuple[StatementReply, ...]:
    """Statement replies from compact rows ``(reply[, answer, close])``, macros expanded and the
    closing question given its lead-in (as for small talk)."""
    built = []
    for row in rows:
        reply, *rest = (None if t is None else _expand(t) for t in row)
        assert reply is not None
        answer, close = (rest[0], rest[1]) if rest else (None, None)
        built.append(StatementReply(_lead_in(reply) if answer else reply, answer, close))
    return tuple(built)


STATEMENT_REPLIES: dict[str, tuple[StatementReply, ...]] = {
    "arranged": _replies(
        ("[That should|That ought to] take care of {topic}.",),
        ("[Good|Right], that is {topic} in hand.",),
        ("[Sensible|Wise] to get {topic} seen to. Has it been giving you trouble?",
         "<yes>, a little trouble, so it seemed [wise|sensible] to deal with it.",
         "Dealing with [it|things] early saves a lot of [bother|hassle]."),
        ("That takes care of {topic}. Was it much of a hassle to arrange?",
         "<sortof>, it took a bit of arranging, [to be honest|if I am honest].",
         "Arranging that sort of thing can be [fiddly|a faff]."),
        ("[Good thinking|Nice work] with {topic}. Has it been on your mind?",
         "<yes>, it has been on my mind, so it is a relief to have it [in hand|dealt with].",
         "A relief like that is worth [a lot|having]."),
        ("It is [handy|useful] to have {topic} organised.",),
        ("That is a weight off, with {topic}. Do you feel better for it?",
         "<yes>, I feel [much|a lot] better for it, thanks.",
         "Feeling better about it counts for [a lot|plenty]."),
        ("[Good|Nice] to have {topic} under control.",),
        ("That sounds like a tidy arrangement for {topic}. Was it easy to organise?",
         "<yes>, easier to organise than I expected, [thankfully|luckily].",
         "Easier than expected is the [best|nicest] kind [of job|of surprise]."),
        ("[Nice|Good] to hear you have {topic} in hand. Is it the sort of thing that creeps up on you?",
         "<yes>, it really does creep up on me.",
         "Those creeping jobs are the [sneaky|sly] kind."),
        ("That should give you peace of mind about {topic}.",),
        ("A sensible move for {topic}. Did it take long to sort out?",
         "<sortof>, it took a little while to sort out.",
         "Sorting these things out takes [patience|a bit of patience]."),
        ("Well done for getting {topic} organised.",),
        ("Right, that is {topic} seen to. Was it a relief to get it arranged?",
         "<yes>, a real relief to get it arranged.",
         "Relief is a [fine|lovely] feeling."),
    ),
    "intends": _replies(
        ("That sounds like a [sensible|good] idea for {topic}.",),
        ("Worth doing for {topic}. Is it getting urgent?",
         "<sortof>, it is getting more urgent than I would like.",
         "Urgent things have a way of [nagging|nagging at you]."),
        ("Good idea to think ahead about {topic}.",),
        ("That seems a fair way to handle {topic}. What set you thinking about it?",
         "A chat over a cup of tea set me thinking, [funnily enough|of all things].",
         "Cups of tea [do|can] set the thinking going."),
        ("Sounds like you have {topic} on your mind. Has it been bothering you?",
         "<yes>, it has been bothering me a little.",
         "Things that bother you are worth [tackling|sorting]."),
        ("It makes sense to give {topic} some thought.",),
        ("That would take a load off with {topic}. Do you feel sure about it?",
         "<yes>, fairly sure, though I might mull it over a little.",
         "A little mulling over is [sensible|wise]."),
        ("That could work [well|nicely] for {topic}.",),
        ("A good thought for {topic}. Is it the kind of job you like to get ahead of?",
         "<yes>, I like to get ahead of jobs like that.",
         "Getting ahead of jobs like that is [wise|sensible]."),
        ("Sounds like a tidy way to approach {topic}.",),
        ("That is a reasonable idea for {topic}. Are you feeling positive about it?",
         "<yes>, I feel positive about it, thanks.",
         "Feeling positive counts for [a lot|plenty]."),
        ("It sounds like you have thought {topic} through. Was it a tricky choice?",
         "<sortof>, it was a trickier choice than it looked.",
         "Tricky choices [deserve|are worth] a bit of [thought|time]."),
        ("[Good|Sensible] to give {topic} some attention.",),
        ("That seems like a practical step for {topic}. Has it been on the cards for a while?",
         "<yes>, for a while, and it feels right to get moving on it.",
         "Getting moving is often the [hardest|trickiest] bit."),
    ),
    "other": _replies(
        ("Good of {holder} to see to {topic}.",),
        ("It sounds like {holder} has {topic} in hand.",),
        ("Nice that {holder} is on top of {topic}. Is {holder} organised about that sort of thing?",
         "<yes>, really organised about these things.",
         "Organised people are [a blessing|a godsend]."),
        ("That is thoughtful of {holder}, seeing to {topic}. Did it take much organising?",
         "<sortof>, there was a fair bit of organising involved.",
         "Organising that sort of thing takes [patience|time and patience]."),
        ("It sounds like {holder} has been busy with {topic}.",),
        ("Handy that {holder} took care of {topic}.",),
        ("Sounds like {holder} knows the ropes with {topic}. Do you often swap tips?",
         "<yes>, we swap tips quite a lot.",
         "Swapping tips saves a [lot|good deal] of trial and error[, I find|]."),
        ("Good for {holder}, taking on {topic}. Was that a big job?",
         "<yes>, quite a big job, by all accounts.",
         "A big job like that deserves a [cup of tea|sit down]."),
        ("Sorting {topic} must be a relief for {holder}.",),
        ("Sounds like {holder} is well organised about {topic}. Do you chat about that sort of thing much?",
         "<yes>, we chat about it quite a bit.",
         "Chatting things over [helps|helps a little]."),
        ("Nice of {holder} to handle {topic}. Did you help out?",
         "<sortof>, I helped out a little with the fiddly bits.",
         "Helping with the fiddly bits is the [best|most useful] kind of help."),
        ("Good to hear about {holder} and {topic}.",),
        ("So {holder} has been dealing with {topic}. Is {holder} handy with that kind of thing?",
         "<yes>, very handy with that kind of thing.",
         "Handy people are worth their weight in gold[, I find|, truly]."),
        ("Sounds like {holder} has had a busy spell with {topic}.",),
    ),
    "declined": _replies(
        ("Fair enough, the right fit is worth waiting for with {topic}.",),
        ("These things happen with {topic}.",),
        ("Ah well, it is better to get {topic} right.",),
        ("Ah well, the right fit matters with {topic}. Was it a disappointment?",
         "<yes>, a little disappointing, but it is for the best.",
         "For the best is a [sensible|healthy] way to see it."),
        ("Better to wait than rush {topic}.",),
        ("[Fair enough|Right|I see]. Can {topic} wait a while?",
         "<yes>, it can wait a while, [thankfully|luckily].",
         "Waiting a while [takes|can take] the pressure off."),
        ("It sounds like a little more thought is needed on {topic}.",),
        ("Ah, that is how it goes sometimes with {topic}. Were you disappointed?",
         "<sortof>, a little disappointed, but I am fairly relaxed about it.",
         "Relaxed is a [fine|good] place to be."),
        ("Well, it is worth getting {topic} right.",),
        ("These things have a way of working out for {topic}. Does it feel like a setback?",
         "<sortof>, a small setback, but manageable.",
         "Small setbacks are [manageable|easier to bear], [I find|thankfully]."),
        ("Ah well, there is room for a rethink on {topic}.",),
        ("Fair enough, these things take a while with {topic}. Was that a bit frustrating?",
         "<yes>, a bit frustrating, [to be honest|I admit].",
         "Frustrating, but these things [pass|blow over]."),
        ("Understood, a bit of patience with {topic} is worth it.",),
        ("That happens with {topic} sometimes. Are you taking it in your stride?",
         "<yes>, I am taking it in my stride.",
         "Taking it in your stride is the [spirit|way]."),
    ),
    "state": _replies(
        ("Good to know the setup for {topic}.",),
        ("Handy to have that straight about {topic}.",),
        ("Thanks, that gives me the picture with {topic}.",),
        ("That makes sense for {topic}. Is it a big job to maintain?",
         "<sortof>, it needs a fair bit of maintaining.",
         "Maintaining things like that takes [effort|a steady hand]."),
        ("Ah, so that is the setup with {topic}.",),
        ("Sounds like a sensible arrangement for {topic}. Does it need much attention?",
         "<sortof>, it needs a little attention here and there.",
         "A little attention here and there [goes a long way|helps a great deal]."),
        ("Good to have the picture on {topic}. Is it much of a worry?",
         "<sortof>, it is a bit of a worry at times.",
         "Worries like that are easier [shared|talked through]."),
        ("Right, that fills in the picture for {topic}.",),
        ("That clears things up about {topic}.",),
        ("Handy to know where things stand with {topic}. Does it take up much of your time?",
         "<sortof>, it takes up a little time here and there.",
         "A little time here and there is [manageable|fair enough]."),
        ("Thanks for explaining {topic}. Is it a bit of a saga?",
         "<yes>, a bit of a saga, [honestly|if I am honest].",
         "Sagas like that make for [good|lively] stories[, at least|]."),
        ("That helps me picture the setup for {topic}.",),
        ("I see how things work with {topic}. Is it a fiddly arrangement?",
         "<sortof>, the arrangement is a little fiddly.",
         "Fiddly arrangements are easier [written down|on paper]."),
        ("Right, so that is how things are managed with {topic}.",),
    ),
    "noted": _replies(
        ("Thanks for filling me in on {topic}.",),
        ("Good to know where things are with {topic}.",),
        ("Noted about {topic}.",),
        ("Right, I have the gist about {topic}.",),
        ("Understood about {topic}. Do you feel [relaxed|calm|easy] about it all?",
         "<sortof>, fairly [relaxed|calm|easy] about it all, [thanks|to be honest].",
         "That sounds [healthy|about right|sensible]."),
        ("Interesting, about {topic}. Does that [sort|kind] of thing come up a lot?",
         "<sortof>, it comes up [here and there|from time to time|on and off].",
         "[Things|Matters] like that [crop up|turn up|arise] for [most people|most of us]."),
        ("That is useful to hear about {topic}.",),
        ("I will bear that in mind about {topic}. Was it [much|a lot] to think about?",
         "<sortof>, a fair bit to think about, [honestly|if I am honest].",
         "[Thinking|Mulling] [things|it] through [pays off|is time well used|is worth it]."),
        ("Thanks for the update on {topic}.",),
        ("So that is the story with {topic}.",),
        ("Good to hear how things stand with {topic}. Is it something you [think|wonder] about much?",
         "<sortof>, [a little|here and there], [I suppose|I admit].",
         "[Talking|Chatting] it through can [help|clear the head|ease the mind]."),
        ("Fair enough, that is {topic} covered.",),
        ("Thanks for sharing that about {topic}. Did it take much [weighing up|mulling over]?",
         "<sortof>, a fair amount of [weighing up|mulling over].",
         "[Weighing things up|Mulling things over] [properly|carefully] is [wise|sensible]."),
        ("Good to be in the loop about {topic}.",),
        ("It helps to know the background on {topic}. Do you talk it over with [people|friends] much?",
         "<sortof>, with a few [people|friends] I trust.",
         "[A few trusted people|Trusted friends|People you trust] are [worth a lot|a real help|a blessing]."),
        ("Ah, {topic}, thanks for keeping me posted.",),
        ("I appreciate the news about {topic}.",),
        ("Good, that gives me context on {topic}.",),
        ("[Right|Okay], that is {topic} accounted for.",),
        ("Thanks, I will hold {topic} in mind.",),
        ("[Ah|Oh], so that is where {topic} stands.",),
        ("Thanks for the word on {topic}. Was it a busy spell, [all in all|on the whole]?",
         "<sortof>, [a busy spell|a full stretch|a hectic patch], [all in all|on the whole].",
         "[Busy spells|Hectic patches] [pass|settle down], [I find|in my experience]."),
        ("Interesting to hear about {topic}. Did it cause much debate at home?",
         "<sortof>, a [little|fair bit of] debate at home, [all friendly|all very calm].",
         "[Friendly|Cheerful] debate [makes things lively|is healthy]."),
        ("That fills in {topic} for me. Are you glad to have it [straight|clear]?",
         "<yes>, glad to have it [straight|clear], [thanks|really].",
         "[Clarity|Knowing where you are] [is a comfort|helps], [I find|as a rule]."),
        ("Good to hear the latest on {topic}. Were people curious about it?",
         "<yes>, [a few|several] people were curious, [funnily enough|as it happens].",
         "[People|Friends] do [love|enjoy] a bit of news."),
        ("[Good|Useful] to have the picture on {topic}. Do you like to think these things through?",
         "<yes>, I like to think [things|these things] through [properly|carefully].",
         "Thinking [things|it] through [suits you|sounds wise]."),
        ("I see how things are with {topic}.",),
        ("Well, that is {topic} [explained|cleared up].",),
    ),
    "assistant-offer-declined": _replies(
        ("Thanks, but I would rather leave {topic} for a while.", None,
         "Fair enough, waiting on {topic} is fine."),
        ("I think I will pass on that for {topic}, to be honest.", None,
         "That is fair, the call on {topic} is yours."),
        ("Thanks, but I would rather sort {topic} out myself.", None,
         "Sorting {topic} yourself makes sense."),
        ("That is kind, but I would like to look around a bit more for {topic}.", None,
         "Looking around for {topic} is sensible."),
        ("I would rather wait and see with {topic}, if that is all right.", None,
         "Waiting to see with {topic} is fair enough."),
        ("Hmm, I think I will hold off on that for {topic}.", None,
         "Holding off on {topic} is your call."),
        ("Thanks, but I would prefer to ask around about {topic}.", None,
         "Asking around about {topic} is a sensible idea."),
        ("I appreciate it, but I will give {topic} some more thought.", None,
         "More thought on {topic} makes sense."),
        ("That is a thought, but I fancy a different route for {topic}.", None,
         "A different route for {topic} is fine by me."),
        ("Kind of you, but I think I will let {topic} rest for a bit.", None,
         "Letting {topic} rest for a bit sounds sensible."),
        ("I think I will give that a miss for {topic}, thanks.", None,
         "Giving it a miss is fine, the call on {topic} is yours."),
        ("Hmm, I would rather think {topic} over on my own.", None,
         "Thinking {topic} over on your own is wise."),
        ("Thanks, though I would rather take my time over {topic}.", None,
         "Taking your time over {topic} is fair enough."),
    ),
}
"""Replies to a statement, by stance (see :data:`STANCES`). ``{topic}`` is the vertical's lowercase
noun phrase ("the boiler at the cottage"), singular or plural (no verb takes it as subject);
``{holder}`` (stance "other" only) the other person as the assistant addresses them ("your
sister"), a singular noun phrase."""

STANCES: tuple[str, ...] = tuple(STATEMENT_REPLIES)
"""The stances a statement can take: the user "arranged" something, "intends" it, someone "other"
arranged it, it was "declined" or fell through, a plain "state", or the user turning down an
assistant suggestion ("assistant-offer-declined")."""

ASSISTANT_LEADS: tuple[str, ...] = (
    "How are things with {topic}?",
    "Any news on {topic}?",
    "How are you getting on with {topic}?",
    "Is there anything new with {topic}?",
    "What is happening with {topic}?",
    "Where are you with {topic}?",
    "Did anything come of {topic}?",
    "Any developments with {topic}?",
    "How do things stand with {topic}?",
    "Anything to report on {topic}?",
    "What is the latest on {topic}?",
    "By the way, how are things with {topic}?",
    "While I think of it, what is new with {topic}?",
    "I meant to ask, any news on {topic}?",
    "On another note, how are things with {topic}?",
    "How much of your time goes on {topic}?",
    "How are you finding {topic}?",
    "Out of interest, where did you land with {topic}?",
)
"""Assistant questions about a statement's topic, so a user statement can answer one ("How are
things with the boiler at the cottage?" -> "I have set a reminder to call ..."): the statement then
shares the topic's words with the question it answers."""

USER_DECLINES: tuple[str, ...] = (
    "I would rather wait and see, to be honest.",
    "Thanks, but I think I will leave that for a while.",
    "I think I will pass on that, thanks.",
    "Kind of you, but I would rather sort it out myself.",
    "Hmm, I would prefer to think it over.",
    "Thanks, I will give that a miss.",
    "That is kind, but I fancy a different approach.",
    "I appreciate it, but I would like to look around a little more.",
    "Maybe, but I would rather hold off for a while.",
    "Thanks for the thought, but I am happy as things are.",
    "I think I would rather ask around a bit more.",
    "That is a fair idea, but I will mull it over on my own.",
    "Thanks, though I would rather take my time over it.",
    "Hmm, I will sit on that for a while, I think.",
)
"""User turns that politely turn down an assistant suggestion without naming anything (positive
wording: "no" and "not" are forbidden scaffold words)."""

# --- drawing -------------------------------------------------------------------------------------


def _filler_words(filler: str) -> frozenset[str]:
    return frozenset(raw_tokens(filler))


_RELATION_WORDS: dict[str, frozenset[str]] = {
    key: _filler_words(" ".join(relation_slots(rel).values())) for key, rel in RELATIONS.items()}


@lru_cache(maxsize=512)
def _usable(topic: str, banned: frozenset[str]
            ) -> tuple[tuple[Episode, ...], tuple[Episode, ...], dict[str, tuple[str, ...]]]:
    """``topic``'s frames whose own words and slots survive ``banned``, split into those naming
    nobody and those naming a relation, and its fillers that avoid ``banned``. Cached per banned
    set: a vertical bans one set for a whole corpus."""
    spec = TOPIC_BANK[topic]
    fillers = {name: tuple(f for f in values if banned.isdisjoint(_filler_words(f)))
               for name, values in spec.slots.items()}
    plain: list[Episode] = []
    personal: list[Episode] = []
    for frame in spec.frames:
        if not banned.isdisjoint(frame.words):
            continue
        if any(not fillers.get(name) for name in frame.slots - set(REL_SLOTS)):
            continue
        (personal if frame.names_relation else plain).append(frame)
    return tuple(plain), tuple(personal), fillers


def _frames(topic: str, banned: frozenset[str], relations: Sequence[str]) -> tuple[Episode, ...]:
    plain, personal, _ = _usable(topic, banned)
    return plain + personal if relations else plain


def _normalised(relations: Iterable[str], banned: Iterable[str]
                ) -> tuple[tuple[str, ...], frozenset[str]]:
    """The relation keys the persona may name once ``banned`` words are avoided (unknown keys
    refused), and ``banned`` lowercased without the reference tokenizer's stopwords: "the", "at"
    and "for" carry no retrieval signal and every line holds some, so a banned subject phrase
    ("the kiln at the pottery") bans its content words, not the whole bank."""
    keys = tuple(relations)
    unknown = [k for k in keys if k not in RELATIONS]
    if unknown:
        raise ValueError(f"unknown relation keys {unknown}; known: {sorted(RELATIONS)}")
    words = frozenset(w.lower() for w in banned) - STOPWORDS
    return tuple(k for k in keys if words.isdisjoint(_RELATION_WORDS[k])), words


def topics_without(banned: Iterable[str] = frozenset(), relations: Sequence[str] = ()
                   ) -> tuple[str, ...]:
    """The topics that keep at least one frame once ``banned`` words are avoided and only
    ``relations`` may be named: what :func:`small_talk_episode` can draw from."""
    keys, words = _normalised(relations, banned)
    return tuple(t for t in TOPICS if _frames(t, words, keys))


def small_talk_episode(rng: random.Random, topic: str | None = None,
                       relations: Sequence[str] = (), *,
                       banned: Iterable[str] = frozenset()) -> list[tuple[Role, str]]:
    """One small-talk episode as ``(role, text)`` turns: opener, reply and, when the reply asks,
    the answer and a close (two or four turns, user first, assistant last).

    ``topic`` picks the topic (``None``: a drawn topic among those with a frame left);
    ``relations`` are the persona's :data:`RELATIONS` keys, the only people a frame may name (a
    frame that names a relation is skipped when there are none); ``banned`` are words the episode
    must not contain, checked against frame text and fillers alike (a vertical whose subject is
    "the kiln at the pottery" bans "kiln" and "pottery"; stopwords are ignored, see
    :func:`_normalised`). Every slot is filled once, so opener and
    reply talk about the same dish and the same sister. Raises ``ValueError`` when nothing is
    left to draw from."""
    keys, words = _normalised(relations, banned)
    if topic is None:
        choices = [t for t in TOPICS if _frames(t, words, keys)]
        if not choices:
            raise ValueError(f"no small-talk topic keeps a frame once {len(words)} words are "
                             f"banned with relations {list(keys)}")
        topic = rng.choice(choices)
    elif topic not in TOPIC_BANK:
        raise ValueError(f"unknown small-talk topic {topic!r}; known: {list(TOPICS)}")
    frames = _frames(topic, words, keys)
    if not frames:
        raise ValueError(f"small-talk topic {topic!r} has no frame left once {sorted(words)[:20]} "
                         f"are banned with relations {list(keys)}: pick another topic")
    frame = rng.choice(frames)
    return render_episode(frame, draw_slots(frame, rng, keys, _usable(topic, words)[2]), rng)


def draw_slots(frame: Episode, rng: random.Random, relations: Sequence[str] = (),
               fillers: Mapping[str, Sequence[str]] | None = None) -> dict[str, str]:
    """One value per slot of ``frame``, drawn once for the whole episode (so the reply names the
    dish the opener cooked). ``fillers`` narrows the topic's fillers (default: all of them); a
    frame naming a relation draws one of ``relations`` (keys of :data:`RELATIONS`)."""
    pool = fillers if fillers is not None else TOPIC_BANK[frame.topic].slots
    slots = {name: rng.choice(pool[name]) for name in sorted(frame.slots - set(REL_SLOTS))}
    if frame.names_relation:
        if not relations:
            raise ValueError(f"frame {frame.opener!r} names a relation and none was given")
        slots.update(relation_slots(RELATIONS[rng.choice(list(relations))]))
    return slots


def render_episode(frame: Episode, slots: Mapping[str, str], rng: random.Random
                   ) -> list[tuple[Role, str]]:
    """``frame``'s turns with ``slots`` filled; inline alternatives are drawn per line."""
    return [(role, render(choose_alternatives(text, rng), slots)) for role, text in frame.lines]


def statement_reply(rng: random.Random, stance: str, topic: str,
                    holder: str | None = None, ask: bool | None = None,
                    avoid: tuple[str, ...] = ()) -> list[tuple[Role, str]]:
    """The turns that follow a statement of ``stance`` about ``topic``.

    Usually ``[("assistant", reply)]`` or ``[("assistant", reply), ("user", answer),
    ("assistant", close)]``; for stance "assistant-offer-declined" (the statement was the
    assistant's suggestion) ``[("user", decline), ("assistant", close)]``. ``topic`` is the
    vertical's lowercase noun phrase; ``holder`` ("your sister") is required for stance "other" and
    ignored otherwise, since only "other" replies name another person. ``ask``, when given,
    draws only among the stance's replies that do (True) or do not (False) ask the user a
    question, so a vertical can give every stance the same share of asking replies (the stances'
    banks hold different shares, which makes an episode's length say its stance); ``None`` draws
    among all, as before. ``avoid``: replies whose text holds any of these fragments are not drawn
    (a vertical whose topic is not a job can keep "seen to" away from it); empty, the default,
    draws exactly as before."""
    if stance not in STATEMENT_REPLIES:
        raise ValueError(f"unknown stance {stance!r}; known: {list(STANCES)}")
    if stance == "other" and not holder:
        raise ValueError("stance 'other' needs the holder the reply names (e.g. 'your sister')")
    slots = {"topic": topic, "holder": holder or ""}
    rows = [r for r in STATEMENT_REPLIES[stance] if not any(f in r.reply for f in avoid)]
    if ask is None:
        chosen = rng.choice(rows)
    else:
        chosen = rng.choice([r for r in rows
                             if (r.answer is not None and r.close is not None) == ask])

    def fill(text: str) -> str:
        return render(choose_alternatives(text, rng), slots)

    if stance == "assistant-offer-declined":
        assert chosen.close is not None
        return [("user", fill(chosen.reply)), ("assistant", fill(chosen.close))]
    turns: list[tuple[Role, str]] = [("assistant", fill(chosen.reply))]
    if chosen.answer is not None and chosen.close is not None:
        turns += [("user", fill(chosen.answer)), ("assistant", fill(chosen.close))]
    return turns


def statement_lead(rng: random.Random, topic: str) -> str:
    """An assistant question about ``topic`` (from :data:`ASSISTANT_LEADS`) that a following user
    statement about it answers."""
    return render(rng.choice(ASSISTANT_LEADS), {"topic": topic})


@lru_cache(maxsize=1)
def slot_words() -> frozenset[str]:
    """Every lowercase token any line this module renders can contain (frame and reply text with
    every alternative, every slot filler, every relation), excluding what the caller supplies
    (``{topic}``, ``{holder}``). A generator asserts its value and subject vocabulary is disjoint
    from this, so scaffold never carries a value's words into sessions that do not hold it."""
    words: set[str] = set()
    for spec in _TOPIC_LIST:
        for frame in spec.frames:
            words |= frame.words
        for values in spec.slots.values():
            for value in values:
                words |= _filler_words(value)
    for relation in RELATIONS.values():
        words |= _filler_words(" ".join(relation_slots(relation).values()))
    for replies in STATEMENT_REPLIES.values():
        for row in replies:
            for text in (row.reply, row.answer, row.close):
                if text is not None:
                    words |= template_words(text)
    for text in (*ASSISTANT_LEADS, *USER_DECLINES):
        words |= template_words(text)
    return frozenset(words)


# --- import-time structure check -----------------------------------------------------------------


def structure_problems() -> list[str]:
    """Structural rule breaks (cheap; the full per-line checks live in the tests): a question
    reply without answer and close or the reverse, a question before a reply's last sentence, an
    unknown slot, a topic with too few frames, a slot with too few fillers, ``{holder}`` outside
    stance "other"."""
    found: list[str] = []
    for spec in _TOPIC_LIST:
        if len(spec.frames) < 8:
            found.append(f"{spec.name}: only {len(spec.frames)} frames")
        for name, values in spec.slots.items():
            if not 6 <= len(values) <= 12:
                found.append(f"{spec.name}: slot {name} has {len(values)} fillers")
            if len(set(values)) != len(values):
                found.append(f"{spec.name}: slot {name} repeats a filler")
        used = frozenset().union(*(frame.slots for frame in spec.frames))
        for name in sorted(set(spec.slots) - used):
            found.append(f"{spec.name}: slot {name} is never used")
        for frame in spec.frames:
            asks = frame.reply.rstrip().endswith("?")
            if asks != (frame.answer is not None) or (frame.answer is None) != (frame.close is None):
                found.append(f"{spec.name}: question, answer and close disagree: {frame.reply!r}")
            if "?" in frame.reply.rstrip()[:-1]:
                found.append(f"{spec.name}: a question before the reply's end: {frame.reply!r}")
            for name in frame.slots - set(REL_SLOTS) - set(spec.slots):
                found.append(f"{spec.name}: unknown slot {{{name}}} in {frame.opener!r}")
    for stance, replies in STATEMENT_REPLIES.items():
        if len(replies) < 12:
            found.append(f"stance {stance}: only {len(replies)} replies")
        for row in replies:
            texts = [t for t in (row.reply, row.answer, row.close) if t is not None]
            slots = frozenset().union(*(template_slots(t) for t in texts))
            if slots - {"topic", "holder"} or ("holder" in slots and stance != "other"):
                found.append(f"stance {stance}: bad slots {sorted(slots)} in {row.reply!r}")
            if "topic" not in template_slots(row.reply):
                found.append(f"stance {stance}: reply does not name the topic: {row.reply!r}")
            if stance == "assistant-offer-declined":
                if row.close is None or row.answer is not None:
                    found.append(f"stance {stance}: a decline needs a close and no answer")
            elif row.reply.endswith("?") != (row.answer is not None) or \
                    (row.answer is None) != (row.close is None):
                found.append(f"stance {stance}: question, answer and close disagree: {row.reply!r}")
    return found


_STRUCTURE = structure_problems()
assert not _STRUCTURE, "episode bank breaks its structure rules:\n" + "\n".join(_STRUCTURE)

__all__ = [
    "ASSISTANT_LEADS", "choose_alternatives", "draw_slots", "Episode", "EPISODES", "expansions",
    "Mood", "REL_SLOTS", "Relation", "relation_slots", "RELATIONS", "render", "render_episode",
    "Role", "slot_words", "small_talk_episode", "Stance", "STANCES", "statement_lead",
    "STATEMENT_REPLIES", "statement_reply", "StatementReply", "structure_problems",
    "template_slots", "template_words", "Topic", "TOPIC_BANK", "TOPICS", "topics_without",
    "USER_DECLINES",
]
