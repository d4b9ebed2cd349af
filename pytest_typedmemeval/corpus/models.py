"""Pydantic models of a corpus record, its ``typedmemeval`` extension block and the sidecar.

The record's top level keeps the LongMemEval-compatible layout (VERTICALS.md §1.2) so existing
history-formatting code can be reused; everything TypedMemEval adds lives inside the
``typedmemeval`` block, which is answer key and must never reach the system under test.

Models are frozen so a loaded corpus cannot be mutated between its hashing and its use. They forbid
unknown fields everywhere except the record's top level, where foreign loaders may have added keys.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"
"""``question_date`` / ``haystack_dates`` format, e.g. ``2026/03/14 (Sat) 09:30`` (VERTICALS.md §1.2)."""

QUESTION_ID_PATTERN = re.compile(r"^tme-[a-z]{2,3}-\d{3}(_abs)?$")
PAIR_ID_PATTERN = re.compile(r"^tme-[a-z]{2,3}-p\d{2}$")

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_CORPUS_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2}) \(([A-Z][a-z]{2})\) (\d{2}):(\d{2})")


@lru_cache(maxsize=65536)
def parse_corpus_date(text: str) -> datetime:
    """Parse a corpus timestamp; the weekday must agree with the date (a typo there is a corpus bug).

    ``%a`` is locale-dependent in ``strptime``, so the weekday is checked by hand against an
    English table instead. Cached: a haystack's timestamps are parsed at load, again for every
    adapter view, and repeat across questions.
    """
    match = _CORPUS_DATE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not in the form 'yyyy/MM/dd (ddd) HH:mm'")
    year, month, day, weekday, hour, minute = match.groups()
    try:
        # The constructor checks every range strptime would (month, day of that month, hour,
        # minute) at a fraction of its cost: every record's dates are parsed when it runs.
        moment = datetime(int(year), int(month), int(day), int(hour), int(minute))
    except ValueError as error:
        raise ValueError(f"{text!r}: {error}") from None
    if _WEEKDAYS[moment.weekday()] != weekday:
        raise ValueError(f"{text!r}: weekday {weekday} does not match the date")
    return moment


def format_corpus_date(moment: datetime) -> str:
    """Format a timestamp in corpus form with an English weekday regardless of locale."""
    return f"{moment:%Y/%m/%d} ({_WEEKDAYS[moment.weekday()]}) {moment:%H:%M}"


def _check_corpus_date(text: str) -> str:
    parse_corpus_date(text)
    return text


CorpusDate = Annotated[str, AfterValidator(_check_corpus_date)]
"""A timestamp string in corpus form; validated per item so errors name ``haystack_dates[i]``."""


class _Frozen(BaseModel):
    # NaN and infinities are refused: a NaN gold equals nothing, so every answer would be wrong
    # and the corpus would still load as if it were fine.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


Role = Literal["user", "assistant"]


class CorpusTurn(_Frozen):
    """One turn of a haystack session as stored in the corpus (with its ``has_answer`` label)."""

    role: Role
    content: str
    has_answer: bool = False


class NumericKey(_Frozen):
    """A numeric gold: value, unit and the typed tolerance (VERTICALS.md §2.3 rule 4, §5.6)."""

    value: float
    unit: str | None = None
    tolerance: float = Field(default=0.0, ge=0.0)
    """Absolute tolerance; 0 means exact (counts, sums of exact inputs)."""


class AnswerKey(_Frozen):
    """What the mechanical judge needs, written by the generator (Appendix A, "Answer key").

    ``accepted`` are alternative spellings of the gold value, any one suffices; ``choices`` lists
    the options of a closed-choice question. ``must_name`` are
    distinctive values a negative gold names and a correct answer must name too (§5.5). ``wrong``,
    ``stale`` and ``premature`` are values present in the haystack that a confused system would
    offer. ``expected_negative`` says the gold itself is a negative: ``no_longer`` (invalidated),
    ``not_yet`` (before arm), ``abstain`` (never-known); ``still`` marks a control whose value
    still holds, so a "no longer" claim is over-forgetting.
    """

    accepted: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    """Closed-choice options the question itself lists ("me or you or both of us"). They may appear
    in the question without being a leak, and the chance floor is ``1 / len(choices)`` (§3.2)."""
    must_name: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    premature: tuple[str, ...] = ()
    numeric: NumericKey | None = None
    list_order: tuple[str, ...] | None = None
    expected_negative: Literal["no_longer", "not_yet", "abstain", "still"] | None = None

    @model_validator(mode="after")
    def _has_something_to_judge(self) -> AnswerKey:
        if (
            not self.accepted
            and self.numeric is None
            and self.list_order is None
            and self.expected_negative is None
        ):
            raise ValueError(
                "answer_key needs at least one of accepted, numeric, list_order or expected_negative"
            )
        return self


class DerivationInput(_Frozen):
    session_index: int = Field(ge=0)
    value: float
    from_session_index: int | None = Field(default=None, ge=0)
    side: Literal["a", "b"] | None = None


class Derivation(_Frozen):
    operation: Literal["count", "sum", "delta", "duration"]
    inputs: tuple[DerivationInput, ...]
    value: float
    unit: str


class Candidate(_Frozen):
    session_index: int = Field(ge=0)
    matches: bool
    label: str | None = None


class GoldComponent(_Frozen):
    kind: str
    session_index: int = Field(ge=0)
    memory_type: str | None = None


class ListOrder(_Frozen):
    items: tuple[str, ...]
    presented_order: tuple[int, ...]
    session_indices: tuple[int, ...]


class Dial(_Frozen):
    name: str
    value: float


class ProbeVerdict(_Frozen):
    """One sample's recorded outcome, with what it was decided from, so a verdict can be audited
    (issue 22, item 10): the model's reply as it came, and why — the judge's rule, or on
    ``error`` the failure (a timeout, the ceiling, an HTTP status). Older sidecars have neither."""

    question_id: str
    sample: int = 0
    outcome: str
    answer: str | None = None
    reason: str | None = None


class ExtensionBlock(_Frozen):
    """The ``typedmemeval`` block of a record (VERTICALS.md §1.3): all of it is answer key."""

    vertical: str = Field(min_length=1)
    shape: str = Field(min_length=1)
    answer_key: AnswerKey
    instruction: str | None = None
    """Answer-format instruction passed to the adapter; ``None`` means the corpus default."""
    seeded_from: str | None = None
    pair_id: str | None = None
    arm: Literal["before", "after", "control", "treatment", "valid_time", "transaction_time"] | None = (
        None
    )
    distance_sessions: int | None = Field(default=None, ge=0)
    derivation: Derivation | None = None
    count_predicate: str | None = None
    candidates: tuple[Candidate, ...] | None = None
    gold_components: tuple[GoldComponent, ...] | None = None
    gold_components_redundant: bool | None = None
    gold_components_load_bearing: bool | None = None
    list_order: ListOrder | None = None
    fact_family: str | None = None
    stated_by: Literal["user", "assistant", "both"] | None = None
    difficulty: int | None = Field(default=None, ge=1, le=5)
    dial: Dial | None = None
    asked_instant: CorpusDate | None = None
    memory_type: str | None = None

    @field_validator("pair_id")
    @classmethod
    def _pair_id_form(cls, value: str | None) -> str | None:
        if value is not None and not PAIR_ID_PATTERN.match(value):
            raise ValueError(f"{value!r} is not of the form tme-<abbrev>-pNN")
        return value



class QuestionRecord(BaseModel):
    """One question with its own haystack; top level is LongMemEval-compatible (§1.2)."""

    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)

    question_id: str
    question_type: str
    question: str = Field(min_length=1)
    answer: str
    question_date: CorpusDate
    haystack_session_ids: tuple[str, ...]
    haystack_dates: tuple[CorpusDate, ...]
    haystack_sessions: tuple[tuple[CorpusTurn, ...], ...]
    answer_session_ids: tuple[str, ...]
    typedmemeval: ExtensionBlock

    @field_validator("question_id")
    @classmethod
    def _question_id_form(cls, value: str) -> str:
        if not QUESTION_ID_PATTERN.match(value):
            raise ValueError(f"{value!r} is not of the form tme-<abbrev>-NNN (optionally _abs)")
        return value

    @model_validator(mode="after")
    def _haystack_consistent(self) -> QuestionRecord:
        n = len(self.haystack_sessions)
        if len(self.haystack_session_ids) != n or len(self.haystack_dates) != n:
            raise ValueError(
                "haystack_session_ids, haystack_dates and haystack_sessions differ in length "
                f"({len(self.haystack_session_ids)}, {len(self.haystack_dates)}, {n})"
            )
        if len(set(self.haystack_session_ids)) != n:
            raise ValueError("haystack_session_ids contains a duplicate id")
        return self

    @property
    def query_time(self) -> datetime:
        return parse_corpus_date(self.question_date)

    @property
    def session_times(self) -> tuple[datetime, ...]:
        return tuple(parse_corpus_date(text) for text in self.haystack_dates)

    @property
    def vertical(self) -> str:
        return self.typedmemeval.vertical

    @property
    def shape(self) -> str:
        return self.typedmemeval.shape

    @property
    def arm(self) -> str | None:
        return self.typedmemeval.arm

    @property
    def expected_negative(self) -> str | None:
        return self.typedmemeval.answer_key.expected_negative

    @property
    def has_gold(self) -> bool:
        """Whether some haystack session holds the evidence (never-known questions have none)."""
        return bool(set(self.answer_session_ids) & set(self.haystack_session_ids))

    @property
    def gold_session_indices(self) -> tuple[int, ...]:
        gold = set(self.answer_session_ids)
        return tuple(i for i, sid in enumerate(self.haystack_session_ids) if sid in gold)


class SeparabilityFeature(_Frozen):
    feature: str
    auc: float
    perfect_questions: int
    expected_perfect: float
    z: float
    refused: bool
    rule: str | None = None


class Exemption(_Frozen):
    feature: str
    reason: str = Field(min_length=10)
    shapes: tuple[str, ...] = ()


class ProbeRecord(_Frozen):
    """A probe arm's recorded run, or an explicit ``not_measured`` row (GATES.md §5)."""

    arm: str
    shape: str
    status: Literal["measured", "not_measured"]
    reason: str | None = None
    model: str | None = None
    date: str | None = None
    seed: int | None = None
    temperature: float | None = None
    judge: str | None = None
    """Fingerprint of the judge that graded the answers when it was not the mechanical one
    (``typedmemeval probe --judge hybrid``); verdicts of different judges never pool."""
    verdicts: tuple[ProbeVerdict, ...] = ()


class Sidecar(_Frozen):
    """Metadata written next to a corpus (VERTICALS.md §1.5).

    Gates never trust these figures: they re-derive every value they can from the corpus bytes and
    compare. ``extra`` holds blocks later issues add (calibration search records, pair figures)
    without breaking older sidecars.
    """

    corpus_id: str
    revision: int = Field(ge=0)
    vertical: str | None = None
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    fixture: bool = False
    generator: str | None = None
    generator_version: str | None = None
    seed: int | None = None
    echo_by_shape: dict[str, float] = Field(default_factory=dict)
    """Revision 1's calibration dial per shape: the echo clause's strength (VERTICALS.md §4.2)."""
    competition_by_shape: dict[str, float] = Field(default_factory=dict)
    """Revision 2's calibration dial per shape (VERTICALS.md Appendix C): the share of sessions
    carrying a topical mention of a question's subject. Empty on revision-1 sidecars."""
    shape_counts: dict[str, int] = Field(default_factory=dict)
    k_ref: int = 5
    ceiling_by_shape: dict[str, float] = Field(default_factory=dict)
    coverage_by_question: dict[str, float | None] = Field(default_factory=dict)
    separability: tuple[SeparabilityFeature, ...] = ()
    exemptions: tuple[Exemption, ...] = ()
    probe_records: tuple[ProbeRecord, ...] = ()
    difficulty_validated: bool = False
    carve_outs: dict[str, str] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)


CorpusRecords = Annotated[tuple[QuestionRecord, ...], Field(min_length=1)]
