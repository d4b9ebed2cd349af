"""Phrase banks and data tables of TypedMemEval-Prospective revision 3 (:mod:`.prospective`).

Why a module of its own: the declaration ran to 1,119 lines (issue 20); the banks are data a
reviewer reads apart from the design. Every name is re-exported by :mod:`.prospective`, which builds
the derived tables (own statements, competitors, patterns) and checks these banks at import.
"""

from __future__ import annotations

NOUNS = tuple("""boiler|burglar alarm|roof|chimney|gutters|fridge|generator|fence|heat pump|wiring|
shutters|drains|skylight|dishwasher|radiators|cooker|extractor fan|security gate|water softener|
septic tank|solar panels|immersion heater|sprinklers|lift|photocopier|awning|wood burner|intercom|
doorbell|window frames|thermostat|smoke detectors|patio doors|pressure washer|chest freezer|
tumble dryer|washing machine|loft insulation|damp course|ice maker|fuse box|letterbox|hot tub|
porch lamp|ceiling fans|microwave|stopcock|cistern|downpipes|weathervane|underfloor heating|
carpets|blinds|keypad|dehumidifier|air conditioner|towel rails|floodlights|stairlift|
conservatory|decking|lanterns|chiller|shed|carport|garage door|electric meter|satellite dish|
sash cords|paving""".replace("\n", "").split("|"))
PLACES = tuple("""cottage bakery surgery chapel pottery warehouse chalet gym farmhouse barn lodge
bungalow cafe office depot campsite annexe marina pub villa nursery vineyard theatre boutique
clinic hotel canteen factory abbey hostel workshop kiosk pavilion guesthouse stables cabin gallery
mill boathouse salon library studio pharmacy brewery distillery dairy creamery bistro tearoom
bookshop florist rectory vicarage priory orangery granary smithy forge tannery laundrette kennels
cattery boatyard gatehouse lighthouse windmill museum playhouse inn tavern chandlery""".split())
"""One list of things and one of places; a subject is "the {noun} at the {place}"."""


BODIES: dict[str, tuple[str, ...]] = {
    "reminder": (
        "I have set a reminder to call {value} about {subject} in {span}.",
        "My phone will remind me to call {value} about {subject} in {span}.",
        "In {span} I need to call {value} about {subject}, and there is a reminder on my phone "
        "for it.",
        "Things are hectic, so I put in a reminder to call {value} about {subject} in {span} "
        "rather than trust my memory.",
        "I ought to call {value} about {subject} in {span}, so I wrote myself a reminder."),
    "validity": (
        "The cover for {subject} from {value} is valid for the next {span}.",
        "I have cover from {value} for {subject}, valid for the next {span}.",
        "After a lot of back and forth, {value} sorted out cover for {subject} that is valid "
        "for the next {span}.",
        "{value} is providing cover for {subject} that stays valid for the next {span}.",
        "Cover for {subject} comes from {value} and is valid for the next {span}."),
    "plan": (
        "I am planning to book {value} for {subject} in {span}.",
        "The plan is to book {value} for {subject} in {span}.",
        "In {span} I mean to book {value} for {subject}, once things calm down a little.",
        "I have been putting it off, but I intend to book {value} for {subject} in {span}.",
        "I would like to book {value} for {subject} in {span}, if the budget allows."),
    "schedule": (
        "{value} looks after {subject} for the moment, and {value2} takes over in {span}.",
        "For the time being {value} looks after {subject}, but {value2} takes over in {span}.",
        "Until {value2} takes over in {span}, {value} looks after {subject}.",
        "Currently {value} looks after {subject}, though in {span} {value2} takes over from them, "
        "which should make things a bit easier.",
        "At the moment {value} looks after {subject}, and in {span} {value2} takes over."),
}
"""The statement bodies, one bank for every user statement of a kind, gold or competitor: what
the user arranged (a reminder, a cover, a plan, a hand-over), with its span. A statement is a body
and a :data:`TAILS` tail, and only the tail says whether the arrangement stands. No hand-over body says "now" (the
``current`` question's word): three of five did, so the phrase reader scored a session by which
body it drew, and with few competitors the draw put gold in its top five (0.929 at 0.625)."""

TAILS: tuple[dict[str, str], ...] = (
    {"own": "I have since rechecked it, so that part is settled.",
     "cancelled": "I have since cancelled it, so that part is settled."},
    {"own": "That is all fine, as far as I know.",
     "cancelled": "That is all over, as far as I know."},
    {"own": "It is staying put, as things stand.",
     "cancelled": "It is dropped now, as things stand."},
    {"own": "All told I have kept it, and I am glad I did.",
     "cancelled": "All told I have axed it, and I am glad I did."},
    {"own": "It is still going ahead, I am happy to say.",
     "cancelled": "It is never going ahead, I am sorry to say."},
    {"own": "I decided to keep it, on reflection.",
     "cancelled": "I decided to drop it, on reflection."},
    {"own": "In the end I let it stand, to keep things simple.",
     "cancelled": "In the end I let it lapse, to keep things simple."},
    {"own": "The arrangement holds, for what it is worth.",
     "cancelled": "The arrangement ended, for what it is worth."},
)
"""The stance tails, written as twins (red team 28: every competitor was the own frame plus a
stance tail and gold the bare frame, so the shortest named statement about the asked subject was
gold in 0.661 of haystacks, random 0.170; a form-only reader 0.709 held out). Every user statement,
gold included, is a body and a tail; within a row the own tail (the arrangement stands) and the
cancelled one (it was undone) have the same word-length sequence, commas and sentence count
(:func:`length_sequence_imbalance`, checked at import), and share every word but the one or two
that carry the stance, so the stance is read from meaning, not from form, and no short closed
list of words names it. Red team 34's defects are gone: no tail says "since then" (the plan it
is joined to lies ahead), none is the one-letter twin "not off" / "now off", and none marks a
reversal never set up ("after all", "on second thoughts"). Each tail fits every kind ("it" is the reminder, cover, plan or
hand-over) and claims nothing happened beyond the arrangement (a plan is never said booked)."""

SUGGESTIONS: dict[str, tuple[str, ...]] = {
    "reminder": ("You could ring {value} about {subject}.",
                 "{value} is worth a ring about {subject}."),
    "validity": ("You could ask {value} about {subject}.",
                 "{value} is worth a try for {subject}."),
    "plan": ("You could try {value} for {subject}.",
             "{value} is worth asking about {subject}."),
    "schedule": ("You could ask {value} to help with {subject}.",
                 "{value} might help with {subject}."),
}
"""The assistant's suggestions a user declines, by kind (a competitor form: see
``prospective.COMPETITORS``)."""

REQUESTS = {
    "reminder": ("Do you know anyone I could call about {subject}?",
                 "Who would be good to call about {subject}?"),
    "validity": ("Who might do cover for {subject}?",
                 "Do you know anyone who does cover for {subject}?"),
    "plan": ("Who could I book for {subject}?", "Do you know anyone I could book for {subject}?"),
    "schedule": ("Who could look after {subject}?",
                 "Do you know anyone who could look after {subject}?"),
}
"""The user turn a suggestion answers (no value: the user asks, the assistant names someone)."""


SPANS = {"five weeks": 35, "six weeks": 42, "seven weeks": 49, "eight weeks": 56, "nine weeks": 63,
         "ten weeks": 70, "eleven weeks": 77, "twelve weeks": 84, "thirteen weeks": 91,
         "fourteen weeks": 98, "fifteen weeks": 105, "sixteen weeks": 112, "seventeen weeks": 119,
         "eighteen weeks": 126, "nineteen weeks": 133, "twenty weeks": 140, "forty days": 40,
         "fifty days": 50, "sixty days": 60, "seventy days": 70, "eighty days": 80, "ninety days": 90}
"""Spans 35-140 days (red team 39): the asking window may sit anywhere from about a month to four
months after the last session, a band several times its own width, so the gap from the haystack's
calendar to the asked date says little about which arm is asked."""
OFFSETS = {"ten days": 10, "twelve days": 12, "two weeks": 14}
"""Seed questions' instants relative to the asking moment ("twelve days ago", "in two weeks")."""

QUESTIONS = {
    "due-later": "Is my reminder about {subject} due yet, and whom was I to call?",
    "expiring-validity": "Whose cover do I have for {subject}, and is it still valid?",
    "not-yet-true": "From what I have told you, have I booked anyone for {subject} yet?",
    "current": "Who looks after {subject} now?",
    "as-of": "Who was looking after {subject} {offset} ago?",
    "prospective": "Who will be looking after {subject} in {offset}?",
}
ANSWERS = {
    ("due-later", "before"): "Not yet: your reminder to call {value} about {subject} is not due yet.",
    ("due-later", "after"): "Yes, it is due now: call {value} about {subject}.",
    ("expiring-validity", "before"): "{value}, and it is still valid: it has not lapsed yet.",
    ("expiring-validity", "after"): "{value}, but it has lapsed: that cover is no longer valid.",
    ("not-yet-true", "before"): "Not yet: you plan to book {value}, and the day you set for it has "
                                "not come yet.",
    ("not-yet-true", "after"): "The day you set to book {value} has passed, and nothing you told me "
                               "afterwards says whether you did.",
    ("current", None): "{value} looks after it now.",
    ("as-of", None): "{value} was looking after it then.",
    ("prospective", None): "{value} will be looking after it then.",
}
"""Gold texts, filled only from values read back from the rendered sessions (V5)."""
TIME_BLIND = {
    ("due-later", "before"): ("Yes, it is due now: call {value}.", "Not yet.", "Call {other}."),
    ("due-later", "after"): ("Not yet, that reminder is not due yet.", "Nothing is due yet.",
                             "Yes, it is due now.", "Not yet: you are to call {value} later."),
    ("expiring-validity", "before"): ("{value}, but it has lapsed.", "It is still valid.",
                                      "{other}, and it is still valid."),
    ("expiring-validity", "after"): ("{value}, and it is still valid.",
                                     "{value}; it has not lapsed yet.", "It has lapsed."),
    ("not-yet-true", "before"): ("Yes, you booked {value}.", "Not yet.", "You booked {other}."),
    ("not-yet-true", "after"): ("Yes, you booked {value} as planned.",
                                "Not yet: you plan to book {value}.", "You booked {other}."),
    ("current", None): ("{other} looks after it now.",),
    ("as-of", None): ("{other} was looking after it then.",),
    ("prospective", None): ("{other} will be looking after it then.",),
}
"""Per question, answers a clock-blind or careless system gives; none may grade correct. ``{other}``
is another value of the haystack (for seeds, the other name of the hand-over)."""
