"""A cheap first run (issue 24, item 3): what a question reads back when it runs is the record the
whole load validated, without validating it a second time, and xdist workers validate nothing the
controller already validated.

The whole load (:func:`load_corpus`) and the full read-back (:meth:`CorpusIndex.record`) are the
references: the run's read-back (:meth:`CorpusIndex.run_record`) must give the adapter the very
same view, the judge the very same key, and refuse what they refuse.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.adapter.projection import adapter_view, opaque_to_index
from pytest_typedmemeval.adapter.protocol import Turn
from pytest_typedmemeval.corpus import CorpusError, shipped_corpus_paths
from pytest_typedmemeval.corpus.index import CorpusIndex, HandedIndexes, cache_key, index_corpus, index_entry

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_CORPUS = ROOT / "fixtures" / "corpus"
ARITHMETIC_FIXTURE = FIXTURE_CORPUS / "typedmemeval-fixture-arithmetic-v0.json"


def _corpora() -> list[Path]:
    return [*shipped_corpus_paths(), *sorted(FIXTURE_CORPUS.glob("typedmemeval-*-v0.json"))]


def _what_a_run_reads(record: Any) -> tuple[object, ...]:
    """Everything the runner, the judge and the result read of a record."""
    return (record.question_id, record.question, record.answer, record.question_date,
            record.haystack_session_ids, record.haystack_dates, record.answer_session_ids,
            record.typedmemeval, record.query_time, record.session_times, record.vertical, record.shape,
            record.arm, record.expected_negative, record.has_gold, record.gold_session_indices,
            adapter_view(record), opaque_to_index(record))


@pytest.mark.parametrize("path", _corpora(), ids=lambda p: p.stem)
def test_the_run_reads_back_what_the_full_read_back_gives(path: Path) -> None:
    indexed = index_corpus(path)
    for head in indexed.heads:
        assert _what_a_run_reads(indexed.run_record(head, Turn)) == _what_a_run_reads(indexed.record(head))


def test_the_adapter_s_turns_are_the_stored_turns_without_their_labels() -> None:
    indexed = index_corpus(ARITHMETIC_FIXTURE)
    head = indexed.heads[0]
    whole, run = indexed.record(head), indexed.run_record(head, Turn)
    view = adapter_view(run)
    assert [[(t.role, t.content, t.timestamp) for t in s.turns] for s in view.sessions] == [
        [(t.role, t.content, None) for t in session] for session in whole.haystack_sessions]


def test_a_file_edited_after_indexing_is_refused_by_the_run_s_read_back(tmp_path: Path) -> None:
    path = tmp_path / ARITHMETIC_FIXTURE.name
    path.write_bytes(ARITHMETIC_FIXTURE.read_bytes())
    indexed = index_corpus(path)
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["question"] = records[0]["question"] + " (edited)"
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(CorpusError, match="changed since it was loaded"):
        indexed.run_record(indexed.heads[0], Turn)


class DictCache:
    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def get(self, key: str, default: Any) -> Any:
        return json.loads(json.dumps(self.values[key])) if key in self.values else default

    def set(self, key: str, value: Any) -> None:
        self.values[key] = json.loads(json.dumps(value))


def test_a_cached_head_that_lies_about_its_record_is_refused_by_the_run_s_read_back() -> None:
    cache = DictCache()
    index_corpus(ARITHMETIC_FIXTURE, cache)
    (entry,) = cache.values.values()
    entry["heads"][0][2] = "durations" if entry["heads"][0][2] != "durations" else "sums"  # the shape
    lying: CorpusIndex = index_corpus(ARITHMETIC_FIXTURE, cache)
    with pytest.raises(CorpusError, match="differs from the one indexed"):
        lying.run_record(lying.heads[0], Turn)


def test_a_cached_head_pointing_at_other_bytes_of_the_file_is_refused() -> None:
    """A damaged entry whose offset, length and digest name a piece of the file that is not a
    record (here: the record's typedmemeval block) is refused, never read as a record."""
    import hashlib

    cache = DictCache()
    index_corpus(ARITHMETIC_FIXTURE, cache)
    (entry,) = cache.values.values()
    raw = ARITHMETIC_FIXTURE.read_bytes()
    row = entry["heads"][0]
    offset, length = row[-3], row[-2]
    inner = raw.index(b'"typedmemeval"', offset) + len(b'"typedmemeval"')
    inner = raw.index(b"{", inner)
    text = raw[inner:offset + length].decode("utf-8")
    _, consumed = json.JSONDecoder().raw_decode(text)
    end = inner + len(text[:consumed].encode("utf-8"))
    row[-3], row[-2], row[-1] = inner, end - inner, hashlib.sha256(raw[inner:end]).hexdigest()
    damaged: CorpusIndex = index_corpus(ARITHMETIC_FIXTURE, cache)
    with pytest.raises(CorpusError, match="differs from the one indexed"):
        damaged.run_record(damaged.heads[0], Turn)


def test_handed_indexes_are_read_as_cache_entries_and_fall_through_to_the_cache() -> None:
    validated = index_corpus(ARITHMETIC_FIXTURE)
    handed = HandedIndexes({cache_key(ARITHMETIC_FIXTURE): index_entry(validated)}, None)
    taken = index_corpus(ARITHMETIC_FIXTURE, handed, store=False)
    assert taken.heads == validated.heads and taken.sha256 == validated.sha256
    behind = DictCache()
    assert HandedIndexes({}, behind).get("missing", "default") == "default"
    stale = index_entry(validated) | {"sha256": "0" * 64}
    again = index_corpus(ARITHMETIC_FIXTURE, HandedIndexes({cache_key(ARITHMETIC_FIXTURE): stale}, None))
    assert again.heads == validated.heads  # a stale entry is a miss: validated from the bytes


COUNTING_CONFTEST = '''
import os
import pytest
from pytest_typedmemeval.corpus import loading

_validated = loading.validated_records
_role = "controller"


def pytest_configure(config):
    # By the config, not PYTEST_XDIST_WORKER: a run started from inside an xdist worker (this
    # suite under -n) inherits that variable in its controller too.
    global _role
    if hasattr(config, "workerinput"):
        _role = config.workerinput["workerid"]


def _counting(*args, **kwargs):
    with open(f"validated-{_role}.txt", "a") as handle:
        handle.write("corpus\\n")
    return _validated(*args, **kwargs)


loading.validated_records = _counting


class NoOp:
    def reset(self): pass
    def ingest(self, session): pass
    def answer(self, question, *, query_time, instruction): return "I don't know."


@pytest.fixture(scope="session")
def typedmemeval_agent():
    return NoOp()
'''


def test_on_a_first_run_xdist_workers_validate_nothing_the_controller_validated(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(COUNTING_CONFTEST)
    corpus = pytester.path / ARITHMETIC_FIXTURE.name
    corpus.write_bytes(ARITHMETIC_FIXTURE.read_bytes())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", f"--tme-corpus={corpus}",
                                           "--tme-fail-under", "0", "--tme-report=report.json")
    assert (pytester.path / "report.json").is_file(), result.stdout.str()
    counted = {path.name: path.read_text().count("corpus") for path in pytester.path.glob("validated-*.txt")}
    assert counted == {"validated-controller.txt": 1}
    questions = json.loads((pytester.path / "report.json").read_text())["questions"]
    assert len(questions) == len(json.loads(ARITHMETIC_FIXTURE.read_text(encoding="utf-8")))
