"""Leak and identity guards (GATES.md §4, VERTICALS.md §5.11): gate ``leaks``.

For every question the gate scans exactly what the adapter receives — ``adapter_view(record)``,
the single definition the runner also uses — and never a view of its own making. It refuses:

``extension_key``
    a distinctive field name of the record's answer-key machinery (the extension block and its
    nested models, the LongMemEval-style label fields, the sidecar) in any adapter text;
``has_answer``
    the gold-turn label ``has_answer`` in any adapter text;
``question_id``
    the question's own id, or any token shaped like a question id, in any adapter text;
``extension_value``
    an extension-block identifier value (``pair_id`` or any pair-id-shaped token, ``seeded_from``);
``gold_in_question``
    an answer-key value (``accepted``, ``must_name``, ``numeric.value``, or the gold ``answer``
    text) in the question or a per-question instruction — the sessions may say the gold, the
    prompt never (the shared default instruction is reviewed code and is not scanned for gold).
    A closed-choice prompt that lists every one of ``answer_key.choices`` may name the gold among
    them;
``derivation_literal``
    the value of a sum / delta / duration derivation written as a literal anywhere the adapter
    reads (rule for small values: see ``TRIVIAL_MAGNITUDE``);
``session_id``
    an opaque session id that is, or contains, a corpus session id, or a corpus session id
    appearing in any adapter text.

``check_serialized_report`` is the identity half: a serialized report never contains the reserved
benchmark token in any letter case.
"""

from __future__ import annotations

import json
import re
import types
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from ..corpus.loading import Corpus
from ..corpus.models import AnswerKey, Derivation, DerivationInput, QuestionRecord, Sidecar
from ..adapter.projection import ANSWER_CONTRACT, DEFAULT_INSTRUCTION, AdapterView, adapter_view
from .declarations import VerticalDeclarations
from .result import GateResult, Refusal, SelfTestCase, control_case, defect_case

GATE = "leaks"

# --- constants (each says where it comes from) -------------------------------------------------

KEY_NAME_SOURCES: tuple[type[BaseModel], ...] = (QuestionRecord, Sidecar)
"""Models whose field names (recursively, through nested models) are answer-key vocabulary: the
record (its label fields, its ``typedmemeval`` block and everything nested in it: AnswerKey,
NumericKey, Derivation, DerivationInput, Candidate, GoldComponent, ListOrder, Dial) and the sidecar
(probe records, coverage, separability). GATES.md §4 "no extension-block key names"; the sidecar is
included because it is answer key too (the stricter reading)."""

PLAIN_WORD_FIELDS: frozenset[str] = frozenset(
    """
    accepted answer arm auc candidates choices content date derivation dial difficulty exemptions
    extra feature fixture generator inputs instruction items kind label matches model name numeric
    operation outcome premature question reason refused revision role rule sample seed
    separability sha256 shape shapes side stale status temperature tolerance unit value verdicts
    vertical wrong z
    """.split()
)
"""Single-word field names NOT scanned for, because they are ordinary English (or, for ``z`` and
``auc``, too short to mean anything) and would refuse every corpus: "shape", "arm", "dial", "value",
"unit", "side", "kind", "label", "items", "wrong", "stale", ... A field name is scanned for when it
is compound (contains ``_``) or is a single word missing from this list: a new single-word field is
therefore scanned for until someone reviews it and adds it here (fail-safe)."""

ALWAYS_DISTINCTIVE: frozenset[str] = frozenset({"typedmemeval"})
"""The extension block's own key: never English, always a leak."""

HAS_ANSWER_PATTERN = re.compile(r"has[_-]?answer", re.IGNORECASE)
"""``has_answer`` and its serialised spellings (``hasAnswer``, ``has-answer``). "has answer" with a
space is ordinary English ("she has answers") and is not matched."""

QUESTION_ID_SHAPE = re.compile(r"tme-[a-z]{2,3}-\d{3}(?:_abs)?", re.IGNORECASE)
PAIR_ID_SHAPE = re.compile(r"tme-[a-z]{2,3}-p\d{2}", re.IGNORECASE)
"""Id shapes from VERTICALS.md §1.4: any token of these shapes is a label, whoever it names."""

DIAGNOSTIC_OPERATIONS: frozenset[str] = frozenset({"sum", "delta", "duration"})
"""Derivations whose value is diagnostic (GATES.md §4). A count's value is a small integer that the
sessions enumerate, not compute; counts are covered by ``gold_in_question`` only."""

TRIVIAL_MAGNITUDE = 10
"""Non-trivial rule (GATES.md §4 leaves "non-trivial" open; this is our reading, stricter than
skipping). Every non-integral value, and every integral value with ``|value| >= 10``, is refused as
a bare token-bounded literal anywhere in the adapter view. An integral value with ``|value| < 10``
("3 days") is *trivial* as a bare digit — single digits occur in ordinary prose ("3 tickets") — but
it is still refused (a) anywhere in the question or instruction, and (b) in a session when it is
bound to the derivation's unit ("3 days", "3-day", "three days", "$3", "3 USD")."""

MIN_ID_CONTAINMENT_CHARS = 5
"""An opaque id (``s`` + 12 hex) contains a shorter corpus id such as ``s1`` by chance about once
in a few dozen sessions, so ids shorter than this are checked for equality only; from 5 characters
the chance of a random hit is below 1e-5 per session."""

_CURRENCY_WORDS: dict[str, tuple[str, ...]] = {
    "usd": (r"\$", r"us\$", r"usd", r"dollars?", r"bucks?"),
    "eur": (r"€", r"eur", r"euros?"),
    "gbp": (r"£", r"gbp", r"pounds?"),
}
_CURRENCY_SYMBOLS = (r"\$", r"€", r"£")
_UNIT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "days": (r"days?",),
    "hours": (r"hours?", r"hrs?", r"h"),
    "minutes": (r"minutes?", r"mins?"),
    "weeks": (r"weeks?", r"wks?"),
    "months": (r"months?",),
    "years": (r"years?", r"yrs?"),
}

_SMALL_NUMBER_WORDS: dict[str, int] = {
    word: index
    for index, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_SMALL_NUMBER_WORDS.update(
    {word: 10 * (index + 2) for index, word in
     enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
)
_SCALE_WORDS = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_NUMBER_WORD = "|".join(sorted([*_SMALL_NUMBER_WORDS, *_SCALE_WORDS], key=len, reverse=True))
SPELLED_NUMBER_PATTERN = re.compile(
    rf"(?<![a-z])(?:a[\s-]+(?=hundred|thousand|million))?(?:{_NUMBER_WORD})"
    rf"(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*(?![a-z])",
    re.IGNORECASE,
)
"""A maximal run of English number words ("one thousand two hundred and fifty", "twelve hundred
fifty", "twenty-five"), parsed by ``_spelled_value``. Integers only: "one hundred twenty-eight
dollars and seventy-five cents" is not parsed (documented gap; generators write digits)."""

NUMBER_PATTERN = re.compile(
    r"(?<![\w.])(?<!\d,)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d)(?!\.\d)(?!,\d{3}(?!\d))"
)
"""A token-bounded number: ``1250``, ``1,250``, ``1250.00``, ``$1,250.00``, ``-45`` (sign ignored:
values are compared by magnitude, so a delta of -45 stated as "45 less" is found). Not preceded by
a letter, digit, ``_`` or ``.`` (so hex runs in opaque ids and fractional parts never match), and
the trailing punctuation of "2026," is not captured (VERTICALS.md §4.8). Letters may follow
("14days"). Not recognised (documented gaps): space-grouped "1 250", European "1.250,00",
magnitude suffixes "1.2k"."""


# --- key names, derived from the models -------------------------------------------------------


def _nested_models(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = get_origin(annotation)
    if origin is not None or isinstance(annotation, types.UnionType):
        for argument in get_args(annotation):
            if argument is not Ellipsis:
                yield from _nested_models(argument)


def model_field_names(models: Iterable[type[BaseModel]] = KEY_NAME_SOURCES) -> frozenset[str]:
    """Every field name of the given models and of every model nested in them."""
    seen: set[type[BaseModel]] = set()
    names: set[str] = set()
    pending = list(models)
    while pending:
        model = pending.pop()
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            names.add(name)
            pending.extend(_nested_models(info.annotation))
    return frozenset(names)


def distinctive_key_names() -> tuple[str, ...]:
    """The key names the ``extension_key`` rule scans for (``has_answer`` has its own rule)."""
    names = {name for name in model_field_names() if name not in PLAIN_WORD_FIELDS}
    names |= ALWAYS_DISTINCTIVE
    names.discard("has_answer")
    return tuple(sorted(names))


def excluded_key_names() -> tuple[str, ...]:
    """Field names deliberately not scanned for (plain English words, see ``PLAIN_WORD_FIELDS``)."""
    return tuple(sorted(name for name in model_field_names() if name in PLAIN_WORD_FIELDS))


def _key_pattern(names: Sequence[str]) -> re.Pattern[str]:
    # snake_case as serialised, and the separator-less form (camelCase / concatenated, matched
    # case-insensitively). Hyphen and space variants ("answer key", "carve-outs") are English.
    alternatives = [r"_?".join(re.escape(part) for part in name.split("_")) for name in names]
    return re.compile("|".join(sorted(alternatives, key=len, reverse=True)), re.IGNORECASE)


KEY_NAMES: tuple[str, ...] = distinctive_key_names()
KEY_PATTERN = _key_pattern(KEY_NAMES)
_SQUASHED_KEY_NAMES: tuple[str, ...] = tuple(name.replace("_", "") for name in KEY_NAMES)


# --- numbers -----------------------------------------------------------------------------------


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "")).normalize()
    except InvalidOperation:
        return None


def _value_decimal(value: float) -> Decimal:
    return abs(Decimal(repr(float(value)))).normalize()


def _spelled_value(run: str) -> int:
    total = 0
    current = 0
    for word in re.split(r"[\s-]+", run.lower()):
        if word in ("and", ""):
            continue
        if word == "a":
            current = 1
        elif word in _SMALL_NUMBER_WORDS:
            current += _SMALL_NUMBER_WORDS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        else:
            total += (current or 1) * _SCALE_WORDS[word]
            current = 0
    return total + current


def numbers_in(text: str) -> Iterator[tuple[Decimal, str]]:
    """Every digit-written number in ``text`` (magnitude, normalised) with the literal as written."""
    for match in NUMBER_PATTERN.finditer(text):
        value = _decimal(match.group(0))
        if value is not None:
            yield value, match.group(0)


def spelled_numbers_in(text: str) -> Iterator[tuple[Decimal, str]]:
    """Every run of English number words in ``text``, as an integer, with the run as written."""
    for match in SPELLED_NUMBER_PATTERN.finditer(text):
        yield Decimal(_spelled_value(match.group(0))).normalize(), match.group(0)


def _unit_alternatives(unit: str) -> tuple[str, ...]:
    key = unit.strip().lower()
    if key in _CURRENCY_WORDS:
        return _CURRENCY_WORDS[key]
    if key in _UNIT_SYNONYMS:
        return _UNIT_SYNONYMS[key]
    singular = key[:-1] if key.endswith("s") and len(key) > 2 else key
    return (re.escape(singular) + "s?",)


def _unit_bound_pattern(unit: str) -> re.Pattern[str]:
    units = "|".join(_unit_alternatives(unit))
    number = rf"(?:{NUMBER_PATTERN.pattern}|{SPELLED_NUMBER_PATTERN.pattern})"
    symbols = "|".join(_CURRENCY_SYMBOLS)
    return re.compile(
        rf"(?P<after>{number})[\s-]*(?:{units})(?![a-z])|(?:{symbols})\s*(?P<before>{number})",
        re.IGNORECASE,
    )


def _unit_bound_numbers(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[Decimal, str]]:
    for match in pattern.finditer(text):
        literal = match.group("after") or match.group("before")
        value = _decimal(literal)
        if value is None:
            value = Decimal(_spelled_value(literal)).normalize()
        yield value, match.group(0)


def is_trivial(value: float) -> bool:
    """``TRIVIAL_MAGNITUDE`` rule: an integral value below 10 in magnitude."""
    return float(value).is_integer() and abs(value) < TRIVIAL_MAGNITUDE


# --- text matching -----------------------------------------------------------------------------


def normalise(text: str) -> str:
    """NFKC, casefold and collapsed whitespace: the comparison form for answer-key values."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def contains_bounded(haystack: str, needle: str) -> bool:
    """``needle`` in ``haystack`` (both normalised), not inside a longer word."""
    if not needle or not any(ch.isalnum() for ch in needle):
        return False
    left = r"(?<!\w)" if needle[0].isalnum() or needle[0] == "_" else ""
    right = r"(?!\w)" if needle[-1].isalnum() or needle[-1] == "_" else ""
    return re.search(left + re.escape(needle) + right, haystack) is not None


_NUMERIC_ANSWER = re.compile(r"[$€£]?\s*[-−]?(\d[\d,]*(?:\.\d+)?)\s*[a-z%]*\.?", re.IGNORECASE)


# --- the scan ----------------------------------------------------------------------------------


def _where(view: AdapterView, text: str) -> str:
    if text == view.question:
        return "question"
    if text == view.instruction:
        return "instruction"
    if text == view.query_time.isoformat():
        return "query time"
    for index, session in enumerate(view.sessions):
        if text == session.session_id:
            return f"session {index} id"
        if text == session.timestamp.isoformat():
            return f"session {index} timestamp"
        for turn_index, turn in enumerate(session.turns):
            if text == turn.content:
                return f"session {index} turn {turn_index} ({turn.role})"
    return "adapter text"


def _excerpt(text: str, start: int, end: int, width: int = 30) -> str:
    left = max(0, start - width)
    right = min(len(text), end + width)
    return ("…" if left else "") + text[left:right].replace("\n", " ") + ("…" if right < len(text) else "")


class _Scan:
    """Findings for one question; one refusal per (rule, literal, place) so a report stays short."""

    def __init__(self, record: QuestionRecord, vertical: str | None) -> None:
        self.record = record
        self.vertical = vertical
        self.refusals: list[Refusal] = []
        self._seen: set[tuple[str, str, str]] = set()

    def refuse(self, rule: str, literal: str, where: str, detail: str) -> None:
        key = (rule, literal.lower(), where)
        if key in self._seen:
            return
        self._seen.add(key)
        self.refusals.append(Refusal(
            rule=rule, subject=self.record.question_id, value=literal,
            detail=f"{where}: {detail}", vertical=self.vertical, shape=self.record.shape,
        ))


def scan_view(record: QuestionRecord, view: AdapterView, *, vertical: str | None = None,
              counters: Counter[str] | None = None) -> list[Refusal]:
    """Every leak in ``view``, the adapter's view of ``record``. ``check`` passes
    ``adapter_view(record)``; the self-test passes tampered views to prove each rule fires."""
    scan = _Scan(record, vertical)
    counts = counters if counters is not None else Counter()
    texts = view.texts()
    counts["texts"] += len(texts)
    timestamps = {view.query_time.isoformat(), *(s.timestamp.isoformat() for s in view.sessions)}
    block = record.typedmemeval
    own_id = record.question_id.lower()
    corpus_session_ids = [sid for sid in record.haystack_session_ids if sid]
    extension_values = [value for value in (block.pair_id, block.seeded_from) if value]

    # Cheap substring pre-filters over the joined, lowercased texts (each a superset of its
    # rule's regex); only a hit pays for the regex pass per text that names the place. No rule can
    # match across the newline joints.
    joined_lower = "\n".join(texts).lower()
    squashed = joined_lower.replace("_", "")
    key_hit = any(name in squashed for name in _SQUASHED_KEY_NAMES)
    has_answer_hit = "hasanswer" in squashed.replace("-", "")
    id_shape_hit = "tme-" in joined_lower
    hit_session_ids = [sid for sid in corpus_session_ids if sid.lower() in joined_lower]
    if key_hit:
        for text in texts:
            for match in KEY_PATTERN.finditer(text):
                scan.refuse("extension_key", match.group(0), _where(view, text),
                            f"answer-key field name in what the adapter reads: "
                            f"«{_excerpt(text, match.start(), match.end())}»")
    if has_answer_hit:
        for text in texts:
            for match in HAS_ANSWER_PATTERN.finditer(text):
                scan.refuse("has_answer", match.group(0), _where(view, text),
                            "the gold-turn label reached the adapter")
    if own_id in joined_lower:
        for text in texts:
            start = text.lower().find(own_id)
            if start >= 0:
                scan.refuse("question_id", record.question_id, _where(view, text),
                            f"the question's own id: «{_excerpt(text, start, start + len(own_id))}»")
    if id_shape_hit:
        for text in texts:
            for match in QUESTION_ID_SHAPE.finditer(text):
                scan.refuse("question_id", match.group(0), _where(view, text),
                            "a question-id-shaped label (tme-<abbrev>-NNN)")
    if id_shape_hit:
        for text in texts:
            for match in PAIR_ID_SHAPE.finditer(text):
                scan.refuse("extension_value", match.group(0), _where(view, text),
                            "a pair-id-shaped label (tme-<abbrev>-pNN) from the extension block")
    for value in extension_values:
        if value.lower() in joined_lower:
            for text in texts:
                if value.lower() in text.lower():
                    scan.refuse("extension_value", value, _where(view, text),
                                "an extension-block identifier (pair_id / seeded_from)")
    for sid in hit_session_ids:
        pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(sid)}(?![A-Za-z0-9])", re.IGNORECASE)
        for text in texts:
            for match in pattern.finditer(text):
                scan.refuse("session_id", match.group(0), _where(view, text),
                            "a corpus session id reached the adapter (ids must be opaque)")

    for session, sid in zip(view.sessions, record.haystack_session_ids):
        opaque = session.session_id.lower()
        for corpus_id in corpus_session_ids:
            cid = corpus_id.lower()
            if opaque == cid or (len(cid) >= MIN_ID_CONTAINMENT_CHARS and cid in opaque):
                scan.refuse("session_id", session.session_id, f"opaque id of corpus session {sid!r}",
                            f"contains corpus session id {corpus_id!r}")

    _scan_gold_in_prompt(scan, view, record.typedmemeval.answer_key, record.answer, counts)
    derivation = block.derivation
    if derivation is not None and derivation.operation in DIAGNOSTIC_OPERATIONS:
        counts[f"derivations_{derivation.operation}"] += 1
        _scan_derivation(scan, view, texts, timestamps, derivation, counts)
    return scan.refusals


def _scan_gold_in_prompt(scan: _Scan, view: AdapterView, key: AnswerKey, answer: str,
                         counts: Counter[str]) -> None:
    """Rule ``gold_in_question``: the prompt (question, instruction) never carries the gold."""
    # The default instruction and the answer contract are reviewed constants shared by every
    # question; the contract's decline phrase is the answer format, not a gold. A per-question
    # instruction from the extension block is scanned like the question.
    prompts = [("question", view.question)]
    if view.instruction != f"{DEFAULT_INSTRUCTION} {ANSWER_CONTRACT}":
        prompts.append(("instruction", view.instruction))
    values: list[tuple[str, str]] = [("accepted", v) for v in key.accepted]
    values += [("must_name", v) for v in key.must_name]
    values.append(("answer", answer))
    numbers: list[tuple[str, Decimal]] = []
    if key.numeric is not None:
        numbers.append(("numeric.value", _value_decimal(key.numeric.value)))
    for field, text in values:
        match = _NUMERIC_ANSWER.fullmatch(text.strip())
        if match is not None:
            parsed = _decimal(match.group(1))
            if parsed is not None:
                numbers.append((field, parsed))
    choices = [normalise(choice) for choice in key.choices]
    choice_numbers = {value for choice in key.choices for value, _ in numbers_in(choice)}
    for where, prompt in prompts:
        normal = normalise(prompt)
        # A closed-choice prompt that lists *every* declared choice names the gold as one of k
        # options, which tells nothing (AnswerKey.choices, §3.2). Listing only some of them does.
        listed = bool(choices) and all(contains_bounded(normal, choice) for choice in choices)
        hint = ("" if not choices or listed else
                " (choices are declared but the prompt does not list all of them)")
        for field, value in values:
            counts["gold_values"] += 1
            needle = normalise(value)
            if listed and any(contains_bounded(choice, needle) for choice in choices):
                continue
            if contains_bounded(normal, needle):
                scan.refuse("gold_in_question", value, where,
                            f"answer_key {field} value appears in the prompt; the question never "
                            f"contains its gold answer{hint}")
        if numbers:
            found = list(numbers_in(prompt)) + list(spelled_numbers_in(prompt))
            for field, number in numbers:
                if listed and number in choice_numbers:
                    continue
                for found_value, literal in found:
                    if found_value == number:
                        scan.refuse("gold_in_question", literal, where,
                                    f"answer_key {field} ({number}) appears in the prompt{hint}")


def _scan_derivation(scan: _Scan, view: AdapterView, texts: Sequence[str], timestamps: set[str],
                     derivation: Derivation, counts: Counter[str]) -> None:
    """Rule ``derivation_literal`` (GATES.md §4; non-trivial rule at ``TRIVIAL_MAGNITUDE``)."""
    target = _value_decimal(derivation.value)
    trivial = is_trivial(derivation.value)
    integral = float(derivation.value).is_integer()
    prompts = {view.question, view.instruction}
    unit_pattern = _unit_bound_pattern(derivation.unit) if trivial else None
    label = f"{derivation.operation} value {derivation.value:g} {derivation.unit}"
    if trivial:
        counts["derivations_trivial"] += 1
    for text in texts:
        # Timestamps are rendered datetimes whose digits are calendar fields, never a statement of
        # a derived value; scanning them would forbid every value under 60.
        if text in timestamps:
            continue
        counts["derivation_texts"] += 1
        bare = not trivial or text in prompts
        if bare:
            candidates = list(numbers_in(text))
            if integral:
                candidates += list(spelled_numbers_in(text))
            for value, literal in candidates:
                if value == target:
                    scan.refuse("derivation_literal", literal, _where(view, text),
                                f"the {label} is written out; the system must derive it")
        elif unit_pattern is not None:
            for value, literal in _unit_bound_numbers(text, unit_pattern):
                if value == target:
                    scan.refuse("derivation_literal", literal, _where(view, text),
                                f"the trivial {label} is stated with its unit")


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None) -> GateResult:
    """Scan every question's adapter view; refuse each leak by its rule (module docstring).

    ``declared`` is accepted for the common gate interface; no leak can be declared away.
    """
    del declared
    if not corpus.records:
        return GateResult(GATE, corpus.corpus_id, "skipped",
                          skip_reason="the corpus has no questions: nothing was scanned")
    counts: Counter[str] = Counter()
    refusals: list[Refusal] = []
    for record in corpus.records:
        refusals.extend(scan_view(record, adapter_view(record), vertical=corpus.vertical,
                                  counters=counts))
    by_rule = Counter(refusal.rule for refusal in refusals)
    measured: dict[str, Any] = {
        "questions_scanned": len(corpus.records),
        "texts_scanned": counts["texts"],
        "derivations_checked": {op: counts[f"derivations_{op}"] for op in sorted(DIAGNOSTIC_OPERATIONS)},
        "derivations_trivial": counts["derivations_trivial"],
        "key_names_scanned": len(KEY_NAMES),
        "key_names_excluded_as_english": list(excluded_key_names()),
        "refusals_by_rule": dict(sorted(by_rule.items())),
        "questions_refused": len({refusal.subject for refusal in refusals}),
    }
    return GateResult(GATE, corpus.corpus_id, "refused" if refusals else "passed",
                      refusals=tuple(refusals), measured=measured)


REPORT_TOKEN_PATTERN = re.compile(
    r"[_\W]*".join(re.escape(part) for part in ("long", "mem", "eval")), re.IGNORECASE
)
"""The reserved token in any letter case, also split by separators ("Long-Mem-Eval", "long_mem
eval") — the stricter reading of "contains no case-insensitive longmemeval". Spelled out rather
than derived from ``RESERVED_BENCHMARK_TOKEN`` (a test ties the two together)."""


def _json_strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from _json_strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _json_strings(item)


def check_serialized_report(text: str, *, source: str = "report") -> GateResult:
    """Refuse a serialized report (normally JSON) containing the reserved benchmark token (§5.11).

    The raw text is scanned, and when it parses as JSON every decoded key and string as well, so a
    ``\\u``-escaped spelling cannot slip through.
    """
    hits: list[tuple[str, str]] = []
    for match in REPORT_TOKEN_PATTERN.finditer(text):
        hits.append((match.group(0), _excerpt(text, match.start(), match.end())))
    try:
        decoded = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        decoded = None
    if decoded is not None:
        for string in _json_strings(decoded):
            for match in REPORT_TOKEN_PATTERN.finditer(string):
                hits.append((match.group(0), _excerpt(string, match.start(), match.end())))
    refusals = tuple(
        Refusal(rule="longmemeval", subject=source, value=literal,
                detail=f"the serialized report names the reserved benchmark: «{excerpt}»; a "
                f"TypedMemEval result must not be quotable as that benchmark's (VERTICALS.md §5.11)")
        for literal, excerpt in dict.fromkeys(hits)
    )
    measured = {"characters": len(text), "parsed_as_json": decoded is not None, "hits": len(hits)}
    return GateResult(GATE, source, "refused" if refusals else "passed", refusals=refusals,
                      measured=measured)


# --- self-test (its corpora: :mod:`.selftest.leaks`) --------------------------------------------


def _result_for_view(record: QuestionRecord, view: AdapterView, name: str) -> GateResult:
    refusals = tuple(scan_view(record, view, vertical="arithmetic"))
    return GateResult(GATE, f"self-test-leaks-{name}", "refused" if refusals else "passed",
                      refusals=refusals)


def self_test() -> list[SelfTestCase]:
    """Each defect refused by its own rule; clean controls pass (GATES.md lesson: both directions)."""
    from .selftest.leaks import _clean_records, _corpus, _with_turn

    clean = _clean_records()
    sum_record, duration_record, named_record = clean
    cases: list[SelfTestCase] = [control_case("clean corpus passes", check(_corpus(clean, "clean")))]

    def defect(name: str, records: Sequence[QuestionRecord], rule: str) -> None:
        cases.append(defect_case(name, check(_corpus(records, name)), rule))

    gold_question = named_record.model_copy(update={"question": "Did my sister move to Lisbon or Porto?"})
    defect("gold answer in question text", [sum_record, gold_question], "gold_in_question")
    choice_key = AnswerKey(accepted=("you",), wrong=("me", "both of us"),
                           choices=("me", "you", "both of us"))
    closed = named_record.model_copy(update={
        "question": "Who mentioned the move to Lisbon first: me, you, or both of us?",
        "answer": "you",
        "typedmemeval": named_record.typedmemeval.model_copy(update={"answer_key": choice_key})})
    cases.append(control_case("closed-choice question listing every choice passes",
                              check(_corpus([closed], "closed-choice"))))
    defect("closed-choice question naming only the gold",
           [closed.model_copy(update={"question": "Did you mention the move first?"})],
           "gold_in_question")
    numeric_question = sum_record.model_copy(
        update={"question": "Did the two repairs cost me 128.75 dollars altogether?"})
    defect("numeric gold in question text", [numeric_question], "gold_in_question")
    defect("derivation value literal in a session",
           [_with_turn(sum_record, 0, "Funny, my gym fee is also 128.75 a year.")], "derivation_literal")
    leaked_sum = sum_record.model_copy(update={"typedmemeval": sum_record.typedmemeval.model_copy(
        update={"derivation": Derivation(operation="sum", unit="USD", value=1250, inputs=(
            DerivationInput(session_index=1, value=45.20),))})})
    defect("derivation value as formatted variant 1,250.00",
           [_with_turn(leaked_sum, 2, "The deposit was 1,250.00 in the end.")], "derivation_literal")
    defect("derivation value spelled out",
           [_with_turn(leaked_sum, 2, "The deposit came to twelve hundred and fifty.")], "derivation_literal")
    defect("trivial duration stated with its unit",
           [_with_turn(duration_record, 1, "Six days is a long wait for bread.")], "derivation_literal")
    defect("has_answer string in content",
           [_with_turn(named_record, 0, '{"role": "user", "has_answer": true}')], "has_answer")
    defect("extension key name in content",
           [_with_turn(named_record, 2, "see answer_key.expected_negative")], "extension_key")
    defect("camelCase extension key name in content",
           [_with_turn(named_record, 2, "the answerSessionIds were listed")], "extension_key")
    defect("question id in content",
           [_with_turn(named_record, 1, "Reminder about tme-ari-003 from before.")], "question_id")
    defect("corpus session id in content",
           [_with_turn(named_record, 1, "Compare with q003-session-02 please.")], "session_id")
    view = adapter_view(named_record)
    tampered = replace(view, sessions=tuple(
        replace(session, session_id=f"x-{sid}")
        for session, sid in zip(view.sessions, named_record.haystack_session_ids)))
    cases.append(defect_case("opaque id carries the corpus session id",
                             _result_for_view(named_record, tampered, "opaque"), "session_id"))
    cases.append(defect_case(
        "report JSON containing LongMemEval",
        check_serialized_report(json.dumps({"benchmark": "LongMemEval-S", "accuracy": 0.5})),
        "longmemeval"))
    cases.append(defect_case(
        "report JSON with an escaped reserved token",
        check_serialized_report('{"name": "Long\\u004demEval"}'), "longmemeval"))
    cases.append(control_case(
        "clean report JSON passes",
        check_serialized_report(json.dumps({"benchmark_id": "typedmemeval-arithmetic",
                                            "citation": "TypedMemEval-Arithmetic v1 (pytest-typedmemeval)"}))))
    return cases
