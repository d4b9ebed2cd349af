"""The third layer of :class:`~.reading.Reading`: which item and holder each value is bound to
(docs/JUDGING.md J13.5).

The answer is cut into segments; a value's segment is read with what annotates it (a bracket, the
value-less clauses after it). A segment about another holder's thing or another item is foreign:
values there are not about the asked item. ``_bound`` — outside decline scopes and foreign
segments — is what every later rule means by "named".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from .reading_compiled import (
    _BRACKET_KIND,
    _DURATION,
    _FILLERS,
    _inside,
    _item_of,
    MAX_FOLLOWERS,
    _NEGATED_KIND,
    _OTHER_HOLDER,
    _OTHER_ITEM,
    _OWNER_ALONE,
    _PLACE,
    _same_kind,
    _SEGMENT_BREAK,
    Span,
    _stem,
    _SUBJECT_FILLERS,
    _WORD,
)
from .reading_negatives import NegativesReading
from .reading_patterns import (
    QUESTION_STOPWORDS,
)
from .text import normalized_phrase


class BindingReading(NegativesReading):
    """Segments, their followers and hosts, and the segments about another item or holder."""

    @cached_property
    def _segments(self) -> list[Span]:
        cuts = [0, *(m.end() for m in _SEGMENT_BREAK.finditer(self.norm)), len(self.norm)]
        return list(zip(cuts, cuts[1:]))

    @cached_property
    def _segment_has_value(self) -> list[bool]:
        starts = [span[0] for span in self._all_value_spans]
        return [any(start <= s < end for s in starts) for start, end in self._segments]

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

    def names(self, value: str) -> bool:
        """Named outside a decline's complement and bound to the asked item (retracted or not)."""
        return bool(self._bound(self.value_spans(value)))

    def named(self, values: Iterable[str]) -> list[str]:
        return [value for value in values if self.names(value)]

    def first_position(self, value: str) -> int | None:
        spans = self._bound(self.value_spans(value))
        return spans[0][0] if spans else None
