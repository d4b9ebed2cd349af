"""Content-free and frame readers of a WorkingMemory corpus (red team 19 and its kin).

Reads only the corpus JSON (no generator, no sidecar). For every question the *candidate clauses*
are the user clauses (a sentence, or a part of one between semicolons) that hold the asked kind's
noun and a capitalised value-like word; gold is the candidate holding the answer. Reported,
against random among the candidates:

(a) red team 19's rule: the candidate with the fewest characters per word (kind noun, verb phrase
    and value masked out), and the same on the raw clause;
(b) a content-free learned reader: logistic regression (numpy) over word count, characters per
    word, commas, repeats of the kind noun, negation and pronoun counts, alone-in-turn (no other
    valued clause in the turn), index of the clause in its turn and relative session position;
    trained on one half of the questions and tested on the other, both ways, over 20 halvings;
(c) a frame table: noun, verb, value, relation and he/she/his/her masked; which masked clause
    strings held gold in the training half ranks the other half's candidates; also the table of
    the opening only (the masked clause up to the value) — the frame skeleton;
(d) a bag of words over the clause after the value (reading content: allowed, reported).

Also the structural tells: alone-in-turn precision, the own clause's place in two-clause turns,
"the shorter-worded clause of a two-clause turn is gold".

Usage: python scripts/form_reader.py corpora/typedmemeval-workingmemory-v3.json [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from typing import Any

import numpy as np

NEGATIONS = {"no", "not", "never", "nothing", "none", "nor", "neither", "nobody", "nowhere"}
PRONOUNS = {"i", "me", "my", "mine", "myself", "he", "she", "him", "her", "his", "hers", "it",
            "its", "they", "them", "their", "we", "us", "our", "you", "your"}
RELATIONS = ("friend from work", "sister", "brother", "mother", "father", "mum", "dad", "partner", "husband", "wife",
             "neighbour", "friend", "colleague", "cousin", "son", "daughter", "aunt", "uncle",
             "flatmate", "boss", "niece", "nephew", "grandmother", "grandfather", "gran",
             "best friend", "girlfriend", "boyfriend", "fiancee", "fiance", "sister in law",
             "brother in law", "stepmother", "stepfather", "mother in law", "father in law")
_REL = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, RELATIONS), key=len, reverse=True))
                  + r")\b")
_VALUE = re.compile(r"(?<!^)(?<![.:;?!] )\b[A-Z][a-z]+(?: [A-Z][a-z]+)?\b")
_WORD = re.compile(r"[A-Za-z']+")


def _valued(clause: str) -> list[str]:
    body = clause.strip()
    return [m.group(0) for m in _VALUE.finditer(body) if m.group(0) != "I" and m.start() > 0]


def _clauses(text: str) -> list[str]:
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        out += [part.strip() for part in sentence.split(";") if part.strip()]
    return out


def _mask(clause: str, noun: str, verb: str, value: str) -> str:
    text = clause.replace(value, "X")
    text = re.sub(rf"\b{re.escape(verb)}\b", "V", text)
    text = re.sub(rf"\b{re.escape(noun)}\b", "K", text)
    text = _REL.sub("R", text)
    text = re.sub(r"\b(?:he|she|He|She)\b", "P", text)
    text = re.sub(r"\b(?:his|her|His|Her)\b", "Q", text)
    return (text[0].lower() + text[1:]).rstrip(". ")


def candidates(corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per question: its candidate clauses with features and which is gold."""
    out = []
    for record in corpus:
        m = re.fullmatch(r"Which (?P<noun>[a-z ]+?) have I (?P<verb>[a-z ]+)\?", record["question"])
        if not m:
            continue
        noun, verb, answer = m["noun"], m["verb"], record["answer"]
        sessions = record["haystack_sessions"]
        rows = []
        for s, session in enumerate(sessions):
            for t, turn in enumerate(session):
                if turn["role"] != "user":
                    continue
                parts = _clauses(turn["content"])
                valued = [i for i, p in enumerate(parts) if _valued(p)]
                for i, part in enumerate(parts):
                    if not re.search(rf"\b{re.escape(noun)}\b", part) or not _valued(part):
                        continue
                    values = [v for v in _valued(part) if v != answer]
                    value = answer if answer in part else (values[0] if values else "")
                    masked = _mask(part, noun, verb, value)
                    words = _WORD.findall(part)
                    core = [w for w in _WORD.findall(masked) if w not in ("K", "V", "X")]
                    lower = [w.lower() for w in words]
                    at = masked.find("X")
                    rows.append({
                        "session": s, "text": part, "masked": masked, "gold": answer in part,
                        "opening": masked[:at + 1] if at >= 0 else masked,
                        "tail": masked[at + 1:] if at >= 0 else "",
                        "words": len(words),
                        "cpw_raw": sum(map(len, words)) / max(1, len(words)),
                        "cpw": sum(map(len, core)) / max(1, len(core)),
                        "commas": part.count(","),
                        "noun_repeats": len(re.findall(rf"\b{re.escape(noun)}\b", part)),
                        "negations": sum(w in NEGATIONS for w in lower),
                        "pronouns": sum(w in PRONOUNS for w in lower),
                        "alone": float(len(valued) == 1),
                        "index": float(valued.index(i)) if i in valued else 0.0,
                        "last": float(i == valued[-1]) if valued else 1.0,
                        "position": s / max(1, len(sessions) - 1),
                    })
        out.append({"id": record["question_id"], "rows": rows, "question": record["question"],
                    "has_gold": any(r["gold"] for r in rows)})
    return out


FEATURES = ("words", "cpw", "cpw_raw", "commas", "noun_repeats", "negations", "pronouns", "alone",
            "index", "last", "position")


def _at_1(scores: list[float], gold: list[bool]) -> float:
    """Gold at rank 1 with ties broken at random (expected value)."""
    if not any(gold):
        return 0.0
    best = max(scores)
    tied = [g for s, g in zip(scores, gold) if s == best]
    return sum(tied) / len(tied)


def random_at_1(questions: list[dict[str, Any]]) -> float:
    return float(np.mean([1 / len(q["rows"]) if q["has_gold"] else 0.0 for q in questions]))


def rule_fewest_cpw(questions: list[dict[str, Any]], key: str = "cpw") -> float:
    return float(np.mean([_at_1([-r[key] for r in q["rows"]], [r["gold"] for r in q["rows"]])
                          for q in questions]))


def rule_fewest_noun_repeats(questions: list[dict[str, Any]]) -> float:
    return float(np.mean([_at_1([-r["noun_repeats"] for r in q["rows"]], [r["gold"] for r in q["rows"]])
                          for q in questions]))


def rule_lowest_bm25(questions: list[dict[str, Any]], sign: float = -1.0) -> float:
    """Red team 19's "lowest BM25 among the asked kind's clauses": Okapi BM25 (k1 1.5, b 0.75)
    over the candidate clauses, the question as the query, lowest score first."""
    out = []
    for q in questions:
        docs = [[w.lower() for w in _WORD.findall(r["text"])] for r in q["rows"]]
        query = [w.lower() for w in _WORD.findall(q["question"])]
        avg = sum(map(len, docs)) / len(docs)
        scores = []
        for doc in docs:
            score = 0.0
            for term in set(query):
                df = sum(term in d for d in docs)
                tf = doc.count(term)
                idf = np.log((len(docs) - df + 0.5) / (df + 0.5) + 1)
                score += idf * tf * 2.5 / (tf + 1.5 * (0.25 + 0.75 * len(doc) / avg))
            scores.append(round(sign * score, 9))
        out.append(_at_1(scores, [r["gold"] for r in q["rows"]]))
    return float(np.mean(out))


def _logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 400) -> np.ndarray:
    w = np.zeros(x.shape[1])
    for _ in range(steps):  # Newton steps would do; plain gradient with a fixed rate is enough
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / len(y) + l2 * w / len(y)
        hess = (x.T * (p * (1 - p))) @ x / len(y) + l2 * np.eye(x.shape[1]) / len(y)
        w -= np.linalg.solve(hess, grad)
        if np.abs(grad).max() < 1e-8:
            break
    return w


def _halvings(n: int, times: int, seed: int = 0) -> list[tuple[list[int], list[int]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(times):
        order = rng.permutation(n)
        out.append((sorted(order[: n // 2]), sorted(order[n // 2:])))
    return out


def learned_content_free(questions: list[dict[str, Any]], times: int = 20) -> float:
    def matrix(qs: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        rows = [r for q in qs for r in q["rows"]]
        x = np.array([[r[f] for f in FEATURES] for r in rows], dtype=float)
        return x, np.array([float(r["gold"]) for r in rows])

    results = []
    for a, b in _halvings(len(questions), times):
        for train, test in ((a, b), (b, a)):
            x, y = matrix([questions[i] for i in train])
            mu, sd = x.mean(0), x.std(0) + 1e-9
            xs = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
            w = _logistic(xs, y)
            for i in test:
                q = questions[i]
                xt, _ = matrix([q])
                scores = list(np.hstack([(xt - mu) / sd, np.ones((len(xt), 1))]) @ w)
                results.append(_at_1([round(s, 9) for s in scores], [r["gold"] for r in q["rows"]]))
    return float(np.mean(results))


def frame_table(questions: list[dict[str, Any]], key: str = "masked", times: int = 20) -> float:
    results = []
    for a, b in _halvings(len(questions), times):
        for train, test in ((a, b), (b, a)):
            seen: dict[str, list[int]] = defaultdict(lambda: [0, 0])
            for i in train:
                for r in questions[i]["rows"]:
                    seen[r[key]][0] += r["gold"]
                    seen[r[key]][1] += 1
            total_gold = sum(v[0] for v in seen.values())
            total = sum(v[1] for v in seen.values())
            prior = total_gold / max(1, total)
            for i in test:
                rows = questions[i]["rows"]
                scores = [round((seen[r[key]][0] + prior) / (seen[r[key]][1] + 1), 9)
                          if r[key] in seen else round(prior, 9) for r in rows]
                results.append(_at_1(scores, [r["gold"] for r in rows]))
    return float(np.mean(results))


def tail_words(questions: list[dict[str, Any]], times: int = 20) -> float:
    vocab = sorted({w.lower() for q in questions for r in q["rows"] for w in _WORD.findall(r["tail"])})
    index = {w: i for i, w in enumerate(vocab)}

    def vec(r: dict[str, Any]) -> np.ndarray:
        v = np.zeros(len(vocab) + 1)
        for w in _WORD.findall(r["tail"]):
            v[index[w.lower()]] = 1.0
        v[-1] = 1.0
        return v

    results = []
    for a, b in _halvings(len(questions), times):
        for train, test in ((a, b), (b, a)):
            rows = [r for i in train for r in questions[i]["rows"]]
            x = np.array([vec(r) for r in rows])
            y = np.array([float(r["gold"]) for r in rows])
            w = _logistic(x, y, l2=1.0, steps=50)
            for i in test:
                rs = questions[i]["rows"]
                scores = [round(float(vec(r) @ w), 9) for r in rs]
                results.append(_at_1(scores, [r["gold"] for r in rs]))
    return float(np.mean(results))


def structure(questions: list[dict[str, Any]], corpus: list[dict[str, Any]]) -> dict[str, Any]:
    """Over every candidate of every question (the asked kind's clauses): how alone-in-turn and
    the place in a two-clause turn relate to gold; and over all user statement turns of the
    corpus, whether the shorter-worded of two valued clauses is the one the table calls own
    (gold-holding clauses only are known to be own, so this is reported on candidates)."""
    rows = [r for q in questions for r in q["rows"]]
    alone = [r for r in rows if r["alone"]]
    pair = [r for r in rows if not r["alone"]]
    gold_pair = [r for r in pair if r["gold"]]
    return {
        "candidates": len(rows),
        "alone_candidates": len(alone),
        "alone_gold_share": (sum(r["gold"] for r in alone) / len(alone)) if alone else None,
        "gold_alone_share": (sum(r["alone"] for r in rows if r["gold"]) /
                             max(1, sum(r["gold"] for r in rows))),
        "nonalone_gold_share": (sum(r["gold"] for r in pair) / len(pair)) if pair else None,
        "gold_first_in_two_clause_turn": (sum(r["index"] == 0 for r in gold_pair) / len(gold_pair))
        if gold_pair else None,
        "competitor_first_in_two_clause_turn": (
            sum(r["index"] == 0 for r in pair if not r["gold"]) /
            max(1, sum(1 for r in pair if not r["gold"]))),
        "mean_cpw_gold": float(np.mean([r["cpw"] for r in rows if r["gold"]])),
        "mean_cpw_competitor": float(np.mean([r["cpw"] for r in rows if not r["gold"]])),
        "mean_words_gold": float(np.mean([r["words"] for r in rows if r["gold"]])),
        "mean_words_competitor": float(np.mean([r["words"] for r in rows if not r["gold"]])),
    }


def two_clause_turns(corpus: list[dict[str, Any]]) -> dict[str, Any]:
    """Over every user turn with exactly two valued clauses where one is some question's gold
    clause: how often the shorter-worded (characters per word, raw) one is the gold one."""
    hits = n = 0
    for record in corpus:
        answer = record["answer"]
        for session in record["haystack_sessions"]:
            for turn in session:
                if turn["role"] != "user" or answer not in turn["content"]:
                    continue
                parts = [p for p in _clauses(turn["content"]) if _valued(p)]
                if len(parts) != 2:
                    continue

                def cpw(p: str) -> float:
                    ws = [w for w in _WORD.findall(p.replace(answer, " ")) if not w[0].isupper()]
                    return sum(map(len, ws)) / max(1, len(ws))
                g = [answer in p for p in parts]
                short = 0 if cpw(parts[0]) < cpw(parts[1]) else 1
                hits += g[short]
                n += 1
    return {"gold_turns_with_two_clauses": n, "shorter_worded_is_gold": hits / n if n else None}


def measure(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        corpus = json.load(handle)
    questions = [q for q in candidates(corpus) if q["rows"]]
    return {
        "corpus": path, "questions": len(questions),
        "gold_among_candidates": sum(q["has_gold"] for q in questions) / len(questions),
        "mean_candidates": float(np.mean([len(q["rows"]) for q in questions])),
        "random": random_at_1(questions),
        "a_fewest_chars_per_word_masked": rule_fewest_cpw(questions, "cpw"),
        "a_fewest_chars_per_word_raw": rule_fewest_cpw(questions, "cpw_raw"),
        "a_fewest_noun_repeats": rule_fewest_noun_repeats(questions),
        "a_lowest_bm25": rule_lowest_bm25(questions),
        "a_highest_bm25": rule_lowest_bm25(questions, sign=1.0),
        "b_learned_content_free": learned_content_free(questions),
        "c_frame_table_full_clause": frame_table(questions, "masked"),
        "c_frame_table_opening": frame_table(questions, "opening"),
        "d_tail_bag_of_words": tail_words(questions),
        "structure": structure(questions, corpus),
        "two_clause_turns": two_clause_turns(corpus),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="+")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for path in args.corpus:
        result = measure(path)
        if args.json:
            print(json.dumps(result, indent=1))
            continue
        r = result["random"]
        bound = max(2 * r, r + 0.10)
        print(f"{path}: {result['questions']} questions, {result['mean_candidates']:.2f} candidate "
              f"clauses a question, gold among them {result['gold_among_candidates']:.3f}")
        print(f"  random among candidates            {r:.3f}   (bound max(2r, r+0.10) = {bound:.3f})")
        for key in ("a_fewest_chars_per_word_masked", "a_fewest_chars_per_word_raw",
                    "a_fewest_noun_repeats", "a_lowest_bm25", "a_highest_bm25",
                    "b_learned_content_free", "c_frame_table_full_clause", "c_frame_table_opening",
                    "d_tail_bag_of_words"):
            flag = "" if key.startswith("d_") or key == "c_frame_table_full_clause" else (
                "  OVER" if result[key] > bound else "  ok")
            print(f"  {key:<36} {result[key]:.3f}{flag}")
        print("  structure: " + json.dumps({k: (round(v, 3) if isinstance(v, float) else v)
                                            for k, v in result["structure"].items()}))
        print("  two-clause turns: " + json.dumps(result["two_clause_turns"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
