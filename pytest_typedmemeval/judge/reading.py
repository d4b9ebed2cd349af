"""Reading an answer: what it declines, denies, commits to and claims (docs/JUDGING.md J1–J3).

The v1 judge matched closed cue lists anywhere in the answer and fell back to ``wrong``; an honest
"I do not have that information." was then graded as a wrong commitment. This module reads by
*structure* instead — negation plus a knowledge verb with the system as subject is a decline,
negation plus a history verb with the user as subject is a denial — and by *scope*: a cue counts
where it governs the answer ("Yes, it's due now, so there's no time to lose" is a yes; "no time"
is not a denial), a value under "not" or before a self-correction is retracted, and a value inside
"I don't know whether …" is not committed.

Every pattern it applies is plain data in :mod:`.reading_patterns`, folded into the judge
fingerprint (:func:`~.reading_patterns.reading_rules`), so results graded under different readings
are never pooled; this module compiles them and holds the scope logic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from .reading_patterns import (
    ASKS_ASSISTANT,
    BOUND_NO_NOUN,
    BRACKET_KIND,
    TASK_NARRATION,
    INTERROGATIVE,
    NEGATED_KIND,
    CLAUSE_BREAK,
    COMPLEMENT_OPENERS,
    CONTRAST_PATTERNS,
    CORRECTION_MARKERS,
    DECLINE_PATTERNS,
    DENIAL_PATTERNS,
    FIRED_PATTERNS,
    HEDGED_COMMITMENT_PATTERNS,
    INVALIDATION_EVENT_PATTERNS,
    INVALIDATION_STATE_CUES,
    ITEM_FILLERS,
    JUDGE_CUE_PATTERNS,
    LEADING_NO,
    LEADING_YES,
    MAX_JUDGED_CHARS,
    META_PREDICATE,
    TAUTOLOGY,
    TELLING_TO_ME,
    NAME_FORM_EXCLUDED,
    NAME_FORM_MIN_CHARS,
    NEGATION_WINDOW,
    NEGATORS,
    NOT_DUE_PATTERNS,
    NOT_YET_PATTERNS,
    NO_LONGER_EVENT_CUES,
    OTHER_HOLDER_PATTERNS,
    OWNER_ALONE_PATTERNS,
    PLACE_PHRASE,
    OWN_CONTRAST_PATTERNS,
    PENDING_EXCLUDED,
    PENDING_PATTERNS,
    PLANNED_VALUE,
    DECLINES_CURRENT,
    EARLIER_ADVERB,
    KIND_CLIPPING_MIN_CHARS,
    KIND_DERIVATION_MIN_CHARS,
    KIND_DERIVATION_SUFFIXES,
    NEGATED_COORDINATION,
    NEGATED_EVIDENCE,
    PAST_SUCCESSION,
    RETRACTION_GAP_WORDS,
    RETRACTION_MARKERS,
    SUBJECT_KIND_FILLERS,
    OTHER_ITEM_PATTERNS,
    QUESTION_ITEM,
    QUESTION_STOPWORDS,
    REPORTED_DECLINE,
    RETRACTING_PREFIXES,
    KIND_COMPOUND_HEADS,
    DURATION_PHRASE,
    SUCCESSION_STEP,
    PRESENT_MARK,
    REPLACING_VERB,
    RETRACT_INTO_DECLINE,
    SEGMENT_BREAK,
    SENTENCE_BREAK,
    STILL_CUES,
    STILL_TO_COME_PATTERNS,
    USER_OWN_PATTERNS,
)
from .text import normalize, normalized_phrase, phrase_spans

def _compile_all(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_DECLINE = _compile_all(DECLINE_PATTERNS)
_DENIAL = _compile_all(DENIAL_PATTERNS)
_META_PREDICATE = re.compile(META_PREDICATE)
_DENIAL_NAMED = _compile_all(p for p in DENIAL_PATTERNS if p not in (DENIAL_PATTERNS[1], BOUND_NO_NOUN))
"""Every denial form but the catch-all "you never / haven't <verb>", which must be bound (J2)."""
_TELLING_TO_ME = re.compile(TELLING_TO_ME)
_TAUTOLOGY = re.compile(TAUTOLOGY)
_HEDGED = _compile_all(HEDGED_COMMITMENT_PATTERNS)
_COMPLEMENT = re.compile(r"\s*" + COMPLEMENT_OPENERS)
_CORRECTION = re.compile(r"(?:^|[\s,;.!?:(\u2014\u2013-])(?:" + "|".join(CORRECTION_MARKERS) + r")\b")
_SAID_THEN_BUT = re.compile(
    r"\b(?:said|thought|guessed|mentioned|wrote|told you)\b[^.!?;\n]*?\bbut (?:it'?s|it is|it was|"
    r"that'?s|the answer is)\b"
)
_CLAUSE_BREAK = re.compile(CLAUSE_BREAK)
_SENTENCE_BREAK = re.compile(SENTENCE_BREAK)
_NOT_DUE = _compile_all(NOT_DUE_PATTERNS)
_NOT_YET = _compile_all(NOT_YET_PATTERNS)
_STILL_TO_COME = _compile_all(STILL_TO_COME_PATTERNS)
_FIRED = _compile_all(FIRED_PATTERNS)
_LEADING_YES = re.compile(LEADING_YES)
_LEADING_NO = re.compile(LEADING_NO)
_SPLIT_EVENTS = _compile_all(INVALIDATION_EVENT_PATTERNS)
_WORD = re.compile(r"[\w']+")
_RETRACT_INTO_DECLINE = re.compile(RETRACT_INTO_DECLINE)
_REPORTED_DECLINE = re.compile(REPORTED_DECLINE)
_QUOTED = re.compile(r'"[^"]*(?:"|$)')
_QUOTED_OR_BRACKETED = re.compile(r'"[^"]*(?:"|$)|\([^)]*(?:\)|$)')
_TASK_NARRATION = re.compile(TASK_NARRATION)
_SAYING_BEFORE = re.compile(r"\b(?:say|saying|said|answer|answering|reply|replying)\b[\s,:]*$")
_NEGATION = re.compile(r"\bnot\b|n'?t\b|\bnever\b|\brather than\b|\binstead of\b|\bunlike\b")
_OTHER_HOLDER = _compile_all(OTHER_HOLDER_PATTERNS)
_OWNER_ALONE = _compile_all(OWNER_ALONE_PATTERNS)
_OTHER_ITEM = _compile_all(OTHER_ITEM_PATTERNS)
_SEGMENT_BREAK = re.compile(SEGMENT_BREAK)
_CONTRAST = _compile_all(CONTRAST_PATTERNS)
_OWN_CONTRAST = _compile_all(OWN_CONTRAST_PATTERNS)
_USER_OWN = _compile_all(USER_OWN_PATTERNS)
_ASKS_ASSISTANT = re.compile(ASKS_ASSISTANT)
_FILLERS = frozenset(ITEM_FILLERS)
_PLACE = re.compile(PLACE_PHRASE)
_BRACKET_KIND = re.compile(BRACKET_KIND)
_NEGATED_KIND = re.compile(NEGATED_KIND)
_NEGATED_PREDICATE = re.compile(
    r"\b(?:did not|didn'?t|do not|don'?t|have not|haven'?t|has not|hasn'?t|never) (?:\w+ )?"
    r"(?P<verb>turn(?:ed)? down|turn(?:ed)? away|say|said|reject(?:ed)?|refuse[d]?|decline[d]?|"
    r"pick(?:ed)?|choose|chose|want(?:ed)?|use[d]?|take|took|go with|went with|book(?:ed)?|"
    r"hire[d]?|buy|bought|follow(?:ed)?|accept(?:ed)?|like[d]?|keep|kept)\b")
_RELATIVE_BEFORE = re.compile(r"\b(?:the|a|an|any|your|my|this) \w+(?: \w+)? (?:that|which|who|whom) $")


def _predicate(match: re.Match[str]) -> str:
    """The negated verb of a :data:`_NEGATED_PREDICATE` match, tense and particle kept apart
    ("turned down" and "turn down" read alike)."""
    verb = match.group("verb")
    head, _, particle = verb.partition(" ")
    return _stem(head[:-2] if head.endswith("ed") and len(head) > 4 else head) + \
        (" " + particle if particle else "")
_INTERROGATIVE = re.compile(INTERROGATIVE)
_ALTERNATIVE = re.compile(r"[\s,\u2014\u2013-]*(?:or|either|or else)\b")
_COORDINATION = re.compile(r"[\s,]*(?:(?:and|or|nor|&|and the|or the|the)\s+)?(?:the\s+)?")
MAX_FOLLOWERS = 2
"""J13.6: how many value-less segments after a value still speak of it ("X (you only asked)",
"X, but you steered clear of it", "X — your tutor for the exam")."""
_QUESTION_ITEM = re.compile(QUESTION_ITEM)
_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019]*")
_RETRACTION = re.compile(r"(?:^|[\s,;.!?:(\u2014\u2013-])(?:" + "|".join(RETRACTION_MARKERS) + r")\b")
_SOFT_RETRACTION = re.compile(r"(?:sorry|no|apologies|my apologies|oops|whoops|i mean|or rather)\b")
_BEYOND = re.compile(r"\b(?:more|else|further|beyond|besides|exact|exactly|precise|precisely)\b")
_PENDING = _compile_all(PENDING_PATTERNS)
_PENDING_EXCLUDED = re.compile(PENDING_EXCLUDED)
_PLANNED_VALUE = re.compile(PLANNED_VALUE)
_DECLINES_CURRENT = re.compile(DECLINES_CURRENT)
_TIME_AGO = re.compile(r"(?:years|months|weeks|long) (?:ago|back)")
_EARLIER_ADVERB = re.compile(EARLIER_ADVERB)
_NEGATED_EVIDENCE = re.compile(NEGATED_EVIDENCE)
_NEGATED_COORDINATION = re.compile(NEGATED_COORDINATION)
_PAST_SUCCESSION = re.compile(PAST_SUCCESSION)
_CUE_OBJECT_GAP = re.compile(r"\s*(?:(?:the|your|my|that|this|a|an|old|own)\s+){0,2}")
"""J21.4: a cue before a value speaks of it only as its object ("you sold the X"), not across
"to", "with" or another clause ("you switched from them to Y", "you replaced X with Y")."""
_OWN_UNTIL = re.compile(r"^\W*(?:until|till|up until)\b")
_TELLING_BEFORE = re.compile(r"\b(?:said|told|mentioned|wrote|shared|noted|brought up|talked|spoke|chatted|messaged|explained)\b")
_ROLE_COPULA = re.compile(r"\s+(?:was|were|had been|used to be|would have been)\b")
_SUBJECT_FILLERS = frozenset(SUBJECT_KIND_FILLERS)
_HELD_UNTIL = re.compile(r"\b(?:until|till|up until)\b")
_SUCCESSION = re.compile(
    r"\b(?:takes?|took|taking|will take) over\b|\b(?:steps?|stepped|stepping) in\b|"
    r"\b(?:starts?|started|begins?|began|returns?|returned|arrives?|arrived|joins?|joined|"
    r"moves? in|moved in|kicks? in|kicked in)\b|\b(?:comes?|came|gets?|got|is) back\b|"
    r"\b(?:is|are) (?:free|available|ready)\b")
_RETRACTING_WORDS = tuple(tuple(p.replace("'", "").split()) for p in RETRACTING_PREFIXES)
_EVENT_PREFIXES = (("replaced",), ("replacing",))
_DURATION = re.compile(DURATION_PHRASE)
_SUCCESSION_STEP = re.compile(SUCCESSION_STEP)
_PRESENT_MARK = re.compile(PRESENT_MARK)
_REPLACING_VERB = re.compile(REPLACING_VERB)


Span = tuple[int, int]


def _item_of(match: re.Match[str]) -> str:
    """The item words a question or segment pattern captured (under whichever group matched)."""
    return next((value for name, value in match.groupdict().items()
                 if name.startswith("item") and value), "")


def _stem(word: str) -> str:
    """A crude plural fold for matching a question's item words ("cots" / "cot")."""
    word = word.replace("'", "")
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _same_kind(word: str, asked: Iterable[str]) -> bool:
    """J21.6: ``word`` (stemmed) is one of the ``asked`` words, or one of them plus an agent suffix
    ("roof" / "roofer", "tile" / "tiler"), or a clipping of one ("physio" / "physiotherapist")."""
    for other in asked:
        if word == other:
            return True
        short, long_ = sorted((word, other), key=len)
        if not long_.startswith(short):
            continue
        if len(short) >= KIND_DERIVATION_MIN_CHARS and long_[len(short):] in KIND_DERIVATION_SUFFIXES:
            return True
        if len(short) >= KIND_CLIPPING_MIN_CHARS:
            return True
        if short == word and len(short) >= KIND_DERIVATION_MIN_CHARS and \
                long_[len(short):] in KIND_COMPOUND_HEADS:
            return True  # J22.7: "hair" / "hairdresser"
    return False


def _inside(span: Span, regions: Sequence[Span]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in regions)


@dataclass
class Reading:
    """One normalised answer and the key values it may name, with every lookup the rules need.

    Built once per answer; every property is computed on first use, so a verdict that stops at
    the first rule pays for nothing else.
    """

    norm: str
    key_values: tuple[str, ...]
    truncated: bool = False
    capitalised: frozenset[str] = frozenset()
    question_words: frozenset[str] = frozenset()
    """The question's content words (item and place, J13.5); empty when it is not known."""
    item_words: frozenset[str] = frozenset()
    """The words naming the question's item ("exercise cycle" in "Which exercise cycle do I have
    for the annexe?"); the question's content words when no item phrase is found."""
    place_words: frozenset[str] = frozenset()
    """The words of the question's place ("garage" in "… do I have for the garage?"), J13.5."""
    asks_assistant: bool = False
    """The question asks what the assistant itself recommended or said (J13.6)."""
    question_premises: frozenset[str] = frozenset()
    """J20.8: the predicates the question itself negates ("turn down" in "… that I did not turn
    down?"): an answer restating one denies nothing."""
    lowercase_only: bool = False
    """The answer has no capital letter at all: name forms are read without one (J13.13)."""
    _spans: dict[str, list[Span]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, answer: str, key_values: Iterable[str], question: str | None = None) -> Reading:
        norm = normalize(answer[: MAX_JUDGED_CHARS * 2])
        truncated = len(answer) > MAX_JUDGED_CHARS
        capitalised = frozenset(normalize(w) for w in _CAPITALISED.findall(answer[:MAX_JUDGED_CHARS]))
        asked = normalize(question or "")
        words = frozenset(_stem(w) for w in _WORD.findall(asked) if w not in QUESTION_STOPWORDS)
        phrase = _QUESTION_ITEM.search(asked)
        item = frozenset(_stem(w) for w in _WORD.findall(_item_of(phrase)) if w not in
                         QUESTION_STOPWORDS) if phrase else frozenset()
        head = answer[:MAX_JUDGED_CHARS]
        return cls(norm=norm[:MAX_JUDGED_CHARS], key_values=tuple(key_values), truncated=truncated,
                   capitalised=capitalised, question_words=words, item_words=item or words,
                   asks_assistant=bool(_ASKS_ASSISTANT.search(asked)),
                   question_premises=frozenset(_predicate(m) for m in _NEGATED_PREDICATE.finditer(asked)),
                   place_words=frozenset(_stem(w) for m in _PLACE.finditer(asked)
                                         for w in _WORD.findall(m.group("place"))
                                         if w not in QUESTION_STOPWORDS),
                   lowercase_only=head == head.lower() and any(c.isalpha() for c in head))

    # --- clauses and scopes ----------------------------------------------------------------------

    def clause_start(self, position: int) -> int:
        """Where the clause holding ``position`` begins (after the last clause break before it)."""
        start = 0
        for match in _CLAUSE_BREAK.finditer(self.norm, 0, position):
            start = match.end()
        return start

    def clause_end(self, position: int) -> int:
        match = _CLAUSE_BREAK.search(self.norm, position)
        return match.start() if match else len(self.norm)

    def sentence_end(self, position: int) -> int:
        match = _SENTENCE_BREAK.search(self.norm, position)
        return match.start() if match else len(self.norm)

    @cached_property
    def decline_spans(self) -> list[Span]:
        """Declines, less those quoted as something the answer is not saying (J13.3)."""
        reported = []
        for m in _QUOTED.finditer(self.norm):
            before = self.norm[max(0, m.start() - 80):m.start()]
            sentence = self.norm[max(0, m.start() - 80):self.sentence_end(m.end())]
            if _REPORTED_DECLINE.search(before) or (
                    (_SAYING_BEFORE.search(before) or m.start() == 0) and _NEGATION.search(
                        self.norm[m.end():self.sentence_end(m.end())] + " " + before)):
                reported.append(m.span())
        narration = _TASK_NARRATION.search(self.norm)
        if narration is not None:
            # J20.11 (revision 8): after a narration of the task ("You are asked to answer …",
            # "your response is in the format of …"), a quoted or bracketed decline is the narrated
            # response, not the answer's own
            reported += [m.span() for m in _QUOTED_OR_BRACKETED.finditer(self.norm, narration.start())]
        evidence = self._negated_evidence_of_event
        return [m.span() for m in _DECLINE.finditer(self.norm) if not _inside(m.span(), reported)
                and not _overlaps_any(m.span(), evidence)]

    @cached_property
    def _negated_evidence_of_event(self) -> list[Span]:
        """J22.4 (revision 10): "There's no indication you replaced the X" denies the replacement
        (J21.3), it does not decline: a negated claim of evidence followed in its clause by an
        invalidation event cue. Read on the raw text (declines decide what is bound)."""
        cues = [span for cue in NO_LONGER_EVENT_CUES for variant in {cue, cue.replace("'", "")}
                for span in phrase_spans(self.norm, variant)]
        cues += [m.span() for m in _SPLIT_EVENTS.finditer(self.norm)]
        found = []
        for match in _NEGATED_EVIDENCE.finditer(self.norm):
            end = self.clause_end(match.end())
            if any(match.end() <= cue[0] < end for cue in cues):
                found.append(match.span())
        return found

    @cached_property
    def decline_scopes(self) -> list[Span]:
        """J3.2: "I don't know whether X or Y" — the complement after a decline, to sentence end."""
        scopes = []
        for _, end in self.decline_spans:
            if _COMPLEMENT.match(self.norm, end):
                scopes.append((end, self.sentence_end(end)))
            else:
                scopes.append((end, self.clause_end(end)))  # "I can't recall X", "can't tell yet"
        return scopes

    def _outside_scopes(self, spans: Iterable[Span]) -> list[Span]:
        return [span for span in spans if not _inside(span, self.decline_scopes)]

    @cached_property
    def _segments(self) -> list[Span]:
        cuts = [0, *(m.end() for m in _SEGMENT_BREAK.finditer(self.norm)), len(self.norm)]
        return list(zip(cuts, cuts[1:]))

    @cached_property
    def _segment_has_value(self) -> list[bool]:
        starts = [span[0] for span in self._all_value_spans]
        return [any(start <= s < end for s in starts) for start, end in self._segments]

    @cached_property
    def _all_value_spans(self) -> list[Span]:
        """Every key value's occurrences (J3.1, name forms included), in text order."""
        return sorted({span for value in dict.fromkeys(self.key_values)
                       for span in self.value_spans(value)})

    @cached_property
    def _depth(self) -> list[int]:
        """How many brackets are open at each segment's start: a bracket's value-less clauses
        annotate the value inside it, and the clause after the bracket closes returns to the host."""
        depths, depth, last = [], 0, 0
        for start, _ in self._segments:
            chunk = self.norm[last:start]
            depth = max(0, depth + chunk.count("(") - chunk.count(")"))
            depths.append(depth)
            last = start
        return depths

    def _is_empty(self, index: int) -> bool:
        start, end = self._segments[index]
        return not _WORD.search(self.norm, start, end)

    def _is_bracket(self, index: int) -> bool:
        start = self._segments[index][0]
        return start > 0 and self.norm[start - 1] == "("

    @cached_property
    def _followers(self) -> list[list[int]]:
        """J13.6: for each segment naming a value, the value-less segments after it that still
        speak of it (a bracket, "but you steered clear of it", "and that was the chimney sweep"):
        at most MAX_FOLLOWERS non-empty ones, up to the next segment that names a value."""
        followers: list[list[int]] = []
        has = self._segment_has_value
        for index in range(len(self._segments)):
            found: list[int] = []
            if has[index]:
                for later in range(index + 1, len(self._segments)):
                    if has[later] or len(found) >= MAX_FOLLOWERS or \
                            self._depth[later] < self._depth[index]:
                        break
                    if not self._is_empty(later):
                        found.append(later)
            followers.append(found)
        return followers

    def _host(self, index: int) -> int | None:
        """A bracket naming a value annotates the value-less segment before it ("only a physio
        (Lorcan Mottram)"): that segment is the bracket's host."""
        if not (self._is_bracket(index) and self._segment_has_value[index]):
            return None
        for earlier in range(index - 1, -1, -1):
            if not self._is_empty(earlier):
                return None if self._segment_has_value[earlier] else earlier
        return None

    def _text(self, indices: Iterable[int]) -> str:
        return " | ".join(self.norm[self._segments[i][0]:self._segments[i][1]] for i in indices)

    def _contrast_between(self, start: int, end: int) -> bool:
        """A contrast marker (J13.6) in ``norm[start:end]``, not itself negated ("which you never
        declined" marks nothing); "the old sofa" is the asked item's own word, not another time."""
        patterns = [_CONTRAST, _USER_OWN] if self.asks_assistant else [_CONTRAST]
        for pattern in patterns:
            for match in pattern.finditer(self.norm, start, end):
                noun = match.groupdict().get("noun")
                if noun and _stem(noun) in self.question_words and not \
                        _ROLE_COPULA.match(self.norm, match.end()):
                    # "the old sofa" names the asked item; "your old insurer was X" (the asked
                    # kind as the subject of a copula, J18.6) names the earlier holder (J19.4)
                    continue
                if (_TIME_AGO.fullmatch(match.group()) or _EARLIER_ADVERB.fullmatch(match.group())) \
                        and _TELLING_BEFORE.search(
                        self.norm, self.clause_start(match.start()), match.start()):
                    # "from what you said months back, X": the time is the telling's (J19.6)
                    continue
                if not self.negated(match.start()):
                    return True
        return False

    def _value_end(self, position: int) -> int:
        return max(s[1] for s in self._all_value_spans if s[0] == position)

    def _value_starts_in(self, index: int) -> list[int]:
        start, end = self._segments[index]
        return sorted({s[0] for s in self._all_value_spans if start <= s[0] < end})

    @cached_property
    def _contrast_spans(self) -> frozenset[Span]:
        """J13.6: value occurrences marked as not the answer. A value's marks are read from the
        start of its clause to the clause of the next value in its segment — or, for the last value
        of a segment, to the segment's end and on through the value-less segments that annotate it
        ("X (you only asked)", "X, but you steered clear of it") — plus, for a bracketed value,
        the value-less segment the bracket annotates ("only asked about (X)")."""
        marked: set[Span] = set()
        for index, (seg_start, seg_end) in enumerate(self._segments):
            starts = self._value_starts_in(index)
            if not starts:
                continue
            own_mark = bool(_OWN_CONTRAST.search(self.norm[seg_start:seg_end]))
            host = self._host(index)
            host_mark = host is not None and self._contrast_between(*self._segments[host])
            # values listed together ("X, Y and Z were the old ones") share one reading
            groups: list[list[int]] = []
            for position in starts:
                if groups and _COORDINATION.fullmatch(
                        self.norm[self._value_end(groups[-1][-1]):position]):
                    groups[-1].append(position)
                else:
                    groups.append([position])
            clause_of = [max(seg_start, self.clause_start(group[0])) for group in groups]
            for number, group in enumerate(groups):
                # from the clause start, or from the previous value when it shares the clause…
                # (the first value of a segment owns the words before it: "the earlier carer,
                # Hugo Pennick, …")
                begin = seg_start if number == 0 else max(
                    clause_of[number], self._value_end(groups[number - 1][-1]))
                # …to the next value's clause, or to the next value when it shares this clause
                later = [clause_of[n] if clause_of[n] > clause_of[number] else groups[n][0]
                         for n in range(number + 1, len(groups))]
                if later:
                    marks = self._contrast_between(begin, later[0])
                else:
                    marks = self._contrast_between(begin, seg_end) or any(
                        self._contrast_between(*self._segments[f]) for f in self._followers[index])
                if not marks:
                    marks = self._held_until(self._value_end(group[-1]),
                                             groups[number + 1][0] if number + 1 < len(groups)
                                             else seg_end)
                if not marks and number == len(groups) - 1:
                    marks = self._succeeded_and_restated(index)
                if not marks:
                    marks = self._succession_step(begin, group[0])
                if marks or own_mark or host_mark:
                    marked.update(s for s in self._all_value_spans if s[0] in group)
        return frozenset(marked)

    def _succeeded_and_restated(self, index: int) -> bool:
        """J21.4: "X, until Y took over; so it's Y now" — the segment after X's opens with *until*
        and states a succession that has happened, and the answer names a value of that segment
        again outside it: X is the earlier holder (another time). Without the restatement the
        until-segment marks Y only (J13.6, J18.3), so "X, until Y took over" still answers X."""
        if index + 1 >= len(self._segments):
            return False
        start, end = self._segments[index + 1]
        text = self.norm[start:end]
        if not (_OWN_UNTIL.match(text) and _PAST_SUCCESSION.search(text)):
            return False
        successors = [value for value in dict.fromkeys(self.key_values)
                      if any(start <= s[0] < end for s in self.value_spans(value))]
        return any(s[0] >= end for value in successors for s in self.value_spans(value))

    def _succession_step(self, begin: int, position: int) -> bool:
        """J22.2 (revision 10): "X looked after it originally, then Y, and now it's Z" — a value
        introduced by a step of succession (then, after that, next, later) after an earlier value,
        with a later value set in the present ("now", "these days", "currently"): Y is an earlier
        holder (another time). Without the present value "X, then Y" is a sequence, unread here."""
        if not _SUCCESSION_STEP.search(self.norm[begin:position]):
            return False
        if not any(s[1] <= begin for s in self._all_value_spans):
            return False  # a step needs an earlier holder
        for span in self._all_value_spans:
            if span[0] > position:
                clause = self.norm[max(self.clause_start(span[0]), position):span[0]]
                if _PRESENT_MARK.search(clause) or _PRESENT_MARK.match(self.norm, span[1]):
                    return True
        return False

    def _held_until(self, start: int, end: int) -> bool:
        """J18.3: the value holds only until another takes over — "until" after the value in its
        own segment (not negated: "doesn't take over until" is the later holder's mark), opening a
        clause that names a key value or a succession ("X is only covering until Ines takes
        over", "X, who is minding it till Y is back")."""
        for match in _HELD_UNTIL.finditer(self.norm, start, end):
            if self.negated(match.start()):
                continue
            tail_end = self.clause_end(match.end())
            if _SUCCESSION.search(self.norm, match.end(), tail_end) or any(
                    match.end() <= s[0] < tail_end for s in self._all_value_spans):
                return True
        return False

    @cached_property
    def _anchored(self) -> bool:
        """J13.6: context is context only beside an answer — another value committed, or a decline
        or denial. An answer whose only value is marked ("The Velora — you turned it down") still
        gives that value as its answer."""
        if self.decline_spans or self.denial_spans:
            return True
        return any(span not in self._contrast_spans and not self._retracted(span)
                   for span in self._bound(self._all_value_spans))

    @cached_property
    def _key_words(self) -> frozenset[str]:
        return frozenset(w for v in dict.fromkeys(self.key_values) for w in normalized_phrase(v).split())

    def _other_item(self, text: str, *, kinds_only: bool = False) -> bool:
        """An item word the text binds a value to that is not the question's (J13.5); words of a
        key value and capitalised names are never items, nor fillers in the kind patterns ("that's
        the one"). ``kinds_only``: only the kind patterns (for a clause annotating a value)."""
        for m in _OTHER_ITEM.finditer(text):
            group = next((name for name, value in m.groupdict().items()
                          if name.startswith("item") and value), "item")
            kind = group not in ("item", "item2")
            if kinds_only and not kind:
                continue
            if _DURATION.match(text, m.start(group)):
                continue  # J22.5: "for a while", "for a few years" is a time, no item
            words = {_stem(w) for w in _WORD.findall(_item_of(m))
                     if not (kind and w in _FILLERS) and w not in self.capitalised
                     and w not in self._key_words
                     and not (group == "item9" and w in _SUBJECT_FILLERS)}
            if words and not all(_same_kind(w, self.question_words) for w in words):
                return True
        return False

    def _other_place(self, text: str) -> bool:
        """J13.5: the text puts its value at a place that is not the question's ("your locksmith
        for the shed" on a garage question); only when the question names a place."""
        if not self.place_words:
            return False
        for m in _PLACE.finditer(text):
            words = {_stem(w) for w in _WORD.findall(m.group("place").replace("'s", ""))
                     if w not in _FILLERS and w not in QUESTION_STOPWORDS
                     and w not in self.capitalised and w not in self._key_words}
            if words and not words & self.question_words:
                return True
        return False

    def _foreign_text(self, text: str, *, annotation: bool = False,
                      place: bool = False) -> bool | None:
        """True: another holder's or another item's; False: bound to the asked item; None: says
        nothing of whose or which. ``annotation``: a value-less clause after a value, read only
        for an owner standing alone ("your partner's", "hers") or a kind ("that's a camera")."""
        for match in (_OWNER_ALONE if annotation else _OTHER_HOLDER).finditer(text):
            relation = {_stem(w) for w in _WORD.findall(match.group())} & self.item_words
            if relation and not re.search(r"'s\b|s'", match.group()):
                # J19.6: the relation is the asked holder ("Which landlord …?" — "your landlord
                # is X"): the asked item, not another holder
                continue
            return True
        if place and self._other_place(text):
            return True
        # J20.4 (revision 8): the asked kind named only as what the value is *not* ("X is your
        # upholsterer, not the electrician") does not bind the segment to the asked item
        own_words = any(_same_kind(_stem(w), self.item_words)
                        for w in _WORD.findall(_NEGATED_KIND.sub(" ", text)))
        if self._other_item(text, kinds_only=annotation):
            return not own_words
        return False if own_words else None

    @cached_property
    def foreign_segments(self) -> list[Span]:
        """J13.5: segments about another holder's thing, or naming another item without any of
        the question's item words; values and state cues there are not about the asked item. A
        value's segment is read with what annotates it (its bracket and value-less followers, or
        the host of a bracketed value), and those followers share its verdict unless they name
        the asked item or "yours". Without the question nothing is foreign."""
        if not self.question_words:
            return []
        foreign: set[int] = set()
        for index in range(len(self._segments)):
            verdict = self._foreign_text(self._text([index]),
                                         place=self._segment_has_value[index])
            if not self._segment_has_value[index]:
                if verdict:
                    foreign.add(index)
                continue
            for later in self._followers[index]:
                if verdict:
                    break
                text = self._text([later])
                verdict = self._foreign_text(text, annotation=not self._is_bracket(later))
                if not verdict and self._is_bracket(later) and (kind := _BRACKET_KIND.match(text)):
                    words = {_stem(w) for w in kind.group("item").split() if w not in _FILLERS}
                    if words and not words & self.item_words and not words <= self.question_words:
                        verdict = True
                if verdict:
                    own = self._foreign_text(self._text([index]))
                    verdict = True if own is not False else False
            if verdict is None and (host := self._host(index)) is not None:
                verdict = self._foreign_text(self._text([host, index]))
            if verdict:
                foreign.add(index)
                for later in self._followers[index]:
                    text = self._text([later])
                    if not re.search(r"\byours\b|\byour own\b", text) and not any(
                            _stem(w) in self.item_words for w in _WORD.findall(text)):
                        foreign.add(later)
        return [self._segments[i] for i in sorted(foreign)]

    def _bound(self, spans: Iterable[Span]) -> list[Span]:
        """Spans outside decline scopes and outside segments about another item (J3.2, J13.5)."""
        return [span for span in self._outside_scopes(spans)
                if not _inside(span, self.foreign_segments)]

    def _committable(self, spans: Iterable[Span]) -> list[Span]:
        """Bound spans outside segments that mark their value as not the answer (J13.6)."""
        spans = self._bound(spans)
        if not self._anchored:
            return spans
        return [span for span in spans
                if span not in self._contrast_spans or self._offered_as_alternative(span)]

    def _offered_as_alternative(self, span: Span) -> bool:
        """J3.4 over J13.6: a value offered as an alternative to the value before it ("X, or the
        old Y", "X or maybe Y, which you declined") stays a candidate, whatever marks it."""
        before = [s for s in self._all_value_spans if s[1] <= span[0]]
        if not before:
            return False
        gap = self.norm[before[-1][1]:span[0]]
        return _ALTERNATIVE.match(gap) is not None

    @cached_property
    def denial_spans(self) -> list[Span]:
        """J2 / J13.3 (revision 5): denial matches that deny the asked fact. A negation whose
        predicate is the exchange itself ("You have not answered the question.", "You haven't been
        asked to provide a response.") is a meta-sentence unless it negates a telling ("you never
        told me the answer"); a tautology ("you did not turn down the X that
        you did not turn down") denies nothing."""
        spans = []
        tautologies = [m.span() for m in _TAUTOLOGY.finditer(self.norm)]
        for match in _DENIAL.finditer(self.norm):
            start, end = match.span()
            if _inside((start, end), tautologies):
                continue
            predicate = self.norm[start:max(self.clause_end(end), end)]
            if (self.question_words and not _DENIAL_NAMED.match(self.norm, start)
                    and not _TELLING_TO_ME.search(predicate)
                    and not self._names_question(predicate)):
                continue  # "you haven't slept well": a negated act that is not the asked one
            if _META_PREDICATE.search(predicate) and not _TELLING_TO_ME.search(match.group(0)):
                continue
            if self._restates_premise(start) or _RELATIVE_BEFORE.search(self.norm, 0, start):
                # J20.8: "You did not turn down the village I recommended" restates the question's
                # own negated qualifier; "the roofer that you did not recommend" names a roofer
                continue
            spans.append((start, end))
        return spans

    def _restates_premise(self, start: int) -> bool:
        """J20.8: the negated predicate at ``start`` is one the question itself negates."""
        negated = _NEGATED_PREDICATE.match(self.norm, start) or _NEGATED_PREDICATE.search(
            self.norm, start, min(len(self.norm), start + 40))
        return bool(self.question_premises and negated and negated.start() - start <= 12
                    and _predicate(negated) in self.question_premises)

    def _names_question(self, text: str) -> bool:
        """Whether ``text`` has a word of the question, any inflection ("joined", "hiring" for
        "join", "hire"): what binds a bare negated act to the asked one (J2)."""
        asked = [q for q in self.question_words if len(q) >= 3]
        return any(w.startswith(q) or (len(w) >= 4 and q.startswith(w))
                   for w in (_stem(w) for w in _WORD.findall(text)) for q in asked)

    @cached_property
    def declines(self) -> bool:
        return bool(self.decline_spans)

    @cached_property
    def denies(self) -> bool:
        """A denial outside any decline's complement; "nothing is due" is a not-yet, not a denial."""
        not_due = [m.span() for m in _NOT_DUE.finditer(self.norm)]
        spans = list(self.denial_spans)
        fired = self._first(_FIRED, negatable=True) if self.polarity == "fired" else None
        if self.polarity == "fired" and fired is None and self.opens_with_yes:
            fired = 0
        return bool([s for s in self._outside_scopes(spans) if not _overlaps_any(s, not_due)
                     and (fired is None or s[0] < fired)])

    @cached_property
    def hedges_a_commitment(self) -> bool:
        """"I'm not sure, probably the Zephyr": the answer commits, whatever the value (J3.2)."""
        negatives = [*self.decline_spans, *self.denial_spans]
        for span in self._outside_scopes(m.span() for m in _HEDGED.finditer(self.norm)):
            clause = (self.clause_start(span[0]), self.clause_end(span[1]))
            if not _overlaps_any(clause, negatives):
                return True
        return False

    # --- values --------------------------------------------------------------------------------

    @cached_property
    def _name_forms(self) -> dict[str, tuple[str, ...]]:
        """J13.13: each key value's unambiguous partial forms — a word of a multi-word value
        ("Kellerman" of "Marta Kellerman") that no other key value holds as a word, written with
        a capital in the answer (a name, not the common noun: "you don't have broadband" does not
        name "Acme Broadband")."""
        words_of = {value: normalized_phrase(value).split() for value in dict.fromkeys(self.key_values)}
        holders: dict[str, set[str]] = {}
        for value, words in words_of.items():
            for word in words:
                holders.setdefault(word, set()).add(value)
        return {value: tuple(w for w in dict.fromkeys(words)
                             if len(words) > 1 and len(w) >= NAME_FORM_MIN_CHARS and w.isalpha()
                             and w not in NAME_FORM_EXCLUDED and holders[w] == {value}
                             and (w in self.capitalised or self.lowercase_only))
                for value, words in words_of.items()}

    @cached_property
    def _full_spans(self) -> list[Span]:
        return [span for _, spans in self._raw_value_spans.values() for span in spans]

    @cached_property
    def _raw_value_spans(self) -> dict[str, tuple[int, list[Span]]]:
        """Every key value's normalised length and occurrences, scanned once per answer."""
        return {value: (len(normalized_phrase(value)), phrase_spans(self.norm, value))
                for value in dict.fromkeys(self.key_values)}

    def value_spans(self, value: str) -> list[Span]:
        """Occurrences of ``value`` not inside an occurrence of a longer key value, so the accepted
        "Marloe Basic" does not also name the wrong value "Marloe"."""
        if value not in self._spans:
            raw = self._raw_value_spans
            size, own = raw[value] if value in raw else (len(normalized_phrase(value)),
                                                         phrase_spans(self.norm, value))
            covering = [span for other_size, spans in raw.values() if other_size > size
                        for span in spans] if own else []
            found = [s for s in own if not _inside(s, covering)]
            for form in self._name_forms.get(value, ()):
                found += [s for s in phrase_spans(self.norm, form)
                          if not _inside(s, self._full_spans)]
            self._spans[value] = sorted(found)
        return self._spans[value]

    def names(self, value: str) -> bool:
        """Named outside a decline's complement and bound to the asked item (retracted or not)."""
        return bool(self._bound(self.value_spans(value)))

    def named(self, values: Iterable[str]) -> list[str]:
        return [value for value in values if self.names(value)]

    def mentioned(self, values: Iterable[str]) -> list[str]:
        """Named anywhere, a decline's complement included ("I can't tell whether you booked X"
        mentions X without committing to it): J5.1 asks that the plan be named, not asserted."""
        return [value for value in values if self.value_spans(value)]

    def first_position(self, value: str) -> int | None:
        spans = self._bound(self.value_spans(value))
        return spans[0][0] if spans else None

    @cached_property
    def correction_points(self) -> list[int]:
        points = [m.end() for m in _CORRECTION.finditer(self.norm)]
        points += [m.end() for m in _SAID_THEN_BUT.finditer(self.norm)]
        return sorted(points)

    def _retracted(self, span: Span) -> bool:
        """J3.3: under a retracting prefix in its clause ("not X", "rather than the X"), or before a
        self-correction that goes on to name a key value ("X — sorry, Y")."""
        start = span[0]
        words = [w.replace("'", "") for w in _WORD.findall(self.norm[self.clause_start(start):start])]
        for prefix in _RETRACTING_WORDS:
            for gap in (0, 1):  # the prefix may stand one word earlier: "not the X", "isn't really X"
                end = len(words) - gap
                if end >= len(prefix) and tuple(words[end - len(prefix):end]) == prefix:
                    if prefix in _EVENT_PREFIXES and self._prefix_event_negated(start):
                        continue  # J22.4: "no sign you replaced the X" keeps X
                    return True
        if any(point > span[1] and self._value_after(point) for point in self.correction_points):
            return True
        if any(point >= span[1] for point in self.retraction_points):
            return True
        return any(m.start() >= span[1] and any(d[0] >= m.start() for d in self.decline_spans)
                   for m in _RETRACT_INTO_DECLINE.finditer(self.norm))

    def _prefix_event_negated(self, start: int) -> bool:
        """J22.4 (revision 10): a replacing verb just before a value ("you replaced the X") retracts
        it only when the replacement is asserted; negated by a negator or a negated claim of
        evidence ("There's no sign you replaced the X", "you haven't replaced the X") the value
        is the one still held (J21.3)."""
        clause_start = self.clause_start(start)
        verbs = list(_REPLACING_VERB.finditer(self.norm, clause_start, start))
        if not verbs:
            return False
        verb = verbs[-1].start()
        return self.negated(verb) or bool(_NEGATED_EVIDENCE.search(self.norm, clause_start, verb))

    @cached_property
    def retraction_points(self) -> list[int]:
        """J18.1: where the answer withdraws what came before into a decline — a retraction marker
        (sorry, no wait, scratch that, actually, on second thought, let me correct that …) with a
        decline starting within RETRACTION_GAP_WORDS words of it, or the marker inside the
        decline's own words ("sorry, I actually don't know"). Values and figures before the
        marker are retracted (J3.3); a key value named again after it is committed as usual."""
        points = []
        for match in _RETRACTION.finditer(self.norm):
            start = match.start() + (1 if self.norm[match.start()] in " ,;.!?:(\u2014\u2013-" else 0)
            if _SOFT_RETRACTION.match(self.norm, start) and \
                    self.norm[:start].rstrip().endswith((".", "!", "?")):
                continue  # "X. Sorry, I can't say more": an apology opening a sentence retracts nothing
            for d_start, d_end in self.decline_spans:
                if d_end <= start:
                    continue
                if _BEYOND.search(self.norm, d_start, self.clause_end(d_end)):
                    continue  # "sorry, I can't say more / anything else": about what lies beyond
                gap = self.norm[match.end():d_start] if d_start >= match.end() else ""
                if d_start <= start < d_end or len(_WORD.findall(gap)) <= RETRACTION_GAP_WORDS \
                        and "\n" not in gap:
                    points.append(start)
                    break
        return points

    def _value_after(self, point: int) -> bool:
        return any(s[0] >= point for value in self.key_values for s in self.value_spans(value))

    def commits(self, value: str) -> bool:
        """Named in at least one place where it is neither retracted nor under a decline (J3)."""
        return any(not self._retracted(span) for span in self._committable(self.value_spans(value)))

    @cached_property
    def negative_spans(self) -> list[Span]:
        """Every decline and denial match: the words that make the answer a negative."""
        return [*self.decline_spans, *self.denial_spans]

    def commits_outside_negatives(self, value: str) -> bool:
        """:meth:`commits`, not counting an occurrence inside a decline's or a denial's own words:
        a dataset's trap answer "No" or "That" is not committed by "No, I don't know" or "That
        isn't something you told me" (issue 21, item 6)."""
        return any(not self._retracted(span) and not _overlaps_any(span, self.negative_spans)
                   for span in self._committable(self.value_spans(value)))

    def committed(self, values: Iterable[str]) -> list[str]:
        return [value for value in values if self.commits(value)]

    # --- polarity and state ----------------------------------------------------------------------

    def negated(self, start: int) -> bool:
        """A negator within NEGATION_WINDOW words before ``start`` in its clause."""
        clause_start = self.clause_start(start)
        words = _WORD.findall(self.norm[clause_start:start])[-NEGATION_WINDOW:]
        for index, word in enumerate(words):
            bare = word.replace("'", "")
            if bare == "no" and clause_start == 0 and index == 0 and len(words) > 1:
                continue  # "No, you sold it": the opening "no" answers, it does not negate
            if bare in NEGATORS or word.endswith("n't"):
                return True
        return False

    def _cue_spans(self, cues: Iterable[str]) -> list[Span]:
        spans: list[Span] = []
        for cue in cues:
            for variant in {cue, cue.replace("'", "")}:
                spans.extend(phrase_spans(self.norm, variant))
        return self._bound(spans)

    @cached_property
    def _event_spans(self) -> list[Span]:
        spans = self._cue_spans(NO_LONGER_EVENT_CUES)
        spans += self._bound(m.span() for m in _SPLIT_EVENTS.finditer(self.norm))
        return [span for span in spans if not self._about_context_value(span)]

    def _about_context_value(self, span: Span) -> bool:
        """J13.5/J13.6: an event cue whose clause names key values only as context — retracted
        or marked as not the answer ("Nyxique, which replaced the Kalique") — speaks of that other
        value, not of the asked item."""
        start, end = self.clause_start(span[0]), self.clause_end(span[1])
        inside = [s for s in self._all_value_spans if start <= s[0] and s[1] <= end]
        if not inside or not self._anchored:
            return False
        committable = self._committable(inside)
        return not any(not self._retracted(s) for s in committable)

    @cached_property
    def _raw_event_spans(self) -> list[Span]:
        spans = self._cue_spans(NO_LONGER_EVENT_CUES)
        spans += self._bound(m.span() for m in _SPLIT_EVENTS.finditer(self.norm))
        return sorted(spans)

    def _event_negated(self, span: Span) -> bool:
        """An event cue negated (J13.8): by a negator just before it, by a negated claim of
        evidence earlier in its clause ("Nothing suggests you've sold it"), or by coordination with
        a negated cue ("you haven't sold it or replaced it") — J21.3."""
        if self.negated(span[0]):
            return True
        clause_start = self.clause_start(span[0])
        if _NEGATED_EVIDENCE.search(self.norm, clause_start, span[0]):
            return True
        for other in self._raw_event_spans:
            if clause_start <= other[0] and other[1] <= span[0] and self.negated(other[0]) and \
                    _NEGATED_COORDINATION.match(self.norm[other[1]:span[0]]):
                return True
        return False

    @cached_property
    def invalidates(self) -> bool:
        """A non-negated invalidation claim (J5)."""
        if self._cue_spans(INVALIDATION_STATE_CUES):
            return True
        return any(not self._event_negated(span) for span in self._event_spans)

    def invalidates_value(self, values: Iterable[str]) -> bool:
        """J19.4: state cues follow their value — an event cue (not negated) in the clause of one
        of ``values``, even where the cue marks that value as context ("You dropped X and switched
        to Y": the dropped X is claimed gone)."""
        spans = self._cue_spans(NO_LONGER_EVENT_CUES)
        spans += self._bound(m.span() for m in _SPLIT_EVENTS.finditer(self.norm))
        targets = [s for v in values for s in self.value_spans(v)]
        for span in spans:
            if self._event_negated(span):
                continue
            start, end = self.clause_start(span[0]), self.clause_end(span[1])
            if any(start <= t[0] and t[1] <= end for t in targets):
                return True
        return False

    def marked_as_context(self, values: Iterable[str]) -> bool:
        """Every bound occurrence of ``values`` is marked as not the answer (J13.6: another time,
        the user's act gone the other way, …); False when none is named."""
        spans = self._bound([s for v in values for s in self.value_spans(v)])
        return bool(spans) and all(span in self._contrast_spans for span in spans)

    def invalidated_as_past(self, values: Iterable[str]) -> bool:
        """J3.4, J21.4: every occurrence of ``values`` is named only as the invalidated past — an
        invalidation cue, not negated, that speaks of it: in its own clause before it, with the
        value as its object ("you sold the X"), or after it before the next value, in its segment or the
        value-less segments that annotate it ("you also had the Quoivo, but you sold that too").
        "You sold X and now have Y" and "You replaced X with Y" invalidate X only."""
        targets = [s for v in values for s in self._bound(self.value_spans(v))]
        if not targets:
            return False
        cues = [*self._cue_spans(INVALIDATION_STATE_CUES),
                *(e for e in self._raw_event_spans if not self._event_negated(e))]
        starts = [s[0] for s in self._all_value_spans]
        for target in targets:
            index = next(i for i, (a, b) in enumerate(self._segments) if a <= target[0] < b)
            last = max([index, *self._followers[index]])
            later = [p for p in starts if p > target[0]]
            end = min([self._segments[last][1], *later])
            begin = self.clause_start(target[0])
            if not any(begin <= c[0] < end and (c[0] > target[0] or c[1] >= target[1] or
                                                  _CUE_OBJECT_GAP.fullmatch(self.norm, c[1], target[0]))
                       for c in cues):
                return False
        return True

    @cached_property
    def negated_invalidation(self) -> bool:
        """"It hasn't lapsed": the fact is asserted still to hold."""
        return any(self._event_negated(span) for span in self._event_spans)

    @cached_property
    def affirms_still(self) -> bool:
        return bool(self._cue_spans(STILL_CUES)) or self.negated_invalidation

    @cached_property
    def asserts_current(self) -> bool:
        """J13.16: a still-cue stated outright ("X, and that's still current") — bound to the asked
        item, outside a decline, not negated and not inside a whether/if complement ("… and not
        say whether it is still current")."""
        for start, _ in self._cue_spans(STILL_CUES):
            before = self.norm[self.clause_start(start):start]
            if self.negated(start) or re.search(r"\b(?:whether|if)\b", before):
                continue
            return True
        return False

    @cached_property
    def interrogative_spans(self) -> list[Span]:
        """J20.1 (revision 8): sentences that ask rather than state ("Have you booked anyone for
        the stairlift? Not yet!"): an auxiliary-first sentence ending in a question mark asserts
        no polarity, so its cues do not govern."""
        return [m.span() for m in _INTERROGATIVE.finditer(self.norm)]

    def _first(self, pattern: re.Pattern[str], *, negatable: bool = False) -> int | None:
        for match in pattern.finditer(self.norm):
            if _inside(match.span(), self.decline_scopes):
                continue
            if _inside(match.span(), self.interrogative_spans):
                continue
            if negatable and self.negated(match.start()):
                continue
            return match.start()
        return None

    @cached_property
    def polarity(self) -> str | None:
        """The governing claim of a yes/no or state question (J6): ``not_yet``, ``fired`` or None.

        The earliest cue wins: a cue governs where it opens the answer's claim, so "Yes, it's due
        now, so there's no time to lose" is a yes whatever follows.
        """
        not_yet = self._first(_NOT_YET)
        fired = self._first(_FIRED, negatable=True)
        if not_yet is None and fired is None:
            if self.declines:
                return None  # "No idea.": the opening "no" belongs to the decline
            if _LEADING_YES.match(self.norm):
                return "fired"
            if _LEADING_NO.match(self.norm):
                return "not_yet"
            return None
        if fired is None or (not_yet is not None and not_yet <= fired):
            return "not_yet"
        return "fired"

    @cached_property
    def opens_with_yes(self) -> bool:
        return bool(_LEADING_YES.match(self.norm))

    def _governs_before_firing(self, pattern: re.Pattern[str]) -> bool:
        """``pattern`` occurs, and before any (non-negated) firing cue."""
        return self._before_firing(self._first(pattern))

    def _before_firing(self, first: int | None) -> bool:
        """A cue at ``first`` governs: it exists and comes before any (non-negated) firing cue."""
        if first is None:
            return False
        fired = self._first(_FIRED, negatable=True)
        return fired is None or first < fired

    @cached_property
    def says_still_to_come(self) -> bool:
        """J5 never-known: a governing "not yet" / "still to come". A not-yet about telling or
        the exchange ("You have not answered the question yet", "you haven't told me yet") is a
        meta-sentence or a denial, not a pending state (J13.3, J18.2, J19.5)."""
        first = None
        for match in _STILL_TO_COME.finditer(self.norm):
            if _inside(match.span(), self.decline_scopes):
                continue
            if _PENDING_EXCLUDED.search(match.group()):
                continue
            first = match.start()
            break
        return self._before_firing(first)

    @cached_property
    def says_pending(self) -> bool:
        """J18.2: a not-yet stated as pending ("you haven't picked a luthier yet", "you still
        haven't chosen one", "no luthier so far", "you haven't got round to it") — outside a
        decline, and not about telling or the conversation ("you haven't told me yet" denies)."""
        for match in _PENDING.finditer(self.norm):
            if _inside(match.span(), self.decline_scopes) or \
                    _overlaps_any(match.span(), self.decline_spans):
                continue
            if _PENDING_EXCLUDED.search(match.group()):
                continue
            return True
        return False

    @cached_property
    def first_pending(self) -> int | None:
        """Where the first pending not-yet (J18.2) starts, outside a decline; None without one."""
        for match in _PENDING.finditer(self.norm):
            if _inside(match.span(), self.decline_scopes) or \
                    _overlaps_any(match.span(), self.decline_spans):
                continue
            if _PENDING_EXCLUDED.search(match.group()):
                continue
            return match.start()
        return None

    def pending_governs(self, values: Iterable[str]) -> bool:
        """J19.2: a pending not-yet opens the answer's claim and every key value named after it
        is bound to a plan or an open choice ("Nothing's lined up yet; you were going to ring X",
        "You haven't picked one yet; you were still comparing X and Y"). A value named before the
        not-yet, or after it without a plan marker in its stretch, is a commitment as usual."""
        start = self.first_pending
        if start is None:
            return False
        spans = sorted(s for v in values for s in self._bound(self.value_spans(v)))
        previous: Span | None = None
        for span in spans:
            if span[0] < start:
                return False
            if previous is not None and _COORDINATION.fullmatch(self.norm[previous[1]:span[0]]):
                previous = span  # values listed together share one reading (J13.6)
                continue
            stretch = self.norm[self.clause_start(span[0]):span[0]]
            if not _PLANNED_VALUE.search(stretch):
                return False
            previous = span
        return True

    def declines_current_after(self, values: Iterable[str]) -> bool:
        """J19.3: after the named past value, an uncertainty decline whose complement asks the
        current state ("X used to teach you, but I'm not sure who it is now"): the answer is the
        decline and the past value its context (J13.6). A hedge *before* the value ("I'm not sure,
        but probably X, whom you dropped") commits to X (J3.2, J13.4); a statement that the record
        holds no successor ("I don't have a newer one on record") declines nothing asked."""
        positions = [p for p in (self.first_position(v) for v in values) if p is not None]
        if not positions or not self.declines:
            return False
        first = min(positions)
        for match in _DECLINES_CURRENT.finditer(self.norm):
            if match.start() > first:
                return True
        return False

    @cached_property
    def says_not_due(self) -> bool:
        """J4.2: the narrow "not yet (due)" governs the answer."""
        return self._governs_before_firing(_NOT_DUE)


def _overlaps_any(span: Span, others: Sequence[Span]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in others)


__all__ = [
    "Reading",
    "Span",
    # re-exported: the corpus generators import these cues from here
    "DECLINE_PATTERNS",
    "DENIAL_PATTERNS",
    "FIRED_PATTERNS",
    "INVALIDATION_STATE_CUES",
    "JUDGE_CUE_PATTERNS",
    "NOT_YET_PATTERNS",
    "NO_LONGER_EVENT_CUES",
    "STILL_CUES",
]
