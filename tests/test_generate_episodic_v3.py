"""TypedMemEval-Episodic revision 3 (generate/verticals/episodic.py): one pool per type, valued
competitors read back, positions drawn, V5 read-back, determinism, and each validity rule refusing
an injected defect."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.generate import engine, values
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import episodic as epi
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = epi.RECORDED_COMPETITION


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return epi.build(epi.SEED, DIAL).records


@pytest.fixture(scope="module")
def stated() -> list[epi.Built]:
    return epi.build_shape(epi.SEED, "assistant-stated", DIAL["assistant-stated"])


@pytest.fixture(scope="module")
def lists() -> list[epi.Built]:
    return epi.build_shape(epi.SEED, "list-order", DIAL["list-order"])


def _shape(records: list[dict[str, Any]], shape: str) -> list[dict[str, Any]]:
    return [r for r in records if r["question_type"] == shape]


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


def _gold_turns(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for s in record["haystack_sessions"] for t in s if t["has_answer"]]


def _values(built: epi.Built, *, gold: bool) -> list[str]:
    """The values of the asked subject's statements: the gold one, or its competitors'."""
    answer = built.record["answer"].split(", ")
    return [x.value for s in built.draft.sessions for x in s
            if x.subject == built.draft.asked and x.value and (x.value in answer) == gold]


# --- bytes, ids, sizes -------------------------------------------------------------------------


def test_a_seed_gives_the_same_bytes_and_a_shape_does_not_depend_on_the_others(
        records: list[dict[str, Any]]) -> None:
    alone = epi.build(epi.SEED, DIAL, shapes=("list-order",)).records
    assert dump_json(alone) == dump_json(epi.build(epi.SEED, DIAL, shapes=("list-order",)).records)
    assert dump_json(alone) == dump_json(_shape(records, "list-order"))
    other = epi.build(epi.SEED + 1, DIAL, shapes=("list-order",)).records
    assert dump_json(other) != dump_json(alone)


def test_ids_are_opaque_and_shapes_and_sizes_are_declared(records: list[dict[str, Any]]) -> None:
    ids = [r["question_id"] for r in records]
    assert ids == sorted(ids) and len(set(ids)) == 50
    assert all(re.fullmatch(r"tme-epi-\d{3}", qid) for qid in ids)
    assert [r["question_type"] for r in records[:20]] != ["assistant-stated"] * 20
    assert Counter(r["question_type"] for r in records) == epi.N_BY_SHAPE
    for record in records:
        QuestionRecord.model_validate(record)
        g = len(record["answer_session_ids"])
        assert 15 <= len(record["haystack_sessions"]) - g <= 25
        assert (4 <= g <= 7) if record["question_type"] == "list-order" else g in (1, 2)


# --- one pool per type, roles after the draw -----------------------------------------------------


def test_a_values_type_and_form_never_depend_on_its_role(stated: list[epi.Built],
                                                        lists: list[epi.Built]) -> None:
    for shape in (stated, lists):
        gold = [v for b in shape for v in _values(b, gold=True)]
        rivals = [v for b in shape for v in _values(b, gold=False)]
        assert rivals, "the asked subjects have valued competitors"
        for built in shape:  # per question: gold and its competitors are of one type
            kinds = {values.value_type(v) for v in _values(built, gold=True) + _values(built, gold=False)}
            assert len(kinds) == 1 and None not in kinds
        gold_words = Counter(len(v.split()) for v in gold)
        rival_words = Counter(len(v.split()) for v in rivals)
        assert set(gold_words) == set(rival_words) or len(set(rival_words)) == 1
        mean = lambda xs: sum(map(len, xs)) / len(xs)  # noqa: E731
        assert abs(mean(gold) - mean(rivals)) < 2.5, (mean(gold), mean(rivals))
    # Across the shape, every type turns up for gold and competitors at matching rates.
    kind_gold = Counter(values.value_type(b.record["answer"]) for b in stated)
    kind_rival = Counter(values.value_type(v) for b in stated for v in _values(b, gold=False))
    assert set(kind_gold) == set(kind_rival) == {"brand", "shop", "place"}
    for kind in kind_gold:
        share_gold = kind_gold[kind] / sum(kind_gold.values())
        share_rival = kind_rival[kind] / sum(kind_rival.values())
        assert abs(share_gold - share_rival) < 0.25, (kind, share_gold, share_rival)


def test_values_that_answer_one_question_are_filler_in_another(stated: list[epi.Built]) -> None:
    """One pool: a gold value is no kind of value filler lacks; here the very strings recur."""
    golds = {b.record["answer"] for b in stated}
    filler = {x.value for b in stated for s in b.draft.sessions for x in s
              if x.value and x.value != b.record["answer"]}
    assert golds & filler


def test_subjects_are_asked_and_filler_alike(stated: list[epi.Built]) -> None:
    asked = {b.draft.asked for b in stated}
    elsewhere = {x.subject for b in stated for s in b.draft.sessions for x in s
                 if x.subject != b.draft.asked}
    assert asked <= elsewhere


# --- competitors, positions, read-back --------------------------------------------------------


def test_competitors_carry_values_are_read_back_and_graded_wrong(stated: list[epi.Built]) -> None:
    kinds: Counter[str] = Counter()
    for built in stated:
        gold, rivals, answer, _ = epi._gold(built.stay, "assistant-stated", built.draft)
        assert [x.value for x in gold] == [answer]
        assert rivals and all(x.value and x.session not in {g.session for g in gold} for x in rivals)
        kinds.update(x.kind for x in rivals)
        for x in rivals:
            assert x.value in built.record["typedmemeval"]["answer_key"]["wrong"]
            assert _grade(built.record, str(x.value)) is not Outcome.CORRECT
            assert _grade(built.record, f"{answer} or maybe {x.value}") is not Outcome.CORRECT
        assert _grade(built.record, f"You recommended {answer}.") is Outcome.CORRECT
    assert set(kinds) == {"declined", "other", "own"}


def test_list_competitors_are_other_lists_and_names_left_off(lists: list[epi.Built]) -> None:
    for built in lists:
        gold, rivals, answer, _ = epi._gold(built.stay, "list-order", built.draft)
        siblings = {x.subject for s in built.draft.sessions for x in s
                    if x.subject != built.draft.asked and x.subject.noun == built.draft.asked.noun}
        assert rivals or siblings
        for x in rivals:
            assert x.kind == "considered"
            assert _grade(built.record, f"{answer}, {x.value}") is not Outcome.CORRECT


def test_gold_positions_are_drawn(records: list[dict[str, Any]]) -> None:
    for shape in epi.SHAPES:
        rel = [i / (len(r["haystack_sessions"]) - 1) for r in _shape(records, shape)
               for i, sid in enumerate(r["haystack_session_ids"]) if sid in r["answer_session_ids"]]
        thirds = Counter(min(2, int(3 * x)) for x in rel)
        assert len(thirds) == 3 and min(thirds.values()) >= len(rel) / 10, (shape, thirds)
        assert len({round(x, 2) for x in rel}) > len(rel) / 2


def test_assistant_stated_gold_is_the_recommendation_not_turned_down(
        records: list[dict[str, Any]]) -> None:
    users = "\n".join(t["content"] for r in records for s in r["haystack_sessions"] for t in s
                      if t["role"] == "user")
    for record in _shape(records, "assistant-stated"):
        (turn,) = _gold_turns(record)
        assert turn["role"] == "assistant" and record["answer"] in turn["content"]
        assert record["question"].endswith("that I did not turn down?")
        assert not re.search(r"\b" + re.escape(record["answer"]) + r"\b", users)


def test_list_order_is_session_order(records: list[dict[str, Any]]) -> None:
    for record in _shape(records, "list-order"):
        items = record["answer"].split(", ")
        turns = _gold_turns(record)
        assert [t["role"] for t in turns] == ["user"] * len(items)
        assert [next(i for i in items if i in t["content"]) for t in turns] == items
        texts = ["\n".join(t["content"] for t in s) for s in record["haystack_sessions"]]
        assert all(sum(item in text for text in texts) == 1 for item in items)
        block = record["typedmemeval"]["list_order"]
        assert [block["items"][i] for i in block["presented_order"]] == items
        assert _grade(record, record["answer"]) is Outcome.CORRECT
        assert _grade(record, ", ".join(reversed(items))) is not Outcome.CORRECT


def test_attribution_is_balanced_and_every_remark_is_said_twice(
        records: list[dict[str, Any]]) -> None:
    attribution = _shape(records, "participant-attribution")
    assert Counter(r["answer"] for r in attribution) == {"me": 5, "you": 5, "both of us": 5}
    for record in attribution:
        roles = sorted(t["role"] for t in _gold_turns(record))
        assert {"me": ["user", "user"], "you": ["assistant", "assistant"],
                "both of us": ["assistant", "user"]}[record["answer"]] == roles
        for option in epi.CHOICES:
            assert (_grade(record, option) is Outcome.CORRECT) == (option == record["answer"])


def test_attribution_remarks_form_a_regular_grid() -> None:
    """Every remark shares its venue with k - 1 others and its claim with k - 1 others, and is said
    twice: gold is no centre of the haystack's recurrence."""
    built = epi.build_shape(epi.SEED, "participant-attribution", DIAL["participant-attribution"])
    k = epi.attribution_degree(DIAL["participant-attribution"])
    for b in built:
        cells = Counter((x.subject, x.claim) for s in b.draft.sessions for x in s)
        assert set(cells.values()) == {2}
        venues = Counter(v for v, _ in cells)
        claims = Counter(c for _, c in cells)
        assert set(venues.values()) == {k} and set(claims.values()) == {k}
        assert (b.draft.asked, b.draft.claim) in cells


def test_every_recommendation_session_holds_two_clustered_statements(
        stated: list[epi.Built]) -> None:
    """Own sessions and host sessions alike: one taken-up recommendation and two side statements,
    exactly two of the three about clustered subjects; every cluster the same size; both purposes
    of every clustered family clustered, each with its own taken-up recommendation (so "the
    taken-up recommendation of a subject that recurs" leaves P candidates, not one)."""
    for built in stated:
        mentions = Counter(x.subject for s in built.draft.sessions for x in s)
        clustered = {x for x, c in mentions.items() if c > 1}
        assert len({mentions[x] for x in clustered}) == 1
        assert built.draft.asked in clustered and len(clustered) >= 4
        assert {x.noun for x in clustered} == {x.noun for x in clustered
                                              for y in clustered if y != x and y.noun == x.noun}
        owns = Counter(x.subject for s in built.draft.sessions for x in s if x.kind == "taken")
        assert all(owns[x] == 1 for x in clustered)
        for session in built.draft.sessions:
            assert sorted(x.kind == "taken" for x in session) == [False, False, True]
            assert sum(x.subject in clustered for x in session) == epi.CLUSTERED_PER_SESSION
            assert len({x.subject for x in session}) == 3


def test_take_ups_and_declines_share_one_grammar(stated: list[epi.Built]) -> None:
    """Red teams 6-10 each found a surface cue between take-ups and declines written apart (reply
    length, close length, echo, where the subject sits, commas): now only the act and the reason's
    twin word differ. In the built corpus every reply frame occurs with both stances, each with its
    own stance's reason."""
    found: dict[str, set[str]] = {"taken": set(), "declined": set()}
    bodies = [(frame, kind, re.compile(
        re.escape(epi._with_reason(frame.split("{lead}, ", 1)[1], "%")
                  .format(act=act, purpose="@")).replace("@", ".+")
        .replace("%", "(?:" + "|".join(map(re.escape, epi.STANCE_REASONS[kind])) + ")") + "$"))
              for frame in epi.REPLY_FRAMES for kind, acts in epi.STANCE_ACTS.items()
              for act in acts]
    for built in stated:
        for session in built.stay.sessions:
            for turn in session:
                if turn.role == "user":
                    found_here = [(f, k) for f, k, pattern in bodies if pattern.search(turn.text)]
                    for frame, kind in found_here:
                        found[kind].add(frame)
    assert found["taken"] == found["declined"] == set(epi.REPLY_FRAMES)


def test_stance_verbs_and_list_frames_are_length_twins() -> None:
    """Red team 27 read list-order's role off the frame's character length (15/15 exact) and the
    stance off the close verb's word lengths (0.73-0.75): every take-up verb has a decline of the
    same word-length sequence, every add frame a left-off twin, so each role's bank holds every
    sequence in the same share."""
    for pairs in (epi.LIST_PAIRS, epi.STANCE_PAIRS, epi.REASON_PAIRS, epi.CLOSE_PAIRS):
        for up, down in pairs:
            assert up != down and epi.length_sequence(up) == epi.length_sequence(down)
    for banks in epi.STANCE_BANKS.values():
        assert epi.length_sequence_imbalance(banks) == []


ENDORSING = re.compile(r"\b(wise|sensible|reasonable call|makes sense|fine idea|good call)\b", re.I)
"""What the reader's population count (``/work/pairs1/pop_stats.py``) read as the assistant rating
a decline of its own recommendation."""


def test_a_declined_recommendation_is_accepted_without_praise(stated: list[epi.Built]) -> None:
    """A blind reading of 60 reply pairs: after "I have decided to reject that ..." the assistant
    said "It seems wise to reject it" (328 of 328 declines). Every decline now carries a reason and
    the assistant's close offers to look further or stays neutral; take-ups get a reason too, and
    both stances' closes name the purpose once."""
    declines = take_ups = 0
    for built in stated:
        for session in built.stay.sessions:
            for t, turn in enumerate(session[:-2]):
                if turn.role != "assistant" or not epi._pattern(
                        "taken", built.draft.asked).search(turn.text):
                    continue
                reply, close = session[t + 1].text, session[t + 2].text
                if epi._DECLINE.fullmatch(reply):
                    declines += 1
                    assert reply.endswith(tuple(f"{r}." for r in epi.STANCE_REASONS["declined"]))
                    assert not ENDORSING.search(close), close
                    assert close in {c.format(purpose=f"the {built.draft.asked.purpose}")
                                     for c in epi.STANCE_CLOSES["declined"]}, close
                elif reply.endswith(tuple(f"{r}." for r in epi.STANCE_REASONS["taken"])):
                    take_ups += 1
    assert declines and take_ups


def test_list_statements_never_get_a_presupposing_question(lists: list[epi.Built]) -> None:
    """"I have now added Zelda Ulverton to the book club" was answered "So is it something you
    wonder about much?" and "Was it a busy spell, all in all?" (blind reading: misfit); the replies
    whose question presumes what was never said are not drawn for a list statement."""
    for built in lists:
        for session in built.stay.sessions:
            for turn in session:
                if turn.role == "assistant":
                    assert not any(f in turn.text for f in epi.LIST_REPLY_AVOID), turn.text


def test_small_talk_never_misreads_the_ingredient(records: list[dict[str, Any]]) -> None:
    """The shared bank answers "I searched everywhere for an ingredient for a bean chilli" with
    "searching everywhere for a bean chilli": Episodic bans the word, so that frame is never
    drawn."""
    text = "\n".join(t["content"] for r in records for s in r["haystack_sessions"] for t in s)
    assert "an ingredient for" not in text
    assert "searching everywhere for" not in text


def test_the_length_check_refuses_the_banks_red_team_27_beat() -> None:
    """The import-time check would have refused revision 3's list frames and stance verbs."""
    old_add = ("I added {value} to {subject}.", "I put {value} on {subject}, but only after asking first.",
               "I have added {value} to {subject}, which is coming along nicely.",
               "After some thought, I popped {value} onto {subject}.")
    old_left = ("I thought about adding {value} to {subject}, but decided against it.",
                "I nearly put {value} on {subject}.",
                "In the end I left {value} off {subject}, which is coming along anyway.",
                "After some thought, I did not add {value} to {subject}.")
    assert epi.length_sequence_imbalance({"add": old_add, "considered": old_left})
    assert epi.length_sequence_imbalance({"taken": ("going for", "settling on"),
                                          "declined": ("giving up on", "passing on")})


def test_list_statements_take_one_reply_bank(lists: list[epi.Built]) -> None:
    """Red team 27: adds were answered from "arranged" and names left off from "declined" (no reply
    frame followed both; the reply's word lengths found gold at 0.93). Both now take one bank."""
    stances = {(x.kind, epi._statement(__import__("random").Random(0), x).stance)
               for built in lists for s in built.draft.sessions for x in s}
    assert stances == {("add", epi.LIST_REPLY_STANCE), ("considered", epi.LIST_REPLY_STANCE)}


def test_other_holders_are_one_word(stated: list[epi.Built]) -> None:
    """No "your friend from work's dining chairs" (red team 27)."""
    holders = {x.holder for b in stated for s in b.draft.sessions for x in s if x.holder}
    assert holders and all(" " not in h for h in holders)


def test_user_turn_values_are_reused_and_never_reach_an_assistant_turn(
        stated: list[epi.Built]) -> None:
    """Values a user turn held come back only in user turns (the lexical screen's exclusion kept
    from draining a pool), no gold is ever one of them, and a gold stays in the assistant pool
    (red team 10: golds excluded from later draws were the values found in fewest haystacks)."""
    voiced: set[str] = set()
    for built in stated:
        said = {x.value for s in built.draft.sessions for x in s if x.role == "assistant"}
        assert not said & voiced
        voiced |= {x.value for s in built.draft.sessions for x in s if x.role == "user"}
    golds = [b.record["answer"] for b in stated]
    assert not voiced & set(golds)
    later = [g for i, g in enumerate(golds) for b in stated[i + 1:]
             if any(x.value == g for s in b.draft.sessions for x in s)]
    assert later, "no gold value ever comes back in a later haystack"


def test_every_list_is_clustered_and_every_session_holds_two_statements(
        lists: list[epi.Built]) -> None:
    for built in lists:
        lengths = Counter(x.subject for s in built.draft.sessions for x in s if x.kind == "add")
        short = [n for n in lengths.values() if not epi.LIST_LENGTH[0] <= n <= epi.LIST_LENGTH[1]]
        assert len(short) <= 1 and all(n < epi.LIST_LENGTH[0] for n in short)
        for session in built.draft.sessions:
            assert sorted(x.kind for x in session) == ["add", "considered"]
            assert session[0].subject != session[1].subject


def test_every_gold_role_sequence_occurs_among_its_distractors(records: list[dict[str, Any]]) -> None:
    for record in records:
        seqs = ["|".join(t["role"][0] for t in s) for s in record["haystack_sessions"]]
        gold = {q for q, sid in zip(seqs, record["haystack_session_ids"])
                if sid in record["answer_session_ids"]}
        rest = {q for q, sid in zip(seqs, record["haystack_session_ids"])
                if sid not in record["answer_session_ids"]}
        assert gold <= rest


# --- negative controls: each validity rule refuses its defect ---------------------------------


def _redo(built: epi.Built, shape: str) -> tuple[dict[str, Any], list[str]]:
    return epi.make_record(built.stay, shape, built.draft, epi.ATTRIBUTION_FRAMES[0])


def _with_turn(stay: engine.Haystack, session: int, turn: int, text: str) -> engine.Haystack:
    sessions = [list(s) for s in stay.sessions]
    sessions[session][turn] = engine.Turn(sessions[session][turn].role, text)
    return replace(stay, sessions=sessions)


def test_a_second_taken_up_recommendation_is_refused(stated: list[epi.Built]) -> None:
    built, rival = next((b, x) for b in stated
                        for x in epi._gold(b.stay, "assistant-stated", b.draft)[1]
                        if x.kind == "declined")
    _redo(built, "assistant-stated")  # the control reads fine
    decline = built.stay.piece_turns[rival.session][rival.piece] + 1
    took = _with_turn(built.stay, rival.session, decline, "Lovely, that settles it.")
    with pytest.raises(GenerationError, match="did not turn down"):
        _redo(built._replace(stay=took), "assistant-stated")


def test_a_planned_competitor_missing_from_the_text_is_refused(stated: list[epi.Built]) -> None:
    built, rival = next((b, x) for b in stated
                        for x in epi._gold(b.stay, "assistant-stated", b.draft)[1] if x.kind == "own")
    turn = built.stay.piece_turns[rival.session][rival.piece]
    gone = _with_turn(built.stay, rival.session, turn, "I have been busy this week.")
    with pytest.raises(GenerationError, match="competitors read back"):
        _redo(built._replace(stay=gone), "assistant-stated")


def test_a_recommendation_in_a_user_turn_is_refused(stated: list[epi.Built]) -> None:
    built = stated[2]
    (gold,), _, _, _ = epi._gold(built.stay, "assistant-stated", built.draft)
    turn = built.stay.piece_turns[gold.session][gold.piece]
    moved = replace(built.stay, sessions=[[engine.Turn("user", t.text) if (s, i) == (
        gold.session, turn) else t for i, t in enumerate(ss)] for s, ss in enumerate(built.stay.sessions)])
    with pytest.raises(GenerationError):
        _redo(built._replace(stay=moved), "assistant-stated")


def test_two_items_of_the_asked_list_in_one_session_are_refused(lists: list[epi.Built]) -> None:
    built = lists[0]
    _redo(built, "list-order")
    gold = epi._gold(built.stay, "list-order", built.draft)[0]
    first, second = gold[0], gold[1]
    turn = built.stay.piece_turns[first.session][first.piece]
    text = built.stay.sessions[first.session][turn].text
    doubled = _with_turn(built.stay, first.session, turn,
                         f"{text} " + epi.ADD[0].format(value=second.value,
                                                        subject=built.draft.asked.phrase()))
    with pytest.raises(GenerationError, match="one user item per session"):
        _redo(built._replace(stay=doubled), "list-order")


def test_a_value_in_two_sessions_or_of_the_wrong_type_is_refused(stated: list[epi.Built]) -> None:
    built = stated[3]
    epi.check_values(built.stay, built.draft)
    value = built.record["answer"]
    other = next(i for i, s in enumerate(built.draft.sessions)
                 if all(x.value != value for x in s))
    echoed = _with_turn(built.stay, other, 0, built.stay.sessions[other][0].text + f" {value}.")
    with pytest.raises(GenerationError, match="is in sessions"):
        epi.check_values(echoed, built.draft)
    sessions = [list(s) for s in built.draft.sessions]
    x = sessions[0][0]
    sessions[0][0] = replace(x, subject=replace(x.subject, kind="person"))
    with pytest.raises(GenerationError, match="not a person"):
        epi.check_values(built.stay, replace(built.draft, sessions=sessions))


def test_a_remark_said_three_times_is_refused() -> None:
    built = epi.build_shape(epi.SEED, "participant-attribution",
                            DIAL["participant-attribution"])[0]
    draft = built.draft
    gold = next(s for s in draft.sessions if s[0].subject == draft.asked and s[0].claim == draft.claim)
    tripled = replace(draft, sessions=[*draft.sessions, [replace(gold[0])]])
    stay = epi.render(epi.SEED, tripled)
    with pytest.raises(GenerationError, match=r"the remark is said 3 times"):
        epi.make_record(stay, "participant-attribution", tripled, epi.ATTRIBUTION_FRAMES[0])


def test_the_lexical_screen_refuses_a_gold_value_in_a_user_turn(
        records: list[dict[str, Any]]) -> None:
    record = _shape(records, "assistant-stated")[0]
    assert epi.screen_assistant_stated([record])["hits"] == 0
    leaked = {**record, "haystack_sessions": [[{**t, "content": t["content"] + " " + record["answer"]
                                                if t["role"] == "user" else t["content"]}
                                               for t in s] for s in record["haystack_sessions"]]}
    with pytest.raises(GenerationError, match="reaches a user turn"):
        epi.screen_assistant_stated([leaked])


def test_a_question_word_common_across_the_corpus_is_refused(records: list[dict[str, Any]]) -> None:
    record = _shape(records, "assistant-stated")[0]
    word = sorted(epi.subject_words(next(s for s in epi.RECOMMEND_SUBJECTS
                                         if s.noun in record["question"])))[0]
    engine.check_rarity(records, {record["question_id"]: [word]})
    flooded = [{**r, "haystack_sessions": [[{**s[0], "content": s[0]["content"] + f" {word}."},
                                            *s[1:]] for s in r["haystack_sessions"]]}
               for r in records]
    with pytest.raises(GenerationError, match=f"question word {word!r}"):
        engine.check_rarity(flooded, {record["question_id"]: [word]})


def test_digits_in_a_statement_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(epi.CONSTRUCTIONS, "add", ("I added {value} to {subject} at 3.",))
    with pytest.raises(GenerationError, match="digits or dashes"):
        epi.build(epi.SEED, DIAL, shapes=("list-order",))


def test_the_judge_check_refuses_a_wrong_answer_graded_correct(
        records: list[dict[str, Any]]) -> None:
    record = _shape(records, "list-order")[0]
    engine.judge_gold(record, wrong_answers=[", ".join(reversed(record["answer"].split(", ")))])
    with pytest.raises(GenerationError, match="grades the wrong answer"):
        engine.judge_gold(record, wrong_answers=[record["answer"]])


def test_a_dial_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(GenerationError, match="competition rate"):
        epi.build(epi.SEED, {**DIAL, "list-order": 1.5}, shapes=("list-order",))
