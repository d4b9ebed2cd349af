"""The LLM judge and the hybrid judge: a model reads the answer against the key (docs/JUDGING.md).

Why a model judge at all: the mechanical judge's closed rule set cannot know every wrong value, and
says so with ``unjudged``. A model can read those answers. It is an option, never the default, and
it is held to the same contract: the prompt is a condensed JUDGING.md, the verdict is structured
JSON validated here, and anything short of a valid verdict — endpoint down, timeout, HTTP error,
invalid JSON, an outcome outside the five — is outcome ``error`` (a harness fault), **never**
``wrong``.

The prompt holds the question text, the answer key and the answer: never a corpus id, a question
id or the reserved benchmark token, so a model cannot recognise (or have memorised) the item.

:class:`HybridJudge` asks the model about what the mechanical judge left ``unjudged`` (the model
decides those) and about a seeded sample of the rest (the mechanical judge still decides those; the
model's outcome is kept as a second opinion, so the judges' agreement is measured in every hybrid
run: docs/JUDGING.md J13.14).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ..calls.endpoint import JSON_RESPONSE_FORMAT, ModelCallError, ModelEndpoint
from ..calls.json_client import ModelClient
from ..corpus.loading import RESERVED_BENCHMARK_TOKEN
from ..corpus.models import AnswerKey
from .outcomes import SUBCOUNTS, Outcome, Verdict

if TYPE_CHECKING:
    from .protocol import Judge

__all__ = ["HYBRID_SAMPLE_MIN", "HYBRID_SAMPLE_RATE", "LLM_JUDGE_VERSION", "HybridJudge", "LLMJudge",
           "LLMVerdictPayload", "hybrid_sample_rate", "in_hybrid_sample", "parse_verdict",
           "prompt_template_sha256", "render_messages"]

LLM_JUDGE_VERSION = "1"
"""Bump when the code that renders the prompt or reads the verdict changes meaning; the template
text below moves the fingerprint on its own."""
ANSWER_CHAR_LIMIT = 20_000
"""J11: text past this is not read (the same bound as the mechanical judge)."""
TRUNCATION_RETRY_FACTOR = 2
"""A verdict cut off by the token budget is asked once more with this many times the budget."""
REASON_CHAR_LIMIT = 300
"""A verdict's reason is one line in a failure text, not an essay."""

# --- the prompt (every string here is hashed into the fingerprint) ------------------------------
SYSTEM_PROMPT = """\
You grade one answer that a memory system gave to a question about a user's earlier conversations \
with it. Compare the answer with the answer key and decide one typed outcome. Judge what the answer \
commits to, not its style or length. Use only the key and the answer, never outside knowledge.

Outcomes:
- correct: the answer agrees with the key. Where the expected answer is itself a negative (the fact \
was never mentioned, is not due yet, or no longer holds), giving that negative is correct.
- wrong: the answer commits to an incorrect value or state.
- abstained: the answer declines to commit. It speaks about the system's own knowledge or the \
record: "I don't know", "I do not have that information", "I can't recall", "I'm not sure", "there \
is no record of it", "our conversations don't say", "unknown". An empty answer is abstained.
- missed: a confident negative where the key has something: "you never told me", "you have no ...", \
"there is no ...", "nothing", "none", "never", or a figure of zero where the expected figure is not \
zero.
- premature: only when the expected answer is "not yet": the answer treats the thing as already \
due, true or done.

General rules:
1. A named value beats hedging: "I think it was X", "probably X", "maybe X?" commit to X. A value \
only inside a decline's "whether ... or ..." ("I don't know whether it was X or Y") is not committed: \
that answer abstains.
2. Retracted values do not count: "not X but Y", "Y, not X", "Y rather than X", "X, sorry, Y", \
"X. Actually, Y" commit to Y only.
3. Two or more different committed values where one is right ("X or Y", "X and Y", a list of \
candidates) is wrong: the answer did not single out the right one.
4. A decline together with a committed value is judged on the value.
5. A decline and a denial in one answer is a decline (abstained).
6. Values match regardless of letter case, spacing and quote style; accepted spellings are equal."""

KIND_RULES: Mapping[str, str] = {
    "positive": """\
This question has a positive expected answer.
- correct: it commits to an accepted value (and names every "must also name" value) and to no \
other value from the key.
- If the answer's main claim is "not yet" / "it isn't due yet" / "not until ...", it is missed, \
even if it names the accepted value: here the thing is already due or true.
- Another value from the key committed: wrong. A value not in the key that answers the question \
differently: wrong. Decline: abstained. Denial: missed.""",
    "numeric": """\
This question expects a number.
- The committed figure is the concluding one: the figure after the last "=", "total", "in total", \
"altogether", "comes to", "that's" or "so"; working such as "5 + 7 = 12" and trailing context such \
as "across 6 orders" are not the answer.
- correct: the figure equals the expected value within the tolerance. An approximate figure \
("about", "roughly", "~") is correct if the expected value rounded to that figure's precision gives \
it and the figure keeps two significant figures of the expected value.
- A range ("20-22 days") or alternatives ("20 or 21") is correct only if every figure matches; \
otherwise wrong.
- Zero where the expected value is not zero: missed. No figure: decline abstained, denial missed.""",
    "list_order": """\
This question asks for items in order.
- Items count in the order of their first mention (numbered lists, bullets, arrows, "then", commas).
- correct: every required item is named, in the key's order, and no known-wrong item is listed.
- A required item missing, any two items inverted, or a known-wrong item listed: wrong.
- Decline: abstained. Denial: missed.""",
    "attribution": """\
This question asks who said or did something; the options are worded from the asker's side: \
"me" = the user, "you" = the assistant (the memory system), "both of us" = both.
- A bare option ("you", "The answer is: me") is read as the question words it.
- A sentence is read as the assistant speaking: "I did" / "it was me" = the assistant; "you did" / \
"you told me" = the user; "we both did" = both. Explicit glosses win ("you (the assistant)").
- correct: the accepted option. Another option: wrong. Options inside a decline are not read.""",
    "no_longer": """\
The expected answer: the fact NO LONGER holds. A correct answer marks it as no longer valid \
(ended, sold, cancelled, expired, replaced, used to, no longer ...) and names the value that lapsed.
- Invalidation stated and the value named: correct.
- Invalidation stated but the value not named: missed.
- Invalidation of a different value, or a different value given as the current one: wrong.
- The stale value given as current, without an invalidation ("You have X", "X, still current"), or \
"yes, it's still current" without a value: wrong with subcount "stale_recall".
- Decline: abstained. Denial without an invalidation ("you don't have one"): missed.""",
    "still": """\
The expected answer: the fact STILL holds (a control question).
- The value named without any invalidation: correct (with another committed value: wrong).
- The answer claims it no longer holds: missed with subcount "over_forgetting" (wrong with \
"over_forgetting" when it also asserts a different value).
- Another key value: wrong. "It's still current" without the value: wrong.
- Decline: abstained. Denial: missed.""",
    "abstain": """\
The expected answer: this was NEVER mentioned, so the right answer declines or denies.
- Decline or denial ("I don't know", "you never told me"): correct.
- Claiming the fact was once known and then lost ("you used to have one", "you sold it"): wrong with \
subcount "misattributed_forgetting".
- Any committed value (from the key or not): wrong.""",
    "not_yet": """\
The expected answer: NOT YET (the reminder is not due yet, or the thing has not happened, started \
or lapsed yet). Decide by the answer's governing claim, read from its first clause that carries one.
- A governing not-yet ("not yet", "not due yet", "not until ...", "nothing is due yet", "still \
valid") is correct if every "must also name" value is named; missed if one is missing; wrong if a \
different key value is committed with it.
- A governing yes ("yes, it's due", "due now", "go ahead and ...", "it has expired", "you have \
booked it"), or the premature value named as the thing to do now without any not-yet: premature.
- On a validity question, naming the current holder without any validity claim: correct.
- A denial of existence ("you never set a reminder"): missed. Decline: abstained. Another key \
value: wrong.""",
}

SUBCOUNT_RULE_ALLOWED = "subcounts: [] or the subcount named above, exactly where it says."
SUBCOUNT_RULE_NONE = "subcounts: always []."

OUTPUT_SPEC = """\
Reply with one JSON object and nothing else:
{"outcome": "correct" | "wrong" | "abstained" | "missed" | "premature", "reason": "<one short \
sentence naming the rule you applied>", "value": <the value, figure or list you read from the \
answer as committed, or null>, "subcounts": [<strings>]}
"""

USER_TEMPLATE = """\
Question asked of the memory system:
{question}

Answer key:
{key_lines}

The memory system's answer (between the markers):
<<<ANSWER
{answer}
ANSWER>>>{truncation}"""

KEY_LINES: Mapping[str, str] = {
    "accepted": "- Accepted answers (any one is right): {values}",
    "must_name": "- The answer must also name: {values}",
    "choices": "- Options the question offers: {values}",
    "wrong": "- Known wrong values (present in the conversations): {values}",
    "stale": "- Stale value (held once, no longer valid): {values}",
    "premature": "- Premature value (the thing to do once it is due): {values}",
    "numeric": "- Expected figure: {value}{unit}, {tolerance}",
    "list_order": "- Items in the expected order: {values}",
    "surfaced": "- Only these items reached the system; grade presence and order among them: {values}",
    "no_longer": "- Expected answer: the fact no longer holds",
    "still": "- Expected answer: the fact still holds",
    "abstain": "- Expected answer: it was never mentioned (decline or deny)",
    "not_yet": "- Expected answer: not yet",
    "no_question": "(the question text was not given)",
    "truncated": "\n(The answer was cut at {limit} characters; text past that is not judged.)",
    "tolerance_exact": "exact",
    "tolerance_within": "within ±{tolerance:g}",
}

RESPONSE_FORMAT = JSON_RESPONSE_FORMAT["type"]
"""Asked of the server; a server's refusal of it does not move the fingerprint (README "Judging":
the prompt demands the same JSON object and the same validation reads it either way)."""

_RESERVED = re.compile(re.escape(RESERVED_BENCHMARK_TOKEN), re.IGNORECASE)
_REDACTION = "[benchmark]"


def prompt_template_sha256() -> str:
    """sha256 of every template string the prompt is built from."""
    blob = json.dumps({"version": LLM_JUDGE_VERSION, "system": SYSTEM_PROMPT, "kinds": dict(KIND_RULES),
                       "subcounts": [SUBCOUNT_RULE_ALLOWED, SUBCOUNT_RULE_NONE], "output": OUTPUT_SPEC,
                       "user": USER_TEMPLATE, "key_lines": dict(KEY_LINES),
                       "answer_char_limit": ANSWER_CHAR_LIMIT}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def llm_fingerprint(model: str, temperature: float = 0.0) -> str:
    """sha256 over (model, prompt template hash, sampling): a different model, prompt or sampling is
    a different judge, and its verdicts must never pool with another's. The endpoint's URL is not
    in it: the model name is what names the model, and a proxy in front of it changes nothing."""
    blob = json.dumps({"judge": "llm", "model": model, "prompt_template_sha256": prompt_template_sha256(),
                       "sampling": {"temperature": temperature, "response_format": RESPONSE_FORMAT}},
                      sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# --- rendering ----------------------------------------------------------------------------------
def key_kind(key: AnswerKey) -> str:
    """Which rule section applies: a negative gold first, then the shape of the positive key."""
    if key.expected_negative is not None:
        return key.expected_negative
    if key.numeric is not None:
        return "numeric"
    if key.list_order is not None:
        return "list_order"
    if key.choices:
        return "attribution"
    return "positive"


def _quoted(values: Sequence[str]) -> str:
    return "; ".join(json.dumps(v, ensure_ascii=False) for v in values)


def _key_lines(key: AnswerKey, surfaced_items: frozenset[str] | None) -> list[str]:
    lines: list[str] = []
    for name in ("accepted", "must_name", "choices", "wrong", "stale", "premature"):
        values: tuple[str, ...] = getattr(key, name)
        if values:
            lines.append(KEY_LINES[name].format(values=_quoted(values)))
    if key.numeric is not None:
        tolerance = (KEY_LINES["tolerance_exact"] if key.numeric.tolerance == 0
                     else KEY_LINES["tolerance_within"].format(tolerance=key.numeric.tolerance))
        lines.append(KEY_LINES["numeric"].format(value=f"{key.numeric.value:g}",
                                                 unit=f" {key.numeric.unit}" if key.numeric.unit else "",
                                                 tolerance=tolerance))
    if key.list_order is not None:
        lines.append(KEY_LINES["list_order"].format(
            values=" -> ".join(json.dumps(v, ensure_ascii=False) for v in key.list_order)))
        if surfaced_items is not None:
            lines.append(KEY_LINES["surfaced"].format(
                values=_quoted([item for item in key.list_order if item in surfaced_items]) or "(none)"))
    if key.expected_negative is not None:
        lines.append(KEY_LINES[key.expected_negative])
    return lines


def render_messages(answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None, *,
                    question: str | None = None) -> list[dict[str, str]]:
    """The chat messages for one verdict: the contract as the system message, the case as the user's.

    Only the question text, the key's values and the answer go in: no corpus or question id. The
    reserved benchmark token is redacted wherever it appears (an adapter's answer may carry it).
    """
    kind = key_kind(key)
    subcount_rule = SUBCOUNT_RULE_ALLOWED if kind in ("no_longer", "still", "abstain") else SUBCOUNT_RULE_NONE
    system = "\n\n".join((SYSTEM_PROMPT, KIND_RULES[kind], OUTPUT_SPEC + subcount_rule))
    truncated = len(answer) > ANSWER_CHAR_LIMIT
    user = USER_TEMPLATE.format(
        question=question.strip() if question else KEY_LINES["no_question"],
        key_lines="\n".join(_key_lines(key, surfaced_items)),
        answer=answer[:ANSWER_CHAR_LIMIT],
        truncation=KEY_LINES["truncated"].format(limit=ANSWER_CHAR_LIMIT) if truncated else "",
    )
    return [{"role": "system", "content": _RESERVED.sub(_REDACTION, system)},
            {"role": "user", "content": _RESERVED.sub(_REDACTION, user)}]


# --- reading the verdict ------------------------------------------------------------------------
# Spelled out for pydantic; tests/test_llm_judge.py checks they equal JUDGED_OUTCOMES and SUBCOUNTS.
JudgedLabel = Literal["correct", "wrong", "abstained", "missed", "premature"]
SubcountLabel = Literal["stale_recall", "over_forgetting", "misattributed_forgetting"]


class LLMVerdictPayload(BaseModel):
    """The JSON object a model must return.

    Unknown extra keys are ignored rather than refused: a model that adds ``"confidence"`` has
    still said everything the verdict needs, and refusing it would turn a readable verdict into an
    error. An outcome outside the five, or a missing one, is refused (→ ``error``).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    outcome: JudgedLabel
    reason: str = ""
    value: Any = None
    """Informational (shown in the reason), so any JSON value is accepted."""
    subcounts: tuple[SubcountLabel, ...] = ()

    @field_validator("outcome", mode="before")
    @classmethod
    def _fold_case(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("reason", mode="before")
    @classmethod
    def _null_is_blank(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("subcounts", mode="before")
    @classmethod
    def _known_subcounts_only(cls, value: Any) -> Any:
        """Unknown sub-count labels are dropped like unknown keys: a model that writes ``["none"]``
        beside a valid outcome has still given a verdict (the contract drops disallowed ones too)."""
        if value is None:
            return ()
        if isinstance(value, list | tuple):
            return tuple(v for v in value if v in SUBCOUNTS)
        return value


def _allowed_subcounts(key: AnswerKey, outcome: Outcome) -> frozenset[str]:
    """J10: sub-counts exist exactly where J5 sets them; a model cannot add them elsewhere."""
    negative = key.expected_negative
    if negative == "no_longer" and outcome is Outcome.WRONG:
        return frozenset({"stale_recall"})
    if negative == "still" and outcome in (Outcome.MISSED, Outcome.WRONG):
        return frozenset({"over_forgetting"})
    if negative == "abstain" and outcome is Outcome.WRONG:
        return frozenset({"misattributed_forgetting"})
    return frozenset()


def _one_line(text: str, limit: int = REASON_CHAR_LIMIT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _error(reason: str) -> Verdict:
    return Verdict(Outcome.ERROR, _one_line(f"llm judge error: {reason}"))


def parse_verdict(data: Mapping[str, Any], key: AnswerKey) -> Verdict:
    """Validate a model's JSON verdict against the schema and the contract; invalid → ``error``."""
    try:
        payload = LLMVerdictPayload.model_validate(dict(data))
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'verdict'}: {e['msg']}"
                             for e in error.errors())
        return _error(f"invalid verdict ({problems}): {json.dumps(data, ensure_ascii=False)[:120]}")
    outcome = Outcome(payload.outcome)
    if outcome is Outcome.PREMATURE and key.expected_negative != "not_yet":
        return _error("the model answered 'premature', which the contract allows only where the "
                      "expected answer is 'not yet'")
    allowed = _allowed_subcounts(key, outcome)
    kept = frozenset(s for s in payload.subcounts if s in allowed)
    dropped = sorted(set(payload.subcounts) - kept)
    reason = payload.reason.strip() or "(no reason given)"
    if payload.value is not None:
        reason += f" [read: {json.dumps(payload.value, ensure_ascii=False)}]"
    if dropped:
        reason += f" [dropped sub-count(s) the contract does not allow here: {', '.join(dropped)}]"
    return Verdict(outcome, _one_line(reason), kept)


# --- the judges ---------------------------------------------------------------------------------
class LLMJudge:
    """Grades with a model over an OpenAI-compatible endpoint.

    ``second_opinion`` (the mechanical judge, in ``--tme-judge llm``) is run on every answer too —
    it costs nothing — and its outcome rides on the verdict as ``mechanical_outcome``, so the
    report can show how often the two agree.
    """

    name = "llm"

    def __init__(self, endpoint: ModelEndpoint, *, second_opinion: Judge | None = None,
                 client: ModelClient | None = None) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self.fingerprint: str = llm_fingerprint(endpoint.model, endpoint.temperature)
        self.second_opinion = second_opinion
        self._client = client or ModelClient(endpoint)

    def judge(self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None,
              *, question: str | None = None) -> Verdict:
        verdict = self._ask(answer, key, surfaced_items, question)
        if self.second_opinion is None:
            return verdict
        mechanical = self.second_opinion.judge(answer, key, surfaced_items, question=question)
        return Verdict(verdict.outcome, verdict.reason, verdict.subcounts,
                       mechanical_outcome=mechanical.outcome)

    def _ask(self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None,
             question: str | None) -> Verdict:
        messages = render_messages(answer, key, surfaced_items, question=question)
        try:
            try:
                reply = self._client.complete_json(messages)
            except ModelCallError as error:
                if error.kind != "truncated":
                    raise
                # A verdict cut off by the token budget (a small model writing its reasoning
                # first) is asked once more with twice the room before it is an error (J13.14).
                reply = self._client.complete_json(
                    messages, max_tokens=TRUNCATION_RETRY_FACTOR * self._client.max_tokens)
        except ModelCallError as error:
            return _error(f"{error.kind}: {error.reason}")
        return parse_verdict(reply.data, key)

    def close(self) -> None:
        """Release the HTTP client (the session calls this at its end)."""
        self._client.close()


HYBRID_SAMPLE_RATE = 0.05
HYBRID_SAMPLE_MIN = 20
"""The hybrid judge's self-measurement (J13.14): 5 % of the questions, and at least 20 expected over
the loaded corpora (:func:`hybrid_sample_rate`)."""
_SAMPLE_CONSTANT = "typedmemeval-hybrid-sample-v1"


def hybrid_sample_rate(questions_loaded: int) -> float:
    """The share of questions whose mechanically judged answers also go to the model: 5 %, raised so
    that at least :data:`HYBRID_SAMPLE_MIN` are expected over ``questions_loaded`` (every question of
    the loaded corpora, not the selection, so -k, -m and sharding never move it)."""
    if questions_loaded <= 0:
        return HYBRID_SAMPLE_RATE
    return min(1.0, max(HYBRID_SAMPLE_RATE, HYBRID_SAMPLE_MIN / questions_loaded))


def in_hybrid_sample(question: str | None, key: AnswerKey, rate: float) -> bool:
    """Whether this *question* (its text and key, never the answer: what a system says cannot move
    it in or out) is in the seeded sample: sha256 of a fixed constant, the question and the key,
    read as a number in [0, 1), below ``rate``."""
    blob = json.dumps([_SAMPLE_CONSTANT, question or "", key.model_dump(mode="json")],
                      sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(blob.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < rate


class HybridJudge:
    """The mechanical judge first; the model for answers the mechanical judge left ``unjudged`` —
    the answers its closed rule set cannot read — and, as a second opinion only, for a seeded
    sample of the others (:func:`in_hybrid_sample`). Every verdict but the unjudged ones' is the
    mechanical one, so a hybrid run costs one model call per unreadable answer plus the sample."""

    name = "hybrid"

    def __init__(self, mechanical: Judge, llm: LLMJudge, *,
                 sample_rate: float = HYBRID_SAMPLE_RATE) -> None:
        """``llm`` should carry no ``second_opinion``: the mechanical verdict is already at hand.
        ``sample_rate`` (0 turns the sample off) is not in the fingerprint: it changes no verdict."""
        self.mechanical = mechanical
        self.llm = llm
        self.sample_rate = sample_rate
        self.model = llm.model
        self.fingerprint: str = hashlib.sha256(json.dumps(
            {"judge": "hybrid", "mechanical": mechanical.fingerprint, "llm": llm.fingerprint},
            sort_keys=True).encode("utf-8")).hexdigest()

    def judge(self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None,
              *, question: str | None = None) -> Verdict:
        first: Verdict = self.mechanical.judge(answer, key, surfaced_items, question=question)
        if first.outcome is not Outcome.UNJUDGED:
            second_opinion = None
            if in_hybrid_sample(question, key, self.sample_rate):
                second_opinion = self.llm.judge(answer, key, surfaced_items, question=question).outcome
            return Verdict(first.outcome, f"mechanical: {first.reason}", first.subcounts,
                           model_outcome=second_opinion)
        second = self.llm.judge(answer, key, surfaced_items, question=question)
        return Verdict(second.outcome, _one_line(f"llm (mechanical unjudged): {second.reason}", 600),
                       second.subcounts, mechanical_outcome=Outcome.UNJUDGED)

    def close(self) -> None:
        self.llm.close()
