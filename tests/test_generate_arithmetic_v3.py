"""Arithmetic v3 generator (generate/verticals/arithmetic.py, VERTICALS.md §2.3 and Appendix D).

What is tested, each so that it can fail: one value pool per type (a value's type, form and
distribution never depend on its role), valued competitors present in every session and read back
as what they are, gold positions spread, gold recomputed from the text alone (V5, independently of
the generator's own checks), determinism, and one injected defect per validity rule the generator
enforces. The corpus is built once per module (a few seconds)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from datetime import timedelta
from fractions import Fraction
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey, QuestionRecord
from pytest_typedmemeval.corpus.text_stats import non_linguistic_share
from pytest_typedmemeval.generate import values
from pytest_typedmemeval.generate.primitives import GenerationError, dump_json
from pytest_typedmemeval.generate.verticals import arithmetic as ari
from pytest_typedmemeval.judge.mechanical import judge_answer
from pytest_typedmemeval.judge.outcomes import Outcome

SEED = ari.SEED
DIAL = ari.RECORDED_COMPETITION
AMOUNT = re.compile(r"[$€£]\d{3}\.\d{2}")
SYMBOL = {"USD": "$", "EUR": "€", "GBP": "£"}
SHOP = r"([A-Z][a-z]+ [A-Z][a-z]+)"


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return ari.build(SEED, DIAL).records


def _statements(record: dict[str, Any]) -> list[list[ari.Said]]:
    """Per session the statements read from its turns (own first)."""
    out = []
    for session in record["haystack_sessions"]:
        found = [s for t in session for s in ari.read_statements(t["content"])]
        out.append(sorted(found, key=lambda s: s.kind != "own"))
    return out


def _asked(record: dict[str, Any]) -> list[str]:
    if record["question_type"] == "durations":
        return re.findall(r"the ([a-z]+)", record["question"])
    return re.findall(r"\b(?:at|from) " + SHOP, record["question"])


def _gold(record: dict[str, Any]) -> set[int]:
    return {i for i, s in enumerate(record["haystack_sessions"]) if any(t["has_answer"] for t in s)}


def _spec(shape: str, g: int | None = None) -> ari.Spec:
    return next(s for s in ari.layout(SEED)[shape] if g is None or s.g == g)


def _verdict(answer: str, record: dict[str, Any]) -> Outcome:
    return judge_answer(answer, AnswerKey.model_validate(record["typedmemeval"]["answer_key"])).outcome


# --- shape, ids, determinism --------------------------------------------------------------------


def test_ids_are_opaque_and_counts_match_the_spec(records) -> None:
    assert [r["question_id"] for r in records] == [f"tme-ari-{i:03d}" for i in range(1, 51)]
    shapes = [r["question_type"] for r in records]
    assert {s: shapes.count(s) for s in ari.SHAPES} == ari.SHAPE_N
    assert len(set(shapes[:14])) > 1  # no id range holds one shape
    for r in records:
        h = len(r["haystack_sessions"]) - len(_gold(r))
        assert ari.H_RANGE[0] <= h <= ari.H_RANGE[1]


def test_same_seed_same_bytes_and_shapes_are_independent(records) -> None:
    ari._shape_records.cache_clear()
    again = ari.build(SEED, DIAL, shapes=("deltas",)).records
    assert dump_json(again) == dump_json([r for r in records if r["question_type"] == "deltas"])
    ari._shape_records.cache_clear()
    assert dump_json(ari.build(SEED, DIAL, shapes=("deltas",)).records) == dump_json(again)
    assert dump_json(ari.build(SEED + 1, DIAL, shapes=("deltas",)).records) != dump_json(again)


def test_text_is_conversation_without_word_lists(records) -> None:
    texts = [t["content"] for r in records for s in r["haystack_sessions"] for t in s]
    assert non_linguistic_share(texts) == 0.0
    for r in records:
        for session in r["haystack_sessions"]:
            assert [t["role"] for t in session] == ["user", "assistant"] * (len(session) // 2)


# --- one pool per type, roles after the draw -----------------------------------------------------


def _purchases(records) -> list[tuple[bool, ari.Said]]:
    """(is gold, statement) over every purchase statement of the corpus."""
    out = []
    for r in (r for r in records if r["question_type"] != "durations"):
        asked = _asked(r)
        for pair in _statements(r):
            for s in pair:
                out.append((s.kind == "own" and s.subject in asked, s))
    return out


def test_shops_and_objects_come_from_one_pool_whatever_their_role(records) -> None:
    found = _purchases(records)
    for gold, s in found:
        assert values.value_type(s.subject) == "shop", s.subject
        assert s.item in ari.TRADE_ITEMS[s.subject.split()[1]], (s.item, s.subject)
    # A stem asked in one question is an unasked shop in other questions (one pool, roles drawn
    # per haystack): a pool split by role would never show an asked stem unasked elsewhere.
    asked_in: dict[str, set[int]] = {}
    unasked_in: dict[str, set[int]] = {}
    for index, r in enumerate(r for r in records if r["question_type"] != "durations"):
        asked = _asked(r)
        for pair in _statements(r):
            for said in pair:
                book = asked_in if said.subject in asked else unasked_in
                book.setdefault(said.subject.split()[0], set()).add(index)
    elsewhere = [stem for stem, where in asked_in.items() if unasked_in.get(stem, set()) - where]
    assert len(elsewhere) >= 0.8 * len(asked_in)
    # Trades of asked shops match the trades of all shops (no role has its own kind of shop).
    trades = Counter(s.subject.split()[1] for _, s in found)
    gold_trades = Counter(s.subject.split()[1] for gold, s in found if gold)
    assert len(gold_trades) >= 6
    for trade, count in trades.items():
        share_all = count / sum(trades.values())
        assert abs(gold_trades[trade] / sum(gold_trades.values()) - share_all) < 0.15, trade


def test_amounts_are_drawn_alike_for_gold_and_competitors(records) -> None:
    found = _purchases(records)
    gold = [s.cents for g, s in found if g]
    rest = [s.cents for g, s in found if not g]
    assert len(gold) >= 100 and len(rest) >= 1000
    for group in (gold, rest):  # one range, equal digit counts
        assert min(group) >= ari.AMOUNT_CENTS[0] and max(group) <= ari.AMOUNT_CENTS[1]
    spread = ari.AMOUNT_CENTS[1] - ari.AMOUNT_CENTS[0]
    assert abs(statistics.mean(gold) - statistics.mean(rest)) < 0.08 * spread
    # Frames, openers and follow-ups: one bank for every role (the episode-form tests below).


def test_lent_items_come_from_one_list_whatever_their_role(records) -> None:
    asked_in: dict[str, set[int]] = {}
    unasked_in: dict[str, set[int]] = {}
    for index, r in enumerate(r for r in records if r["question_type"] == "durations"):
        names = _asked(r)
        for pair in _statements(r):
            for said in pair:
                assert said.subject in ari.ITEMS
                book = asked_in if said.subject in names else unasked_in
                book.setdefault(said.subject, set()).add(index)
    elsewhere = [item for item, where in asked_in.items() if unasked_in.get(item, set()) - where]
    assert asked_in and len(elsewhere) >= 0.6 * len(asked_in)


# --- valued competitors ----------------------------------------------------------------------------


def test_every_session_holds_one_own_statement_and_one_competitor(records) -> None:
    kinds: Counter[str] = Counter()
    for r in records:
        for pair in _statements(r):
            assert [s.kind == "own" for s in pair] == [True, False], pair
            kinds[pair[1].kind] += 1
            assert pair[1].subject != pair[0].subject  # never about the session's own subject
    assert {"holder", "declined", "quote"} <= set(kinds)
    assert kinds["holder"] > kinds["quote"]  # the close frames dominate the mix


def test_competitors_of_the_asked_and_decoy_subjects_follow_the_dial(records) -> None:
    by_question = {r["question"]: r for r in records}
    level = 0
    for shape in ari.SHAPES:
        for spec in ari.layout(SEED)[shape]:
            plan = ari.plan(SEED, spec, DIAL[shape])
            r = by_question[ari.question_text(spec, plan.asked)]
            read = _statements(r)
            assert plan.decoys and not set(plan.decoys) & set(plan.asked)
            if shape == "durations":
                assert len(plan.decoys) == len(plan.asked)
            else:  # every askable unit but the asked one
                assert len(plan.decoys) == len(plan.asked) * (ari.TRACKED_UNITS[shape] - 1)
            near = {s: sum(1 for pair in read if pair[1].subject == s)
                    for s in (*plan.asked, *plan.decoys)}
            mentions = {s: sum(1 for pair in read if s in (pair[0].subject, pair[1].subject))
                        for s in near}
            own = {s: sum(1 for pair in read if pair[0].subject == s) for s in near}
            if shape == "durations":
                want = DIAL[shape] * ari.PER_INPUT * sum(own.values())
                assert abs(sum(near.values()) - want) <= 1.5, (spec.key, near, want)
            else:  # the user's sentences naming a tracked shop on the dial's span, 0-1 quotes
                low, high = ari.mention_span(shape, DIAL[shape])
                for s in near:
                    quotes = sum(1 for pair in read
                                 if pair[1].subject == s and pair[1].kind == "quote")
                    assert low <= mentions[s] - quotes <= high and quotes <= 1, (spec.key, s)
            assert sum(near[a] for a in plan.asked) >= 1 and sum(near[d] for d in plan.decoys) >= 1
            level += max(mentions[d] for d in plan.decoys) >= max(mentions[a] for a in plan.asked)
            # None of them is the user's own purchase or lifecycle: they never enter the gold.
            assert all(pair[1].kind != "own" for pair in read)
    assert level >= 0.3 * len(records)  # the most-mentioned subject is a decoy as often as not


def _currency_counts(read: list[list[ari.Said]]) -> Counter[str]:
    return Counter(s.currency for pair in read for s in pair)


def test_askable_shops_get_own_purchases_alike_whatever_their_role(records) -> None:
    """Red team 2, part 1: the asked shop had the most *own* purchases of its haystack. Every
    askable unit now draws its own count from the shape's ladder and the asked one is drawn among
    them: as read from the text, the asked unit tops the haystack's own counts about 1 / units of
    the time, and its count is distributed like the decoys'."""
    top: dict[str, list[float]] = {}
    asked_counts: list[int] = []
    decoy_counts: list[int] = []
    for r in (r for r in records if r["question_type"] != "durations"):
        shape, asked = r["question_type"], _asked(r)
        read = _statements(r)
        own = Counter(pair[0].subject for pair in read)
        spec = next(s for s in ari.layout(SEED)[shape]
                    if ari.question_text(s, ari.plan(SEED, s, DIAL[shape]).asked) == r["question"])
        plan = ari.plan(SEED, spec, DIAL[shape])
        sides = len(plan.asked)
        units = [plan.asked] + [plan.decoys[i:i + sides] for i in range(0, len(plan.decoys), sides)]
        totals = [sum(own[s] for s in unit) for unit in units]
        assert all(min(ari.INPUT_LADDER[shape]) <= t <= max(ari.INPUT_LADDER[shape])
                   for t in totals), (r["question"], totals)
        asked_counts.append(totals[0])
        decoy_counts += totals[1:]
        best = max(own.values())
        leaders = [s for s, c in own.items() if c == best]
        top.setdefault(shape, []).append(sum(s in asked for s in leaders) / len(leaders))
    assert abs(statistics.mean(asked_counts) - statistics.mean(decoy_counts)) < 0.6
    for shape, hits in top.items():
        chance = 1 / ari.TRACKED_UNITS[shape]
        assert statistics.mean(hits) <= chance + 0.2, (shape, statistics.mean(hits), chance)


def test_currency_is_independent_of_role(records) -> None:
    """Red team 2, part 1: the asked shop's currency was the haystack's rarest. Currencies are
    dealt to units by a rotation and balanced by rivals blind to the asked one, so per haystack
    every currency holds nearly as many values as another, and the asked currency is the rarest
    about a third of the time."""
    rarest: list[float] = []
    commonest: list[float] = []
    spread: list[int] = []
    for r in (r for r in records if r["question_type"] != "durations"):
        counts = _currency_counts(_statements(r))
        assert set(counts) == set(ari.CURRENCIES)
        spread.append(max(counts.values()) - min(counts.values()))
        if r["question_type"] == "counts":
            continue
        unit = r["typedmemeval"]["derivation"]["unit"]
        for book, pick in ((rarest, min), (commonest, max)):
            edge = pick(counts.values())
            ties = [c for c, k in counts.items() if k == edge]
            book.append((unit in ties) / len(ties))
    assert statistics.median(spread) <= 3, spread  # balanced, whichever unit is asked
    assert statistics.mean(rarest) <= 0.5, statistics.mean(rarest)
    assert statistics.mean(commonest) <= 0.55, statistics.mean(commonest)
    units = Counter(r["typedmemeval"]["derivation"]["unit"] for r in records
                    if r["question_type"] in ("sums", "deltas"))
    assert len(units) >= 2  # the question's currency is drawn with the asked unit, not fixed


BLIND_SEEDS = (SEED, SEED + 1, SEED + 2)
"""Seeds whose plans the question-blind rule reads: 10-14 questions a shape are too few to tell a
tell from chance, three layouts' worth (30-42 a shape) are not."""


def test_question_blind_own_purchase_rule_is_near_chance() -> None:
    """The red team's question-blind rule with a perfect own/competitor reader (the plan itself,
    stronger than any list of cue phrases): score a session by the own-purchase count of its own
    shop, +10 when that purchase is in the haystack's least-frequent currency; over the plans of
    :data:`BLIND_SEEDS`, gold at rank 1 stays within the learned adversary's bound
    max(2 x random, 0.15) per shape. v3 as first shipped: counts 0.79, deltas 0.60, sums 0.43."""
    by: dict[str, list[tuple[float, float]]] = {}
    for seed in BLIND_SEEDS:
        for shape in ("counts", "sums", "deltas"):
            for spec in ari.layout(seed)[shape]:
                plan = ari.plan(seed, spec, DIAL[shape])
                read, gold = plan.said, set(plan.gold)
                own = Counter(pair[0].subject for pair in read)
                counts = _currency_counts(read)
                low = min(counts.values())
                scores = [own[p[0].subject] + (10 if counts[p[0].currency] == low else 0)
                          for p in read]
                best = max(scores)
                tied = [i for i, v in enumerate(scores) if v == best]
                by.setdefault(shape, []).append(
                    (sum(i in gold for i in tied) / len(tied), len(gold) / len(read)))
    for shape, rows in by.items():
        hit = statistics.mean(h for h, _ in rows)
        bound = max(2 * statistics.mean(c for _, c in rows), 0.15)
        assert hit <= bound, (shape, hit, bound)


CUES = tuple(re.compile(p, re.I) for p in (
    r"\b(nearly|almost)\b", r"\b(thought about|changed my mind|turned (it|them) down|walked out)\b",
    r"\b(put it back|left it|cancelled|without it)\b", r"^my [a-z]+", r"\b(she|he|her|his)\b",
    r"\b(would|could|wanted|offered|lists|listed)\b", r"\bwhile I\b", r"\bquot(e|ed)\b",
    r"\b(sister|brother|neighbour|cousin|partner|friend)\b"))
"""A red-team style cue list for "not the user's own purchase" (second red team, part 2)."""


def test_cue_phrases_do_not_separate_own_purchases_from_competitors(records) -> None:
    """Red team 2, part 2: a dozen cue regexes told every competitor from the user's own purchase.
    Read per value sentence (a user sentence naming a shop and an amount): the user's own
    purchases carry such cues too, and a share of competitors' value sentences carries none, so a
    cue-free filter neither keeps every gold nor drops every competitor."""
    own_cued = own_all = rival_free = rival_all = 0
    for r in (r for r in records if r["question_type"] != "durations"):
        for session in r["haystack_sessions"]:
            for turn in (t for t in session if t["role"] == "user"):
                found = ari.read_statements(turn["content"])
                for sentence in re.split(r"(?<=[.!?])\s+", turn["content"]):
                    shop = re.search(SHOP, sentence)
                    if not (shop and re.search(r"[$€£]\d", sentence)):
                        continue
                    said = next((x for x in found if x.subject == shop.group(1)), None)
                    if said is None:
                        continue
                    cued = any(c.search(sentence) for c in CUES)
                    if said.kind == "own":
                        own_all += 1
                        own_cued += cued
                    else:
                        rival_all += 1
                        rival_free += not cued
    assert own_cued >= 0.25 * own_all, (own_cued, own_all)
    assert rival_free >= 0.2 * rival_all, (rival_free, rival_all)


def test_competitor_values_are_same_unit_and_judged_wrong(records) -> None:
    for r in (r for r in records if r["question_type"] in ("sums", "deltas")):
        asked, unit = _asked(r), r["typedmemeval"]["derivation"]["unit"]
        rivals = [p[1] for p in _statements(r) if p[1].subject in asked]
        assert all(s.currency == unit for s in rivals)
        value = Fraction(r["typedmemeval"]["derivation"]["value"]).limit_denominator(100)
        for s in rivals:
            sign = -1 if r["question_type"] == "deltas" and s.subject == asked[1] else 1
            confused = value + sign * Fraction(s.cents, 100)
            if confused > 0:
                assert _verdict(f"{SYMBOL[unit]}{float(confused):,.2f}", r) is not Outcome.CORRECT
        assert r["typedmemeval"]["answer_key"]["wrong"]
        for wrong in r["typedmemeval"]["answer_key"]["wrong"]:
            assert _verdict(wrong, r) is not Outcome.CORRECT


# --- positions ---------------------------------------------------------------------------------


def test_gold_positions_are_drawn_not_fixed(records) -> None:
    tenths: Counter[int] = Counter()
    first = last = 0
    for r in records:
        n = len(r["haystack_sessions"])
        gold = _gold(r)
        tenths.update(min(9, 10 * i // n) for i in gold)
        first += 0 in gold
        last += n - 1 in gold
    assert len(tenths) == 10 and min(tenths.values()) >= 0.4 * max(tenths.values())
    assert first < 0.45 * len(records) and last < 0.45 * len(records)
    indices = {tuple(sorted(_gold(r))) for r in records}
    assert len(indices) == len(records)


# --- V5: gold recomputed from the text alone -------------------------------------------------------


def test_purchase_gold_recomputed_from_the_text(records) -> None:
    for r in (r for r in records if r["question_type"] != "durations"):
        shape, asked = r["question_type"], _asked(r)
        total, sessions = Fraction(0), set()
        for index, pair in enumerate(_statements(r)):
            own = pair[0]
            if own.subject in asked:
                sessions.add(index)
                sign = -1 if shape == "deltas" and own.subject == asked[1] else 1
                total += 1 if shape == "counts" else sign * Fraction(own.cents, 100)
        assert sessions == _gold(r)
        value = Fraction(r["typedmemeval"]["derivation"]["value"]).limit_denominator(100)
        assert value == total and value > 0
        assert _verdict(r["answer"], r) is Outcome.CORRECT
        if shape == "counts":
            block = r["typedmemeval"]
            assert block["count_predicate"] in r["question"]
            assert sum(c["matches"] for c in block["candidates"]) == value
            assert len(block["candidates"]) == 2 * len(r["haystack_sessions"])
        else:
            texts = " ".join(t["content"] for s in r["haystack_sessions"] for t in s)
            assert f"{float(value):,.2f}" not in texts  # the total is derived, never stated


def test_durations_recomputed_from_the_text_under_both_day_conventions(records) -> None:
    for r in (r for r in records if r["question_type"] == "durations"):
        times = QuestionRecord.model_validate(r).session_times
        events: dict[str, list[int]] = {}
        for index, pair in enumerate(_statements(r)):
            events.setdefault(pair[0].subject, []).append(index)
        total = 0
        for item in _asked(r):
            start, end = (times[i] for i in events[item])
            assert (end.date() - start.date()).days == (end - start).days, item
            total += (end - start).days
        assert r["answer"] == f"{total} days"
        assert {i for item in _asked(r) for i in events[item]} == _gold(r)
        assert _verdict(f"{total} days", r) is Outcome.CORRECT
        assert _verdict(f"{total + 1} days", r) is not Outcome.CORRECT
        assert not re.search(r"\d", " ".join(t["content"] for s in r["haystack_sessions"]
                                             for t in s))


# --- negative controls: each validity rule refuses its defect ------------------------------------


def _tampered(monkeypatch: pytest.MonkeyPatch, change) -> None:
    original = ari.plan
    monkeypatch.setattr(ari, "plan", lambda seed, spec, rate: change(original(seed, spec, rate)))


def _rate(shape: str) -> float:
    return DIAL[shape]


def test_a_competitor_that_reads_as_the_users_own_purchase_is_refused(monkeypatch) -> None:
    spec = _spec("sums")

    def promote(plan: ari.Plan) -> ari.Plan:
        rival = next(pair[1] for pair in plan.said if pair[1].subject in plan.asked)
        rival.kind, rival.holder = "own", None
        return plan
    _tampered(monkeypatch, promote)
    with pytest.raises(GenerationError, match="own statements"):
        ari.build_record(SEED, spec, _rate("sums"))


def test_text_that_disagrees_with_the_plan_is_refused(monkeypatch) -> None:
    spec = _spec("counts")
    plan = ari.plan(SEED, spec, _rate("counts"))
    stay = ari.render(SEED, plan)
    read = ari.read_haystack(stay)
    plan.said[plan.gold[0]][0].subject = "Quarmby Motors"
    with pytest.raises(GenerationError, match="plan says"):
        ari.check_plan(stay, plan, read)


def test_coincident_subset_including_a_competitor_is_refused(monkeypatch) -> None:
    spec = _spec("sums", 3)

    def coincide(plan: ari.Plan) -> ari.Plan:
        first = max(plan.said[i][0].cents for i in plan.gold)  # splits into two amounts
        assert first > 20_001
        rival = next(pair[1] for pair in plan.said if pair[1].subject in plan.asked)
        other = next(pair[0] for i, pair in enumerate(plan.said) if i not in plan.gold
                     and pair[0].currency == plan.currency)
        rival.cents, other.cents = 10_001, first - 10_001  # a competitor + a rival = one input
        return plan
    _tampered(monkeypatch, coincide)
    with pytest.raises(GenerationError, match="another subset"):
        ari.build_record(SEED, spec, _rate("sums"))


def test_a_repeated_amount_is_refused(monkeypatch) -> None:
    def repeat(plan: ari.Plan) -> ari.Plan:
        plan.said[1][1].cents = plan.said[0][0].cents
        return plan
    _tampered(monkeypatch, repeat)
    with pytest.raises(GenerationError, match="twice"):
        ari.build_record(SEED, _spec("counts"), _rate("counts"))


def test_the_total_written_in_the_haystack_is_refused(monkeypatch) -> None:
    rate = _rate("deltas")
    spec = next(s for s in ari.layout(SEED)["deltas"]
                if ari.AMOUNT_CENTS[0] <= ari.plan(SEED, s, rate).value * 100 <= ari.AMOUNT_CENTS[1])

    def written(plan: ari.Plan) -> ari.Plan:
        foreign = next(pair[1] for pair in plan.said if pair[1].currency != plan.currency)
        foreign.cents = int(plan.value * 100)  # in another currency: no subset, but the figure
        return plan
    _tampered(monkeypatch, written)
    with pytest.raises(GenerationError, match="gold total is written"):
        ari.build_record(SEED, spec, rate)


def test_end_clock_before_start_clock_is_refused(monkeypatch) -> None:
    rate = _rate("durations")

    def earlier_end(plan: ari.Plan) -> ari.Plan:
        item = plan.asked[0]
        start, end = [i for i, pair in enumerate(plan.said) if pair[0].subject == item]
        plan.clocks[start], plan.clocks[end] = max(plan.clocks[start], plan.clocks[end]), \
            min(plan.clocks[start], plan.clocks[end]) - 1
        return plan
    _tampered(monkeypatch, earlier_end)
    with pytest.raises(GenerationError, match="whole elapsed days"):
        ari.build_record(SEED, _spec("durations"), rate)


def test_a_relations_span_equal_to_a_gold_span_is_refused() -> None:
    spec = _spec("durations", 2)
    plan = ari.plan(SEED, spec, _rate("durations"))
    stay = ari.render(SEED, plan)
    read = [list(pair) for pair in ari.read_haystack(stay)]
    ari.check_durations(stay, spec, plan.asked, read)  # clean as built
    start, end = [i for i, pair in enumerate(read) if pair[0].subject == plan.asked[0]]
    used = {s.subject for pair in read for s in pair}
    item = next(i for i in ari.ITEMS if i not in used)
    read[start].append(ari.Said("holder", item, "start", "sister"))  # her loan spans the same days
    read[end].append(ari.Said("holder", item, "end", "sister"))
    with pytest.raises(GenerationError, match="another span"):
        ari.check_durations(stay, spec, plan.asked, read)


def test_declining_to_lend_an_item_that_is_away_is_refused() -> None:
    spec = _spec("durations", 2)
    plan = ari.plan(SEED, spec, _rate("durations"))
    stay = ari.render(SEED, plan)
    read = [list(pair) for pair in ari.read_haystack(stay)]
    start, _ = [i for i, pair in enumerate(read) if pair[0].subject == plan.asked[0]]
    read[start].insert(1, ari.Said("declined", plan.asked[0], "refusal"))
    with pytest.raises(GenerationError, match="while it is away"):
        ari.check_durations(stay, spec, plan.asked, read)


def test_number_words_in_a_duration_haystack_are_refused(monkeypatch) -> None:
    original = ari.render

    def counted(seed, plan, tally=None):
        stay = original(seed, plan, tally)
        turn = next(t for t in stay.sessions[0] if not ari.read_statements(t.text))
        turn.text += " It took eleven phone calls."
        return stay
    monkeypatch.setattr(ari, "render", counted)
    with pytest.raises(GenerationError, match="number word"):
        ari.build_record(SEED, _spec("durations"), _rate("durations"))


def test_a_wrong_answer_the_judge_accepts_is_refused(monkeypatch) -> None:
    original = ari._answers
    monkeypatch.setattr(ari, "_answers", lambda *a: (original(*a)[0], [original(*a)[0]]))
    with pytest.raises(GenerationError, match="wrong answer"):
        ari.build_record(SEED, _spec("counts"), _rate("counts"))


def test_competition_rate_outside_the_unit_interval_is_refused() -> None:
    with pytest.raises(GenerationError, match="competition rate"):
        ari.build_record(SEED, _spec("sums"), 1.5)


def test_every_construction_reads_back_as_itself() -> None:
    ari._assert_banks()  # each row, actor, opening sentence and follow-up parses to its statement
    text = ("My sister and I went out browsing yesterday. Then I almost paid $412.80 for an easel "
            "at Pellow Hardware, but walked out.")
    (said,) = ari.read_statements(text)
    assert (said.kind, said.subject, said.cents, said.rel) == (
        "declined", "Pellow Hardware", 41280, "sister")
    (said,) = ari.read_statements("My brother popped round this morning. Today he decided to "
                                  "loan his ladder out to a friend.")
    assert (said.kind, said.holder, said.event, said.subject) == ("holder", "brother", "start",
                                                                  "ladder")
    (said,) = ari.read_statements("My brother popped round this morning. Today I decided to loan "
                                  "my ladder out to a friend.")  # one frame: only the holder words
    assert (said.kind, said.holder, said.event, said.subject) == ("own", None, "start", "ladder")
    (said,) = ari.read_statements("My brother popped round this morning. Today I refused to loan "
                                  "my ladder out to a friend.")  # the twin: only the stance word
    assert (said.kind, said.event, said.subject) == ("declined", "refusal", "ladder")


def test_every_declined_frame_is_a_word_length_twin_of_an_acted_one() -> None:
    """The gate's word-length frame table must not read the decline stance (arith7): each
    declined frame has its acted twin's word lengths in order, holders and slots masked as the
    gate masks them, and differs from it in words."""
    ari._assert_stance_twins()
    for kind, rows in (("purchase", ari.PURCHASE_ROWS),
                       *(("duration", rows) for rows in ari.DURATION_ROWS.values())):
        acted_col, declined_col = ari.STANCE_TWIN[kind]
        for row in rows:
            acted, declined = (row[c].format(**ari._actor(None), **ari._SAMPLE)
                               for c in (acted_col, declined_col))
            assert acted != declined
            assert ari.table_length_frame(acted) == ari.table_length_frame(declined)


# --- one bank of shapes for every role (the episode form reader) --------------------------------


def test_every_row_has_a_version_of_one_form_for_every_role() -> None:
    """Structural: every purchase row holds an own, a relation's, a declined and a quote version,
    every duration row a sent-away, back, declined and a relation's sent-away and back version,
    and the import-time check holds: equal words, commas, other punctuation and value-like
    tokens, letters within the slack, one core length for every purchase row."""
    assert all(len(row) == len(ari.PURCHASE_COLUMN) for row in ari.PURCHASE_ROWS)
    assert all(len(row) == len(ari.PURCHASE_COLUMN) for row in ari.PURCHASE_FOLLOWS)
    assert all(len(row) == len(ari.DURATION_COLUMN) for rows in ari.DURATION_ROWS.values()
               for row in rows)
    assert len(ari.INTROS_PURCHASE) == len(ari.QUOTE_INTROS)
    ari._assert_forms()


@pytest.mark.parametrize("row", [
    ("So I finally ordered {a} from {shop} for {v}.", "So {i} later ordered {a} from {shop} for {v}.",
     "{shop} had {a} in the window at {v}. I kept walking.", "So {shop} would sell you {a} at {v}."),
    ("So I finally ordered {a} from {shop} for {v}.", "So {i} later ordered {a} from {shop} for {v}.",
     "So I decided against {a} from {shop} for {v}, sadly, after all.",
     "So {shop} would sell you {a} for {v}."),
])
def test_a_row_whose_roles_differ_in_form_is_refused(monkeypatch, row) -> None:
    """The old construction's tell, injected: a declined version that runs to a second sentence
    ("... at $944.69. I kept walking."), or that is longer and carries more commas."""
    monkeypatch.setattr(ari, "PURCHASE_ROWS", (*ari.PURCHASE_ROWS, row))
    with pytest.raises(AssertionError):
        ari._assert_forms()


def test_own_and_holder_statements_are_one_frame_but_the_holder_words() -> None:
    """Red team 32: own purchases used 12 frames and other people's 12 more, none shared, even with
    pronouns masked and every word replaced by its length ("just as planned" / "just as agreed").
    Now every own version IS the relation's template, so with the holder words masked the two
    render the same sentence, and a relation's version differing in any other word is refused."""
    for row in ari.PURCHASE_ROWS:
        assert row[0] == row[1]
    for rows in ari.DURATION_ROWS.values():
        assert all(row[0] == row[3] and row[1] == row[4] for row in rows)
    sample = {"a": "a settee", "A": "A settee", "shop": "Pellow Hardware", "v": "$412.80",
              "item": "ladder"}
    for template in (t for row in ari.PURCHASE_ROWS for t in row[:2]):
        own = ari.mask_holder(template.format(**ari._actor(None), **sample))
        for relation in ari._PRONOUN_SETS:
            assert ari.mask_holder(template.format(**ari._actor(relation), **sample)) == own


def test_a_holder_version_with_its_own_words_is_refused(monkeypatch) -> None:
    """The old twin, injected: a relation's version that differs in a word saying nothing about
    who acted ("as agreed" for "as planned")."""
    own = "And {shop} took {v} off {my} card for {a}, just as planned."
    row = (own, own.replace("planned", "agreed"), "And {shop} had {a} in the window at {v}, but "
           "I declined.", "And {shop} has {a} in its catalogue at {v}, as it happens.")
    monkeypatch.setattr(ari, "PURCHASE_ROWS", (*ari.PURCHASE_ROWS, row))
    with pytest.raises(AssertionError):
        ari._assert_forms()


EPISODE_FEATURES = ("sentences", "words", "before_words", "after_words", "turn_sentences")
EPISODE_Z = 3.48
"""Two-sided z at a family-wise 0.005 over the ten comparisons below (Bonferroni: 0.0005 each)."""


def _episodes(record: dict[str, Any]) -> list[tuple[bool, dict[str, int]]]:
    """(gold, form) per candidate of the episode view: the sentences holding the most question
    content words (a value or not), each read with its neighbours in its turn."""
    from pytest_typedmemeval.retrieval.tokenizer import tokenize
    from pytest_typedmemeval.retrieval.values import sentences

    words = set(tokenize(record["question"]))
    gold = _gold(record)
    found = []
    for index, session in enumerate(record["haystack_sessions"]):
        for turn in session:
            said = sentences(turn["content"])
            for i, sentence in enumerate(said):
                overlap = len(words & set(tokenize(sentence)))
                if overlap:
                    span = said[max(0, i - 1):i + 2]
                    found.append((overlap, index in gold, {
                        "sentences": len(span), "words": len(" ".join(span).split()),
                        "before_words": len(said[i - 1].split()) if i else 0,
                        "after_words": len(said[i + 1].split()) if i + 1 < len(said) else 0,
                        "turn_sentences": min(len(said), 6)}))
    top = max((overlap for overlap, _, _ in found), default=0)
    return [(g, form) for overlap, g, form in found if overlap == top]


def episode_form_z(records: list[dict[str, Any]], shapes: tuple[str, ...]) -> dict[str, float]:
    """Per feature, the two-sample z of gold episodes' mean against the other candidates'."""
    gold: dict[str, list[int]] = {f: [] for f in EPISODE_FEATURES}
    rest: dict[str, list[int]] = {f: [] for f in EPISODE_FEATURES}
    for record in (r for r in records if r["question_type"] in shapes):
        for is_gold, form in _episodes(record):
            for f in EPISODE_FEATURES:
                (gold if is_gold else rest)[f].append(form[f])
    out = {}
    for f in EPISODE_FEATURES:
        a, b = gold[f], rest[f]
        se = (statistics.pvariance(a) / len(a) + statistics.pvariance(b) / len(b)) ** 0.5 or 1.0
        out[f] = (statistics.mean(a) - statistics.mean(b)) / se
    return out


@pytest.mark.parametrize("shapes", [("counts", "sums", "deltas"), ("durations",)])
def test_episode_form_does_not_depend_on_the_role(records, shapes) -> None:
    """How long an episode is (sentences, words, the sentence before and after, sentences in
    its turn) must not say whether it is gold. On the shipped bytes before the rebuild
    (8677ab2c...) the purchase shapes gave after_words z = -4.37 (gold's own purchases mostly one
    sentence, competitors often two), words -2.76, sentences -2.64; the rebuild's seed and three
    others stay within |z| 1.5."""
    z = episode_form_z(records, shapes)
    assert all(abs(v) <= EPISODE_Z for v in z.values()), z


def test_every_role_draws_its_shape_alike() -> None:
    """The plan draws the opening sentence, the follow-up, the reply's question and the row the
    same way whatever the role: over a fresh plan of every purchase question the follow-up and
    ask shares per kind stay within three standard errors of the shared rate."""
    seen: dict[str, list[tuple[bool, bool]]] = {}
    for shape in ("counts", "sums", "deltas", "durations"):
        for spec in ari.layout(SEED)[shape]:
            plan = ari.plan(SEED, spec, DIAL[shape])
            for pair in plan.said:
                for s in pair:
                    seen.setdefault(s.kind, []).append((s.follow >= 0, s.ask))
    for kind, draws in seen.items():
        n = len(draws)
        for index, rate in ((0, ari.FOLLOW_SHARE), (1, ari.ASK_SHARE)):
            share = sum(d[index] for d in draws) / n
            assert abs(share - rate) <= 3 * (rate * (1 - rate) / n) ** 0.5, (kind, index, share)


MENTION_SEEDS = (SEED, SEED + 1)
MAX_MENTION_CORRELATION = 0.30
"""Fixed before measuring the new construction: about three standard errors of a correlation
over the 100-140 tracked shops of two seeds per shape (the old construction: 0.91-0.97)."""
MAX_HALF_RULE = 0.45
"""Red team 23's ceil(n / 2) on the asked shop, counts and sums of two seeds (56 questions):
chance is about 0.25-0.29, three standard errors above it is about 0.45 (old construction 0.71)."""


def _tracked_mentions(shape: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(own purchases, user sentences naming the shop) per tracked shop, and per asked shop."""
    every: list[tuple[int, int]] = []
    asked: list[tuple[int, int]] = []
    for seed in MENTION_SEEDS:
        for spec in ari.layout(seed)[shape]:
            plan = ari.plan(seed, spec, DIAL[shape])
            for shop in (*plan.asked, *plan.decoys):
                said = [s for pair in plan.said for s in pair if s.subject == shop]
                row = (sum(s.kind == "own" for s in said), sum(s.kind != "quote" for s in said))
                every.append(row)
                if shop in plan.asked and shape != "deltas":
                    asked.append(row)
    return every, asked


def _correlation(pairs: list[tuple[int, int]]) -> float:
    """Pearson correlation; 0.0 when either side is constant (deltas at its recorded dial names
    every tracked shop exactly four times: a constant count says nothing of the own purchases)."""
    xs, ys = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = sum((x - mx) ** 2 for x in xs) ** 0.5
    sy = sum((y - my) ** 2 for y in ys) ** 0.5
    return sxy / (sx * sy) if sx and sy else 0.0


def test_mentions_of_a_shop_say_nothing_of_its_own_purchases() -> None:
    """Red team 23: per shop the competitors tracked the own purchases (the dial's share of
    them), so the user's sentences naming the asked shop, n, gave G = ceil(n / 2) on 10 of 14
    counts questions. The user's sentences naming a tracked shop are now drawn whatever its own
    count: across the tracked shops of two seeds they do not correlate with it, and ceil(n / 2)
    on the asked shop is at chance (bounds fixed in advance, above)."""
    hits = total = 0
    for shape in ("counts", "sums", "deltas"):
        every, asked = _tracked_mentions(shape)
        assert abs(_correlation(every)) <= MAX_MENTION_CORRELATION, (shape, _correlation(every))
        hits += sum(-(-n // 2) == g for g, n in asked)
        total += len(asked)
    assert hits / total <= MAX_HALF_RULE, (hits, total)
