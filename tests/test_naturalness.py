"""The conversation-naturalness instrument (VERTICALS.md Appendix D, §4.1): each figure known exactly
on small hand-made sessions."""

from __future__ import annotations

import json
import random

import pytest

from pytest_typedmemeval.corpus.models import QuestionRecord
from pytest_typedmemeval.corpus.naturalness import (
    Naturalness,
    answers,
    content_stems,
    distinct_sessions,
    is_yes_no_question,
    measure,
    opens_with_yes_no,
    question_sentence,
    reply_pairs,
)


def _turns(*pairs: tuple[str, str]) -> list[dict]:
    return [{"role": role, "content": content} for role, content in pairs]


def _record(sessions: list[list[dict]], number: int = 1, ids: list[str] | None = None) -> dict:
    ids = ids or [f"s-{number}-{index}" for index in range(len(sessions))]
    return {
        "question_id": f"tme-ep-{number:03d}",
        "question_type": "single-session-user",
        "question": "Which shop did I use?",
        "answer": "Cassal",
        "question_date": "2026/03/14 (Sat) 09:30",
        "haystack_session_ids": ids,
        "haystack_dates": ["2026/03/01 (Sun) 10:00"] * len(sessions),
        "haystack_sessions": sessions,
        "answer_session_ids": [],
        "typedmemeval": {"vertical": "episodic", "shape": "single",
                         "answer_key": {"accepted": ["Cassal"]}},
    }


def _u(text: str) -> tuple[str, str]:
    return ("user", text)


def _a(text: str) -> tuple[str, str]:
    return ("assistant", text)


# -- 1. adjacent cross-speaker turns sharing a content word ---------------------------------------

def test_a_reply_sharing_a_stemmed_word_counts():
    assert content_stems("I booked the ferry.") & content_stems("Which booking site did you use?")
    result = measure([_record([_turns(_u("I booked the ferry for Friday."),
                                      _a("Good, was the booking easy?"))])])
    assert (result.adjacent_shared_content_word.n, result.adjacent_shared_content_word.count) == (1, 1)


def test_stopword_function_and_chat_word_overlap_does_not_count():
    session = _turns(
        _u("It was the one I had, you know."),       # only stopwords / function / chat words
        _a("Oh yes, it was one of those, I think."),
        _u("Thanks, that is great!"),
        _a("Great, thanks for telling me."),
    )
    result = measure([_record([session])])
    assert result.adjacent_shared_content_word.n == 3
    assert result.adjacent_shared_content_word.count == 0
    assert result.adjacent_shared_content_word.share == 0.0


def test_only_cross_speaker_pairs_are_counted():
    session = _turns(_u("The kiln arrived."), _u("The kiln is huge."), _a("Where will the kiln go?"))
    result = measure([_record([session])])
    # (user, user) is no pair; (user, assistant) shares "kiln".
    assert (result.adjacent_shared_content_word.n, result.adjacent_shared_content_word.count) == (1, 1)


def test_a_turn_without_content_words_counts_as_not_sharing():
    result = measure([_record([_turns(_u("The plumber came round today."), _a("Thanks!"))])])
    assert result.adjacent_shared_content_word.share == 0.0


# -- 2. distinct sentences ------------------------------------------------------------------------

def test_a_repeated_sentence_lowers_distinctness():
    session = _turns(_u("I like tea. I like tea."), _a("I LIKE   tea. Coffee is fine too!"))
    result = measure([_record([session])])
    assert (result.distinct_sentences.n, result.distinct_sentences.count) == (4, 2)
    assert result.distinct_sentences.share == 0.5
    assert (result.distinct_user_sentences.n, result.distinct_user_sentences.count) == (2, 1)
    assert (result.distinct_assistant_sentences.n, result.distinct_assistant_sentences.count) == (2, 2)


def test_punctuation_differs_and_wordless_pieces_are_not_sentences():
    session = _turns(_u("Sounds good. Sounds good! ..."), _a("Sounds good."))
    result = measure([_record([session])])
    assert (result.distinct_sentences.n, result.distinct_sentences.count) == (3, 2)


# -- 3. assistant questions answered --------------------------------------------------------------

def test_yes_no_question_and_short_answers():
    assert is_yes_no_question("Did you manage to relax?")
    assert is_yes_no_question("So, did you go in the end?")
    assert is_yes_no_question("Didn't you say Friday?")
    assert not is_yes_no_question("What time is it?")
    for reply in ("Yes, this morning.", "Nope.", "Well, maybe.", "I did.", "It was, yes.",
                  "I wasn't, sadly.", "I'm not sure.", "We can't.", "I think so.", "Of course!",
                  "Oh, I did"):
        assert opens_with_yes_no(reply), reply
    for reply in ("I was chatting to my cousin about the van.", "It is funny how that comes up.",
                  "I have taken on a roofer.", "We had a pancake competition.",
                  "The weather was nice."):
        assert not opens_with_yes_no(reply), reply


def test_answered_and_ignored_questions():
    session = _turns(
        _u("I spent the weekend at the ceilidh."),
        _a("How was the ceilidh?"),                          # answered by overlap
        _u("The ceilidh was brilliant, we danced all night."),
        _a("Did you manage to rest afterwards?"),            # answered by yes/no
        _u("Yes, I slept until noon."),
        _a("Was it crowded?"),                               # ignored
        _u("I was chatting to my cousin about the van."),
        _a("Which colour? I would pick blue."),              # not a question: the last sentence
        _u("Blue it is."),
        _a("Shall we plan the next one?"),                   # ends the session
    )
    result = measure([_record([session])])
    answered = result.assistant_questions_answered
    assert (answered.n, answered.count) == (3, 2)
    assert result.answered_by_overlap == 1 and result.answered_by_yes_no == 1
    assert result.assistant_questions == 4
    assert result.questions_session_final == 1
    assert result.questions_followed_by_assistant == 0


def test_question_sentence_and_answers():
    assert question_sentence("Lovely. Did it take long?") == "Did it take long?"
    assert question_sentence('He asked "really?"') == 'He asked "really?"'
    assert question_sentence("Which one? I would pick blue.") is None
    assert answers("How did the booking go?", "I booked it on Monday.") == "overlap"
    assert answers("Was it crowded?", "Not really.") == "yes_no"
    assert answers("What time is the train?", "Half past six.") is None   # documented miss


def test_user_questions_are_not_assistant_questions():
    result = measure([_record([_turns(_u("Could you remind me?"), _a("Of course."))])])
    assert result.assistant_questions == 0
    assert result.assistant_questions_answered.share is None


# -- distinct sessions, record types, output ------------------------------------------------------

SHARED = _turns(_u("The kiln arrived today."), _a("Where will the kiln go?"), _u("In the shed."))
OTHER = _turns(_u("I booked the ferry."), _a("Was the booking easy?"), _u("Yes, very."))


def test_shared_sessions_are_counted_once():
    records = [_record([SHARED, OTHER], 1), _record([OTHER, SHARED], 2)]
    assert [name for name, _ in distinct_sessions(records)] == ["s-1-0", "s-1-1"]
    result = measure(records)
    assert result.sessions == 2 and result.turns == 6
    assert result.adjacent_shared_content_word.n == 4


def test_models_dicts_and_corpus_like_objects_agree():
    raw = [_record([SHARED, OTHER], 1), _record([OTHER], 2)]
    models = [QuestionRecord.model_validate(record) for record in raw]

    class CorpusLike:
        records = tuple(models)

    from_raw = measure(raw)
    assert measure(models) == from_raw
    assert measure(CorpusLike()) == from_raw
    assert measure(iter(raw)) == from_raw
    assert reply_pairs(models, 5, 3) == reply_pairs(raw, 5, 3) == reply_pairs(CorpusLike(), 5, 3)


def test_as_stats_is_json_ready_and_rounded():
    session = _turns(_u("The kiln arrived."), _a("Nice."), _u("The shed is full."), _a("Shed?"))
    stats = measure([_record([session])]).as_stats()
    json.dumps(stats)
    assert stats["adjacent_shared_content_word"] == {"n": 3, "count": 1, "share": 0.333333}
    assert stats["assistant_questions_answered"]["share"] is None
    assert stats["assistant_questions_answered"]["session_final"] == 1
    assert set(stats["distinct_sentences"]["by_role"]) == {"user", "assistant"}


def test_empty_input_has_no_shares():
    result = measure([])
    assert isinstance(result, Naturalness)
    assert result.meets_bounds() == {"adjacent_shared_content_word": None, "distinct_sentences": None,
                                     "assistant_questions_answered": None}


# -- reply pairs ----------------------------------------------------------------------------------

def test_reply_pairs_are_deterministic_and_leave_global_random_alone():
    records = [_record([SHARED, OTHER], 1), _record([OTHER, SHARED], 2)]
    random.seed(12345)
    state = random.getstate()
    first = reply_pairs(records, 3, seed=7)
    assert random.getstate() == state
    random.seed(99)
    assert reply_pairs(records, 3, seed=7) == first
    assert len(first) == 3
    pair = first[0]
    assert set(pair) == {"session_id", "index", "first_role", "first", "reply"}
    session = dict(distinct_sessions(records))[pair["session_id"]]
    assert (pair["first_role"], pair["first"]) == session[pair["index"]]
    assert pair["reply"] == session[pair["index"] + 1][1]
    assert session[pair["index"]][0] != session[pair["index"] + 1][0]


def test_reply_pairs_population_and_limits():
    records = [_record([SHARED, OTHER], 1), _record([OTHER, SHARED], 2)]
    everything = reply_pairs(records, 100, seed=0)
    assert len(everything) == 4     # two distinct sessions, two cross-speaker pairs each
    assert {(p["session_id"], p["index"]) for p in everything} == {
        ("s-1-0", 0), ("s-1-0", 1), ("s-1-1", 0), ("s-1-1", 1)}
    assert reply_pairs(records, 0, seed=0) == []
    with pytest.raises(ValueError):
        reply_pairs(records, -1, seed=0)
