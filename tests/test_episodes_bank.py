"""The episode bank (pytest_typedmemeval.generate.episodes_bank): every rendered line keeps the
scaffold rules, episodes hang together (slots filled once, replies that fit their opener, questions
that get answered), lines are varied enough for a corpus of thousands of sessions, and drawing is
deterministic and respects banned words."""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import lru_cache
from typing import Any

import pytest

from pytest_typedmemeval.generate import episodes_bank as bank
from pytest_typedmemeval.generate import talk
from pytest_typedmemeval.generate.episodes_bank import (
    ASSISTANT_LEADS,
    EPISODES,
    RELATIONS,
    REL_SLOTS,
    STATEMENT_REPLIES,
    TOPIC_BANK,
    TOPICS,
    USER_DECLINES,
    draw_slots,
    expansions,
    relation_slots,
    render,
    render_episode,
    slot_words,
    small_talk_episode,
    statement_reply,
    template_slots,
    topics_without,
)
from pytest_typedmemeval.retrieval.tokenizer import raw_tokens, tokenize

RELATION_KEYS = sorted(RELATIONS)
TOPIC_PHRASES = ("the boiler at the cottage", "the roof at the chapel", "the kiln at her school")
HOLDER = "your sister"
_SENTENCE = re.compile(r"(?<=[.!?]) +")
_TEMPLATE_SENTENCE = re.compile(r"(?<=[.!?]) +(?![^\[]*\])")

# Words every chat turn may hold whatever it is about (as the corpus naturalness measure drops
# them): sharing one of these says nothing about a reply fitting its turn.
CHAT_WORDS = frozenset("""
    yes yeah oh ah well really just quite pretty sure good great nice lovely glad like get got go
    going make let take come give put know think sound sounds thing lot bit also actually sort kind
    """.split())
YES_OPENERS = ("yes", "oh, yes", "sort of", "kind of", "i think so", "absolutely", "definitely")
YES_NO_WORDS = frozenset("do does did is are was were have has can could will would".split())
HAPPY_CUES = (
    "lovely", "glad", "treat", "wonderful", "brilliant", "delightful", "marvellous", "lucky",
    "perfect", "fantastic", "well done", "bravo", "great", "fun", "proud", "win", "triumph", "joy",
    "gorgeous", "beautiful", "glorious", "blissful", "bliss", "adorable", "sweetest", "charming",
    "exciting", "thrilling", "satisfying", "impressive", "achievement", "star", "heavenly", "idyllic",
    "cracking", "success", "cosy", "relief", "kind", "thoughtful", "generous", "sweet", "compliment",
    "delight", "magic", "ideal", "privilege", "what luck", "nice", "welcome", "good sign",
    "treasure", "civilised", "laugh", "comfort", "what a find", "wonderfully", "hard to beat")
SAD_CUES = (
    "oh dear", "shame", "poor", "rotten", "annoying", "frustrating", "miserable", "grim",
    "horrible", "horrid", "nuisance", "pain", "awful", "maddening", "exhausting", "heartbreaking",
    "disheartening", "disappointing", "letdown", "cruel", "gutting", "worry", "worrying", "tedious",
    "agonising", "unfair", "ouch", "frightening", "scary", "stings", "unnerving", "torture",
    "nerve racking", "deflating", "bruising", "blow")


@lru_cache(maxsize=None)
def _problems(line: str) -> tuple[str, ...]:
    return tuple(talk.problems(line))


def _sentence_problems(line: str) -> tuple[str, ...]:
    """:func:`talk.problems` of ``line`` sentence by sentence (cached), plus its whole-line checks.

    Why this equals ``talk.problems(line)``: the checker splits at the same sentence boundary
    (".", "!" or "?" and a space) for its capital rule, and none of its word, phrase or cue
    patterns can match across one (each needs a space or a word character where the boundary
    puts punctuation). The exhaustive coverage set has thousands of lines made of far fewer
    sentences, so this keeps the test fast; the seeded sample is checked line by line."""
    found = [p for sentence in _SENTENCE.split(line) for p in _problems(sentence)]
    if "  " in line or line != line.strip():
        found.append("stray spaces")
    return tuple(found)


def _cues(text: str, cues: tuple[str, ...]) -> list[str]:
    low = text.lower()
    return [c for c in cues if re.search(rf"\b{re.escape(c)}\b", low)]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


def _content(text: str) -> set[str]:
    """Reference tokens minus chat words, by Snowball stem (as the corpus measure compares them),
    so "turned" answers "turn"."""
    return {_stemmer().stemWord(t) for t in tokenize(text) if t not in CHAT_WORDS}


def _question(text: str) -> str | None:
    last = _SENTENCE.split(text)[-1]
    return last if last.endswith("?") else None


def _answers(question: str, answer: str) -> bool:
    """The answered-question rule: a shared content word, or a yes/no question answered with a
    yes-type opener ("So did you...?" skips its particle)."""
    if _content(question) & _content(answer):
        return True
    words = [w for w in raw_tokens(question) if w not in ("so", "and", "oh")]
    return bool(words) and words[0] in YES_NO_WORDS and answer.lower().startswith(YES_OPENERS)


def _slots_for(frame: bank.Episode, rng: random.Random) -> dict[str, str]:
    return draw_slots(frame, rng, RELATION_KEYS)


def _sample_episodes(n: int, seed: int) -> list[list[tuple[bank.Role, str]]]:
    rng = random.Random(seed)
    return [small_talk_episode(rng, None, rng.sample(RELATION_KEYS, rng.randint(2, 3)))
            for _ in range(n)]


@lru_cache(maxsize=1)
def _big_sample() -> tuple[tuple[tuple[bank.Role, str], ...], ...]:
    """Three thousand seeded episodes, each with a drawn persona of two or three relations (a
    corpus holds several thousand sessions, so variety is judged at that scale)."""
    return tuple(tuple(ep) for ep in _sample_episodes(3000, seed=2024))


# --- the scaffold rules, on every rendered line ----------------------------------------------


def _template_sentences(text: str) -> list[str]:
    return _TEMPLATE_SENTENCE.split(text)


def _covering(template: str) -> list[str]:
    """Wordings of ``template`` that use every option of every alternative at least once (as
    many as its largest group has options, cycling the smaller ones), not their full product;
    combinations across groups are left to the seeded sample."""
    parts = re.split(r"\[([^\[\]]*)\]", template)
    fixed, groups = parts[0::2], [p.split("|") for p in parts[1::2]]
    width = max((len(g) for g in groups), default=1)
    out = []
    for j in range(width):
        pieces = [fixed[0]]
        for group, tail in zip(groups, fixed[1:]):
            pieces += [group[j % len(group)], tail]
        out.append("".join(pieces))
    return out


def test_covering_wordings_use_every_option() -> None:
    wordings = _covering("[Yes|Oh, yes|Yes, actually], it was [grim|fine] and [wet|cold|dry|hot].")
    assert len(wordings) == 4
    assert {w.split(",")[0] for w in wordings} >= {"Yes", "Oh"}
    assert all(any(o in w for w in wordings) for o in ("grim", "fine", "wet", "cold", "dry", "hot"))


@lru_cache(maxsize=1)
def _coverage_lines() -> frozenset[str]:
    """Rendered sentences covering every option of every alternative of every frame sentence,
    with each slot's fillers and the relations taken in turn as sentences use them, then topped
    up so every filler and every relation appears in every topic at least once.

    Sentences, not whole lines: :func:`talk.problems` is sentence-local (see
    :func:`_sentence_problems`), and a line's alternatives multiply across its sentences while
    each sentence's do not; whole lines are checked on the seeded sample."""
    turn: Counter[tuple[str, str]] = Counter()
    seen: set[tuple[str, str, str]] = set()

    def fill(topic: str, names: frozenset[str]) -> dict[str, str]:
        slots: dict[str, str] = {}
        for name in sorted(names - set(REL_SLOTS)):
            fillers = TOPIC_BANK[topic].slots[name]
            slots[name] = fillers[turn[topic, name] % len(fillers)]
            turn[topic, name] += 1
            seen.add((topic, name, slots[name]))
        if names & set(REL_SLOTS):
            key = RELATION_KEYS[turn[topic, "rel"] % len(RELATION_KEYS)]
            turn[topic, "rel"] += 1
            seen.add((topic, "rel", key))
            slots |= relation_slots(RELATIONS[key])
        return slots

    out: set[str] = set()
    for frame in EPISODES:
        for _, text in frame.lines:
            for sentence in _template_sentences(text):
                for option in _covering(sentence):
                    out.add(render(option, fill(frame.topic, template_slots(option))))
    for spec in TOPIC_BANK.values():
        sentences = [t for f in spec.frames for _, line in f.lines for t in _template_sentences(line)]
        wanted = [(name, f) for name, fillers in spec.slots.items() for f in fillers]
        wanted += [("rel", key) for key in RELATION_KEYS]
        for name, value in wanted:
            if (spec.name, name, value) in seen:
                continue
            rel = name == "rel"
            text = next(t for t in sentences
                        if (template_slots(t) & set(REL_SLOTS) if rel else name in template_slots(t)))
            slots = fill(spec.name, template_slots(text))
            slots |= relation_slots(RELATIONS[value]) if rel else {name: value}
            out.add(render(_covering(text)[0], slots))
    return frozenset(out)


def test_every_alternative_filler_and_relation_renders_clean_scaffold() -> None:
    bad = [(line, p) for line in sorted(_coverage_lines()) for p in _sentence_problems(line)]
    assert not bad, bad[:20]


def test_a_large_seeded_sample_of_episodes_renders_clean_scaffold() -> None:
    bad = [(text, p) for episode in _sample_episodes(300, seed=7) for _, text in episode
           for p in _problems(text)]
    assert not bad, bad[:20]


def test_every_slot_filler_is_plain_lowercase_words() -> None:
    for spec in TOPIC_BANK.values():
        for name, fillers in spec.slots.items():
            for filler in fillers:
                assert re.fullmatch(r"[a-z]+(?: [a-z]+)*", filler), (spec.name, name, filler)
                assert not _problems(f"I like {filler}."), (spec.name, name, filler)


def test_rendered_lines_keep_their_articles_and_determiners() -> None:
    double = re.compile(r"\b(a|an|the|your|my|his|her) (a|an|the|your|my|his|her)\b", re.I)
    lines = _coverage_lines() | {t for ep in _sample_episodes(500, seed=3) for _, t in ep}
    bad = [line for line in lines
           if double.search(line) or re.search(r"\ba [aeio]", line, re.I)
           or re.search(r"\ban [^aeiouh]", line, re.I)]
    assert not bad, bad[:10]


def test_the_assistant_never_speaks_of_the_users_things_as_its_own() -> None:
    bad = [text for ep in _big_sample() for role, text in ep
           if role == "assistant" and re.search(r"\b(my|our|we)\b", text, re.I)]
    assert not bad, bad[:10]


def test_structure_rules_hold() -> None:
    assert bank.structure_problems() == []


def test_bank_sizes() -> None:
    assert len(TOPICS) >= 25
    assert all(len(spec.frames) >= 8 for spec in TOPIC_BANK.values())
    assert all(2 <= len(spec.slots) and all(6 <= len(v) <= 12 for v in spec.slots.values())
               for spec in TOPIC_BANK.values())
    assert 8 <= len(RELATIONS) <= 10
    assert all(len(STATEMENT_REPLIES[s]) >= 12 for s in bank.STANCES)
    assert len(ASSISTANT_LEADS) >= 15 and len(USER_DECLINES) >= 12


# --- episodes that hang together ---------------------------------------------------------------


def test_a_slot_is_filled_once_per_episode() -> None:
    rng = random.Random(5)
    for frame in EPISODES:
        shared = [n for n in template_slots(frame.opener) & template_slots(frame.reply)
                  if n not in REL_SLOTS or n == "rel"]
        for _ in range(3):
            slots = _slots_for(frame, rng)
            opener, reply = (text for _, text in render_episode(frame, slots, rng)[:2])
            for name in shared:
                value = slots[name].lower()
                assert value in opener.lower() and value in reply.lower(), (frame.opener, name)


def test_episodes_are_user_first_assistant_last_and_alternate() -> None:
    lengths: Counter[int] = Counter()
    for episode in _sample_episodes(600, seed=13):
        roles = [role for role, _ in episode]
        assert roles == ["user", "assistant"] * (len(roles) // 2), roles
        lengths[len(episode)] += 1
    assert set(lengths) == {2, 4}, "episodes vary in length"
    assert lengths[2] >= 0.15 * sum(lengths.values())


def test_a_question_ends_a_reply_and_only_then_comes_an_answer() -> None:
    for frame in EPISODES:
        asks = frame.reply.endswith("?")
        assert asks == (frame.answer is not None) == (frame.close is not None), frame.reply
        assert "?" not in frame.reply[:-1], frame.reply
        assert frame.answer is None or "?" not in frame.answer, frame.answer


def test_every_answer_answers_its_question() -> None:
    rng = random.Random(17)
    misses = []
    for frame in EPISODES:
        if frame.answer is None:
            continue
        for _ in range(3):
            turns = render_episode(frame, _slots_for(frame, rng), rng)
            question = _question(turns[1][1])
            assert question is not None
            if not _answers(question, turns[2][1]):
                misses.append((question, turns[2][1]))
    assert not misses, misses[:10]


def test_replies_share_a_content_word_with_their_opener() -> None:
    rng = random.Random(19)
    sharing = [bool(_content(t[0][1]) & _content(t[1][1]))
               for t in (render_episode(f, _slots_for(f, rng), rng) for f in EPISODES)]
    assert sum(sharing) >= 0.9 * len(sharing), sum(sharing) / len(sharing)


def test_closes_refer_to_the_answer() -> None:
    rng = random.Random(23)
    with_close = [f for f in EPISODES if f.close is not None]
    sharing = [bool(_content(t[2][1]) & _content(t[3][1]))
               for t in (render_episode(f, _slots_for(f, rng), rng) for f in with_close)]
    assert sum(sharing) >= 0.8 * len(sharing), sum(sharing) / len(sharing)


@pytest.mark.parametrize("frame", EPISODES, ids=lambda f: f"{f.topic}:{f.opener[:30]}")
def test_a_reply_keeps_the_sentiment_of_its_opener(frame: bank.Episode) -> None:
    """Every wording of the reply's first sentence (its reaction) carries a cue of the frame's
    mood and none of the opposite one: bad news gets sympathy, good news gladness."""
    first = _TEMPLATE_SENTENCE.split(frame.reply)[0]
    for option in expansions(first):
        happy, sad = _cues(option, HAPPY_CUES), _cues(option, SAD_CUES)
        if frame.mood == "happy":
            assert happy and not sad, (option, happy, sad)
        elif frame.mood == "sad":
            assert sad and not happy, (option, happy, sad)
        else:
            assert not sad, (option, sad)


def test_moods_are_mixed_within_topics() -> None:
    for spec in TOPIC_BANK.values():
        moods = Counter(f.mood for f in spec.frames)
        assert moods["happy"] and moods["sad"], (spec.name, moods)


# --- variety --------------------------------------------------------------------------------


def test_sentences_are_mostly_distinct_over_three_thousand_episodes() -> None:
    sentences = [s.lower() for ep in _big_sample() for _, t in ep for s in _SENTENCE.split(t)]
    assert len(set(sentences)) >= 0.70 * len(sentences), len(set(sentences)) / len(sentences)


def test_no_sentence_dominates_a_sample() -> None:
    counts = Counter(s.lower() for ep in _big_sample() for _, t in ep for s in _SENTENCE.split(t))
    assert counts.most_common(1)[0][1] <= 40, counts.most_common(5)


def test_every_topic_can_be_drawn_by_name_and_by_chance() -> None:
    rng = random.Random(1)
    assert all(small_talk_episode(rng, t, RELATION_KEYS[:3]) for t in TOPICS)
    openers = {small_talk_episode(rng, None, RELATION_KEYS[:3])[0][1] for _ in range(200)}
    assert len(openers) >= 195, "a drawn topic and frame rarely repeat an opener"


# --- persona, banned words, determinism -------------------------------------------------------


def test_relations_are_gendered_people() -> None:
    for key, rel in RELATIONS.items():
        assert (rel.subj, rel.obj, rel.poss) in {("she", "her", "her"), ("he", "him", "his")}, key
        assert re.fullmatch(r"[a-z]+(?: [a-z]+)*", rel.noun), key
    assert {r.noun for r in RELATIONS.values()} >= {"sister", "brother", "neighbour", "partner"}


def test_only_the_personas_relations_are_named() -> None:
    others = {r.noun for r in RELATIONS.values() if r.noun != "sister"}
    rng = random.Random(29)
    for _ in range(400):
        text = " ".join(t for _, t in small_talk_episode(rng, None, ["sister"]))
        assert not any(re.search(rf"\b{noun}\b", text) for noun in others), text


def test_without_relations_only_frames_naming_nobody_are_drawn() -> None:
    rng = random.Random(31)
    for _ in range(300):
        text = " ".join(t for _, t in small_talk_episode(rng, None, ()))
        assert not any(re.search(rf"\byour {r.noun}\b|\bmy {r.noun}\b", text)
                       for r in RELATIONS.values()), text


def test_banned_words_never_appear() -> None:
    banned = frozenset({"kitchen", "garden", "cat", "sister", "tea", "park", "walk", "cake"})
    rng = random.Random(37)
    for _ in range(1500):
        episode = small_talk_episode(rng, None, RELATION_KEYS, banned=banned)
        words = {w for _, t in episode for w in raw_tokens(t)}
        assert not words & banned, (words & banned, episode)


def test_a_banned_subject_phrase_bans_its_content_words_not_its_stopwords() -> None:
    """A vertical bans the tokens of its subject phrases, stopwords included ("the kiln at the
    pottery"); banning "the" and "at" would empty the bank, so only content words count."""
    phrases = ("the kiln at the pottery", "the boiler at the cottage", "the van for the move")
    banned = frozenset(w for p in phrases for w in raw_tokens(p))
    assert {"the", "at", "for"} <= banned
    assert len(topics_without(banned, RELATION_KEYS)) == len(TOPICS)
    rng = random.Random(61)
    content = banned - {"the", "at", "for"}
    for _ in range(500):
        words = {w for _, t in small_talk_episode(rng, None, RELATION_KEYS, banned=banned)
                 for w in raw_tokens(t)}
        assert not words & content, words & content


def test_banned_words_are_case_insensitive_and_reach_fillers() -> None:
    rng = random.Random(41)
    fillers = TOPIC_BANK["cooking"].slots["dish"]
    banned = {"soup", "Pie"}
    dishes: Counter[str] = Counter()
    for _ in range(300):
        text = " ".join(t for _, t in small_talk_episode(rng, "cooking", RELATION_KEYS, banned=banned))
        assert "soup" not in text.lower().split() and "pie" not in raw_tokens(text), text
        dishes.update(f for f in fillers if f in text.lower())
    assert dishes, "the other dishes are still drawn"


def test_a_topic_with_nothing_left_raises_a_clear_error() -> None:
    everything = frozenset(w for f in TOPIC_BANK["cat"].frames for w in f.words)
    with pytest.raises(ValueError, match="small-talk topic 'cat' has no frame left"):
        small_talk_episode(random.Random(0), "cat", RELATION_KEYS, banned=everything)
    assert "cat" not in topics_without(everything, RELATION_KEYS)
    with pytest.raises(ValueError, match="unknown small-talk topic"):
        small_talk_episode(random.Random(0), "skydiving", RELATION_KEYS)
    with pytest.raises(ValueError, match="unknown relation"):
        small_talk_episode(random.Random(0), None, ["aunt"])
    with pytest.raises(ValueError, match="no small-talk topic keeps a frame"):
        small_talk_episode(random.Random(0), None, RELATION_KEYS, banned=slot_words())


def test_the_same_seed_draws_the_same_episodes() -> None:
    assert _sample_episodes(200, seed=43) == _sample_episodes(200, seed=43)
    assert _sample_episodes(200, seed=43) != _sample_episodes(200, seed=44)
    a, b = random.Random(5), random.Random(5)
    assert [statement_reply(a, s, TOPIC_PHRASES[0], holder=HOLDER) for s in bank.STANCES * 20] == \
        [statement_reply(b, s, TOPIC_PHRASES[0], holder=HOLDER) for s in bank.STANCES * 20]


# --- statement replies, leads and declines ----------------------------------------------------


def _statement_lines() -> set[str]:
    lines = set()
    for replies in STATEMENT_REPLIES.values():
        for row in replies:
            for text in (row.reply, row.answer, row.close):
                for i, option in enumerate(_covering(text) if text else ()):
                    for topic in (TOPIC_PHRASES[i % 3], TOPIC_PHRASES[(i + 1) % 3]):
                        lines.add(render(option, {"topic": topic, "holder": HOLDER}))
    return lines


def test_statement_replies_render_clean_scaffold() -> None:
    bad = [(line, p) for line in sorted(_statement_lines()) for p in _sentence_problems(line)]
    assert not bad, bad[:20]


def test_statement_replies_name_the_topic_and_only_other_names_a_holder() -> None:
    for stance, replies in STATEMENT_REPLIES.items():
        for row in replies:
            assert "topic" in template_slots(row.reply), row.reply
            texts = [t for t in (row.reply, row.answer, row.close) if t]
            holders = [t for t in texts if "holder" in template_slots(t)]
            assert not holders or stance == "other", holders
            assert not any(template_slots(t) - {"topic", "holder"} for t in texts), texts
            assert row.answer is None or not template_slots(row.answer), row.answer


def test_about_half_the_statement_replies_ask_and_every_question_is_answered() -> None:
    for stance, replies in STATEMENT_REPLIES.items():
        if stance == "assistant-offer-declined":
            assert all(r.close and r.answer is None for r in replies)
            continue
        asking = [r for r in replies if r.reply.endswith("?")]
        assert 0.35 * len(replies) <= len(asking) <= 0.65 * len(replies), stance
        rng = random.Random(47)
        for row in asking:
            for _ in range(3):
                reply, answer = (render(bank.choose_alternatives(t, rng), {"topic": TOPIC_PHRASES[1],
                                                                           "holder": HOLDER})
                                 for t in (row.reply, row.answer or ""))
                question = _question(reply)
                assert question and _answers(question, answer), (question, answer)


def test_statement_reply_turns_and_roles() -> None:
    rng = random.Random(53)
    shapes: Counter[int] = Counter()
    for _ in range(300):
        for stance in bank.STANCES:
            turns = statement_reply(rng, stance, TOPIC_PHRASES[2], holder=HOLDER)
            roles = [r for r, _ in turns]
            if stance == "assistant-offer-declined":
                assert roles == ["user", "assistant"]
            else:
                assert roles in (["assistant"], ["assistant", "user", "assistant"])
                assert TOPIC_PHRASES[2] in turns[0][1].lower()
            shapes[len(turns)] += 1
            assert not any(re.search(r"\d|[A-Z][a-z]+ [A-Z]", t) for _, t in turns), turns
    assert shapes[1] and shapes[3]
    with pytest.raises(ValueError, match="holder"):
        statement_reply(rng, "other", TOPIC_PHRASES[0])
    with pytest.raises(ValueError, match="unknown stance"):
        statement_reply(rng, "booked", TOPIC_PHRASES[0])


def test_assistant_leads_ask_about_the_topic_and_render_plainly() -> None:
    for lead in ASSISTANT_LEADS:
        assert lead.endswith("?") and lead.count("{topic}") == 1 and "[" not in lead, lead
        for topic in TOPIC_PHRASES:
            assert not _problems(render(lead, {"topic": topic})), lead
    assert "the boiler at the cottage" in bank.statement_lead(random.Random(0),
                                                              "the boiler at the cottage")


def test_user_declines_are_plain_polite_and_name_nothing() -> None:
    for line in USER_DECLINES:
        assert not _problems(line) and "{" not in line and "[" not in line, line
    assert len(set(USER_DECLINES)) == len(USER_DECLINES)


# --- vocabulary -------------------------------------------------------------------------------


def test_slot_words_cover_everything_rendered() -> None:
    words = slot_words()
    rendered = {w for ep in _big_sample() for _, t in ep for w in raw_tokens(t)}
    assert rendered <= words, sorted(rendered - words)[:20]
    statement = {w for line in _statement_lines() for w in raw_tokens(line)}
    topic_words = {w for t in TOPIC_PHRASES + (HOLDER,) for w in raw_tokens(t)}
    assert statement - topic_words <= words, sorted(statement - topic_words - words)[:20]
    assert "topic" not in words and "holder" not in words
    assert words == {w.lower() for w in words}


def test_slot_words_are_disjoint_from_the_value_pools() -> None:
    values = pytest.importorskip("pytest_typedmemeval.generate.values")
    assert not slot_words() & values.pool_words()
