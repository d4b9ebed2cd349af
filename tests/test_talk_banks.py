"""The shared conversational scaffold (pytest_typedmemeval.generate.talk): sizes, shapes and the
line rules, with negative controls proving the checker refuses what it must."""

from __future__ import annotations

import re

import pytest

from pytest_typedmemeval.generate import talk
from pytest_typedmemeval.generate.talk import (
    ASSISTANT_MENTION_REPLIES,
    ASSISTANT_TALK,
    BANKS,
    MENTIONS,
    USER_TALK,
    USER_TALK_TOPICS,
    bank_problems,
    lines_without,
    problems,
    render_mention,
    scaffold_words,
)
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens


def _sentences(line: str) -> int:
    return len(re.split(r"(?<=[.!?]) +", line))


def _words(line: str) -> int:
    return len(line.split())


# --- sizes and shapes --------------------------------------------------------------------------


def test_bank_sizes() -> None:
    assert len(USER_TALK) >= 160
    assert len(ASSISTANT_TALK) >= 120
    assert len(MENTIONS) >= 60
    assert len(ASSISTANT_MENTION_REPLIES) >= 30


def test_user_talk_spans_many_topics_in_parallel() -> None:
    assert len(USER_TALK_TOPICS) == len(USER_TALK)
    assert len(set(USER_TALK_TOPICS)) >= 16
    assert all(line in talk.USER_TALK_BY_TOPIC[topic] for line, topic in zip(USER_TALK, USER_TALK_TOPICS))
    assert all(len(lines) >= 8 for lines in talk.USER_TALK_BY_TOPIC.values()), "topics are spread"


def test_user_talk_shape() -> None:
    bad = [line for line in USER_TALK if not (2 <= _sentences(line) <= 3 and 12 <= _words(line) <= 40)]
    assert not bad
    assert sum("?" in line for line in USER_TALK) >= 10, "some turns ask the assistant something"
    assert sum("!" in line for line in USER_TALK) >= 10, "some turns exclaim"
    assert sum(_sentences(line) == 3 for line in USER_TALK) >= 10, "lengths vary"


def test_assistant_shapes() -> None:
    for bank in (ASSISTANT_TALK, ASSISTANT_MENTION_REPLIES):
        assert all(1 <= _sentences(line) <= 3 for line in bank)
        assert not any("{" in line for line in bank), "replies never carry the subject"
    assert sum(line.endswith("?") for line in ASSISTANT_TALK) >= 10, "some replies follow up"


def test_mentions_have_one_subject_and_fit_any_subject_length() -> None:
    for template in MENTIONS:
        assert template.count("{subject}") == 1, template
        assert 1 <= _sentences(template) <= 2, template
        for subject in ("Belcor", "the physio for the shoulder"):
            assert 8 <= _words(render_mention(template, subject)) <= 22, (template, subject)


def test_render_mention_capitalises_an_opening_subject() -> None:
    assert render_mention("{subject} came up at lunch.", "the boiler at the cottage") == (
        "The boiler at the cottage came up at lunch.")
    assert render_mention("Oh well. {subject} came up.", "the boiler") == "Oh well. The boiler came up."
    assert render_mention("I thought of {subject} there.", "the boiler") == "I thought of the boiler there."
    assert render_mention("{subject} came up.", "Belcor") == "Belcor came up."


# --- the line rules ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BANKS))
def test_every_line_keeps_the_rules(name: str) -> None:
    bad = {line: problems(line) for line in BANKS[name]}
    assert not {line: found for line, found in bad.items() if found}


def test_banks_have_no_repeats_and_no_near_copies() -> None:
    assert bank_problems(BANKS) == []


@pytest.mark.parametrize(("line", "rule"), [
    ("We met Anna at the cafe.", "capitalised word"),
    ("It rained for two hours.", "forbidden word"),
    ("I will see it through once.", "forbidden word"),
    ("The fee is due soon.", "forbidden word"),
    ("I went with the blue wool.", "forbidden word"),
    ("Is it me or you at the wheel?", "forbidden word"),
    ("I walked past the park.", "judge cue"),
    ("There is hardly room, there is nothing here.", "judge cue"),
    ("It is good to see the sun.", "judge cue"),
    ("It has started raining.", "judge cue"),
    ("The cafe closed early.", "judge cue"),
    ("I used to knit.", "judge cue"),
    ("I am unsure about the weather.", "judge cue"),
    ("Tea came to three quid.", "forbidden word"),
    ("Tea was 3 quid.", "forbidden characters"),
    ("A well-known spot.", "forbidden characters"),
    ("A quiet spot: lovely.", "forbidden characters"),
    ("My mum's cat is lovely.", "forbidden characters"),
    ("The rain was (sort of) heavy.", "forbidden characters"),
    ("It was fine", "does not end"),
    ("Good  grief.", "stray spaces"),
    ("Caf\u00e9 au lait.", "non-ASCII"),
    ("it was fine.", "sentence starts lower case"),
    ("{subject} met {subject} in the park.", "more than one placeholder"),
])
def test_checker_refuses_a_bad_line(line: str, rule: str) -> None:
    assert any(found.startswith(rule) for found in problems(line)), problems(line)


def test_checker_refuses_a_bad_bank() -> None:
    """Negative control at bank level: a planted bad line, a repeat and a near copy are caught, and
    the import-time assertion would fail on a bank like this."""
    good = USER_TALK[0]
    found = bank_problems({
        "A": (good, "I still plan to buy it tomorrow."),
        "B": (good, "The rain was heavy on the roof.", "The rain was heavy on the roof tiles."),
    })
    assert any("still" in f for f in found)
    assert any(f.startswith("line appears 2 times") for f in found)
    assert any("too alike" in f for f in found)


def test_forbidden_words_are_held_as_a_frozenset() -> None:
    assert isinstance(talk.FORBIDDEN_WORDS, frozenset)
    assert {"still", "when", "went with", "me or you"} <= talk.FORBIDDEN_WORDS


# --- vocabulary helpers ------------------------------------------------------------------------


def test_scaffold_words_cover_every_bank_token() -> None:
    words = scaffold_words()
    assert all(token in words for bank in BANKS.values() for line in bank
               for token in raw_tokens(line.replace("{subject}", " ")))
    assert "subject" not in words
    assert all(word == word.lower() for word in words)


def test_lines_without_drops_lines_sharing_a_word() -> None:
    kept = lines_without(USER_TALK, {"Kitchen", "garden"})
    assert kept and len(kept) < len(USER_TALK)
    assert not any({"kitchen", "garden"} & set(raw_tokens(line)) for line in kept)
    assert set(kept) == {line for line in USER_TALK
                         if not {"kitchen", "garden"} & set(raw_tokens(line))}
    assert lines_without(MENTIONS, {"subject"}) == MENTIONS, "the placeholder is no word"
