"""The generator primitives (pytest_typedmemeval.generate.primitives)."""

from __future__ import annotations

import json
import random

import pytest

from pytest_typedmemeval.generate import primitives

# --- randomness ------------------------------------------------------------------------------


def test_derive_rng_is_a_pure_function_of_seed_and_key() -> None:
    random.seed(1)
    first = [primitives.derive_rng(7, "haystack", 3).random() for _ in range(3)]
    random.seed(99)  # the global generator must not leak in
    again = [primitives.derive_rng(7, "haystack", 3).random() for _ in range(3)]
    assert first == again
    assert primitives.derive_rng(7, "haystack", 4).random() != first[0]
    assert primitives.derive_rng(8, "haystack", 3).random() != first[0]


def test_dither_gives_each_group_its_share_exactly() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        # Two gold sessions at rate 0.5 carry exactly one clause between them, never 0 or 2.
        assert sum(primitives.dither([0.5, 0.5], rng)) == 1
        values = [rng.uniform(0, 3) for _ in range(25)]
        out = primitives.dither(values, rng)
        assert all(int(v) <= k <= int(v) + 1 for v, k in zip(values, out))
        for prefix in range(1, len(values) + 1):
            assert abs(sum(out[:prefix]) - sum(values[:prefix])) < 1


# --- grammar and banks ------------------------------------------------------------------------


def test_person_check_refuses_clauses_that_misread_in_a_person() -> None:
    assert primitives.person_problems("got discharged") == []
    assert primitives.person_problems("cancelled it") == []
    assert primitives.person_problems("was discharged")  # "you was discharged"
    assert primitives.person_problems("cancelled my booking")  # "you cancelled my booking"
    with pytest.raises(AssertionError, match="both persons"):
        primitives.assert_person_invariant(["sold it", "were discharged"], where="test")


def test_disjointness_assertion_names_the_shared_token() -> None:
    with pytest.raises(AssertionError, match="cleaner"):
        primitives.assert_disjoint("filler", {"window", "cleaner"}, "facts", {"cleaner"})
    primitives.assert_disjoint("filler", {"window"}, "facts", {"cleaner"})


def test_article() -> None:
    assert [primitives.article(n) for n in ("kiteboard", "osteopath", "umbrella", "ukulele")] == \
        ["a", "an", "an", "a"]



def test_dump_json_is_deterministic_sorted_and_lf_terminated() -> None:
    text = primitives.dump_json({"b": [3, 1], "a": {"é": "ü", "c": None}})
    assert text.endswith("}\n") and "\r" not in text
    assert text.index('"a"') < text.index('"b"') and text.index('"c"') < text.index('"é"')
    assert "ü" in text and json.loads(text) == {"a": {"c": None, "é": "ü"}, "b": [3, 1]}
