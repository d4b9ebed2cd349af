"""Phrase banks and data tables of TypedMemEval-Arithmetic v3 (issue 20: data apart from logic).

Why a module of its own: the declaration (:mod:`.arithmetic`) holds the construction, the
read-back and the checks; these tables are what a statement says -- objects by trade and price
band, lent or repaired items, the ONE frame bank every purchase and duration statement draws
from whatever its role (red team 32), follow-ups, openers and times of day. The checks that keep
them sound (equal form per row, own and holder versions one template, read-back) run at import
of :mod:`.arithmetic` (``_assert_banks``), which imports every name here.
"""

from __future__ import annotations

# --- banks ---------------------------------------------------------------------------------------

PRICE_BANDS: dict[str, tuple[int, int]] = {"low": (10_000, 29_999), "mid": (20_000, 59_999),
                                           "high": (45_000, 99_999)}
"""Amount ranges, in cents, inside :data:`AMOUNT_CENTS` (so every amount keeps three whole
digits): an object's price is drawn in its band (red team 25: drawn over the whole range, a
showerhead cost 998.64 and a conservatory 108.44)."""
_TRADE_BANDS: dict[str, dict[str, str]] = {
    "Hardware": {"low": "vice stepladder sawhorse grindstone",
                 "mid": "workbench anvil toolchest winch jackhammer",
                 "high": "lathe generator jointer bandsaw"},
    "Motors": {"low": "dashcam satnav battery",
               "mid": "roofbox towbar alternator exhaust bumper spoiler carburettor",
               "high": "gearbox clutch"},
    "Joinery": {"low": "highchair hatstand",
                "mid": "bookcase cabinet desk bedframe lectern cot cradle",
                "high": "sideboard wardrobe dresser bureau credenza worktop mantelpiece"},
    "Glazing": {"low": "mirror coldframe terrarium",
                "mid": "aquarium showerscreen splashback fanlight",
                "high": "skylight partition vitrine rooflight balustrade"},
    "Plumbing": {"low": "cistern thermostat valve showerhead",
                 "mid": "basin bidet pump manifold",
                 "high": "bathtub softener macerator cylinder"},
    "Roofing": {"low": "rainhead cowl downpipe weathervane aerial hatch louvre finial",
                "mid": "gutter fascia soffit",
                "high": "cupola"},
    "Electrics": {"low": "microwave toaster kettle heater printer keyboard juicer doorbell",
                  "mid": "monitor extractor speaker",
                  "high": "cooker dishwasher chandelier camera"},
    "Removals": {"low": "crate hamper trolley dolly holdall tarpaulin",
                 "mid": "trunk footlocker chest coffer handcart portmanteau",
                 "high": ""},
    "Upholstery": {"low": "footstool pouffe beanbag",
                   "mid": "ottoman futon headboard",
                   "high": "armchair recliner settee divan chaise daybed loveseat"},
    "Locksmiths": {"low": "padlock deadbolt keysafe lockbox peephole knocker lockset",
                   "mid": "strongbox smartlock intercom keypad",
                   "high": "safe"},
}
"""Objects sold by each trade, by price band: only objects a shop of that trade could plausibly
sell for 100-999 in any currency (a crowbar, a plunger, a porch or a conservatory could not)."""
TRADE_ITEMS: dict[str, tuple[str, ...]] = {
    trade: tuple(item for band in bands.values() for item in band.split())
    for trade, bands in _TRADE_BANDS.items()}
"""Objects bought, by the trade of the shop that sells them (a shop is a stem and a trade word,
:data:`..values.TRADES`): every statement at a shop, own or competitor, is dealt from one deck of
its trade, so an object says what a shop sells and nothing about who bought it."""
PRICE_BAND_OF: dict[str, str] = {item: band for bands in _TRADE_BANDS.values()
                                 for band, items in bands.items() for item in items.split()}
PLURAL_ITEMS = frozenset({"skis"})
"""Lent or repaired objects named in the plural: "were the skis away" (red team 23)."""
PURCHASE_ITEMS = tuple(sorted({item for items in TRADE_ITEMS.values() for item in items}))
ITEMS = tuple("""ladder tent projector trailer sander wheelbarrow chainsaw scooter kayak canoe tripod
amplifier microscope compressor grinder router vacuum dehumidifier blender mixer accordion trombone
saxophone clarinet banjo harp mandolin typewriter gramophone turntable snowboard surfboard
paddleboard wetsuit dinghy caravan campervan motorbike moped treadmill rotavator gazebo hoover
planer welder toolbox pushchair sledge skis metronome stroller""".split())
"""Objects lent out or sent for repair: one list; which of a haystack's items is asked is drawn."""

# --- frames: one bank of shapes for every role (episode view) ------------------------------------

PURCHASE_FRAMES: tuple[tuple[str, str, str], ...] = (
    ("So {i} finally ordered {a} from {shop} for {v} after some thought.",
     "So I finally refused {a} from {shop} for {v} after some thought.",
     "So {shop} would happily sell you {a} for just {v} straight away."),
    ("In the end {i} bought {a} from {shop} for {v}, as wanted.",
     "In the end I vetoed {a} from {shop} for {v}, as agreed.",
     "Right now {shop} has {a} on offer at {v}, in stock too."),
    ("Quick update: {shop} quoted {me} {a} at {v}, which {i} promptly accepted.",
     "Quick update: {shop} quoted me {a} at {v}, which I politely declined.",
     "Quick answer: {shop} sells you {a} for {v}, with postage included too."),
    ("After weeks of dithering {i} jumped at {a} from {shop} at {v}.",
     "After weeks of dithering I passed on {a} from {shop} at {v}.",
     "After a careful search {shop} turned up {a} for you at {v}."),
    ("Well, {shop} quoted {me} {v} for {a}, and {i} paid up gladly.",
     "Well, {shop} quoted me {v} for {a}, and I said no thanks.",
     "Well, {shop} is charging {v} for {a}, and it is in stock."),
    ("Then {i} calmly paid {v} for {a} at {shop}, and walked out.",
     "Then I almost paid {v} for {a} at {shop}, but walked out.",
     "So there is {shop}, which asks {v} for {a} at the moment."),
    ("Eventually {i} decided to pay {shop} {v} for {a} after all that.",
     "Eventually I refused to pay {shop} {v} for {a} after all that.",
     "Elsewhere {shop} lists {a} at {v} if you can fetch it yourself."),
    ("So {shop} had {a} {i} liked, and {i} bagged it at {v}.",
     "So {shop} had {a} I liked, but I vetoed it at {v}.",
     "So {shop} has {a} in stock, and it is {v} or so."),
    ("Also {i} simply got {a} at {shop} for {v}, and headed out.",
     "Also I nearly got {a} at {shop} for {v}, but missed out.",
     "Also {shop} is having a sale, and {a} costs just {v} now."),
    ("Yesterday {shop} rang about {a} at {v} and {i} accepted it immediately.",
     "Yesterday {shop} rang about {a} at {v} and I declined it courteously.",
     "Currently {shop} advertises {a} at {v} with free fitting in your home."),
    ("And {shop} had {a} in the window at {v}, and {i} splurged.",
     "And {shop} had {a} in the window at {v}, but I declined.",
     "And {shop} has {a} in its catalogue at {v}, as it happens."),
    ("Anyway, {i} picked up {a} from {shop} that was set at {v}.",
     "Anyway, I passed up {a} from {shop} that was set at {v}.",
     "Anyway, {shop} sells {a} to you at {v} for the time being."),
)
"""ONE frame bank for every purchase statement (red team 32). Per row: the frame of a purchase
that happened, the user's declined near-purchase and the assistant's quote. The first is one
template for the user's own purchase and a relation's alike: its holder slots ({i}, {me}, {my})
are the only words that differ ("I" / "she", "me" / "her", "my" / "his"), every other word is the
same. Before, the two were twin templates that differed in words saying nothing about who acted
("just as planned" / "just as agreed", "delivery" / "postage", "finally" / "kindly", "I liked" /
"she saw"), so with pronouns masked, and even as word lengths alone, own purchases fell into 12
frames and others' into 12 more, none shared (held out, gold@1 1.000 with the question). Which
row a statement takes is dealt whatever its role (:func:`_plan_purchases`). The declined frame is
the acted frame's word-length twin (arith7): the stance words swapped for words of the same lengths
("finally ordered" / "finally refused"), since declined frames of their own were 12 word-length
sequences no acted statement shared and the gate's length table read the decline from them."""


PURCHASE_ROWS: tuple[tuple[str, str, str, str], ...] = tuple(
    (own, own, declined, quote) for own, declined, quote in PURCHASE_FRAMES)
"""Per row: the user's own purchase, a relation's (the holder competitor; {i}, {me}, {my} are the
relation's pronouns) -- one template, from :data:`PURCHASE_FRAMES` --, the user's declined
near-purchase and the assistant's quote. The four of a row hold the same number of words, commas,
other punctuation and value-like tokens and as many letters give or take :data:`LETTER_SLACK`
(the own and holder versions: the same template), and no version opens on its actor (an opening
"She" would count as a value-like token where "I" does not), so which role a statement plays is
said by its words, never by its length or punctuation (:func:`_assert_banks`)."""

PURCHASE_FOLLOW_FRAMES: tuple[tuple[str, str, str], ...] = (
    ("Fingers crossed the {item} fits the spot {i} had in mind.",
     "Sadly the {item} never fitted the spot I had in mind.",
     "Worth checking the {item} fits the spot you have in mind."),
    ("Honestly, {i} had been eyeing that {item} for ages.",
     "Honestly, I had been eyeing that {item} for ages.",
     "Honestly, that {item} has been in demand for ages."),
    ("Needless to say, {i} was thrilled with the {item}.",
     "Needless to say, I was sorry about the {item}.",
     "Needless to say, {item} deals like that go fast."),
    ("Frankly that {item} was a bargain.",
     "Frankly that {item} was a swindle.",
     "Frankly that {item} is a bargain."),
    ("Looking back, {i} felt no regrets at all about the {item}.",
     "Looking back, I have no regrets at all about that {item}.",
     "Looking around, that is about the going rate for a {item}."),
    ("Delivery of the {item} took a while, but it arrived safely.",
     "Budget matters, and the {item} was well over what I planned.",
     "Delivery of the {item} takes a while, but it arrives safely."),
    ("The old {item} had finally given up, so it was time.",
     "My old {item} still works, so it can wait a while.",
     "An old {item} can last for years, so take your time."),
    ("The {item} should serve well for years, I think.",
     "The {item} would have served for years, I admit.",
     "The {item} should serve well for years, I think."),
)
PURCHASE_FOLLOWS: tuple[tuple[str, str, str, str], ...] = tuple(
    (own, own, declined, quote) for own, declined, quote in PURCHASE_FOLLOW_FRAMES)
"""A value-free sentence after a purchase statement (drawn alike for every role,
:data:`FOLLOW_SHARE`), naming the object (so the sentences rarely repeat) but never the shop or
the amount; the versions of a row match as the statement rows' do (own and holder: one
template, past tense so the verb agrees with "I" and "she" alike)."""

WHEN_PURCHASE: tuple[str, ...] = (
    "yesterday", "this morning", "at the weekend", "after work yesterday", "the other day",
    "yesterday afternoon", "on my day off", "earlier today", "last weekend", "after lunch",
    "late yesterday", "over the weekend", "last night", "on my lunch break", "before work",
    "this afternoon", "on the way home", "after the school run", "late this morning",
    "early this morning", "on my way back from work", "before the rain came", "during my lunch hour",
    "on a rainy afternoon")
INTROS_PURCHASE: tuple[str, ...] = (
    "I went round the shops with my {rel} {when}.",
    "My {rel} and I had a look round town {when}.",
    "My {rel} dragged me to the retail park {when}.",
    "I met my {rel} in town {when}.",
    "My {rel} and I did a bit of shopping {when}.",
    "I spent a few hours in town with my {rel} {when}.",
    "My {rel} came along with me to the high street {when}.",
    "I took my {rel} to the shops {when}.",
    "My {rel} and I went out browsing {when}.",
    "I popped into town with my {rel} {when}.",
    "My {rel} gave me a lift into town {when}.",
    "I had a wander round the shops with my {rel} {when}.",
    "My {rel} and I hit the shops {when}.",
    "I went browsing online with my {rel} {when}.",
    "My {rel} and I looked at furnishings {when}.",
    "I did some errands with my {rel} {when}.",
)
"""Every purchase statement opens on one of these, the user's own, a relation's and a declined one
alike, naming one of the persona's relations: the relation who then buys (a holder competitor,
"she duly ordered ...") or one who came along ("I finally ordered ..."). Composed with
:data:`WHEN_PURCHASE`, so the sentences rarely repeat."""
QUOTE_INTROS: tuple[str, ...] = (
    "Here is a place your {rel} could visit {when}.",
    "You and your {rel} may want to see it {when}.",
    "This is worth a visit with your {rel} {when}.",
    "So go in with your {rel} {when}.",
    "Your {rel} may want to go and see it {when}.",
    "Here is a shop you can see with your {rel} {when}.",
    "This could well be worth a trip with your {rel} {when}.",
    "Go and see it with your {rel} {when}.",
    "Your {rel} could look at this too {when}.",
    "Do take a look with your {rel} {when}.",
    "Here is a shop your {rel} could try {when}.",
    "It may be worth a good browse with your {rel} {when}.",
    "Do have a look with your {rel} {when}.",
    "Check this place out with your {rel} {when}.",
    "Your {rel} could look into this shop {when}.",
    "Your {rel} may like this shop too {when}.",
)
QUOTE_WHEN: tuple[str, ...] = (
    "tomorrow", "this week", "at the weekend", "after work tomorrow", "some time soon",
    "tomorrow afternoon", "on your day off", "later today", "next weekend", "after lunch",
    "early tomorrow", "over the weekend", "this evening", "on your lunch break", "before work",
    "this afternoon", "on the way home", "after the school run", "later this week",
    "early next week", "on your way back from work", "before the shops close",
    "during your lunch hour", "on a quiet afternoon")
"""The quote opener's time, index by index as many words as :data:`WHEN_PURCHASE`, looking
ahead in the assistant's voice (red team 23: the openers recalled what no user turn had said,
"You told me your cousin wanted a look yesterday.", and echoed the user's "on my day off")."""
"""The assistant's lead-in to a quote, row by row as many words as :data:`INTROS_PURCHASE` and
as many letters give or take :data:`LETTER_SLACK`: it points to the shop the next sentence names
and the persona relation who might go along, never a recollection. Red team 25: the lead-ins were
unrelated suggestions ("You can shop for it with your neighbour this evening.") opening 42 of 125
price answers before the price; moving them after the price instead made a quote's sentence
before its core shorter than every user statement's (episode view: before-words z 4.16)."""
QUOTE_REQUESTS: tuple[str, ...] = (
    "Do you know what {a} goes for these days?", "What would {a} come to, roughly?",
    "Any idea where I could get {a}?")
QUOTE_PREFIXES: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("Sure.", "Of course.", "Good question.", "Right.", "Ah, yes.", "Happy to help."),
    ("Let me have a look for you.", "Here is what I found.", "I checked the current listings.",
     "Prices move around, but here goes.", "I had a quick look.", "This is what turned up."))
"""Two short sentences the assistant may open a quote with, on the share of quotes
:data:`PREFIX_SHARE` (a user statement opens on an acknowledgement and a change of subject unless
it opens its session; the quote's request takes that opener, so its answer takes one of its own)."""

DURATION_FRAMES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "loan": (
        ("Today {i} decided to loan {the} {item} out to a friend.",
         "Today {i} got {the} {item} back from its loan at last.",
         "Today I refused to loan {the} {item} out to a friend."),
        ("So {i} decided to loan {the} {item} to a neighbour today.",
         "So {i} had {the} {item} back from its loan today intact.",
         "So I refused to loan {the} {item} to a neighbour today."),
        ("Well, {i} decided to loan {the} {item} to a colleague today.",
         "Well, {the} {item} came back from its loan to {me} today.",
         "Well, I refused to loan {the} {item} to a colleague today."),
        ("Meanwhile {i} decided to send {the} {item} on loan for a project.",
         "Meanwhile {i} collected {the} {item} from its loan across the town today.",
         "Meanwhile I refused to send {the} {item} on loan for a project."),
        ("And {i} decided to loan {the} {item} out to someone from the village this morning.",
         "And {the} {item} is back from loan to someone in the village as of today.",
         "And I refused to loan {the} {item} out to someone from the village this morning."),
        ("Also {i} decided to loan {the} {item} out to a cousin of a friend today.",
         "Also {i} had {the} {item} returned from loan by a cousin of a friend today.",
         "Also I refused to loan {the} {item} out to a cousin of a friend today."),
    ),
    "repair": (
        ("Today {i} decided to send {the} {item} for repair.",
         "Today {i} finally collected {the} {item} back from repair.",
         "Today I refused to send {the} {item} for repair."),
        ("So {i} decided to drop {the} {item} off for repair today.",
         "So {i} went and picked {the} {item} up from repair today.",
         "So I refused to drop {the} {item} off for repair today."),
        ("Well, {i} decided to take {the} {item} for repair today, as it broke.",
         "Well, {the} {item} came back from the repair shop today, working like new.",
         "Well, I refused to take {the} {item} for repair today, as it works."),
        ("Meanwhile {i} decided to take {the} {item} to the repair shop today.",
         "Meanwhile {i} finally fetched {the} {item} back from the repair shop today.",
         "Meanwhile I refused to take {the} {item} to the repair shop today."),
        ("And {i} decided to send {the} {item} for repair today, after weeks of trouble.",
         "And {the} {item} is back from repair as of today, fixed and working again.",
         "And I refused to send {the} {item} for repair today, after weeks of thought."),
        ("Also {i} decided to leave {the} {item} for repair this afternoon, as planned.",
         "Also {i} fetched {the} {item} from the repair shop this afternoon, as planned.",
         "Also I refused to leave {the} {item} for repair this afternoon, as advised."),
    ),
}
"""ONE frame bank for every duration statement (red team 32). Per domain and row: an item sent
away, the item back -- each one template for the user's own item and a relation's alike, the
holder slots ({i}, {the}, {me}: "I" / "she", "my" / "her", "me" / "her") the only words that
differ -- and the user's declined loan or repair, each naming the item and the domain word the
question asks ("loan", "repair"). The possessive follows the holder in every role ("my ladder",
"her ladder"): before, the user's item was "the ladder" and a relation's "her ladder", so the
article alone said whose it was. The declined version is the sent-away version's word-length twin
("decided to loan" / "refused to loan"; arith7), so word lengths never say it did not happen."""
DURATION_ROWS: dict[str, tuple[tuple[str, str, str, str, str], ...]] = {
    domain: tuple((start, end, declined, start, end) for start, end, declined in frames)
    for domain, frames in DURATION_FRAMES.items()}
"""Per domain and row the five versions the readers use (:data:`DURATION_COLUMN`): the user's
item sent away, back, the declined one, and a relation's sent away and back -- the relation's
the same templates as the user's (:data:`DURATION_FRAMES`); the five match as the purchase
rows' do."""

DURATION_FOLLOWS: tuple[tuple[str, str, str], ...] = (
    ("Fingers crossed it comes home intact.",
     "Lovely to have it home intact.",
     "Better to be careful than sorry."),
    ("Hopefully it will not be gone long.",
     "Nice to see it back home again.",
     "Maybe another time if it comes up."),
    ("Time will tell how that goes.",
     "Time will tell if it lasts.",
     "Time will tell if it mattered."),
    ("Still, it should be in good hands.",
     "Still, it looks none the worse now.",
     "Still, it could be worth doing soon."),
    ("The house feels emptier without it.",
     "The house feels complete with it.",
     "The house will manage without it."),
    ("Anyway, that is sorted for now.",
     "Anyway, that is sorted for good.",
     "Anyway, that can wait for now."),
)
"""A value-free sentence after a duration statement, drawn alike for every role; per row the
versions (sent away, back, declined) match as the rows' do (a relation's take the first two)."""

WHEN_DURATION: tuple[str, ...] = (
    "this morning", "over breakfast", "at lunchtime", "after work", "this afternoon",
    "over coffee", "earlier on", "this evening", "over a cup of tea", "on the doorstep",
    "at the garden gate", "on my way out", "before lunch", "after dinner", "at the front door",
    "on the phone")
INTROS_DURATION: tuple[str, ...] = (
    "I had a long chat with my {rel} {when}.",
    "My {rel} popped round {when}.",
    "I caught up with my {rel} {when}.",
    "My {rel} rang me {when}.",
    "I saw my {rel} {when}.",
    "My {rel} and I got talking {when}.",
    "I bumped into my {rel} {when}.",
    "My {rel} dropped by {when}.",
    "I spent a while with my {rel} {when}.",
    "My {rel} messaged me {when}.",
)
"""Every duration statement opens on one of these, whoever's item it is."""
