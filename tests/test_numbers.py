"""Numeric normalisation (VERTICALS.md §5.6) and the text helpers the judge matches on."""

from __future__ import annotations

import pytest

from pytest_typedmemeval.corpus.models import NumericKey
from pytest_typedmemeval.judge.numbers import currency_of, extract_numbers, numeric_matches
from pytest_typedmemeval.judge.text import contains_phrase, find_phrase, normalize

EXTRACTION_CASES = [
    pytest.param("It came to $1,250 in all", [1250.0], id="thousands-separator-and-dollar"),
    pytest.param("128.75", [128.75], id="decimal"),
    pytest.param("-5 degrees", [-5.0], id="leading-minus"),
    pytest.param("\u22127 degrees", [-7.0], id="unicode-minus-sign"),
    pytest.param("minus 3", [-3.0], id="minus-word"),
    pytest.param("5-10 times", [5.0, 10.0], id="hyphen-range-is-not-a-sign"),
    pytest.param("\uff11\uff12 items", [12.0], id="full-width-digits-via-nfkc"),
    pytest.param("three", [3.0], id="unit-word"),
    pytest.param("twenty-one", [21.0], id="hyphenated-compound"),
    pytest.param("seventy five", [75.0], id="spaced-compound"),
    pytest.param("one hundred and five", [105.0], id="british-and"),
    pytest.param("one thousand two hundred and forty", [1240.0], id="thousand-and-hundreds"),
    pytest.param("fifteen hundred", [1500.0], id="teen-hundred"),
    pytest.param("a dozen eggs", [12.0], id="a-dozen"),
    pytest.param("half a dozen", [6.0], id="half-a-dozen"),
    pytest.param("two dozen", [24.0], id="two-dozen"),
    pytest.param("a hundred", [100.0], id="a-hundred"),
    pytest.param("1.5k", [1500.0], id="k-suffix"),
    pytest.param("$2bn", [2e9], id="bn-suffix"),
    pytest.param("2 million", [2e6], id="digits-million"),
    pytest.param("3 thousand", [3000.0], id="digits-thousand"),
    pytest.param("two and a half hours", [2.5], id="and-a-half"),
    pytest.param("5kg of flour", [5.0], id="glued-unit"),
    pytest.param("twenty twenty-five", [20.0, 25.0], id="two-tens-are-two-numbers"),
    pytest.param("one and two", [1.0, 2.0], id="and-does-not-join-units"),
    pytest.param("the third time", [], id="ordinal-word-is-not-a-quantity"),
    pytest.param("on the 21st", [], id="digit-ordinal-is-not-a-quantity"),
    pytest.param("the twenty-first order", [], id="compound-ordinal-is-not-a-quantity"),
    pytest.param("the one you picked", [], id="pronoun-one-after-determiner"),
    pytest.param("no one told me", [], id="no-one-is-not-a-count"),
    pytest.param("on 2026/03/14 at 09:30", [], id="slash-date-and-clock-time"),
    pytest.param("since 2026-03-14", [], id="iso-date"),
    pytest.param("at 3pm", [], id="pm-clock-time"),
    pytest.param("version 1.2.3", [], id="dotted-version"),
    pytest.param("a couple of times", [], id="vague-quantity-yields-nothing"),
]


@pytest.mark.parametrize(("text", "values"), EXTRACTION_CASES)
def test_extract_numbers_reads_the_declared_forms(text: str, values: list[float]) -> None:
    assert [number.value for number in extract_numbers(text)] == values


MARKER_CASES = [
    pytest.param("about 130", True, 10.0, id="about-trailing-zero-is-tens"),
    pytest.param("~130", True, 10.0, id="tilde"),
    pytest.param("130-ish", True, 10.0, id="ish-suffix"),
    pytest.param("130 or so", True, 10.0, id="or-so-suffix"),
    pytest.param("roughly $129", True, 1.0, id="roughly-before-currency"),
    pytest.param("128.75", False, 0.01, id="decimals-give-precision"),
    pytest.param("about 1,200", True, 100.0, id="two-trailing-zeros-is-hundreds"),
    pytest.param("around twenty", True, 10.0, id="approximate-number-word"),
    pytest.param("1.5k", False, 100.0, id="magnitude-scales-precision"),
    pytest.param("I nearly forgot: 5", False, 1.0, id="marker-must-be-adjacent"),
]


@pytest.mark.parametrize(("text", "approximate", "precision"), MARKER_CASES)
def test_approximation_marker_and_precision(text: str, approximate: bool, precision: float) -> None:
    (number,) = extract_numbers(text)
    assert (number.is_approximate, number.precision) == (approximate, precision)


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        pytest.param("$5", 5.0, "USD", id="dollar-sign"),
        pytest.param("20 euros", 20.0, "EUR", id="euro-word-after"),
        pytest.param("USD 50", 50.0, "USD", id="code-before"),
        pytest.param("\u00a330", 30.0, "GBP", id="pound-sign"),
        pytest.param("30 apples", 30.0, None, id="no-currency"),
    ],
)
def test_currency_is_recorded_but_never_changes_the_value(
    text: str, value: float, currency: str | None
) -> None:
    (number,) = extract_numbers(text)
    assert (number.value, number.currency) == (value, currency)


MATCH_CASES = [
    pytest.param("roughly 129 dollars", 128.75, 0.0, "USD", True, id="marked-round-to-units"),
    pytest.param("129 dollars", 128.75, 0.0, "USD", False, id="unmarked-rounding-needs-exact"),
    pytest.param("about 130", 128.75, 0.0, None, True, id="marked-round-to-tens"),
    pytest.param("about 120", 128.75, 0.0, None, False, id="marked-but-wrong-tens"),
    # §5.6 taken literally: one significant figure is a precision like any other.
    pytest.param("about 100", 128.75, 0.0, None, False, id="one-significant-figure-is-too-coarse"),
    pytest.param("128.8", 128.75, 0.0, None, False, id="unmarked-decimal-rounding"),
    pytest.param("about 128.8", 128.75, 0.0, None, True, id="rounding-is-half-up"),
    pytest.param("about 12", 12.5, 0.0, None, False, id="half-up-not-bankers"),
    pytest.param("14 days", 15.0, 1.0, "days", True, id="within-tolerance"),
    pytest.param("13 days", 15.0, 1.0, "days", False, id="outside-tolerance"),
    pytest.param("\u20ac128.75", 128.75, 0.0, "USD", False, id="different-currency-never-matches"),
    pytest.param("128.75", 128.75, 0.0, "dollars", True, id="missing-currency-not-held-against"),
    pytest.param("1.5k", 1500.0, 0.0, None, True, id="magnitude-suffix-exact"),
    pytest.param("a dozen", 12.0, 0.0, None, True, id="number-word-exact"),
]


@pytest.mark.parametrize(("text", "gold", "tolerance", "unit", "expected"), MATCH_CASES)
def test_numeric_matches(
    text: str, gold: float, tolerance: float, unit: str | None, expected: bool
) -> None:
    (number,) = extract_numbers(text)
    key = NumericKey(value=gold, tolerance=tolerance, unit=unit)
    assert numeric_matches(number, key) is expected


def test_positions_refer_to_the_normalised_text() -> None:
    text = "  In TOTAL:   about $45  "
    (number,) = extract_numbers(text)
    assert normalize(text)[number.position:].startswith("$45")
    assert number.raw == "$45"


@pytest.mark.parametrize(
    ("unit", "code"),
    [("$", "USD"), ("usd", "USD"), ("Euros", "EUR"), ("days", None), (None, None)],
)
def test_currency_of_key_units(unit: str | None, code: str | None) -> None:
    assert currency_of(unit) == code


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        pytest.param("  Hello,   WORLD!! ", "hello, world", id="case-space-edges"),
        pytest.param("Don\u2019t", "don't", id="curly-apostrophe"),
        pytest.param("-5.", "-5", id="leading-sign-kept"),
        pytest.param("Stra\u00dfe", "strasse", id="casefold-not-lower"),
        pytest.param("\u201cNeskett Reverie.\u201d", "neskett reverie", id="quotes-stripped"),
    ],
)
def test_normalize(raw: str, normalised: str) -> None:
    assert normalize(raw) == normalised
    assert normalize(normalised) == normalised


@pytest.mark.parametrize(
    ("haystack", "phrase", "expected"),
    [
        pytest.param("annabel came", "Ann", False, id="no-match-inside-longer-name"),
        pytest.param("ann came", "Ann", True, id="whole-word"),
        pytest.param("that is ann's car", "Ann", True, id="possessive"),
        pytest.param("you have 15 items", "5", False, id="digit-inside-number"),
        pytest.param("about 5.5", "5", False, id="digit-inside-decimal"),
        pytest.param("it was marloe basic", "Marloe  Basic.", True, id="multiword-normalised-phrase"),
        pytest.param("x=5", "=", True, id="symbol-phrase-needs-no-word-boundary"),
        pytest.param("anything", "", False, id="empty-phrase-matches-nothing"),
    ],
)
def test_contains_phrase_is_token_bounded(haystack: str, phrase: str, expected: bool) -> None:
    assert contains_phrase(normalize(haystack), phrase) is expected


def test_find_phrase_gives_first_occurrence() -> None:
    assert find_phrase("bob then ann then bob", "Bob") == 0
    assert find_phrase("bob then ann", "Cy") is None
