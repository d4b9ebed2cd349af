"""The fourth layer of :class:`~.reading.Reading`: which bound values the answer commits to
(docs/JUDGING.md J3, J13.6, J18.3, J21.4, J22.2).

A value marked as not the answer — another time, the user's act gone the other way, held only
until another took over, an earlier step of a succession — is context beside an answer, not a
second commitment; but only beside an answer (a value alone stays the answer), and a value
offered as an alternative stays a candidate whatever marks it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from .reading_binding import BindingReading
from .reading_compiled import (
    _ALTERNATIVE,
    _CONTRAST,
    _COORDINATION,
    _EARLIER_ADVERB,
    _HELD_UNTIL,
    _overlaps_any,
    _OWN_CONTRAST,
    _OWN_UNTIL,
    _PAST_SUCCESSION,
    _PRESENT_MARK,
    _ROLE_COPULA,
    Span,
    _stem,
    _SUCCESSION,
    _SUCCESSION_STEP,
    _TELLING_BEFORE,
    _TIME_AGO,
    _USER_OWN,
)


class CommitmentReading(BindingReading):
    """Context marks (J13.6) and what is left committed once they and retractions are subtracted."""

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

    def commits(self, value: str) -> bool:
        """Named in at least one place where it is neither retracted nor under a decline (J3)."""
        return any(not self._retracted(span) for span in self._committable(self.value_spans(value)))

    def commits_outside_negatives(self, value: str) -> bool:
        """:meth:`commits`, not counting an occurrence inside a decline's or a denial's own words:
        a dataset's trap answer "No" or "That" is not committed by "No, I don't know" or "That
        isn't something you told me" (issue 21, item 6)."""
        return any(not self._retracted(span) and not _overlaps_any(span, self.negative_spans)
                   for span in self._committable(self.value_spans(value)))

    def committed(self, values: Iterable[str]) -> list[str]:
        return [value for value in values if self.commits(value)]

    def marked_as_context(self, values: Iterable[str]) -> bool:
        """Every bound occurrence of ``values`` is marked as not the answer (J13.6: another time,
        the user's act gone the other way, …); False when none is named."""
        spans = self._bound([s for v in values for s in self.value_spans(v)])
        return bool(spans) and all(span in self._contrast_spans for span in spans)
