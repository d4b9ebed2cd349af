"""``--tme-shard K/N`` and ``typedmemeval report --merge`` (issue 24, part 2).

The split is checked as a function (deterministic, stable under order, balanced per stratum and
per corpus cell, a stratum's split independent of the others); the merge end to end on the shipped
corpora with the built-in reference agent: the merged report of four shards is the unsharded run's
report byte for byte once the ``timing`` block is set aside, under ``-n 0`` and ``-n 2`` alike, and
every way shards can fail to be one run is refused in one line naming the file.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.corpus.shards import (
    ShardQuestion,
    ShardSpec,
    ShardSpecError,
    assign_shards,
)
from pytest_typedmemeval.report.document import dumps_report

SHARDS = 4
RUN = ("-p", "no:cacheprovider", "--typedmemeval", "--tme-agent", "reference",
       "--tme-fail-under", "0")


def _questions(seed: int = 0) -> list[ShardQuestion]:
    rng = random.Random(seed)
    questions = []
    for corpus in ("corpus-a", "corpus-b"):
        for vertical, shape, size in (("arithmetic", "sums", 13), ("arithmetic", "deltas", 7),
                                      ("forgetting", "current", 5), ("forgetting", "as-of", 1)):
            for number in range(size + rng.randrange(3)):
                questions.append(ShardQuestion(corpus, f"tme-{rng.getrandbits(32):08x}-{number}", vertical, shape))
    return questions


def test_a_shard_spec_is_k_of_n() -> None:
    assert ShardSpec.parse("2/4") == ShardSpec(2, 4) and str(ShardSpec(2, 4)) == "2/4"
    for bad in ("0/4", "5/4", "4", "a/b", "1/0", "-1/2"):
        with pytest.raises(ShardSpecError, match="K/N"):
            ShardSpec.parse(bad)


def test_the_split_is_a_partition_stable_under_order_and_balanced() -> None:
    questions = _questions()
    shards = assign_shards(questions, SHARDS)
    assert set(shards) == {(q.corpus_id, q.question_id) for q in questions}
    assert set(shards.values()) <= set(range(1, SHARDS + 1))
    shuffled = list(questions)
    random.Random(7).shuffle(shuffled)
    assert assign_shards(reversed(shuffled), SHARDS) == shards
    for cell in ({(q.vertical, q.shape) for q in questions} | {(q.corpus_id, q.vertical, q.shape)
                                                                for q in questions}):
        members = [q for q in questions if cell in ((q.vertical, q.shape), (q.corpus_id, q.vertical, q.shape))]
        sizes = Counter(shards[q.corpus_id, q.question_id] for q in members)
        counts = [sizes.get(k, 0) for k in range(1, SHARDS + 1)]
        assert max(counts) - min(counts) <= 1, (cell, counts)


def test_a_question_s_shard_depends_only_on_its_own_stratum() -> None:
    questions = _questions()
    shards = assign_shards(questions, SHARDS)
    without_sums = [q for q in questions if q.shape != "sums"]
    assert {k: v for k, v in shards.items() if k in {(q.corpus_id, q.question_id) for q in without_sums}} == (
        assign_shards(without_sums, SHARDS))


# --- end to end ---------------------------------------------------------------------------------


def _pytest(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", *RUN, *args], cwd=where, capture_output=True,
                          text=True, timeout=600)


def _merge(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_typedmemeval.cli", "report", *args], cwd=where,
                          capture_output=True, text=True, timeout=600)


def _without_timing(path: Path) -> str:
    report = json.loads(path.read_text(encoding="utf-8"))
    report.pop("timing")
    return dumps_report(report)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One unsharded run and its four shards (shard 2 also under ``-n 2``), in one scratch project."""
    where = tmp_path_factory.mktemp("sharded")
    (where / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    assert _pytest(where, "--tme-report=full.json").returncode == 0
    for k in range(1, SHARDS + 1):
        done = _pytest(where, f"--tme-shard={k}/{SHARDS}", f"--tme-report=shard{k}.json")
        assert done.returncode == 0, done.stdout[-2000:]
    done = _pytest(where, "--tme-shard=2/4", "-n", "2", "--tme-report=shard2-xdist.json")
    assert done.returncode == 0, done.stdout[-2000:]
    return where


def _shard_files(where: Path) -> list[str]:
    return [f"shard{k}.json" for k in range(1, SHARDS + 1)]


def test_four_merged_shards_are_the_unsharded_report(runs: Path) -> None:
    done = _merge(runs, "--merge", *reversed(_shard_files(runs)), "-o", "merged.json")
    assert done.returncode == 0, done.stdout
    assert "merged 4 shard(s), 260 question(s)" in done.stdout
    assert _without_timing(runs / "merged.json") == _without_timing(runs / "full.json")
    merged = json.loads((runs / "merged.json").read_text(encoding="utf-8"))
    assert "shard" not in merged and set(merged["timing"]["per_question_seconds"]) == {
        f"{q['corpus_id']}/{q['question_id']}" for q in merged["questions"]}


def test_a_shard_is_the_same_under_xdist_and_balanced(runs: Path) -> None:
    assert _without_timing(runs / "shard2-xdist.json") == _without_timing(runs / "shard2.json")
    sizes = [json.loads((runs / name).read_text(encoding="utf-8"))["selected"] for name in _shard_files(runs)]
    assert sum(sizes) == 260 and max(sizes) - min(sizes) <= 5
    block = json.loads((runs / "shard2.json").read_text(encoding="utf-8"))["shard"]
    assert (block["index"], block["count"], block["selected_before_sharding"]) == (2, 4, 260)


def test_merge_time_bounds_are_those_of_an_unsharded_run_given_them(runs: Path) -> None:
    done = _pytest(runs, "--tme-fail-under", "arithmetic=0.5", "--tme-fail-under", "never_known=0.1",
                   "--tme-report=bounded.json")
    merged = _merge(runs, "--merge", *_shard_files(runs), "-o", "bounded-merged.json", "--fail-under", "0",
                    "--fail-under", "arithmetic=0.5", "--fail-under", "never_known=0.1")
    assert done.returncode == merged.returncode == 1
    assert "FAILED" in merged.stdout and "arithmetic: correct 0.00 < 0.50 (n=50)" in merged.stdout
    # The shards ran with --tme-fail-under 0 alone; the merge's bounds replace theirs as the run's own.
    assert _without_timing(runs / "bounded-merged.json") == _without_timing(runs / "bounded.json")
    unknown = _merge(runs, "--merge", *_shard_files(runs), "-o", "x.json", "--fail-under", "arithmetc=0.5")
    assert unknown.returncode == 2 and "did you mean arithmetic?" in unknown.stdout


def _edited(runs: Path, name: str, edit: Any) -> str:
    report = json.loads((runs / name).read_text(encoding="utf-8"))
    edit(report)
    target = f"edited-{name}"
    (runs / target).write_text(json.dumps(report), encoding="utf-8")
    return target


def _refused(runs: Path, *files: str) -> str:
    done = _merge(runs, "--merge", *files, "-o", "refused.json")
    assert done.returncode == 2, done.stdout
    assert not (runs / "refused.json").exists()
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    return lines[0]


def test_shards_that_are_not_one_run_are_refused_in_one_line(runs: Path) -> None:
    files = _shard_files(runs)
    assert "shard(s) 3/4 missing" in _refused(runs, *files[:2], files[3])
    assert "shard 2/4 again" in _refused(runs, *files, "shard2-xdist.json")
    assert "full.json: not a shard report" in _refused(runs, "full.json", *files)

    def other_corpus(report: dict[str, Any]) -> None:
        report["shard"]["corpora"][0]["sha256"] = "0" * 64

    line = _refused(runs, *files[:3], _edited(runs, files[3], other_corpus))
    assert "edited-shard4.json: its corpora (ids and sha256) differ" in line

    def other_options(report: dict[str, Any]) -> None:
        report["options"]["timeout_seconds"] = 5.0
        report["options"]["fingerprint"] = "f" * 64

    line = _refused(runs, _edited(runs, files[0], other_options), *files[1:])
    assert "run with other options" in line and "timeout_seconds" in line

    def other_selection(report: dict[str, Any]) -> None:
        report["shard"]["selected_before_sharding"] = 52
        report["shard"]["selection_sha256"] = "e" * 64

    assert "split a different selection" in _refused(runs, *files[:3], _edited(runs, files[3], other_selection))

    def other_split(report: dict[str, Any]) -> None:
        report["shard"]["count"] = 5

    assert "not shards of one split" in _refused(runs, *files[:3], _edited(runs, files[3], other_split))
    shard1 = json.loads((runs / files[0]).read_text(encoding="utf-8"))

    def overlapping(report: dict[str, Any]) -> None:
        report["questions"].append(shard1["questions"][0])

    line = _refused(runs, *files[:3], _edited(runs, files[3], overlapping))
    assert f"{shard1['questions'][0]['question_id']} is also in" in line

    def dropped(report: dict[str, Any]) -> None:
        report["questions"].pop()

    assert "some question is missing" in _refused(runs, *files[:3], _edited(runs, files[3], dropped))
    assert "cannot read" in _refused(runs, *files[:3], "absent.json")


def test_a_partial_shard_merges_into_a_partial_report(runs: Path) -> None:
    """Nothing is lost: a shard stopped early keeps its results and names its not-run questions,
    and the merged report is partial (exit 1), as the unsharded run stopped alike would be."""
    files = _shard_files(runs)

    def interrupted(report: dict[str, Any]) -> None:
        row = report["questions"].pop()
        report["not_run"] = [{"question": f"{row['corpus_id']}/{row['question_id']}",
                              "cause": "not run: the run stopped first (KeyboardInterrupt (Ctrl-C or SIGINT))"}]
        report.update(complete=False, interrupted=True, stop_reason="KeyboardInterrupt (Ctrl-C or SIGINT)",
                      thresholds_evaluated=False)

    done = _merge(runs, "--merge", *files[:3], _edited(runs, files[3], interrupted), "-o", "partial.json")
    assert done.returncode == 1 and "the run is partial: 1 selected question(s) did not run" in done.stdout
    merged = json.loads((runs / "partial.json").read_text(encoding="utf-8"))
    assert (merged["complete"], merged["thresholds_evaluated"], len(merged["questions"]), merged["selected"]) == (
        False, False, 259, 260)
    assert all(row["passed"] is None for row in merged["thresholds"])


def test_shard_options_refused_with_items_that_have_no_merge(tmp_path: Path) -> None:
    done = _pytest(tmp_path, "--tme-shard=1/2", "--tme-dataset=locomo=absent.json")
    assert done.returncode == 4 and "--tme-shard splits TypedMemEval corpus questions only" in done.stderr
    done = _pytest(tmp_path, "--tme-shard=3/2")
    assert done.returncode == 4 and "1 <= K <= N" in done.stderr


def test_a_sharded_baseline_check_reads_only_its_own_questions(tmp_path: Path) -> None:
    """Baselines are per question, so each shard checks its own questions exactly; the snapshot
    entries of the other shards fail nothing (syrupy only warns of them) and are never deleted."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    base = ("-p", "no:cacheprovider", "--typedmemeval", "--tme-agent", "reference", "--tme-baseline")
    record = subprocess.run([sys.executable, "-m", "pytest", *base, "--snapshot-update", "-q"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=600)
    assert record.returncode == 0, record.stdout[-2000:]
    snapshots = {p.name: p.read_bytes() for p in (tmp_path / "typedmemeval" / "__baseline__").iterdir()}
    full = subprocess.run([sys.executable, "-m", "pytest", *base, "--tme-report=full.json", "-q"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert full.returncode == 0, full.stdout[-2000:]
    for k in (1, 2):
        shard = subprocess.run([sys.executable, "-m", "pytest", *base, f"--tme-shard={k}/2",
                                f"--tme-report=b{k}.json", "-q"], cwd=tmp_path, capture_output=True, text=True,
                               timeout=600)
        assert shard.returncode == 0, shard.stdout[-2000:]
    assert snapshots == {p.name: p.read_bytes() for p in (tmp_path / "typedmemeval" / "__baseline__").iterdir()}
    done = _merge(tmp_path, "--merge", "b1.json", "b2.json", "-o", "merged.json")
    assert done.returncode == 0, done.stdout
    assert _without_timing(tmp_path / "merged.json") == _without_timing(tmp_path / "full.json")
    refused = _merge(tmp_path, "--merge", "b1.json", "b2.json", "-o", "x.json", "--fail-under", "0.5")
    assert refused.returncode == 2 and "exclusive" in refused.stdout


def test_a_controller_without_a_shared_spool_takes_the_plan_from_a_worker_s_payload() -> None:
    """Remote xdist workers share no file system with the controller: the selection before
    sharding also travels in the worker's end-of-run payload."""
    from types import SimpleNamespace

    from pytest_typedmemeval.plugin.session import TypedMemEvalSession
    from pytest_typedmemeval.plugin.shard_selection import known_shard_plan
    from pytest_typedmemeval.plugin.xdist_roles import (
        WORKER_PAYLOAD_KEY,
        WORKER_PAYLOAD_VERSION,
        XdistControllerHooks,
        worker_payload,
    )

    plan = {"selected_before_sharding": 260, "selection_sha256": "a" * 64}
    worker = TypedMemEvalSession(config=None)  # type: ignore[arg-type]
    worker.shard_plan = plan
    payload = worker_payload(worker)
    assert payload["version"] == WORKER_PAYLOAD_VERSION and payload["shard_plan"] == plan
    controller = TypedMemEvalSession(config=None)  # type: ignore[arg-type]
    assert known_shard_plan(controller) is None  # no spool directory, nothing collected here
    XdistControllerHooks(controller).pytest_testnodedown(SimpleNamespace(workeroutput={WORKER_PAYLOAD_KEY: payload}),
                                                         None)
    assert known_shard_plan(controller) == plan
