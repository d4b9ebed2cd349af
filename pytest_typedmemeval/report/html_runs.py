"""HTML sections for several runs: bands across runs (§5.10) and the A-vs-B comparison."""

from __future__ import annotations

from collections import Counter

from .bands import Bands, ShapeBand
from .charts import DiffRow, RatePoint, diff_chart, esc, pct, rate_chart
from .compare import Comparison
from .bands import OUTCOMES

MOST_FLIPPING = 50
CHANGED_SHOWN = 200


def _band_cell(band: ShapeBand, outcome: str) -> str:
    rate = band.rates.get(outcome)
    if rate is None or rate.low is None or rate.high is None:
        return "<td>—</td>"
    if rate.high == 0:
        return '<td class="dim">0%</td>'
    return f"<td>{pct(rate.low)}–{pct(rate.high)} <small>(mean {pct(rate.mean)})</small></td>"


def vertical_bands(bands: Bands, corpus_id: str, vertical: str, shapes: list[dict[str, object]]) -> str:
    """Correct-rate band chart for one vertical's shapes, and the table of every outcome's band."""
    rows = [b for b in bands.shapes if b.corpus_id == corpus_id and b.vertical == vertical]
    if not rows:
        return ""
    points = []
    for shape in shapes:
        band = bands.shape(corpus_id, vertical, str(shape["shape"]))
        correct = shape["outcomes"]["correct"]  # type: ignore[index]
        rate = band.rates["correct"] if band else None
        points.append(RatePoint(str(shape["shape"]), correct["rate"], tuple(correct["ci95"]) if correct["ci95"] else None,
                                int(shape["n"]), (rate.low, rate.high) if rate and rate.low is not None
                                and rate.high is not None else None))  # type: ignore[arg-type]
    shown = [o for o in OUTCOMES if any((b.rates[o].high or 0) > 0 for b in rows)]
    head = "".join(f'<th scope="col">{esc(o)}</th>' for o in shown)
    body = "".join(
        f'<tr><th scope="row">{esc(b.shape or "all shapes")}</th><td>{b.n}</td>'
        + "".join(_band_cell(b, o) for o in shown) + f"<td>{b.flipped}</td></tr>" for b in rows)
    chart = rate_chart(points, title=f"{vertical}: correct rate per shape in this run (dot, Wilson 95%) and "
                                     f"min–max band across {bands.runs} runs (grey)", x_title="shape")
    return (f'<h4>Bands across {bands.runs} runs</h4>{chart}'
            f'<table><caption>Rate of each outcome across {bands.runs} runs: min–max (mean); flipped = questions '
            f'whose outcome changed between runs</caption><thead><tr><th scope="col">shape</th><th scope="col">n</th>'
            f'{head}<th scope="col">flipped</th></tr></thead><tbody>{body}</tbody></table>')


def bands_section(bands: Bands) -> str:
    """Run identity, notes and the most-flipping questions."""
    identity = bands.identity
    sampling = identity.get("sampling")
    settings = ("no model block (agent without model settings)" if not sampling else
                ", ".join(f"{k} {v}" for k, v in sampling.items()))
    flipping = bands.flipping
    distinct = Counter(q.distinct for q in bands.questions)
    rows = "".join(
        f'<tr><td>{esc(q.corpus_id)}</td><td>{esc(q.question_id)}</td><td>{esc(q.vertical)} / {esc(q.shape)}</td>'
        f'<td>{esc(q.question)}</td><td>{q.changes}</td><td>{q.distinct}</td><td>{esc(" → ".join(q.outcomes))}</td></tr>'
        for q in flipping[:MOST_FLIPPING])
    notes = "".join(f"<li>{esc(n)}</li>" for n in bands.notes)
    table = (f'<table><caption>Most-flipping questions ({min(len(flipping), MOST_FLIPPING)} of {len(flipping)} '
             f'that changed)</caption><thead><tr><th scope="col">corpus</th><th scope="col">id</th>'
             f'<th scope="col">vertical / shape</th><th scope="col">question</th><th scope="col">changes</th>'
             f'<th scope="col">distinct outcomes</th><th scope="col">outcome per run</th></tr></thead>'
             f'<tbody>{rows}</tbody></table>') if flipping else "<p>No question changed outcome between runs.</p>"
    return (f'<section id="bands" aria-labelledby="bands-h"><h2 id="bands-h">Bands across {bands.runs} runs</h2>'
            f'<p>Runs share corpus sha256, judge fingerprint <code>{esc(identity.get("judge_fingerprint"))}</code>, '
            f'options and answer-sampling settings ({esc(settings)}). {len(flipping)} of {len(bands.questions)} '
            f'questions changed outcome at least once; by distinct outcomes seen: '
            f'{esc(", ".join(f"{k}: {v}" for k, v in sorted(distinct.items())))}.</p>'
            f'{f"<ul>{notes}</ul>" if notes else ""}{table}</section>')


def vertical_comparison(comparison: Comparison, corpus_id: str, vertical: str) -> str:
    """Forest plot of B − A correct rate per shape of one vertical."""
    shapes = [s for s in comparison.shapes if s.corpus_id == corpus_id and s.vertical == vertical]
    if not shapes:
        return ""
    a, b = comparison.label_a, comparison.label_b
    rows = [DiffRow(s.shape or "all shapes", s.diff, s.ci95,
                    "no rate" if s.diff is None else f"{pct(s.rate_a)} → {pct(s.rate_b)} ({s.diff * 100:+.0f} pp)")
            for s in shapes]
    return (f"<h4>{esc(b)} − {esc(a)}: correct rate, percentage points</h4>"
            + diff_chart(rows, title=f"{vertical}: difference of correct rate {b} minus {a} per shape with 95% interval"))


def comparison_section(comparison: Comparison) -> str:
    """Method, notes and the questions that changed outcome between the sides."""
    a, b = esc(comparison.label_a), esc(comparison.label_b)
    counts = Counter(c.direction for c in comparison.changed)
    rows = "".join(
        f'<tr><td class="d-{esc(c.direction)}">{esc(c.direction)}</td><td title="{esc(c.corpus_id)}">'
        f'{esc(c.question_id)}</td><td>{esc(c.vertical)} / {esc(c.shape)}</td><td>{esc(c.question)}</td>'
        f'<td>{esc(c.gold)}</td><td>{esc(", ".join(c.outcomes_a))}</td><td>{esc(c.answer_a[:300])}</td>'
        f'<td>{esc(", ".join(c.outcomes_b))}</td><td>{esc(c.answer_b[:300])}</td></tr>'
        for c in comparison.changed[:CHANGED_SHOWN])
    notes = "".join(f"<li>{esc(n)}</li>" for n in comparison.notes)
    return (f'<section id="comparison" aria-labelledby="cmp-h"><h2 id="cmp-h">Comparison: {a} '
            f'({comparison.runs_a} run(s)) vs {b} ({comparison.runs_b} run(s))</h2>'
            f'<p>Interval: {esc(comparison.method)}. {len(comparison.changed)} question(s) changed outcome: '
            f'{counts["regressed"]} regressed, {counts["improved"]} improved, {counts["shifted"]} shifted between '
            f'failure outcomes.</p>{f"<ul>{notes}</ul>" if notes else ""}'
            f'<table><caption>Questions that changed outcome (first {min(len(comparison.changed), CHANGED_SHOWN)}), '
            f'regressions first</caption><thead><tr><th scope="col">change</th><th scope="col">id</th>'
            f'<th scope="col">vertical / shape</th><th scope="col">question</th><th scope="col">gold</th>'
            f'<th scope="col">{a} outcome</th><th scope="col">{a} answer</th><th scope="col">{b} outcome</th>'
            f'<th scope="col">{b} answer</th></tr></thead><tbody>{rows}</tbody></table></section>')


__all__ = ["bands_section", "comparison_section", "vertical_bands", "vertical_comparison"]
