"""Answer-text normalisation and token-bounded phrase matching for the mechanical judge.

Every cue, value and number the judge looks for is searched in the *normalised* answer, so the
normalisation itself is part of the judge's rules and is covered by its fingerprint
(:data:`NORMALISATION_RULES`, VERTICALS.md §5.6 "the parsing rules belong to the judge template").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Typographic characters that NFKC leaves alone but that answers use interchangeably with their
# ASCII forms: a model writing "don’t" must trip the same cue as one writing "don't", and a
# U+2212 minus sign must still make a number negative.
CHARACTER_MAP: tuple[tuple[str, str], ...] = (
    ("\u2018", "'"),  # left single quotation mark
    ("\u2019", "'"),  # right single quotation mark (the usual curly apostrophe)
    ("\u02bc", "'"),  # modifier letter apostrophe
    ("\u2032", "'"),  # prime
    ("\u201c", '"'),  # left double quotation mark
    ("\u201d", '"'),  # right double quotation mark
    ("\u2212", "-"),  # minus sign
)

NORMALISATION_RULES: dict[str, object] = {
    "unicode": "NFKC",
    "case": "casefold",
    "whitespace": "collapse runs to one space",
    "edges": "strip Unicode punctuation (P*) from both ends; keep a leading '-' before a digit",
    "character_map": [list(pair) for pair in CHARACTER_MAP],
    "phrase_boundary": "no word character either side; a digit phrase may not go on as a decimal",
    "structured_boolean": "J18.4: a \"key\": true|false pair reads as the statement it makes",
}
"""A plain-data description of this module's rules, folded into the judge fingerprint."""

_TRANSLATION = str.maketrans(dict(CHARACTER_MAP))
_WHITESPACE = re.compile(r"\s+")


def _is_edge_punctuation(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def normalize(text: str) -> str:
    """Normalise answer text: NFKC, typographic quotes mapped, casefolded, whitespace collapsed,
    punctuation stripped from both ends.

    Only *edge* punctuation goes: inner punctuation carries meaning the judge needs ("1,250",
    "128.75", "don't"). A leading hyphen before a digit is a sign, not punctuation, so "-5" keeps
    it. Currency symbols are Unicode symbols (Sc), not punctuation, and survive too. The function
    is idempotent, so callers may normalise twice without changing positions.
    """
    folded = unicodedata.normalize("NFKC", text).translate(_TRANSLATION).casefold()
    collapsed = _WHITESPACE.sub(" ", folded).strip()
    start, end = 0, len(collapsed)
    while start < end and _is_edge_punctuation(collapsed[start]):
        if collapsed[start] == "-" and start + 1 < end and collapsed[start + 1].isdigit():
            break
        start += 1
    while end > start and _is_edge_punctuation(collapsed[end - 1]):
        end -= 1
    return collapsed[start:end]


@lru_cache(maxsize=16384)
def normalized_phrase(phrase: str) -> str:
    """:func:`normalize`, cached: for answer-key values, cues and units, which repeat within a
    question's judging and across questions (answers are normalised once each, uncached)."""
    return normalize(phrase)


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """The compiled matcher for a phrase, cached on the raw phrase: cue lists and answer-key values
    repeat across every question, so normalising and compiling them once keeps the judge cheap."""
    phrase_norm = normalized_phrase(phrase)
    if not phrase_norm:
        return None
    body = r"\s+".join(re.escape(part) for part in phrase_norm.split(" "))
    # Word boundaries only where the phrase itself begins/ends with a word character, so cues such
    # as "=" or "~" still match glued to a number. The decimal guards stop the value "5" matching
    # inside "5.5" or "1,5": a digit phrase must not be part of a longer numeral.
    left = r"(?<!\w)(?<!\d[.,])" if re.match(r"\w", phrase_norm) else ""
    right = r"(?!\w)(?![.,]\d)" if re.search(r"\w$", phrase_norm) else ""
    return re.compile(left + body + right)


def phrase_spans(haystack_norm: str, phrase: str) -> list[tuple[int, int]]:
    """Every ``(start, end)`` where ``phrase`` occurs token-bounded in ``haystack_norm``.

    ``haystack_norm`` must already be :func:`normalize`-d (positions refer to it); ``phrase`` is
    normalised here. An empty phrase matches nowhere rather than everywhere.
    """
    # A normalised haystack holds every whitespace run as one space, so the matcher can only match
    # where the normalised phrase occurs as a plain substring. Answer-key values differ from
    # question to question and most are absent from a given answer: checking first spares
    # compiling a matcher that could not match (most of the judge's time, measured, issue 13).
    phrase_norm = normalized_phrase(phrase)
    if not phrase_norm or phrase_norm not in haystack_norm:
        return []
    pattern = _phrase_pattern(phrase)
    if pattern is None:
        return []
    return [match.span() for match in pattern.finditer(haystack_norm)]


@lru_cache(maxsize=256)
def _any_phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One alternation of many phrases' matchers: a search finds a match iff any phrase occurs."""
    patterns = [pattern.pattern for phrase in phrases if (pattern := _phrase_pattern(phrase)) is not None]
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


def contains_any_phrase(haystack_norm: str, phrases: tuple[str, ...]) -> bool:
    """Whether any of ``phrases`` occurs token-bounded; one regex pass instead of one per phrase
    (cue lists run to dozens of phrases and are tested on every answer)."""
    pattern = _any_phrase_pattern(phrases)
    return pattern is not None and pattern.search(haystack_norm) is not None


def contains_phrase(haystack_norm: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``haystack_norm`` at word boundaries.

    "Ann" does not match inside "Annabel" and "5" does not match inside "15" or "5.5"; multiword
    phrases match across any run of whitespace. Token-bounded matching is what makes naming a
    value mean naming *that* value (§5.5) rather than a longer name that happens to contain it.
    """
    return bool(phrase_spans(haystack_norm, phrase))


def find_phrase(haystack_norm: str, phrase: str) -> int | None:
    """Start offset of the first token-bounded occurrence of ``phrase``, or ``None``."""
    spans = phrase_spans(haystack_norm, phrase)
    return spans[0][0] if spans else None


# J18.4 (revision 6): structured answers. A boolean field states its key; the key word alone is
# never a cue ("lapsed": false is not a lapse).
_STRUCTURED_BOOLEAN = re.compile(
    r'"(?P<key>[A-Za-z][A-Za-z0-9_ -]{0,40})"\s*:\s*(?P<value>true|false|True|False)\b')
_KEY_PREFIX = re.compile(r"^(?:is|has|was|are|been|currently|now)\s+")
_PARTICIPLE = re.compile(r"(?:ed|en|lost|sold|gone|run out|left|quit|over)$")


def _boolean_statement(key: str, value: bool) -> str:
    words = re.sub(r"[_\-\s]+", " ", re.sub(r"([a-z])([A-Z])", r"\1 \2", key)).strip().lower()
    words = _KEY_PREFIX.sub("", words)
    if words.startswith("still "):
        rest = words[len("still "):]
        return f"it is still {rest}" if value else f"it is no longer {rest}"
    if words.startswith(("no longer ", "not ")):
        rest = words.split(" ", 2)[-1] if words.startswith("no longer ") else words[4:]
        return f"it is no longer {rest}" if value else f"it is still {rest}"
    verb = "has" if _PARTICIPLE.search(words) and " " not in words else "is"
    return f"it {verb} {words}" if value else f"it {verb} not {words}"


def structured_statements(answer: str) -> str:
    """J18.4: each `"key": true|false` pair of a structured (JSON-like) answer rewritten as the
    statement it makes — `"lapsed": false` → "it has not lapsed", `"valid": true` → "it is
    valid", `"still_current": false` → "it is no longer current" — so the key word is read with
    its truth value. Other fields are left as they are."""
    if '"' not in answer or ":" not in answer:
        return answer
    return _STRUCTURED_BOOLEAN.sub(
        lambda m: f'"{_boolean_statement(m.group("key"), m.group("value").lower() == "true")}"',
        answer)
