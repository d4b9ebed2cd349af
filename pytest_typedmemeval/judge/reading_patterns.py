"""The vocabulary of reading an answer (docs/JUDGING.md J1-J13): every pattern, cue list and table
:class:`~.reading.Reading` applies, as plain data, and :func:`reading_rules`, which hands them all
to the judge fingerprint so results graded under different readings are never pooled.

Apart from :mod:`.reading` because this is data with readers of its own: the fingerprint, and the
corpus generators, which assert that no subject or value they write reads as one of these cues
(:data:`JUDGE_CUE_PATTERNS`). :mod:`.reading` compiles them and holds the scope logic. Patterns run
on the *normalised* answer (:func:`~.text.normalize`: casefolded, apostrophes straightened); ``'?``
makes every apostrophe optional because answers drop them as often as they curl them.
"""

from __future__ import annotations

import re

MAX_JUDGED_CHARS = 20_000
"""Answers are read up to this many characters (J11): every rule is a linear scan, and no memory
answer needs more to commit to a value; the verdict says when text was cut."""

# --- vocabularies ------------------------------------------------------------------------------

_NEG = (
    r"(?:do not|don'?t|did not|didn'?t|does not|doesn'?t|cannot|can'?t|can not|could not|"
    r"couldn'?t|am not|'?m not|am unable to|'?m unable to|am not able to|was unable to|"
    r"was not able to|wasn'?t able to|unable to|not able to|never|have no way to)"
)
_KNOW_VERBS = (
    r"(?:know|recall|remember|find|tell|say|see|determine|confirm|verify|locate|identify|retrieve|"
    r"access|answer|help|pin (?:it|that) down|work (?:it |that )?out|figure (?:it |that )?out|"
    r"be (?:sure|certain)|guess|pull up|look (?:it |that )?up|speak to|comment|compare|calculate|"
    r"compute|give|provide|count|add up|total|check|track|keep track|point to|share|list)"
)
_RECORD_NOUNS = (
    r"(?:idea|clue|information|info|record|records|details|detail|data|knowledge|memory|memories|"
    r"recollection|mention|notes?|context|indication|reference|evidence|receipts?|amounts?|"
    r"figures?|numbers|dates|history|specifics|visibility|insight)"
)
_HISTORY_VERBS = (
    r"(?:told|tell|mention|mentioned|said|say|shared|share|talked|talk|brought|bring|discussed|"
    r"discuss|given|give|gave|specified|specify|named|name|set|asked|ask|made|make|booked|book|"
    r"arranged|arrange|scheduled|schedule|bought|buy|purchased|purchase|spent|spend|added|add|"
    r"recorded|record|noted|note|owned|own|got|get|hired|hire|listed|list|ordered|order|sent|"
    r"send|had|have|did|do|went|go|paid|pay|used|use|called|call|planned|plan)"
)
_CONVERSATION_VERBS = (
    r"(?:discussed|discuss|talked about|talk about|spoke about|speak about|covered|cover|"
    r"went into|go into|gone into|touched on|touch on|got (?:round |around )?to|get (?:round |around )?to|"
    r"gotten (?:round |around )?to|came to|come to|gone over|go over|went over|get into|got into|"
    r"gotten into|got as far as|get as far as|dwelt on|dealt with)"
)
_CONVERSATION_NOUNS = (
    r"(?:conversations?|chats?|chat history|history|records?|notes|memory|memories|messages|"
    r"discussions?|context|logs?|transcripts?|sessions?|"
    # J20.7 (revision 8): the public datasets' own words for the record ("The text does not say",
    # "the dialogue doesn't mention it", "the provided passage does not specify")
    r"text|passages?|documents?|dialogues?|dialogs?|excerpts?)"
)

_IS_NOT = (
    r"(?:isn'?t|is not|aren'?t|are not|wasn'?t|was not|weren'?t|were not|"
    r"(?:is|are|was|were) (?:really |simply |just )?not)"
)

DECLINE_PATTERNS: tuple[str, ...] = (
    # "I don't know", "I really can't recall", "I'm afraid I'm unable to say"
    rf"\bi(?:'?m| am)?(?: \w+){{0,2}}? {_NEG}(?: \w+){{0,2}}? {_KNOW_VERBS}\b",
    # the same without a subject, but never with "you"/"we" before it (that is a denial)
    rf"(?<!\byou )(?<!\bwe )\b(?:cannot|can'?t|can not|couldn'?t|unable to|not able to|no way to|"
    rf"no way of)(?: \w+){{0,2}}? (?:say|tell|know|knowing|determine|confirm|recall|find|be sure)\b",
    rf"\bi (?:do not|don'?t|did not|didn'?t) (?:\w+ ){{0,3}}?(?:have|hold|keep|see|find)"
    rf"(?: \w+){{0,3}}? {_RECORD_NOUNS}\b",
    rf"\bi (?:have|'?ve|had) (?:got )?(?:no|not got|not any|zero)(?: \w+){{0,2}}? {_RECORD_NOUNS}\b",
    # J19.8 (revision 7): the system lacks the asked answer itself ("I don't have the guest list
    # order", "I don't hold the total", "I haven't got the name")
    r"\bi (?:do not|don'?t|did not|didn'?t|have not|haven'?t) (?:\w+ ){0,2}?(?:have|hold|got|keep) "
    r"(?:the|that|this|an?|any|your)(?: \w+){0,3}? (?:order|sequence|ranking|answer|total|sum|"
    r"figure|count|name|names|list)\b",
    rf"\bi(?:'?ve| have) no (?:way|means) (?:of|to)\b",
    r"\b(?:i'?m|i am|im)(?: \w+){0,2}? (?:not(?: \w+)? (?:sure|certain|aware|positive)|unsure|"
    r"uncertain)\b",
    r"\b(?:not (?:entirely |totally |completely |quite |fully |100% )?(?:sure|certain)|unsure|"
    r"uncertain)\b",
    rf"\bno (?:such |specific |further |relevant |clear |real |recorded )?{_RECORD_NOUNS}\b",
    r"(?<!\byou )(?<!\byou've )(?<!\byouve )(?<!\bwe )\b(?:wasn'?t|was not|weren'?t|were not|isn'?t|is not|"
    r"aren'?t|are not|hasn'?t been|has not been|haven'?t been|have not been|never been|never|not)"
    r"(?: \w+)? (?:mentioned|specified|stated|recorded|discussed|covered|noted|documented|"
    r"included|provided|given|clear|known|specified)\b",
    # J20.10 (revision 8): "not available" declines only about the record or the answer ("That
    # information is not available", "Not available."); "The plumber you asked for was not
    # available" speaks of the plumber
    rf"(?:\b(?:{_RECORD_NOUNS}|answer|that|this|it|which)(?: \w+){{0,2}}? (?:{_IS_NOT}|not|never been|"
    rf"hasn'?t been|has not been)(?: \w+)? |(?:^|(?<=[.!?;:\n(]))\W*not (?:\w+ )?)(?:available|"
    rf"accessible)\b",
    rf"\b{_RECORD_NOUNS} (?:is |was )?(?:not|un)available\b",
    rf"\b{_CONVERSATION_NOUNS} (?:do not|don'?t|does not|doesn'?t|did not|didn'?t|never|"
    rf"have not|haven'?t|has not|hasn'?t)(?: \w+){{0,2}}? (?:say|said|mention|mentioned|include|"
    rf"included|contain|contained|specify|specified|show|showed|cover|covered|state|stated|tell|"
    rf"indicate|reveal|record|recorded|have|name|give|touch|provide|provided|offer|specify)\b",
    rf"\bnothing(?: \w+){{0,3}}? (?:in (?:our|the|my|your|these|those) {_CONVERSATION_NOUNS}|"
    r"on (?:record|file)|(?:that )?i (?:can |could )?(?:recall|remember|see|find|know))",
    r"\bnot that i (?:know|recall|remember|can recall|can remember|am aware|'?m aware)\b",
    r"\bno (?:\w+ ){1,3}?(?:on record|on file|in (?:my|our|the) (?:notes|records|memory|memories|"
    r"conversations?|chats?|history))\b",
    r"\bnot something i (?:know|have|can)\b",
    r"\bi lack\b",
    r"\bi (?:do not|don'?t) have (?:\w+ ){0,6}?on (?:record|file)\b",
    r"\bi(?:'?ve| have)? (?:lost track|forgotten|forgot)\b",
    r"\b(?:slipped|escapes|escaped) my (?:mind|memory)\b",
    r"\b(?:i'?m|i am|i was) (?:\w+ )?(?:unable|not able) to\b",
    # J20.9 (revision 8): the same in the future or conditional ("I will not be able to provide
    # that information", "I won't be able to say")
    r"\bi(?:'ll| will| would| shall)?(?: \w+)? (?:not|won'?t|wouldn'?t|shan'?t) (?:\w+ )?be (?:able|in a "
    r"position) to\b",
    r"\bbeyond (?:what i know|my knowledge)\b",
    r"\bhard to say\b",
    r"\b(?:unknown|unclear|not known|dunno|idk|no idea|no clue|n/a|na)\b",
    # J13.1: the information, the record or the question as subject, with a lack or an
    # impossibility: "that detail isn't in my memory", "the information provided is not enough",
    # "there isn't enough information to say", "the question cannot be answered", "unanswerable"
    rf"\b{_RECORD_NOUNS}(?: \w+){{0,3}}? {_IS_NOT} (?:\w+ )?"
    r"(?:in|on|part of|among|anywhere in|available in|something in|recorded in) (?:my|our|the|your|"
    r"any) (?:\w+ )?(?:memory|memories|notes|records?|conversations?|history|chats?|messages|logs?)\b",
    rf"\b{_RECORD_NOUNS}(?: \w+){{0,3}}? {_IS_NOT} (?:\w+ )?(?:enough|sufficient)\b",
    rf"(?:\bnot|n'?t|\bnever) (?:\w+ )?(?:enough|sufficient) (?:\w+ )?{_RECORD_NOUNS}\b",
    rf"\binsufficient (?:\w+ )?{_RECORD_NOUNS}\b",
    r"(?:\b(?:question|this|that|it|answer)(?: \w+){0,2}? |(?:^|(?<=[.!?;:\n]))\W*)(?:cannot|can'?t|"
    r"can not|could not|couldn'?t) be (?:answered|determined|known|said|told|worked out|confirmed|"
    r"inferred)\b",
    r"\b(?:unanswerable|not answerable)\b",
    # "that hasn't come up (between us)": absence of a mention, never a not-yet
    r"\b(?:has|have|had|did|does|do)(?:n'?t| not) (?:ever |yet |really )?(?:come|came) up\b(?! yet\b)",
    r"\bnever (?:came|come|come) up\b",
    # "we" with the record ("we did not have that information", "we never got to that detail")
    rf"\bwe (?:do not|don'?t|did not|didn'?t|never|have not|haven'?t) (?:\w+ ){{0,2}}?(?:have|had|get|"
    rf"got|cover|covered|reach|reached|go into|went into)(?: \w+){{0,3}}? {_RECORD_NOUNS}\b",
    # J13.1 (revision 4): the conversation's own gaps, whatever the noun. "We" with a conversation
    # verb ("we never discussed it", "we never got to the prices", "that's not something we
    # covered") and a subject-less absence of a mention ("no X was mentioned", "no X has come up
    # between us") speak about the record, as "it was not mentioned" does (J1).
    rf"\bwe(?:'?ve| have| had)? (?:never|not|have not|haven'?t|had not|hadn'?t|did not|didn'?t) "
    rf"(?:ever |really |actually |yet )?{_CONVERSATION_VERBS}\b",
    rf"(?:\bnot|n'?t) (?:something|anything|a thing|a topic|a detail) (?:that )?we(?:'?ve| have)? "
    rf"(?:ever |really |actually )?{_CONVERSATION_VERBS}\b",
    rf"\bnothing (?:about (?:\w+ ){{0,4}}?)?(?:that )?we(?:'?ve| have)? (?:ever )?{_CONVERSATION_VERBS}\b",
    # the conversations as subject, or a topic absent from them ("our chats never got as far as
    # that", "kettles didn't feature in our conversations")
    rf"\b{_CONVERSATION_NOUNS} (?:never|didn'?t|did not|haven'?t|have not|hasn'?t|has not) "
    rf"(?:\w+ )?{_CONVERSATION_VERBS}\b",
    rf"(?:\bnever|n'?t|\bnot) (?:really |once |ever )?(?:feature|featured|figure|figured|appear|"
    rf"appeared|come up|came up|crop up|cropped up|turn up|turned up) (?:\w+ )?in (?:any of )?"
    rf"(?:our|the|my|these|those) {_CONVERSATION_NOUNS}\b",
    rf"\b(?:no (?!one\b|body\b)|nothing )(?:\w+ ){{0,6}}?(?:has|have|had|was|were|is|are|got)? ?(?:ever |yet |really |"
    rf"actually )?(?:been )?(?:mentioned|discussed|brought up|come up|came up|specified|recorded|"
    rf"noted|named|raised|stated|covered|talked about)\b",
)
"""J1: the system speaks about its own knowledge or the record."""

BOUND_NO_NOUN = (
    r"(?:^|(?<=[.!?;:\n(]))\W*no (?!(?:idea|information|info|record|records|details?|data|clue|"
    r"mentions?|one|body|way|problem|worries|longer|more|doubt|wait|sorry|thanks|thank)\b)"
    r"(?:[a-z][\w-]* ){0,2}?[a-z][\w-]*(?:\W*$|\W*[.!;\n]| (?:was|were|has been|have been|had "
    r"been|got|is|are)(?: (?:ever|actually|really|ever actually))? [a-z]+(?:ed|en|t|ght|ne|de)\b)"
)
"""J20.5 (revision 8): "No <noun>." alone, or "No <noun> was <participle>", as the answer's
sentence — a denial when the clause names a word of the question (any inflection), otherwise
nothing ("No worries.", "No sugar was added." on a gym question)."""
DENIAL_PATTERNS: tuple[str, ...] = (
    rf"\b(?:you|we)(?:'?ve| have| had|'?d)? (?:never|not|have not|haven'?t|had not|hadn'?t|did not|"
    rf"didn'?t|do not|don'?t|does not|doesn'?t)(?: \w+){{0,2}}? {_HISTORY_VERBS}\b",
    r"\byou(?:'?ve| have)? (?:never|haven'?t|have not|didn'?t|did not) \w+",
    r"\byou (?:have|'?ve got|'?ve) (?:no|none)\b",
    r"\bthere(?:'?s| is| are| was| were) (?:no|not any|nothing|none)\b",
    r"\bthere (?:isn'?t|aren'?t|wasn'?t|weren'?t) (?:any|a|an|one|anyone|anybody|anything)\b",
    r"(?:\bnot|n'?t) something you(?:'?ve| have)? (?:ever )?(?:told|mentioned|discussed|shared|said)",
    # "you're not renting from anyone", "you aren't using one": the user's act or state negated
    r"\byou(?:'?re| are) (?:not|never) (?:\w+ )?\w+ing\b",
    r"\byou aren'?t (?:\w+ )?\w+ing\b",
    r"\b(?:nobody|no one|no-one|none|nothing|never|neither)\b",
    # J13.2: hedged denials ("I don't think you ever told me", "it doesn't look like you've said")
    rf"\bi (?:do not|don'?t|did not|didn'?t) (?:think|believe|reckon|suppose)(?: that)? (?:you|we|i|"
    rf"either of us|anyone)(?:'?ve| have| had|'?d)? (?:ever |actually |really |once |already )?"
    rf"(?:{_HISTORY_VERBS}|recommended|suggested|proposed)\b",
    rf"\b(?:it|this|that) (?:doesn'?t|does not|did not|didn'?t) (?:look|seem|appear|sound) "
    rf"(?:like|as if|as though|that) (?:you|we)(?:'?ve| have| had)? (?:ever |actually |really )?"
    rf"{_HISTORY_VERBS}\b",
    # J20.7 (revision 8): a third person's telling negated ("The user did not mention it.",
    # "Caroline never mentioned a trip", "she didn't say"): the datasets' "you never told me"
    rf"\b(?!(?:i|you|we|it|this|that|there|which|who|what|conversations?|chats?|text|history|"
    rf"records?|notes|context|sessions?|dialogues?|documents?|passages?|and|or|but|so)\b)"
    rf"[a-z][\w'-]*(?:'?ve| has| have| had)? (?:never|did not|didn'?t|has not|hasn'?t|have not|"
    rf"haven'?t|had not|hadn'?t)(?: \w+)? (?:mention|mentioned|say|said|specify|specified|state|"
    rf"stated|talk about|talked about|discuss|discussed|bring up|brought up|share|shared)\b",
    # J20.5 (revision 8): "No washing machine was installed.", "No supermarket." — a sentence
    # opening with "no" + a noun phrase, either alone or as the subject of a passive; bound to the
    # question like the bare negated act (see BOUND_DENIAL_PATTERNS)
    BOUND_NO_NOUN,
)
"""J2: a claim that the thing does not exist or never happened."""

META_PREDICATE = (
    r"\b(?:answer|answers|answered|answering|question|questions|response|responses|reply|replies|"
    r"replied|respond|responded|responding|prompt|instruction|instructions|task|(?:been|being|was|"
    r"were) asked|asked (?:\w+ )?to (?:answer|provide|respond|reply|give|choose|tell|say)|provide(?:d)? "
    r"(?:\w+ ){0,2}?(?:information|details|data))\b"
)
"""J13.3 (revision 5): a negated predicate about the exchange itself — answering, the question,
being asked, providing a response or information — is a meta-sentence, not a denial of the asked
fact ("You have not answered the question.", "You haven't been asked to provide a response.")."""

TELLING_TO_ME = (
    r"\b(?:told|tell|mentioned|mention|said|say|shared|share|brought up|bring up|talked about|"
    r"named|specified|let me know|filled me in)\b"
)
"""J2 (revision 5): the telling of the fact — a denial may negate it rather than the act."""

_YOU_NEG = (rf"you(?:(?:'?ve| have| had|'?d)? {_NEG}| (?:haven'?t|have not|hadn'?t|had not|"
            rf"weren'?t|were not|aren'?t|are not|'?re not))")
TAUTOLOGY = (
    rf"\b{_YOU_NEG} ((?:\w+ ){{0,2}}?\w+)\b[^.!?;\n]{{0,80}}?"
    rf"\b(?:that|which|who|whom) {_YOU_NEG} \1\b"
)
"""J2 (revision 5): "you did not turn down the X that you did not turn down" denies nothing: the
relative clause repeats the negated predicate, so the sentence is true of anything."""

HEDGED_COMMITMENT_PATTERNS: tuple[str, ...] = (
    r"\b(?:probably|most likely|likely|presumably|perhaps it|my (?:best )?guess(?: is|would be)?|"
    r"i(?:'?d| would) (?:say|guess)|i (?:think|believe|guess|suspect) (?:it|that)(?:'?s| is| was)|"
    r"it (?:might|may|could|would) (?:be|have been))\b",
)
"""J3.2: a hedge that still commits ("probably X"). Bare "maybe" is left out: polite declines use it
("maybe you told someone else"); a hedge in the same clause as a decline or a denial ("you probably
never told me") qualifies that negative and commits to nothing."""

COMPLEMENT_OPENERS = r"(?:\w+ ){0,3}?(?:whether|if|who|whom|which|what|when|how)\b"
"""J3.2: words after a decline that open its complement; values there are not committed."""

RETRACTING_PREFIXES: tuple[str, ...] = (
    "not", "never", "isn't", "isnt", "wasn't", "wasnt", "aren't", "arent", "weren't", "werent",
    "rather than", "instead of", "as opposed to", "other than", "not the", "not a", "not an",
    "took over from", "taking over from", "takes over from", "replaced", "replacing", "in place of",
    "not to be confused with", "previously", "formerly", "the old one was", "used to be",
)
"""J3.3: a value directly after one of these (within two words, same clause) is retracted."""

CORRECTION_MARKERS: tuple[str, ...] = (
    r"sorry", r"no wait", r"wait", r"actually", r"i mean", r"or rather", r"correction",
    r"scratch that", r"my mistake", r"i misspoke", r"let me correct",
)
"""J3.3: "X — sorry, Y": a value before one of these is retracted when a key value follows it."""

CLAUSE_BREAK = r"[,;.!?:()\n\u2014\u2013]|\s-\s|\b(?:but|however|though|although|whereas|so|because|and)\b"
SENTENCE_BREAK = r"[.!?;\n]|\bbut\b"

# Polarity of yes/no and state questions (J4.2, J5, J6).
NOT_DUE_PATTERNS: tuple[str, ...] = (
    r"\bnot yet\b",
    r"\b(?:isn'?t|is not|not|aren'?t|are not|wasn'?t|was not)(?: \w+)? due\b",
    r"\bnothing(?: is|'?s)?(?: \w+)? due\b",
    r"\b(?:not|isn'?t|is not) (?:until|till)\b",
    r"\bnot for (?:another|a few|some|a while)\b",
    r"\bhas(?:n'?t| not) (?:yet )?come (?:up yet|due|round|around)\b",
)
"""The narrow not-yet of a reminder (J4.2): a clock-blind "Not yet" on a due after-arm."""

STILL_TO_COME_PATTERNS: tuple[str, ...] = (
    *NOT_DUE_PATTERNS,
    r"\b(?:still to come|still ahead|coming up|upcoming|yet to come|hasn'?t come|has not come)\b(?! up\b)",
    r"\byou (?:haven'?t|have not|didn'?t|did not) (?:\w+ )?(?:booked|hired|arranged|scheduled)\b",
    r"\b(?:nothing|no one|nobody|none)(?:'?s)?(?: \w+){0,8}? (?:yet|so far|as yet)\b",
    r"\b(?:there is|there's|there are) no(?: \w+){1,3} yet\b",
    r"\byou (?:haven'?t|have not) (?:\w+ ){0,3}?yet\b",
)
"""J5 never-known: "Not yet, it's still to come" (or "nothing is booked yet") commits to a state
the gold says is not known."""

NOT_YET_PATTERNS: tuple[str, ...] = (
    *NOT_DUE_PATTERNS,
    r"\b(?:hasn'?t|has not|haven'?t|have not|didn'?t|did not|isn'?t|is not|not|nothing|no one|"
    r"nobody|none)(?:'?s)?(?: \w+){0,8}? yet\b",
    # J19.1 (revision 7): subject-less "nothing's been booked so far", "no one's been hired as yet"
    r"\b(?:nothing|no one|nobody|none)(?:'?s)?(?: \w+){0,8}? (?:so far|as yet)\b",
    r"\byou (?:haven'?t|have not|didn'?t|did not|never) (?:\w+ )?(?:booked|hired|arranged|"
    r"scheduled|done|started|got round to|gotten round to)\b",
    r"\b(?:hasn'?t|has not|haven'?t|have not|hadn'?t|had not)(?: \w+)? (?:started|begun|happened|"
    r"arrived|come(?! up\b)|lapsed|expired|ended|run out|passed|taken place|finished)\b",
    r"\byet to\b",
    r"\b(?:due later|later on|comes later|for later|until later|in the future|still ahead|"
    r"still to come|still pending|upcoming|coming up)\b",
    r"\b(?:still|remains?|is) (?:valid|current|active|in effect|in force|good|covered|running)\b",
)
"""J6: the before-arm gold's polarity — the thing has not happened or not run out yet."""

FIRED_PATTERNS: tuple[str, ...] = (
    r"(?<!not )(?<!n't )\b(?:it'?s|it is|is|are|now|already|they'?re|that'?s) (?:now |already )?"
    r"(?:due|overdue)\b",
    r"\bdue (?:now|today|already)\b",
    r"\boverdue\b",
    r"\bit'?s time\b",
    r"\btime to (?:call|ring|phone|contact|book|do|deal)\b",
    r"\b(?:call|ring|phone|contact) (?:\w+ ){0,3}?(?:now|today|right away|straight away)\b",
    r"\bgo ahead\b",
    r"\bdon'?t forget\b",
    r"\b(?:has|have|had|it'?s) (?:already |now )?(?:lapsed|expired|ended|run out|started|begun|"
    r"happened|come due|arrived)\b",
    r"\bno longer (?:valid|current|active|in effect|in force)\b",
    r"\b(?:is|it'?s|now) (?:invalid|void|out of date|expired|lapsed)\b",
    r"\byou(?:'?ve| have)? (?:already )?(?:booked|did book|went ahead)\b",
    r"\b(?:is|was|are|were|got|has been|have been) (?:already )?booked\b",
    r"\bwent ahead\b",
)
"""J6: the not-yet treated as already true, or the reminder fired."""

LEADING_YES = r"^(?:yes|yep|yeah|yup|correct|indeed)\b"
LEADING_NO = r"^(?:no|nope|not really)\b(?! one\b)"
"""J6: an opening yes or no takes its polarity from the question ("is it due yet?" — "Yes" fires;
"is it still valid?" — "Yes, still valid" does not), so it decides only when no explicit cue
follows it: "Yes, it's due now" fires through "due now", "Yes, X's cover is still valid" does not."""

INVALIDATION_STATE_CUES: tuple[str, ...] = (
    "no longer", "not any more", "not anymore", "anymore", "any more", "any longer",
    "used to", "previously", "formerly", "former", "in the past", "was current", "not current",
    "isn't current", "no longer valid", "not valid", "isn't valid", "void", "out of date",
    "outdated", "is gone", "it's gone", "are gone", "past",
    "not your", "not yours", "isn't yours", "is over", "it's over", "doesn't cover you",
    "does not cover you", "no more",
)
"""J5: invalidation stated as a state; they carry their own negation and are never negated."""

NO_LONGER_EVENT_CUES: tuple[str, ...] = (
    "lapsed", "expired", "ended", "cancelled", "canceled", "sold", "gave away", "gave it away",
    "returned", "gave back", "gave it back",
    "gave them away", "given away", "gave up", "gave it up", "parted with", "let go", "let it go",
    "let them go", "got rid of", "gotten rid of", "moved on from", "dropped", "stopped", "quit",
    "closed", "terminated", "discontinued", "replaced", "switched from", "ditched", "sold off",
    "is finished", "it's finished", "finished now", "now finished", "ran out", "run out",
    "came to an end", "come to an end", "selling",
)
"""J5: invalidation stated as an event; a negated one ("hasn't lapsed") asserts the opposite."""

INVALIDATION_EVENT_PATTERNS: tuple[str, ...] = (
    r"\b(?:gave|given|give) (?:\w+ ){1,4}?(?:away|up)\b",
    r"\b(?:let|letting) (?:\w+ ){1,4}?go\b",
    r"\b(?:sold|cancelled|canceled|dropped|ditched) (?:\w+ ){1,4}?off\b",
    # J13.8: gone in any person ("that's gone now", "they've gone")
    r"\b(?:that|it|they|this|she|he)(?:'?s| is| has| are|'?re|'?ve| have) (?:now |long |since |all )?gone\b",
    # J13.8: the holder negated as current ("X isn't your upholsterer now", "they are not your
    # landlord any more")
    r"\b(?:isn'?t|is not|aren'?t|are not|'?s not|'?re not) (?:your|yours)\b(?: \w+){0,3}? "
    r"(?:now|any ?more|these days|at the moment|currently|nowadays|today)\b",
)
"""J5: event cues split by their object ("you gave the Zendak Sengat away")."""

NEGATED_EVIDENCE = (
    r"\b(?:nothing (?:\w+ )?(?:suggests|indicates|shows|says|implies|points to|tells me)|"
    r"no (?:sign|signs|indication|evidence|suggestion|hint|hints|reason to think|reason to believe)"
    r"(?: at all)? (?:\w+ )?(?:that|of)|"
    r"(?:i )?(?:don'?t|do not|can'?t|cannot) see (?:any(?:thing)?|no) (?:\w+ )?(?:that|sign|indication|"
    r"suggestion))\b"
)
"""J21.3 (revision 9): a negated claim of evidence before an invalidation cue in its clause
("Nothing suggests you've sold it", "there's no sign that you replaced it") negates the cue: the
fact is asserted still to hold (J13.8)."""
NEGATED_COORDINATION = r"^(?: [\w']+){0,3}?,? (?:or|nor) (?:[\w']+ ){0,2}?$"
"""J21.3 (revision 9): a cue coordinated by *or / nor* with a negated cue shares its negation
("you haven't sold it or replaced it", "never sold nor gave it away")."""
NEGATORS: tuple[str, ...] = (
    "not", "never", "cannot", "neither", "nor", "hasnt", "havent", "hadnt", "isnt", "wasnt",
    "arent", "werent", "didnt", "dont", "doesnt", "wont", "no", "nothing", "none", "nobody",
)
NEGATION_WINDOW = 3
"""An event cue is negated by a negator (or any "n't" word) within this many words before it in
its clause. Plain "no" counts only when it is not the answer's opening word ("No, you sold it")."""

STILL_CUES: tuple[str, ...] = (
    "still", "remains", "is current", "it's current", "that's current", "still current",
    "still valid", "still have", "kept", "stayed with", "stuck with", "carried on with",
)
"""J5: affirming the fact still holds."""


RETRACT_INTO_DECLINE = (
    r"(?:\bno,? (?:sorry|wait)|\bscratch that|\bactually|\bon second thought|\bforget that)\b"
)
"""J13.3: "X — no, sorry, I don't actually know": a value before one of these is retracted when a
decline follows it (the answer declines)."""

REPORTED_DECLINE = (
    r"(?:\bnot|n'?t|\bnever|\brather than|\binstead of|\bthan|\bwithout|\bunlike)\b[^.!?\"]*?"
    r"\b(?:say|saying|said|answer|answering|reply|replying|write|writing|just)\b[\s,:]*$"
)
"""J13.3: a quoted decline the answer sets apart ("That is not the same as saying, \"I do not have
that information.\"") is not the answer's decline."""

TASK_NARRATION = (
    r"\b(?:you are|you'?re|you have been|you'?ve been|you were) (?:being )?asked to (?:answer|respond|"
    r"reply|provide|choose|give|say)\b|\b(?:you|the assistant) can (?:reply|respond|answer) with\b|"
    r"\b(?:your|the user'?s|the assistant'?s) (?:response|reply) (?:is|should be|will be|must be)\b|"
    r"\bin the format of\b"
)
"""J20.11 (revision 8): a narration of the task (J13.3's role confusion): a quoted or bracketed
decline after it is the narrated response, not the answer's own."""
NAME_FORM_EXCLUDED: tuple[str, ...] = (
    "the", "and", "of", "us", "both", "days", "day", "purchases", "times", "hardware", "joinery",
    "roofing", "plumbing", "electrics", "electrical", "glazing", "locksmiths", "motors", "removals",
    "upholstery", "tiling", "builders", "garage", "dental", "optics", "opticians", "services",
    "studio", "salon", "clinic", "surgery", "limited", "ltd", "sons", "company", "hotel", "house",
)
"""J13.13: words of a key value that are never a name form on their own (trades, articles)."""
NAME_FORM_MIN_CHARS = 4

RELATIONS = (
    r"(?:sister|brother|mother|father|mum|mom|dad|partner|husband|wife|friend|neighbour|neighbor|"
    r"cousin|colleague|boss|son|daughter|aunt|uncle|niece|nephew|flatmate|housemate|roommate|"
    r"grandmother|grandfather|gran|granny|grandad|grandpa|fiance|fiancee|in-laws?|parents?|kids?|"
    r"children|family|team|landlord|landlady)"
)
_SOURCE_NOUNS = (r"(?:own|advice|suggestion|suggestions|recommendation|recommendations|tip|tips|"
                 r"idea|say-so|request|insistence|urging|word|prompting|nudge)")
OWNER_ALONE_PATTERNS: tuple[str, ...] = (
    rf"\b(?:your|my|his|her|their|the) {RELATIONS}(?:'?s|s')(?=\s*(?:[,.;!?)|]|$))",
    r"\b(?:hers|theirs|someone else'?s|somebody else'?s)\b",
    rf"\b(?:your|my|his|her|their|the) {RELATIONS}(?: (?:from|at|in|of|on) \w+(?: \w+)?)'?s\b(?! own\b)",
    r"\bhis\b(?=\s*(?:[,.;!?)|]|$|,? not\b|and\b))",
    # J18.4: "not yours any more / now" is the user's loss, an invalidation, not another owner
    r"\bnot (?:yours|your own)\b(?! ?(?:any ?more|any longer|now|these days|nowadays))",
    r"\b(?:belongs|belonged) to\b",
)
"""J13.5: an owner named on its own — "(your partner's)", "that one is hers", "his, not yours" —
read in a clause that annotates a value as well as in the value's own segment."""
OTHER_HOLDER_PATTERNS: tuple[str, ...] = (
    rf"\b(?:your|my|his|her|their|the) {RELATIONS}(?:'?s|s')(?! {_SOURCE_NOUNS}\b)",
    # a relation as the holder, with up to three words of description between ("your friend from
    # work has X")
    rf"\b(?:your|my|his|her|their|a|the) {RELATIONS}(?: (?!and\b|or\b|but\b)\w+){{0,3}}? "
    r"(?:has|had|have|bought|kept|keeps|chose|picked|gave|went|uses|used|got|owns|owned|suggested|"
    r"recommended|mentioned|parted|sold|is|was|thought|considered|booked|hired|rents|rented|liked|"
    r"likes|wanted|wants)\b",
    r"\b(?:belongs|belonged) to\b",
    r"\bby (?:someone|somebody) else\b",
    r"\b(?:she|he|they|someone|somebody|someone else) (?:has|have|had|bought|kept|owns|owned|chose|gave|"
    r"sold|uses|used|installed|picked|got|rents|rented|hired|booked)\b",
    # "her" as an object pronoun ("you let her go", "gave her up", "dropped her off") is no owner
    # (J19.7)
    # nor after a preposition of order ("before her X", "after him Y", J13.11 narrations)
    r"(?<!\bbefore )(?<!\bafter )(?<!\bbehind )(?<!\bthan )(?<!\bthen )"
    r"\b(?:her|his|their) (?!(?:go|up|away|down|off|out|back|in|a|an|the|that|this)\b)(?=\S)",
    # possessive pronouns standing alone: "that one is hers", "was his, not yours"
    *OWNER_ALONE_PATTERNS,
)
"""J13.5/J13.6: a segment that speaks of another holder's thing ("your sister's Oratra", "your
friend from work has X", "that one is hers", "the X someone sold was his, not yours")."""
OTHER_ITEM_PATTERNS: tuple[str, ...] = (
    r"\b(?:as|for) (?:a|an|the|your|my) (?:own )?(?P<item>(?:\w+ ){0,2}?\w+)",
    r"\b(?:a|an|your|the) (?P<item2>\w+) (?:for|at|on) the \w+",
    # "only a physio (X)", "the only tradesperson you mentioned was X", "but that's a camera",
    # "X, your osteopath": a value bound to a role or kind of its own
    r"\b(?:only|just|merely|simply) (?:a|an|the|your|my) (?P<item3>\w+)",
    r"\bthe only (?P<item4>\w+)",
    r"\b(?:that|this|it|which|who|she|he)(?:'?s| is| was| were| are) (?:just |only |actually )?"
    r"(?:a|an|the|your|my) (?P<item5>(?:\w+ )?\w+)(?=\s*(?:[,.;!?)|]|$))",
    r", (?:your|my|the) (?P<item6>\w+)\s*$",
    # "X is your electrician", "X was the chimney sweep for the cottage"
    r"\b(?:is|was|are|were) (?:just |only |actually )?(?:your|my|the|a|an) (?P<item7>(?:\w+ )?\w+)"
    r"(?=\s*(?:[,.;!?)|]|$|\bfor\b|\bat\b|\bon\b))",
    # "as chimney sweep for the cottage"
    r"\bas (?P<item8>\w+(?: \w+)?) for (?:the|your|my)\b",
    # J18.6 (revision 6): a kind as the subject of a value ("Your physio was X", "my plumber is
    # X"): the value, and the state cues bound to it, are about that kind
    r"(?:^|\||\b(?:that|says|said|shows|showed|notes|noted|recalls|mentions))\W*(?:your|my) (?P<item9>[a-z]+(?: [a-z]+)?) (?:is|was|were|are|has been|had been)"
    r" (?=[\w\"'])",
)
"""J13.5: an item a segment names (a role, a kind or a purpose: "as a podiatrist for the heel", "a
plumber for the boiler", "only a physio", "that's a camera"). The segment is about another item
when the named item's words are not the question's and none of the question's item words is in
it. Words of a key value, names written with a capital, and the fillers below are never items."""
BRACKET_KIND = r"^\W*(?:your|my|a|an|the|his|her|their) (?P<item>(?:[a-z]+ ){0,2}?[a-z]+)\W*$"
"""J13.5: a bracket after a value that is nothing but a noun phrase — "(your riding instructor)" —
binds the value to that kind (read only for a value-less bracket that follows a value)."""
INTERROGATIVE = (
    r"(?:^|(?<=[.!?\n]))\W*(?:have|has|had|did|do|does|is|are|was|were|will|would|can|could|"
    r"should|shall|am)(?:n'?t)? (?:\w+ )?(?:you|i|we|they|it|he|she|anyone|anybody|someone|"
    r"somebody|there|that|this)\b[^.!?\n]*\?"
)
"""J20.1 (revision 8): an auxiliary-first sentence ending in "?" — a question restated or asked
back — asserts no polarity (J6)."""
NEGATED_KIND = (
    r"\b(?:not|never|rather than|instead of|unlike) (?:the|your|my|a|an|his|her|their) "
    r"(?:[a-z]+ ){0,2}?[a-z]+(?=\s*(?:[,.;!?)|]|$))"
)
"""J20.4 (revision 8): a kind the value is said *not* to be ("X is your upholsterer, not the
electrician"): its words do not bind the segment to the asked item."""
ITEM_FILLERS: tuple[str, ...] = (
    "one", "ones", "same", "thing", "things", "right", "correct", "answer", "name", "current",
    "latest", "newest", "last", "first", "best", "very", "own", "only", "other", "new", "usual",
    "brand", "model", "make", "choice", "pick", "option", "record", "note", "notes",
    "detail", "details", "plan", "booking", "suggestion", "recommendation", "time", "day", "moment",
    "while", "bit", "few", "couple", "lot", "start", "reason", "way", "case", "fact", "week",
    "month", "year", "minute", "second", "weeks", "months", "years", "days", "now", "yet",
    "ago", "back", "since", "before", "earlier", "later",
    "end", "beginning", "start", "weekend", "least", "most", "outset", "point", "rate",
    "bet", "guess", "winner", "match", "candidate", "favourite", "favorite", "go-to", "well",
    "same one", "case", "idea", "thing", "lot",
    # J21.6 (revision 9): adjectives of time name no kind ("your previous one was X")
    "previous", "former", "old", "earlier", "prior", "original", "outgoing", "next", "past",
)
"""J13.5: words an item pattern captures that name no kind of thing ("that's the one you chose")."""
EARLIER_ADVERB = (
    r"\b(?:before|earlier|back then|in those days|at one time|at first|originally)"
    r"(?=\s*(?:[,.;!?)\n\u2014\u2013]|$|\b(?:but|though|although|whereas|while|so|and)\b))"
)
"""J21.2 (revision 9): an adverb that puts a value's clause at an earlier time ("X did the wall
before, but I can't say who does it these days"): another time (J13.6)."""
_USER_DECLINED = (
    r"(?:turned (?:\w+ ){0,3}?down|declined|rejected|refused|decided against|passed on|ruled out|"
    r"bowed out|backed out|pulled out|opted out|dropped out|steered clear|stayed away|kept away|"
    r"walked away|said no|gave (?:it|them|that|those) a miss|went elsewhere|went with someone else|"
    r"never went ahead|gave up on|give up on|giving up on|"
    r"never (?:actually |really |quite |ended up |then )?(?:did|got (?:round|around) to|went ahead|"
    r"went with|bought|booked|ordered|subscribed|signed|hired|engaged|paid|picked|chose|took (?:it|them|"
    r"that|those) up|committed|installed|followed through|made it)|"
    r"(?:almost|nearly) (?:set|booked|bought|ordered|hired|picked|chose|went with|signed)|held off|"
    r"(?:weren'?t|wasn'?t|were not|was not|aren'?t|are not|not) (?:very |really |that |too |so )?"
    r"(?:keen|interested|sold on|convinced|fussed|happy with|taken with)|"
    r"a (?:no|pass|hard no) from you|vetoed|nixed|binned|"
    r"(?:didn'?t|did not|never) (?:fancy|fancied|warm to|take to)|holding off|put (?:it |that |them )?off|shelved|skipped|let (?:it|that) pass|"
    r"only (?:asked|looked|enquired|inquired|thought|wondered|considered|browsed|mentioned|priced|"
    r"shortlisted|compared)|"
    r"(?:didn'?t|did not|never|wouldn'?t|would not|chose not to|decided not to) (?:end up |actually |"
    r"really |then |ever )?(?:go with|go for|go ahead|take|took|pick|choose|want|book|hire|buy|"
    r"accept|follow|keep|sign|engage|commit|proceed|use|like|fit))"
)
CONTRAST_PATTERNS: tuple[str, ...] = (
    # the user's act was not completed or went the other way (any negative-outcome predicate)
    rf"\b{_USER_DECLINED}\b",
    r"[\u274c\u2717\u2718\U0001f44e\u26d4\U0001f6ab]",
    # another holder's act: a relation as the subject of any verb ("your sister installed X",
    # "the Zenix your partner ordered"); read for the value's own clause only
    rf"\b(?:your|my|his|her|their|a|the) {RELATIONS}(?: (?!and\b|or\b|but\b)\w+){{0,3}}? "
    r"(?:\w+ed|\w+s|has|had|is|was|got|went|bought|chose|gave|sold|thought|kept)\b",
    # another time: the value held before, or holds only later
    r"\b(?:the|an?|your|my|his|her|their) (?:old|older|earlier|previous|former|original|prior|"
    r"outgoing) (?!(?:chats?|conversations?|sessions?|messages?|notes?|discussions?|exchanges?|"
    r"questions?)\b)(?P<noun>\w+)",
    r"\b(?:the|an?|your|my) (?:first|last) (?:one|ones|reminder|reminders|plan|cover|covers|"
    r"suggestion|booking|idea|pick|choice)\b",
    r"\b(?:years|months|weeks|long) (?:ago|back)\b",
    r"\bbefore that\b", r"\bpast (?:states?|ones?)\b",
    # J21.2 (revision 9): an adverb of earlier time closing the value's clause ("X did the boundary
    # wall before, but …", "X had it back then"); a telling's time ("as I said before") is not it
    EARLIER_ADVERB,
    r"\b(?:used to|formerly|previously|originally|at one point|once upon)\b",
    r"\b(?:doesn'?t|does not|won'?t|will not|isn'?t|is not|didn'?t|did not)(?: \w+){0,3}? (?:until|till)\b",
    r"\b(?:takes?|taking|will take|is taking) over (?:later|next|from|after|in|on|at|once|when|soon)\b",
    r"\bonly takes? over\b",
    # someone else's guess or idea, or explicitly not this one
    rf"\b(?:your|my|his|her|their) {RELATIONS}(?:'s)? (?:guess|idea|suggestion|thinks|assumes|believes)\b",
    r"\b(?:thinks|guessed|assumes|believes) you\b",
    r"\b(?:your|my) own idea\b", r"\bnot (?:yours|mine|the one)\b", r"\bsomething else\b",
    r"\b(?:my|the) (?:first|earlier|original|initial) suggestion\b",
    # J18.3 (revision 6): a rejection predicate with a pronoun object standing for the value
    # ("you ruled that one out", "you said no to it", "you weren't having it", "knocked it back")
    *(r"\b(?:ruled|rules|rule|ruling|turned|turns|turn|turning|knocked|knocks|knock|knocking|shot|"
      r"shoots|shoot|talked|crossed|struck|scratched) "
      r"(?:it|that|this|them|those|these|him|her)(?: one| ones| idea| option| firm| name)? "
      r"(?:out|down|back|off)\b",
      r"\b(?:vetoed|nixed|rejected|refused|scotched|said no to|says no to|"
      r"knocked back|shot down|crossed off|struck off|turned your nose up at|"
      r"balked at|baulked at|drew the line at|passed over)\b",
      r"\b(?:went|gone|going) off (?:it|that|them|him|her|the idea)\b",
      r"\b(?:wasn'?t|weren'?t|was not|were not) (?:having|keen on|going for|sold on) "
      r"(?:it|that|them|any of it|any of that|the idea)\b",
      r"\bwould(?:n'?t| not) (?:hear of|have|entertain|consider) (?:it|that|them|him|her)\b"),
    # J18.3: another time — a value introduced as an earlier idea in the pluperfect ("Earlier I
    # had floated X", "I'd originally suggested X"), or held only for a while ("X is only covering
    # until Y takes over", "X is just standing in")
    r"\b(?:earlier|at first|initially|originally|first|before that|previously),? (?:on,? )?"
    r"(?:i|you|we)(?: had|'?d) (?:\w+ )?(?:floated|suggested|proposed|pitched|put forward|"
    r"considered|recommended|raised|mentioned|named|offered)\b",
    r"\b(?:i|you|we)(?: had|'?d) (?:earlier |first |originally |initially |once )(?:floated|"
    r"suggested|proposed|pitched|put forward|considered|recommended|raised|mentioned|named|offered)\b",
    # J19.7 (revision 7): another role — the person who recommended, suggested or pointed the
    # user to the thing ("X is the one who recommended it to you", "X put you on to it")
    r"\b(?:is|was|'s) (?:the one|the person|who) (?:who |that )?(?:first )?(?:recommended|suggested|"
    r"pointed you|put you on(?:to| to)|told you about|tipped you off|mentioned|sold|lent|gave|"
    r"introduced)\b",
    r"\b(?:recommended|suggested|lent|sold) (?:it|that|them|this|one|the \w+) to you\b",
    r"\bput you on(?:to| to) (?:it|that|them|this)\b",
    # J19.4 (revision 7): "switched / moved / changed from X (to Y)": X is the earlier holder;
    # "dropped X", "ditched X" after another choice: the user's act gone the other way
    r"\b(?:switched|switching|moved|moving|changed|changing|swapped|swapping|went over|came over) "
    r"(?:over |across )?(?:away )?from\b",
    # J20.3 (revision 8): "moved off / came off / got off X" — X is what the user left
    r"\b(?:moved|moving|came|coming|got|getting|switched|switching) (?:off|away from|out of)\b",
    r"\b(?:dropped|ditched|binned off|cut loose)\b",
    r"\b(?:only|just|merely|simply) (?:covering|standing in|filling in|stepping in|holding the fort|"
    r"deputising|deputizing|minding (?:it|things)|a stand-in|a stopgap|temporary|interim)\b",
)
"""J13.6: a segment (with what annotates it: a bracket, a value-less clause after it) that marks its
value as not the answer — the user's act not completed (turned down, bowed out, steered clear,
only asked, didn't go with, ❌), another time (the old one, used to, until X took over, X doesn't
take over until later), someone's guess, not yours, something else. Its values are context, not a
second commitment."""
PAST_SUCCESSION = (
    r"\b(?:took over|stepped in|replaced|came (?:in|along|on board)|started|began|arrived|joined|"
    r"moved in|returned|kicked in|was (?:hired|booked|brought in|engaged|taken on))\b"
)
"""J21.4 (revision 9): "X, until Y took over": the until-segment states a succession that has
happened; where the answer names Y again outside it ("so it's Y now"), X is the earlier holder."""
OWN_CONTRAST_PATTERNS: tuple[str, ...] = (
    r"^\W*(?:until|till|up until|up to when)\b",
)
"""J13.6: marks only the values of its own segment ("Bartek Pellow, until Idris took over": Idris
is the later holder); never passed back to the value before it ("X, until next week")."""
USER_OWN_PATTERNS: tuple[str, ...] = (
    r"\byourself\b", r"\b(?:on|of) your own\b",
    r"\byour own (?:idea|choice|find|pick|research|suggestion|shortlist|search)\b",
    r"\byou(?:'?d| had| have|'?ve)?(?: \w+)? (?:been )?(?:looking at|considering|thinking (?:of|about)|"
    r"eyeing|had your eye on|found|came across)\b",
)
"""J13.6: on a question about what the assistant recommended or said, a value the answer binds to
the user's own finding or choice is another actor's, not the asked recommendation."""
ASKS_ASSISTANT = r"\b(?:did|have) you (?:\w+ )?(?:recommend|suggest|propose|advise|mention|say|tell)"
"""Questions about the assistant's own act ("Which plumber did you recommend …?")."""
QUESTION_ITEM = (
    r"^(?:which|what|whose) (?P<item>(?:[a-z]+ ){0,2}?[a-z]+) (?:do|did|have|has|is|was|will|am)\b"
    r"|\b(?:after|about) the (?P<item2>(?:[a-z]+ ){0,2}?[a-z]+?)(?= at the| for the| in| due|\?|$)"
)
PLACE_PHRASE = r"\b(?:for|at) (?:the|your|my) (?P<place>[a-z]+(?:'s)?(?: [a-z]+)?)"
"""J13.5: where a value is said to be ("for the shed", "at the guesthouse"). In an answer, a place
none of whose words is the question's binds the value to another instance, when the question
names a place of its own."""
SEGMENT_BREAK = (r"[.;!?\n()\u2014\u2013]|\s-\s|,? but\b|, and\b|, whereas\b|, while\b|"
                 r", (?=(?:until|till)\b)")
QUESTION_STOPWORDS: tuple[str, ...] = (
    "which", "what", "who", "whom", "whose", "when", "where", "how", "have", "has", "had", "i",
    "you", "me", "my", "do", "does", "did", "is", "was", "the", "a", "an", "and", "or", "for", "at",
    "in", "on", "of", "to", "that", "this", "it", "give", "name", "say", "whether", "still",
    "current", "valid", "yet", "now", "from", "told", "with", "about", "will", "be", "than",
    "more", "much", "many", "times", "days", "ago", "after", "looking", "looks", "both", "us",
    "said", "order", "anyone", "any", "not", "turn", "down", "due", "reminder", "cover", "call",
)
"""Words of a question that do not name its item."""

SUBJECT_KIND_FILLERS: tuple[str, ...] = (
    "holder", "person", "provider", "company", "firm", "name", "value", "one", "pick", "choice",
    "answer", "current", "latest", "new", "last", "first", "plan", "booking", "reminder", "cover",
    "policy", "guess", "bet", "best", "thing", "item", "result", "total", "figure", "date", "day",
    "deadline", "order", "list", "option", "recommendation", "suggestion", "idea", "winner",
    "call", "task", "job", "appointment", "number", "contact", "go-to", "man", "woman", "guy",
    "pro", "expert", "specialist", "service", "supplier", "vendor", "brand", "model", "make",
    "previous", "former", "old", "earlier", "prior", "original", "outgoing", "next", "past",
)
"""J18.6: words that name no kind when they stand as the subject ("the holder is X", "the answer
is X", "my best guess is X"): read with :data:`ITEM_FILLERS`."""

KIND_DERIVATION_MIN_CHARS = 4
KIND_DERIVATION_SUFFIXES: tuple[str, ...] = (
    "er", "r", "ers", "or", "ors", "ist", "ists", "ian", "ians", "ier", "iers",
)
KIND_CLIPPING_MIN_CHARS = 6
"""J21.6 (revision 9): an item word and a question word are one kind when one is the other plus an
agent suffix, the shorter at least KIND_DERIVATION_MIN_CHARS long ("roof" / "roofer", "tile" /
"tiler", "garden" / "gardener"), or when the shorter, at least KIND_CLIPPING_MIN_CHARS long,
begins the longer (a clipping: "physio" / "physiotherapist"). Binding reads derivations and
clippings of the question's words, as it reads inflections (J2) — never synonyms."""
RETRACTION_MARKERS: tuple[str, ...] = (
    r"sorry", r"no", r"no wait", r"wait", r"hang on", r"hold on", r"actually", r"scratch that",
    r"strike that", r"forget that", r"ignore that", r"on second thoughts?", r"on reflection",
    r"let me correct (?:that|myself)", r"correction", r"i take (?:that|it) back", r"my mistake",
    r"i misspoke", r"or rather", r"i mean", r"apologies", r"my apologies", r"oops", r"whoops",
)
"""J18.1 (revision 6): a value before one of these, when a decline follows it within
RETRACTION_GAP_WORDS words, is retracted into that decline ("37 days — no, sorry, I don't
actually know", "Lumella — sorry, I actually don't know", "X. On second thought, I can't say")."""
RETRACTION_GAP_WORDS = 4

PENDING_PATTERNS: tuple[str, ...] = (
    # "you haven't picked a luthier for the cello yet", "it hasn't been sorted so far"
    r"\b(?:you|they|it|that|this|he|she)(?:'?ve|'?s| have| has)? (?:still )?(?:haven'?t|have not|"
    r"hasn'?t|has not|not|are not|aren'?t|is not|isn'?t|'?re not)(?: \w+){1,9}? (?:yet|so far|as yet|"
    r"to date|till now|until now|up to now|for now)\b",
    # "you still haven't picked one", "you still need to choose"
    r"\b(?:you|they|it)(?:'?ve|'?s|'?re| have| has| are| is)? still (?:haven'?t|have not|hasn'?t|"
    r"has not|not|need to|have to|got to|to|deciding|looking|searching|choosing|weighing|shopping|"
    r"thinking|waiting|undecided|pending|open|to be)\b",
    # "you haven't got round to it", "never got round to choosing one" is a denial-like decline
    # of the act; without "never" the act is pending
    r"\b(?:haven'?t|have not|hasn'?t|has not|not) (?:yet |really |quite )?(?:got|gotten|come) "
    r"(?:round|around) to\b",
    # "you're yet to pick one", "it's yet to be decided"
    r"\b(?:you|they|it|that)(?:'?re|'?s| are| is| have|'?ve)? (?:still )?yet to\b",
    # J19.1 (revision 7): subject-less "nothing's been bought yet", "no one has been hired so far"
    r"\b(?:nothing|no one|nobody|none)(?:'?s| has| have| is| was)?(?: \w+){0,8}? (?:yet|so far|"
    r"as yet|to date)\b",
    # "no luthier yet", "no luthier chosen so far"
    r"\bno (?!one\b|body\b)(?:\w+ ){1,6}?(?:yet|so far|as yet|to date)\b",
)
"""J18.2 (revision 6): a not-yet on a never-known probe — the fact is pending or expected, not
absent. A clause about telling or the conversation ("you haven't told me yet", "not mentioned so
far") is a denial or a decline, not a not-yet: see PENDING_EXCLUDED."""
PENDING_EXCLUDED = (
    r"\b(?:told|tell|telling|mentioned|mention|said|say|shared|share|brought|bring|discussed|discuss|"
    r"talked|talk|named|name|specified|specify|given|give|let me know|informed|inform|filled|updated|"
    r"update|answered|answer|asked|ask|replied|reply|responded|respond|clarified|clarify|confirmed|"
    r"confirm|explained|explain|said|come up|came up|raised|noted|recorded|record|idea|information|"
    r"info|details?|knowledge|clue|record|records|mentions?|sure|certain)\b"
)

PLANNED_VALUE = (
    r"\b(?:(?:were|was|are|is|'re) (?:going to|planning to|planning on|meaning to|about to|due to)|"
    r"said (?:you'?d|you would|you'?ll|you will)|(?:had |have )?planned (?:to|on)|meant to|"
    r"intended to|intend to|(?:still )?(?:comparing|considering|weighing up|weighing|deciding "
    r"between|choosing between|looking at|thinking of|thinking about|shortlisting)|shortlisted)\b"
)
"""J19.2 (revision 7): a value bound to a plan or to a choice still open ("you were going to ring
X", "you said you'd book X", "you were still comparing X and Y") after a governing not-yet is the
plan, not a commitment that the asked thing is done."""

DECLINES_CURRENT = (
    r"\b(?:not sure|unsure|not certain|uncertain|don'?t know|do not know|doesn'?t know|can'?t say|"
    r"cannot say|can'?t tell|cannot tell|no idea|no clue|couldn'?t say|could not say|couldn'?t tell|"
    r"could not tell|can'?t be sure|cannot be sure|couldn'?t be sure|can'?t confirm|cannot confirm|"
    r"wouldn'?t know|would not know|not clear|unclear|hard to say)\b"
    r"(?![^.;!?]*?\b(?:new|newer|another|anyone else|anybody else|someone else|somebody else|"
    r"replacement|successor|since|instead)\b)"
    r"[^.;!?]*?\b(?:who|whom|whose|which|what|where|whether|if)\b[^.;!?]*?\b(?:now|currently|these days|"
    r"at the moment|today|any ?more|at present|nowadays|right now)\b"
)
"""J19.3 (revision 7), J21.2 (revision 9: every not-knowing verb — "can't say", "couldn't tell",
"can't be sure", "no clue", "wouldn't know" …): an uncertainty decline whose complement asks the
current state of the asked holder itself — not a successor ("I don't know if you have a new one now" leaves the
invalidation standing, as "I don't have a newer one on record" does)."""

STRUCTURED_BOOLEAN = (
    r'"(?P<key>[A-Za-z][A-Za-z0-9_ -]{0,40})"\s*:\s*(?P<value>true|false|True|False)\b'
)
"""J18.4 (revision 6): a boolean field of a structured answer states its key: `"lapsed": false`
reads "it has not lapsed", `"valid": true` "it is valid", `"still_current": false` "it is no longer
current" (the key word alone is never a cue)."""


JUDGE_CUE_PATTERNS: tuple[str, ...] = (
    *DENIAL_PATTERNS, *NOT_YET_PATTERNS, *FIRED_PATTERNS,
    *(rf"\b{re.escape(cue)}\b" for cue in (*INVALIDATION_STATE_CUES, *NO_LONGER_EVENT_CUES)),
)
"""Every polarity, denial and invalidation pattern: generators assert that no subject or value
they write reads as one, so a gold can never trip the judge through its own nouns."""


def reading_rules() -> dict[str, object]:
    """Every pattern and table of this module, as plain data for the judge fingerprint."""
    return {
        "max_judged_chars": MAX_JUDGED_CHARS,
        "decline": list(DECLINE_PATTERNS),
        "denial": list(DENIAL_PATTERNS),
        "meta_predicate": META_PREDICATE,
        "telling_to_me": TELLING_TO_ME,
        "tautology": TAUTOLOGY,
        "hedged_commitment": list(HEDGED_COMMITMENT_PATTERNS),
        "complement_openers": COMPLEMENT_OPENERS,
        "retracting_prefixes": list(RETRACTING_PREFIXES),
        "correction_markers": list(CORRECTION_MARKERS),
        "clause_break": CLAUSE_BREAK,
        "sentence_break": SENTENCE_BREAK,
        "not_due": list(NOT_DUE_PATTERNS),
        "not_yet": list(NOT_YET_PATTERNS),
        "still_to_come": list(STILL_TO_COME_PATTERNS),
        "fired": list(FIRED_PATTERNS),
        "invalidation_state": list(INVALIDATION_STATE_CUES),
        "invalidation_event": list(NO_LONGER_EVENT_CUES),
        "invalidation_event_patterns": list(INVALIDATION_EVENT_PATTERNS),
        "leading_yes": LEADING_YES,
        "leading_no": LEADING_NO,
        "negators": list(NEGATORS),
        "negation_window": NEGATION_WINDOW,
        "still": list(STILL_CUES),
        "retract_into_decline": RETRACT_INTO_DECLINE,
        "reported_decline": REPORTED_DECLINE,
        "name_form_excluded": list(NAME_FORM_EXCLUDED),
        "name_form_min_chars": NAME_FORM_MIN_CHARS,
        "other_holder": list(OTHER_HOLDER_PATTERNS),
        "owner_alone": list(OWNER_ALONE_PATTERNS),
        "other_item": list(OTHER_ITEM_PATTERNS),
        "segment_break": SEGMENT_BREAK,
        "contrast": list(CONTRAST_PATTERNS),
        "item_fillers": list(ITEM_FILLERS),
        "bracket_kind": BRACKET_KIND,
        "negated_kind": NEGATED_KIND,
        "interrogative": INTERROGATIVE,
        "task_narration": TASK_NARRATION,
        "own_contrast": list(OWN_CONTRAST_PATTERNS),
        "user_own": list(USER_OWN_PATTERNS),
        "asks_assistant": ASKS_ASSISTANT,
        "question_item": QUESTION_ITEM,
        "place_phrase": PLACE_PHRASE,
        "question_stopwords": list(QUESTION_STOPWORDS),
        "subject_kind_fillers": list(SUBJECT_KIND_FILLERS),
        "retraction_markers": list(RETRACTION_MARKERS),
        "retraction_gap_words": RETRACTION_GAP_WORDS,
        "pending": list(PENDING_PATTERNS),
        "pending_excluded": PENDING_EXCLUDED,
        "structured_boolean": STRUCTURED_BOOLEAN,
        "earlier_adverb": EARLIER_ADVERB,
        "negated_evidence": NEGATED_EVIDENCE,
        "negated_coordination": NEGATED_COORDINATION,
        "past_succession": PAST_SUCCESSION,
        "kind_derivation_min_chars": KIND_DERIVATION_MIN_CHARS,
        "kind_derivation_suffixes": list(KIND_DERIVATION_SUFFIXES),
        "kind_clipping_min_chars": KIND_CLIPPING_MIN_CHARS,
    }


__all__ = [
    "EARLIER_ADVERB",
    "KIND_CLIPPING_MIN_CHARS",
    "KIND_DERIVATION_MIN_CHARS",
    "KIND_DERIVATION_SUFFIXES",
    "NEGATED_COORDINATION",
    "NEGATED_EVIDENCE",
    "PAST_SUCCESSION",
    "PENDING_EXCLUDED",
    "PENDING_PATTERNS",
    "RETRACTION_GAP_WORDS",
    "RETRACTION_MARKERS",
    "STRUCTURED_BOOLEAN",
    "SUBJECT_KIND_FILLERS",
    "CLAUSE_BREAK",
    "COMPLEMENT_OPENERS",
    "ASKS_ASSISTANT",
    "CONTRAST_PATTERNS",
    "BRACKET_KIND",
    "NEGATED_KIND",
    "INTERROGATIVE",
    "TASK_NARRATION",
    "ITEM_FILLERS",
    "OWN_CONTRAST_PATTERNS",
    "USER_OWN_PATTERNS",
    "CORRECTION_MARKERS",
    "DECLINE_PATTERNS",
    "DENIAL_PATTERNS",
    "BOUND_NO_NOUN",
    "META_PREDICATE",
    "TELLING_TO_ME",
    "TAUTOLOGY",
    "FIRED_PATTERNS",
    "HEDGED_COMMITMENT_PATTERNS",
    "INVALIDATION_EVENT_PATTERNS",
    "INVALIDATION_STATE_CUES",
    "JUDGE_CUE_PATTERNS",
    "LEADING_NO",
    "LEADING_YES",
    "MAX_JUDGED_CHARS",
    "NAME_FORM_EXCLUDED",
    "NAME_FORM_MIN_CHARS",
    "NEGATION_WINDOW",
    "NEGATORS",
    "NOT_DUE_PATTERNS",
    "NOT_YET_PATTERNS",
    "NO_LONGER_EVENT_CUES",
    "OTHER_HOLDER_PATTERNS",
    "OWNER_ALONE_PATTERNS",
    "OTHER_ITEM_PATTERNS",
    "PLACE_PHRASE",
    "QUESTION_ITEM",
    "QUESTION_STOPWORDS",
    "RELATIONS",
    "REPORTED_DECLINE",
    "RETRACTING_PREFIXES",
    "RETRACT_INTO_DECLINE",
    "SEGMENT_BREAK",
    "SENTENCE_BREAK",
    "STILL_CUES",
    "STILL_TO_COME_PATTERNS",
    "reading_rules",
]
