"""TypedMemEval-Prospective revision 3 (generate/verticals/prospective.py): bytes, values, competitors,
positions, read-back, keys, and one injected defect per validity rule."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, format_corpus_date, parse_corpus_date
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import engine, episodes_bank, values
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import prospective as pro
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = pro.RECORDED_COMPETITION
# The test's own reading of spans (not the generator's table): number words and units.
_NUMBERS = {span.split()[0]: days // (7 if span.endswith("weeks") else 1)
            for span, days in pro.SPANS.items()}
_SPAN = re.compile(r"\b(?:in|for the next) (\w+) (days|weeks)\b", re.IGNORECASE)
_PERSON = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return pro.build(pro.SEED, DIAL).records


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    yield
    pro._layout.cache_clear()
    pro._final_ids.cache_clear()


def _build(shape: str = "due-later") -> list[dict[str, Any]]:
    return pro.build(pro.SEED, DIAL, shapes=(shape,)).records


def _of(records: list[dict[str, Any]], shape: str, arm: str | None) -> dict[str, Any]:
    """The ``arm`` of the first pair of ``shape`` (in id order of the before arms)."""
    pair = next(r["typedmemeval"]["pair_id"] for r in records if r["question_type"] == shape
                and r["typedmemeval"]["arm"] == "before")
    return next(r for r in records if r["typedmemeval"].get("pair_id") == pair
                and r["typedmemeval"]["arm"] == arm)


def _key(record: dict[str, Any]) -> AnswerKey:
    return AnswerKey.model_validate(record["typedmemeval"]["answer_key"])


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, _key(record)).outcome


def _gold_index(record: dict[str, Any]) -> int:
    return next(i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s))


def _haystacks(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per haystack (a pair's arms share theirs)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for r in records:
        if (key := tuple(r["haystack_session_ids"])) not in seen:
            seen.add(key)
            out.append(r)
    return out


# --- bytes, ids, text -------------------------------------------------------------------------


def test_two_builds_are_byte_identical_and_a_shape_does_not_depend_on_the_others(
        records: list[dict[str, Any]]) -> None:
    assert dump_json(pro.build(pro.SEED, DIAL).records) == dump_json(records)
    alone = _build("current")
    assert dump_json(alone) == dump_json([r for r in records if r["question_type"] == "current"])


def test_ids_are_opaque_and_the_shape_mix_is_the_spec(records: list[dict[str, Any]]) -> None:
    assert [r["question_id"] for r in records] == [f"tme-pro-{i:03d}" for i in range(1, 51)]
    counts = Counter(r["question_type"] for r in records)
    assert counts == {"as-of": 4, "current": 4, "prospective": 4, "due-later": 16,
                      "expiring-validity": 12, "not-yet-true": 10}
    pairs = {r["typedmemeval"]["pair_id"] for r in records if "pair_id" in r["typedmemeval"]}
    assert len(pairs) == 19 and all(re.fullmatch(r"tme-pro-p\d\d", p) for p in pairs)
    assert all(12 <= len(r["haystack_sessions"]) - 1 <= 20 for r in records)


def test_the_text_is_chat_without_word_lists_or_dates(records: list[dict[str, Any]]) -> None:
    texts = [t["content"] for r in records for s in r["haystack_sessions"] for t in s]
    assert non_linguistic_share(texts) == 0.0
    assert not any(re.search(r"\d|\u2014|\u2013|\b(?:Monday|January|March)\b", t) for t in texts)
    for r in _haystacks(records):  # every session opens with the user and roles alternate
        for session in r["haystack_sessions"]:
            assert [t["role"] for t in session] == ["user", "assistant"] * (len(session) // 2)


def test_naturalness_meets_appendix_d(records: list[dict[str, Any]]) -> None:
    from pytest_typedmemeval.corpus.models import QuestionRecord
    from pytest_typedmemeval.corpus.naturalness import measure

    found = measure([QuestionRecord.model_validate(r) for r in records])
    assert (found.adjacent_shared_content_word.share or 0.0) >= 0.50
    assert (found.distinct_sentences.share or 0.0) >= 0.50
    assert (found.assistant_questions_answered.share or 0.0) >= 0.80


# --- one pool, roles after the draw -----------------------------------------------------------


def test_every_haystack_draws_its_people_in_one_call_before_any_role(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, list[str]]] = []
    draw = values.draw

    def spy(rng: Any, kind: Any, n: int, *, taken: Any = ()) -> list[str]:
        out = draw(rng, kind, n, taken=taken)
        calls.append((kind, out))
        return out

    monkeypatch.setattr(pro.value_pool, "draw", spy)
    built = _build("expiring-validity")
    assert [kind for kind, _ in calls] == ["person"] * 6
    for record in _haystacks(built):
        named = set(_PERSON.findall(" ".join(t["content"] for s in record["haystack_sessions"]
                                             for t in s)))
        assert any(named == set(out) for _, out in calls)


def test_a_values_pool_and_form_do_not_depend_on_its_role(records: list[dict[str, Any]]) -> None:
    """Gold and competitor names: one type (people), and the same spread over the sorted pools'
    halves and parities that told gold in v2 (an interleaved split), within binomial noise."""
    gold: list[str] = []
    rivals: list[str] = []
    for record in _haystacks(records):
        found = pro.recompute_gold(record)
        gold.append(found.value)
        rivals += found.competitors
    assert all(values.value_type(v) == "person" for v in gold + rivals)
    firsts = {name: i for i, name in enumerate(values.FIRST_NAMES)}
    lasts = {name: i for i, name in enumerate(values.SURNAMES)}
    for index, pool in ((0, firsts), (1, lasts)):
        for feature in (lambda i: i % 2, lambda i: 2 * i >= len(pool)):
            share = {role: sum(feature(pool[v.split()[index]]) for v in vs) / len(vs)
                     for role, vs in (("gold", gold), ("rival", rivals))}
            spread = 3 * (0.25 / len(gold)) ** 0.5
            assert abs(share["gold"] - share["rival"]) < spread, (index, share)
    length = {role: sum(map(len, vs)) / len(vs) for role, vs in (("gold", gold), ("rival", rivals))}
    assert abs(length["gold"] - length["rival"]) < 1.5, length


def test_subjects_come_from_one_list_and_each_asked_one_is_filler_elsewhere(
        records: list[dict[str, Any]]) -> None:
    asked = [pro.asked_subject(r) for r in _haystacks(records)]
    assert len(set(asked)) == len(asked)
    owners: Counter[str] = Counter()
    for record in _haystacks(records):
        for reading in pro.read_statements([[t["content"] for t in s]
                                            for s in record["haystack_sessions"]]):
            if reading.form == "own" and (reading.noun, reading.place) != pro.asked_subject(record):
                owners.update([reading.noun])
    filler_nouns = {noun for noun, _ in asked if owners[noun]}
    assert len(filler_nouns) >= 0.8 * len(asked)


# --- competitors ----------------------------------------------------------------------------


def test_competitors_carry_values_read_back_and_never_answer(records: list[dict[str, Any]]) -> None:
    forms: Counter[str] = Counter()
    for record in records:
        gold = pro.recompute_gold(record)
        assert gold.rivals >= record["typedmemeval"]["dial"]["value"] >= 1
        assert gold.value not in gold.competitors and len(gold.competitors) >= gold.rivals
        key = _key(record)
        assert set(gold.competitors) <= set(key.wrong) | set(key.stale)
        noun, place = pro.asked_subject(record)
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        mine = [r for r in readings if r.noun == noun and r.place in (place, None)]
        assert sum(r.form == "own" and r.place == place for r in mine) == 1
        forms.update(r.form for r in mine if r.form != "own")
        for value in gold.competitors:
            answer = pro.ANSWERS[(record["question_type"], record["typedmemeval"].get("arm"))]
            assert _grade(record, answer.format(value=value, subject=pro.phrase((noun, place)))) \
                is not Outcome.CORRECT
    assert set(forms) == {"cancelled", "suggestion"}, forms


def test_every_session_carries_one_own_statement_and_its_competitors(
        records: list[dict[str, Any]]) -> None:
    for record in _haystacks(records):
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        per = Counter((r.session, r.form == "own") for r in readings)
        n = len(record["haystack_sessions"])
        assert all(per[(i, True)] == 1 and per[(i, False)] == 2 for i in range(n))


def test_the_decoy_is_clustered_like_the_asked_subject(records: list[dict[str, Any]]) -> None:
    """Two subjects per haystack carry an own statement and the same number of competitors, so
    the subject a haystack recurs around does not tell which one is asked (or where gold is)."""
    for record in _haystacks(records):
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        about = Counter((r.noun, r.place) for r in readings if r.form not in ("own", "holder"))
        holders = Counter(r.noun for r in readings if r.form == "holder")
        asked = pro.asked_subject(record)
        count = record["typedmemeval"]["dial"]["value"]
        twins = [s for s in {(r.noun, r.place) for r in readings if r.form == "own"} - {asked}
                 if about[s] + holders[s[0]] >= count]
        assert twins, record["question_id"]


def test_clustered_subjects_take_every_slot_they_can(records: list[dict[str, Any]]) -> None:
    """Every session has two competitor slots; as many subjects as the slots hold carry an own
    statement and ``count`` competitors each (the asked one among them), and the slots left over
    go evenly to the other subjects, none above ``count``. Red team 28: with two or three clusters
    only, the asked subject was the haystack's most-named in 0.586 of haystacks (a random subject
    0.071)."""
    for record in _haystacks(records):
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        n, count = len(record["haystack_sessions"]), record["typedmemeval"]["dial"]["value"]
        about = Counter((r.noun, r.place) for r in readings if r.form != "own")
        subjects = {(r.noun, r.place) for r in readings if r.form == "own"}
        clustered = {s for s in subjects if about[s] == count}
        assert pro.asked_subject(record) in clustered, record["question_id"]
        assert sum(about.values()) == 2 * n
        # the design, stated here: the most clusters 2n slots hold, one fewer when they do not place
        assert len(clustered) >= max(2, min(n - 1, 2 * n // count) - 1), record["question_id"]
        assert max(about[s] for s in subjects - clustered) <= count, record["question_id"]


def _pairs(text: str) -> set[tuple[str, str]]:
    """The test's own phrases: adjacent word pairs with at least one non-stopword."""
    from pytest_typedmemeval.retrieval.tokenizer import STOPWORDS, raw_tokens

    words = raw_tokens(text)
    return {(a, b) for a, b in zip(words, words[1:]) if a not in STOPWORDS or b not in STOPWORDS}


def test_competitors_carry_the_subject_phrase_as_the_question_words_it(
        records: list[dict[str, Any]]) -> None:
    """The phrase reader's tell, made impossible by construction: every competitor of the asked
    subject holds its phrase ("the boiler at the cottage"), and every statement body of a kind
    (gold's and its cancelled twins' alike) holds as many of the question's phrases as every other
    (so the phrase alone never puts gold's session first). In the first v3 build the as-of
    questions' "was looking after" sat in one own template only, and the phrase reader covered gold
    1.00."""
    from pytest_typedmemeval.gates import adversaries
    from pytest_typedmemeval.generate.sidecar import corpus_from_text

    for record in _haystacks(records):
        noun, place = pro.asked_subject(record)
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        asked = {p for p in _pairs(record["question"])  # the subject and the question's verbs
                 if not set(p) & {*_NUMBERS, "two", "days", "weeks", "ago"}}
        gold_session = _gold_index(record)
        subject = re.compile(rf"\bthe {noun} at (?:the|his|her) (?:{place}|{'|'.join(pro.PLACES)})\b")
        best: list[int] = []
        for i, session in enumerate(record["haystack_sessions"]):
            sentences = [s for t in session for s in re.split(r"(?<=[.?!])\s+", t["content"])]
            held = [len(asked & _pairs(s)) for s in sentences  # statements: they name people
                    if re.search(rf"\bthe {noun} at", s) and _PERSON.search(s)]
            best.append(max(held, default=0))
            for r in readings:  # every competitor's sentence names the subject as the question does
                if r.session == i and r.form != "own" and r.noun == noun and r.place in (place, None):
                    assert any(subject.search(s) for s in sentences), (record["question_id"], i)
        rivals = {r.session for r in readings if r.form != "own" and (r.noun, r.place) == (noun, place)}
        assert rivals and best[gold_session] > 0, (record["question_id"], best, sorted(rivals))
    # One body bank for every role: each body of a kind holds as many of the question's phrases as
    # every other, so gold's statement never holds more of them than a cancelled twin's.
    for shape, question in pro.QUESTIONS.items():
        asked = {p for p in _pairs(question.format(subject="the boiler at the cottage", offset="ten days"))
                 if not set(p) & {*_NUMBERS, "two", "days", "weeks", "ago"}}
        filled = [body.format(subject="the boiler at the cottage", value="Ann Bee", value2="Cy Dee",
                              span="nine weeks") for body in pro.BODIES[pro.KIND_OF_SHAPE[shape]]]
        held = {max(len(asked & _pairs(s)) for s in re.split(r"(?<=[.?!])\s+", text)) for text in filled}
        assert len(held) == 1, (shape, held)
    corpus = corpus_from_text(dump_json(records), "typedmemeval-prospective-v3", "prospective")
    measured = adversaries.check(corpus).measured["by_shape"]
    for shape in pro.SHAPES:
        assert measured[shape]["phrase_reader"]["coverage_at_5"] <= 0.90, shape


def test_every_hand_over_competitor_says_looks_after_the_subject_as_gold_does(
        records: list[dict[str, Any]]) -> None:
    """Red team 28 rebuild, second round: hand-over haystacks dealt two one-name assistant
    suggestions (none of the question's words) to every cancelled twin, to spare the people pool,
    and the phrase reader put gold in the top five of every ``current`` question (1.000, ceiling
    0.90). Every hand-over competitor is now a user-said cancelled statement (a twin, or a
    :data:`KIN_BODIES` body whose successor is a relation) holding as many of the question's phrases
    as gold's body, and the pool still suffices."""
    for shape in ("as-of", "current", "prospective"):
        asked = {p for p in _pairs(pro.QUESTIONS[shape].format(subject="the boiler at the cottage",
                                                               offset="ten days"))
                 if not set(p) & {*_NUMBERS, "two", "days", "weeks", "ago"}}
        filled = [body.format(subject="the boiler at the cottage", value="Ann Bee", value2="Cy Dee",
                              rel="sister", span="nine weeks")
                  for body in (*pro.BODIES["schedule"], *pro.KIN_BODIES)]
        held = {max(len(asked & _pairs(s)) for s in re.split(r"(?<=[.?!])\s+", text)) for text in filled}
        assert len(held) == 1, (shape, held)
    assert set(pro.FORMS["schedule"]) == {"cancelled", "cancelled-kin"}
    successors: Counter[bool] = Counter()
    for record in _haystacks(records):
        if pro.KIND_OF_SHAPE[record["question_type"]] != "schedule":
            continue
        noun, place = pro.asked_subject(record)
        readings = pro.read_statements([[t["content"] for t in s]
                                        for s in record["haystack_sessions"]])
        rivals = [r for r in readings if r.form != "own" and (r.noun, r.place) == (noun, place)]
        assert rivals and {r.form for r in rivals} == {"cancelled"}, record["question_id"]
        successors.update(r.rel is not None for r in rivals)
    assert successors[True] and successors[False], successors


# The shipped v3 bytes red team 28 beat: gold the bare own frame, every competitor the frame and a
# stance tail (two of its tails, verbatim), so the shortest named statement was gold in 0.661.
RED_TEAM_28_BANKS = {"own": ["I have set a reminder to call {value} about {subject} in {span}."],
                     "cancelled": ["I have set a reminder to call {value} about {subject} in {span}. "
                                   "Scratch that: I have since cancelled that reminder.",
                                   "I have set a reminder to call {value} about {subject} in {span}. "
                                   "I cancelled it the next day, as someone else is dealing with it."]}


def test_gold_and_its_cancelled_twins_share_every_form() -> None:
    """Every user statement is a body and a twin tail: the own and the cancelled banks hold the same
    word-length sequences in the same shares (so the same words, commas and sentences), tails alone
    and whole statements; the check refuses the banks red team 28 read by length."""
    assert pro.length_sequence_imbalance(RED_TEAM_28_BANKS)
    tails = {form: [row[form] for row in pro.TAILS] for form in pro.USER_FORMS}
    assert pro.length_sequence_imbalance(tails) == []
    for kind in pro.KINDS:
        whole = {"own": pro.OWN[kind], "cancelled": pro.COMPETITORS["cancelled"][kind]}
        assert pro.length_sequence_imbalance(whole) == []
    for row in pro.TAILS:  # the stance is in a word or two; the rest of the twins is shared
        own, cancelled = (row[f].split() for f in pro.USER_FORMS)
        assert sum(a != b for a, b in zip(own, cancelled)) <= 2, row


def test_every_user_statement_gets_its_reply_from_one_bank(records: list[dict[str, Any]]) -> None:
    """Red team 28: with a reply bank per stance, a bag of words over the assistant's reply found
    gold at 0.929 held out (21 first sentences followed only gold). Every user statement, own or
    cancelled, now takes the one neutral bank; no reply's first sentence follows gold only more
    than chance lets it (checked on the corpus: a first sentence seen after gold is seen after a
    competitor too, over the whole corpus, or is seen once)."""
    assert {pro.STANCE[form] for form in pro.USER_FORMS} == {"noted"}
    frames: dict[str, Counter[bool]] = {}
    for record in _haystacks(records):
        noun, place = pro.asked_subject(record)
        gold_session = _gold_index(record)
        for i, session in enumerate(record["haystack_sessions"]):
            for j, turn in enumerate(session[:-1]):
                if turn["role"] == "user" and _PERSON.search(turn["content"]) \
                        and f"the {noun} at the {place}" in turn["content"]:
                    first = re.split(r"(?<=[.?!])\s+", session[j + 1]["content"])[0]
                    first = re.sub(r"the [a-z ]+ at the [a-z]+", "SUBJ", first)
                    frames.setdefault(first, Counter())[i == gold_session] += 1
    gold_only = [f for f, c in frames.items() if c[True] > 1 and not c[False]]
    assert not gold_only, gold_only


_DECLINES = [re.escape(reply.reply).replace(re.escape("{topic}"), ".+")
             for reply in episodes_bank.STATEMENT_REPLIES["assistant-offer-declined"]]


def test_a_suggestion_is_declined_in_the_next_user_turn(records: list[dict[str, Any]]) -> None:
    seen = 0
    for record in _haystacks(records):
        for session in record["haystack_sessions"]:
            for i, turn in enumerate(session):
                if turn["role"] == "assistant" and re.search(
                        r"^(?:You could (?:ring|ask|try)|\w+ \w+ (?:is worth|might help))", turn["content"]):
                    seen += 1
                    assert session[i + 1]["role"] == "user"
                    assert any(re.fullmatch(declines, session[i + 1]["content"])
                               for declines in _DECLINES), session[i + 1]
    assert seen > 20


def test_the_dial_moves_slots_between_clusters_and_redraws_nothing_else() -> None:
    def plan(dial: float) -> tuple[dict[str, int], list[tuple[int, str]], list[str]]:
        built = pro.build(pro.SEED, {"due-later": dial}, shapes=("due-later",)).records
        counts: dict[str, int] = {}
        forms: list[tuple[int, str]] = []
        own: list[str] = []
        for record in _haystacks(built):
            counts[record["question"]] = record["typedmemeval"]["dial"]["value"]
            for r in pro.read_statements([[t["content"] for t in s]
                                          for s in record["haystack_sessions"]]):
                if r.form == "own":
                    own.append(f"{r.session} {r.noun} {r.place} {r.values} {r.days}")
                else:
                    forms.append((r.session, r.form))
        return counts, sorted(forms), own

    levels = {s.key: s.level for s in pro._layout(pro.SEED) if s.shape == "due-later"}
    none, half, full = (plan(d) for d in (0.0, 0.5, 1.0))
    assert set(none[0].values()) == {1}
    assert sorted(full[0].values()) == sorted(levels.values())
    assert all(1 < half[0][q] < full[0][q] for q in half[0])
    assert none[1] == half[1] == full[1] and none[2] == half[2] == full[2]  # only targets move


# --- positions, time ----------------------------------------------------------------------------


def test_gold_positions_spread_within_every_shape(records: list[dict[str, Any]]) -> None:
    for shape in pro.SHAPES:
        stays = [r for r in _haystacks(records) if r["question_type"] == shape]
        starts = [_gold_index(r) for r in stays]
        ends = [len(r["haystack_sessions"]) - 1 - _gold_index(r) for r in stays]
        assert len(set(starts)) == len(starts) and len(set(ends)) == len(ends), shape
    firsts = sum(_gold_index(r) == 0 for r in records)
    lasts = sum(_gold_index(r) == len(r["haystack_sessions"]) - 1 for r in records)
    assert firsts <= 8 and lasts <= 8


def test_gold_reads_back_from_the_text_and_the_final_timestamps(records: list[dict[str, Any]]) -> None:
    for record in records:
        gold = pro.recompute_gold(record)
        assert gold.answer == record["answer"]
        assert _gold_index(record) == gold.session
        turn = next(t["content"] for t in record["haystack_sessions"][gold.session] if t["has_answer"])
        assert pro.phrase(pro.asked_subject(record)) in turn and gold.value in turn


def test_pivots_lie_weeks_after_the_last_session_and_arms_either_side(
        records: list[dict[str, Any]]) -> None:
    for record in records:
        index = _gold_index(record)
        turn = next(t["content"] for t in record["haystack_sessions"][index] if t["has_answer"])
        (number, unit), = _SPAN.findall(turn)
        dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
        pivot = dates[index] + timedelta(days=_NUMBERS[number] * (7 if unit == "weeks" else 1))
        assert pivot - dates[-1] >= timedelta(weeks=3)
        asked = parse_corpus_date(record["question_date"])
        if arm := record["typedmemeval"].get("arm"):
            assert (asked > pivot) == (arm == "after") and abs(asked - pivot) >= timedelta(days=2)


def test_the_calibration_record_matches_the_recorded_dial() -> None:
    from pytest_typedmemeval.generate.registry import calibration_record

    record = calibration_record(pro)
    assert record is not None
    adjusted = record.get("adjusted", {})
    searched = {s: (adjusted[s]["recorded"] if s in adjusted else v["dial"])
                for s, v in record["by_shape"].items()}
    assert searched == DIAL


# --- answer keys ----------------------------------------------------------------------------


def test_due_later_keys_need_the_callee_on_both_arms(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "due-later", "before"), _of(records, "due-later", "after")
    callee = _key(before).must_name[0]
    assert _key(after).must_name == (callee,) and _key(before).premature == (callee,)
    assert _grade(before, before["answer"]) is Outcome.CORRECT
    assert _grade(before, "Not yet.") is Outcome.MISSED
    assert _grade(before, f"Not yet, you are to call {callee} later.") is Outcome.CORRECT
    assert _grade(before, f"Yes, call {callee} now.") is Outcome.PREMATURE
    assert _grade(after, after["answer"]) is Outcome.CORRECT
    assert _grade(after, "Yes, it is due now.") is not Outcome.CORRECT
    assert _grade(after, f"Not yet. You are to call {callee}.") is Outcome.MISSED


def test_not_yet_true_keys_name_the_planned_thing(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "not-yet-true", "before"), _of(records, "not-yet-true", "after")
    planned = _key(before).must_name[0]
    assert _grade(before, "Not yet.") is Outcome.MISSED
    assert _grade(before, f"Yes, you booked {planned}.") is Outcome.PREMATURE
    key = _key(after)
    assert key.expected_negative == "abstain" and key.must_name == (planned,)
    assert planned not in key.wrong
    assert _grade(after, after["answer"]) is Outcome.CORRECT
    for claim in (f"Yes, you booked {planned} as planned.", f"Not yet: you plan to book {planned}.",
                  f"You booked {key.wrong[0]}."):
        assert _grade(after, claim) is Outcome.WRONG, claim


def test_expiring_validity_keys_name_the_cover_and_keep_earlier_covers_wrong(
        records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "expiring-validity", "before"), _of(records, "expiring-validity", "after")
    cover = _key(before).must_name[0]
    assert _grade(before, "It is still valid.") is Outcome.MISSED
    assert _grade(after, "It has lapsed.") is Outcome.MISSED
    assert _grade(after, f"{cover}, and it is still valid.") is Outcome.WRONG
    for record in records:
        if record["question_type"] == "expiring-validity" and record["typedmemeval"]["arm"] == "after":
            assert _key(record).stale == (_key(record).must_name[0],)  # a no_longer key: stale is gold


def test_seed_keys_mark_the_other_name_of_the_hand_over(records: list[dict[str, Any]]) -> None:
    for record in (r for r in records if r["question_type"] in pro.UNPAIRED):
        key = _key(record)
        other = pro.recompute_gold(record).other
        assert other in key.stale + key.premature
        assert _grade(record, record["answer"]) is Outcome.CORRECT
        assert _grade(record, f"{other} looks after it.") is Outcome.WRONG


# --- one negative control per validity rule --------------------------------------------------


def test_an_arm_too_close_to_the_pivot_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pro, "EDGE_MINUTES", 10)
    with pytest.raises(GenerationError, match="within 2 days of the pivot"):
        _build()


def test_an_arm_on_the_wrong_side_of_the_pivot_is_refused(records: list[dict[str, Any]]) -> None:
    before, after = _of(records, "due-later", "before"), _of(records, "due-later", "after")
    with pytest.raises(GenerationError, match="strictly between the arms"):
        pro.recompute_gold({**before, "question_date": after["question_date"]})


def test_a_pivot_close_to_the_last_session_is_refused(records: list[dict[str, Any]]) -> None:
    record = _of(records, "due-later", "before")
    dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
    late = [*record["haystack_dates"][:-1], format_corpus_date(dates[-1] + timedelta(days=80))]
    with pytest.raises(GenerationError, match="weeks after the last session"):
        pro.recompute_gold({**record, "haystack_dates": late})


def test_distractors_due_with_the_gold_do_not_count_as_other_due_dates(
        records: list[dict[str, Any]]) -> None:
    """VERTICALS.md §2.1 rule 4 ("at least 3 distractor reminders with other due dates"): with every
    distractor restamped to fall due on the gold's pivot, the due-later haystack has none left."""
    record = _of(records, "due-later", "before")
    readings = pro.read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    gold = next(r for r in readings if r.form == "own" and r.session == _gold_index(record))
    assert pro.recompute_gold(record).distractors >= pro.MIN_DISTRACTOR_REMINDERS
    dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
    pivot = dates[gold.session] + timedelta(days=gold.days)
    moved = {r.session: pivot - timedelta(days=r.days) for r in readings
             if r.form == "own" and r is not gold}
    dates = [moved.get(i, d) for i, d in enumerate(dates)]
    tampered = {**record, "haystack_dates": [format_corpus_date(d) for d in dates]}
    try:
        gold_read = pro.recompute_gold(tampered)
    except GenerationError:
        return  # restamping may also break another rule (order, weeks after the last session)
    assert gold_read.distractors == 0


def test_every_due_date_falls_inside_the_asking_window_whatever_its_role(
        records: list[dict[str, Any]]) -> None:
    """Red team 34: gold fell due 3-8 days from the asked date and the rest anywhere in some fifty
    days (offset naive Bayes 0.68 held out, chance 0.19). Now every span-bearing statement falls due
    between a pair's arms (a seed shape's instants on gold's side), at least two days inside."""
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        if pair := record["typedmemeval"].get("pair_id"):
            by_pair.setdefault(pair, []).append(record)
    for arms in by_pair.values():
        before, after = sorted(parse_corpus_date(r["question_date"]) for r in arms)
        record = arms[0]
        dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
        for index, session in enumerate(record["haystack_sessions"]):
            for turn in session:
                for number, unit in _SPAN.findall(turn["content"]):
                    due = dates[index] + timedelta(days=_NUMBERS[number] * (7 if unit == "weeks" else 1))
                    assert before + timedelta(days=2) <= due <= after - timedelta(days=2), (
                        record["question_id"], turn["content"])
    for record in records:
        if record["typedmemeval"].get("pair_id"):
            continue
        gold = pro.recompute_gold(record)
        dates = [parse_corpus_date(d) for d in record["haystack_dates"]]
        offset = next((pro.OFFSETS[o] for o in pro.OFFSETS if o in record["question"]), 0)
        asked = parse_corpus_date(record["question_date"])
        instant = asked - timedelta(days=offset) if record["question_type"] == "as-of" else (
            asked + timedelta(days=offset))
        for reading in pro.read_statements([[t["content"] for t in s]
                                            for s in record["haystack_sessions"]]):
            if reading.days:
                due = dates[reading.session] + timedelta(days=reading.days)
                assert (due < instant) == gold.later, (record["question_id"], reading)
                assert abs(due - instant) >= timedelta(days=2), (record["question_id"], reading)


def test_the_asking_window_may_start_anywhere_in_a_band_several_times_its_width() -> None:
    """Red team 39: with spans of 49-91 days the window could only start 46-62 days after the last
    session while being 14-20 days wide, so "asked date minus last session > 62.7 days" told the
    after arm from the before arm in 50/50 questions. The band the window starts in must be several
    times the window's width, at the shortest and longest haystacks alike."""
    for sessions in (min(h for h, _ in pro.H_RANGE.values()) + 1,
                     max(h for _, h in pro.H_RANGE.values()) + 1):
        times = [datetime(2026, 1, 5, 18) + timedelta(days=i) for i in range(sessions)]
        starts = [pro._window(random.Random(seed), times)[0] for seed in range(300)]
        assert max(starts) - min(starts) >= 4 * timedelta(minutes=max(pro.WINDOW_MINUTES))


def test_before_and_after_arms_share_their_distances_from_the_last_session(
        records: list[dict[str, Any]]) -> None:
    """Red team 39: the before arms' distances from the haystack's last session all lay below the
    after arms' (46-62 against 63-82 days). Now the two ranges overlap."""
    gaps: dict[str, list[timedelta]] = {"before": [], "after": []}
    for record in records:
        if arm := record["typedmemeval"].get("arm"):
            gaps[arm].append(parse_corpus_date(record["question_date"])
                             - parse_corpus_date(record["haystack_dates"][-1]))
    assert max(gaps["before"]) > min(gaps["after"])


def _retext(record: dict[str, Any], session: int, old: str, new: str) -> dict[str, Any]:
    sessions = [[dict(t) for t in s] for s in record["haystack_sessions"]]
    for turn in sessions[session]:
        turn["content"] = turn["content"].replace(old, new)
    return {**record, "haystack_sessions": sessions}


def test_a_competitor_naming_the_gold_value_is_refused(records: list[dict[str, Any]]) -> None:
    record = _of(records, "expiring-validity", "before")
    gold = pro.recompute_gold(record)
    readings = pro.read_statements([[t["content"] for t in s] for s in record["haystack_sessions"]])
    noun, place = pro.asked_subject(record)
    rival = next(r for r in readings if r.form != "own" and (r.noun, r.place) == (noun, place))
    with pytest.raises(GenerationError, match="names the gold value"):
        pro.recompute_gold(_retext(record, rival.session, rival.values[0], gold.value))


def test_a_second_own_statement_about_the_asked_subject_is_refused(
        records: list[dict[str, Any]]) -> None:
    record = _of(records, "due-later", "after")
    gold = pro.recompute_gold(record)
    turn = next(t["content"] for t in record["haystack_sessions"][gold.session] if t["has_answer"])
    other = (gold.session + 1) % len(record["haystack_sessions"])
    sessions = [[dict(t) for t in s] for s in record["haystack_sessions"]]
    sessions[other][0]["content"] = turn.replace(gold.value, "Xenia Zamora")
    with pytest.raises(GenerationError, match="one own reminder statement expected"):
        pro.recompute_gold({**record, "haystack_sessions": sessions})


def test_a_before_arm_gold_without_not_yet_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.ANSWERS, ("due-later", "before"), "Soon: call {value} about {subject}.")
    with pytest.raises(GenerationError, match="not yet outright"):
        _build()


def test_a_not_yet_true_gold_claiming_the_booking_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.ANSWERS, ("not-yet-true", "after"), "You booked {value}.")
    with pytest.raises(GenerationError, match="plan went ahead"):
        _build("not-yet-true")


def test_too_few_distractor_reminders_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pro, "MIN_DISTRACTOR_REMINDERS", 30)
    with pytest.raises(GenerationError, match="distractor reminders"):
        _build()


def test_a_decoy_cluster_smaller_than_the_asked_ones_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = pro._cluster_sessions

    def short(*args: Any, **kwargs: Any) -> list[list[int]]:
        chosen = real(*args, **kwargs)
        chosen[-1] = chosen[-1][:-1]  # the last cluster is a decoy's (the asked one comes first)
        return chosen

    monkeypatch.setattr(pro, "_cluster_sessions", short)
    with pytest.raises(GenerationError, match="clusters must match"):
        _build()


def test_an_on_off_dial_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pro._layout.cache_clear()
    monkeypatch.setattr(pro, "LEVELS", (5, 6, 7, 8, 9))  # 4 haystacks cannot take 5 levels
    with pytest.raises(GenerationError, match="miss a level"):
        _build()


def test_calendar_words_in_a_question_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(pro.QUESTIONS, "current", "Who looks after {subject} on Mondays?")
    with pytest.raises(GenerationError, match="V4"):
        _build("current")


def test_digits_in_a_statement_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fill = pro._fill
    monkeypatch.setattr(pro, "_fill", lambda *a, **k: fill(*a, **k).replace(".", " at 9.", 1))
    with pytest.raises(GenerationError, match="digits or dashes"):
        _build()


def test_text_that_does_not_read_back_as_planned_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fill = pro._fill
    monkeypatch.setattr(pro, "_fill", lambda t, **k: fill(t, **{**k, "span": "nine weeks"}))
    with pytest.raises(GenerationError, match="does not read back as planned"):
        _build()


def test_a_name_outside_a_statement_is_refused() -> None:
    with pytest.raises(GenerationError, match="outside a statement"):
        pro.read_statements([["We had tea with Harriet Colby by the river."]])


def test_has_answer_on_the_wrong_session_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    record = engine.record

    def shifted(stay: engine.Haystack, **kw: Any) -> dict[str, Any]:
        (session, piece), = kw["gold"]
        return record(stay, **{**kw, "gold": [((session + 1) % len(stay.sessions), piece)]})

    monkeypatch.setattr(pro.engine, "record", shifted)
    with pytest.raises(GenerationError, match="has_answer marks"):
        _build()


def test_a_key_that_passes_a_clock_blind_answer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    make = pro._answer_key

    def v1_key(shape: str, arm: str | None, gold: Any) -> dict[str, Any]:
        key = make(shape, arm, gold)
        return {k: v for k, v in key.items() if k != "must_name"} if arm == "before" else key

    monkeypatch.setattr(pro, "_answer_key", v1_key)
    with pytest.raises(GenerationError, match="wrong answer 'Not yet.'"):
        _build()


def test_a_key_that_passes_a_competitors_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    make = pro._answer_key

    def loose(shape: str, arm: str | None, gold: Any) -> dict[str, Any]:
        key = make(shape, arm, gold)
        return {**key, "accepted": [gold.value, *gold.competitors]}

    monkeypatch.setattr(pro, "_answer_key", loose)
    with pytest.raises(GenerationError, match=r"grades the wrong answer '.+ (?:call|to call) .+' correct"):
        _build()


def test_a_common_subject_word_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pro._layout.cache_clear()
    monkeypatch.setattr(pro, "_draw_subjects",
                        lambda rng, n: [(noun, "cottage") for noun in rng.sample(pro.NOUNS, n)])
    with pytest.raises(GenerationError, match="question word 'cottage'"):
        pro.build(pro.SEED, DIAL)
