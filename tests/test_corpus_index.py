"""A corpus held as question heads (issue 13): the same records, errors and identity as a whole
load, each record read back from its own bytes when it runs, and a cache that can only save work.

The whole load (:func:`load_corpus`) is the reference every property here is checked against.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.corpus import CorpusError, load_corpus, shipped_corpus_paths
from pytest_typedmemeval.corpus import loading as loading_module
from pytest_typedmemeval.corpus.index import CorpusIndex, index_corpus
from pytest_typedmemeval.item_ids import item_ids

ROOT = Path(__file__).resolve().parents[1]
MALFORMED = ROOT / "fixtures" / "malformed"
FIXTURE_CORPUS = ROOT / "fixtures" / "corpus"
ARITHMETIC_FIXTURE = FIXTURE_CORPUS / "typedmemeval-fixture-arithmetic-v0.json"


class DictCache:
    """pytest's cache as far as the index uses it (``get``/``set``), counting writes."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.writes = 0

    def get(self, key: str, default: Any) -> Any:
        return json.loads(json.dumps(self.values[key])) if key in self.values else default

    def set(self, key: str, value: Any) -> None:
        self.writes += 1
        self.values[key] = json.loads(json.dumps(value))


def _error(load: Any, path: Path) -> str:
    with pytest.raises(CorpusError) as caught:
        load(path)
    return str(caught.value)


@pytest.mark.parametrize("path", sorted(MALFORMED.glob("*.json")), ids=lambda p: p.name)
def test_a_malformed_file_gets_the_whole_load_s_one_line_error(path: Path) -> None:
    assert _error(index_corpus, path) == _error(load_corpus, path)


@pytest.mark.parametrize("text", [
    "[]", "{}", "", "[1, 2]", '"text"', "[{}] trailing", "[{} {}]", "[{},]", "\ufeff[{}]", "[{}",
], ids=["empty", "object", "nothing", "numbers", "string", "trailing", "no-comma", "dangling-comma",
        "bom", "unclosed"])
def test_a_document_that_is_not_an_array_of_records_is_worded_as_a_whole_parse_words_it(
        tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    assert _error(index_corpus, path) == _error(load_corpus, path)


def _corpora() -> list[Path]:
    return [*shipped_corpus_paths(), *sorted(FIXTURE_CORPUS.glob("typedmemeval-*-v0.json"))]


@pytest.mark.parametrize("path", _corpora(), ids=lambda p: p.stem)
def test_every_head_reads_back_the_record_the_whole_load_holds(path: Path) -> None:
    whole, indexed = load_corpus(path), index_corpus(path)
    assert (indexed.corpus_id, indexed.sha256, indexed.vertical, indexed.sidecar) == (
        whole.corpus_id, whole.sha256, whole.vertical, whole.sidecar)
    assert [head.question_id for head in indexed.heads] == [record.question_id for record in whole.records]
    assert [indexed.record(head) for head in indexed.heads] == list(whole.records)
    assert item_ids(indexed.heads, indexed.sha256) == item_ids(whole.records, whole.sha256)
    assert indexed.citation(frozenset({whole.sha256})) == whole.citation(frozenset({whole.sha256}))


def test_offsets_are_bytes_in_a_file_with_non_ascii_text_crlf_and_indentation(tmp_path: Path) -> None:
    records = json.loads(ARITHMETIC_FIXTURE.read_text(encoding="utf-8"))
    records[0]["question"] = "Combien ai-je dépensé au café ☕ — en tout ?"
    records[1]["haystack_sessions"][0][0]["content"] += " Ünïcödé 𝄞 text"
    path = tmp_path / ARITHMETIC_FIXTURE.name
    path.write_bytes(json.dumps(records, indent=3, ensure_ascii=False).replace("\n", "\r\n").encode("utf-8"))
    whole, indexed = load_corpus(path), index_corpus(path)
    assert [indexed.record(head) for head in indexed.heads] == list(whole.records)
    assert indexed.heads[0].question == records[0]["question"]
    assert indexed.sha256 == whole.sha256


def test_a_file_edited_after_loading_is_refused_per_question_naming_it(tmp_path: Path) -> None:
    path = tmp_path / ARITHMETIC_FIXTURE.name
    path.write_bytes(ARITHMETIC_FIXTURE.read_bytes())
    indexed = index_corpus(path)
    first, last = indexed.heads[0], indexed.heads[-1]
    path.write_bytes(path.read_bytes().replace(last.question.encode(), last.question.upper().encode()))
    with pytest.raises(CorpusError, match="changed since it was loaded") as caught:
        indexed.record(last)
    assert caught.value.question_id == last.question_id and "\n" not in str(caught.value)
    with pytest.raises(CorpusError, match="changed since it was loaded"):
        indexed.whole()
    path.unlink()
    with pytest.raises(CorpusError, match="cannot read the record back") as caught:
        indexed.record(first)
    assert caught.value.question_id == first.question_id


def test_the_cache_is_written_once_and_then_spares_validation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = DictCache()
    built = index_corpus(ARITHMETIC_FIXTURE, cache)
    assert cache.writes == 1

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("validated again although the cache holds these bytes")

    monkeypatch.setattr(loading_module, "validated_records", refuse)
    cached = index_corpus(ARITHMETIC_FIXTURE, cache)
    assert cached.heads == built.heads and cached.sha256 == built.sha256 and cache.writes == 1
    monkeypatch.undo()
    assert cached.sidecar == built.sidecar == load_corpus(ARITHMETIC_FIXTURE).sidecar is not None
    assert cached.vertical == built.vertical == "arithmetic"


@pytest.mark.parametrize("damage", ["other bytes", "other code", "garbled heads", "not a dict"])
def test_a_cache_entry_that_does_not_describe_these_bytes_and_this_code_is_a_miss(damage: str) -> None:
    cache = DictCache()
    built = index_corpus(ARITHMETIC_FIXTURE, cache)
    (key, entry), = cache.values.items()
    if damage == "other bytes":
        entry["sha256"] = "0" * 64
    elif damage == "other code":
        entry["code"] = "an older loader"
    elif damage == "garbled heads":
        entry["heads"][0] = entry["heads"][0][:-2]
    else:
        cache.values[key] = ["not", "a", "dict"]
    again = index_corpus(ARITHMETIC_FIXTURE, cache)
    assert again.heads == built.heads and cache.writes == 2


def test_a_worker_reads_the_cache_but_never_writes_it() -> None:
    cache = DictCache()
    index_corpus(ARITHMETIC_FIXTURE, cache, store=False)
    assert cache.writes == 0 and not cache.values


def test_a_cached_head_that_lies_about_its_record_is_refused_when_the_record_is_read() -> None:
    cache = DictCache()
    index_corpus(ARITHMETIC_FIXTURE, cache)
    (entry,) = cache.values.values()
    entry["heads"][0][2] = "durations" if entry["heads"][0][2] != "durations" else "sums"  # the shape
    lying: CorpusIndex = index_corpus(ARITHMETIC_FIXTURE, cache)
    with pytest.raises(CorpusError, match="differs from the one indexed"):
        lying.record(lying.heads[0])


EDITING_CONFTEST = '''
from pathlib import Path
import pytest

class EditsItsCorpus:
    """Answers nothing, and on the first question rewrites the corpus file's last question."""

    def __init__(self):
        self.edited = False

    def reset(self):
        if not self.edited:
            path = Path("arith.json")
            path.write_bytes(path.read_bytes().replace({last!r}, {last_upper!r}))
            self.edited = True

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        return "I do not have that information."

@pytest.fixture(scope="session")
def typedmemeval_agent():
    return EditsItsCorpus()
'''


def test_a_corpus_edited_during_a_run_makes_its_changed_question_an_error_and_loses_nothing(
        pytester: pytest.Pytester) -> None:
    indexed = index_corpus(ARITHMETIC_FIXTURE)
    last = indexed.heads[-1].question.encode()
    (pytester.path / "arith.json").write_bytes(ARITHMETIC_FIXTURE.read_bytes())
    pytester.makeconftest(EDITING_CONFTEST.format(last=last, last_upper=last.upper()))
    result = pytester.runpytest("--tme-corpus=arith.json", "--tme-report=r.json", "-p", "no:randomly")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    outcomes = {row["question_id"]: row for row in report["questions"]}
    assert len(outcomes) == len(indexed.heads)
    changed = outcomes[indexed.heads[-1].question_id]
    assert changed["outcome"] == "error" and "changed since it was loaded" in changed["reason"]
    assert all(row["outcome"] != "error" for qid, row in outcomes.items() if qid != indexed.heads[-1].question_id)
    assert report["corpora"][0]["sha256"] == indexed.sha256  # the bytes the run set out to measure
    result.stdout.fnmatch_lines(["*changed since it was loaded*"])


def test_pytest_s_cache_holds_the_index_and_cached_xdist_and_cleared_runs_report_alike(
        consumer: pytest.Pytester) -> None:
    from _support import corpus_args

    first = consumer.runpytest(*corpus_args(consumer), "--tme-report=a.json")
    entries = sorted((consumer.path / ".pytest_cache" / "v" / "typedmemeval" / "corpus-index").iterdir())
    assert [entry.name for entry in entries] == sorted(p.stem for p in consumer.path.glob("corpus_*.json"))
    second = consumer.runpytest(*corpus_args(consumer), "--tme-report=b.json", "-n", "2")
    cleared = consumer.runpytest(*corpus_args(consumer), "--tme-report=c.json", "--cache-clear")

    def without_timing(name: str) -> dict[str, Any]:
        report = json.loads((consumer.path / name).read_text(encoding="utf-8"))
        report.pop("timing")
        for row in report["questions"]:
            row.pop("duration_seconds", None)
        return report

    assert first.ret == second.ret == cleared.ret
    assert without_timing("a.json") == without_timing("b.json") == without_timing("c.json")


def test_collecting_from_the_cache_imports_neither_pydantic_nor_the_record_models(tmp_path: Path) -> None:
    """``--co`` and the xdist controller pay for hashing, not for validation (issue 13, P2)."""
    import subprocess
    import sys

    script = f"""
import json, sys
from pathlib import Path
from pytest_typedmemeval.corpus.index import index_corpus

class Cache(dict):
    def get(self, key, default):
        return super().get(key, default)
    def set(self, key, value):
        self[key] = json.loads(json.dumps(value))

path = Path({str(ARITHMETIC_FIXTURE)!r})
cache = Cache()
index_corpus(path, cache)  # validates (imports pydantic), fills the cache
for name in [n for n in sys.modules if n.startswith(("pydantic", "pytest_typedmemeval.corpus.models",
                                                     "pytest_typedmemeval.corpus.loading"))]:
    del sys.modules[name]
index = index_corpus(path, cache)
assert index.heads and index.vertical == "arithmetic"
print(sorted(n for n in sys.modules if n.startswith("pydantic") or n.endswith((".models", ".loading"))))
"""
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert completed.stdout.strip() == "[]"
