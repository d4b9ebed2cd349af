"""Inline SVG charts for the HTML report, drawn by our own code (no library, no network).

Every chart carries ``role="img"``, an ``aria-label`` and a ``<title>``; every coloured mark also
carries a text label or a ``<title>`` so colour is never the only channel. Every string that may
come from a report is escaped here, at the one place it enters markup. Coordinates are rounded to
one decimal, so the same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 640
LABEL_WIDTH = 150
NOTE_WIDTH = 190
ROW_HEIGHT = 22
BAR_HEIGHT = 15
NOTE_CHAR_WIDTH = 7.0
"""A generous width of one character of a note at the charts' 12 px font (digits are ~6.7 px):
the canvas grows to hold the longest note, so ``[76–100%]`` keeps its ``%]`` (issue 22, item 8)."""


def esc(value: object) -> str:
    """Text made safe for element content and quoted attributes alike."""
    return escape("" if value is None else str(value), quote=True)


def pct(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.0f}%"


def interval_text(ci95: Sequence[float] | None) -> str:
    return "—" if not ci95 else f"[{ci95[0] * 100:.0f}–{ci95[1] * 100:.0f}%]"


def canvas_width(notes: Sequence[str]) -> int:
    """The SVG width that holds every right-hand note whole: :data:`WIDTH`, or wider when a note
    runs past it (an SVG clips what falls outside its viewBox)."""
    longest = max((len(note) for note in notes), default=0)
    return max(WIDTH, int(WIDTH - NOTE_WIDTH + 6 + NOTE_CHAR_WIDTH * longest + 0.999) + 4)


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Category:
    """One stacked category: key (CSS class suffix), legend label, short in-bar label."""

    key: str
    label: str
    short: str


@dataclass(frozen=True)
class StackRow:
    """One bar: label, counts per category key, a note on the right, an optional interval whisker."""

    label: str
    counts: dict[str, int]
    note: str = ""
    whisker: tuple[float, float] | None = None


def legend(categories: Sequence[Category]) -> str:
    """The colour key, written as text so it is readable without colour."""
    items = "".join(f'<li><span class="sw c-{esc(c.key)}"></span>{esc(c.short)} = {esc(c.label)}</li>'
                    for c in categories)
    return f'<ul class="legend">{items}</ul>'


def stacked_bars(rows: Sequence[StackRow], categories: Sequence[Category], *, title: str,
                 scale: int | None = None) -> str:
    """Horizontal stacked bars, one per row, counts written inside wide-enough segments. Bars are
    100% wide (shares) unless ``scale`` is given: then a bar of ``scale`` items is full width
    (a histogram whose bars are split by category)."""
    plot = WIDTH - LABEL_WIDTH - NOTE_WIDTH
    height = ROW_HEIGHT * len(rows) + 8
    canvas = canvas_width([row.note for row in rows])
    parts = [f'<svg class="chart" viewBox="0 0 {canvas} {height}" width="{canvas}" height="{height}" '
             f'role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>']
    for index, row in enumerate(rows):
        y = 4 + index * ROW_HEIGHT
        total = sum(row.counts.values())
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 12}" text-anchor="end">{esc(row.label)}</text>')
        x = float(LABEL_WIDTH)
        for category in categories:
            count = row.counts.get(category.key, 0)
            if not count or not total:
                continue
            width = plot * count / (scale or total)
            tip = f"{row.label}: {category.label} {count} of {total}"
            parts.append(f'<rect class="c-{esc(category.key)}" x="{_f(x)}" y="{y}" width="{_f(width)}" '
                         f'height="{BAR_HEIGHT}"><title>{esc(tip)}</title></rect>')
            if width >= 7 * (len(category.short) + len(str(count))) + 4:
                parts.append(f'<text class="in" x="{_f(x + width / 2)}" y="{y + 11}" text-anchor="middle">'
                             f'{esc(category.short)}{count}</text>')
            x += width
        if not total and scale is None:
            parts.append(f'<text x="{LABEL_WIDTH}" y="{y + 12}">no questions</text>')
        if row.whisker is not None:
            # Under the bar, not over it, so the in-bar counts stay readable.
            lo, hi = (LABEL_WIDTH + plot * v for v in row.whisker)
            mid = y + BAR_HEIGHT + 3
            parts.append(f'<path class="whisker" d="M{_f(lo)} {mid}H{_f(hi)}M{_f(lo)} {mid - 3}v5'
                         f'M{_f(hi)} {mid - 3}v5"><title>{esc(row.label)}: correct-rate interval '
                         f'{interval_text(row.whisker)}</title></path>')
        parts.append(f'<text x="{WIDTH - NOTE_WIDTH + 6}" y="{y + 12}">{esc(row.note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class RatePoint:
    """One x position of a rate chart: label, rate, 95% interval, n and an optional band."""

    label: str
    rate: float | None
    ci95: tuple[float, float] | None
    n: int
    band: tuple[float, float] | None = None


def rate_chart(points: Sequence[RatePoint], *, title: str, x_title: str) -> str:
    """Rate (0–100%) per category on x, dots joined by a line, whiskers for the interval; an
    optional grey bar behind each dot is the min–max band across runs."""
    height, top, bottom, left, right = 240, 12, 46, 44, 16
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    step = plot_w / max(len(points), 1)

    def y_of(rate: float) -> float:
        return top + plot_h * (1 - rate)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
             f'role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _f(y_of(tick))
        parts.append(f'<path class="grid" d="M{left} {y}H{WIDTH - right}"/>'
                     f'<text x="{left - 4}" y="{y}" dy="4" text-anchor="end">{tick * 100:.0f}%</text>')
    line: list[str] = []
    for index, point in enumerate(points):
        x = left + step * (index + 0.5)
        parts.append(f'<text x="{_f(x)}" y="{height - bottom + 16}" text-anchor="middle">{esc(point.label)}</text>'
                     f'<text class="small" x="{_f(x)}" y="{height - bottom + 30}" text-anchor="middle">'
                     f'n={point.n}</text>')
        if point.band is not None:
            lo, hi = point.band
            parts.append(f'<rect class="band" x="{_f(x - 10)}" y="{_f(y_of(hi))}" width="20" '
                         f'height="{_f(max(y_of(lo) - y_of(hi), 1.5))}"><title>{esc(point.label)}: band '
                         f'{pct(lo)}–{pct(hi)} across runs</title></rect>')
        if point.rate is None:
            continue
        y = y_of(point.rate)
        line.append(f"{_f(x)} {_f(y)}")
        if point.ci95 is not None:
            lo_y, hi_y = y_of(point.ci95[0]), y_of(point.ci95[1])
            parts.append(f'<path class="whisker" d="M{_f(x)} {_f(lo_y)}V{_f(hi_y)}M{_f(x - 5)} {_f(lo_y)}'
                         f'h10M{_f(x - 5)} {_f(hi_y)}h10"/>')
        tip = f"{point.label}: {pct(point.rate)} {interval_text(point.ci95)}, n={point.n}"
        parts.append(f'<circle class="dot" cx="{_f(x)}" cy="{_f(y)}" r="4"><title>{esc(tip)}</title></circle>'
                     f'<text class="small" x="{_f(x + 8)}" y="{_f(y - 6)}">{pct(point.rate)}</text>')
    if len(line) > 1:
        parts.insert(1, f'<path class="line" d="M{"L".join(line)}"/>')
    parts.append(f'<text class="small" x="{left + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">'
                 f'{esc(x_title)}</text></svg>')
    return "".join(parts)


@dataclass(frozen=True)
class DiffRow:
    """One row of a difference (forest) plot: label, difference, interval, note."""

    label: str
    diff: float | None
    ci95: tuple[float, float] | None
    note: str


def diff_chart(rows: Sequence[DiffRow], *, title: str) -> str:
    """Differences in percentage points on a −100…+100 axis, zero line marked, interval whiskers."""
    plot = WIDTH - LABEL_WIDTH - NOTE_WIDTH
    height = ROW_HEIGHT * len(rows) + 28
    zero = LABEL_WIDTH + plot / 2
    canvas = canvas_width([row.note for row in rows])

    def x_of(diff: float) -> float:
        return zero + plot / 2 * diff

    parts = [f'<svg class="chart" viewBox="0 0 {canvas} {height}" width="{canvas}" height="{height}" '
             f'role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>']
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        x = _f(x_of(tick))
        parts.append(f'<path class="{"zero" if tick == 0 else "grid"}" d="M{x} 4V{height - 22}"/>'
                     f'<text class="small" x="{x}" y="{height - 8}" text-anchor="middle">{tick * 100:+.0f}</text>')
    for index, row in enumerate(rows):
        y = 4 + index * ROW_HEIGHT
        mid = y + 9
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{esc(row.label)}</text>')
        if row.ci95 is not None:
            lo, hi = (x_of(v) for v in row.ci95)
            parts.append(f'<path class="whisker" d="M{_f(lo)} {mid}H{_f(hi)}M{_f(lo)} {mid - 5}v10'
                         f'M{_f(hi)} {mid - 5}v10"/>')
        if row.diff is not None:
            parts.append(f'<circle class="dot" cx="{_f(x_of(row.diff))}" cy="{mid}" r="4">'
                         f'<title>{esc(row.label)}: {esc(row.note)}</title></circle>')
        parts.append(f'<text x="{WIDTH - NOTE_WIDTH + 6}" y="{y + 14}">{esc(row.note)}</text>')
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["Category", "DiffRow", "RatePoint", "StackRow", "canvas_width", "diff_chart", "esc", "interval_text", "legend",
           "pct", "rate_chart", "stacked_bars"]
