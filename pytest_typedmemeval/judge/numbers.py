"""Numbers in answer text: extraction and matching against a numeric gold (VERTICALS.md §5.6).

The declared parsing rules, all folded into the judge fingerprint through :func:`parsing_rules`:

* **Digits.** ``.`` is the only decimal separator; ``,`` is a thousands separator only in groups of
  three ("1,250"). A comma between digits in any other grouping ("12,5", "5,10") separates two
  numbers: a decimal comma is not supported, because in English answers "5,10" is a list far more
  often than a decimal. Space-grouped thousands ("1 250") are not supported.
* **Signs and currency.** A leading ``-`` (or U+2212, or the words "minus"/"negative") makes a
  number negative; a ``-`` glued to a preceding word or digit is a range or hyphen, not a sign.
  Currency symbols and codes before the number and currency codes or words after it are recorded
  in :attr:`ExtractedNumber.currency`; they never change the value.
* **Magnitudes.** Suffixes ``k`` and ``bn`` and the words hundred/thousand/million/billion/dozen
  multiply the figure ("1.5k", "2 million", "a hundred", "two dozen"); "and a half" adds 0.5.
  ``m`` is not a magnitude suffix: "5m" is as often minutes or metres as millions.
* **Number words.** zero–nineteen, the tens, hundred, thousand, million, billion, "a dozen",
  "half a dozen", hyphenated or spaced compounds and the British "and" ("one hundred and five").
  "one" after a determiner ("the one", "which one", "no one") is a pronoun, not a quantity.
* **Not quantities.** Ordinals ("third", "21st", "twenty-first") are positions, so "the third time"
  yields no number: counting them would let "it was the third order" commit to 3. Digits joined to
  other digits by ``/`` or ``:`` (dates, times, ratios), ISO dates, clock times ("3pm") and dotted
  version strings are skipped for the same reason. "a couple", "a few" and "several" are vague and
  yield no number.
* **Precision** is read from the answer's own figure: decimals give 10^-decimals ("128.75" →
  0.01), an integer's trailing zeros give tens/hundreds ("130" → 10, "1,200" → 100), then the
  magnitude multiplies ("1.5k" → 100, "2 million" → 1e6); "and a half" gives 0.5.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from ..corpus.models import NumericKey
from .text import normalize, normalized_phrase

# --- declared tables ---------------------------------------------------------------------------
# Each is a tuple of plain pairs/strings so it serialises into the fingerprint unchanged.

UNIT_WORDS: tuple[tuple[str, int], ...] = (
    ("zero", 0), ("one", 1), ("two", 2), ("three", 3), ("four", 4),
    ("five", 5), ("six", 6), ("seven", 7), ("eight", 8), ("nine", 9),
)
TEEN_WORDS: tuple[tuple[str, int], ...] = (
    ("ten", 10), ("eleven", 11), ("twelve", 12), ("thirteen", 13), ("fourteen", 14),
    ("fifteen", 15), ("sixteen", 16), ("seventeen", 17), ("eighteen", 18), ("nineteen", 19),
)
TENS_WORDS: tuple[tuple[str, int], ...] = (
    ("twenty", 20), ("thirty", 30), ("forty", 40), ("fifty", 50),
    ("sixty", 60), ("seventy", 70), ("eighty", 80), ("ninety", 90),
)
# "hundred" multiplies the chunk in progress; the scales close a chunk ("two thousand three").
HUNDRED_WORD = "hundred"
SCALE_WORDS: tuple[tuple[str, int], ...] = (
    ("thousand", 10**3), ("million", 10**6), ("billion", 10**9),
)
DOZEN_WORD = "dozen"
# Counts of occasions: "You bought from Vinnar twice." Numbers are only read on numeric keys, so the
# conjunction "once you're done" never reaches a Prospective or Forgetting verdict.
FREQUENCY_WORDS: tuple[tuple[str, int], ...] = (("once", 1), ("twice", 2), ("thrice", 3))
# "once in April and again in May", "once more": an occasion in passing, not the count.
FREQUENCY_NOT_BEFORE: tuple[str, ...] = ("in", "on", "at", "during", "more", "again", "before")
# After digits: "1.5k", "2bn". Lower-case only because the text is casefolded first.
MAGNITUDE_SUFFIXES: tuple[tuple[str, int], ...] = (("k", 10**3), ("bn", 10**9))
# "a hundred", "a dozen": the article stands for one, but only directly before these words.
ARTICLE_WORDS: tuple[str, ...] = ("a",)
SIGN_WORDS: tuple[str, ...] = ("minus", "negative")
# "one" right after these is a pronoun ("the one you picked", "no one told me").
PRONOUN_ONE_BEFORE: tuple[str, ...] = (
    "the", "that", "this", "which", "each", "every", "any", "no", "another", "some",
)
PRONOUN_ONE_AFTER: tuple[str, ...] = ("another",)
PRONOUN_ONE_ADJECTIVE = r"[a-z]{2,}(?:est|er)"
"""A comparative or superlative before "one" ("the longest one", "a bigger one") makes it a pronoun…"""
COUNTING_BEFORE_ONE: tuple[str, ...] = ("over", "under", "after", "never", "ever", "per", "number",
                                        "order", "another", "either", "other", "whether", "later",
                                        "earlier", "better")
"""…except these words, after which "one" may still be a count ("over one", "after one")."""
# Compound ordinals ("twenty-first", "one hundred and third") are positions, never quantities.
ORDINAL_WORDS: tuple[str, ...] = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth", "thirtieth", "fortieth",
    "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth", "hundredth", "thousandth",
    "millionth", "billionth",
)
DIGIT_ORDINAL_SUFFIXES: tuple[str, ...] = ("st", "nd", "rd", "th")
# "3pm", "10 a.m.": clock times, not quantities (like "09:30", which the ":" rule already skips).
CLOCK_SUFFIXES: tuple[str, ...] = ("am", "pm", "a.m", "p.m", "o'clock")
# Markers that make a figure approximate, so §5.6's rounding rule applies to it. They must sit
# directly before the number ("about 130", "~130", "roughly $129") or directly after it.
APPROXIMATION_MARKERS: tuple[str, ...] = (
    "about", "roughly", "around", "approximately", "approx", "circa", "nearly", "almost", "~",
)
APPROXIMATION_SUFFIXES: tuple[str, ...] = ("ish", "or so")
CURRENCY_SYMBOLS: tuple[tuple[str, str], ...] = (
    ("us$", "USD"), ("$", "USD"), ("€", "EUR"), ("£", "GBP"), ("¥", "JPY"),
)
CURRENCY_CODES: tuple[str, ...] = ("usd", "eur", "gbp", "jpy", "chf", "cad", "aud")
CURRENCY_WORDS: tuple[tuple[str, str], ...] = (
    ("dollar", "USD"), ("dollars", "USD"), ("bucks", "USD"), ("euro", "EUR"), ("euros", "EUR"),
    ("pound", "GBP"), ("pounds", "GBP"), ("yen", "JPY"),
)

_UNITS = dict(UNIT_WORDS)
_TEENS = dict(TEEN_WORDS)
_TENS = dict(TENS_WORDS)
_SCALES = dict(SCALE_WORDS)
_FREQUENCY = dict(FREQUENCY_WORDS)
_SUFFIXES = dict(MAGNITUDE_SUFFIXES)
_MAGNITUDE_WORDS: dict[str, int] = {HUNDRED_WORD: 100, **_SCALES, DOZEN_WORD: 12}
_CURRENCY: dict[str, str] = {
    **dict(CURRENCY_SYMBOLS),
    **{code: code.upper() for code in CURRENCY_CODES},
    **dict(CURRENCY_WORDS),
}


def _alternation(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_PREFIX_CURRENCY = _alternation([symbol for symbol, _ in CURRENCY_SYMBOLS]) + "|(?:" + _alternation(
    CURRENCY_CODES
) + r") ?"
_DIGIT_NUMBER = re.compile(
    r"(?<![\w.])"
    r"(?P<sign>-)?"
    rf"(?P<prefix>{_PREFIX_CURRENCY})?"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)"
    r"(?P<frac>\.\d+)?"
    rf"(?:(?P<suffix>{_alternation([s for s, _ in MAGNITUDE_SUFFIXES])})(?![a-z]))?"
    rf"(?P<words>(?:[ -](?:{_alternation(list(_MAGNITUDE_WORDS))})\b)*)"
    r"(?P<half> and a half\b)?"
)
_DIGIT_ORDINAL = re.compile(rf"(?:{_alternation(DIGIT_ORDINAL_SUFFIXES)})(?![a-z])")
_CLOCK = re.compile(rf" ?(?:{_alternation(CLOCK_SUFFIXES)})(?![a-z])")
_ISO_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")
_WORD = re.compile(r"[a-z]+")
_SUFFIX_CURRENCY = re.compile(
    r" ?(?P<cur>" + _alternation([s for s, _ in CURRENCY_SYMBOLS]) + "|"
    + _alternation([*CURRENCY_CODES, *(word for word, _ in CURRENCY_WORDS)]) + r")(?![a-z])"
)
_APPROX_SUFFIX = re.compile(r"(?:-?ish\b| or so\b)")
_SIGN_WORD_BEFORE = re.compile(r"(?:^|(?<=\W))(?:" + _alternation(SIGN_WORDS) + r") $")


def parsing_rules() -> dict[str, object]:
    """Every table and pattern the extractor uses, as plain data for the judge fingerprint."""
    return {
        "unit_words": [list(pair) for pair in UNIT_WORDS],
        "teen_words": [list(pair) for pair in TEEN_WORDS],
        "tens_words": [list(pair) for pair in TENS_WORDS],
        "hundred_word": HUNDRED_WORD,
        "scale_words": [list(pair) for pair in SCALE_WORDS],
        "dozen_word": DOZEN_WORD,
        "frequency_words": [list(pair) for pair in FREQUENCY_WORDS],
        "frequency_not_before": list(FREQUENCY_NOT_BEFORE),
        "approximate_min_significant_figures": 2,
        "magnitude_suffixes": [list(pair) for pair in MAGNITUDE_SUFFIXES],
        "article_words": list(ARTICLE_WORDS),
        "sign_words": list(SIGN_WORDS),
        "pronoun_one_before": list(PRONOUN_ONE_BEFORE),
        "pronoun_one_after": list(PRONOUN_ONE_AFTER),
        "pronoun_one_adjective": PRONOUN_ONE_ADJECTIVE,
        "counting_before_one": list(COUNTING_BEFORE_ONE),
        "ordinal_words": list(ORDINAL_WORDS),
        "digit_ordinal_suffixes": list(DIGIT_ORDINAL_SUFFIXES),
        "clock_suffixes": list(CLOCK_SUFFIXES),
        "approximation_markers": list(APPROXIMATION_MARKERS),
        "approximation_suffixes": list(APPROXIMATION_SUFFIXES),
        "currency_symbols": [list(pair) for pair in CURRENCY_SYMBOLS],
        "currency_codes": list(CURRENCY_CODES),
        "currency_words": [list(pair) for pair in CURRENCY_WORDS],
        "digit_pattern": _DIGIT_NUMBER.pattern,
        "iso_date_pattern": _ISO_DATE.pattern,
        "rounding": "ROUND_HALF_UP at the answer's precision, only for approximate figures",
    }


@dataclass(frozen=True)
class ExtractedNumber:
    """One quantity found in an answer.

    ``position`` and ``raw`` refer to the :func:`~.text.normalize`-d answer, which is what the
    judge scans for conclusion markers, so positions from both line up. ``precision`` is the
    granularity the answer's own figure states (see the module docstring).
    """

    value: float
    is_approximate: bool
    precision: float
    position: int
    raw: str
    currency: str | None = None


@dataclass(frozen=True)
class _Token:
    word: str
    start: int
    end: int


def _integer_precision(digits: str) -> Decimal:
    stripped = digits.rstrip("0")
    if not stripped:  # "0", "00": a literal zero is exact to the unit
        return Decimal(1)
    return Decimal(10) ** (len(digits) - len(stripped))


def _value_precision(value: Decimal) -> Decimal:
    if value != value.to_integral_value():
        return Decimal("0.5") if (value * 2) == (value * 2).to_integral_value() else Decimal("0.1")
    return _integer_precision(str(abs(int(value))))


def _is_date_or_time(text: str, start: int, end: int, iso_spans: list[tuple[int, int]]) -> bool:
    if any(span_start <= start < span_end for span_start, span_end in iso_spans):
        return True
    if end + 1 < len(text) and text[end] in "/:" and text[end + 1].isdigit():
        return True
    return start >= 2 and text[start - 1] in "/:" and text[start - 2].isdigit()


def _approximate(text: str, start: int, end: int) -> bool:
    before = text[:start]
    if before.endswith("~"):
        return True
    tokens = before.split()
    if tokens and tokens[-1].strip(".,;:!?()\"'") in APPROXIMATION_MARKERS:
        return True
    return bool(_APPROX_SUFFIX.match(text, end))


def _currency_after(text: str, end: int) -> tuple[str | None, int]:
    match = _SUFFIX_CURRENCY.match(text, end)
    if match is None:
        return None, end
    return _CURRENCY[match.group("cur")], match.end()


def _digit_numbers(text: str, iso_spans: list[tuple[int, int]]) -> list[ExtractedNumber]:
    found: list[ExtractedNumber] = []
    for match in _DIGIT_NUMBER.finditer(text):
        int_start, end = match.start("int"), match.end()
        figure_end = match.end("frac") if match.group("frac") else match.end("int")
        if _is_date_or_time(text, int_start, figure_end, iso_spans):
            continue
        if re.match(r"\.\d", text[end:end + 2]):  # "1.2.3": a version, not a quantity
            continue
        plain = not (match.group("suffix") or match.group("words") or match.group("half"))
        if plain and (_DIGIT_ORDINAL.match(text, end) or _CLOCK.match(text, end)):
            continue
        digits = match.group("int").replace(",", "")
        frac = match.group("frac") or ""
        value = Decimal(digits + frac)
        precision = Decimal(1).scaleb(-(len(frac) - 1)) if frac else _integer_precision(digits)
        multiplier = Decimal(_SUFFIXES.get(match.group("suffix") or "", 1))
        for word in re.findall(r"[a-z]+", match.group("words")):
            multiplier *= _MAGNITUDE_WORDS[word]
        value, precision = value * multiplier, precision * multiplier
        if match.group("half"):
            value, precision = value + Decimal("0.5"), min(precision, Decimal("0.5"))
        start = match.start()
        sign_word = _SIGN_WORD_BEFORE.search(text[:start])
        if match.group("sign") or sign_word:
            value = -value
            if sign_word and not match.group("sign"):
                start = sign_word.start()
        currency = _CURRENCY[match.group("prefix").strip()] if match.group("prefix") else None
        suffix_currency, _ = _currency_after(text, end)
        found.append(
            ExtractedNumber(
                value=float(value),
                is_approximate=_approximate(text, start, end),
                precision=float(precision),
                position=start,
                raw=text[start:end],
                currency=currency or suffix_currency,
            )
        )
    return found


def _gap(text: str, left: _Token, right: _Token) -> str:
    return text[left.end:right.start]


def _parse_words(text: str, tokens: list[_Token], i: int) -> tuple[Decimal, int, str] | None:
    """Parse a spelled-out number starting at ``tokens[i]``.

    Returns ``(value, next_index, last_kind)`` or ``None``. The grammar is a small state machine
    over kinds (unit, teen, ten, hundred, scale) so that "twenty twenty-five" reads as two numbers
    and "one and two" as two, while "one thousand two hundred and forty" reads as 1240.
    """
    words = [token.word for token in tokens]

    def joined(j: int, gaps: tuple[str, ...] = (" ", "-")) -> bool:
        return j < len(tokens) and _gap(text, tokens[j - 1], tokens[j]) in gaps

    if words[i] == "half" and joined(i + 1, (" ",)) and words[i + 1] in ARTICLE_WORDS and joined(
        i + 2, (" ",)
    ) and words[i + 2] == DOZEN_WORD:
        return Decimal(6), i + 3, "dozen"

    total, current, kind = 0, 0, ""
    last_scale = 10**12
    j = i
    while j < len(tokens):
        if j > i and not joined(j):
            break
        word = words[j]
        nxt = words[j + 1] if joined(j + 1, (" ",)) else ""
        if word in ARTICLE_WORDS and j == i and nxt in _MAGNITUDE_WORDS:
            current, kind = 1, "unit"
        elif word == "and" and kind in ("hundred", "scale") and (
            nxt in _UNITS or nxt in _TEENS or nxt in _TENS
        ):
            pass
        elif word == "zero":
            if j != i:
                break
            kind = "zero"
            j += 1
            break
        elif word in _UNITS and kind in ("", "ten", "hundred", "scale"):
            current, kind = current + _UNITS[word], "unit"
        elif word in _TEENS and kind in ("", "hundred", "scale"):
            current, kind = current + _TEENS[word], "teen"
        elif word in _TENS and kind in ("", "hundred", "scale"):
            current, kind = current + _TENS[word], "ten"
        elif word == HUNDRED_WORD and kind in ("unit", "teen") and current < 100:
            current, kind = current * 100, "hundred"
        elif word in _SCALES and kind in ("unit", "teen", "ten", "hundred") and (
            _SCALES[word] < last_scale
        ):
            total, current = total + current * _SCALES[word], 0
            kind, last_scale = "scale", _SCALES[word]
        elif word == DOZEN_WORD and kind in ("unit", "teen", "ten") and total == 0:
            current, kind = current * 12, "dozen"
            j += 1
            break
        else:
            break
        j += 1
    if j == i:
        return None
    return Decimal(total + current), j, kind


def _word_numbers(text: str, taken: list[tuple[int, int]]) -> list[ExtractedNumber]:
    tokens = [
        _Token(m.group(), m.start(), m.end())
        for m in _WORD.finditer(text)
        if not any(start <= m.start() < end for start, end in taken)
    ]
    words = [token.word for token in tokens]

    def joined(k: int) -> bool:
        return 0 < k < len(tokens) and _gap(text, tokens[k - 1], tokens[k]) in (" ", "-")

    found: list[ExtractedNumber] = []
    i = 0
    while i < len(tokens):
        parsed = _parse_words(text, tokens, i)
        if parsed is None and words[i] in _FREQUENCY and not (
                joined(i + 1) and words[i + 1] in FREQUENCY_NOT_BEFORE):
            parsed = (Decimal(_FREQUENCY[words[i]]), i + 1, "frequency")
        if parsed is None:
            i += 1
            continue
        value, j, kind = parsed
        # "twenty-first", "one hundred and third": the whole compound is an ordinal.
        if kind in ("ten", "hundred", "scale") and (
            (joined(j) and words[j] in ORDINAL_WORDS)
            or (joined(j) and words[j] == "and" and joined(j + 1) and words[j + 1] in ORDINAL_WORDS)
        ):
            i = j + 1
            continue
        # "the one you picked": a pronoun.
        if words[i:j] == ["one"] and (
            (i > 0 and joined(i) and words[i - 1] in PRONOUN_ONE_BEFORE)
            or (joined(j) and words[j] in PRONOUN_ONE_AFTER)
            # "the longest one", "the red one": a determiner two words back, or a comparative or
            # superlative right before, makes "one" a pronoun too
            or (i > 1 and joined(i) and joined(i - 1) and words[i - 2] in PRONOUN_ONE_BEFORE
                and words[i - 1].isalpha())
            or (i > 0 and joined(i) and re.fullmatch(PRONOUN_ONE_ADJECTIVE, words[i - 1]) is not None
                and words[i - 1] not in COUNTING_BEFORE_ONE)
        ):
            i = j
            continue
        precision = _value_precision(value)
        if words[j:j + 3] == ["and", "a", "half"] and joined(j) and joined(j + 1) and joined(j + 2):
            value, precision, j = value + Decimal("0.5"), Decimal("0.5"), j + 3
        start, end = tokens[i].start, tokens[j - 1].end
        if i > 0 and words[i - 1] in SIGN_WORDS and _gap(text, tokens[i - 1], tokens[i]) == " ":
            value, start = -value, tokens[i - 1].start
        currency, _ = _currency_after(text, end)
        found.append(
            ExtractedNumber(
                value=float(value),
                is_approximate=_approximate(text, start, end),
                precision=float(precision),
                position=start,
                raw=text[start:end],
                currency=currency,
            )
        )
        i = j
    return found


def extract_numbers(text: str) -> list[ExtractedNumber]:
    """Every quantity in ``text``, in order of position in the normalised text.

    Digits are found first; spelled-out numbers are then parsed from the words digits did not
    already claim, so "2 million" is one number, not 2 and a stray "million".
    """
    norm = normalize(text)
    iso_spans = [match.span() for match in _ISO_DATE.finditer(norm)]
    digits = _digit_numbers(norm, iso_spans)
    taken = [(n.position, n.position + len(n.raw)) for n in digits] + iso_spans
    return sorted(digits + _word_numbers(norm, taken), key=lambda number: number.position)


def currency_of(unit: str | None) -> str | None:
    """The ISO code a unit names ("$", "usd", "dollars" → "USD"), or ``None`` for non-currency."""
    if unit is None:
        return None
    return _CURRENCY.get(normalized_phrase(unit))


_EPSILON = Decimal("1e-9")


def numeric_matches(number: ExtractedNumber, key: NumericKey) -> bool:
    """Whether one extracted number agrees with the numeric gold.

    An exact figure must lie within ``key.tolerance`` (0 = exact). An *approximate* figure (marked
    "about", "~", "roughly", ...) is also correct when the gold rounded half-up to the figure's own
    precision gives that figure (§5.6): "roughly 129" and "about 130" both fit 128.75, "about 120"
    does not, and "about 100" (one significant figure of the gold) does not either. Without a marker the rounding allowance does not apply, because an unmarked "129"
    claims to be the value itself. A stated currency that differs from a currency unit on the key
    is a different quantity and never matches; a missing currency is not held against the answer.
    """
    key_currency = currency_of(key.unit)
    if key_currency and number.currency and key_currency != number.currency:
        return False
    gold = Decimal(repr(key.value))
    value = Decimal(repr(number.value))
    if abs(value - gold) <= Decimal(repr(key.tolerance)) + _EPSILON:
        return True
    if not number.is_approximate:
        return False
    precision = Decimal(repr(number.precision))
    if gold != 0 and precision * 10 > abs(gold):
        # Fewer than two significant figures of the gold: "about 100" for 128.75 or "about 10"
        # for 12 would make nearly any magnitude-right guess correct (stricter than §5.6 read
        # literally; recorded in the CHANGELOG).
        return False
    rounded = (gold / precision).quantize(Decimal(1), rounding=ROUND_HALF_UP) * precision
    return abs(rounded - value) <= _EPSILON
