"""The non-linguistic filler instrument: high on word-list padding, zero on ordinary chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_typedmemeval.corpus import text_stats
from pytest_typedmemeval.corpus.text_stats import (
    filler_count,
    non_linguistic_share,
    sentence_count,
    sentences,
)
from pytest_typedmemeval.generate import talk

from _support import fixture_corpus_files

REVISION_1_TURNS = (
    "The weather turned chilly again this week. I dug out a thick scarf. Yes, daisy, daisy, Mozwen, "
    "garnet, tide, tide.",
    "I wrote a long letter to an old friend. I posted it this afternoon. Often, seabird, Pimsef, "
    "peach, juniper, glade, bobbin.",
    "The dinghy came back from the repair shop today. (Also on my mind: harp, typewriter.) Hence "
    "daisy chalk daisy, dune rye.",
    "Thanks for the update. Calmly, pollen, dune poppy lichen oak pigeon snow kiwi, gale tide silt "
    "Zabjor. Sure, gull, tide, pigeon Drutov Pimkai, gull daisy brook.",
    "Understood. (Also on my mind: heater, dockyard, green.) Simply parsley granite, parsley.",
    "Right you are. Sure birch, wicker, mango, amber. Usually, meadow, harbour.",
    "I have walked the dog along the street Oskdun Ulkosk. (Also on my mind: handed, street, "
    "given.) Often poppy moss, moss poppy.",
)
"""Turns as the revision-1 generators wrote them (taken from the shipped v1 corpora)."""

REALISTIC_CHAT = (
    "Morning! Did you manage to look at the quote the plumber sent over?",
    "Yes, I went through it last night. The labour seems fine but the parts are marked up a lot.",
    "Eggs, milk and bread. That is all we need from the shop, I think.",
    "Thanks, great, perfect!",
    "Sounds good, cheers.",
    "Totally agree, great idea.",
    "Sure thing.",
    "Excellent news.",
    "Got it, thanks.",
    "Happy birthday, Sam!",
    "Coffee tomorrow, usual place?",
    "Journeys take longer in winter, so leave early.",
    "Gentle movement often eases stiffness.",
    "Flight 2490, gate 12.",
    "We walked along the river, stopped for lunch at the pub (the one with the garden), and got "
    "home before the rain.",
    "I packed socks, boots, gloves, a scarf and a hat for the trip.",
    "Could you remind me what time the dentist said? I wrote it down somewhere but lost the note.",
    "My sister is visiting next week, so the spare room needs clearing out.",
    "Honestly, I am not sure the new schedule works for anyone.",
    "Nice work today.",
    "Note to self: call mum, buy milk, fix the tap.",
    "The train was delayed again, twenty minutes this time.",
    "I paid $45.50 for the tickets (plus a booking fee).",
    "Okay, let me check and get back to you.",
    "Well, that went better than expected!",
    "Best wishes, Anna.",
)
"""Ordinary chat, tricky cases included: lists with a conjunction, formulae, telegraphic replies,
numerals, questions, ordinary parentheses, sign-offs."""


def test_revision_1_padding_reads_high() -> None:
    share = non_linguistic_share(REVISION_1_TURNS)
    assert 0.4 <= share <= 0.8, share


def test_realistic_chat_reads_zero() -> None:
    for line in REALISTIC_CHAT:
        assert filler_count(line).filler == 0, line
    assert non_linguistic_share(REALISTIC_CHAT) == 0.0


@pytest.mark.parametrize("bank", sorted(talk.BANKS))
def test_the_shared_natural_chat_banks_read_zero(bank: str) -> None:
    assert non_linguistic_share(talk.BANKS[bank]) == 0.0


@pytest.mark.parametrize(("text", "filler"), [
    ("Often granite, zinnia, lupin skylark, Pimmoz.", 6),
    ("Sadly sleet, linen, flax.", 4),
    ("Totally valley sand daisy chalk moss.", 6),  # no comma, but long enough to be a list
    ("Hence daisy chalk daisy.", 4),  # a repeated word: a list, not telegraphic grammar
    ("Eggs, milk, bread.", 3),  # a bare list of three, no conjunction: counts (documented)
    ("Eggs, milk and bread.", 0),
    ("Thanks, great, perfect!", 0),
    ("Yes, shale.", 0),  # two-word fragments never count
    ("Journeys take longer.", 0),  # telegraphic grammar without a comma
    ("Totally valley sand.", 0),  # ... which revision-1 short pad sentences also look like
    ("Quiet morning, slow start.", 4),  # the documented false positive: absorbed by the tolerance
    ("Nice work, well done.", 0),
    ("We went to the market, daisy, granite, tide, lupin.", 4),  # a word-list tail
    ("I need eggs, milk, bread.", 0),  # a tail of three is still English
    ("Rain, wind, sleet, hail, we had it all this week.", 0),  # the run does not end the sentence
])
def test_sentences_and_tails(text: str, filler: int) -> None:
    assert filler_count(text).filler == filler


@pytest.mark.parametrize(("text", "echo"), [
    ("Understood. (Also on my mind: heater, dockyard, green.)", 7),
    ("Understood. (Also on my mind: the dentist at noon.)", 8),  # the lead-in counts it entirely
    ("Noted. [harp, typewriter]", 2),
    ("Noted. (Reminder: harp, typewriter.)", 3),
    ("I went twice (see above).", 0),
    ("It is on the left (by the door, near the bins).", 0),
    ("That was lovely (twice).", 0),
])
def test_echo_clauses_count_entirely_and_ordinary_parentheses_do_not(text: str, echo: int) -> None:
    assert filler_count(text).echo == echo


def test_an_echo_clause_as_generated_is_counted() -> None:
    clause = "(Also on my mind: ferry, crossing, permit.)"  # as revision 1 wrote it
    count = filler_count(f"I booked the ferry. {clause}")
    assert count.echo == 7 and count.filler == 7 and count.tokens == 11


def test_share_is_over_all_word_tokens() -> None:
    texts = ["I booked the ferry for the morning crossing.", "Often granite, zinnia, lupin."]
    assert non_linguistic_share(texts) == pytest.approx(4 / 12)
    assert non_linguistic_share([]) == 0.0
    assert non_linguistic_share(["", "..."]) == 0.0


def test_sentence_splitting() -> None:
    assert sentences("I paid $12.50. Then I left!\nNew line? Yes") == [
        "I paid $12.50.", "Then I left!", "New line?", "Yes"]
    assert sentence_count(["One. Two!", "Three", "..."]) == 3


def test_no_revision_1_pad_word_is_a_language_marker() -> None:
    """The revision-1 pad vocabulary (openers, nature words, invented names) is disjoint from the
    markers, so the instrument cannot excuse padding for a marker it happens to contain."""
    path = Path(__file__).parent / "text_samples" / "revision1_pad_vocabulary.txt"
    vocabulary = {line for line in path.read_text(encoding="utf-8").splitlines()
                  if line and not line.startswith("#")}
    assert len(vocabulary) == 461
    assert not vocabulary & text_stats.LANGUAGE_MARKERS


def test_the_fixture_corpus_reads_zero() -> None:
    from pytest_typedmemeval.corpus.loading import load_corpus

    for path in fixture_corpus_files():
        corpus = load_corpus(path)
        texts = [t.content for r in corpus.records for s in r.haystack_sessions for t in s]
        assert non_linguistic_share(texts) <= 0.005, path


REVISION_1_SAMPLE = Path(__file__).parent / "text_samples" / "revision1_sessions.md"
"""Fifteen sessions of the retired revision-1 corpora, verbatim (``scripts/verticals_table.py
--samples`` at commit bbd2199): the padded text the instrument exists to see."""


def test_revision_1_sessions_read_as_padded() -> None:
    """Revision 1 padded every turn by design (§4.3); the instrument sees it without being told
    (on the whole v1 corpora it measured 0.48-0.67, CHANGELOG)."""
    texts = [line.split(":**", 1)[1].strip() for line in
             REVISION_1_SAMPLE.read_text(encoding="utf-8").splitlines() if line.startswith("> **")]
    assert len(texts) >= 60
    assert 0.4 <= non_linguistic_share(texts) <= 0.8


def test_the_shipped_corpora_carry_no_word_list_filler() -> None:
    from pytest_typedmemeval import shipped_corpora

    for corpus in shipped_corpora():
        texts = [t.content for r in corpus.records for s in r.haystack_sessions for t in s]
        assert non_linguistic_share(texts) <= 0.005, corpus.corpus_id
