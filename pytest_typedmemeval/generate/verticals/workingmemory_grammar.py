"""TypedMemEval-WorkingMemory's statement grammar, both ways: filling a template with a kind, a
value and a holder, and reading statements — and a record's gold — back from the text.

The generator never trusts its plan: every record's gold is recomputed from its own bytes
(:func:`recompute_gold`, V5), and at import every template of the banks is filled and read back as
written (:func:`_assert_banks`). One module holds both directions so the reader's patterns are
derived from the same banks the filler draws from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ...retrieval.tokenizer import raw_tokens, tokenize
from .. import conversation, episodes_bank
from .. import values as value_pool
from ..length_balance import length_sequence_imbalance
from ..primitives import GenerationError, assert_disjoint
from .workingmemory_bank import (
    ACTS, AFFIRM, COMPETITORS, DENY, FAMILIES, hash_index, Kind, KIND_OF, KINDS, OPENINGS, OWN,
    REACTIONS, REQUESTS, STANCES, tail_banks, TAILS, twin_mismatches, USER_FORMS, WHEN,
    _NOUN_WORDS, _VERB_WORDS,
)

_VALUE = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_RELS = "|".join(sorted({re.escape(r.noun) for r in episodes_bank.RELATIONS.values()}, key=len,
                        reverse=True))


def _their(verb: str) -> str:
    """The verb phrase as the assistant says it of other people ("moored their boat at", "treated
    themselves to")."""
    return re.sub(r"\bmyself\b", "themselves", re.sub(r"\bmy\b", "their", verb))


def _alternation(words: Sequence[str]) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_VERB_FORMS = [k.verb for k in KINDS] + [_their(k.verb) for k in KINDS]
"""Every verb phrase as any form says it (:func:`_verb`)."""


def _pattern(template: str, tail: str = "") -> re.Pattern[str]:
    groups = {"noun": f"(?P<noun>{_alternation([k.noun for k in KINDS])})",
              "verb": f"(?P<verb>{_alternation(_VERB_FORMS)})",
              "value": f"(?P<value>{_VALUE})", "rel": f"(?P<rel>{_RELS})", "poss": "(?:his|her)",
              "subj": "(?:he|she)", "a": "(?:a|an)"}
    # A statement may open a session's turn or follow another after a semicolon (lower-cased
    # first letter), and may end the sentence or be followed by one: no final full stop.
    head, body = template[0], template[1:].rstrip(".")
    pattern = (f"[{head.upper()}{head.lower()}]" if head.isalpha() and not template.startswith("I ") else
               re.escape(head)) + re.escape(body)
    for name, group in groups.items():
        slot = re.escape("{" + name + "}")
        first, *again = pattern.split(slot)
        # a slot said twice is the same words twice: a backreference, not a second group
        repeat = f"(?P={name})" if group.startswith("(?P<") else group
        pattern = first + group + repeat.join(again) if again else first
    return re.compile(pattern.replace(re.escape("\x00"), tail))


TAIL_FORM: dict[str, str] = {tail: form for row in TAILS for form, tail in row.items()}
"""Every tail (relation slot unfilled) and the form it says."""
_REL_IN_TAIL = re.compile(rf"\bmy (?P<rel>{_RELS})\b")


def _tail_grammar() -> str:
    """Every tail of :data:`TAILS` as one compact pattern, part by part (a pattern listing the
    hundreds of tails one by one takes a minute to compile); it matches a few word strings no row
    holds, which :func:`_form_of` refuses."""
    leads = _alternation([lead for lead, _ in STANCES if lead])
    words = _alternation([w for _, st in STANCES for w in st.values() if w])
    acts = _alternation([a for acts in ACTS.values() for a in acts])
    when = _alternation([w for w in WHEN if w])
    ends = _alternation([r for r, _, _ in REACTIONS] + [i for _, _, ins in REACTIONS for i in ins])
    return (f"(?P<tail>(?:{leads})?(?:{words})?(?:{acts})(?:{when})?, (?:and|but) my (?:{_RELS}) "
            f"(?:{ends}))")


def _user_pattern(opening: str) -> re.Pattern[str]:
    """One skeleton with every tail as an alternative; the tail that matched names the form and
    holds the relation (:func:`_form_of`)."""
    return _pattern(opening.replace("{tail}", "\x00"), tail=_tail_grammar())


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *(("user", _user_pattern(o)) for o in OPENINGS),
    *(("suggestion", _pattern(t)) for t in COMPETITORS["suggestion"]),
)
"""One pattern per skeleton (the form is read from the tail that matched) and one per suggestion."""


def _form_of(m: re.Match[str]) -> tuple[str, str | None]:
    """The form and relation of a match of :data:`_PATTERNS`."""
    tail = m.groupdict().get("tail")
    if tail is None:
        return "suggestion", None
    rel = _REL_IN_TAIL.search(tail)
    assert rel is not None, tail
    said = tail[:rel.start("rel")] + "{rel}" + tail[rel.end("rel"):]
    if said not in TAIL_FORM:
        raise GenerationError(f"no tail of the bank: {tail!r}")
    return TAIL_FORM[said], rel["rel"]


class Reading(NamedTuple):
    """One statement read from the text: session, form, kind noun, value, holder relation."""

    session: int
    form: str
    noun: str
    value: str
    rel: str | None


def read_statements(texts: Sequence[Sequence[str]]) -> list[Reading]:
    """Every statement in the rendered sessions (text only, never the plan). A value of the wrong
    type for its kind, a noun with another kind's verb, or a pool word outside a statement is fatal."""
    pool = value_pool.pool_words()
    found: list[Reading] = []
    for index, turns in enumerate(texts):
        for text in turns:
            rest = text
            for _, pattern in _PATTERNS:
                while m := pattern.search(rest):
                    kind = KIND_OF.get(m["noun"])
                    said = re.sub(r"\bthemselves\b", "myself", re.sub(r"\btheir\b", "my", m["verb"]))
                    if kind is None or kind.verb != said:
                        raise GenerationError(f"session {index}: {m['noun']!r} with verb "
                                              f"{m['verb']!r}: {text!r}")
                    if value_pool.value_type(m["value"]) != kind.type:
                        raise GenerationError(f"session {index}: {m['value']!r} is not a "
                                              f"{kind.type} for the {kind.noun}: {text!r}")
                    if kind.trade and not m["value"].endswith(" " + kind.trade):
                        raise GenerationError(f"session {index}: {m['value']!r} is no {kind.trade} "
                                              "shop")
                    said_form, rel = _form_of(m)
                    found.append(Reading(index, said_form, kind.noun, m["value"], rel))
                    rest = rest[:m.start()] + "\x00" + rest[m.end():]
            if stray := [w for w in raw_tokens(rest) if w in pool]:
                raise GenerationError(f"session {index}: value word {stray[0]!r} outside a "
                                      f"statement: {text!r}")
    return sorted(found)


def _verb(kind: Kind, form: str) -> str:
    """The kind's verb phrase as ``form`` says it: every user frame has the user as its subject
    ("moored my boat at", a holder's value included: "whether I have moored my boat at the harbour
    X too, since she has..."); the assistant's suggestion, about other people, says "moored their
    boat at"."""
    return _their(kind.verb) if form == "suggestion" else kind.verb


def _fill(template: str, kind: Kind, value: str, holder: episodes_bank.Relation | None,
          form: str = "own") -> str:
    if holder is None and "{rel}" in template:  # a frame's own default (tests, bank checks)
        holder = episodes_bank.RELATIONS["sister"]
    slots = {"verb": _verb(kind, form), "noun": kind.noun, "value": value, "a": kind.article,
             "rel": holder.noun if holder else "", "poss": holder.poss if holder else "",
             "subj": holder.subj if holder else ""}
    text = template.format(**slots)
    return text[0].upper() + text[1:]


def _assert_banks() -> None:
    """Import-time checks of the banks through the grammar (GENERATION.md "Checks that belong in
    every generator"): twin tails, balanced length sequences, every template read back as written;
    the checks against the declaration's windows are :func:`.workingmemory._assert_layout`."""
    assert not twin_mismatches(TAILS), twin_mismatches(TAILS)
    assert not length_sequence_imbalance(tail_banks(TAILS))
    assert not length_sequence_imbalance({"own": OWN, **{f: COMPETITORS[f] for f in USER_FORMS}})
    for row in TAILS:
        assert sorted(row) == sorted(("own", *USER_FORMS)), row
        assert all("{noun}" not in t and "{value}" not in t and t.count("{rel}") == 1
                   and t.count("my {rel}") == 1 for t in row.values()), row
        words = {form: [w.strip() for w in t.split(",")] for form, t in row.items()}
        stance = {form: next((w for w in ws if w in AFFIRM | DENY), None) for form, ws in words.items()}
        assert (stance["own"] is None or stance["own"] in AFFIRM) and all(
            (stance[f] is None) == (stance["own"] is None) and (stance[f] is None or stance[f] in DENY)
            for f in USER_FORMS), row
    # a tail says one form (a form may say a tail in several rows: its fillers are fewer than rows)
    assert len(TAIL_FORM) == len({(f, t) for row in TAILS for f, t in row.items()})
    assert all(o.count("{tail}") == 1 and "{rel}" not in o for o in OPENINGS)
    assert len({o[:o.index("{verb}")] for o in OPENINGS}) == len(OPENINGS)
    nouns = [kind.noun for kind in KINDS]
    assert len(KINDS) == 84 and len(set(nouns)) == len(nouns), "kinds repeat"
    members = [k for ks in FAMILIES.values() for k in ks]
    assert len(FAMILIES) == 12 and sorted(members) == sorted(nouns), "families must cover the kinds"
    words: Counter[str] = Counter(w for kind in KINDS for w in set(tokenize(kind.question)))
    assert max(words.values()) <= 3, [w for w, c in words.items() if c > 3]
    frames = [*OWN, *(t for ts in COMPETITORS.values() for t in ts), *REQUESTS,
              *conversation.TRANSITIONS, *conversation.ACKNOWLEDGEMENTS]
    assert_disjoint("question words", words, "frames", {w for t in frames for w in tokenize(
        re.sub(r"\{\w+\}", " ", t))})
    assert not (_NOUN_WORDS | _VERB_WORDS) & value_pool.pool_words()
    for trade in {k.trade for k in KINDS if k.trade}:
        assert trade in value_pool.TRADES, trade
    sample = {"person": "Harriet Colby", "shop": "Colby Plumbing", "place": "Ashcombe",
              "brand": "Zentra"}
    holder = episodes_bank.RELATIONS["sister"]
    # every kind with every skeleton (the first tail row), and every template with one kind in
    # turn: every kind with every template would be half a million read-backs at import
    first = {o.replace("{tail}", TAILS[0][f]) for o in OPENINGS for f in TAILS[0]}
    every = [(form, t) for form, ts in (("own", OWN), *COMPETITORS.items()) for t in ts]
    for k, kind in enumerate(KINDS):
        assert re.fullmatch(r"[a-z ]+", kind.noun + kind.verb), kind
        value = sample[kind.type] if kind.type != "shop" else f"Colby {kind.trade}"
        for form, template in every:
            if template not in first and form != "suggestion" and hash_index(template) % len(KINDS) != k:
                continue
            text = _fill(template, kind, value, holder, form)
            read = read_statements([[text]])
            assert [(r.form, r.noun, r.value) for r in read] == [(form, kind.noun, value)], \
                (text, read)
            assert not re.search(r"[\d\u2013\u2014-]", text), text


_assert_banks()


class Gold(NamedTuple):
    value: str
    session: int
    competitors: tuple[str, ...]
    others: tuple[str, ...]


def asked_kind(question: str) -> Kind:
    m = re.fullmatch(r"Which (?P<noun>[a-z ]+?) have I (?P<verb>[a-z ]+)\?", question)
    kind = KIND_OF.get(m["noun"]) if m else None
    if kind is None or m is None or kind.verb != m["verb"]:
        raise GenerationError(f"question {question!r} names no kind of the bank")
    return kind


def recompute_gold(record: Mapping[str, Any]) -> Gold:
    """Gold from a record's own bytes: the one own statement of the asked kind, its session and
    value; the asked kind's competitors read back (none may state the user's own fact)."""
    qid = record["question_id"]
    kind = asked_kind(record["question"])
    readings = read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    mine = [r for r in readings if r.form == "own" and r.noun == kind.noun]
    if len(mine) != 1:
        raise GenerationError(f"{qid}: the {kind.noun} fact is stated {len(mine)} times (once only)")
    owns = Counter(r.noun for r in readings if r.form == "own")
    if max(owns.values()) != 1:
        raise GenerationError(f"{qid}: a kind is stated as the user's own twice")
    values = Counter(r.value for r in readings)
    if max(values.values()) != 1:
        raise GenerationError(f"{qid}: a value is named twice: {values.most_common(1)}")
    gold = mine[0]
    competitors = tuple(r.value for r in readings if r.form != "own" and r.noun == kind.noun)
    others = tuple(sorted(set(values) - {gold.value}))
    return Gold(gold.value, gold.session, competitors, others)
