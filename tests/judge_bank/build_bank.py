"""Build the labelled judge answer bank, ``tests/judge_bank/bank.jsonl``, from the shipped answer keys.

Why this exists: the mechanical judge is one instrument; this bank is the second. Every case is a
realistic answer to a real shipped question, labelled from the written contract (docs/JUDGING.md,
rules J0-J12) and never from what any judge outputs, so a disagreement between bank and judge is a
bug in one of them (JUDGING.md preamble), found before it reaches a published vector.

Design, readable as data:

* A **kind** is what the contract branches on: a positive name, a due-later after-arm, an
  attribution, a list, a number, an invalidated / still-valid / never-known Forgetting key, and
  the six Prospective arm keys (:func:`key_kind`).
* A **family** is a way chat models phrase an answer (terse, markdown, hedged, a decline, a
  stale value with its invalidation, a clock-blind "Not yet", a range ...). Each :class:`Family`
  holds templates (``{gold}``, ``{wrong}``, ``{person}``, ``{fig}``, ``{commas}`` ...) per kind or
  shape, and the outcome the contract gives for each kind, with the rule it follows. The same
  phrasing is deliberately labelled differently per kind ("Not yet. You're to call X." is correct
  on a before-arm and missed on the after-arm, J4.2): that is what pair questions measure.
* Values come from the key itself: gold from accepted / must_name / list_order / numeric, wrong
  values from ``wrong`` / ``stale`` / ``premature``.

Cases the contract leaves open are *not* guessed: they are listed in :data:`AMBIGUOUS` with a
proposed resolution and kept out of the bank until JUDGING.md settles them. The 25 the first bank
listed are settled by JUDGING.md J12; each row of its table is now a ``j12-*`` family, run on every
shipped question the row applies to.

Deterministic: one ``random.Random`` per (question, family), seeded from a fixed string (string
seeds hash with SHA-512, not ``PYTHONHASHSEED``); phrasings picked round-robin; no wall clock, no
set iteration order; lines sorted by ``case_id``. Rerunning gives identical
bytes, and ``tests/test_judge_bank.py`` checks that the committed file is exactly this output.

    python tests/judge_bank/build_bank.py [--out PATH] [--check] [--ambiguous]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

SEED = "typedmemeval-judge-bank-v1"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CORPUS_DIR = REPO / "corpora"
BANK_PATH = HERE / "bank.jsonl"
HELDOUT_PATH = HERE / "heldout.jsonl"
HELDOUT_QUESTIONS_PATH = HERE / "heldout_questions.jsonl"
"""The revision-1 questions (with keys, without haystacks) the held-out answers were written for."""
"""The hand-written held-out set (``heldout_README.md``): not built here, never regenerated."""

C, W, A, M, P, U = "correct", "wrong", "abstained", "missed", "premature", "unjudged"
STALE, OVER, MISATTRIBUTED = "stale_recall", "over_forgetting", "misattributed_forgetting"
BY_READING = "by-reading"
"""Outcome placeholder for attribution families: correct iff the phrase reads as the gold option."""

ANY = "*"

# --- kinds ---------------------------------------------------------------------------------------
KINDS: tuple[str, ...] = (
    "name", "due-after", "attribution", "list", "numeric", "invalidated", "still", "never-known",
    "reminder-before", "booking-before", "booking-after", "validity-before", "validity-after",
)
POSITIVE = ("name", "due-after")
"""J4: keys whose gold is a positive name."""
NEGATIVE_GOLD = ("never-known", "booking-after")
"""J5 never-known rules (abstain keys): a decline or a denial *is* the gold."""
BEFORE = ("reminder-before", "booking-before", "validity-before")
"""J6: Prospective before-arms (``expected_negative: not_yet``)."""
NOT_NEGATIVE = tuple(kind for kind in KINDS if kind not in NEGATIVE_GOLD)
REMINDER = ("reminder-before", "due-after")
BOOKING = ("booking-before", "booking-after")
VALIDITY = ("validity-before", "validity-after")
FORGETTING_VALUE = ("invalidated", "still")
WM_SHAPES = ("distance-8", "distance-15", "distance-25", "distance-40", "distance-60")

# Per kind: how many families each question gets (None = all) and how many phrasings per family.
# Large kinds rotate through their families so the bank stays small enough to grade in seconds.
KIND_PLAN: dict[str, tuple[int | None, int]] = {
    "name": (7, 1), "due-after": (None, 1), "attribution": (None, 1), "list": (15, 1),
    "numeric": (11, 1), "invalidated": (18, 1), "still": (17, 1), "never-known": (None, 1),
    "reminder-before": (None, 2), "booking-before": (None, 2), "booking-after": (None, 2),
    "validity-before": (None, 1), "validity-after": (None, 1),
}


@dataclass(frozen=True)
class Expect:
    """The contract's outcome for one family on one kind, and the rule that gives it."""

    outcome: str
    rule: str
    subcounts: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Family:
    """One way of phrasing an answer. ``templates`` and ``expect`` map selectors (kinds, shapes or
    :data:`ANY`) to values; the first selector that matches a question wins. A family applies to a
    question only when both a template group and an expectation match it."""

    name: str
    templates: Mapping[tuple[str, ...], tuple[str, ...]]
    expect: Mapping[tuple[str, ...], Expect]
    order: str = "gold"
    """List families: which order of the gold items the answer lists (see :func:`_list_order`)."""
    per_question: int | None = None
    """Phrasings per question; ``None`` takes the kind's default from :data:`KIND_PLAN`."""
    first_of_corpus_only: bool = False
    outside_rotation: bool = False
    """Run on every applicable question, outside the kind's rotation budget (the J12 families:
    each resolved case is checked on every shipped question it applies to, and adding them leaves
    the rotation, and so every older case, unchanged)."""

    def template_group(self, kind: str, shape: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        for selectors, templates in self.templates.items():
            if kind in selectors or shape in selectors or ANY in selectors:
                return selectors, templates
        return None

    def expectation(self, kind: str) -> Expect | None:
        for selectors, expect in self.expect.items():
            if kind in selectors or ANY in selectors:
                return expect
        return None


# --- phrasings shared across kinds ---------------------------------------------------------------
DECLINES: tuple[str, ...] = (
    "I do not have that information.",
    "Unknown.",
    "I have no idea.",
    "Our conversations don't say.",
    "I'm not sure.",
    "I can't recall that.",
    "There's no record of that.",
    "N/A",
    "I don't know.",
    "I don't remember.",
    "I can't find that in our conversations.",
    "I'm not certain.",
    "I am not certain.",
    "I'm unable to determine that.",
    "I have no way of knowing.",
    "No information on that.",
    "Nothing on record.",
    "It was not mentioned.",
    "It wasn't specified.",
    "There's no mention of it.",
    "Nothing in our conversations says.",
    "The chat history doesn't specify.",
    "Unclear.",
    "Not known.",
    "No idea.",
    "Sorry, I don't have any details about that.",
    "I'm afraid I can't say.",
    "I don't have a record of that.",
    "Hmm, I'm not able to find that.",
    "Our conversations don't mention it.",
    "Our chats don't include that detail.",
    "I'm unable to answer that from our conversations.",
    "There's no data on that.",
    "I can't tell from what we've discussed.",
    "Unfortunately I can't remember that detail.",
    "I really don't know, sorry.",
    "I'm sorry, but I don't have that information in our conversation history.",
    "Unfortunately, I don't have any record of that in our previous chats.",
    "I don't see that anywhere in our previous conversations.",
    "Based on our conversations, I can't determine that.",
    "I don't have access to that detail from our earlier conversations.",
    "That's not something I have a record of.",
    "I don’t know.",
    "I can’t recall that.",
    "I’m not sure, sorry.",
)
"""J1. None contains a J5/J6 cue word ("yet", "later", "no longer" ...) or a figure, so each one is
a decline on every kind."""

DECLINE_DENIALS: tuple[str, ...] = (
    "I don't know — you never told me.",
    "I don’t know; you haven’t mentioned it.",
    "I'm not sure; you never mentioned it.",
    "I can't recall, and you haven't mentioned it.",
)
"""J2 last line: a decline and a denial in one answer is a decline."""

EMPTIES: tuple[str, ...] = ("", "...", " ", "—", "?!")
"""J0: nothing but whitespace and punctuation."""

UNREADABLE: tuple[str, ...] = (
    "The weather was nice that week.",
    "Good question!",
    "Happy to help with anything else.",
    "That was a busy month.",
    "Interesting question.",
)
"""J0 unjudged: no key value, no decline, no denial, no figure, no state claim."""

INVENTED: tuple[str, ...] = (
    "Banana Boat SPF 50", "Marlowe Finch", "Hartley & Co", "Brightwater", "Juniper Hale",
    "Clover Lane", "Northwind Services", "Ashby Gray", "Pemberton", "Riverstone",
)
"""Values a chat model might invent: in no key, so the rules cannot read them (J0's example)."""

FILLER: tuple[str, ...] = (
    "Thinking back over our conversations.",
    "Quite a lot came up over those weeks.",
    "There was the trip planning, the work updates and the household chores.",
    "Some of those threads overlapped, which makes it easy to mix details up.",
    "It helps to go through them carefully.",
    "The early sessions were mostly about scheduling.",
    "After that the focus shifted to the house and the garden.",
    "A few of the chats were quick check-ins.",
    "Others went into a lot of detail.",
    "Reading them again, the relevant part stands out.",
    "It is worth being careful here.",
    "There were several similar names in the mix.",
    "Some of them sounded alike.",
)
"""Rambling padding: no value, cue, figure, subject-verb attribution or conclusion marker."""
LONG_FILLER_CHARS = 20_500
"""J11: text past 20,000 characters is not read; the truncation cases put gold past this."""

DENIALS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("name",): ("You never told me.", "You never mentioned that.", "You haven't mentioned it.",
                "You haven’t mentioned it.",
                "You didn't mention one.", "Nobody.", "No one.", "None.", "Nothing.",
                "You don't have one.", "There isn't one."),
    ("due-after", "reminder-before"): ("You never set a reminder.", "You don't have any reminders.",
                                       "There is no reminder.", "Nobody.", "No one.",
                                       "You never mentioned a reminder."),
    ("attribution",): ("Nobody.", "No one.", "Nobody did.", "No one did."),
    ("list",): ("You never added anything.", "None.", "Nothing.", "You never mentioned a list.",
                "There wasn't a list."),
    ("durations",): ("None.", "Nothing.", "You never mentioned any of those.",
                     "You never told me about any of that."),
    ("numeric",): ("You never bought anything there.", "None.", "Nothing.",
                   "You never told me about any of that.", "You didn't mention any."),
    ("never-known",): ("You never mentioned any {thing} for the {purpose}.", "You don't have one.",
                       "You never told me about one.", "You never mentioned one.", "None.", "No one.",
                       "You have no such thing.", "There isn't one.",
                       "You don't have any {thing} for the {purpose}."),
    ("invalidated", "still"): ("You don't have one.", "You never told me about one.",
                                              "You never mentioned one.", "None.", "No one.",
                                              "You have no such thing.", "There isn't one."),
    VALIDITY: ("You have no cover for that.", "You don't have any cover.", "There is no cover.",
               "Nobody.", "None."),
    ("booking-before",): ("You never told me about any booking.", "You never planned a booking.",
                          "You have no plans to book anyone.",
                          "You never told me about booking anyone for the {thing} at the {place}."),
    ("booking-after",): ("You never told me that you booked anyone.",
                         "You haven't mentioned booking anyone.",
                         "You never said you booked anyone."),
}
"""J2, phrased for each kind's question. Booking-after denials are only the *true* ones (about what
the user said): "No one." there is left to :data:`AMBIGUOUS`."""

# --- Forgetting and Prospective phrasings --------------------------------------------------------
FORGET_ACK: tuple[str, ...] = (
    "You had {gold}, but you sold it.",
    "{gold}, but that no longer holds: you sold it.",
    "{gold}, but you gave it away.",
    "{gold} — you parted with it, so it's no longer current.",
    "You used to have {gold}.",
    "Previously {gold}, but you let it go.",
    "{gold}, but you cancelled it.",
    "It was {gold}, but not any more.",
    "{gold} is no longer current.",
    "You got rid of {gold}.",
    "**{gold}** — no longer current.",
    "- Name: {gold}\n- Status: no longer current (you sold it)",
    "Formerly {gold}; you moved on from it.",
    "{gold}, but you stopped using it.",
    "{gold} — that's out of date now.",
    "You replaced {gold}.",
    "Your {thing} for the {purpose} was {gold}, but you sold it.",
    "Your {thing} for the {purpose} used to be {gold}; you let it go.",
)
VALIDITY_ACK: tuple[str, ...] = (
    "{gold}, but it has lapsed.",
    "{gold}, but it has lapsed: that cover is no longer valid.",
    "{gold}'s cover has expired.",
    "It was {gold}, but that cover is no longer valid.",
    "{gold} — the cover has expired.",
    "**{gold}** — no longer valid (it has expired).",
    "It was {gold}, but the cover has lapsed.",
    "Your cover for the {thing} at the {place} was with {gold}, but it has lapsed.",
)
REMINDER_NOT_YET: tuple[str, ...] = (
    "Not yet. You're to call {person}.",
    "Not yet: your reminder to call {person} isn't due yet.",
    "No, not yet — you'll call {person} when it comes due.",
    "It isn't due yet; you're to call {person} later.",
    "It's not due until later. The person to call is {person}.",
    "**Not yet.** Your reminder to call **{person}** comes up later.",
    "I believe it's not due yet; you're to call {person}.",
    "Not yet — that one is still ahead. You'll need to call {person}.",
    "Not yet — your reminder about the {thing} at the {place} isn't due yet. You'll call {person}.",
    "Not yet, but soon — you'll call {person}.",
    "Not yet; it comes due next week, when you'll call {person}.",
)
BOOKING_NOT_YET: tuple[str, ...] = (
    "Not yet — you plan to book {person}, but that day hasn't come.",
    "No, not yet. You're planning to book {person}.",
    "You haven't booked anyone yet; {person} is the plan.",
    "Not yet: the booking with {person} is still to come.",
    "**Not yet.** You're going to book **{person}** later.",
    "You haven't booked anyone for the {thing} at the {place} yet; you plan to book {person}.",
)
KEY_GAP_NO_MUST_NAME = ("key gap: before-arm keys carry the person only as `premature`, not "
                        "`must_name`, so a bare not-yet is correct under the current key")
KEY_GAP_YET = ("key gap: not-yet-true after-arm keys list the word 'yet' as a wrong value; a "
               "clock-blind not-yet is wrong through it")
KEY_GAP_NOBODY = ("key gap (J12): on a not-known gold 'No one.' is a denial, correct, though the key cannot "
                  "tell it from the clock-blind 'not yet'")

# --- list and number renderings ------------------------------------------------------------------
LIST_TEMPLATES_RIGHT = ("{commas}", "{numbered}", "{arrows}", "{then_cap}.")

FAMILIES: tuple[Family, ...] = (
    # -- gold, phrased many ways --------------------------------------------------------------
    Family("gold-terse",
           templates={ANY: ("{gold}", "{gold}.", "{gold}!", '"{gold}"', "'{gold}'", "{gold_lower}",
                            "{gold_upper}", "  {gold}\n", "{gold} 🙂", "It’s {gold}.")},
           expect={POSITIVE: Expect(C, "J4.1"), ("still",): Expect(C, "J5"),
                   ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("gold-sentence",
           templates={
               ("assistant-stated",): ("I recommended {gold}.", "My recommendation was {gold}.",
                                       "I suggested {gold}.", "That would be {gold}."),
               WM_SHAPES: ("You told me it's {gold}.", "From what you told me, it's {gold}.",
                           "It's {gold}.", "That's {gold}.", "The answer is {gold}.",
                           "From our conversations, it's {gold}."),
               ("as-of",): ("{gold} was looking after it then.", "At that point it was {gold}."),
               ("current",): ("{gold} looks after it now.", "These days it's {gold}."),
               ("prospective",): ("{gold} will be looking after it then.", "That will be {gold}."),
               ("due-after",): ("You were to call {gold}.", "The person to call is {gold}."),
               FORGETTING_VALUE: ("You have {gold}.", "It's {gold}.", "That's {gold}."),
               VALIDITY: ("Your cover is with {gold}.", "It's {gold}.", "The cover is from {gold}."),
           },
           expect={POSITIVE: Expect(C, "J4.1"), ("still",): Expect(C, "J5"),
                   ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("restated",
           templates={
               ("assistant-stated",): ("For the {occasion}, I recommended {gold}.",
                                       "The {thing} I recommended for the {occasion} was {gold}."),
               WM_SHAPES: ("You've {verb} {gold}.", "The {thing} is {gold}."),
               ("as-of",): ("{When}, {gold} was looking after the {thing} at the {place}.",),
               ("current",): ("{gold} looks after the {thing} at the {place} now.",),
               ("prospective",): ("In {when}, {gold} will be looking after the {thing} at the {place}.",),
               ("due-after",): ("Yes — your reminder about the {thing} at the {place} is due now. You were "
                                "going to call {gold}.",),
               FORGETTING_VALUE: ("Your {thing} for the {purpose} is {gold}.",
                                  "For the {purpose}, you have {gold}."),
               VALIDITY: ("Your cover for the {thing} at the {place} is with {gold}.",),
               ("counts",): ("You bought something from {store} {times}.", "You shopped at {store} {times}."),
               ("sums",): ("You spent {fig} at {store} altogether.", "Your total spend at {store} was {fig}."),
               ("deltas",): ("You spent {fig} more at {store} than at {other}.",),
               ("durations",): ("{Items} {be} {state} for {fig} in total.",),
               ("list",): ("Here's the order you added them to the {list}: {commas}.",
                           "For the {occasion}, you added {then}."),
           },
           expect={POSITIVE: Expect(C, "J4.1"), ("still",): Expect(C, "J5"),
                   ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,)),
                   ("numeric",): Expect(C, "J7.1"), ("list",): Expect(C, "J8")}),
    Family("gold-markdown",
           templates={
               ("due-after",): ("**Yes** — it's due now. Call **{gold}**.",
                                "### Reminder\n\n- Status: due now\n- Call: **{gold}**",
                                "**{gold}**"),
               ANY: ("**{gold}**", "**Answer:** {gold}", "- {gold}", "### Answer\n\n**{gold}**",
                     "The answer is **{gold}**.", "> {gold}"),
           },
           expect={POSITIVE: Expect(C, "J4.1"), ("still",): Expect(C, "J5"),
                   ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("gold-hedged",
           templates={
               ("due-after",): ("I think it's due now — call {gold}.", "Probably {gold}.",
                                "I believe it's {gold}."),
               (*FORGETTING_VALUE, *VALIDITY): ("I think it's {gold}.", "Probably {gold}.",
                                                "I believe it's {gold}.", "Maybe {gold}?"),
               ANY: ("I think it was {gold}.", "Probably {gold}.", "I'm not certain, but probably {gold}.",
                     "Maybe {gold}?", "I believe it's {gold}.", "If I remember right, it's {gold}.",
                     "I'm not 100% sure, but I think it's {gold}.", "My best guess is {gold}.",
                     "I can't be completely sure, but it was {gold}."),
           },
           expect={POSITIVE: Expect(C, "J3.2"), ("still",): Expect(C, "J3.2"),
                   ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("gold-retraction",
           templates={
               ("invalidated",): ("It's {gold}, not {wrong}.", "Not {wrong} but {gold}."),
               ("validity-before",): ("{gold}, not {wrong}.", "Not {wrong} but {gold}."),
               ANY: ("Not {wrong} but {gold}.", "{gold}, not {wrong}.", "{wrong} — sorry, {gold}.",
                     "{wrong}, no wait, {gold}.", "{wrong}. Actually, {gold}.",
                     "I said {wrong} earlier, but it's {gold}.", "{gold} rather than {wrong}.",
                     "{gold} instead of {wrong}."),
           },
           expect={(*POSITIVE, "still", "validity-before"): Expect(C, "J3.3"),
                   ("invalidated",): Expect(W, "J5", (STALE,))}),
    Family("gold-plus-other",
           templates={
               ("validity-before",): ("{gold} or {wrong}, and it's still valid.",
                                      "Either {gold} or {wrong}; the cover is still valid."),
               ANY: ("{gold} or {wrong}.", "Either {gold} or {wrong}.", "{wrong} or {gold}.",
                     "It was {gold} and {wrong}.", "Possibly {gold}, possibly {wrong}.",
                     "It's one of these:\n- {gold}\n- {wrong}"),
           },
           expect={(*POSITIVE, "still"): Expect(W, "J3.4"), ("validity-before",): Expect(W, "J6")}),
    # -- another key value ----------------------------------------------------------------------
    Family("wrong-value",
           templates={
               ("booking-after",): ("You booked {wrong}.", "{wrong}."),
               ("reminder-before", "booking-before"): ("{wrong}.", "{wrong}"),
               ANY: ("{wrong}", "{wrong}.", "It's {wrong}.", "That's {wrong}.", "**{wrong}**"),
           },
           expect={POSITIVE: Expect(W, "J4.3"),
                   (*FORGETTING_VALUE, "validity-after", *NEGATIVE_GOLD): Expect(W, "J5"),
                   BEFORE: Expect(W, "J6")}),
    Family("wrong-hedged",
           templates={ANY: ("I think it's {wrong}.", "Probably {wrong}.",
                            "I'm not sure, but probably {wrong}.", "Maybe {wrong}?",
                            "My best guess is {wrong}.")},
           expect={POSITIVE: Expect(W, "J3.2"),
                   (*FORGETTING_VALUE, "validity-after", "never-known"): Expect(W, "J5"),
                   ("validity-before",): Expect(W, "J6")}),
    Family("wrong-retraction",
           templates={ANY: ("Not {gold} but {wrong}.", "{wrong}, not {gold}.", "{gold} — sorry, {wrong}.",
                            "{gold}. Actually, {wrong}.", "{wrong} rather than {gold}.")},
           expect={(*POSITIVE, "still"): Expect(W, "J3.3")}),
    # -- declines and denials -----------------------------------------------------------------
    Family("decline",
           templates={
               ("booking-after",): ("The day you set to book {person} has passed, and nothing you "
                                    "told me afterwards says whether you did.", *DECLINES),
               ANY: DECLINES,
           },
           expect={NEGATIVE_GOLD: Expect(C, "J5"), ANY: Expect(A, "J1")}),
    Family("decline-whether",
           templates={
               ("invalidated",): ("I don't know whether it's {gold} or {wrong}.",
                                  "I can't tell if it's {gold}."),
               ("never-known",): ("I don't know whether you have {wrong}.", "I can't tell if it's {wrong}."),
               ("booking-after",): ("I don't know whether you've booked anyone yet.",
                                    "I can't tell whether you booked {person}."),
               ("attribution",): ("I can't tell whether you or I said it.", "I'm not sure if it was you or me.",
                                  "I don't know whether it was me or you."),
               ("list",): ("I can't recall whether {item1} came before {item2}.",
                           "I'm not sure if {item1} or {item2} came first."),
               ("reminder-before", "booking-before"): ("I'm not sure whether it's {person} or {wrong}.",),
               (*POSITIVE, "still"): ("I don't know whether it was {gold} or {wrong}.",
                                      "I can't tell if it was {gold}.",
                                      "I'm not sure whether it's {wrong} or {gold}.",
                                      "I can't recall if it was {gold} or {wrong}."),
           },
           expect={("booking-after",): Expect(C, "J3.2", note=KEY_GAP_YET),
                   ("never-known",): Expect(C, "J3.2"), ANY: Expect(A, "J3.2")}),
    Family("denial",
           templates=DENIALS,
           expect={NEGATIVE_GOLD: Expect(C, "J5"), POSITIVE: Expect(M, "J4.4"),
                   ("attribution",): Expect(M, "J4.4"), ("list",): Expect(M, "J8"),
                   ("numeric",): Expect(M, "J7.4"), (*FORGETTING_VALUE, "validity-after"): Expect(M, "J5"),
                   BEFORE: Expect(M, "J6")}),
    Family("decline-denial",
           templates={("booking-after",): (*DECLINE_DENIALS,
                                           "I don't know — you never told me whether you booked anyone."),
                      ANY: DECLINE_DENIALS},
           expect={NEGATIVE_GOLD: Expect(C, "J5"), ANY: Expect(A, "J2")}),
    Family("empty",
           templates={ANY: EMPTIES},
           expect={NOT_NEGATIVE: Expect(A, "J0")}),
    Family("unreadable",
           templates={ANY: UNREADABLE},
           expect={ANY: Expect(U, "J0")}),
    Family("invented-name",
           templates={
               ("list",): ("{invented}, then {invented2}.",),
               ("due-after",): ("{invented}.", "You were to call {invented}."),
               FORGETTING_VALUE: ("You have {invented}.", "{invented}."),
               (*VALIDITY, "never-known"): ("{invented}.", "It's {invented}."),
               ("name",): ("{invented}", "It's {invented}.", "That would be {invented}."),
           },
           expect={("list",): Expect(U, "J8"), (*POSITIVE, *FORGETTING_VALUE, *VALIDITY, "never-known"):
                   Expect(U, "J0")}),
    # -- Forgetting and expiring validity -------------------------------------------------------
    Family("stale-ack",
           templates={FORGETTING_VALUE: FORGET_ACK, VALIDITY: VALIDITY_ACK},
           expect={("invalidated", "validity-after"): Expect(C, "J5"),
                   ("still",): Expect(M, "J5", (OVER,)), ("validity-before",): Expect(P, "J6")}),
    Family("ack-no-value",
           templates={
               VALIDITY: ("It has lapsed.", "That cover is no longer valid.", "It has expired.",
                          "No longer valid — it has lapsed."),
               ("booking-after",): ("You had a booking, but it was cancelled.",
                                    "You booked someone, but you cancelled it."),
               ANY: ("You sold it.", "You no longer have one.", "That's no longer current — you gave it away.",
                     "You used to, but not any more.", "You got rid of it.", "Not any more.",
                     "You let it go."),
           },
           expect={("invalidated", "validity-after"): Expect(M, "J5"), ("still",): Expect(M, "J5", (OVER,)),
                   NEGATIVE_GOLD: Expect(W, "J5", (MISATTRIBUTED,)), ("validity-before",): Expect(P, "J6")}),
    Family("still-claim",
           templates={FORGETTING_VALUE: ("{gold}, and it's still current.", "You still have {gold}.",
                                         "{gold} — still current.", "Yes, {gold}, and that is still current.",
                                         "Your {thing} for the {purpose} is still {gold}.",
                                         "As far as I know, you still have {gold}."),
                      VALIDITY: ("{gold}, and it's still valid.", "{gold}, still in effect.",
                                 "Still valid: {gold}.",
                                 "Your cover for the {thing} at the {place} is with {gold}, and it's "
                                 "still valid.",
                                 "{gold} — the cover runs until next month.")},
           expect={("still",): Expect(C, "J5"), ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("still-claim-no-value",
           templates={FORGETTING_VALUE: ("Yes, it's still current.", "It's still current.", "Still current."),
                      VALIDITY: ("It's still valid.", "Still in effect.", "It hasn't lapsed yet.")},
           expect={("still",): Expect(W, "J5"), ("validity-before",): Expect(M, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("negated-cue",
           templates={FORGETTING_VALUE: ("You haven't sold {gold}; it's still yours.",
                                         "{gold} — you haven't let it go.", "You didn't cancel {gold}."),
                      VALIDITY: ("{gold} — it hasn't lapsed yet.", "{gold}; it hasn't expired.",
                                 "{gold}, and it has not lapsed.")},
           expect={("still",): Expect(C, "J5"), ("validity-before",): Expect(C, "J6"),
                   ("invalidated", "validity-after"): Expect(W, "J5", (STALE,))}),
    Family("other-invalidated",
           templates={("validity-after",): ("{wrong}, but it has lapsed.",),
                      ("invalidated", "never-known"): ("You had {wrong}, but you sold it.",
                                                       "{wrong}, but that no longer holds.")},
           expect={("invalidated", "validity-after"): Expect(W, "J5"),
                   ("never-known",): Expect(W, "J5", (MISATTRIBUTED,))}),
    Family("replaced-with-other",
           templates={FORGETTING_VALUE: ("You sold {gold} and now have {wrong}.",
                                         "You replaced {gold} with {wrong}.",
                                         "{gold} is gone; it's {wrong} now.")},
           expect={("invalidated",): Expect(W, "J5"), ("still",): Expect(W, "J5", (OVER,))}),
    # -- Prospective pairs: the same words, read against each arm's clock -------------------------
    Family("not-yet",
           templates={REMINDER: REMINDER_NOT_YET, BOOKING: BOOKING_NOT_YET},
           expect={("reminder-before", "booking-before"): Expect(C, "J6"),
                   ("due-after",): Expect(M, "J4.2"),
                   ("booking-after",): Expect(W, "J5", note=KEY_GAP_YET)}),
    Family("not-yet-bare",
           templates={REMINDER: ("Not yet.", "No, not yet.", "Nothing is due yet.", "Nothing is due.",
                                 "Probably not yet."),
                      BOOKING: ("Not yet.", "No, not yet.", "You haven't booked anyone yet.",
                                "Probably not yet.")},
           expect={("reminder-before", "booking-before"): Expect(C, "J6", note=KEY_GAP_NO_MUST_NAME),
                   ("due-after",): Expect(M, "J4.2"),
                   ("booking-after",): Expect(W, "J5", note=KEY_GAP_YET)}),
    Family("not-yet-other",
           templates={REMINDER: ("Not yet — you're to call {wrong} later.",
                                 "It isn't due yet; the person to call is {wrong}."),
                      BOOKING: ("Not yet — you plan to book {wrong}.",
                                "No, not yet. You're planning to book {wrong}.")},
           expect={("reminder-before", "booking-before"): Expect(W, "J6"),
                   ("due-after",): Expect(M, "J4.2"), ("booking-after",): Expect(W, "J5")}),
    Family("fired",
           templates={REMINDER: ("Yes, it's due now: call {person}.", "Call {person}.",
                                 "It's time to call {person}.", "Go ahead and call {person}.",
                                 "It's due now — {person} is the one to call.",
                                 "Yes. You were to call {person}, and it's due today.",
                                 "**Yes** — call **{person}** now.",
                                 "Yes, it is due now: call {person} about it.",
                                 "Yes — your reminder about the {thing} at the {place} is due now: "
                                 "call {person}."),
                      BOOKING: ("Yes, you booked {person}.", "Yes — {person}.", "You've booked {person}.",
                                "Yes, you have booked {person}.", "**Yes**, you booked **{person}**.")},
           expect={("reminder-before", "booking-before"): Expect(P, "J6"),
                   ("due-after",): Expect(C, "J4.1")}),
    Family("fired-no-name",
           templates={("reminder-before",): ("Yes, it's due now, so there's no time to lose.",
                                             "Yes, it's due now.", "It's due today.", "Yes — it's time.")},
           expect={("reminder-before",): Expect(P, "J6")}),
    Family("fired-other",
           templates={("due-after",): ("Yes, it's due now: call {wrong}.", "It's due — call {wrong}.")},
           expect={("due-after",): Expect(W, "J4.3")}),
    # -- attribution (J9): the outcome follows the option each phrasing reads as -----------------
    Family("attribution-bare",
           templates={("attribution",): ("you", "You.", '"you"', "The answer is: you.", "me", "Me.",
                                         '"me"', "The answer is: me.", "both of us", "Both of us.",
                                         '"both of us"', "The answer is: both of us.")},
           expect={("attribution",): Expect(BY_READING, "J9")}, per_question=3),
    Family("attribution-sentence",
           templates={("attribution",): ("I did.", "I said that.", "I was the one who mentioned it.",
                                         "I brought that up.", "I mentioned it.", "You did.", "You told me.",
                                         "You said it.", "You mentioned it.", "You brought it up.",
                                         "We both did.", "Both of us mentioned it.", "Each of us said it.",
                                         "We both brought it up.", "You were the one who said it.")},
           expect={("attribution",): Expect(BY_READING, "J9")}, per_question=3),
    Family("attribution-gloss",
           templates={("attribution",): ("You (the assistant).", "The assistant.", "Me (the person asking).",
                                         "The user.", "Both the user and the assistant.")},
           expect={("attribution",): Expect(BY_READING, "J9")}, per_question=2),
    Family("attribution-markdown",
           templates={("attribution",): ("**I did** — I mentioned it.", "**You did.** You told me.",
                                         "**Both of us** mentioned it.")},
           expect={("attribution",): Expect(BY_READING, "J9")}),
    Family("attribution-hedged",
           templates={("attribution",): ("I think I mentioned it.", "I believe you told me.",
                                         "Probably both of us.", "I'm fairly sure I said it.")},
           expect={("attribution",): Expect(BY_READING, "J9")}, per_question=2),
    Family("attribution-restated",
           templates={("attribution",): ("I was the one who mentioned that {claim}.", "You told me that {claim}.",
                                         "We both mentioned that {claim}.", "I think you said that {claim}.",
                                         "I said that {claim}.")},
           expect={("attribution",): Expect(BY_READING, "J9")}, per_question=2),
    Family("attribution-two-options",
           templates={("attribution",): ("Either me or you.", "Me or you.", "You or me.", "Both of us or me.")},
           expect={("attribution",): Expect(W, "J3.4")}),
    Family("attribution-rambling",
           templates={("attribution",): ("{filler} To answer your question: I did.",
                                         "{filler} To answer your question: you told me.",
                                         "{filler} To answer your question: we both did.")},
           expect={("attribution",): Expect(BY_READING, "J9")}),
    # -- list order (J8); the judge is called with surfaced_items=None: every item is required ----
    Family("list-numbered",
           templates={("list",): ("{numbered}", "Here's the order:\n\n{numbered}", "{numbered_paren}")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-bullets",
           templates={("list",): ("{bullets}", "In order:\n{bullets_star}", "{bullets_dot}")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-arrows",
           templates={("list",): ("{arrows}", "{arrows_ascii}")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-then",
           templates={("list",): ("First {then}.", "You added {then}.")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-commas",
           templates={("list",): ("{commas}", "{commas_and}.", "The order was {commas_and}.")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-markdown",
           templates={("list",): ("### Order added\n\n{numbered_bold}", "**Order:** {arrows}")},
           expect={("list",): Expect(C, "J8")}),
    Family("list-hedged",
           templates={("list",): ("I think it went {then}.",
                                  "I'm not completely sure of the order, but: {commas}.")},
           expect={("list",): Expect(C, "J3.5")}),
    Family("list-reversed", templates={("list",): LIST_TEMPLATES_RIGHT},
           expect={("list",): Expect(W, "J8")}, order="reversed"),
    Family("list-swapped", templates={("list",): LIST_TEMPLATES_RIGHT},
           expect={("list",): Expect(W, "J8")}, order="swapped"),
    Family("list-partial", templates={("list",): LIST_TEMPLATES_RIGHT},
           expect={("list",): Expect(W, "J8")}, order="partial"),
    Family("list-extra-item", templates={("list",): ("{commas}", "{bullets}", "{then_cap}.")},
           expect={("list",): Expect(W, "J8")}, order="extra"),
    # -- numbers (J7) ---------------------------------------------------------------------------
    Family("number-terse",
           templates={("numeric",): ("{fig}", "{fig}.", "{bare}", "{code}", "{word_money}", "{fig_nosep}",
                                     "{code_prefix}")},
           expect={("numeric",): Expect(C, "J7.2")}),
    Family("number-sentence",
           templates={("counts",): ("You made {fig} there.", "That's {fig}.", "You bought from them {times}."),
                      ("sums",): ("You spent {fig} there altogether.", "The total was {fig}.",
                                  "That comes to {fig}."),
                      ("deltas",): ("You spent {fig} more there.", "The difference is {fig}.",
                                    "That's {fig} more."),
                      ("durations",): ("It was away for {fig} altogether.", "That comes to {fig}.",
                                       "{fig} in total.")},
           expect={("numeric",): Expect(C, "J7.1")}),
    Family("number-words",
           templates={("counts", "durations"): ("{words}", "{Words}.", "That's {words}.",
                                                "{words_spaced}")},
           expect={("numeric",): Expect(C, "J7.5")}),
    Family("number-markdown",
           templates={("numeric",): ("**{fig}**", "**Total:** {fig}", "### Answer\n\n**{fig}**",
                                     "- Total: {fig}")},
           expect={("numeric",): Expect(C, "J7.1")}),
    Family("number-working",
           templates={("numeric",): ("{working}", "{working_lines}", "{working_prose}")},
           expect={("numeric",): Expect(C, "J7.1")}),
    Family("number-context",
           templates={("numeric",): ("{context_after}", "{context_before}")},
           expect={("numeric",): Expect(C, "J7.1")}),
    Family("number-hedged",
           templates={("numeric",): ("I think it's {fig}.", "Probably {fig}.",
                                     "I'm not certain, but I believe it's {fig}.",
                                     "If I've added it up right, {fig}.")},
           expect={("numeric",): Expect(C, "J3.2")}),
    Family("number-retraction",
           templates={("numeric",): ("Not {wrong_bare} but {fig}.", "{fig}, not {wrong_bare}.")},
           expect={("numeric",): Expect(C, "J3.3")}),
    Family("number-rounded",
           templates={("numeric",): ("About {approx_good}.", "Roughly {approx_good}.", "Around {approx_good}.",
                                     "Approximately {approx_good}.", "~{approx_good}",
                                     "It comes to roughly {approx_good}.",
                                     "I'm not sure exactly, but roughly {approx_good}.")},
           expect={("numeric",): Expect(C, "J7.2")}),
    Family("number-rounded-coarse",
           templates={("numeric",): ("About {approx_coarse}.", "Roughly {approx_coarse}.",
                                     "Around {approx_coarse}.")},
           expect={("numeric",): Expect(W, "J7.2", note="keeps fewer than two significant figures")}),
    Family("number-rounded-misround",
           templates={("numeric",): ("About {approx_misround}.", "Roughly {approx_misround}.")},
           expect={("numeric",): Expect(W, "J7.2", note="gold rounded to this precision differs")}),
    Family("number-range",
           templates={("numeric",): ("{range_dash}", "{range_between_cap}.", "Somewhere {range_between}.")},
           expect={("numeric",): Expect(W, "J7.3")}),
    Family("number-alternatives",
           templates={("numeric",): ("{alt}", "Either {alt}.")},
           expect={("numeric",): Expect(W, "J7.3")}),
    Family("number-wrong",
           templates={("numeric",): ("{wrong_fig}", "{wrong_fig}.", "I think it's {wrong_fig}.",
                                     "That comes to {wrong_fig}.")},
           expect={("numeric",): Expect(W, "J7.2")}),
    Family("number-wrong-working",
           templates={("numeric",): ("{wrong_working}",)},
           expect={("numeric",): Expect(W, "J7.1")}),
    Family("denial-zero",
           templates={("counts",): ("{zero_fig}", "Zero purchases.", "None — {zero_fig}."),
                      ("deltas",): ("{zero_fig}", "{zero_fig} — you spent the same at both."),
                      ("numeric",): ("{zero_fig}", "{zero_fig}.", "That's {zero_fig}.")},
           expect={("numeric",): Expect(M, "J7.4")}),
    # -- long answers (J11) ---------------------------------------------------------------------
    Family("rambling",
           templates={
               ("due-after",): ("{filler} It's due now, so call {gold}.",),
               ("list",): ("{filler} Here's the order: {commas}.",),
               ("numeric",): ("{filler} Adding it all up, the total is {fig}.",),
               ("invalidated",): ("{filler} You had {gold}, but you sold it, so it's no longer current.",),
               ("validity-after",): ("{filler} It was {gold}, but that cover has lapsed.",),
               ("still",): ("{filler} It's {gold}, and that's still current.",),
               ("validity-before",): ("{filler} It's {gold}, and that cover is still valid.",),
               ("never-known",): ("{filler} But there's no mention of one anywhere in our conversations.",),
               ("booking-after",): ("{filler} But nothing in our conversations says whether you booked anyone.",),
               ("reminder-before",): ("{filler} Not yet, though: your reminder to call {person} isn't due until later.",),
               ("booking-before",): ("{filler} Not yet: you plan to book {person}, but that day hasn't come.",),
               ("name",): ("{filler} In the end, it was {gold}.", "{filler}\n\nTo answer your question: **{gold}**."),
           },
           expect={NEGATIVE_GOLD: Expect(C, "J11"), ANY: Expect(C, "J11")}),
    Family("rambling-decline",
           templates={ANY: ("{filler} Even after going through all of it, I can't find the detail you're "
                            "asking about.",)},
           expect={NEGATIVE_GOLD: Expect(C, "J11"), ANY: Expect(A, "J11")}),
    Family("rambling-truncated",
           templates={("numeric",): ("{filler_long} Adding it all up, the total is {fig}.",),
                      ("invalidated",): ("{filler_long} You had {gold}, but you sold it.",),
                      ("name",): ("{filler_long} In the end, it was {gold}.",)},
           expect={("numeric", "invalidated", "name"): Expect(U, "J11", note="gold only past 20,000 characters")},
           first_of_corpus_only=True),
    # -- J12: the cases the first bank left open, as JUDGING.md resolves them --------------------
    # One family per row of the J12 table (row order), run on every shipped question the row
    # applies to (outside the kinds' rotation), labelled exactly as the table says.
    Family("j12-empty-negative",
           templates={NEGATIVE_GOLD: EMPTIES},
           expect={NEGATIVE_GOLD: Expect(A, "J12", note="J0: an empty reply is not a decline in words")},
           outside_rotation=True),
    Family("j12-nobody-booked",
           templates={("booking-after",): ("No one.", "Nobody.")},
           expect={("booking-after",): Expect(C, "J12", note=KEY_GAP_NOBODY)},
           outside_rotation=True),
    Family("j12-booked-yes",
           templates={("booking-after",): ("Yes, you booked {person}.", "Yes — you've booked {person}.",
                                           "Yes, you have booked {person} for the {thing} at the {place}.")},
           expect={("booking-after",): Expect(W, "J12", note="governing yes on a not-known gold (J5)")},
           outside_rotation=True),
    Family("j12-still-current-never-known",
           templates={("never-known",): ("Yes, it's still current.", "Yes — still current.",
                                         "Yes, that's still current.")},
           expect={("never-known",): Expect(W, "J12", note="governing yes (J5)")},
           outside_rotation=True),
    Family("j12-due-no-name",
           templates={("due-after",): ("Yes, it's due now.", "Yes, it's due now, so there's no time to lose.",
                                       "Yes — it's time.", "Yes, it is due.")},
           expect={("due-after",): Expect(U, "J12", note="right polarity, the name the question asks for "
                                                          "is missing; the hybrid judge decides")},
           outside_rotation=True),
    Family("j12-fired-other-before",
           templates={("reminder-before",): ("Yes, it's due now: call {wrong}.",
                                             "Yes — it's due now, so call {wrong}.",
                                             "It's due now — call {wrong}.")},
           expect={("reminder-before",): Expect(P, "J12", note="polarity decides first (J6)")},
           outside_rotation=True),
    Family("j12-premature-name",
           templates={("reminder-before",): ("{person}", "{person}.", "**{person}**")},
           expect={("reminder-before",): Expect(P, "J12", note="the premature name alone: acting on it now (J6)")},
           outside_rotation=True),
    Family("j12-call-invented",
           templates={("reminder-before",): ("Call {invented}.", "Call {invented} about it.")},
           expect={("reminder-before",): Expect(U, "J12", note="an imperative to a name outside the key")},
           outside_rotation=True),
    Family("j12-not-yet-invented",
           templates={("reminder-before",): ("Not yet — you're to call {invented}.",
                                             "Not yet. You'll call {invented} when it comes due.",
                                             "It isn't due yet; you're to call {invented}.")},
           expect={("reminder-before",): Expect(C, "J12", note=KEY_GAP_NO_MUST_NAME)},
           outside_rotation=True),
    Family("j12-not-booked",
           templates={("booking-before",): ("You haven't booked anyone.", "No, you haven't booked anyone.",
                                            "You haven't booked anyone for the {thing} at the {place}.")},
           expect={("booking-before",): Expect(C, "J12", note="a negated booking is the not-yet (J6)")},
           outside_rotation=True),
    Family("j12-no-one-before",
           templates={("booking-before",): ("No one.", "Nobody.")},
           expect={("booking-before",): Expect(M, "J12", note="a bare denial (J2)")},
           outside_rotation=True),
    Family("j12-nothing-booked-yet",
           templates={("booking-before",): ("Nothing is booked yet.", "Nothing has been booked yet.",
                                            "Nothing's booked yet.")},
           expect={("booking-before",): Expect(C, "J12", note="'nothing ... yet' is a not-yet (J6)")},
           outside_rotation=True),
    Family("j12-yes-still-valid",
           templates={("validity-before",): ("Yes, {gold}'s cover is still valid.",
                                             "Yes — {gold}, and the cover is still valid.",
                                             "Yes, your cover with {gold} is still valid.")},
           expect={("validity-before",): Expect(C, "J12", note="explicit not-yet after an opening yes (J6)")},
           outside_rotation=True),
    Family("j12-cancelled-before",
           templates={("validity-before",): ("{gold}, but you cancelled it.", "{gold}, but you cancelled that cover.",
                                             "It was {gold}, but you cancelled it.")},
           expect={("validity-before",): Expect(P, "J12", note="an invalidation claimed before the end (J6)")},
           outside_rotation=True),
    Family("j12-other-invalidated-past",
           templates={("validity-before",): ("{wrong}, but it has lapsed.", "{wrong}'s cover has expired."),
                      ("still",): ("You had {wrong}, but you sold it.", "{wrong}, but that no longer holds.")},
           expect={("validity-before",): Expect(P, "J12", note="on a before-arm the governing lapse "
                                                            "claim decides first (J6), as for 'call Y now'"),
                   ("still",): Expect(W, "J12", (OVER,), note="J3.4's exception covers the gold only; the "
                                                              "invalidation claimed on a still-valid control "
                                                              "sets over-forgetting (J5)")},
           outside_rotation=True),
    Family("j12-stale-or-other",
           templates={("invalidated", "validity-after"): ("{gold} or {wrong}.", "Either {gold} or {wrong}.",
                                                          "{wrong} or {gold}.",
                                                          "{gold} or {wrong}, I'm not sure which.")},
           expect={("invalidated", "validity-after"): Expect(W, "J12", (STALE,),
                                                             note="the stale value offered as a current candidate")},
           outside_rotation=True),
    Family("j12-attribution-forms",
           templates={("attribution",): ("**You**", "**you**", "**Me**", "**Both of us**", "It was me.",
                                         "That was me.", "It was you.")},
           expect={("attribution",): Expect(BY_READING, "J12")}, per_question=3, outside_rotation=True),
    Family("j12-attribution-neither",
           templates={("attribution",): ("Neither of us.", "Neither of us said that.", "Nobody mentioned that.",
                                         "You never told me.")},
           expect={("attribution",): Expect(M, "J12", note="a denial (J9)")},
           outside_rotation=True),
    Family("j12-hedged-invented",
           templates={("name", "never-known"): ("I'm not sure, but probably {invented}.", "My guess is {invented}.",
                                                "It might be {invented}.", "I think it was {invented}.")},
           expect={("name",): Expect(W, "J12", note="a hedged commitment to a value outside the key (J3.2)"),
                   ("never-known",): Expect(W, "J3.2")},
           outside_rotation=True),
    Family("j12-two-candidates-hedged",
           templates={(*POSITIVE, "still"): ("{gold} or {wrong}, I'm not sure which.",
                                             "{wrong} or {gold}, I'm not sure which.",
                                             "Either {gold} or {wrong}, I'm not sure which one.")},
           expect={(*POSITIVE, "still"): Expect(W, "J12", note="two candidates (J3.4) beat the hedge")},
           outside_rotation=True),
    Family("j12-number-unmarked-rounded",
           templates={("numeric",): ("{unmarked}", "{unmarked}.", "That comes to {unmarked}.")},
           expect={("numeric",): Expect(W, "J12", note="an unmarked rounded figure claims to be the value (J7.2)")},
           outside_rotation=True),
    Family("j12-number-approx-exact",
           templates={("numeric",): ("About {fig}.", "Roughly {fig}.", "Around {fig}.", "~{fig}",
                                     "Approximately {fig}.")},
           expect={("numeric",): Expect(C, "J12", note="an approximate figure equal to the gold (J7.2)")},
           outside_rotation=True),
    Family("j12-number-count-with-money",
           templates={("counts",): ("{fig}, {money} in total.", "{fig} — {money} altogether.",
                                    "{fig}, and {money} in total.")},
           expect={("numeric",): Expect(C, "J12", note="a currency figure on a count is skipped (J7.1)")},
           outside_rotation=True),
    Family("j12-number-self-correction",
           templates={("numeric",): ("{wrong_fig} — sorry, {fig}.", "{wrong_fig}, no wait, {fig}.",
                                     "{wrong_fig}. Actually, {fig}.")},
           expect={("numeric",): Expect(C, "J12", note="figures before a self-correction are retracted (J7.1)")},
           outside_rotation=True),
    Family("j12-number-weeks",
           templates={("durations",): ("{weeks}", "{Weeks}.", "That's {weeks} in total.")},
           expect={("numeric",): Expect(W, "J12", note="no unit conversion (J7.2)")},
           per_question=3, outside_rotation=True),
    Family("j12-decline-yet",
           templates={("booking-after",): ("I can't tell yet.", "I don't have that information yet.",
                                           "I can't say yet.")},
           expect={("booking-after",): Expect(C, "J12", note="a decline on a not-known gold; its own 'yet' "
                                                             "commits to nothing")},
           outside_rotation=True),
    Family("j12-split-cue",
           templates={FORGETTING_VALUE: ("You gave {gold} away.", "You let {gold} go.", "You gave {gold} up.")},
           expect={("invalidated",): Expect(C, "J12", note="split event cue (J5)"),
                   ("still",): Expect(M, "J5", (OVER,), note="split event cue (J12) claims an invalidation")},
           outside_rotation=True),
)

DECLINE_FAMILIES: frozenset[str] = frozenset({"decline", "decline-whether", "decline-denial", "rambling-decline",
                                             "j12-decline-yet"})
DENIAL_FAMILIES: frozenset[str] = frozenset({"denial", "denial-zero", "j12-nobody-booked", "j12-no-one-before",
                                            "j12-attribution-neither"})
"""Test (b): no case of these families may be graded ``wrong`` (none is labelled ``wrong``)."""

ATTRIBUTION_READINGS: dict[str, str] = {
    # bare options read as the question words them (J9): "you" is the assistant
    "you": "you", "You.": "you", '"you"': "you", "The answer is: you.": "you",
    "me": "me", "Me.": "me", '"me"': "me", "The answer is: me.": "me",
    "both of us": "both of us", "Both of us.": "both of us", '"both of us"': "both of us",
    "The answer is: both of us.": "both of us",
    # sentences read by speaker meaning: the assistant is the one answering
    "I did.": "you", "I said that.": "you", "I was the one who mentioned it.": "you",
    "I brought that up.": "you", "I mentioned it.": "you",
    "You did.": "me", "You told me.": "me", "You said it.": "me", "You mentioned it.": "me",
    "You brought it up.": "me",
    "We both did.": "both of us", "Both of us mentioned it.": "both of us",
    "Each of us said it.": "both of us", "We both brought it up.": "both of us",
    "You were the one who said it.": "me",
    # explicit glosses win
    "You (the assistant).": "you", "The assistant.": "you", "Me (the person asking).": "me",
    "The user.": "me", "Both the user and the assistant.": "both of us",
    "**I did** — I mentioned it.": "you", "**You did.** You told me.": "me",
    "**Both of us** mentioned it.": "both of us",
    "I think I mentioned it.": "you", "I believe you told me.": "me", "Probably both of us.": "both of us",
    "I'm fairly sure I said it.": "you",
    "I was the one who mentioned that {claim}.": "you", "You told me that {claim}.": "me",
    "We both mentioned that {claim}.": "both of us", "I think you said that {claim}.": "me",
    "I said that {claim}.": "you",
    "{filler} To answer your question: I did.": "you",
    "{filler} To answer your question: you told me.": "me",
    "{filler} To answer your question: we both did.": "both of us",
    # J12: markdown is transparent around a bare option; "It was me." is a sentence (J9)
    "**You**": "you", "**you**": "you", "**Me**": "me", "**Both of us**": "both of us",
    "It was me.": "you", "That was me.": "you", "It was you.": "me",
}


@dataclass(frozen=True)
class Ambiguity:
    """A case the contract leaves open: kept out of the bank, reported with a proposal."""

    kind: str
    answer: str
    readings: str
    proposal: str


AMBIGUOUS: tuple[Ambiguity, ...] = (
    # The first bank's 25 open cases are resolved by JUDGING.md J12 (the j12-* families). Still open:
    Ambiguity("numeric (sums/deltas with a half at the figure's precision; e.g. tme-ari-018 "
              "€2,042.45, tme-ari-023 $2,174.95)",
              "about €2,042.5 / about €2,042.4",
              "J7.2: correct iff 'the gold rounded to the figure's own precision gives it', but the "
              "contract does not say how an exact half rounds (half up gives 2,042.5, half even "
              "2,042.4); approximation_verdict() returns None and the bank renders neither",
              "half up (the ordinary schoolbook rounding); say so in J7.2"),
)


# --- corpus access -------------------------------------------------------------------------------
def corpus_paths(corpus_dir: Path = CORPUS_DIR) -> list[Path]:
    """Shipped corpora, sorted by name (sidecars are metadata, not questions)."""
    return sorted(p for p in corpus_dir.glob("typedmemeval-*.json") if not p.name.endswith(".sidecar.json"))


def load_records(corpus_dir: Path = CORPUS_DIR) -> list[dict[str, Any]]:
    """Every shipped question as plain JSON plus its ``corpus_id`` (file stem): plain ``json`` is ten
    times faster than the validating loader, and the bank needs only the key and a few fields."""
    records: list[dict[str, Any]] = []
    for path in corpus_paths(corpus_dir):
        for record in json.loads(path.read_text(encoding="utf-8")):
            records.append({**record, "corpus_id": path.name.removesuffix(".json")})
    return records


def key_kind(record: Mapping[str, Any]) -> str:
    """Which contract branch the key falls under (module docstring)."""
    block = record["typedmemeval"]
    key, shape, arm = block["answer_key"], block["shape"], block.get("arm")
    negative = key.get("expected_negative")
    by_shape = {("due-later", "before"): ("reminder-before", "not_yet"),
                ("due-later", "after"): ("due-after", None),
                ("not-yet-true", "before"): ("booking-before", "not_yet"),
                ("not-yet-true", "after"): ("booking-after", "abstain"),
                ("expiring-validity", "before"): ("validity-before", "not_yet"),
                ("expiring-validity", "after"): ("validity-after", "no_longer")}
    if (shape, arm) in by_shape:
        kind, wanted = by_shape[shape, arm]
        if negative != wanted:
            raise ValueError(f"{record['question_id']}: {shape}/{arm} key has expected_negative {negative!r}")
        return kind
    if key.get("numeric"):
        return "numeric"
    if key.get("list_order"):
        return "list"
    if key.get("choices"):
        return "attribution"
    kind = {"no_longer": "invalidated", "still": "still", "abstain": "never-known", None: "name"}[negative]
    if kind == "name" and not key.get("accepted"):
        raise ValueError(f"{record['question_id']}: positive key without accepted values")
    return kind


def key_values(key: Mapping[str, Any]) -> list[str]:
    """Every string value of a key, in key order (J3.1's "values")."""
    values: list[str] = []
    for name in ("accepted", "must_name", "wrong", "stale", "premature", "list_order"):
        values.extend(key.get(name) or ())
    return values


# --- question parts ------------------------------------------------------------------------------
QUESTION_FORMS: dict[str, str] = {
    "assistant-stated": r"Which (?P<thing>.+) did you recommend for the (?P<occasion>.+) that I did not "
                        r"turn down\?",
    "distance": r"Which (?P<thing>.+?) have I (?P<verb>.+)\?",
    "as-of": r"Who was looking after the (?P<thing>.+) at the (?P<place>.+) (?P<when>\w+ (?:days|weeks) ago)\?",
    "current": r"Who looks after the (?P<thing>.+) at the (?P<place>.+) now\?",
    "prospective": r"Who will be looking after the (?P<thing>.+) at the (?P<place>.+) in (?P<when>.+)\?",
    "due-later": r"Is my reminder about the (?P<thing>.+) at the (?P<place>.+) due yet, and whom was I to call\?",
    "expiring-validity": r"Whose cover do I have for the (?P<thing>.+) at the (?P<place>.+), and is it still valid\?",
    "not-yet-true": r"From what I have told you, have I booked anyone for the (?P<thing>.+) at the (?P<place>.+) yet\?",
    "forgetting": r"Which (?P<thing>.+?) do I have for the (?P<purpose>.+?)\? Give the name, and say whether "
                  r"that is still current\.",
    "participant-attribution": r"(?:Who was it that said|Who said|Who brought up|Who pointed out|Which of us "
                               r"mentioned|Which of us remarked)(?: that)? (?P<claim>.+?)(?:\? Was it me|: me) "
                               r"or you or both of us\?",
    "counts": r"How many times did I buy something from (?P<store>\w+(?: \w+)?)\?",
    "sums": r"How much did I spend at (?P<store>\w+(?: \w+)?) altogether\?",
    "deltas": r"How much more did I spend at (?P<store>\w+(?: \w+)?) than at (?P<other>\w+(?: \w+)?)\?",
    "durations": r"How many days(?: in total)? (?P<be>were|was) (?P<items>.+) (?P<state>away for repair|out on loan)\?",
    "list-order": r"In what order did I add names to the (?P<list>.+) for the (?P<occasion>.+)\?",
}
"""How each shipped question is worded, so an answer can restate it as chat models do ("You spent
$1,944.19 at Cordar altogether."). A question that matches no form is an error, never skipped."""

PART_STOPWORDS: frozenset[str] = frozenset({
    "no", "not", "never", "none", "nothing", "nobody", "yet", "later", "until", "still", "due", "time",
    "valid", "current", "lapsed", "expired", "ended", "sold", "left", "closed", "dropped", "stopped",
    "quit", "gone", "past", "former", "previously", "know", "sure", "record", "mention", "total", "so",
    "altogether", "overall", "i", "you", "me", "we", "us", "both", "either", "or", "if", "whether",
})
"""Words a restated part must not bring into an answer: cues, declines, denials, conclusion markers
and attribution pronouns would change what the answer says (the attribution claim is checked for
pronouns only)."""

PART_COMPOUNDS: tuple[str, ...] = ("record player",)
"""Nouns that hold a stop word as a plain part of a thing's name ("record player"): restated, they
say nothing about the record of the conversation, so the check reads them without it — and the bank
then tests that the judge does not take "your record player" for talk about the record."""


def question_parts(record: Mapping[str, Any]) -> dict[str, str]:
    """The question's own phrases (``thing``, ``place``, ``store`` ...) for restating templates."""
    block = record["typedmemeval"]
    shape, vertical = block["shape"], block["vertical"]
    form = ("forgetting" if vertical == "forgetting" else "distance" if shape in WM_SHAPES else shape)
    match = re.fullmatch(QUESTION_FORMS[form], record["question"])
    if match is None:
        raise ValueError(f"{record['question_id']}: question not in its shape's form: {record['question']!r}")
    parts = {name: value for name, value in match.groupdict().items() if value}
    for name, value in parts.items():
        plain = value
        for compound in PART_COMPOUNDS:
            plain = re.sub(rf"\b{compound}\b", "", plain)
        words = set(_words(plain))
        banned = words & ({"i", "you", "me", "we", "us", "both"} if name == "claim" else PART_STOPWORDS)
        if banned:
            raise ValueError(f"{record['question_id']}: question part {name}={value!r} carries {sorted(banned)}")
    for name in ("when", "items"):
        if name in parts:
            parts[name.capitalize()] = parts[name][0].upper() + parts[name][1:]
    return parts


# --- numbers -------------------------------------------------------------------------------------
CURRENCY_SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£"}
CURRENCY_WORD = {"USD": "dollars", "EUR": "euros", "GBP": "pounds"}
UNIT_NOUN = {"purchases": ("purchase", "purchases"), "days": ("day", "days")}
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
         "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(n: int, joiner: str = "-") -> str:
    """English words for 0-999, British "and" after hundreds (as judge/numbers.py declares)."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"{joiner}{_ONES[ones]}" if ones else "")
    hundreds, rest = divmod(n, 100)
    head = f"{_ONES[hundreds]} hundred"
    return head + (f" and {number_words(rest, joiner)}" if rest else "")


def _dec(value: float | int | str) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value))


def render_number(value: Decimal, unit: str, decimals: int | None = None) -> str:
    """A figure as an answer writes it: currency symbol and thousands separators, or a count noun."""
    if unit in CURRENCY_SYMBOL:
        places = 2 if decimals is None else decimals
        return f"{'-' if value < 0 else ''}{CURRENCY_SYMBOL[unit]}{abs(value):,.{places}f}"
    places = 0 if decimals is None else decimals
    singular, plural = UNIT_NOUN[unit]
    return f"{value:,.{places}f} {singular if value == 1 else plural}"


def bare_number(value: Decimal, unit: str) -> str:
    return f"{value:,.2f}" if unit in CURRENCY_SYMBOL else f"{value:,.0f}"


def text_precision(digits: str) -> Decimal:
    """Precision of a written figure as judge/numbers.py declares it: decimals give 10^-decimals,
    an integer's trailing zeros give tens/hundreds, a ``k`` suffix multiplies by 1000."""
    scale = Decimal(1000) if digits.endswith("k") else Decimal(1)
    core = digits.rstrip("k").replace(",", "")
    if "." in core:
        return Decimal(1).scaleb(-len(core.split(".")[1])) * scale
    stripped = core.rstrip("0")
    return Decimal(1).scaleb(len(core) - len(stripped)) * scale


def _round_to(value: Decimal, precision: Decimal) -> Decimal:
    return (value / precision).quantize(Decimal(1), rounding=ROUND_HALF_UP) * precision


def _significant(figure: Decimal, precision: Decimal) -> int:
    return figure.adjusted() - precision.adjusted() + 1


def approximation_verdict(gold: Decimal, digits: str) -> str | None:
    """J7.2 for an approximate figure: ``correct`` (equal to the gold, J12 "about 6 purchases",
    or the gold rounded to the figure's precision with two significant figures), ``coarse`` (under
    two significant figures), ``misround`` (gold rounded to the figure's precision differs), or
    ``None`` when the contract is ambiguous (the gold is an exact half at the figure's precision:
    see :data:`AMBIGUOUS`)."""
    precision = text_precision(digits)
    scale = Decimal(1000) if digits.endswith("k") else Decimal(1)
    figure = Decimal(digits.rstrip("k").replace(",", "")) * scale
    if figure == 0:
        return None
    if (gold / precision) % 1 == Decimal("0.5"):
        return None
    significant = _significant(figure, precision)
    if figure == gold:
        return "correct"
    if _round_to(gold, precision) != figure:
        return "misround"
    return "correct" if significant >= 2 else "coarse"


def approximations(gold: Decimal, unit: str) -> dict[str, list[str]]:
    """Rounded renderings of the gold sorted by :func:`approximation_verdict`: the gold rounded at
    each precision, and one step off it where that is a realistic near miss ("about $1,950" for
    $1,944.19, not "roughly 200 days" for 87)."""
    found: dict[str, list[str]] = {"correct": [], "coarse": [], "misround": []}
    for exponent in ((-1, 0, 1, 2, 3) if unit in CURRENCY_SYMBOL else (0, 1, 2)):
        precision = Decimal(1).scaleb(exponent)
        if precision >= gold * 2:
            continue
        rounded = _round_to(gold, precision)
        for figure in (rounded, rounded + precision):
            digits = f"{figure:,.{max(0, -exponent)}f}"
            verdict = approximation_verdict(gold, digits)
            if figure == gold and _significant(figure, text_precision(digits)) < 2:
                continue  # "about 6" for 6: the j12-number-approx-exact family's case, not a rounding
            near_miss = figure == rounded or exponent <= 0 or _significant(figure, text_precision(digits)) >= 2
            if verdict is not None and near_miss:
                found[verdict].append(_with_unit(digits, unit))
        if exponent == 2 and unit in CURRENCY_SYMBOL and gold >= 1000:
            digits = f"{_round_to(gold, precision) / 1000:.1f}k"
            if approximation_verdict(gold, digits) == "correct":
                found["correct"].append(_with_unit(digits, unit))
    return {name: sorted(set(values), key=values.index) for name, values in found.items()}


def _with_unit(digits: str, unit: str) -> str:
    if unit in CURRENCY_SYMBOL:
        return f"{CURRENCY_SYMBOL[unit]}{digits}"
    return f"{digits} {UNIT_NOUN[unit][1]}"


def numeric_values(record: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Every number placeholder for one Arithmetic question, from its key and derivation, plus the
    rounded renderings by verdict (a case picks one of those with its own ``rng``)."""
    block = record["typedmemeval"]
    numeric = block["answer_key"]["numeric"]
    gold, unit = _dec(numeric["value"]), numeric["unit"]
    derivation = block["derivation"]
    inputs = [_dec(item["value"]) for item in derivation["inputs"]]
    shape = block["shape"]
    fig = render_number(gold, unit)
    values: dict[str, str] = {"fig": fig, "bare": bare_number(gold, unit)}
    n = len(inputs)
    if unit in CURRENCY_SYMBOL:
        values["code"] = (f"EUR {gold:,.2f}" if unit == "EUR" else f"{gold:,.2f} {unit}")
        values["word_money"] = f"{gold:,.2f} {CURRENCY_WORD[unit]}"
        values["fig_nosep"] = f"{CURRENCY_SYMBOL[unit]}{gold:.2f}"
        values["code_prefix"] = f"{unit} {gold:,.2f}"
    elif unit == "purchases":
        values["code"] = f"{gold:.0f} times"
        values["times"] = f"{gold:.0f} times"
    else:
        values["code"] = f"{gold:.0f} days altogether"
    if unit in UNIT_NOUN:
        words = number_words(int(gold))
        values["words"] = f"{words} {UNIT_NOUN[unit][1]}"
        values["Words"] = values["words"][0].upper() + values["words"][1:]
        spaced = number_words(int(gold), joiner=" ")
        if spaced != words:
            values["words_spaced"] = f"{spaced} {UNIT_NOUN[unit][1]}"
    values.update(_working(shape, derivation, inputs, gold, unit))
    values.update(_context(record, shape, derivation, fig, n))
    values.update(_wrong_figures(shape, derivation, inputs, gold, unit))
    step = Decimal(1).scaleb(max(0, gold.adjusted() - 1))
    low, high = _round_to(gold, step) - step, _round_to(gold, step) + step
    if low > 0 and low != gold and high != gold:
        low_text, high_text = render_number(low, unit, 0), render_number(high, unit, 0)
        if unit in CURRENCY_SYMBOL:
            values["range_dash"] = f"{low_text}–{high_text}"
            values["range_between"] = f"between {low_text} and {high_text}"
        else:
            values["range_dash"] = f"{low:.0f}–{high_text}"
            values["range_between"] = f"between {low:.0f} and {high_text}"
        values["range_between_cap"] = "B" + values["range_between"][1:]
    plus = gold + (Decimal(10) if unit in CURRENCY_SYMBOL else Decimal(1))
    values["alt"] = (f"{fig} or {render_number(plus, unit)}" if unit in CURRENCY_SYMBOL
                     else f"{gold:.0f} or {render_number(plus, unit)}")
    values["zero_fig"] = render_number(Decimal(0), unit, 2 if unit in CURRENCY_SYMBOL else 0)
    values.update(_j12_numbers(gold, unit))
    return values, approximations(gold, unit)


def _j12_numbers(gold: Decimal, unit: str) -> dict[str, str]:
    """Figures for the J12 number rows: the gold rounded to whole units with no approximation
    marker (currency golds with cents), a money figure beside a count, and whole weeks for a
    duration that is a multiple of seven days."""
    values: dict[str, str] = {}
    if unit in CURRENCY_SYMBOL and gold != gold.to_integral_value():
        values["unmarked"] = render_number(_round_to(gold, Decimal(1)), unit, 0)
    if unit == "purchases":
        values["money"] = render_number(gold * Decimal("205.70"), "USD")
    if unit == "days" and gold % 7 == 0:
        weeks = number_words(int(gold) // 7)
        values["weeks"] = f"{weeks} {'week' if gold == 7 else 'weeks'}"
        values["Weeks"] = values["weeks"][0].upper() + values["weeks"][1:]
    return values


def _sum_text(amounts: Sequence[Decimal], unit: str) -> str:
    return " + ".join(render_number(a, unit) for a in amounts)


def _working(shape: str, derivation: Mapping[str, Any], inputs: list[Decimal], gold: Decimal,
             unit: str) -> dict[str, str]:
    """Working shown three ways; the concluding figure is always the gold (J7.1)."""
    fig = render_number(gold, unit)
    if shape == "counts":
        half = (int(gold) + 1) // 2
        return {"working": " + ".join("1" for _ in inputs) + f" = {fig}",
                "working_lines": "\n".join(f"- purchase {number_words(i + 1)}" for i in range(len(inputs)))
                                 + f"\n\n**Total: {fig}**",
                "working_prose": f"I count {half} earlier on and {int(gold) - half} after that, so {fig} in total."}
    if shape == "sums":
        return {"working": f"{_sum_text(inputs, unit)} = {fig}",
                "working_lines": "Adding up your purchases there:\n"
                                 + "\n".join(f"- {render_number(a, unit)}" for a in inputs)
                                 + f"\n\n**Total: {fig}**",
                "working_prose": "You spent " + _listing([render_number(a, unit) for a in inputs])
                                 + f", so {fig} altogether."}
    if shape == "deltas":
        side_a = [_dec(i["value"]) for i in derivation["inputs"] if i["side"] == "a"]
        side_b = [_dec(i["value"]) for i in derivation["inputs"] if i["side"] == "b"]
        total_a, total_b = render_number(sum(side_a), unit), render_number(sum(side_b), unit)
        first = f"{_sum_text(side_a, unit)} = {total_a}" if len(side_a) > 1 else total_a
        second = f"{_sum_text(side_b, unit)} = {total_b}" if len(side_b) > 1 else total_b
        return {"working": f"{total_a} - {total_b} = {fig}",
                "working_lines": f"- First shop: {first}\n- Second shop: {second}\n\n"
                                 f"Difference: {total_a} - {total_b} = **{fig}**",
                "working_prose": f"You spent {total_a} at the first shop and {total_b} at the second, "
                                 f"so {fig} more."}
    days = [f"{a:.0f}" for a in inputs]
    if len(days) == 1:
        return {"working": f"From the day it went to the day it came back was {fig}.",
                "working_lines": f"- Away: {fig}",
                "working_prose": f"It was away from the day it went to the day it came back: {fig}."}
    return {"working": " + ".join(days) + f" = {fig}",
            "working_lines": "\n".join(f"- Item {i + 1}: {d} days" for i, d in enumerate(days))
                             + f"\n\n**Total: {fig}**",
            "working_prose": "They were away for " + _listing([f"{d} days" for d in days])
                             + f", so {fig} in total."}


def _listing(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"


def _context(record: Mapping[str, Any], shape: str, derivation: Mapping[str, Any], fig: str,
             n: int) -> dict[str, str]:
    """Trailing and leading context figures (J7.1: context is not the answer)."""
    if shape == "counts":
        dates = record["haystack_dates"]
        months = len({dates[i["session_index"]][:7] for i in derivation["inputs"]})
        month_word = "month" if months == 1 else "months"
        return {"context_after": f"{fig} across {months} {month_word}",
                "context_before": f"Over {months} {month_word}, you made {fig}."}
    if shape == "sums":
        return {"context_after": f"{fig} across {n} orders",
                "context_before": f"Across {n} orders, you spent {fig}."}
    if shape == "deltas":
        n_a = sum(1 for i in derivation["inputs"] if i["side"] == "a")
        return {"context_after": f"{fig} more, over {n_a} orders at the first shop and {n - n_a} at the second",
                "context_before": f"Over {n_a} orders at one shop and {n - n_a} at the other, you spent {fig} more."}
    items = "1 item" if n == 1 else f"{n} items"
    return {"context_after": f"{fig} across {items}",
            "context_before": f"Across {items}, the total is {fig}."}


def _wrong_figures(shape: str, derivation: Mapping[str, Any], inputs: list[Decimal], gold: Decimal,
                   unit: str) -> dict[str, str]:
    """Realistic wrong figures: a purchase missed, an off-by-one day, a difference not taken."""
    if shape == "counts":
        wrong = gold - 1
        working = " + ".join("1" for _ in inputs[1:]) + f" = {render_number(wrong, unit)}"
    elif shape == "sums":
        dropped = min(inputs)
        kept = list(inputs)
        kept.remove(dropped)
        wrong = gold - dropped
        working = f"{_sum_text(kept, unit)} = {render_number(wrong, unit)}"
    elif shape == "deltas":
        side_a = [_dec(i["value"]) for i in derivation["inputs"] if i["side"] == "a"]
        side_b = [_dec(i["value"]) for i in derivation["inputs"] if i["side"] == "b"]
        wrong = sum(side_a) + sum(side_b)
        working = (f"{render_number(sum(side_a), unit)} + {render_number(sum(side_b), unit)} = "
                   f"{render_number(wrong, unit)}")
    else:
        wrong = gold + 1
        days = [f"{a:.0f}" for a in inputs]
        days[-1] = f"{inputs[-1] + 1:.0f}"
        working = " + ".join(days) + f" = {render_number(wrong, unit)}"
    return {"wrong_fig": render_number(wrong, unit), "wrong_bare": bare_number(wrong, unit),
            "wrong_working": working}


# --- lists ---------------------------------------------------------------------------------------
def _list_order(items: Sequence[str], order: str, wrong_items: Sequence[str], rng: random.Random) -> list[str]:
    """The items an answer lists: gold order, reversed, one adjacent pair swapped, one item left
    out, or a known-wrong item inserted (J8)."""
    listed = list(items)
    if order == "reversed":
        return listed[::-1]
    if order == "swapped":
        at = rng.randrange(len(listed) - 1)
        listed[at], listed[at + 1] = listed[at + 1], listed[at]
    elif order == "partial":
        del listed[rng.randrange(len(listed))]
    elif order == "extra":
        listed.insert(rng.randrange(len(listed) + 1), rng.choice(list(wrong_items)))
    return listed


def list_values(listed: Sequence[str]) -> dict[str, str]:
    """One list in every format chat models use."""
    then = ", then ".join(listed[:-1]) + f", and finally {listed[-1]}" if len(listed) > 2 else " then ".join(listed)
    return {
        "numbered": "\n".join(f"{i}. {item}" for i, item in enumerate(listed, 1)),
        "numbered_paren": "\n".join(f"{i}) {item}" for i, item in enumerate(listed, 1)),
        "numbered_bold": "\n".join(f"{i}. **{item}**" for i, item in enumerate(listed, 1)),
        "bullets": "\n".join(f"- {item}" for item in listed),
        "bullets_star": "\n".join(f"* {item}" for item in listed),
        "bullets_dot": "\n".join(f"• {item}" for item in listed),
        "arrows": " → ".join(listed),
        "arrows_ascii": " -> ".join(listed),
        "then": then,
        "then_cap": then[0].upper() + then[1:],
        "commas": ", ".join(listed),
        "commas_and": ", ".join(listed[:-1]) + f" and {listed[-1]}",
    }


# --- building ------------------------------------------------------------------------------------
def _fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _filler(rng: random.Random, minimum_chars: int = 0) -> str:
    sentences = [rng.choice(FILLER) for _ in range(rng.randint(4, 8))]
    length = sum(len(sentence) + 1 for sentence in sentences)
    while length < minimum_chars:
        sentences.append(rng.choice(FILLER))
        length += len(sentences[-1]) + 1
    return " ".join(sentences)


def pair_people(records: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """pair_id -> the person a before-arm names (``premature``): the not-yet-true after-arm key no
    longer lists that name, but a realistic answer does."""
    people: dict[str, str] = {}
    for record in records:
        block = record["typedmemeval"]
        if block.get("arm") == "before" and block["answer_key"].get("premature"):
            people[block["pair_id"]] = block["answer_key"]["premature"][0]
    return people


def case_values(record: Mapping[str, Any], kind: str, family: Family, rng: random.Random,
                people: Mapping[str, str],
                numbers: dict[str, tuple[dict[str, str], dict[str, list[str]]]]) -> dict[str, str]:
    """Every placeholder a template of ``family`` may use on this question."""
    block = record["typedmemeval"]
    key = block["answer_key"]
    gold_values = [*(key.get("accepted") or ()), *(key.get("must_name") or ())]
    others = [v for v in [*(key.get("wrong") or ()), *(key.get("stale") or ())]
              if v not in gold_values and v not in (key.get("premature") or ()) and v != "yet"]
    values: dict[str, str] = {}
    if gold_values:
        values["gold"] = gold_values[0]
        values["gold_lower"], values["gold_upper"] = gold_values[0].lower(), gold_values[0].upper()
    if others:
        picked = rng.sample(others, 2) if len(others) > 1 else others * 2
        values["wrong"], values["wrong2"] = picked
    invented = rng.sample(INVENTED, 2)
    values["invented"], values["invented2"] = invented
    if kind in ("reminder-before", "booking-before"):
        values["person"] = key["premature"][0]
    elif kind == "due-after":
        values["person"] = key["accepted"][0]
    elif kind == "booking-after":
        values["person"] = people[block["pair_id"]]
    values.update(question_parts(record))
    values["filler"] = _filler(rng)
    if family.first_of_corpus_only:
        values["filler_long"] = _filler(rng, LONG_FILLER_CHARS)
    if kind == "numeric":
        if record["question_id"] not in numbers:
            numbers[record["question_id"]] = numeric_values(record)
        fixed, approx = numbers[record["question_id"]]
        values.update(fixed)
        for verdict, name in (("correct", "approx_good"), ("coarse", "approx_coarse"),
                              ("misround", "approx_misround")):
            if approx[verdict]:
                values[name] = rng.choice(approx[verdict])
    if kind == "list":
        items = key["list_order"]
        values["item1"], values["item2"] = items[0], items[1]
        values.update(list_values(_list_order(items, family.order, key.get("wrong") or (), rng)))
    return values


def _expected(expect: Expect, template: str, record: Mapping[str, Any]) -> Expect:
    if expect.outcome != BY_READING:
        return expect
    gold = record["typedmemeval"]["answer_key"]["accepted"][0]
    reads = ATTRIBUTION_READINGS[template]
    return Expect(C if reads == gold else W, expect.rule, note=f"reads as option {reads!r}")


def _must_name_rule(expect: Expect, family: Family, answer: str, record: Mapping[str, Any]) -> Expect:
    """J6/J5.1 on revision-2 keys: a negative gold with ``must_name`` needs the value named. A
    ``correct`` label on an answer that names none of them becomes ``missed`` (a bare "not yet", a
    bare denial) or, for a bare decline on a not-known-but-recorded gold, ``abstained``."""
    key = record["typedmemeval"]["answer_key"]
    names = key.get("must_name") or []
    negative = key.get("expected_negative")
    if expect.outcome != C or not names or negative not in ("not_yet", "abstain"):
        return expect
    if any(name.lower() in answer.lower() for name in names):
        return expect
    # "nothing says whether ..." is a decline in the contract's sense (J1: the record does not say).
    if negative == "abstain" and (family.name in DECLINE_FAMILIES or " whether " in answer):
        return Expect(A, "J5.1", note="a bare decline where the record holds the plan")
    rule = "J5.1" if negative == "abstain" else "J6"
    return Expect(M, rule, note="omits the value the gold names (must_name)")


def _families_for(kind: str, shape: str, first_of_corpus: bool) -> list[Family]:
    return [f for f in FAMILIES
            if f.expectation(kind) is not None and f.template_group(kind, shape) is not None
            and (first_of_corpus or not f.first_of_corpus_only)]


def _rotation(families: list[Family], index: int, budget: int | None) -> list[Family]:
    """Which families question ``index`` of its (kind, shape) gets: all, or ``budget`` of them in
    rotation, so every family reaches a share of every shape's questions, small shapes included.
    Single-corpus and out-of-rotation (J12) families always run."""
    always = [f for f in families if f.first_of_corpus_only or f.outside_rotation]
    rotating = [f for f in families if not (f.first_of_corpus_only or f.outside_rotation)]
    if budget is None or budget >= len(rotating):
        return families
    start = index * budget
    picked = {rotating[(start + j) % len(rotating)].name for j in range(budget)}
    return [f for f in families if f.name in picked or f in always]


def build_cases(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every bank case, sorted by ``case_id`` (see module docstring for the design)."""
    people = pair_people(records)
    counters: Counter[tuple[str, tuple[str, ...]]] = Counter()
    used: set[tuple[str, tuple[str, ...], str]] = set()
    reachable: set[tuple[str, tuple[str, ...]]] = set()
    kind_index: Counter[tuple[str, str]] = Counter()
    seen_corpora: set[tuple[str, str]] = set()
    checked: set[str] = set()
    names = _name_index(records)
    numbers: dict[str, tuple[dict[str, str], dict[str, list[str]]]] = {}
    cases: list[dict[str, Any]] = []
    for record in records:
        block = record["typedmemeval"]
        kind, shape = key_kind(record), block["shape"]
        # First question of its (corpus, kind): revision-2 ids are a permutation, so the corpus's
        # first question can be of any kind, and a first-only family must still reach each kind.
        first_of_corpus = (record["corpus_id"], kind) not in seen_corpora
        seen_corpora.add((record["corpus_id"], kind))
        budget, default_k = KIND_PLAN[kind]
        applicable = _families_for(kind, shape, first_of_corpus)
        for family in applicable:
            group = family.template_group(kind, shape)
            assert group is not None
            reachable.add((family.name, group[0]))
        families = _rotation(applicable, kind_index[kind, shape], budget)
        kind_index[kind, shape] += 1
        for family in families:
            expect, group = family.expectation(kind), family.template_group(kind, shape)
            assert expect is not None and group is not None
            selectors, templates = group
            rng = random.Random(f"{SEED}|{record['question_id']}|{family.name}")
            values = case_values(record, kind, family, rng, people, numbers)
            wanted = min(family.per_question or default_k, len(templates))
            chosen: list[str] = []
            while len(chosen) < wanted:
                # Round robin from the family's counter, preferring a phrasing no question has used
                # yet: a phrasing only some questions can fill (a currency code) is not starved by
                # the order the questions happen to come in.
                start = counters[family.name, selectors]
                order = [templates[(start + i) % len(templates)] for i in range(len(templates))]
                usable = [t for t in order if t not in chosen
                          and all(name in values for name in _fields(t))]
                if not usable:
                    break
                fresh = [t for t in usable if (family.name, selectors, t) not in used]
                template = (fresh or usable)[0]
                counters[family.name, selectors] += 1
                chosen.append(template)
                used.add((family.name, selectors, template))
            for slot, template in enumerate(chosen):
                if template not in checked:
                    _check_literal(family, template, names)
                    checked.add(template)
                used.add((family.name, selectors, template))
                answer = template.format_map(values)
                label = _must_name_rule(_expected(expect, template, record), family, answer, record)
                cases.append(_case(record, family, slot, answer, label))
    _check_template_coverage(used, reachable)
    cases.sort(key=lambda case: case["case_id"])
    _check_cases(cases, records)
    return cases


def _case(record: Mapping[str, Any], family: Family, slot: int, answer: str,
          label: Expect) -> dict[str, Any]:
    block = record["typedmemeval"]
    case: dict[str, Any] = {
        "case_id": f"{record['question_id']}/{family.name}/{slot}",
        "corpus_id": record["corpus_id"],
        "question_id": record["question_id"],
        "vertical": block["vertical"],
        "shape": block["shape"],
        "arm": block.get("arm"),
        "family": family.name,
        "answer": answer,
        "expected": label.outcome,
        "expected_subcounts": sorted(label.subcounts),
        "rule": label.rule,
    }
    if label.note:
        case["note"] = label.note
    return case


def _check_literal(family: Family, template: str, names: ValueIndex) -> None:
    """A template's own words must name no key value of any shipped key: every value comes from a
    placeholder, so the label's reasoning ("gold plus one wrong value") is what the answer really
    contains. Checked against the name-like values (:func:`_name_index`)."""
    literal = re.sub(r"\{[^}]*\}", " ", template)
    if found := names.findall(literal):
        raise AssertionError(f"{family.name} template {template!r} names key values {found}")


def _name_index(records: Sequence[Mapping[str, Any]]) -> ValueIndex:
    """Every key value except the ordinary words some keys use as values: attribution options
    ("you", "me", "both of us", which every attribution phrasing must use, J9) and "yet" (a value
    only through the not-yet-true after-arm key gap)."""
    ordinary = {"you", "me", "both of us", "yet"}
    return ValueIndex(v for record in records for v in key_values(record["typedmemeval"]["answer_key"])
                      if v.casefold() not in ordinary)


def _check_template_coverage(used: set[tuple[str, tuple[str, ...], str]],
                             reachable: set[tuple[str, tuple[str, ...]]]) -> None:
    """Every template group is reachable by some shipped question and every phrasing in it is used
    at least once somewhere in the family (groups may share phrasings, e.g. the declines): no
    phrasing in the design is dead."""
    problems = []
    used_texts = {(name, text) for name, _, text in used}
    for family in FAMILIES:
        for selectors, templates in family.templates.items():
            if (family.name, selectors) not in reachable:
                problems.append(f"{family.name} {selectors}: no shipped question reaches this group")
                continue
            problems.extend(f"{family.name} {selectors}: never used: {template!r}"
                            for template in templates
                            if (family.name, template) not in used_texts)
    if problems:
        raise AssertionError("template design problems (raise per_question or the kind's budget):\n"
                             + "\n".join(problems))


def _check_cases(cases: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> None:
    """Self-checks that keep a template slip from becoming a mislabelled case."""
    all_values = sorted({v for record in records for v in key_values(record["typedmemeval"]["answer_key"])})
    any_value = ValueIndex(all_values)
    any_invented = ValueIndex(INVENTED)
    for text in (*INVENTED, *FILLER):
        if found := any_value.findall(text):
            raise AssertionError(f"{text!r} names key values {found}")
    for value in all_values:
        if found := any_invented.findall(value):
            raise AssertionError(f"key value {value!r} contains invented names {found}")
    labels: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    for case in cases:
        label = (case["expected"], tuple(case["expected_subcounts"]))
        if labels.setdefault((case["question_id"], case["answer"]), label) != label:
            raise AssertionError(f"{case['case_id']}: the same answer is labelled differently elsewhere")
        if case["family"] in DECLINE_FAMILIES | DENIAL_FAMILIES and case["expected"] == W:
            raise AssertionError(f"{case['case_id']}: a decline/denial family labelled wrong")
        if re.search(r"\{\w+\}", case["answer"]):
            raise AssertionError(f"{case['case_id']}: unfilled placeholder in {case['answer']!r}")
    declines = {c["answer"] for c in cases if c["family"] == "decline"}
    if len(declines) < 25:
        raise AssertionError(f"only {len(declines)} distinct decline phrasings")


class ValueIndex:
    """Which key values a text names, matched on whole words after casefolding (J3.1's matching,
    conservatively: punctuation between the words of a value is ignored). Token n-grams instead of
    one regex alternation: compiling an alternation of every shipped value costs more than the
    whole build."""

    def __init__(self, values: Iterable[str]) -> None:
        self._by_length: dict[int, dict[tuple[str, ...], str]] = {}
        for value in values:
            words = _words(value)
            if words:
                self._by_length.setdefault(len(words), {})[words] = value

    def findall(self, text: str) -> list[str]:
        words = _words(text)
        return [table[words[i:i + n]] for n, table in sorted(self._by_length.items())
                for i in range(len(words) - n + 1) if words[i:i + n] in table]


def _words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", text.casefold()))


def render_bank(cases: Sequence[Mapping[str, Any]]) -> bytes:
    """One JSON object per line, fields in a fixed order, UTF-8, trailing newline."""
    return "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases).encode("utf-8")


def build_bank_bytes(corpus_dir: Path = CORPUS_DIR) -> bytes:
    """The exact bytes of ``bank.jsonl`` for the shipped corpora (what the test compares)."""
    return render_bank(build_cases(load_records(corpus_dir)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BANK_PATH)
    parser.add_argument("--check", action="store_true", help="fail if --out differs instead of writing it")
    parser.add_argument("--ambiguous", action="store_true",
                        help="list the cases left out because the contract leaves them open, and exit")
    args = parser.parse_args(argv)
    if args.ambiguous:
        for item in AMBIGUOUS:
            print(f"[{item.kind}] {item.answer}\n    readings: {item.readings}\n    proposal: {item.proposal}")
        return 0
    data = build_bank_bytes()
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == data
        print(f"{args.out}: {'up to date' if same else 'STALE — rerun without --check'}")
        return 0 if same else 1
    args.out.write_bytes(data)
    print(f"wrote {len(data.splitlines())} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
