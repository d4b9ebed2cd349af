"""Per-vertical declarations the gates honour: exemptions and carve-outs, each with its reason.

These are code constants on purpose. A sidecar can record which exemptions were applied, but it can
never add one or relax a threshold: the gate would then be certifying against the data it checks.
An exemption that no longer fires is reported as stale and must be deleted here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Declared:
    """One declaration: which feature/rule (and shapes) it covers, and why a sceptic should accept it."""

    name: str
    reason: str
    shapes: tuple[str, ...] = ()
    chance_options: int | None = None
    """For a closed-choice probe exemption (``ScoredOnTheReader``): the k of its 1/k chance floor."""


@dataclass(frozen=True)
class VerticalDeclarations:
    separability_exemptions: tuple[Declared, ...] = ()
    """V7: ``name`` is the feature name exempted."""
    gold_position_carve_out: Declared | None = None
    """Structure: the gold-position shuffle check does not apply (the design fixes position)."""
    calibration_ceiling_exemptions: tuple[Declared, ...] = ()
    """Calibration: shapes allowed above the 0.90 saturation ceiling; ``name`` is the shape."""
    probe_exemptions: tuple[Declared, ...] = ()
    """Probes: e.g. ``ScoredOnTheReader`` for a shape held to V8 - chance >= 0.30 instead."""
    adversary_exemptions: tuple[Declared, ...] = ()
    """Adversaries (GATES.md §7): ``name`` is the one rule exempted (e.g. ``phrase_reader``) on
    ``shapes``; the shape's other rules still bind, and the figure is still reported."""


_ATTRIBUTION_SATURATES = (
    "participant-attribution asks who made a statement the question itself quotes, naming its topic: "
    "the gold session holds every query word, so BM25 ranks it in the top five whatever competes. "
    "VERTICALS.md 2.2 records three distractor designs (same topic, same claim about other topics, "
    "both) all leaving coverage at 1.000; in revision 2 the topical-competition dial swept over five "
    "points (0 to 1) gave 1.000 at every point (episodic.ATTRIBUTION_SWEEP), and raising same-claim "
    "remarks only lowers coverage by spreading the quoted remark's words across both speakers, "
    "which would give the speaker away. The shape measures speaker attribution by the reader, not "
    "retrieval."
)

_RUNG_IS_A_POSITION = (
    "WorkingMemory's construct is outcome by distance: each shape is a rung, and a rung is by "
    "definition a band of gold positions (d = 5-11, 12-19, 20-31, 32-47 or 48-63 sessions "
    "between the gold session and the question, VERTICALS.md 2.4 and Appendix D), so a prior "
    "learned from the other half's gold positions of the same rung finds the band whatever the "
    "text says. Inside the band the gold position is dealt evenly over every distance of the "
    "window (up to one), never a fixed index (v2 pinned it at 64 - d), and the windows are 7 to 16 "
    "sessions wide; the figure is measured and published. The position prior is the only rule "
    "exempt: the learned question-blind adversary (which also sees each session's relative "
    "position), the haystack diff, the subject-and-value and phrase readers and fact-only BM25 "
    "all bind on every rung."
)

DECLARATIONS: dict[str, VerticalDeclarations] = {
    "workingmemory": VerticalDeclarations(
        adversary_exemptions=(
            # Declared where the rule fires on the shipped bytes (8c945ace...): on the three wider
            # windows the prior, learned from the other half's exact gold indices, finds none of
            # this half's (the rung's distances are dealt evenly, so the halves hold different
            # ones); the gate reports an exemption that is not needed as stale.
            Declared(name="position_prior", reason=_RUNG_IS_A_POSITION,
                     shapes=("distance-8", "distance-15")),
        ),
    ),
    "episodic": VerticalDeclarations(
        calibration_ceiling_exemptions=(
            Declared(name="participant-attribution", reason=_ATTRIBUTION_SATURATES,
                     shapes=("participant-attribution",)),
        ),
        probe_exemptions=(
            Declared(name="ScoredOnTheReader", reason=_ATTRIBUTION_SATURATES + " Released from the "
                     "headroom floor and held instead to V8 - chance >= 0.30 (chance 1/3: me, you, "
                     "both of us).", shapes=("participant-attribution",), chance_options=3),
        ),
        adversary_exemptions=(
            Declared(name="phrase_reader", reason=(
                "the question quotes the gold remark (venue and claim), so the one sentence "
                "holding both is the gold remark itself, said twice; a competitor holding both "
                "phrases would be the gold remark. The shape asks who said it: every remark is "
                "said twice by speakers drawn one by one, so finding the remark does not answer. "
                "The question-blind adversaries still bind on the shape."),
                shapes=("participant-attribution",)),
        ),
    ),
}


def declarations_for(vertical: str | None) -> VerticalDeclarations:
    return DECLARATIONS.get((vertical or "").lower(), VerticalDeclarations())
