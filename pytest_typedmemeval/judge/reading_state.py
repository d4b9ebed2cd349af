"""The last layer of :class:`~.reading.Reading`: the state and polarity the answer claims
(docs/JUDGING.md J4–J6, J18.2, J19.2–J19.4, J20.1).

Invalidation cues ("you sold it", "it lapsed") and their negations, still-cues, the governing
yes/no or not-yet of a state question, and pending plans. The earliest governing cue wins, and
every cue counts only where the lower layers bound it to the asked item.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from .reading_commitment import CommitmentReading
from .reading_compiled import (
    _COORDINATION,
    _CUE_OBJECT_GAP,
    _DECLINES_CURRENT,
    _FIRED,
    _inside,
    _INTERROGATIVE,
    _LEADING_NO,
    _LEADING_YES,
    _NEGATED_COORDINATION,
    _NEGATED_EVIDENCE,
    _NOT_DUE,
    _NOT_YET,
    _overlaps_any,
    _PENDING,
    _PENDING_EXCLUDED,
    _PLANNED_VALUE,
    Span,
    _SPLIT_EVENTS,
    _STILL_TO_COME,
)
from .reading_patterns import (
    INVALIDATION_STATE_CUES,
    NO_LONGER_EVENT_CUES,
    STILL_CUES,
)
from .text import phrase_spans


class StateReading(CommitmentReading):
    """Invalidation and still-cues, the governing polarity, not-yet and pending readings."""

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
