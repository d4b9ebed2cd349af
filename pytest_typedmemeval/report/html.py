"""The HTML report: one self-contained file a person reads to see *where* a memory system fails.

Everything is inline (styles, SVG charts drawn by :mod:`.charts`, a small sorting/filtering script)
and a Content-Security-Policy forbids any network fetch, so the file opens the same offline, from
a CI artifact or an e-mail. It is a pure function of the JSON report (plus optional bands and a
comparison): no clock, no randomness, so the same input renders the same bytes. Answers are
untrusted text; every string from a report is escaped where it enters markup, and the reserved
benchmark token is redacted exactly as in the JSON report (§5.11).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ..corpus.identity import vertical_title
from ..corpus.loading import RESERVED_BENCHMARK_TOKEN
from .aggregate import ordered_shapes
from .bands import Bands
from .charts import Category, RatePoint, StackRow, esc, interval_text, legend, pct, rate_chart, stacked_bars
from .compare import Comparison
from .html_runs import bands_section, comparison_section, vertical_bands, vertical_comparison
from .html_table import SCRIPT, question_table
from .subcounts import SUBCOUNT_LABELS, shown_subcounts, subcounts_caption, subcounts_heading

_RESERVED = re.compile(re.escape(RESERVED_BENCHMARK_TOKEN), re.IGNORECASE)
REDACTION = "[redacted-benchmark-name]"

OUTCOME_CATEGORIES = (
    Category("correct", "correct", "C"), Category("wrong", "wrong", "W"), Category("missed", "missed", "M"),
    Category("abstained", "abstained", "A"), Category("premature", "premature", "P"),
    Category("unjudged", "unjudged", "U"), Category("error", "error", "E"))
ATTRIBUTION_CATEGORIES = (
    Category("present", "evidence present", "P"), Category("partial", "partial", "p"),
    Category("absent", "evidence absent", "A"), Category("unobserved", "unobserved", "U"),
    Category("not_applicable", "not applicable", "n/a"))
COVERAGE_BINS = ("no coverage (null)", "0", "(0, .25)", "[.25, .5)", "[.5, .75)", "[.75, 1)", "1")

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1240px;padding:0 16px;color:#111;background:#fff}
h1{font-size:22px;margin:16px 0 4px}h2{font-size:18px;border-top:2px solid #ccc;padding-top:12px}
h3{font-size:15px;margin:14px 0 4px}h4{font-size:14px;margin:10px 0 4px}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}caption{text-align:left;font-weight:600;padding:2px 0}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}thead th{background:#f2f2f2}
.dim{color:#777}code{font-size:12px;word-break:break-all}.cite{font-family:monospace;font-size:12px}
.warn{background:#fff3cd;border:1px solid #d9b600;padding:4px 8px}
nav ul{columns:3;font-size:13px}.grid2{display:flex;flex-wrap:wrap;gap:0 24px;align-items:flex-start}
dl.identity{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}dl.identity dt{font-weight:600}dl.identity dd{margin:0}
svg.chart{max-width:100%;height:auto;font-size:12px}svg text{fill:#111}svg text.small{font-size:11px}
svg text.in{font-size:11px;fill:#000}
.whisker{stroke:#000;stroke-width:1.6;fill:none}.grid{stroke:#ddd}.zero{stroke:#000}
.line{stroke:#444;fill:none;stroke-width:1.5}.dot{fill:#000}.band{fill:#bbb;fill-opacity:.7}
.legend{list-style:none;padding:0;margin:2px 0;display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px}
.sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px;border:1px solid #555}
.c-correct{fill:#009E73;background:#009E73}.c-wrong{fill:#D55E00;background:#D55E00}
.c-missed{fill:#E69F00;background:#E69F00}.c-abstained{fill:#56B4E9;background:#56B4E9}
.c-premature{fill:#CC79A7;background:#CC79A7}.c-unjudged{fill:#c8c8c8;background:#c8c8c8}
.c-error{fill:#8c8c8c;background:#8c8c8c}.c-present{fill:#009E73;background:#009E73}
.c-partial{fill:#F0E442;background:#F0E442}.c-absent{fill:#D55E00;background:#D55E00}
.c-unobserved{fill:#c8c8c8;background:#c8c8c8}.c-not_applicable{fill:#eee;background:#eee}
.o-correct{color:#00603f}.o-wrong,.o-error,.d-regressed{color:#a33a00;font-weight:600}
table.questions{table-layout:fixed;width:100%}.questions tbody tr{content-visibility:auto;contain-intrinsic-size:auto 36px}.questions td{overflow-wrap:anywhere}.questions th:nth-child(1){width:6em}.questions th:nth-child(2){width:7em}.questions th:nth-child(3){width:10em}.questions th:nth-child(8),.questions th:nth-child(9){width:5em}
.filters{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ccc}
th button{all:unset;cursor:pointer;font-weight:600}th button:focus{outline:2px solid #06c}
"""


def _pair(left: str, right: str) -> str:
    """A chart and its text table side by side (they wrap on a narrow screen)."""
    return f'<div class="grid2"><div>{left}</div><div>{right}</div></div>'


def _slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")


def _title(vertical: str) -> str:
    return vertical_title(vertical)


def _vector_note(vector: Mapping[str, Any]) -> str:
    correct = vector["outcomes"]["correct"]
    return f"n={vector['n']} · correct {pct(correct['rate'])} {interval_text(correct['ci95'])}"


def _stack_row(label: str, vector: Mapping[str, Any]) -> StackRow:
    correct = vector["outcomes"]["correct"]
    return StackRow(label, {o: int(v["count"]) for o, v in vector["outcomes"].items()}, _vector_note(vector),
                    tuple(correct["ci95"]) if correct["ci95"] else None)  # type: ignore[arg-type]


def _vector_table(rows: Sequence[tuple[str, Mapping[str, Any]]], *, caption: str, label: str) -> str:
    """Counts per outcome (the text equivalent of a chart), zero-only outcomes left out."""
    shown = [c.key for c in OUTCOME_CATEGORIES
             if c.key == "correct" or any(v["outcomes"].get(c.key, {}).get("count") for _, v in rows)]
    head = "".join(f'<th scope="col">{esc(o)}</th>' for o in shown)
    body = "".join(
        f'<tr><th scope="row">{esc(name)}</th><td>{v["n"]}</td>'
        + "".join(f'<td>{v["outcomes"].get(o, {}).get("count", 0)}</td>' for o in shown)
        + f'<td>{pct(v["outcomes"]["correct"]["rate"])} {interval_text(v["outcomes"]["correct"]["ci95"])}</td></tr>'
        for name, v in rows)
    return (f'<table><caption>{esc(caption)}</caption><thead><tr><th scope="col">{esc(label)}</th>'
            f'<th scope="col">n</th>{head}<th scope="col">correct [95%]</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _coverage_bin(value: object) -> str:
    if not isinstance(value, (int, float)):
        return COVERAGE_BINS[0]
    if value <= 0:
        return COVERAGE_BINS[1]
    if value >= 1:
        return COVERAGE_BINS[6]
    return COVERAGE_BINS[2 + min(int(value * 4), 3)]


def _evidence(value: object) -> str:
    if not isinstance(value, (int, float)):
        return "unknown"
    return "none" if value <= 0 else "all" if value >= 1 else "partial"


def coverage_block(vertical: str, questions: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> str:
    """Histogram of realised coverage, each bar split by outcome, and outcome × evidence counts."""
    bins: dict[str, Counter[str]] = {b: Counter() for b in COVERAGE_BINS}
    evidence: dict[str, Counter[str]] = defaultdict(Counter)
    for q in questions:
        bins[_coverage_bin(q.get("coverage"))][str(q.get("outcome"))] += 1
        evidence[str(q.get("outcome"))][_evidence(q.get("coverage"))] += 1
    rows = [StackRow(b, dict(c), f"{sum(c.values())} question(s)") for b, c in bins.items()]
    chart = stacked_bars(rows, OUTCOME_CATEGORIES, scale=max((sum(c.values()) for c in bins.values()), default=0),
                         title=f"{vertical}: questions per realised-coverage bin, split by outcome")
    columns = ("none", "partial", "all", "unknown")
    body = "".join(f'<tr><th scope="row">{esc(o.key)}</th>' + "".join(f"<td>{evidence[o.key][c]}</td>" for c in columns)
                   + "</tr>" for o in OUTCOME_CATEGORIES if evidence.get(o.key))
    sources = Counter(str(q.get("coverage_source")) for q in questions if q.get("coverage") is not None)
    mean = summary.get("mean")
    line = (f"mean {mean:.2f}, median {summary.get('median'):.2f} over {summary.get('n_defined')} defined value(s); "
            if isinstance(mean, (int, float)) else "no defined coverage; ") + f"{summary.get('n_null')} null"
    used = ", ".join(f"{esc(k)} list: {v}" for k, v in sorted(sources.items()))
    return (f"<h3>Realised coverage and evidence</h3><p>Coverage = gold sessions in the answer context ÷ gold "
            f"sessions; {esc(line)}{f' ({used})' if used else ''}.</p>" + _pair(
                chart, f'<table><caption>Outcome × gold evidence surfaced (did wrong answers have the evidence?)'
                f'</caption><thead><tr><th scope="col">outcome</th><th scope="col">none (0)</th><th scope="col">'
                f'partial</th><th scope="col">all (1.0)</th><th scope="col">unknown (null)</th></tr></thead>'
                f'<tbody>{body}</tbody></table>'))


def pair_consistency(vertical: Mapping[str, Any], questions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The report's Prospective pair counts, else computed from question rows (§5.7: "same answer"
    compares what the system said, never the labels)."""
    if vertical.get("pair_consistency"):
        return dict(vertical["pair_consistency"])
    arms: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for q in questions:
        if q.get("pair_id") and q.get("arm") in ("before", "after"):
            arms[str(q["pair_id"])][str(q["arm"])] = q
    if not arms:
        return None
    complete = [a for a in arms.values() if len(a) == 2]

    def said(q: Mapping[str, Any]) -> str:
        return " ".join(str(q.get("answer") or "").casefold().split())

    return {"pairs": len(complete), "pairs_incomplete": sorted(p for p, a in arms.items() if len(a) < 2),
            "both_correct": sum(a["before"]["outcome"] == a["after"]["outcome"] == "correct" for a in complete),
            "premature": sum(a["before"]["outcome"] == "premature" for a in complete),
            "missed_after": sum(a["after"]["outcome"] == "missed" for a in complete),
            "same_answer_both_arms": sum(said(a["before"]) == said(a["after"]) for a in complete)}


def _pairs_block(pairs: Mapping[str, Any]) -> str:
    labels = (("both_correct", "both arms correct"), ("premature", "premature on the before arm"),
              ("missed_after", "missed on the after arm"), ("same_answer_both_arms", "same answer on both arms"))
    body = "".join(f'<tr><th scope="row">{esc(label)}</th><td>{pairs.get(key, 0)} of {pairs.get("pairs", 0)}</td></tr>'
                   for key, label in labels)
    incomplete = pairs.get("pairs_incomplete") or []
    note = f"<p>{len(incomplete)} incomplete pair(s): {esc(', '.join(incomplete))}</p>" if incomplete else ""
    return (f'<h3>Prospective pair consistency</h3><table><caption>Before/after pairs (same answer compares what '
            f'the system said, not the labels)</caption><tbody>{body}</tbody></table>{note}')


def _subcounts_block(vertical: Mapping[str, Any]) -> str:
    rows = [("all shapes", vertical), *((s["shape"], s) for s in ordered_shapes(vertical))]
    name = str(vertical["vertical"])
    keys = shown_subcounts(name, [v for _, v in rows])
    head = "".join(f'<th scope="col">{esc(SUBCOUNT_LABELS[k])}</th>' for k in keys)
    body = "".join(f'<tr><th scope="row">{esc(label)}</th><td>{v["n"]}</td>'
                   + "".join(f'<td>{(v.get("subcounts") or {}).get(k, 0)}</td>' for k in keys) + "</tr>"
                   for label, v in rows)
    return (f'<h3>{esc(subcounts_heading(name))}</h3><table><caption>{esc(subcounts_caption(name))}</caption>'
            f'<thead><tr><th scope="col">shape</th><th scope="col">n</th>{head}'
            f"</tr></thead><tbody>{body}</tbody></table>")


def _attribution_block(vertical: Mapping[str, Any]) -> str:
    rows = [("all shapes", vertical), *((s["shape"], s) for s in ordered_shapes(vertical))]
    stack = [StackRow(str(name), {k: int(v["attribution"].get(k, 0)) for k in (c.key for c in ATTRIBUTION_CATEGORIES)},
                      f"observed share {pct(v['attribution'].get('observed_share'))}") for name, v in rows]
    return (f'<h3>Evidence attribution</h3>{legend(ATTRIBUTION_CATEGORIES)}'
            + stacked_bars(stack, ATTRIBUTION_CATEGORIES, title=f"{vertical['vertical']}: evidence attribution per shape"))


def vertical_section(corpus: Mapping[str, Any], vertical: Mapping[str, Any], questions: Sequence[Mapping[str, Any]],
                     *, citation: str, bands: Bands | None, comparison: Comparison | None) -> str:
    """Everything about one vertical of one corpus."""
    name, corpus_id = str(vertical["vertical"]), str(corpus["corpus_id"])
    shapes = list(ordered_shapes(vertical))
    rows = [(str(s["shape"]), s) for s in shapes] + [("all shapes", vertical)]
    parts = [f'<section id="{_slug(corpus_id, name)}" aria-labelledby="{_slug(corpus_id, name)}-h">'
             f'<h2 id="{_slug(corpus_id, name)}-h">{esc(_title(name))} — {esc(corpus_id)} (n={vertical["n"]})</h2>'
             f'<p class="cite">{esc(citation)}</p><h3>Outcomes per shape</h3>'
             f'<p>Bars show the outcome mix; the whisker under each bar is the Wilson 95% interval of the '
             f'correct rate.</p>{legend(OUTCOME_CATEGORIES)}',
             _pair(stacked_bars([_stack_row(label, v) for label, v in rows], OUTCOME_CATEGORIES,
                                title=f"{name}: outcomes per shape with the correct-rate interval"),
                   _vector_table(rows, caption=f"{_title(name)}: outcome counts per shape", label="shape"))]
    distances = vertical.get("outcome_by_distance") or []
    if distances:
        points = []
        for d in distances:
            correct = d["outcomes"]["correct"]
            band = bands.shape(corpus_id, name, f"distance-{d['distance_sessions']}") if bands else None
            rate = band.rates["correct"] if band else None
            points.append(RatePoint(str(d["distance_sessions"]), correct["rate"],
                                    tuple(correct["ci95"]) if correct["ci95"] else None, int(d["n"]),  # type: ignore[arg-type]
                                    (rate.low, rate.high) if rate and rate.low is not None and rate.high is not None
                                    else None))
        parts.append("<h3>Correct rate × distance</h3>" + _pair(
            rate_chart(points, title=f"{name}: correct rate by distance in sessions, Wilson 95% intervals",
                       x_title="distance (sessions between the fact and the question)"),
            _vector_table([(f"{d['distance_sessions']} sessions", d) for d in distances],
                          caption="Outcome × distance", label="distance")))
    parts.append(coverage_block(name, questions, vertical.get("coverage") or {}))
    parts.append(_attribution_block(vertical))
    if name == "forgetting" or any(any((v.get("subcounts") or {}).values()) for _, v in rows):
        parts.append(_subcounts_block(vertical))
    pairs = pair_consistency(vertical, questions)
    if pairs is not None:
        parts.append(_pairs_block(pairs))
    order = vertical.get("surfaced_order")
    if order:
        parts.append(_surfaced_order_block(order))
    if bands is not None:
        parts.append(vertical_bands(bands, corpus_id, name, shapes))
    if comparison is not None:
        parts.append(vertical_comparison(comparison, corpus_id, name))
    parts.append("</section>")
    return "".join(parts)


def _surfaced_order_block(order: Mapping[str, Any]) -> str:
    """List order over the surfaced items (issue 21, item 3): a figure beside the vector, never an
    outcome, so it is said in words under its own heading."""
    interval = order.get("ci95") or [None, None]
    bounds = (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval[0] is not None else "")
    return ("<h3>List order over surfaced items</h3>"
            f"<p>{order['consistent']} of {order['n']} list answers that name two or more items the "
            f"system surfaced state them in gold order ({order['rate']:.2f}{esc(bounds)}); never an "
            "outcome: a consistent partial list is still <code>wrong</code>.</p>")


def _judge_identity(judge: Mapping[str, Any]) -> str:
    """``mode / name / model M``, each part once: the mechanical judge's mode and name are the same
    word, and ``mechanical / mechanical`` reads as a typo (issue 22, item 8)."""
    parts: list[str] = []
    for part in (judge.get("mode"), judge.get("name")):
        if part and str(part) not in parts:
            parts.append(str(part))
    if judge.get("model"):
        parts.append(f"model {judge['model']}")
    return " / ".join(parts) or "—"


def _identity_block(report: Mapping[str, Any]) -> str:
    judge = report.get("judge") or {}
    corpora = "".join(
        f'<tr><td>{esc(c.get("corpus_id"))}</td><td>{esc(c.get("vertical"))}</td><td>{esc(c.get("questions"))}</td>'
        f'<td><code>{esc(c.get("sha256"))}</code></td><td class="cite">{esc(c.get("citation"))}</td></tr>'
        for c in report.get("corpora") or [])
    items = [("tool", f"{(report.get('tool') or {}).get('name')} {(report.get('tool') or {}).get('version')}"),
             ("judge", _judge_identity(judge)),
             ("judge fingerprint", str(judge.get("fingerprint")))]
    model = report.get("model")
    if isinstance(model, Mapping):
        ledger = model.get("ledger") or {}
        served = ", ".join(str(s) for s in model.get("served_models") or []) or "no reply received"
        items += [("answering model", f"{model.get('agent')} asked {model.get('model')} at {model.get('base_url')} "
                                      f"(temperature {model.get('temperature')}, max_tokens {model.get('max_tokens')}, "
                                      f"seed {model.get('seed')}); served by {served}"),
                  ("model calls", f"{ledger.get('calls')} call(s), {ledger.get('cache_hits')} cache hit(s), "
                                  f"{ledger.get('refused')} refused by the ceiling"),
                  ("cost", f"${float(ledger.get('spent_usd') or 0):.4f} spent of a ${ledger.get('ceiling_usd')} ceiling")]
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
    return (f'<section id="identity" aria-labelledby="identity-h"><h2 id="identity-h">Run identity</h2><dl class="identity">{dl}</dl>'
            f'<table><caption>Corpora (cite results by these lines; there is no composite score across verticals)'
            f'</caption><thead><tr><th scope="col">corpus</th><th scope="col">vertical</th><th scope="col">questions</th>'
            f'<th scope="col">sha256</th><th scope="col">citation</th></tr></thead><tbody>{corpora}</tbody></table></section>')


def _warnings(report: Mapping[str, Any]) -> str:
    lines = []
    if report.get("complete") is False:
        lines.append(f"PARTIAL RUN: {len(report.get('not_run') or [])} of {report.get('selected')} selected "
                     "question(s) did not run")
    if report.get("adapter_failure"):
        lines.append(f"adapter failure: {report['adapter_failure']}")
    if report.get("stop_reason"):
        lines.append(f"interrupted: {report['stop_reason']}")
    for lost in report.get("workers_lost") or []:
        lines.append(f"xdist worker {lost.get('worker')} died")
    if report.get("missing_results"):
        lines.append(f"{len(report['missing_results'])} result(s) never reached the controller")
    return "".join(f'<p class="warn" role="alert">{esc(line)}</p>' for line in lines)


def render_html(report: Mapping[str, Any], *, bands: Bands | None = None, comparison: Comparison | None = None) -> str:
    """The whole page for one JSON report, optionally with bands across runs and an A/B comparison."""
    questions = list(report.get("questions") or [])
    by_vertical: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for q in questions:
        by_vertical[str(q.get("corpus_id")), str(q.get("vertical"))].append(q)
    citations = {str(c.get("corpus_id")): str(c.get("citation")) for c in report.get("corpora") or []}
    sections, toc = [], []
    for corpus in report.get("results") or []:
        for vertical in corpus.get("verticals") or []:
            cid, name = str(corpus["corpus_id"]), str(vertical["vertical"])
            toc.append(f'<li><a href="#{_slug(cid, name)}">{esc(_title(name))} — {esc(cid)}</a></li>')
            sections.append(vertical_section(corpus, vertical, by_vertical[cid, name], citation=citations.get(cid, cid),
                                             bands=bands, comparison=comparison))
    runs = ([bands_section(bands)] if bands else []) + ([comparison_section(comparison)] if comparison else [])
    flips = {(q.corpus_id, q.question_id): q.changes for q in bands.questions} if bands else None
    outcomes = Counter(str(q.get("outcome")) for q in questions)
    summary = ", ".join(f"{outcomes[c.key]} {c.key}" for c in OUTCOME_CATEGORIES if outcomes[c.key])
    corpus_names = ", ".join(sorted(citations)) or "no corpus"
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>TypedMemEval report: {len(questions)} questions ({esc(corpus_names)})</title>"
        f"<style>{CSS}</style></head><body><header><h1>TypedMemEval report</h1>"
        f"<p>{len(questions)} question(s) over {len(sections)} corpus × vertical section(s): {esc(summary)}. "
        "Each vertical is reported as its outcome vector with n; rates carry Wilson 95% intervals.</p>"
        f'{_warnings(report)}<nav aria-label="Sections"><ul>{"".join(toc)}'
        + ('<li><a href="#bands">Bands across runs</a></li>' if bands else "")
        + ('<li><a href="#comparison">Comparison</a></li>' if comparison else "")
        + '<li><a href="#all-questions">Every question</a></li><li><a href="#identity">Run identity</a></li></ul></nav>'
        f'</header><main>{"".join(sections)}{"".join(runs)}'
        f'<section id="all-questions" aria-labelledby="all-questions-h"><h2 id="all-questions-h">Every question</h2>'
        f"{question_table(questions, flips=flips)}</section>{_identity_block(report)}</main>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
    return _RESERVED.sub(REDACTION, page)


__all__ = ["render_html"]
