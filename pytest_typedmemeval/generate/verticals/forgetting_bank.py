"""The Forgetting vertical's written data: subject rows, near-synonym pairs, intro sentences, the
one statement frame bank and its stance phrases (issue 20: moved out of
:mod:`.forgetting`, byte-identical; the declaration and its checks stay there, and re-export every
name, so ``forgetting.FOLLOW_FRAMES`` and the rest read as before).

Why a module of its own: the declaration had grown past 1,250 lines, most of it tables a reviewer
reads apart from the machinery that draws from them."""

from __future__ import annotations

SERVICE_ROWS = """
plumber, boiler, radiators, electrician; physio, shoulder, knee, radiographer;
vet, tabby, rabbit, cat behaviourist; chimney sweep, cottage, farmhouse, thatcher;
window cleaner, conservatory, shopfront, blind fitter; music teacher, cello, flute, luthier;
gardener, orchard, allotment, tree surgeon; babysitter, twins, toddler, paediatrician;
mechanic, van, hatchback, valeter; personal trainer, marathon, triathlon, nutritionist;
solicitor, conveyancing, lease, surveyor; tutor, chemistry exam, geography coursework, invigilator;
osteopath, sciatica, neck, pharmacist; florist, wedding, anniversary, caterer;
housekeeper, office, guesthouse, receptionist; dog groomer, spaniel, poodle, pet minder;
tailor, wool coat, waistcoat, embroiderer; key cutter, garage, shed, handyman;
farrier, pony, carthorse, saddler; upholsterer, armchair, sofa, furniture restorer;
glazier, greenhouse, skylight, carpenter; bricklayer, porch, extension, scaffolder;
decorator, hallway, stairwell, tiler; podiatrist, bunion, heel, orthotist;
optician, varifocals, sunglasses, lens grinder; translator, visa papers, court hearing, notary;
roofer, dormer, gutters, leadworker; beekeeper, hives, swarm, pest controller;
cobbler, boots, brogues, shoe shiner; stonemason, boundary wall, headstone, fencer"""
ITEM_ROWS = """
camera, safari, birdwatching, tripod; paddleboard, lake trips, harbour, life jacket;
wetsuit, cold swims, surfing, tow float; road bike, commute, sportive, pannier;
gazebo, festival, scout camp, cool box; telescope, stargazing, eclipse, deckchair;
sewing machine, quilting, dressmaking, pin cushion; espresso maker, breakfast bar, canteen, toaster;
lawnmower, lawn, paddock, sprinkler; kayak, river outings, reservoir, trolley;
drone, surveys, filming, measuring wheel; keyboard, band, choir, amplifier;
snowboard, ski trip, slope, helmet; pram, baby, grandchild, highchair;
laptop, coding bootcamp, dissertation, textbook; exercise cycle, annexe, spare bedroom, futon;
caravan, summer tour, rally, awning; bassinet, nursery, playroom, nightlight;
pizza oven, courtyard, balcony, parasol; metal detector, field digs, beachcombing, trowel;
tennis racket, club matches, tournament, ball launcher; jet washer, patio, driveway, leaf blower;
waffle iron, breakfasts, brunches, juicer; easel, watercolours, portraits, palette knife;
ukulele, singalongs, busking, tambourine; dehumidifier, cellar, basement, sump pump;
sleeping bag, bothy stays, bivvy, camping stove; microscope, pond samples, fossils, magnifier;
trailer, tip runs, firewood, log splitter; dartboard, snug, clubhouse, record player;
sledge, snow days, snowdrifts, flask; barbecue, terrace, garden party, chiminea;
projector, movie nights, lectures, soundbar; hammock, veranda, treehouse, sun lounger;
ladder, loft, apple picking, torch"""
"""The written rows: a noun for a purpose, the purpose of another instance, and its *twin* (a
plainly different thing for the same purpose)."""

NEAR_SYNONYMS: frozenset[frozenset[str]] = frozenset(frozenset(pair.split("/")) for pair in (
    "canoe/kayak, dentist/orthodontist, accountant/bookkeeper, chiropractor/physio, "
    "conveyancer/solicitor, babysitter/nanny, personal trainer/running coach, drysuit/wetsuit, "
    "kiteboard/paddleboard, letting agent/property manager, overlocker/sewing machine, "
    "keyboard/synthesiser, masseur/osteopath, caretaker/housekeeper, laptop/tablet, "
    "exercise cycle/treadmill, snowboard/toboggan, lawnmower/strimmer, mentor/tutor, "
    "mechanic/panel beater, gardener/landscaper, tent/campervan, camera/camcorder, "
    "plumber/heating engineer, broadband provider/phone carrier, vet/animal nurse, "
    "physio/sports masseur, florist/flower seller, printer/copy shop").split(", "))
"""Pairs a fair reader could conflate (v1 near-misses among them): never asked beside each other."""

# --------------------------------------------------------------------------------------------
# Frames: one machinery for gold and competitors. Slots: {Who}/{who} the subject ("I", or the
# holder's pronoun after the intro naming the holder: "My sister rang last night, and we talked
# for ages. She ..."; every statement has an intro, see INTRO_FRAMES), {poss}
# "the" or the holder's possessive, {my} "my" or it, {me} "me" or the holder's object pronoun,
# {mentioned} who mentioned it to whom, {a} the noun's article, {value}/{Value} the value as the
# text shows it ("Harriet Colby", "the Zentra"), {act} the follow-up's event (an invalidation) or
# its re-affirmation.
#
# Why lengths are matched: every bank (statement, declined, follow) has one form, ten frames with
# one comma each, eight of one sentence and two of two (the subject and the value in different
# sentences), about 17 words filled, with the one-sentence and the two-sentence frames each matched
# across banks. So a reader of form, over episodes or over clauses (words, characters, commas,
# sentences), and sentence-level BM25 (among sentences holding both subject words the shortest
# wins) see the same spread in every kind; a holder is named in an intro sentence with a stopword
# pronoun after it, so no kind's subject sentence is shorter by design.

INTRO_FRAMES = ("My {rel} and I caught up {over} {when}.",
                "I had a good chat with my {rel} {over} {when}.",
                "My {rel} and I swapped news {over} {when}.",
                "I caught up with my {rel} {over} {when}.",
                "My {rel} came round {when}, and we traded updates {over}.",
                "I spoke to my {rel} {over} {when}, and we compared notes.",
                "{When}, my {rel} and I compared notes {over}.",
                "My {rel} rang {when}, and we talked for ages.",
                "I saw my {rel} {when}, and we had a good natter {over}.",
                "{When} I met my {rel} for a proper natter {over}.",
                "My {rel} and I had a proper catch-up {over} {when}.",
                "I bumped into my {rel} {when}, and we got talking.",
                "I was on the phone to my {rel} {when} for a good while.",
                "My {rel} popped in {when}, and we traded news {over}.")
INTRO_TIME: dict[str, str] = {
    "yesterday": "", "on Sunday": "", "last night": "evening", "this morning": "morning",
    "at the weekend": "", "the other evening": "evening", "on Tuesday": "", "after dinner": "evening",
    "on Saturday": "", "on Friday": "", "earlier today": "day", "last week": ""}
"""When an intro's catch-up happened, with the time of day it fixes ("": any time)."""
INTRO_PLACE: dict[str, frozenset[str]] = {
    "over coffee": frozenset({"", "morning", "day", "evening"}),
    "over a pot of tea": frozenset({"", "morning", "day", "evening"}),
    "over lunch": frozenset({"", "day"}),
    "on a long walk": frozenset({"", "morning", "day", "evening"}),
    "in the car": frozenset({"", "morning", "day", "evening"}),
    "at the market": frozenset({"", "morning", "day"}),
    "over a sandwich": frozenset({"", "day"}),
    "in the queue at the bakery": frozenset({"", "morning", "day"}),
    "over supper": frozenset({"", "evening"}),
    "in the pub": frozenset({"", "day", "evening"})}
"""Where or over what, with the times of day it fits: the place is drawn among those that fit the
time drawn, so no intro has lunch in the evening (red team 21 counted 56 such intros in
``eaa1e882``: "popped in the other evening, and we traded news over lunch")."""
INTRO_WHEN = tuple(INTRO_TIME)
INTRO_OVER = tuple(INTRO_PLACE)
"""The sentence before *every* statement, the user's own and a relation's alike: it names one of the
persona's relations (the holder when a relation holds the statement, any relation when the user
does), and the statement's pronoun after it says whose it is ("I caught up with my sister over
coffee yesterday. She settled on ..." / "... I settled on ..."). Why every statement: revision 3's
first intros ("Some news from my sister about her plans.") preceded relation statements only, so
the user's own statements (gold's kind) opened their turns and sat in turns of fewer clauses, and
the question-aware form reader found gold by place in turn alone (pooled gold@1 0.53 against 0.28,
AUC 0.69). Drawn from three parts, so the added sentences are mostly distinct (a small bank of
"some news from my side" intros would have repeated 1,650 sentences and sunk the distinct-sentence
share under its bound). No intro repeats the holder's purpose: one that did gave a holder's session
the subject's words twice, so BM25 preferred holders to gold."""


FOLLOW_FRAMES: tuple[str, ...] = (
    "{Who} took stock of {value} as {a} {noun} for {poss} {target}, and {who} {act}.",
    "{Who} weighed up {a} {noun} for {poss} {target}. When it came to {value}, {who} {act}.",
    "After a few weeks' trial of {value} as {a} {noun} for {poss} {target}, {who} {act}.",
    "Time for an update on {a} {noun} for {poss} {target}. As for {value}, {who} {act}.",
    "{Who} gave {value} a fair go as {a} {noun} for {poss} {target}, and eventually {who} {act}.",
    "{Who} mulled over {value} for weeks as {a} {noun} for {poss} {target}, and on reflection {who} {act}.",
    "When {my} {rel} asked about {value} as {a} {noun} for {poss} {target}, the answer was that {who} {act}.",
    "{Value} was in the frame as {a} {noun} for {poss} {target} for some weeks, and on balance {who} {act}.",
    "{Who} tried {value} as {a} {noun} for {poss} {target}, and in the end {who} {act}.",
    "After talking to {my} {rel} about {value} as {a} {noun} for {poss} {target}, {who} {act}.")
"""**The one frame bank** (forget9, red team 35): every user statement, whatever its role (the
user's own statement, invalidation and re-affirmation, a relation's arrangement and its
follow-up, an option the user or a relation turned down, another instance), is one of these frames,
drawn by one ``rng.choice`` over the whole bank whoever holds it and whatever its kind. The role
is said only in the role-bearing slots: the holder's pronoun and possessive ({Who}, {who}, {my})
and the stance phrase ({act}: :data:`ACTS`), whose banks have the same word-length sequences in
the same shares for every role (checked at import with :mod:`..length_balance`). Why: red team 35
read the shipped ``3498e956`` through word-length sequences of the hit sentence (held-out table
0.680 against 0.300) and masked sentences (0.666), because statement, declined and follow-up
frames were three banks of different phrasings, and the user's own declined frames and own
statement frames shared no frame at all. Every frame reads with every stance ("I tried V as the
physio for the shoulder, and in the end I said yes to them / said no to them / gave up on them /
held on to them"): none presupposes having the value ("had V for months" and "V was the physio for
some weeks" are gone) nor an earlier mention. Red team 21 and 24's constraints stand: one comma
in every frame, two of two sentences, two naming a second relation, the drawn article, no present
perfect against a past event, no pronoun before its noun."""
TAKES = {"service": ("selected them", "recruited them", "signed with them"),
         "item": ("selected it", "took it")}
"""The stance phrase of a statement (the user's own acquisition, a relation's, another instance)."""
DECLINES = {"service": ("declined them", "dismissed them", "turned them down"),
            "item": ("declined it", "left it")}
"""The stance phrase of an option turned down (the user's or a relation's)."""
EVENTS = {"service": ("replaced them", "cancelled them", "parted with them"),
          "item": ("replaced it", "sold it")}
"""Explicit invalidation events (rule 3), "I {event}" in a session and "you {event}" in gold."""
KEEPS = {"service": ("retained them", "confirmed them", "stayed with them"),
         "item": ("retained it", "kept it")}
"""Re-affirmations, the invalidation events' twins."""


__all__ = ["DECLINES", "EVENTS", "FOLLOW_FRAMES", "INTRO_FRAMES", "INTRO_OVER", "INTRO_PLACE",
           "INTRO_TIME", "INTRO_WHEN", "ITEM_ROWS", "KEEPS", "NEAR_SYNONYMS", "SERVICE_ROWS", "TAKES"]
