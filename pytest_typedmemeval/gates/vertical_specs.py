"""Each vertical's declared design as code constants: abbreviation, shapes with n, G and H ranges.

The structure gate checks a corpus against these and never against its own sidecar (GATES.md: a
gate does not read what it certifies from the data it checks). Every number cites its source:
VERTICALS.md §2.0 overview table, the vertical's own section, or Appendix A (binding decisions).
Where the spec gives no number the field is ``None`` and the gate reports the check as not
declared instead of passing it silently.

Shape names are this project's choice where the spec only gives a label (Appendix A fixes
``question_type`` = the shape name, and the Prospective v1 shape names); generators must emit
exactly these strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

V4Level = Literal["calendar", "story"]
"""How much of V4 applies (Appendix A, "V4 scope").

``calendar``: no four-digit year, no month name next to a day number, no numeric date, and no month
or weekday names at all (Prospective, Arithmetic durations). ``story``: no year, no month-day, no
numeric date; month and weekday names allowed inside the story (Temporal, Bitemporal).
"""

Operation = Literal["count", "sum", "delta", "duration"]


@dataclass(frozen=True)
class ShapeSpec:
    """One shape's declared design. Ranges are inclusive; an upper bound of ``None`` is open."""

    name: str
    n: int | None
    """Declared number of questions (``None``: not given by the spec, not enforced)."""
    g: tuple[int, int | None] | None
    """Gold sessions per question (``None``: not given)."""
    h: tuple[int, int | None] | None
    """Non-gold sessions per question (``None``: not given)."""
    v4: V4Level | None = None
    operation: Operation | None = None
    """Arithmetic: every record of the shape carries a derivation with this operation."""
    distance: int | None = None
    """WorkingMemory rung d, the shape's nominal distance (without ``distance_window``: exactly d
    sessions lie between the gold session and the question)."""
    distance_window: tuple[int, int] | None = None
    """WorkingMemory from revision 3 (VERTICALS.md Appendix D: gold position drawn within the
    rung's window, never a fixed index): the sessions between the gold session and the question
    lie in this inclusive range, and ``distance_sessions`` says how many."""
    paired_questions: int | None = None
    """How many of the shape's questions carry a ``pair_id`` (``None``: not declared)."""


@dataclass(frozen=True)
class VerticalSpec:
    """A vertical's declared design: the names and sizes a shipped corpus must match exactly."""

    name: str
    abbrev: str
    shapes: tuple[ShapeSpec, ...]
    v4: V4Level | None = None
    """V4 level for every question of the vertical, whatever its shape (Prospective: whole corpus)."""
    note: str = ""

    def shape(self, name: str) -> ShapeSpec | None:
        for shape in self.shapes:
            if shape.name == name:
                return shape
        return None

    @property
    def shape_names(self) -> tuple[str, ...]:
        return tuple(shape.name for shape in self.shapes)


def _shapes(names_and_n: tuple[tuple[str, int], ...], *, g: tuple[int, int | None] | None,
            h: tuple[int, int | None] | None, v4: V4Level | None = None) -> tuple[ShapeSpec, ...]:
    return tuple(ShapeSpec(name, n, g, h, v4) for name, n in names_and_n)


# Prospective (§2.1; Appendix A "Prospective shape mix (v1)" and "V4 scope"): G 1-2, H 12-20, the
# whole corpus time-dependent. Pairs: due-later 8, expiring-validity 6, not-yet-true 5.
_PROSPECTIVE = VerticalSpec(
    "prospective", "pro",
    (
        ShapeSpec("as-of", 4, (1, 2), (12, 20), "calendar", paired_questions=0),
        ShapeSpec("current", 4, (1, 2), (12, 20), "calendar", paired_questions=0),
        ShapeSpec("prospective", 4, (1, 2), (12, 20), "calendar", paired_questions=0),
        ShapeSpec("due-later", 16, (1, 2), (12, 20), "calendar", paired_questions=16),
        ShapeSpec("expiring-validity", 12, (1, 2), (12, 20), "calendar", paired_questions=12),
        ShapeSpec("not-yet-true", 10, (1, 2), (12, 20), "calendar", paired_questions=10),
    ),
    v4="calendar",
)

# Episodic (§2.2): G 1 (2 when the answer is "both"), list-order G = list length 4-7; H 15-25.
_EPISODIC = VerticalSpec(
    "episodic", "epi",
    (
        ShapeSpec("assistant-stated", 20, (1, 2), (15, 25)),
        ShapeSpec("list-order", 15, (4, 7), (15, 25)),
        ShapeSpec("participant-attribution", 15, (1, 2), (15, 25)),
    ),
)

# Arithmetic (§2.3): G "3-6 designed (2-6 observed)", and two-input questions are durations, so
# durations admit G = 2 and every other shape keeps the designed 3-6 (the stricter reading).
# H 15-25. V4 governs durations only (Appendix A).
_ARITHMETIC = VerticalSpec(
    "arithmetic", "ari",
    (
        ShapeSpec("counts", 14, (3, 6), (15, 25), operation="count"),
        ShapeSpec("sums", 14, (3, 6), (15, 25), operation="sum"),
        ShapeSpec("deltas", 10, (3, 6), (15, 25), operation="delta"),
        ShapeSpec("durations", 12, (2, 6), (15, 25), v4="calendar", operation="duration"),
    ),
)

# WorkingMemory (§2.4; Appendix A "WorkingMemory geometry"; Appendix D): five rungs of 12, G = 1,
# H = 64 on every rung; from revision 3 a rung is a window of distances (sessions between gold and
# the question) around its nominal d, the windows tiling 5..63 (gold never first or last), and the
# gold position is drawn inside it (v2 pinned gold at 64 - d: a position prior alone found it).
WORKING_MEMORY_WINDOWS: dict[int, tuple[int, int]] = {8: (5, 11), 15: (12, 19), 25: (20, 31),
                                                      40: (32, 47), 60: (48, 63)}
_WORKING_MEMORY = VerticalSpec(
    "workingmemory", "wm",
    tuple(ShapeSpec(f"distance-{d}", 12, (1, 1), (64, 64), distance=d, distance_window=window)
          for d, window in WORKING_MEMORY_WINDOWS.items()),
)

# Forgetting (§2.5): G = 2 (0 for never-known), H 15-25; 15 invalidated questions twin the 15
# still-valid controls, 5 invalidated stand alone.
_FORGETTING = VerticalSpec(
    "forgetting", "for",
    (
        ShapeSpec("invalidated", 20, (2, 2), (15, 25), paired_questions=15),
        ShapeSpec("still-valid", 15, (2, 2), (15, 25), paired_questions=15),
        ShapeSpec("never-known", 15, (0, 0), (15, 25), paired_questions=0),
    ),
)

# Semantic (§2.6): H "not given". current-value G is the statement chain, the first statement plus
# k in 1..5 re-statements, so 2-6 [inferred]; the other chains are not sized by the spec.
_SEMANTIC = VerticalSpec(
    "semantic", "sem",
    (
        ShapeSpec("current-value", 20, (2, 6), None),
        ShapeSpec("co-reference", 15, None, None),
        ShapeSpec("source-attribution", 15, None, None),
    ),
)

# Temporal (§2.7): G 1 / 2 / 2, H not given; Appendix A: months may be named, never years or dates.
_TEMPORAL = VerticalSpec(
    "temporal", "tmp",
    (
        ShapeSpec("occurrence-order", 20, (1, 1), None, "story"),
        ShapeSpec("interval-position", 15, (2, 2), None, "story"),
        ShapeSpec("recency", 15, (2, 2), None, "story"),
    ),
    v4="story",
)

# Bitemporal (§2.8): 30 pairs (18 + 12), every question paired; G "fact plus corrections": at least
# one correction (2+), correction-depth has two or more corrections (3+) [inferred]; H not given.
_BITEMPORAL = VerticalSpec(
    "bitemporal", "bit",
    (
        ShapeSpec("belief-at-instant", 36, (2, None), None, "story", paired_questions=36),
        ShapeSpec("correction-depth", 24, (3, None), None, "story", paired_questions=24),
    ),
    v4="story",
)

# Conjunction and Procedural are designed in their own issue (Appendix A): no shape is declared, so
# the structure gate refuses any shape they carry until the design lands here.
_CONJUNCTION = VerticalSpec("conjunction", "con", (), note="shapes not yet designed (Appendix A)")
_PROCEDURAL = VerticalSpec("procedural", "prc", (), note="shapes not yet designed (Appendix A)")

VERTICAL_SPECS: dict[str, VerticalSpec] = {
    spec.name: spec
    for spec in (_PROSPECTIVE, _EPISODIC, _ARITHMETIC, _WORKING_MEMORY, _FORGETTING, _SEMANTIC,
                 _TEMPORAL, _BITEMPORAL, _CONJUNCTION, _PROCEDURAL)
}
"""Keyed by the lowercase vertical name used in records (``typedmemeval.vertical``)."""

ABBREVIATIONS: dict[str, str] = {name: spec.abbrev for name, spec in VERTICAL_SPECS.items()}
"""Vertical -> id abbreviation (§1.4: pro, epi, ari, wm, for, sem; tmp, bit, con, prc suggested)."""


def spec_for(vertical: str | None) -> VerticalSpec | None:
    """The declared design of ``vertical`` (case-insensitive), or ``None`` for an unknown one."""
    return VERTICAL_SPECS.get((vertical or "").lower())


def v4_level(spec: VerticalSpec, shape: str) -> V4Level | None:
    """Which V4 rules govern questions of ``shape`` (``None``: not time-dependent).

    The stricter of the vertical-wide level and the shape's own, so an undeclared shape in a
    time-dependent vertical is still screened.
    """
    declared = spec.shape(shape)
    levels = {spec.v4, declared.v4 if declared is not None else None}
    if "calendar" in levels:
        return "calendar"
    return "story" if "story" in levels else None
