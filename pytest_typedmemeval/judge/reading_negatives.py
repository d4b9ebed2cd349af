"""The second layer of :class:`~.reading.Reading`: what the answer withdraws — declines, denials and
retractions (docs/JUDGING.md J1–J3, J13.3, J18.1).

These are read by *structure* (negation plus a knowledge verb with the system as subject is a
decline, negation plus a history verb with the user as subject is a denial), and their *scope*
("I don't know whether X or Y") is what the binding and commitment layers subtract before they
count a value as named. Kept together because a retraction is only a retraction into a decline.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from .reading_compiled import (
    _BEYOND,
    _COMPLEMENT,
    _CORRECTION,
    _DECLINE,
    _DENIAL,
    _DENIAL_NAMED,
    _EVENT_PREFIXES,
    _HEDGED,
    _inside,
    _META_PREDICATE,
    _NEGATED_EVIDENCE,
    _NEGATED_PREDICATE,
    _NEGATION,
    _overlaps_any,
    _predicate,
    _QUOTED,
    _QUOTED_OR_BRACKETED,
    _RELATIVE_BEFORE,
    _REPLACING_VERB,
    _REPORTED_DECLINE,
    _RETRACT_INTO_DECLINE,
    _RETRACTING_WORDS,
    _RETRACTION,
    _SAID_THEN_BUT,
    _SAYING_BEFORE,
    _SOFT_RETRACTION,
    Span,
    _SPLIT_EVENTS,
    _stem,
    _TASK_NARRATION,
    _TAUTOLOGY,
    _TELLING_TO_ME,
    _WORD,
)
from .reading_patterns import (
    NO_LONGER_EVENT_CUES,
    RETRACTION_GAP_WORDS,
)
from .reading_text import ReadingText
from .text import phrase_spans


class NegativesReading(ReadingText):
    """Declines and their scopes, denials of the asked fact, hedges and retracted values."""

    @cached_property
    def decline_spans(self) -> list[Span]:
        """Declines, less those quoted as something the answer is not saying (J13.3)."""
        reported = []
        for m in _QUOTED.finditer(self.norm):
            before = self.norm[max(0, m.start() - 80):m.start()]
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
    def hedges_a_commitment(self) -> bool:
        """"I'm not sure, probably the Zephyr": the answer commits, whatever the value (J3.2)."""
        negatives = [*self.decline_spans, *self.denial_spans]
        for span in self._outside_scopes(m.span() for m in _HEDGED.finditer(self.norm)):
            clause = (self.clause_start(span[0]), self.clause_end(span[1]))
            if not _overlaps_any(clause, negatives):
                return True
        return False

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

    @cached_property
    def negative_spans(self) -> list[Span]:
        """Every decline and denial match: the words that make the answer a negative."""
        return [*self.decline_spans, *self.denial_spans]
