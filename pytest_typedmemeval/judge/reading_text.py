"""The first layer of :class:`~.reading.Reading`: the answer's text, its clauses and where each key
value occurs.

Every other layer reads positions: a cue counts where it governs its clause, a value where it is
not inside a longer key value. Those positions are computed here once per answer, before any rule
asks about declines, binding or polarity, so the later layers only interpret them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from .reading_compiled import (
    _CLAUSE_BREAK,
    _inside,
    _SENTENCE_BREAK,
    Span,
    _WORD,
)
from .reading_patterns import (
    NAME_FORM_EXCLUDED,
    NAME_FORM_MIN_CHARS,
    NEGATION_WINDOW,
    NEGATORS,
)
from .text import normalized_phrase, phrase_spans


@dataclass
class ReadingText:
    """The answer as text: its fields (built by :meth:`.reading.Reading.of`), its clauses and
    sentences, negation before a position, and every key value's occurrences."""

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
    def _all_value_spans(self) -> list[Span]:
        """Every key value's occurrences (J3.1, name forms included), in text order."""
        return sorted({span for value in dict.fromkeys(self.key_values)
                       for span in self.value_spans(value)})

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

    def mentioned(self, values: Iterable[str]) -> list[str]:
        """Named anywhere, a decline's complement included ("I can't tell whether you booked X"
        mentions X without committing to it): J5.1 asks that the plan be named, not asserted."""
        return [value for value in values if self.value_spans(value)]

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
