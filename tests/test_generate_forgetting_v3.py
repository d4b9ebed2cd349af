"""The revision-3 Forgetting generator (pytest_typedmemeval.generate.verticals.forgetting).

Each test names the failure it guards against (VERTICALS.md Appendix D): a value pool split by role,
competition without values, fixed gold positions, gold that the text does not say, a judge that
accepts a wrong answer, and every validity rule refusing an injected defect."""

from __future__ import annotations

import dataclasses
import re
import statistics
from collections import Counter
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.naturalness import measure as naturalness
from pytest_typedmemeval.generate import conversation, engine, values
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import forgetting as fg
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

DIAL = fg.RECORDED_COMPETITION
QUESTION = re.compile(r"Which (.+) do I have for the (.+?)\? ")


@pytest.fixture(scope="module")
def built() -> engine.Built:
    return fg.build(fg.SEED, DIAL)


@pytest.fixture(scope="module")
def corpus(built: engine.Built) -> list[dict[str, Any]]:
    return built.records


def _by_shape(records: list[dict[str, Any]], shape: str) -> list[dict[str, Any]]:
    return [r for r in records if r["question_type"] == shape]


def _gold(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["question_type"] != "never-known"]


def _turns(record: dict[str, Any]) -> list[str]:
    return [t["content"] for s in record["haystack_sessions"] for t in s]


def _grade(record: dict[str, Any], answer: str) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


def _stay(record: dict[str, Any]) -> engine.Haystack:
    """A record's haystack as the reader sees it (the text only)."""
    sessions = [[engine.Turn(t["role"], t["content"]) for t in s] for s in record["haystack_sessions"]]
    return engine.Haystack(record["question_id"], list(record["haystack_session_ids"]), [], None,
                           sessions, [[] for _ in sessions], [None] * len(sessions))  # type: ignore[arg-type]


def _asked(record: dict[str, Any]) -> fg.Entry:
    match = QUESTION.match(record["question"])
    assert match is not None
    return next(e for e in fg.ENTRIES if (e.noun, e.target) == (match[1], match[2]))


# --------------------------------------------------------------------------------------------
# Shape, ids, determinism


def test_build_is_byte_deterministic_and_shapes_do_not_depend_on_each_other(corpus) -> None:
    assert dump_json(fg.build(fg.SEED, DIAL).records) == dump_json(corpus)
    alone = fg.build(fg.SEED, DIAL, shapes=("never-known",)).records
    assert dump_json(alone) == dump_json(_by_shape(corpus, "never-known"))


def test_counts_opaque_ids_and_schema(corpus) -> None:
    assert [len(_by_shape(corpus, s)) for s in fg.SHAPES] == [20, 15, 15]
    assert [r["question_id"] for r in corpus] == [f"tme-for-{i:03d}" for i in range(1, 51)]
    never = sorted(int(r["question_id"][-3:]) for r in _by_shape(corpus, "never-known"))
    assert never != list(range(never[0], never[0] + 15)), "never-known ids form a block"
    for record in corpus:
        QuestionRecord.model_validate(record)
        assert fg.CURRENCY_CLAUSE in record["question"]
        n = len(record["haystack_sessions"]) - len(record["answer_session_ids"])
        assert 15 <= n <= 25


def test_pairs_share_one_haystack_and_flip_gold(corpus) -> None:
    pairs: dict[str, list[dict[str, Any]]] = {}
    for record in corpus:
        if "pair_id" in record["typedmemeval"]:
            pairs.setdefault(record["typedmemeval"]["pair_id"], []).append(record)
    assert len(pairs) == 15
    for arms in pairs.values():
        treatment, control = sorted(arms, key=lambda r: r["typedmemeval"]["arm"], reverse=True)
        assert (treatment["question_type"], control["question_type"]) == ("invalidated", "still-valid")
        assert _turns(treatment) == _turns(control)
        assert treatment["haystack_dates"] == control["haystack_dates"]
        assert not set(treatment["answer_session_ids"]) & set(control["answer_session_ids"])


# --------------------------------------------------------------------------------------------
# V5: gold is what the text says; competitors are read back and none answers


def test_gold_is_what_the_flagged_turns_say(corpus) -> None:
    """Statement then follow-up, 4-15 sessions apart, both naming the value; the invalidation's
    event is the one the gold answer quotes."""
    for record in _gold(corpus):
        flagged = [(i, t["content"]) for i, s in enumerate(record["haystack_sessions"])
                   for t in s if t["has_answer"]]
        assert [record["haystack_session_ids"][i] for i, _ in flagged] == record["answer_session_ids"]
        (first, stated), (second, follow) = flagged
        assert 4 <= second - first <= 15
        asked = _asked(record)
        value = record["answer"].split(",")[0]
        assert f"{asked.noun} for the {asked.target}" in stated and value in stated
        assert asked.thing in follow and value in follow
        if record["question_type"] == "invalidated":
            event = record["answer"].split(": you ")[1].rstrip(".")
            assert f"I {event}" in follow
        readings = [r for r in fg.read(_stay(record)) if r.entry is asked and r.own_current]
        assert [(r.session, r.value) for r in readings] == [(first, value), (second, value)]


def test_competitors_carry_values_are_read_back_and_never_answer(corpus) -> None:
    kinds: Counter[str] = Counter()
    for record in _gold(corpus):
        asked = _asked(record)
        key = record["typedmemeval"]["answer_key"]
        gold = key.get("must_name", key.get("accepted"))[0]
        rivals = [r for r in fg.read(_stay(record)) if r.entry is asked and not r.own_current]
        assert rivals, f"{record['question_id']}: no valued competitor of the asked subject"
        for rival in rivals:
            kinds[rival.kind] += 1
            assert rival.value != gold and rival.value in key["wrong"]
            assert rival.holder is not None or rival.kind == "declined" or rival.target != asked.target
            assert _grade(record, f"{rival.value}, and that is still current.") is not Outcome.CORRECT
        gold_sessions = {i for i, s in enumerate(record["haystack_sessions"])
                         if any(t["has_answer"] for t in s)}
        assert not gold_sessions & {r.session for r in rivals}
    assert set(kinds) == {"holder", "holder-follow", "declined", "instance"}, kinds
    assert sum(kinds.values()) / len(_gold(corpus)) >= 3


def _value_session_counts(record: dict[str, Any]) -> dict[str, list[int]]:
    """Per role ("own", "rival"), how many haystack sessions mention each value that a user
    sentence names together with the asked kind and place, counted on the text as red team 30
    did (a session mentions a value if its text holds it anywhere)."""
    asked = _asked(record)
    key = record["typedmemeval"]["answer_key"]
    gold = key.get("must_name", key.get("accepted"))[0]
    named = {r.value for r in fg.read(_stay(record))
             if r.entry is asked and r.target == asked.target}
    texts = [" ".join(t["content"] for t in s) for s in record["haystack_sessions"]]
    counts: dict[str, list[int]] = {"own": [], "rival": []}
    for value in sorted(named):
        mentions = sum(bool(re.search(rf"\b{re.escape(value)}\b", text)) for text in texts)
        counts["own" if value == gold else "rival"].append(mentions)
    return counts


def test_value_session_counts_do_not_say_whose_the_value_is(corpus) -> None:
    """Red team 30 beat b78663e7 at gold@1 1.000 (35/35, both gold sessions and the value) by
    counting: of the values named with the asked kind and place, only the user's own was mentioned
    in two sessions (the statement and its follow-up), every competitor's in one. Every value named
    with the asked phrase is now a thread of two mentions whatever its role, so the count of
    sessions mentioning a value has the same distribution for the own value and the competitors'
    and "the value that recurs" picks among the candidates at random."""
    by_role: dict[str, Counter[int]] = {"own": Counter(), "rival": Counter()}
    for record in _gold(corpus):
        for role, counts in _value_session_counts(record).items():
            by_role[role].update(counts)
    shares = {role: {n: c / sum(counts.values()) for n, c in counts.items()}
              for role, counts in by_role.items()}
    assert sum(by_role["rival"].values()) >= 2 * len(_gold(corpus)), by_role
    for n in set(shares["own"]) | set(shares["rival"]):
        assert abs(shares["own"].get(n, 0.0) - shares["rival"].get(n, 0.0)) < 0.1, shares


def test_every_session_holds_one_own_event_and_one_to_four_competitors(corpus) -> None:
    """Gold sessions look like every other session: one own lifecycle event, 1-4 competitors,
    every lifecycle 4-15 sessions apart (so the gap does not mark the asked one either)."""
    for record in corpus:
        readings = fg.read(_stay(record))
        per_session = Counter(r.session for r in readings)
        own = [r for r in readings if r.own_current]
        assert set(per_session.values()) <= {2, 3, 4, 5}, record["question_id"]
        assert sorted(Counter(r.session for r in own).values()) == [1] * len(
            record["haystack_sessions"])
        for entry in {r.entry for r in own}:
            sessions = [r.session for r in own if r.entry is entry]
            assert len(sessions) == 1 or 4 <= sessions[1] - sessions[0] <= 15


def test_every_subject_is_discussed_alike_so_the_asked_one_does_not_recur_more(corpus) -> None:
    """Each competitor goes to the least-discussed subject, so no subject of a haystack recurs
    more than the others (the recurrence tell that beat episodic v3), the asked one included."""
    level = []
    for record in corpus:
        count = Counter(r.entry for r in fg.read(_stay(record)))
        assert max(count.values()) - min(count.values()) <= 2, record["question_id"]
        if record["question_type"] != "never-known":
            asked = count[_asked(record)]
            level.append(sum(1 for c in count.values() if c >= asked) / len(count))
    assert statistics.mean(level) >= 0.5, "the asked subject tops its haystack's mentions"


def test_never_known_noun_occurs_nowhere_and_the_valued_near_miss_is_read_back(corpus) -> None:
    """§2.5 rule 7, kept at revision 3: the asked noun is in no session of its haystack, not even as
    a substring; the near-miss (a plainly different thing for the same purpose) is the user's own,
    with its value, so abstaining needs telling the two apart. (Red team 3 read "abstain when the
    noun never occurs" as a win; it is the construct: the commitment arms V10/V11 measure it.)"""
    siblings = {e.sibling: e for e in fg.ENTRIES if e.sibling}
    for record in _by_shape(corpus, "never-known"):
        match = QUESTION.match(record["question"])
        assert match is not None
        near = siblings[match[1]]
        text = "\n".join(t["content"] for s in record["haystack_sessions"] for t in s).lower()
        assert near.sibling not in text and near.sibling.split()[-1] not in text
        seen = [r for r in fg.read(_stay(record)) if r.entry is near and r.own_current]
        assert seen and seen[0].kind == "statement" and seen[0].value
        assert _grade(record, f"{seen[0].value}, and that is still current.") is not Outcome.CORRECT
        assert frozenset({near.noun, near.sibling}) not in fg.NEAR_SYNONYMS
        assert record["typedmemeval"]["answer_key"]["expected_negative"] == "abstain"


def test_never_known_nouns_come_from_the_one_pool(corpus) -> None:
    """Red team 26: never-known nouns came from a pool of siblings no haystack ever named, so "the
    asked noun is in no *other* haystack" told never-known apart 15/15 (every known noun was in six
    or more). Now every noun is an entry, twins are never in one haystack, and how many other
    haystacks name the asked noun does not separate the shapes: no threshold puts every
    never-known question on one side and every known one on the other. (The per-haystack rule,
    "the noun is absent from this haystack, so abstain", is memory and stays: §2.5 rule 7.)"""
    for entry in fg.ENTRIES:
        assert fg.SIBLINGS[fg.SIBLINGS[entry]] is entry
    texts = {tuple(r["haystack_session_ids"]): "\n".join(_turns(r)).lower() for r in corpus}
    for text in texts.values():
        held = {e for e in fg.ENTRIES if f"{e.noun} for the " in text}
        assert not any(fg.SIBLINGS[e] in held for e in held), "a haystack holds both twins"
    elsewhere: dict[str, list[int]] = {"never-known": [], "known": []}
    for record in corpus:
        noun = QUESTION.match(record["question"])[1]  # type: ignore[index]
        own = tuple(record["haystack_session_ids"])
        count = sum(1 for key, text in texts.items() if key != own and noun in text)
        never = record["question_type"] == "never-known"
        if never:
            assert any(e.noun == noun for e in fg.ENTRIES) and count >= 1, noun
        elsewhere["never-known" if never else "known"].append(count)
    assert min(elsewhere["never-known"]) <= max(elsewhere["known"])
    assert min(elsewhere["known"]) <= max(elsewhere["never-known"])


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def test_phrase_match_does_not_saturate(corpus) -> None:
    """The red team's second reader: sessions with a user sentence holding the asked noun and
    "for the <purpose>", in session order, first five. It covered gold 1.00 / 1.00 when only the
    user's own statements and declined options carried the phrase; competitors of every holder
    now carry it too."""
    for shape in ("invalidated", "still-valid"):
        cover = []
        for record in _by_shape(corpus, shape):
            noun, target = QUESTION.match(record["question"]).groups()  # type: ignore[union-attr]
            hits = [i for i, s in enumerate(record["haystack_sessions"])
                    if any(noun in x.lower() and f"for the {target}" in x.lower()
                           for t in s if t["role"] == "user" for x in _SENTENCE.split(t["content"]))]
            gold = {i for i, s in enumerate(record["haystack_sessions"])
                    if any(t["has_answer"] for t in s)}
            assert len(hits) >= 4, record["question_id"]
            cover.append(len(gold & set(hits[:5])) / len(gold))
        assert statistics.mean(cover) <= 0.90, (shape, statistics.mean(cover))


# --------------------------------------------------------------------------------------------
# One pool, roles after the draw; positions drawn


def test_one_pool_values_do_not_depend_on_their_role(corpus) -> None:
    """Gold values and competitor values share one pool per type: the same forms, the same word
    stock, the same length, and every value's type is the type its subject asks for."""
    gold: list[str] = []
    rivals: list[str] = []
    for record in _gold(corpus):
        asked = _asked(record)
        for reading in fg.read(_stay(record)):
            assert values.value_type(reading.value) == reading.entry.value_type
            if reading.entry is asked:
                (gold if reading.own_current else rivals).append(reading.value)
    for kind in ("person", "brand"):
        g = [v for v in gold if values.value_type(v) == kind]
        r = [v for v in rivals if values.value_type(v) == kind]
        assert g and r
        words_g = {w for v in g for w in v.split()}
        words_r = {w for v in r for w in v.split()}
        assert len(words_g & words_r) >= 0.3 * len(words_g), kind
        assert abs(statistics.mean(map(len, g)) - statistics.mean(map(len, r))) < 1.5, kind
    share = [sum(values.value_type(v) == "person" for v in vs) / len(vs) for vs in (gold, rivals)]
    assert abs(share[0] - share[1]) < 0.25, share


def test_gold_values_are_drawn_from_the_pool_as_every_value_is() -> None:
    """Appendix D row 1, measured over many plans (red team 21 found 8 of 19 product golds ending
    in "-ique", 12.5 % of the pool): the asked lifecycle's value is one draw of the haystack's one
    brand pool, so over 60 seeds each brand ending's share among gold values is its pool share
    (chi-square, 7 degrees of freedom, p > 0.001: bound 24.32, from the distribution, not the data)."""
    tails = ("ique", "ivo", "ex", "tra", "ora", "ano", "ix", "ella")

    def tail(value: str) -> str:
        return next(t for t in tails if value.lower().endswith(t)
                    and value[:-len(t)].lower() in values._BRAND_HEADS)

    rates = fg._rates(DIAL)
    gold: Counter[str] = Counter()
    for seed in range(fg.SEED, fg.SEED + 60):
        sizes = fg._layout(fg.derive_rng(seed, fg.VERTICAL, "layout"))
        for index in range(fg.N_INVALIDATED):
            paired = index < fg.N_PAIRS
            key = f"pair/{index:02d}" if paired else f"solo/{index:02d}"
            deal = sizes[key]
            plan = fg._plan(seed, key, deal.n, deal.entries,
                            rates["still-valid" if paired else "invalidated"])
            asked = [fg._asked(plan, "invalidation", (), f"invalidated/{index:02d}", seed)]
            if paired:
                asked.append(fg._asked(plan, "reaffirmation", (asked[0],),
                                       f"still-valid/{index:02d}", seed))
            gold.update(tail(s.value) for session in plan.said for s in session
                        if s.entry in asked and s.kind == "statement" and s.lifecycle is not None
                        and s.entry.value_type == "brand")
    pool = Counter(tail(v) for v in values.BRANDS)
    total = sum(gold.values())
    assert total >= 600
    chi2 = sum((gold[t] - total * pool[t] / len(values.BRANDS)) ** 2
               / (total * pool[t] / len(values.BRANDS)) for t in tails)
    assert chi2 < 24.32, (chi2, gold)


def test_follow_up_frames_are_one_bank_drawn_alike_for_every_role() -> None:
    """Red team 21 beat eaa1e882 on form: the user's own follow-ups could draw two frames a
    relation's could not ("Right, news on ...", "So, the ..."), so gold's episodes held more commas
    and second sentences. Every role that tells a follow-up (invalidation, re-affirmation,
    holder-follow) now draws every frame of one bank; since red team 35 (forget9) so does every
    other role (statements, declined options, instances): one bank for every user statement."""
    persona = conversation.draw_persona(fg.derive_rng(1, "test", "persona"))
    entry = next(e for e in fg.ENTRIES if e.category == "service")
    bank = fg.FRAMES["follow", "service"]
    used: dict[str, Counter[str]] = {}
    for kind, holder in (("invalidation", None), ("reaffirmation", None), ("holder-follow", 0),
                         ("statement", None), ("holder", 0), ("declined", None), ("declined", 0),
                         ("instance", None)):
        rng = fg.derive_rng(2, "test", kind)
        said = fg.Said(entry, kind, 0, holder=holder, value="Harriet Colby")
        texts = [fg._text(rng, said, persona) for _ in range(600)]
        used[kind] = Counter(next(f for f in bank
                                  if re.fullmatch(_frame_pattern(f), t.split(". ", 1)[1]))
                             for t in texts)
    for kind, counts in used.items():
        assert set(counts) == set(bank), (kind, set(bank) - set(counts))


def _frame_pattern(frame: str) -> str:
    """A loose pattern of one frame, every slot a run of words (enough to tell frames apart)."""
    return re.sub(r"\\\{\w+\\\}", r"[\\w' -]+?", re.escape(frame))


def _filled(frame: str, category: str, act: str = "") -> str:
    return frame.format(Who="I", who="I", poss="the", my="my", My="My", me="me", rel="sister",
                        rs="she", mentioned="I mentioned to you", a="a",
                        noun="physio" if category == "service" else "camera",
                        target="shoulder" if category == "service" else "safari",
                        value="Harriet Colby" if category == "service" else "the Zentra",
                        Value="Harriet Colby" if category == "service" else "The Zentra",
                        act=act)


def test_every_frame_bank_has_one_form_so_neither_role_nor_kind_shows_in_it() -> None:
    """Gold is the user's statement and follow-up; most competitors are declined options or a
    relation's: every bank (statement, declined, follow) holds ten frames, one comma in each, two
    of two sentences, two naming a second relation, and its filled frames average the same length
    (within a word and five characters; a follow-up averaged over its events), so form (words,
    characters, commas, sentences) cannot tell gold's kinds from the competitors'. On eaa1e882 the
    follow bank held frames of three commas and averaged 23 words against the statements' 18."""
    for category in ("service", "item"):
        lengths = {}
        for kind in ("statement", "declined", "follow"):
            frames = fg.FRAMES[kind, category]
            acts = {"statement": [*fg.TAKES[category]], "declined": [*fg.DECLINES[category]],
                    "follow": [*fg.EVENTS[category], *fg.KEEPS[category]]}[kind]
            filled = [_filled(f, category, act) for f in frames for act in acts]
            assert len(frames) == 10, (kind, category)
            assert [t.count(",") for t in filled] == [1] * len(filled), (kind, category)
            assert sum(len(_SENTENCE.split(t)) == 2 for t in filled) == 2 * len(acts), (kind, category)
            assert all(len(_SENTENCE.split(t)) <= 2 for t in filled), (kind, category)
            assert sum("{rel}" in f for f in frames) == 2, (kind, category)
            lengths[kind] = (statistics.mean(len(re.findall(r"[A-Za-z']+", t)) for t in filled),
                             statistics.mean(len(t) for t in filled))
        words = [w for w, _ in lengths.values()]
        chars = [c for _, c in lengths.values()]
        assert max(words) - min(words) <= 1.0, (category, lengths)
        assert max(chars) - min(chars) <= 5.0, (category, lengths)


def test_no_intro_puts_a_meal_against_the_time_of_day(corpus) -> None:
    """Red team 21: 56 of 3,773 intros of eaa1e882 read "popped in the other evening, and we
    traded news over lunch". The place is drawn among those that fit the time drawn."""
    clash = re.compile(r"(lunch|sandwich|market|bakery).*(evening|night|after dinner)"
                       r"|(evening|night|after dinner).*(lunch|sandwich|market|bakery)"
                       r"|(this morning).*(supper|lunch|pub|sandwich)"
                       r"|(supper|lunch|pub|sandwich).*(this morning)"
                       r"|(earlier today).*supper|supper.*(earlier today)")
    intros = re.compile("|".join(re.escape(i.split("{")[0]) for i in fg.INTRO_FRAMES
                                 if not i.startswith("{")))
    seen = 0
    for record in corpus:
        for turn in (t for s in record["haystack_sessions"] for t in s if t["role"] == "user"):
            for sentence in _SENTENCE.split(turn["content"]):
                if any(w in sentence for w in fg.INTRO_WHEN) and intros.search(sentence):
                    seen += 1
                    assert not clash.search(sentence), sentence
    assert seen > 1000
    for when, time in fg.INTRO_TIME.items():
        fitting = [o for o in fg.INTRO_OVER if time in fg.INTRO_PLACE[o]]
        assert len(fitting) >= 5, when


def test_gold_positions_are_drawn_not_fixed(corpus) -> None:
    records = _gold(corpus)
    starts, ends, relative = set(), set(), []
    for record in records:
        n = len(record["haystack_sessions"])
        gold = [record["haystack_session_ids"].index(s) for s in record["answer_session_ids"]]
        starts.add(gold[0])
        ends.add(n - 1 - gold[1])
        relative += [g / (n - 1) for g in gold]
    assert len(starts) >= 8 and len(ends) >= 8
    assert sum(r < 0.5 for r in relative) / len(relative) == pytest.approx(0.5, abs=0.2)
    firsts = sum(0 in [r["haystack_session_ids"].index(s) for s in r["answer_session_ids"]]
                 for r in records)
    assert firsts <= len(records) / 3


def test_every_role_sequence_occurs_three_times_per_haystack(corpus) -> None:
    for record in corpus:
        counts = Counter(tuple(t["role"] for t in s) for s in record["haystack_sessions"])
        assert min(counts.values()) >= fg.ROLE_SEQUENCE_COPIES, record["question_id"]


def test_conversation_meets_the_naturalness_bounds(corpus) -> None:
    measured = naturalness(corpus)
    assert measured.adjacent_shared_content_word.share >= 0.50
    assert measured.distinct_sentences.share >= 0.50
    assert measured.assistant_questions_answered.share >= 0.80


def test_answer_keys_grade_gold_correct_and_typical_wrong_answers_not(corpus) -> None:
    for record in corpus:
        assert _grade(record, record["answer"]) is Outcome.CORRECT, record["question_id"]
        key = record["typedmemeval"]["answer_key"]
        other = key["wrong"][0]
        if record["question_type"] == "invalidated":
            value = key["must_name"][0]
            wrong = [f"{value}, and that is still current.", f"You have {value}.",
                     f"{other}, but that no longer holds: you dropped them."]
        elif record["question_type"] == "still-valid":
            value = key["accepted"][0]
            wrong = [f"{value}, but you stopped using them.", f"{other}, and that is still current."]
        else:
            wrong = [f"{other}, and that is still current.", "You sold it."]
        for answer in wrong:
            assert _grade(record, answer) is not Outcome.CORRECT, (record["question_id"], answer)


def test_recorded_dial_is_the_search_record(corpus) -> None:
    from pytest_typedmemeval.generate import registry
    from pytest_typedmemeval.generate.calibration import shape_coverage

    record = registry.calibration_record(fg)
    assert record is not None
    records = [QuestionRecord.model_validate(r) for r in corpus]
    for shape in fg.CALIBRATED_SHAPES:
        searched = record["by_shape"][shape]
        assert searched["dial"] == DIAL[shape]
        assert round(shape_coverage(records, shape), 6) == searched["coverage"]
    solo = fg.N_INVALIDATED - fg.N_PAIRS
    assert DIAL["never-known"] == (fg.N_PAIRS * DIAL["still-valid"] + solo * DIAL["invalidated"]) \
        / fg.N_INVALIDATED


# --------------------------------------------------------------------------------------------
# Negative controls: one injected defect per validity rule, each refused by GenerationError.


def test_near_synonym_near_miss_is_refused_at_import(monkeypatch) -> None:
    monkeypatch.setattr(fg, "NEAR_SYNONYMS", fg.NEAR_SYNONYMS | {frozenset({"plumber", "electrician"})})
    with pytest.raises(AssertionError, match="near-synonym"):
        fg._assert_banks()


def _patch_text(monkeypatch, kind: str, change) -> None:
    text = fg._text

    def patched(rng, said, persona, told=None):
        out = text(rng, said, persona, told)
        return change(out, said) if said.kind == kind else out

    monkeypatch.setattr(fg, "_text", patched)


def test_reaffirmation_with_another_value_is_refused(monkeypatch) -> None:
    _patch_text(monkeypatch, "reaffirmation",
                lambda text, said: text.replace(fg._shown(said.entry, said.value),
                                                fg._shown(said.entry, "Zentra" if said.entry.category
                                                          == "item" else "Harriet Colby")))
    with pytest.raises(GenerationError, match="reads back otherwise"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_competitor_that_reads_as_the_users_own_fact_is_refused(monkeypatch) -> None:
    """A holder's statement whose pronouns say "I" after its intro is the user's own current fact
    (every statement has an intro naming a relation: the pronoun after it says whose)."""
    def own(text: str, said: fg.Said) -> str:
        text = re.sub(r"\b(She|He|she|he)\b", "I", text)
        text = re.sub(r"\b(her|his)\b", "my", re.sub(r"\b(Her|His)\b", "My", text))
        return re.sub(r"\bhim\b", "me", text)

    _patch_text(monkeypatch, "holder", own)
    with pytest.raises(GenerationError, match="reads back otherwise"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_holder_whose_pronoun_disagrees_with_the_intro_is_refused(monkeypatch) -> None:
    swap = {"She": "He", "He": "She"}
    _patch_text(monkeypatch, "holder", lambda text, said: re.sub(
        r"(?<=\. )(She|He)\b", lambda m: swap[m[1]], text, count=1))
    with pytest.raises(GenerationError, match="does not say whose"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_value_outside_a_statement_is_refused(monkeypatch) -> None:
    render = conversation.render_haystack

    def leaky(*args: Any, **kwargs: Any) -> engine.Haystack:
        stay = render(*args, **kwargs)
        stay.sessions[0][1].text += " Harriet Colby sounds good."
        return stay

    monkeypatch.setattr(conversation, "render_haystack", leaky)
    with pytest.raises(GenerationError, match="outside a statement"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_digits_in_a_statement_are_refused(monkeypatch) -> None:
    _patch_text(monkeypatch, "statement", lambda text, said: text[:-1] + " 2.")
    with pytest.raises(GenerationError, match="digits or dashes"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_a_never_known_noun_in_the_haystack_is_refused(monkeypatch) -> None:
    """The absence check is exhaustive and by substring: one planted mention aborts generation."""
    never = fg._never_record

    def planted(stay, near, key):
        stay.sessions[0][0].text += f" I keep meaning to find {near.sibling} one day."
        return never(stay, near, key)

    monkeypatch.setattr(fg, "_never_record", planted)
    with pytest.raises(GenerationError, match="never-known noun"):
        fg.build(fg.SEED, DIAL, shapes=("never-known",))


def test_components_outside_the_gap_range_are_refused(monkeypatch) -> None:
    def close(n: int, rng: Any) -> list[tuple[int, ...]]:
        pairs: list[tuple[int, ...]] = [(n - 1,)] if n % 2 else []
        return pairs + [(b + i, b + i + 2) for b in range(0, n - n % 2, 4) for i in (0, 1)
                        if b + i + 2 < n - n % 2]

    monkeypatch.setattr(fg, "_matching", close)
    with pytest.raises(GenerationError, match="sessions apart"):
        fg.build(fg.SEED, DIAL, shapes=("invalidated",))


def test_gold_the_judge_would_not_accept_is_refused(monkeypatch) -> None:
    monkeypatch.setitem(fg.ANSWERS, "reaffirmation", "{value}, but you let it go.")
    with pytest.raises(GenerationError, match="grades the gold answer"):
        fg.build(fg.SEED, DIAL, shapes=("still-valid",))


def test_common_question_words_are_refused(monkeypatch) -> None:
    monkeypatch.setattr(engine, "question_terms", lambda question, drop=(): ["i"])
    with pytest.raises(GenerationError, match="question word 'i'"):
        fg.build(fg.SEED, DIAL)


def test_dial_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(GenerationError, match="must lie in"):
        fg.build(fg.SEED, {**DIAL, "invalidated": 1.5}, shapes=("invalidated",))


def test_article_before_the_noun_is_drawn_alike_for_every_role_and_kind() -> None:
    """Red team 24 found gold in 93c7e8ad by article alone: the follow-up bank said "as the
    <kind>", the statement and declined banks "a <kind>", and gold always holds a follow-up, so
    picking the sessions that say "the <kind>" put gold first in 0.625 / 0.567 of questions
    against 0.31 / 0.29. Every frame of every bank now takes its article from one slot, and every
    role and kind draws "the" at the same rate."""
    for frames in fg.FRAMES.values():
        for frame in frames:
            assert "{a} {noun}" in frame and " the {noun}" not in frame and "The {noun}" not in frame
    persona = conversation.draw_persona(fg.derive_rng(1, "test", "persona"))
    shares = {}
    for entry in (next(e for e in fg.ENTRIES if e.category == c) for c in ("service", "item")):
        for kind, holder in (("statement", None), ("invalidation", None), ("reaffirmation", None),
                             ("holder", 0), ("holder-follow", 0), ("declined", None),
                             ("declined", 0), ("instance", None)):
            rng = fg.derive_rng(3, "test", kind, entry.noun, str(holder))
            said = fg.Said(entry, kind, 0, holder=holder,
                           value="Harriet Colby" if entry.category == "service" else "the Zentra")
            texts = [fg._text(rng, said, persona) for _ in range(800)]
            shares[kind, holder, entry.noun] = sum(f"the {entry.noun} for" in t
                                                   for t in texts) / len(texts)
    # 800 draws of p = 0.5: four standard deviations is 0.071
    assert all(abs(share - 0.5) < 0.071 for share in shares.values()), shares


def test_follow_up_frames_keep_tense_order_and_fit_every_value() -> None:
    """Red team 24's text defects in 93c7e8ad's follow-up bank: a present perfect against a past
    event ("has been the mechanic ... for some weeks, and now he stopped using them"), a product
    that "had several months as the kayak", a pronoun before its noun ("She held on to it
    eventually, after a spell with the Vorella ..."), "On my sister's advice about ..." and
    "As to V, ...". None of those constructions is left, and no frame opens on {act}."""
    for frame in fg.FOLLOW_FRAMES:
        assert "has been" not in frame and "now {who}" not in frame
        assert not frame.startswith("{Value} had") and "As to" not in frame
        assert "advice about" not in frame and not frame.startswith("{Who} {act}")
        assert "again" not in frame, "nothing is referred to before it is introduced"


def test_no_reply_treats_a_purpose_as_a_job(corpus) -> None:
    """Red team 24: the shared replies named the purpose as if it were a repair or a postponable
    job ("Sensible to get the cello seen to" about a music teacher, "So can the twins wait a
    while?", "Good for your sister, taking on her bunion"): 49, 47 and 26 assistant turns of
    93c7e8ad. Forgetting draws none of those replies, for any stance."""
    replies = [t["content"] for r in corpus for s in r["haystack_sessions"] for t in s
               if t["role"] == "assistant"]
    assert replies
    for fragment in ("seen to", "wait a while", "taking on"):
        assert not any(fragment in reply for reply in replies), fragment


def test_stance_phrases_have_one_word_length_profile_and_frames_are_one_bank() -> None:
    """Red team 35 read the shipped 3498e956 through the word-length sequence of the hit sentence
    (held-out table 0.680 against 0.300) and through masked sentences (0.666): statements,
    declined options and follow-ups were three banks of different phrasings. Every role now draws
    the one frame bank, and the role-bearing stance phrase has, per category, the same word-length
    sequences in the same shares for every stance, so the filled sentence's lengths in order carry
    no stance; and the text alone still says it (no phrase serves two stances)."""
    from pytest_typedmemeval.generate.length_balance import length_sequence, length_sequence_imbalance
    assert len({id(frames) for frames in fg.FRAMES.values()}) == 1
    for category in ("service", "item"):
        banks = {stance: table[category] for stance, table in fg.ACTS.items()}
        assert not length_sequence_imbalance(banks), category
        filled = {stance: Counter(length_sequence(_filled(f, category, act))
                                  for f in fg.FOLLOW_FRAMES for act in acts)
                  for stance, acts in banks.items()}
        assert len({tuple(sorted(c.items(), key=str)) for c in filled.values()}) == 1, category


def test_every_statement_draws_one_reply_bank(corpus) -> None:
    """Red team 35: "arranged" replies followed only the user's own acquisitions (0.563) and 43
    chore-replies treated a person, an animal or an event as a household job ("It is useful to
    have the bunion organised."). Every statement's reply now comes from one bank that fits any
    kind of object, and names no holder."""
    assert set(fg.STANCE.values()) == {fg.REPLY_STANCE}
    chores = ("organised", "in hand", "busy with", "must be a relief", "right fit")
    replies = [t["content"] for r in corpus for s in r["haystack_sessions"] for t in s
               if t["role"] == "assistant"]
    for fragment in chores:
        assert not any(fragment in reply for reply in replies), fragment


def test_no_statement_is_told_word_for_word_twice_in_a_haystack(corpus) -> None:
    """Red team 35 found a declined pair ("I chose a record player for the snug in May. It was the
    Quoella, but it was out of stock.") in two sessions of one haystack: a value's second mention
    now draws among the frames its first did not use, for every role alike."""
    for record in corpus:
        stay = _stay(record)
        texts = [stay.sessions[r.session][r.turn].text[r.span[0]:r.span[1]].split(". ", 1)[1]
                 for r in fg.read(stay)]
        repeated = [t for t, n in Counter(texts).items() if n > 1]
        assert not repeated, (record["question_id"], repeated[:2])
