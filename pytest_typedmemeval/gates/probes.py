"""Acceptance from recorded probe arms (GATES.md §5, VERTICALS.md §3): gate ``probes``.

Recorded model outputs are *data*; every threshold is a constant below. A sidecar can record
verdicts, never relax a bar.

Per shape, over the shape's questions that have gold: V1 (gold only), V8 (whole haystack), V9 (BM25
top K_ref) as the share of ``correct`` among all recorded verdicts (every sample counts), the
headroom V1 − V9, the reachable headroom V8 − V9, the interference cost V1 − V8, and the label
*reasoning-limited* (V1 − V8 >= 0.15, Appendix A) or *retrieval-limited*. Over the questions
without gold: V10 (whole haystack) and V11 (BM25 top K_ref) graded on commitment, each question
clean only when every one of its draws abstains; ``discriminates`` is published as ``null`` with
its reason (§3.1).

Rules: ``v1_floor``, ``headroom``, ``exemption_bar``, ``stale_exemption``, ``unknown_exemption``,
``abstention``, ``pair_discrimination``, ``record_mismatch``, ``provenance``, ``not_measured``.

Applicability is decided from the corpus alone: a shape with gold questions needs V1, V8 and V9; a
shape with gold-less questions needs V10 and V11; a vertical with ``pair_id`` s needs a pair figure.
An applicable arm without a usable record is *not measured* — published as a row with its reason
and question ids. The gate is then ``skipped`` with that reason, or ``refused`` by rule
``not_measured`` under ``require_probes``; it never reads as passed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..corpus.loading import Corpus
from ..corpus.models import ProbeRecord, ProbeVerdict, QuestionRecord
from .declarations import Declared, VerticalDeclarations, declarations_for
from .result import GateResult, GateStatus, Refusal, SelfTestCase, control_case, defect_case

GATE = "probes"

# --- constants (each says where it comes from) -------------------------------------------------

V1_FLOOR = Fraction(90, 100)
"""Healthy V1 per shape (Appendix A; VERTICALS.md §3.5.1)."""
HEADROOM_FLOOR = Fraction(15, 100)
"""V1 − V9 needed to accept a shape (§3.5.1: the natural gap in the measured data)."""
REASONING_LIMITED_CUT = Fraction(15, 100)
"""Reasoning-limited when V1 − V8 >= this, else retrieval-limited (Appendix A)."""
READER_BAR = Fraction(30, 100)
"""``ScoredOnTheReader``: V8 − chance must reach this (§3.5.4)."""
PAIR_HEADROOM_FLOOR = Fraction(15, 100)
PAIR_SEPARATION_FLOOR = 2.0
"""Pair figure (Appendix A): a paired vertical discriminates when pair headroom >= 0.15 and
headroom / SE >= 2.0."""
ABSTENTION_DRAWS = 3
"""V10 / V11: three draws per question, every one must abstain (§3.1)."""

GOLD_ARMS: tuple[str, ...] = ("V1", "V8", "V9")
GOLDLESS_ARMS: tuple[str, ...] = ("V10", "V11")
OTHER_ARMS: frozenset[str] = frozenset({"V2", "V3", "V6"})
"""Recorded by the same runner but judged elsewhere (per-question discards, V6 scope)."""

CORRECT = "correct"
SCORED_OUTCOMES: frozenset[str] = frozenset({"correct", "wrong", "abstained", "missed", "premature"})
"""V1/V8/V9 verdicts on the outcome axis (VERTICALS.md §5.1). Anything else — ``error``, an
unparseable judge output, an empty string — is unscored, and an arm with unscored verdicts is not
measured for those questions: a harness failure must not count as a wrong answer (that would
understate V9 and manufacture headroom) nor be dropped silently."""
ABSTAIN_OUTCOMES: frozenset[str] = frozenset({"abstain", "abstained"})
COMMIT_OUTCOMES: frozenset[str] = frozenset({"commit", "committed"})
"""V10/V11 one-word commitment grades (§3.1). ``correct``/``wrong`` are deliberately not read here:
the commitment grade must not depend on answer equivalence."""

SCORED_ON_THE_READER = "ScoredOnTheReader"
PAIRED_CONTROL = "PairedControl"
KNOWN_EXEMPTIONS: frozenset[str] = frozenset({SCORED_ON_THE_READER, PAIRED_CONTROL})
"""Exemptions with a bar of their own (§3.5.4). Any other name is a bypass and is refused."""

CHANCE_OPTIONS_ATTRIBUTE = "chance_options"
"""Where ``ScoredOnTheReader`` finds k, the number of closed-choice options (chance = 1/k):

1. the generator's declarations on every gold question of the shape (§3.2: "declarations from the
   generator win over the detector"): k_q = len(answer_key.choices), the options the question
   lists, or len(candidates), the competing options in the haystack — the smaller when both;
2. a ``chance_options: int`` attribute on the declaration itself, when ``Declared`` carries one.

``answer_key.accepted`` is *not* a source: its entries are spellings of one gold, not competing
options. When both sources exist the larger chance (smaller k) is used, and across questions the
largest 1/k_q rather than the mean — the stricter bar. With neither, the exemption cannot hold its bar and is refused
(``exemption_bar``), never waved through."""

NO_GOLD_DISCRIMINATES_REASON = (
    "both abstention arms are one reference model under two contexts with no baseline system "
    "between them: true would assert a separation never observed, false would condemn the shape "
    "on irrelevant evidence (VERTICALS.md §3.1)"
)


# --- data shapes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NotMeasured:
    """An applicable arm that produced no usable figure, with the ids it leaves unscored."""

    shape: str
    arm: str
    reason: str
    question_ids: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"shape": self.shape, "arm": self.arm, "reason": self.reason,
                "question_ids": list(self.question_ids)}


@dataclass
class _ArmData:
    """Verdicts of one (shape, arm) pooled over its records, with what blocks a figure."""

    samples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    models: set[str] = field(default_factory=set)
    judges: set[str] = field(default_factory=set)
    """Who graded: a judge fingerprint, or ``mechanical`` for records that name none."""
    not_measured_reasons: list[str] = field(default_factory=list)
    records: int = 0


def _share(numerator: int, denominator: int) -> Fraction | None:
    return Fraction(numerator, denominator) if denominator else None


def _num(value: Fraction | float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def _arm_name(arm: str) -> str:
    return arm.strip().upper()


# --- the gate ----------------------------------------------------------------------------------


class _Gate:
    def __init__(self, corpus: Corpus, declared: VerticalDeclarations) -> None:
        self.corpus = corpus
        self.declared = declared
        self.vertical = corpus.vertical
        self.refusals: list[Refusal] = []
        self.not_measured: list[NotMeasured] = []
        self.notes: list[str] = []
        self.shape_gold: dict[str, list[str]] = defaultdict(list)
        self.shape_goldless: dict[str, list[str]] = defaultdict(list)
        self.question_shape: dict[str, str] = {}
        self.records_by_id: dict[str, QuestionRecord] = {}
        for record in corpus.records:
            self.question_shape[record.question_id] = record.shape
            self.records_by_id[record.question_id] = record
            target = self.shape_gold if record.answer_session_ids else self.shape_goldless
            target[record.shape].append(record.question_id)
        self.shapes = list(dict.fromkeys(record.shape for record in corpus.records))
        self.shape_set = frozenset(self.shapes)

    def refuse(self, rule: str, subject: str, value: float | int | str | None, detail: str,
               shape: str | None = None) -> None:
        self.refusals.append(Refusal(rule, subject, value, detail, vertical=self.vertical, shape=shape))

    # -- records ------------------------------------------------------------------------------

    def applicable_ids(self, shape: str, arm: str) -> list[str]:
        if arm in GOLD_ARMS:
            return self.shape_gold.get(shape, [])
        if arm in GOLDLESS_ARMS:
            return self.shape_goldless.get(shape, [])
        return []

    def collect(self, records: Iterable[ProbeRecord]) -> dict[tuple[str, str], _ArmData]:
        arms: dict[tuple[str, str], _ArmData] = defaultdict(_ArmData)
        seen_samples: set[tuple[str, str, int]] = set()
        for record in records:
            arm = _arm_name(record.arm)
            if arm in OTHER_ARMS:
                continue
            if arm not in GOLD_ARMS and arm not in GOLDLESS_ARMS:
                self.refuse("record_mismatch", record.shape, record.arm,
                            f"probe record for unknown arm {record.arm!r}; this gate reads "
                            f"{', '.join(GOLD_ARMS + GOLDLESS_ARMS)} (and ignores V2/V3/V6)")
                continue
            if record.shape not in self.shape_set:
                self.refuse("record_mismatch", record.shape, arm,
                            "probe record for a shape this corpus does not have (stale sidecar?)",
                            shape=record.shape)
                continue
            applicable = set(self.applicable_ids(record.shape, arm))
            if not applicable:
                kind = "gold" if arm in GOLD_ARMS else "gold-less"
                self.refuse("record_mismatch", record.shape, arm,
                            f"{arm} record but the shape has no {kind} questions: the runner chose "
                            f"its own scope", shape=record.shape)
                continue
            data = arms[(record.shape, arm)]
            data.records += 1
            if record.status == "not_measured":
                data.not_measured_reasons.append(
                    f"recorded as not_measured: {record.reason or 'no reason given'}")
                continue
            missing = [name for name in ("model", "date", "seed", "temperature")
                       if getattr(record, name) is None]
            if missing:
                self.refuse("provenance", record.shape, arm,
                            f"measured {arm} record lacks {', '.join(missing)}; a probe is rerunnable "
                            f"only with model, date, seed and temperature (§3)", shape=record.shape)
            if record.model is not None:
                data.models.add(record.model)
            data.judges.add(record.judge or "mechanical")
            if not record.verdicts:
                data.not_measured_reasons.append("measured record with an empty verdict list")
            for verdict in record.verdicts:
                self._take(record.shape, arm, verdict, applicable, data, seen_samples)
        return arms

    def _take(self, shape: str, arm: str, verdict: ProbeVerdict, applicable: set[str],
              data: _ArmData, seen: set[tuple[str, str, int]]) -> None:
        if verdict.question_id not in applicable:
            where = self.question_shape.get(verdict.question_id)
            detail = ("names no question of this corpus" if where is None else
                      f"is in shape {where!r}" if where != shape else
                      f"is not a {'gold' if arm in GOLD_ARMS else 'gold-less'} question")
            self.refuse("record_mismatch", verdict.question_id, arm,
                        f"{arm} verdict for shape {shape!r}: the question {detail}", shape=shape)
            return
        key = (arm, verdict.question_id, verdict.sample)
        if key in seen:
            self.refuse("record_mismatch", verdict.question_id, arm,
                        f"sample {verdict.sample} recorded twice; pooling would double-count it",
                        shape=shape)
            return
        seen.add(key)
        data.samples[verdict.question_id].append(verdict.outcome.strip().lower())

    # -- one arm ------------------------------------------------------------------------------

    def arm_figure(self, shape: str, arm: str, data: _ArmData | None) -> Fraction | None:
        """The arm's share, or ``None`` (with a not-measured row) when it cannot be computed."""
        ids = self.applicable_ids(shape, arm)
        if data is None or data.records == 0:
            self.not_measured.append(NotMeasured(shape, arm, "no probe record", tuple(ids)))
            return None
        if data.not_measured_reasons:
            self.not_measured.append(NotMeasured(shape, arm, "; ".join(dict.fromkeys(
                data.not_measured_reasons)), tuple(ids)))
            return None
        vocabulary = SCORED_OUTCOMES if arm in GOLD_ARMS else ABSTAIN_OUTCOMES | COMMIT_OUTCOMES
        unscored = [qid for qid in ids if any(o not in vocabulary for o in data.samples.get(qid, []))]
        absent = [qid for qid in ids if not data.samples.get(qid)]
        short = [] if arm in GOLD_ARMS else [
            qid for qid in ids if 0 < len(data.samples.get(qid, [])) < ABSTENTION_DRAWS]
        problems = []
        if absent:
            problems.append(f"no verdict for {len(absent)} of {len(ids)} question(s)")
        if unscored:
            problems.append(f"unscored verdicts (outside {sorted(vocabulary)}) for "
                            f"{len(unscored)} question(s)")
        if short:
            problems.append(f"fewer than {ABSTENTION_DRAWS} draws for {len(short)} question(s)")
        if problems:
            self.not_measured.append(NotMeasured(shape, arm, "; ".join(problems),
                                                 tuple(dict.fromkeys(absent + unscored + short))))
            return None
        if arm in GOLD_ARMS:
            outcomes = [o for qid in ids for o in data.samples[qid]]
            return _share(sum(o == CORRECT for o in outcomes), len(outcomes))
        clean = [qid for qid in ids if all(o in ABSTAIN_OUTCOMES for o in data.samples[qid])]
        return _share(len(clean), len(ids))

    # -- chance and exemptions ----------------------------------------------------------------

    def chance(self, shape: str, exemption: Declared) -> tuple[Fraction | None, str]:
        sources: list[tuple[Fraction, str]] = []
        ks: list[int] = []
        for qid in self.shape_gold.get(shape, []):
            block = self.records_by_id[qid].typedmemeval
            options = [k for k in (len(block.answer_key.choices), len(block.candidates or ())) if k]
            if not options:
                ks = []
                break
            ks.append(min(options))
        if ks:
            sources.append((max(Fraction(1, k) for k in ks),
                            f"choices/candidates declared by the generator (k {min(ks)}..{max(ks)})"))
        declared_k = getattr(exemption, CHANCE_OPTIONS_ATTRIBUTE, None)
        if isinstance(declared_k, int) and declared_k > 0:
            sources.append((Fraction(1, declared_k), f"{CHANCE_OPTIONS_ATTRIBUTE}={declared_k} on the exemption"))
        if not sources:
            return None, ("no chance floor: neither choices/candidates on every gold question nor "
                          "chance_options on the exemption")
        return max(sources)

    def exemptions_by_shape(self) -> dict[str, list[Declared]]:
        out: dict[str, list[Declared]] = defaultdict(list)
        for exemption in self.declared.probe_exemptions:
            if exemption.name not in KNOWN_EXEMPTIONS:
                self.refuse("unknown_exemption", exemption.name, None,
                            f"probe exemption {exemption.name!r} has no bar of its own "
                            f"(known: {sorted(KNOWN_EXEMPTIONS)}); an exemption without a bar is "
                            f"a bypass (§3.5.4)")
                continue
            for shape in exemption.shapes or ():
                if shape not in self.shape_gold:
                    self.refuse("stale_exemption", exemption.name, shape,
                                "declared for a shape with no gold questions in this corpus; "
                                "delete it (§3.6)", shape=shape)
                    continue
                out[shape].append(exemption)
            if not exemption.shapes:
                self.refuse("stale_exemption", exemption.name, None,
                            "declared for no shape; an exemption must name what it covers")
        return out

    # -- pairs --------------------------------------------------------------------------------

    def pair_figure(self, arms: Mapping[tuple[str, str], _ArmData],
                    measured_arms: set[tuple[str, str]]) -> dict[str, Any] | None:
        """Appendix A pair figure over the corpus's pairs, or ``None`` when the corpus has none."""
        members: dict[str, list[str]] = defaultdict(list)
        for record in self.corpus.records:
            if record.typedmemeval.pair_id:
                members[record.typedmemeval.pair_id].append(record.question_id)
        if not members:
            return None
        complete = {pid: ids for pid, ids in sorted(members.items()) if len(ids) == 2}
        incomplete = sorted(pid for pid, ids in members.items() if len(ids) != 2)
        figure: dict[str, Any] = {"pairs": len(complete), "pairs_incomplete": incomplete,
                                  "definition": "a pair counts when both arms are correct on every "
                                  "sample; headroom = pair rate V1 - pair rate V9; SE of a paired "
                                  "difference (discordant form) = sqrt(b + c - (b - c)^2 / n) / n",
                                  "discriminates": None}
        if incomplete:
            self.notes.append(f"pairs_incomplete (arms never came together in the corpus): "
                              f"{', '.join(incomplete)}")

        def correct(arm: str, qid: str) -> bool | None:
            shape = self.question_shape[qid]
            if (shape, arm) not in measured_arms:
                return None
            return all(o == CORRECT for o in arms[(shape, arm)].samples.get(qid, []))

        unmeasured = [pid for pid, ids in complete.items()
                      if any(correct(arm, qid) is None for arm in ("V1", "V9") for qid in ids)]
        if not complete or unmeasured:
            reason = ("no complete pair" if not complete else
                      f"V1 or V9 not measured for {len(unmeasured)} pair(s)")
            ids = tuple(qid for pid in (unmeasured or incomplete) for qid in members[pid])
            self.not_measured.append(NotMeasured("(pairs)", "pair figure", reason, ids))
            figure["not_measured"] = reason
            return figure
        n = len(complete)
        both = {arm: {pid: all(correct(arm, qid) for qid in ids) for pid, ids in complete.items()}
                for arm in ("V1", "V9")}
        b = sum(both["V1"][pid] and not both["V9"][pid] for pid in complete)
        c = sum(both["V9"][pid] and not both["V1"][pid] for pid in complete)
        rate_v1 = Fraction(sum(both["V1"].values()), n)
        rate_v9 = Fraction(sum(both["V9"].values()), n)
        headroom = rate_v1 - rate_v9
        variance = b + c - Fraction((b - c) ** 2, n)
        se = math.sqrt(variance) / n if variance > 0 else 0.0
        if se > 0:
            separation = float(headroom) / se
        else:
            separation = math.inf if headroom > 0 else 0.0
        discriminates = headroom >= PAIR_HEADROOM_FLOOR and separation >= PAIR_SEPARATION_FLOOR
        figure.update({"pair_rate_v1": _num(rate_v1), "pair_rate_v9": _num(rate_v9),
                       "pair_headroom": _num(headroom), "se": round(se, 4),
                       "separation_sd": separation if math.isinf(separation) else round(separation, 3),
                       "discordant_b": b, "discordant_c": c, "discriminates": discriminates})
        if not discriminates:
            self.refuse("pair_discrimination", self.vertical or self.corpus.corpus_id,
                        _num(headroom), f"pair headroom {float(headroom):.3f} (floor "
                        f"{float(PAIR_HEADROOM_FLOOR)}), separation {separation:.2f} sd (floor "
                        f"{PAIR_SEPARATION_FLOOR}) over {n} pair(s)")
        return figure

    # -- per shape ----------------------------------------------------------------------------

    def run(self, require_probes: bool) -> GateResult:
        records = self.corpus.sidecar.probe_records if self.corpus.sidecar is not None else ()
        arms = self.collect(records)
        exemptions = self.exemptions_by_shape()
        rows: dict[str, dict[str, Any]] = {}
        measured_arms: set[tuple[str, str]] = set()
        figures: dict[tuple[str, str], Fraction | None] = {}
        for shape in self.shapes:
            for arm in GOLD_ARMS + GOLDLESS_ARMS:
                if self.applicable_ids(shape, arm):
                    value = self.arm_figure(shape, arm, arms.get((shape, arm)))
                    figures[(shape, arm)] = value
                    if value is not None:
                        measured_arms.add((shape, arm))
            models = set().union(*(arms[(shape, a)].models for a in GOLD_ARMS if (shape, a) in arms))
            if len(models) > 1:
                self.refuse("record_mismatch", shape, ", ".join(sorted(models)),
                            "V1/V8/V9 recorded with different reference models; headroom across "
                            "models measures the models, not the shape", shape=shape)
            judges = set().union(*(arms[(shape, a)].judges for a in GOLD_ARMS if (shape, a) in arms))
            if len(judges) > 1:
                self.refuse("record_mismatch", shape, ", ".join(sorted(j[:12] for j in judges)),
                            "V1/V8/V9 graded by different judges; headroom across judges measures "
                            "the judges, not the shape", shape=shape)
        pair_figure = self.pair_figure(arms, measured_arms)
        pair_discriminates = None if pair_figure is None else pair_figure.get("discriminates")
        applied: list[dict[str, Any]] = []
        for shape in self.shapes:
            row: dict[str, Any] = {"questions": len(self.shape_gold.get(shape, [])) +
                                   len(self.shape_goldless.get(shape, []))}
            if self.shape_gold.get(shape):
                row.update(self.gold_row(shape, figures, exemptions.get(shape, []),
                                         pair_discriminates, applied))
            if self.shape_goldless.get(shape):
                no_gold = self.goldless_row(shape, figures, arms)
                # A mixed shape keeps its gold figures flat and its abstention arms apart, so
                # ``discriminates`` of the gold part is not overwritten by the gold-less null.
                if self.shape_gold.get(shape):
                    row["no_gold"] = no_gold
                else:
                    row.update(no_gold)
            rows[shape] = row
        return self.result(rows, pair_figure, applied, require_probes)

    def gold_row(self, shape: str, figures: Mapping[tuple[str, str], Fraction | None],
                 exemptions: Sequence[Declared], pair_discriminates: bool | None,
                 applied: list[dict[str, Any]]) -> dict[str, Any]:
        v1, v8, v9 = (figures.get((shape, arm)) for arm in GOLD_ARMS)
        headroom = v1 - v9 if v1 is not None and v9 is not None else None
        interference = v1 - v8 if v1 is not None and v8 is not None else None
        row: dict[str, Any] = {
            "gold_questions": len(self.shape_gold[shape]),
            "V1": _num(v1), "V8": _num(v8), "V9": _num(v9),
            "headroom_perfect_selector": _num(headroom),
            "reachable_headroom": _num(v8 - v9 if v8 is not None and v9 is not None else None),
            "interference_cost": _num(interference),
            "limited_by": (None if interference is None else
                           "reasoning" if interference >= REASONING_LIMITED_CUT else "retrieval"),
            "discriminates": None if headroom is None else headroom >= HEADROOM_FLOOR,
        }
        failures: list[tuple[str, Fraction, str]] = []
        if v1 is not None and v1 < V1_FLOOR:
            failures.append(("v1_floor", v1, f"V1 {float(v1):.3f} below the healthy floor "
                             f"{float(V1_FLOOR)}: the shape is not answerable from its gold"))
        if headroom is not None and headroom < HEADROOM_FLOOR:
            failures.append(("headroom", headroom, f"V1 − V9 = {float(headroom):.3f} below "
                             f"{float(HEADROOM_FLOOR)}: BM25 top-K_ref already answers it, so the "
                             f"shape does not measure memory selection"))
        normal = False if failures else (True if headroom is not None and v1 is not None else None)
        bars: list[tuple[Declared, bool | None, str]] = []
        for exemption in exemptions:
            bars.append((exemption, *self.exemption_bar(shape, exemption, v8, pair_discriminates)))
        held = [(e, detail) for e, ok, detail in bars if ok]
        accepted: bool | None
        if normal:
            accepted = True
            for exemption, _, _ in bars:
                self.refuse("stale_exemption", exemption.name, shape,
                            "the shape passes V1 >= 0.90 and V1 − V9 >= 0.15 without it; delete "
                            "the exemption (§3.6)", shape=shape)
        elif held:
            accepted = True
            exemption, detail = held[0]
            applied.append({"shape": shape, "exemption": exemption.name, "bar": detail,
                            "reason": exemption.reason})
            row["exemption"] = {"name": exemption.name, "bar": detail}
        elif normal is False and not any(ok is None for _, ok, _ in bars):
            accepted = False
            for rule, value, detail in failures:
                self.refuse(rule, shape, _num(value), detail, shape=shape)
            for exemption, _, detail in bars:
                self.refuse("exemption_bar", exemption.name, shape, detail, shape=shape)
        else:
            accepted = None
            if normal is False:
                self.notes.append(f"{shape}: fails the default bar "
                                  f"({', '.join(r for r, _, _ in failures)}); its exemption's bar "
                                  f"is not measured")
        row["accepted"] = accepted
        return row

    def exemption_bar(self, shape: str, exemption: Declared, v8: Fraction | None,
                      pair_discriminates: bool | None) -> tuple[bool | None, str]:
        if exemption.name == SCORED_ON_THE_READER:
            chance, source = self.chance(shape, exemption)
            if chance is None:
                return False, f"{SCORED_ON_THE_READER} cannot hold its bar: {source}"
            if v8 is None:
                return None, f"V8 not measured (chance {float(chance):.3f} from {source})"
            margin = v8 - chance
            return (margin >= READER_BAR,
                    f"V8 − chance = {float(v8):.3f} − {float(chance):.3f} = {float(margin):.3f} "
                    f"(bar {float(READER_BAR)}; chance from {source})")
        if pair_discriminates is None:
            return None, "pair figure not measured (or the corpus has no pairs)"
        return pair_discriminates, f"pair figure discriminates: {pair_discriminates}"

    def goldless_row(self, shape: str, figures: Mapping[tuple[str, str], Fraction | None],
                     arms: Mapping[tuple[str, str], _ArmData]) -> dict[str, Any]:
        row: dict[str, Any] = {"goldless_questions": len(self.shape_goldless[shape]),
                               "discriminates": None,
                               "discriminates_reason": NO_GOLD_DISCRIMINATES_REASON}
        sweep: bool | None = True
        for arm in GOLDLESS_ARMS:
            value = figures.get((shape, arm))
            row[arm] = _num(value)
            if value is None:
                sweep = None if sweep is not False else False
                continue
            data = arms[(shape, arm)]
            commits = [qid for qid in self.shape_goldless[shape]
                       if any(o in COMMIT_OUTCOMES for o in data.samples[qid])]
            row[f"{arm}_commits"] = commits
            for qid in commits:
                n = sum(o in COMMIT_OUTCOMES for o in data.samples[qid])
                self.refuse("abstention", qid, arm, f"{n} of {len(data.samples[qid])} {arm} draws "
                            f"committed on a question without gold; one commit fails it (§3.1)",
                            shape=shape)
            if commits:
                sweep = False
        row["abstention_sweep_clean"] = sweep
        return row

    def result(self, rows: dict[str, dict[str, Any]], pair_figure: dict[str, Any] | None,
               applied: list[dict[str, Any]], require_probes: bool) -> GateResult:
        headrooms = [row["headroom_perfect_selector"] for row in rows.values()
                     if row.get("headroom_perfect_selector") is not None]
        measured: dict[str, Any] = {
            "thresholds": {"v1_floor": float(V1_FLOOR), "headroom_floor": float(HEADROOM_FLOOR),
                           "reasoning_limited_cut": float(REASONING_LIMITED_CUT),
                           "reader_bar": float(READER_BAR),
                           "pair_headroom_floor": float(PAIR_HEADROOM_FLOOR),
                           "pair_separation_floor": PAIR_SEPARATION_FLOOR,
                           "abstention_draws": ABSTENTION_DRAWS},
            "shapes": rows,
            "not_measured": [row.as_dict() for row in self.not_measured],
            "pairs": pair_figure,
            "exemptions_applied": applied,
            "worst_headroom": min(headrooms) if headrooms else None,
        }
        refusals = list(self.refusals)
        skip_reason = None
        if self.not_measured:
            summary = "; ".join(f"{row.shape}/{row.arm}: {row.reason}" for row in self.not_measured)
            if require_probes:
                refusals += [Refusal("not_measured", f"{row.shape}/{row.arm}", len(row.question_ids),
                                     f"{row.reason} — applicable (the corpus has these questions) "
                                     f"but unscored; --tme-require-probes makes that a failure",
                                     vertical=self.vertical,
                                     shape=row.shape if row.shape in rows else None)
                             for row in self.not_measured]
            else:
                skip_reason = f"probe arms not measured: {summary}"
        status: GateStatus
        if refusals:
            status = "refused"
        elif skip_reason:
            status = "skipped"
        elif not rows:
            status, skip_reason = "skipped", "the corpus has no questions: nothing to measure"
        else:
            status = "passed"
        if status == "refused" and skip_reason:
            self.notes.append(skip_reason)
            skip_reason = None
        return GateResult(GATE, self.corpus.corpus_id, status, refusals=tuple(refusals),
                          measured=measured, notes=tuple(self.notes), skip_reason=skip_reason)


def check(corpus: Corpus, *, declared: VerticalDeclarations | None = None,
          require_probes: bool = False) -> GateResult:
    """Accept or refuse each shape from the corpus's recorded probe arms (module docstring).

    ``declared`` defaults to the code constants of ``declarations_for(corpus.vertical)``; the
    sidecar can never add an exemption or change a threshold. ``require_probes`` turns *not
    measured* from a skip into a refusal (``--tme-require-probes``).
    """
    gate = _Gate(corpus, declared if declared is not None else declarations_for(corpus.vertical))
    return gate.run(require_probes)


# --- self-test (its corpora: :mod:`.selftest.probes`) -------------------------------------------


def _skip_case(name: str, result: GateResult) -> SelfTestCase:
    """Not measured by default must be *skipped* — neither passed nor refused."""
    ok = result.status == "skipped" and bool(result.skip_reason)
    return SelfTestCase(name, "defect", None, ok,
                        f"expected skipped with a reason; got {result.status}"
                        + (f" ({result.skip_reason})" if result.skip_reason else ""))


def self_test() -> list[SelfTestCase]:
    """Defects refused by their intended rule, not-measured never passing, clean controls passing."""
    from .selftest.probes import _PROVENANCE, _arm, _corpus, _gold_arms, _question

    gold = [_question(n, "where") for n in range(1, 21)]
    gold_ids = [q.question_id for q in gold]
    goldless = [_question(n, "never-known", gold=False) for n in range(21, 26)]
    goldless_ids = [q.question_id for q in goldless]
    abstain = [_arm(arm, "never-known", goldless_ids, 5, samples=3, good="abstain", bad="commit")
               for arm in GOLDLESS_ARMS]
    good = _gold_arms("where", gold_ids, 20, 19, 10)
    questions = gold + goldless
    cases = [control_case("good shape and clean abstention sweep pass",
                          check(_corpus("good", questions, good + abstain)))]

    def defect(name: str, records: Sequence[ProbeRecord] | None, rule: str, *,
               qs: Sequence[QuestionRecord] = questions, require: bool = False,
               declared: VerticalDeclarations | None = None, extra: dict[str, Any] | None = None) -> None:
        result = check(_corpus(name, qs, records, extra), declared=declared or VerticalDeclarations(),
                       require_probes=require)
        cases.append(defect_case(name, result, rule))

    mixed = [*good[:2], good[2].model_copy(update={"judge": "f" * 64})]
    defect("V1/V8 graded mechanically and V9 by a model judge do not pool", mixed + abstain,
           "record_mismatch")
    defect("V1 0.95 with V9 0.90 has no headroom", _gold_arms("where", gold_ids, 19, 19, 18) + abstain,
           "headroom")
    defect("V1 0.80 is below the healthy floor", _gold_arms("where", gold_ids, 16, 16, 4) + abstain,
           "v1_floor")
    defect("a sidecar 'threshold' cannot lower the V1 floor",
           _gold_arms("where", gold_ids, 16, 16, 4) + abstain, "v1_floor",
           extra={"probe_thresholds": {"v1_floor": 0.5, "headroom": 0.0}})
    defect("one commit on a gold-less question fails the sweep",
           good + [_arm("V10", "never-known", goldless_ids, 4, samples=3, good="abstain", bad="commit"),
                   abstain[1]], "abstention")
    missing = good[:2] + abstain
    cases.append(_skip_case("missing V9 record is skipped by default",
                            check(_corpus("missing", questions, missing), declared=VerticalDeclarations())))
    defect("missing V9 record refused under require_probes", missing, "not_measured", require=True)
    cases.append(_skip_case("no sidecar at all is skipped by default",
                            check(_corpus("none", questions, None), declared=VerticalDeclarations())))
    defect("no sidecar at all refused under require_probes", None, "not_measured", require=True)
    explicit = good[:2] + [ProbeRecord(arm="V9", shape="where", status="not_measured",
                                       reason="judge output unparseable")] + abstain
    cases.append(_skip_case("explicit not_measured row is skipped by default",
                            check(_corpus("explicit", questions, explicit), declared=VerticalDeclarations())))
    defect("explicit not_measured row refused under require_probes", explicit, "not_measured", require=True)
    empty = good[:2] + [ProbeRecord(arm="V9", shape="where", status="measured", **_PROVENANCE)] + abstain
    cases.append(_skip_case("empty verdict list never passes",
                            check(_corpus("empty", questions, empty), declared=VerticalDeclarations())))
    defect("empty verdict list refused under require_probes", empty, "not_measured", require=True)
    garbage = good[:2] + [_arm("V9", "where", gold_ids, 10, bad="<unparseable>")] + abstain
    defect("unparseable verdicts are not measured, not wrong", garbage, "not_measured", require=True)
    defect("verdict for a question outside the shape",
           good + abstain + [_arm("V1", "never-known", goldless_ids[:1], 1)], "record_mismatch")

    reader_q = [_question(n, "attribution", candidates=3) for n in range(1, 11)]
    reader_ids = [q.question_id for q in reader_q]
    reader = VerticalDeclarations(probe_exemptions=(Declared(
        SCORED_ON_THE_READER, "Participant attribution is decided by reading who said it; BM25 "
        "retrieves the right session either way, so V1 - V9 cannot show headroom.",
        shapes=("attribution",)),))
    holds = _gold_arms("attribution", reader_ids, 7, 8, 6)
    cases.append(control_case("ScoredOnTheReader holding V8 - chance >= 0.30 passes",
                              check(_corpus("reader", reader_q, holds), declared=reader)))
    defect("ScoredOnTheReader below its own bar", _gold_arms("attribution", reader_ids, 7, 5, 6),
           "exemption_bar", qs=reader_q, declared=reader)
    defect("exemption on a shape that passes without it is stale",
           _gold_arms("attribution", reader_ids, 10, 10, 5), "stale_exemption", qs=reader_q,
           declared=reader)
    no_chance = [_question(n, "attribution") for n in range(1, 11)]
    defect("ScoredOnTheReader without a declared chance cannot hold its bar", holds, "exemption_bar",
           qs=no_chance, declared=reader)
    defect("an exemption without a bar of its own is refused", good + abstain, "unknown_exemption",
           declared=VerticalDeclarations(probe_exemptions=(Declared(
               "SaturatedByDesign", "formerly used to wave saturated shapes through", ("where",)),)))

    paired = [_question(n, "due-later", pair=(f"tme-epi-p{(n + 1) // 2:02d}", "before" if n % 2 else "after"))
              for n in range(1, 21)]
    paired_ids = [q.question_id for q in paired]
    defect("pairs that V9 answers as well as V1 do not discriminate",
           [_arm("V1", "due-later", paired_ids, 20), _arm("V8", "due-later", paired_ids, 20),
            _arm("V9", "due-later", paired_ids, 18)],
           "pair_discrimination", qs=paired)
    cases.append(control_case(
        "discriminating pairs pass",
        check(_corpus("pairs", paired, [_arm("V1", "due-later", paired_ids, 20),
                                        _arm("V8", "due-later", paired_ids, 20),
                                        _arm("V9", "due-later", paired_ids, 6)]),
              declared=VerticalDeclarations())))
    return cases
