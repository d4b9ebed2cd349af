"""The every-question table of the HTML report: failures first, sortable and filterable.

Rows are kept small (a 5,000-question run must still load in seconds): no per-row attributes but
the outcome rank, answers cut at :data:`MAX_TEXT` characters (the JSON report keeps them whole).
The script reads everything from the DOM, so no report text is ever placed inside ``<script>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .charts import esc

FAILURE_FIRST = ("error", "wrong", "missed", "premature", "abstained", "unjudged", "correct")
"""Table order and the rank the sort script uses: what needs looking at comes first."""
MAX_TEXT = 400


def outcome_rank(outcome: str) -> int:
    return FAILURE_FIRST.index(outcome) if outcome in FAILURE_FIRST else len(FAILURE_FIRST)


def _cut(text: object) -> str:
    value = "" if text is None else str(text)
    if len(value) <= MAX_TEXT:
        return esc(value)
    return f'{esc(value[:MAX_TEXT])}<i>… ({len(value)} chars)</i>'


def _coverage(value: object) -> str:
    return "—" if not isinstance(value, (int, float)) else f"{value:.2f}"


def question_table(questions: Sequence[Mapping[str, Any]], *, flips: Mapping[tuple[str, str], int] | None = None) -> str:
    """The table, its filter controls and the count line; ``flips`` adds a column of flip counts."""
    ordered = sorted(questions, key=lambda q: (outcome_rank(str(q.get("outcome"))), str(q.get("corpus_id")),
                                                str(q.get("question_id"))))
    verticals = sorted({str(q.get("vertical")) for q in questions})
    outcomes = [o for o in FAILURE_FIRST if any(q.get("outcome") == o for q in questions)]
    head = ["Outcome", "Id", "Vertical / shape", "Question", "Gold", "Answer", "Reason", "Coverage"]
    if flips is not None:
        head.append("Flips")
    rows = []
    for q in ordered:
        outcome = str(q.get("outcome"))
        cells = [f'<td class="o o-{esc(outcome)}">{esc(outcome)}</td>',
                 f'<td title="{esc(q.get("corpus_id"))}">{esc(q.get("question_id"))}</td>',
                 f'<td>{esc(q.get("vertical"))} / {esc(q.get("shape"))}</td>',
                 f"<td>{_cut(q.get('question'))}</td><td>{_cut(q.get('gold'))}</td>",
                 f"<td>{_cut(q.get('answer'))}</td><td>{_cut(q.get('reason'))}</td>",
                 f"<td>{_coverage(q.get('coverage'))}</td>"]
        if flips is not None:
            cells.append(f"<td>{flips.get((str(q.get('corpus_id')), str(q.get('question_id'))), 0)}</td>")
        rows.append(f'<tr data-r="{outcome_rank(outcome)}">{"".join(cells)}</tr>')
    header = "".join(f'<th scope="col"><button type="button" data-col="{i}">{esc(h)}</button></th>'
                     for i, h in enumerate(head))
    vertical_options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in verticals)
    outcome_options = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in outcomes)
    return (
        '<div class="filters" role="search">'
        '<label>Search <input type="search" id="q-filter" placeholder="text in any column"></label> '
        f'<label>Outcome <select id="q-outcome"><option value="">all</option>'
        f'<option value="!correct">all but correct</option>{outcome_options}</select></label> '
        f'<label>Vertical <select id="q-vertical"><option value="">all</option>{vertical_options}</select></label> '
        f'<span id="q-count" aria-live="polite">{len(ordered)} of {len(ordered)} questions</span></div>'
        f'<table id="questions" class="questions"><caption>Every question, failures first '
        f'(click a column header to sort)</caption><thead><tr>{header}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table>'
    )


SCRIPT = """
(function () {
  var table = document.getElementById('questions');
  if (!table) { return; }
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var text = rows.map(function (r) { return r.textContent.toLowerCase(); });
  var filter = document.getElementById('q-filter'), outcome = document.getElementById('q-outcome');
  var vertical = document.getElementById('q-vertical'), count = document.getElementById('q-count');
  function apply() {
    var needle = filter.value.toLowerCase(), o = outcome.value, v = vertical.value, shown = 0;
    rows.forEach(function (r, i) {
      var cellO = r.cells[0].textContent, cellV = r.cells[2].textContent.split(' / ')[0];
      var ok = (!needle || text[i].indexOf(needle) >= 0) && (!v || cellV === v) &&
        (!o || (o === '!correct' ? cellO !== 'correct' : cellO === o));
      r.hidden = !ok; if (ok) { shown += 1; }
    });
    count.textContent = shown + ' of ' + rows.length + ' questions';
  }
  [filter, outcome, vertical].forEach(function (el) { el.addEventListener('input', apply); });
  var state = {col: -1, dir: 1};
  function key(r, col) {
    if (col === 0) { return Number(r.getAttribute('data-r')); }
    var t = r.cells[col].textContent;
    if (col === 7 || col === 8) { var n = parseFloat(t); return isNaN(n) ? -1 : n; }
    return t.toLowerCase();
  }
  table.tHead.addEventListener('click', function (ev) {
    var button = ev.target.closest('button[data-col]');
    if (!button) { return; }
    var col = Number(button.getAttribute('data-col'));
    state.dir = state.col === col ? -state.dir : 1; state.col = col;
    var order = rows.map(function (r, i) { return [key(r, col), i, r]; });
    order.sort(function (a, b) { return a[0] < b[0] ? -state.dir : a[0] > b[0] ? state.dir : a[1] - b[1]; });
    var frag = document.createDocumentFragment();
    order.forEach(function (e) { frag.appendChild(e[2]); });
    body.appendChild(frag);
    Array.prototype.forEach.call(table.tHead.querySelectorAll('th'), function (th, i) {
      if (i === col) { th.setAttribute('aria-sort', state.dir > 0 ? 'ascending' : 'descending'); }
      else { th.removeAttribute('aria-sort'); }
    });
  });
})();
"""

__all__ = ["FAILURE_FIRST", "MAX_TEXT", "SCRIPT", "outcome_rank", "question_table"]
