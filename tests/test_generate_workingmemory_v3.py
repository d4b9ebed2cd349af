"""TypedMemEval-WorkingMemory revision 3 (generate/verticals/workingmemory.py).

Each of v2's tells an outside audit used is a test here that v2 fails: gold at five fixed indices
(a position prior alone found it), haystacks of a family differing only in their gold session,
the question's verb and kind only in gold, gold and filler values from two halves of one name
list, and a slot skeleton instead of conversation. Plus V5 read-back, determinism and each
validity rule refusing an injected defect."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

import pytest

from pytest_typedmemeval.corpus import naturalness
from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.gates import adversaries
from pytest_typedmemeval.generate.length_balance import length_sequence, length_sequence_imbalance
from pytest_typedmemeval.gates.declarations import declarations_for
from pytest_typedmemeval.gates.vertical_specs import VERTICAL_SPECS
from pytest_typedmemeval.generate import episodes_bank, values
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.sidecar import corpus_from_text
from pytest_typedmemeval.generate.verticals import workingmemory as wm
from pytest_typedmemeval.generate.verticals import workingmemory_bank as wm_bank
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens

DIAL = wm.RECORDED_COMPETITION


@pytest.fixture(scope="module")
def corpus() -> list[dict[str, Any]]:
    return wm.build(wm.SEED, DIAL).records


def _texts(record: dict[str, Any]) -> list[list[str]]:
    return [[t["content"] for t in s] for s in record["haystack_sessions"]]


def _gold(record: dict[str, Any]) -> int:
    (index,) = [i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s)]
    return index


def _roles(record: dict[str, Any], index: int) -> list[str]:
    return [t["role"] for t in record["haystack_sessions"][index]]


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


# --- bytes, ids, geometry --------------------------------------------------------------------------


def test_builds_are_byte_identical_and_a_rung_does_not_depend_on_the_others(
        corpus: list[dict[str, Any]]) -> None:
    alone = wm.build(wm.SEED, DIAL, shapes=("distance-25",)).records
    assert dump_json(alone) == dump_json(wm.build(wm.SEED, DIAL, shapes=("distance-25",)).records)
    assert dump_json(alone) == dump_json([r for r in corpus if r["question_type"] == "distance-25"])
    assert dump_json(wm.build(wm.SEED + 1, DIAL, shapes=("distance-25",)).records) != dump_json(alone)


def test_ids_are_opaque_and_the_geometry_is_appendix_a(corpus: list[dict[str, Any]]) -> None:
    ids = [r["question_id"] for r in corpus]
    assert ids == sorted(ids) and len(set(ids)) == 60
    assert all(re.fullmatch(r"tme-wm-\d{3}", qid) for qid in ids)
    assert Counter(r["question_type"] for r in corpus) == {shape: 12 for shape in wm.SHAPES}
    for record in corpus:
        QuestionRecord.model_validate(record)
        assert len(record["haystack_sessions"]) == 65 and len(record["answer_session_ids"]) == 1
        dates = QuestionRecord.model_validate(record).haystack_dates
        assert len(dates) == 65 and list(dates) == sorted(dates)
    families = Counter(r["typedmemeval"]["fact_family"] for r in corpus)
    assert families == {family: 5 for family in wm.FAMILIES}


def test_gold_is_drawn_within_the_rungs_window_never_at_a_fixed_index(
        corpus: list[dict[str, Any]]) -> None:
    """v2: gold at 64 - d, five indices for sixty questions."""
    spec = VERTICAL_SPECS["workingmemory"]
    indices = {_gold(r) for r in corpus}
    assert len(indices) >= 40
    for shape in wm.SHAPES:
        lo, hi = spec.shape(shape).distance_window  # type: ignore[union-attr,misc]
        records = [r for r in corpus if r["question_type"] == shape]
        after = [64 - _gold(r) for r in records]
        assert all(lo <= d <= hi for d in after)
        assert after == [r["typedmemeval"]["distance_sessions"] for r in records]
        # dealt evenly over the window: every distance of it, none more than once over the rest
        counts = Counter(after)
        assert len(counts) == min(12, hi - lo + 1) and max(counts.values()) - min(counts.values()) <= 1
    assert wm.WINDOWS == {d: spec.shape(f"distance-{d}").distance_window for d in wm.DISTANCES}


def test_no_two_haystacks_share_a_session(corpus: list[dict[str, Any]]) -> None:
    """v2: a family's five haystacks differed only in the gold session (diffing found gold)."""
    ids = [sid for r in corpus for sid in r["haystack_session_ids"]]
    texts = [tuple(tuple(t) for t in s) for r in corpus for s in _texts(r)]
    assert len(set(ids)) == len(ids) and len(set(texts)) == len(texts)


# --- competition carries values, and the question's own phrase -----------------------------------


def test_the_questions_verb_and_kind_occur_in_valued_competitors(corpus: list[dict[str, Any]]) -> None:
    """v2: "settled in the village" occurred only in gold, so turn-level keyword matching saturated."""
    for record in corpus:
        kind = wm.asked_kind(record["question"])
        phrase = re.compile(rf"\b{re.escape(kind.verb)}\b.*\b{re.escape(kind.noun)}\b|"
                            rf"\b{re.escape(kind.noun)}\b.*\b{re.escape(kind.verb)}\b")
        # the assistant's "moored their boat at", "treated themselves to": the same verb
        holding = [i for i, s in enumerate(_texts(record))
                   if any(phrase.search(re.sub(r"\bthemselves\b", "myself",
                                               re.sub(r"\btheir\b", "my", t))) for t in s)]
        gold = _gold(record)
        assert gold in holding
        rivals = [i for i in holding if i != gold]
        assert len(rivals) == record["typedmemeval"]["dial"]["value"] >= 2
        readings = wm.read_statements(_texts(record))
        competitors = [r for r in readings if r.noun == kind.noun and r.form != "own"]
        assert {r.session for r in competitors} == set(rivals)
        for rival in competitors:
            assert values.value_type(rival.value) == kind.type
            assert _grade(record, rival.value) is not Outcome.CORRECT
        assert _grade(record, record["answer"]) is Outcome.CORRECT


def test_every_session_holds_one_own_fact_of_its_own_kind_and_one_competitor(
        corpus: list[dict[str, Any]]) -> None:
    """One own fact and one competitor a session; a session whose competitor is the assistant's
    suggestion also holds one user-said competitor, said in the own fact's sentence (red team 19:
    a statement alone in its user turn was always own)."""
    for record in corpus:
        readings = wm.read_statements(_texts(record))
        by_session = defaultdict(list)
        for reading in readings:
            by_session[reading.session].append(reading.form)
        for forms in by_session.values():
            assert forms.count("own") == 1
            assert len(forms) == (3 if "suggestion" in forms else 2), forms
        own = [r.noun for r in readings if r.form == "own"]
        assert len(set(own)) == 65
        suggestions = sum(r.form == "suggestion" for r in readings)
        assert len({r.value for r in readings}) == len(readings) == 130 + suggestions


def test_no_user_statement_is_alone_in_its_turn(corpus: list[dict[str, Any]]) -> None:
    """Red teams 18 and 19: a statement alone in its user turn was the user's own in 653 of 653.
    Every user turn holding a statement holds two, own and competitor, in one sentence."""
    for record in corpus:
        for s, session in enumerate(record["haystack_sessions"]):
            for turn in session:
                if turn["role"] != "user":
                    continue
                found = wm.read_statements([[turn["content"]]])
                user_said = [r for r in found if r.form != "suggestion"]
                assert len(user_said) in (0, 2), (record["question_id"], s, turn["content"])
                if user_said:
                    assert sorted(r.form == "own" for r in user_said) == [False, True]


def test_twin_tails_match_what_a_content_free_reader_sees() -> None:
    """Red team 19: own frames averaged <= 3.71 letters a word and competitor frames >= 3.73. Every
    skeleton is used by every role, and a row of tails has one word count, letter count, comma,
    negation and pronoun count for all its roles; no tail repeats the kind's noun."""
    for row in wm_bank.TAILS:
        assert len({wm_bank._twin_stats(t) for t in row.values()}) == 1, row
        assert all("{noun}" not in t for t in row.values())
    openings = {form: {wm._opening_of(t) for t in templates}
                for form, templates in (("own", wm.OWN), *((f, wm.COMPETITORS[f]) for f in wm.USER_FORMS))}
    assert all(found == set(wm.OPENINGS) for found in openings.values())


RED_TEAM_20_TAILS = (
    {"own": "yes, I went for it, and my {rel} did not object",
     "holder": "no, my {rel} did, and I just heard all about it",
     "declined": "no, I turned it down, and my {rel} was glad too",
     "hypothetical": "no, I only asked about it, and my {rel} did too"},
    {"own": "yes, I did, and my {rel} feels it was no mistake",
     "holder": "no, my {rel} has, and I said it was clearly wise",
     "declined": "no, I passed, and my {rel} says it was very wise",
     "hypothetical": "no, I only asked, and my {rel} says it was right"},
    {"own": "yes, I did, and my {rel} was not surprised",
     "holder": "no, my {rel} has, and I was rather envious",
     "declined": "no, I bowed out, and my {rel} was relieved",
     "hypothetical": "no, I only enquired, and my {rel} was glad"},
    {"own": "yes, I did, and my {rel} and I have never looked back",
     "holder": "no, my {rel} has, and I have heard more than I needed",
     "declined": "no, I passed on that, and I have also warned my {rel}",
     "hypothetical": "no, I have only enquired, and I told my {rel} as much"},
)
"""The tails of ``ac46ac6b…``, matched on word, letter and comma totals only."""


def test_twin_check_refuses_the_tails_red_team_20_beat() -> None:
    """Red team 20: among the asked kind's clauses, the one with the most three-letter words was gold
    in 53 of 60 ("yes" has three letters, "no" two, made up elsewhere in the tail). The import check
    now compares the sorted word-length profile and the stance word's length: it refuses every row
    of that bank and passes the shipped one."""
    assert len(wm_bank.twin_mismatches(RED_TEAM_20_TAILS)) == len(RED_TEAM_20_TAILS)
    assert wm_bank.twin_mismatches(wm_bank.TAILS) == []
    for row in wm_bank.TAILS:
        lengths = {form: sorted(len(w) for w in re.findall(r"[A-Za-z]+", t.replace("{rel}", "")))
                   for form, t in row.items()}
        assert len({tuple(v) for v in lengths.values()}) == 1, row


RED_TEAM_22_TAILS = (
    {"own": "yes, I went ahead, and my {rel} was really glad",
     "holder": "nah, just my {rel} has, and I felt quite amused",
     "declined": "nah, I backed out, and my {rel} felt quite glad",
     "hypothetical": "nah, I just asked, and my {rel} was very amused"},
    {"own": "yep, I finally did, and my {rel} felt very happy",
     "holder": "nah, my {rel} did that, and I felt quite curious",
     "declined": "nah, I held off, and my {rel} felt quite pleased",
     "hypothetical": "nah, I only asked, and my {rel} was very curious"},
    {"own": "yeah, I did, and my {rel} felt rather pleased",
     "holder": "nope, my {rel} did, and I felt rather curious",
     "declined": "nope, I passed, and my {rel} was very pleased",
     "hypothetical": "nope, I only looked, and my {rel} was curious"},
)
"""Three rows of the ``bc5e43e8…`` bank: equal as sorted profiles, not word by word."""


def test_length_sequence_check_refuses_the_tails_red_team_22_beat() -> None:
    """Red team 22: word lengths in order found gold 0.950 held out ("I did" ``1 3`` and "I finally
    did" ``1 7 3`` occurred only in own tails). Those rows pass the sorted-profile check and fail
    the sequence check; the shipped bank passes both, for tails and for whole statements."""
    assert wm_bank.twin_mismatches(RED_TEAM_22_TAILS) == []
    refused = length_sequence_imbalance(wm_bank.tail_banks(RED_TEAM_22_TAILS))
    assert any(" , 1 3 , " in line.split(":")[0] for line in refused), refused
    assert length_sequence_imbalance(wm_bank.tail_banks(wm_bank.TAILS)) == []
    assert length_sequence_imbalance(
        {"own": wm.OWN, **{form: wm.COMPETITORS[form] for form in wm.USER_FORMS}}) == []
    for row in wm_bank.TAILS:
        assert len({length_sequence(t) for t in row.values()}) == 1, row


def test_word_length_order_does_not_find_gold(corpus: list[dict[str, Any]]) -> None:
    """Red team 22's untrained rule: the asked kind's user clauses, split at commas and colons, the
    second-to-last segment as word lengths; rank the lengths of own acts of the old bank ("1 3",
    "1 7 3") first, then "1 4 5". Refused above max(2 x random, random + 0.10), as above."""
    hits, chance = [], []
    for record in corpus:
        gold = record["typedmemeval"]["gold_components"][0]["session_index"]
        clauses = _user_clauses_of_the_asked_kind(record)
        def score(clause: str) -> int:
            segments = [s.strip() for s in re.split(r"[,:;]", clause) if s.strip()]
            act = " ".join(str(len(w)) for w in re.findall(r"[A-Za-z']+", segments[-2]))
            return 2 if act in ("1 3", "1 7 3") else 1 if act == "1 4 5" else 0
        scores = [score(c) for _, c in clauses]
        top = [s for (s, _), n in zip(clauses, scores) if n == max(scores)]
        hits.append(sum(s == gold for s in top) / len(top))
        chance.append(sum(s == gold for s, _ in clauses) / len(clauses))
    random = sum(chance) / len(chance)
    assert sum(hits) / len(hits) <= max(2 * random, random + 0.10), (sum(hits) / len(hits), random)


def test_conjunctions_follow_the_sense_and_no_very_delighted() -> None:
    """Red team 22: "yes, I went ahead, but my sister was amused" and "very delighted"."""
    for row in wm_bank.TAILS:
        for form, tail in row.items():
            assert "very delighted" not in tail
            if form == "own" and tail.endswith("pleased"):
                assert ", and my {rel}" in tail, tail
            if tail.endswith("puzzled"):
                assert ", but my {rel}" in tail, tail


def _user_clauses_of_the_asked_kind(record: dict[str, Any]) -> list[tuple[int, str]]:
    kind = wm.asked_kind(record["question"])
    out = []
    for s, session in enumerate(record["haystack_sessions"]):
        for turn in session:
            if turn["role"] != "user":
                continue
            for sentence in re.split(r"(?<=[.?!])\s+", turn["content"]):
                for clause in sentence.split("; "):
                    m = re.search(rf"\bthe {re.escape(kind.noun)} ((?:[A-Z][a-z]+ ?)+)", clause)
                    if m:
                        out.append((s, clause.replace(m[1].strip(), "")))
    return out


def test_three_letter_words_do_not_find_gold(corpus: list[dict[str, Any]]) -> None:
    """Red team 20's rule, untrained: among the asked kind's user clauses (value removed), the one
    with the most three-letter words (ties shared). Refused above max(2 x random, random + 0.10),
    the bound scripts/form_reader.py uses; ``ac46ac6b…`` scored 0.889 against 0.156."""
    hits, chance = [], []
    for record in corpus:
        gold = record["typedmemeval"]["gold_components"][0]["session_index"]
        clauses = _user_clauses_of_the_asked_kind(record)
        counts = [sum(len(w) == 3 for w in re.findall(r"[A-Za-z]+", c)) for _, c in clauses]
        top = [s for (s, _), n in zip(clauses, counts) if n == max(counts)]
        hits.append(sum(s == gold for s in top) / len(top))
        chance.append(sum(s == gold for s, _ in clauses) / len(clauses))
    random = sum(chance) / len(chance)
    assert sum(hits) / len(hits) <= max(2 * random, random + 0.10), (sum(hits) / len(hits), random)


def test_a_holder_never_follows_a_verb_naming_the_users_own_thing(
        corpus: list[dict[str, Any]]) -> None:
    """Red team 20: "whether I have insured the house ... no, my sister has" (85 clauses)."""
    assert not wm.holdable(wm.KIND_OF["harbour"]) and wm.holdable(wm.KIND_OF["gym"])
    holders = [r for record in corpus for r in wm.read_statements(_texts(record)) if r.form == "holder"]
    assert holders and all(wm.holdable(wm.KIND_OF[r.noun]) for r in holders)


def test_the_reply_names_both_items_of_the_turn_in_the_order_said(
        corpus: list[dict[str, Any]]) -> None:
    """wm10: the reply to a two-statement turn named only the second item in 3,900 of 3,900 turns
    (a blind reader: "... the glazier ... the plumber ..." -> "Good to be in the loop about the
    plumber."). Now it names both, in the order said; the own statement is said first about half
    the time, so the reply's order carries no role."""
    turns, own_first = 0, 0
    for record in corpus:
        for session in record["haystack_sessions"]:
            for t, turn in enumerate(session):
                said = [r for r in wm.read_statements([[turn["content"]]]) if r.form != "suggestion"]
                if turn["role"] != "user" or len(said) != 2:
                    continue
                first, second = sorted(said, key=lambda r: turn["content"].index(r.value))
                reply = session[t + 1]["content"]
                assert session[t + 1]["role"] == "assistant"
                assert f"the {first.noun} and the {second.noun}" in reply, (turn["content"], reply)
                turns += 1
                own_first += first.form == "own"
    assert turns == len(corpus) * wm.N_SESSIONS
    assert abs(own_first / turns - 0.5) < 0.03, own_first / turns


def test_no_reply_presumes_a_step_or_misfits_two_items(corpus: list[dict[str, Any]]) -> None:
    """wm10: "Is it something you wonder about much?" after a subscription already taken out,
    "Were people curious about it?" after a refusal (red team 33), "so that is where the glazier
    and the plumber stands": those "noted" replies are never drawn, for any statement."""
    fragments = [re.escape(f).replace(re.escape("{topic}"), ".+")
                 for f in wm.PRESUPPOSING_REPLIES + wm.MISFITTING_REPLIES]
    replies = [s[t + 1]["content"] for record in corpus for s in record["haystack_sessions"]
               for t in range(len(s) - 1)
               if s[t]["role"] == "user" and "whether I have" in s[t]["content"]]
    assert len(replies) == len(corpus) * wm.N_SESSIONS
    assert not [r for r in replies for f in fragments if re.search(f, r)]


def test_the_reaction_and_its_conjunction_are_one_in_every_role_of_a_row() -> None:
    """Red team 33: (conjunction, reaction word) found gold at 0.307 against 0.105 ("but ...
    curious" only after a decline); and "I only asked, and my neighbour felt quite pleased" read
    at odds with itself, "my neighbour has instead" elliptical. Now the conjunction is one per row
    and feeling, the holder's included, and every feeling fits every act."""
    for row in wm_bank.TAILS:
        conjunctions = {re.search(r", (and|but) my \{rel\}", tail)[1] for tail in row.values()}
        assert len(conjunctions) == 1, row
        reactions = {tail.split("{rel} ")[1] for form, tail in row.items() if form != "holder"}
        assert len(reactions) == 1, row
        assert not any("pleased" in tail or "has instead" in tail for tail in row.values()), row


def test_suggestion_reactions_come_with_their_own_close() -> None:
    """Red team 19: "Please do, people like a tip about the K." after a reaction proposing nothing."""
    for reaction, close in wm.SUGGESTION_PAIRS:
        if close.startswith("Please do"):
            assert re.search(r"\b(?:pass that on|mention that)\b", reaction), (reaction, close)


def test_deleting_value_less_sentences_leaves_competition(corpus: list[dict[str, Any]]) -> None:
    """v2's difficulty came from content-free mentions alone; here fact-only BM25 stays under 0.90."""
    records = [QuestionRecord.model_validate(r) for r in corpus]
    stays = adversaries.read_haystacks(records)
    for shape in wm.SHAPES:
        mine = [h for h in stays if h.shape == shape]
        assert sum(adversaries.fact_only_coverage(h) for h in mine) / len(mine) <= 0.90


# --- one pool per type, roles after the draw ------------------------------------------------------


def test_values_come_from_one_pool_and_answer_in_one_haystack_while_filling_others(
        corpus: list[dict[str, Any]]) -> None:
    """v2: gold names from one half of an interleaved list, filler from the other."""
    gold_values = {r["answer"] for r in corpus}
    filler = Counter(v for r in corpus for x in wm.read_statements(_texts(r))
                     for v in (x.value,) if v != r["answer"])
    assert sum(1 for v in gold_values if v in filler) >= len(gold_values) // 2
    gold_words = {w for v in gold_values for w in v.split()}
    filler_words = {w for v in filler for w in v.split()}
    assert len(gold_words & filler_words) >= 0.8 * len(gold_words)
    for record in corpus:
        assert values.value_type(record["answer"]) == wm.asked_kind(record["question"]).type


def test_no_kind_is_asked_twice_and_every_asked_kind_is_filler_elsewhere(
        corpus: list[dict[str, Any]]) -> None:
    asked = [wm.asked_kind(r["question"]).noun for r in corpus]
    assert len(set(asked)) == 60
    own_elsewhere = Counter(x.noun for r in corpus for x in wm.read_statements(_texts(r))
                            if x.form == "own" and x.session != _gold(r))
    assert all(own_elsewhere[noun] >= 30 for noun in asked)  # about 46 of 59 other haystacks


def test_the_adversaries_stay_at_chance(corpus: list[dict[str, Any]]) -> None:
    """Every adversary passes, the question-aware form reader included (red team 19 beat the
    previous bytes by word length; twin frames fixed it at the cause)."""
    corpus_ = corpus_from_text(dump_json(corpus), "typedmemeval-workingmemory-v3", "workingmemory")
    result = adversaries.check(corpus_, declared=declarations_for("workingmemory"))
    assert result.status == "passed", [r.line() for r in result.refusals]
    form = result.measured["pooled"]["form_reader"]
    assert form["gold_at_1"] <= form["gold_at_1_bound"] and form["auc"] <= 0.65
    assert result.measured["exemptions_applied"].keys() <= set(wm.SHAPES)
    assert all(entry["rules"] == ["position_prior"]
               for entry in result.measured["exemptions_applied"].values())
    pooled = result.measured["pooled"]["learned"]
    assert pooled["gold_at_1"] <= pooled["gold_at_1_bound"] and pooled["auc"] <= 0.65
    episode = result.measured["pooled"]["episode_reader"]
    assert episode["gold_at_1"] <= episode["gold_at_1_bound"] and episode["auc"] <= 0.65


def test_a_suggestion_follows_the_shared_sentence_of_its_session(corpus: list[dict[str, Any]]) -> None:
    """Issue 19: with the suggestion's episode drawn before or after, the shared (own and
    competitor) sentence of a suggestion session followed another episode half the time against a
    fifth in other sessions; only gold's session, never a competitor's host, can be both, and the
    form reader's episode view read the lead-in sentence before gold (distance-40 gold@1 0.42
    against random 0.10). The suggestion now trails, so the shared sentence's place is drawn alike
    in every session."""
    opens = {True: [0, 0], False: [0, 0]}
    for record in corpus:
        for session in _texts(record):
            asked = [t for t, text in enumerate(session)
                     if any(request.split("{")[0] in text for request in wm.REQUESTS)]
            shared = [t for t, text in enumerate(session) if "whether I have" in text]
            assert len(shared) == 1
            if asked:
                assert asked[0] > shared[0], session
            opens[bool(asked)][0] += shared[0] == 0
            opens[bool(asked)][1] += 1
    share = {key: first / total for key, (first, total) in opens.items()}
    assert abs(share[True] - share[False]) < 0.05, share


def _suggestion_rates(records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Per kind of user-said clause (own or competitor, of a clustered kind or a single), how many
    sessions holding such a clause also hold an assistant suggestion, out of how many."""
    rates: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        readings = wm.read_statements(_texts(record))
        mentions = Counter(r.noun for r in readings)
        suggested = {r.session for r in readings if r.form == "suggestion"}
        for r in readings:
            if r.form == "suggestion":
                continue
            role = (f"{'clustered' if mentions[r.noun] > 1 else 'single'} "
                    f"{'own' if r.form == 'own' else 'competitor'}")
            rates[role][0] += r.session in suggested
            rates[role][1] += 1
    return {role: (hit, total) for role, (hit, total) in rates.items()}


def test_a_suggestion_is_placed_whatever_its_session_holds(corpus: list[dict[str, Any]]) -> None:
    """Red team 29 (issue 19): a suggestion took its session's competitor slot and a fresh single
    was said beside the own fact there, so sessions holding a clustered kind's user-said
    competitor held a suggestion 0 of 2,800 times (86 of 2,902 by this test's count, which takes a
    kind said twice for clustered) against 75 of 426 holding a clustered own fact; among the asked kind's clauses, the
    one whose session asked "which ...?" was gold 7 of 7 times. The host sessions are now drawn
    apart from what they hold, so the rate is alike for every kind of clause."""
    rates = _suggestion_rates(corpus)
    hits, total = (sum(v[i] for v in rates.values()) for i in (0, 1))
    overall = hits / total
    assert 0.10 < overall < 0.25, rates
    for role, (hit, n) in rates.items():
        assert abs(hit / n - overall) < 0.04, (role, hit, n, overall)
    # the asked kind's clauses alone: gold's session and its competitors' hosts alike
    asked = {"gold": [0, 0], "competitor": [0, 0]}
    for record in corpus:
        readings = wm.read_statements(_texts(record))
        noun = wm.asked_kind(record["question"]).noun
        suggested = {r.session for r in readings if r.form == "suggestion"}
        for r in readings:
            if r.noun == noun and r.form != "suggestion":
                asked["gold" if r.form == "own" else "competitor"][0] += r.session in suggested
                asked["gold" if r.form == "own" else "competitor"][1] += 1
    assert asked["competitor"][0] / asked["competitor"][1] > 0.10, asked
    assert asked["gold"][0] / asked["gold"][1] < 0.25, asked


def test_a_suggestion_is_never_said_beside_its_own_kind(corpus: list[dict[str, Any]]) -> None:
    """The host sessions are drawn blind, and the matching onto them keeps a suggestion out of a
    session whose shared sentence states its kind ("which gym do people go for?" beside "I have
    joined the gym X")."""
    for record in corpus:
        by_session: dict[int, list[Any]] = defaultdict(list)
        for r in wm.read_statements(_texts(record)):
            by_session[r.session].append(r)
        for readings in by_session.values():
            nouns = [r.noun for r in readings]
            assert len(set(nouns)) == len(nouns), readings


# --- conversation ---------------------------------------------------------------------------------


def test_conversation_meets_appendix_d_bounds(corpus: list[dict[str, Any]]) -> None:
    stats = naturalness.measure(corpus).as_stats()
    for name, bound in naturalness.BOUNDS.items():
        assert stats[name]["share"] >= bound, (name, stats[name])


def test_one_persona_per_haystack(corpus: list[dict[str, Any]]) -> None:
    nouns = {r.noun for r in episodes_bank.RELATIONS.values()}
    for record in corpus[:10]:
        holders = {x.rel for x in wm.read_statements(_texts(record)) if x.rel}
        assert 1 <= len(holders) <= 3 and holders <= nouns


# --- validity rules refuse injected defects -------------------------------------------------------


def test_a_competitor_stating_the_users_own_fact_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second own statement of the asked kind (the fact said twice) is refused by the read-back."""
    record = wm.build(wm.SEED, DIAL, shapes=("distance-8",)).records[0]
    kind = wm.asked_kind(record["question"])
    gold = _gold(record)
    other = (gold + 3) % 65
    session = record["haystack_sessions"][other]
    session[0]["content"] += " " + wm._fill(wm.OWN[0], kind, record["answer"], None)
    with pytest.raises(GenerationError, match="stated 2 times|named twice"):
        wm.recompute_gold(record)


def test_a_value_of_the_wrong_type_or_outside_a_statement_is_refused() -> None:
    with pytest.raises(GenerationError, match="is not a person"):
        wm.read_statements([[wm._fill(wm.OWN[0], wm.KIND_OF["dentist"], "Ashcombe", None)]])
    with pytest.raises(GenerationError, match="outside a statement"):
        wm.read_statements([["We walked past Ashcombe on the way home."]])
    with pytest.raises(GenerationError, match="with verb"):
        wm.read_statements([[wm._fill(wm.OWN[0], wm.KIND_OF["dentist"], "Harriet Colby", None)
                             .replace("registered with", "joined")]])


def test_a_gold_outside_its_window_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    layout = wm._layout(wm.SEED)
    moved = tuple(spec._replace(distance=spec.distance + 20) if spec.shape == "distance-8" else spec
                  for spec in layout)
    monkeypatch.setattr(wm, "_layout", lambda seed: moved)
    with pytest.raises(GenerationError, match="window"):
        wm.build(wm.SEED, DIAL, shapes=("distance-8",))


def test_a_question_word_common_across_the_corpus_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wm, "RARE_SHARE", 0.001)
    with pytest.raises(GenerationError, match="question word"):
        wm.build(wm.SEED, DIAL)


def test_a_dial_outside_zero_to_one_and_an_unknown_shape_are_refused() -> None:
    with pytest.raises(GenerationError, match="competitor share"):
        wm.build(wm.SEED, {shape: 1.5 for shape in wm.SHAPES}, shapes=("distance-8",))
    with pytest.raises(GenerationError, match="unknown shapes"):
        wm.build(wm.SEED, DIAL, shapes=("distance-9",))


def test_the_banks_keep_question_words_out_of_frames_and_values_out_of_kinds() -> None:
    frames = {w for t in (*wm.OWN, *(t for ts in wm.COMPETITORS.values() for t in ts))
              for w in raw_tokens(re.sub(r"\{\w+\}", " ", t))}
    pool = values.pool_words()
    for kind in wm.KINDS:
        assert not set(raw_tokens(kind.noun + " " + kind.verb)) & pool
    assert {"nah", "nope", "only", "not", "kept", "clear", "instead"} <= frames  # why a competitor does not answer


def test_no_kind_is_named_inside_another_kind_or_a_verb() -> None:
    """A question about the insurer matched the motor insurer's clauses (red team 17), and the
    fitness tracker's verb "paired my phone with" named the phone: each kind's words are its own."""
    def named(noun: str, text: str) -> bool:
        return re.search(rf"\b{re.escape(noun)}\b", text) is not None

    for kind in wm.KINDS:
        for other in wm.KINDS:
            assert not named(other.noun, kind.verb), (kind.noun, kind.verb, other.noun)
            if other is not kind:
                assert not named(other.noun, kind.noun), (other.noun, kind.noun)


def test_every_article_slot_agrees_with_its_noun() -> None:
    """ "A optician a lot of people have seen" (red team 17): a frame says the article through
    ``{a}`` or says none; it never writes "A {noun}" or "a {noun}" itself."""
    for template in (*wm.OWN, *(t for ts in wm.COMPETITORS.values() for t in ts)):
        assert not re.search(r"\b[Aa]n? \{noun\}", template), template

def test_the_user_says_i_have_and_the_questions_verb_in_competitors_too(
        corpus: list[dict[str, Any]]) -> None:
    """Red team 13 beat revision 3's first build with "the one session where the user says *I
    have* + the question's verb phrase + its noun" (gold at rank 1 in 0.886 of questions). Every
    user-said competitor of the asked kind now says it too: that rule ranks gold among them at
    random."""
    hits = []
    for record in corpus:
        kind = wm.asked_kind(record["question"])
        phrase = re.compile(rf"\bI have {re.escape(kind.verb)}\b[^.;]*\b{re.escape(kind.noun)}\b|"
                            rf"\b{re.escape(kind.noun)}\b[^.;]* I have {re.escape(kind.verb)}\b")
        sessions = [i for i, s in enumerate(_texts(record))
                    if any(phrase.search(t) for t, role in zip(s, _roles(record, i)) if role == "user")]
        readings = wm.read_statements(_texts(record))
        user_said = {r.session for r in readings if r.noun == kind.noun and r.form != "suggestion"}
        assert set(sessions) == user_said and _gold(record) in sessions
        hits.append(1 / len(sessions))
    assert sum(hits) / len(hits) < 0.25, sum(hits) / len(hits)


def test_has_answer_marks_the_turn_that_states_gold(corpus: list[dict[str, Any]]) -> None:
    """Red team 18: where a suggestion's episode came first in the gold session, ``has_answer``
    sat on the suggestion's turn (4 of 60 records)."""
    for record in corpus:
        gold = wm.recompute_gold(record)
        flagged = [turn for session in record["haystack_sessions"] for turn in session
                   if turn["has_answer"]]
        assert len(flagged) == 1 and flagged[0]["role"] == "user", record["question_id"]
        assert gold.value in flagged[0]["content"], record["question_id"]


def test_no_frame_leaves_a_value_set_off_only_in_own_statements() -> None:
    """Red team 18: own frames set the name off with commas (", Velique,") and competitors
    attached it as "the <kind> <Name>": punctuation alone found gold 0.87. Each attachment form
    is used by own and user-said competitor frames alike."""
    def forms(templates: tuple[str, ...]) -> set[str]:
        found = set()
        for template in templates:
            if "the {noun} {value}" in template or "the best {noun} around, {value}" in template:
                found.add("the K V")
            if re.search(r"\{noun\}, \{value\},", template):
                found.add(", V,")
        return found

    competitors = tuple(t for form, ts in wm.COMPETITORS.items() if form != "suggestion" for t in ts)
    assert forms(wm.OWN) == forms(competitors) == {"the K V"}
    for template in (*wm.OWN, *competitors):  # one attachment, followed by a word, everywhere
        assert re.search(r"the \{noun\} \{value\} [a-z]", template), template


def test_every_context_of_a_value_in_own_frames_occurs_in_competitor_frames() -> None:
    """Red team 18's learned reader used only the character before and after the name and whether
    the name comes before the kind's noun; each such context of an own frame is a competitor's too."""
    def contexts(templates: tuple[str, ...]) -> set[tuple[str, str, bool]]:
        found = set()
        for template in templates:
            at = template.index("{value}")
            before = template[:at].rstrip(" ")[-1:]
            after = template[at + len("{value}"):at + len("{value}") + 1]
            found.add((before if not before.isalpha() and before != "}" else "w",
                       after if after != " " else "_", at < template.index("{noun}")))
        return found

    competitors = tuple(t for form, ts in wm.COMPETITORS.items() if form != "suggestion" for t in ts)
    assert contexts(wm.OWN) - contexts(competitors) == set()
