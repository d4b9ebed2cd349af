"""The ``typedmemeval`` command (plain calls of ``cli.main``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pytest_typedmemeval import cli, shipped_corpora

from _support import MALFORMED_DIR, fixture_corpus_files


def test_schema_prints_the_corpus_file_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["type"] == "array"
    assert "QuestionRecord" in schema["$defs"] and "AnswerKey" in schema["$defs"]


def test_schema_sidecar(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema", "--sidecar"]) == 0
    assert "corpus_id" in json.loads(capsys.readouterr().out)["properties"]


def test_gate_prints_a_row_per_shipped_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["gate"])
    out = capsys.readouterr().out
    for corpus in shipped_corpora():
        assert corpus.corpus_id in out
    for gate in ("structure", "separability", "calibration", "leaks", "adversaries", "probes"):
        assert gate in out
    assert status == 0  # shipped corpora are certified; probes skip as not measured


def test_gate_json_is_machine_readable_and_refusal_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = fixture_corpus_files()[0]
    assert cli.main(["gate", "--json", "--corpus", str(fixture)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert fixture.stem in json.dumps(data)


def test_gate_self_test_passes_every_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["gate", "--self-test"]) == 0
    assert capsys.readouterr().out.strip().endswith("0 failed")


def test_gate_on_a_malformed_corpus_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["gate", "--corpus", str(MALFORMED_DIR / "duplicate_ids.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "duplicate_ids.json: question tme-ari-003: field question_id" in err


def test_gates_import_neither_pytest_nor_the_runner() -> None:
    code = ("import sys, pytest_typedmemeval.gates.registry; "
            "print(sorted(m for m in ('pytest', '_pytest', 'pytest_typedmemeval.adapter.run', "
            "'pytest_typedmemeval.plugin') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
