"""The id a question's pytest item carries: its question id with every label taken out.

The item id is part of the node id, and pytest publishes the node id to the process under test:
``PYTEST_CURRENT_TEST``, the xdist process title, ``--lf`` files, live-log headers. A question id
such as ``tme-for-037_abs`` (the public benchmark's convention marks abstention questions with
``_abs``) would tell an adapter that reads its own environment which questions have no answer. So
the item id keeps the question id's readable parts and drops every token that encodes a label:

- words of a label vocabulary (abstention, gold, arm and outcome words: ``abs``, ``unanswerable``,
  ``premature``, ...) and the corpus's own shape, arm and expected-negative names;
- every purely alphabetic token that some questions carry and others do not (``nk``, ``neg``,
  ``gpt``): a word that varies between questions may mean anything, whatever its spelling. A word
  every question carries (``tme``, the vertical's ``ari``) is constant, so it says nothing;
- a token with digits (``036``, ``2655b836``, ``type3``) is kept, as question numbers and hashes
  are, unless it appears on two or more questions that all share one label value (one shape, one
  arm, one kind of negative gold, or all without gold sessions) while that label varies.

Ids that collide once cleaned (``q1`` and ``q1_abs``), or clean to nothing, all get a suffix hashed
from the corpus sha256 and the question id, so the suffix says nothing either. The question id
itself stays in the report and stays selectable with ``-k`` (it is an extra keyword of the item,
which the adapter cannot see). Knows nothing about pytest.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol

LABEL_WORDS = frozenset({
    # abstention / answerability (the public benchmark's ``_abs``; common spellings)
    "abs", "abst", "abstain", "abstains", "abstained", "abstention", "abstaining", "unanswerable",
    "answerable", "unans", "noans", "noanswer", "nogold", "neverknown", "never", "known", "unknown",
    "refuse", "refusal", "decline", "declined", "idk", "na",
    # gold and labels
    "gold", "hasanswer", "negative", "neg", "positive", "pos", "label", "labeled", "labelled",
    # arms and negatives of the spec's verticals
    "before", "after", "control", "treatment", "premature", "notyet", "not", "yet", "nolonger",
    "longer", "still", "stillvalid", "invalidated", "invalid", "valid", "stale", "expired",
    # outcomes
    "correct", "wrong", "missed",
})
"""Tokens (casefolded) never kept in an item id, whatever the corpus."""

_TOKEN = re.compile(r"[^-_.\s]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-+=@]")
"""Characters pytest would escape or that would confuse node-id parsing (``[``, ``]``, ``::``)."""


def _words(label: str | None) -> set[str]:
    """The word tokens of a label name (``distance-8`` gives ``distance``, not ``8``: a number alone
    says nothing, and dropping it would strip question numbers)."""
    return {token.casefold() for token in _TOKEN.findall(label or "")
            if any(character.isalpha() for character in token)}


class QuestionLabels(Protocol):
    """What item ids are derived from: a full record or a collected question's head alike."""

    @property
    def question_id(self) -> str: ...
    @property
    def shape(self) -> str: ...
    @property
    def arm(self) -> str | None: ...
    @property
    def expected_negative(self) -> str | None: ...
    @property
    def has_gold(self) -> bool: ...


def _dimensions(record: QuestionLabels) -> dict[str, str]:
    return {
        "shape": record.shape,
        "arm": record.arm or "",
        "negative": record.expected_negative or "",
        "gold": "with gold" if record.has_gold else "without gold",
    }


def label_tokens(records: Sequence[QuestionLabels]) -> frozenset[str]:
    """Every casefolded token that must not appear in these records' item ids (module docstring)."""
    labels: set[str] = set(LABEL_WORDS)
    for record in records:
        labels |= _words(record.shape) | _words(record.arm) | _words(record.expected_negative)
        labels |= _words(record.shape.replace("-", "")) | _words(record.shape.replace("-", "_"))
    dimensions = [_dimensions(record) for record in records]
    varying = [name for name in ("shape", "arm", "negative", "gold")
               if len({row[name] for row in dimensions}) > 1]
    holders: dict[str, set[int]] = defaultdict(set)
    for index, record in enumerate(records):
        for token in _TOKEN.findall(record.question_id):
            if any(character.isalpha() for character in token):
                holders[token.casefold()].add(index)
    for token, indices in holders.items():
        if len(indices) == len(records):
            continue  # constant over the corpus: carries nothing
        if not any(character.isdigit() for character in token):
            labels.add(token)
        elif len(indices) >= 2 and any(len({dimensions[i][name] for i in indices}) == 1 for name in varying):
            labels.add(token)
    return frozenset(labels)


def _cleaned(question_id: str, labels: frozenset[str]) -> str:
    kept: list[str] = []
    for match in re.finditer(r"([-_.\s]*)([^-_.\s]+)", question_id):
        separator, token = match.group(1), match.group(2)
        if token.casefold() in labels:
            continue
        kept.append((separator if kept else "") + token)
    return _UNSAFE.sub("_", "".join(kept))


def item_ids(records: Sequence[QuestionLabels], salt: str,
             clean: Callable[[str, frozenset[str]], str] = _cleaned) -> dict[str, str]:
    """Question id -> item id for one corpus (``salt``: the corpus sha256). Deterministic, unique,
    free of label tokens; readable where the question id is."""
    labels = label_tokens(records)
    base = {record.question_id: clean(record.question_id, labels) for record in records}
    counts: dict[str, int] = defaultdict(int)
    for value in base.values():
        counts[value] += 1
    ids: dict[str, str] = {}
    for question_id, value in base.items():
        if value and counts[value] == 1:
            ids[question_id] = value
            continue
        digest = hashlib.sha256(f"{salt}\x00{question_id}".encode()).hexdigest()[:8]
        ids[question_id] = f"{value}-{digest}" if value else f"q-{digest}"
    return ids
