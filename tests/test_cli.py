"""The ``typedmemeval`` command (plain calls of ``cli.main``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_typedmemeval import cli, shipped_corpora

from _support import KNOWN_BEATEN, MALFORMED_DIR, fixture_corpus_files

main = cli.main


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
    # shipped corpora are certified (probes skip as not measured), except those the adversaries
    # are recorded as beating (tests/_support.py KNOWN_BEATEN), which exit 1 and are named
    assert status == (1 if KNOWN_BEATEN else 0)
    for corpus_id in KNOWN_BEATEN:
        rules = KNOWN_BEATEN[corpus_id][1]
        assert any(corpus_id in line and any(f"REFUSED {rule}" in line for rule in rules)
                   for line in out.splitlines()), corpus_id


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


# --- generate: where it writes, what it keeps (issue 22, item 3) ---------------------------------------


def test_generate_check_without_a_vertical_checks_every_vertical(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_typedmemeval.generate import registry

    shipped = registry.shipped_corpora_dir()
    # The rebuild itself is tested by `generate --vertical all --check` elsewhere; here only the
    # routing: every vertical is compared (the shipped text stands in for the rebuilt one).
    monkeypatch.setattr(registry, "corpus_text", lambda vertical, seed, dial: (
        shipped / f"{registry.corpus_id(vertical)}.json").read_text(encoding="utf-8"))
    assert main(["generate", "--check"]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if "identical" in line] == sorted(registry.GENERATORS)


def test_generate_without_a_vertical_or_check_says_what_to_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate"]) == 2
    assert "name what to write with --vertical NAME" in capsys.readouterr().err


def test_generate_never_writes_into_the_installed_package(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_typedmemeval.generate import destination, registry

    monkeypatch.setattr(destination, "source_checkout", lambda: None)  # as from a wheel in site-packages
    shipped = registry.shipped_corpora_dir()
    before = {path.name: path.stat().st_mtime_ns for path in shipped.iterdir()}
    assert main(["generate", "--vertical", "forgetting", "--out", str(shipped)]) == 1
    assert "is inside the installed package" in capsys.readouterr().err
    assert main(["generate", "--vertical", "forgetting", "--search", "--out", "elsewhere"]) == 1
    assert "--search writes its record beside the declaration" in capsys.readouterr().err
    assert {path.name: path.stat().st_mtime_ns for path in shipped.iterdir()} == before


def test_generate_writes_to_the_current_directory_and_never_downgrades_a_measured_stamp(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without the [dense] extra (simulated), a rebuild into the current directory that holds the
    shipped sidecar (dense and hybrid measured) is refused in one line and writes nothing. On
    Forgetting: its bytes pass every release check, so the refusal is the stamp's (a corpus the
    adversary gate refuses, tests/_support.py KNOWN_BEATEN, is refused by its release checks first)."""
    from pytest_typedmemeval.generate import registry

    name = registry.corpus_id("forgetting")
    sidecar = registry.shipped_corpora_dir() / f"{name}.sidecar.json"
    (tmp_path / sidecar.name).write_bytes(sidecar.read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TYPEDMEMEVAL_DENSE", "0")
    assert main(["generate", "--vertical", "forgetting"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"typedmemeval generate: not written: {tmp_path / sidecar.name} holds a measured "
                          "dense stamp and a measured hybrid stamp")
    assert "pytest-typedmemeval[dense]" in err
    assert sorted(path.name for path in tmp_path.iterdir()) == [sidecar.name]
    assert (tmp_path / sidecar.name).read_bytes() == sidecar.read_bytes()


# --- corpora: the shipped files for pip users (issue 22, item 10) ---------------------------------------


def test_corpora_copy_gives_the_shipped_corpus_and_sidecar_and_never_overwrites(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from pytest_typedmemeval.corpus.registry import shipped_corpus_paths

    shipped = next(path for path in shipped_corpus_paths() if "-forgetting-" in path.name)
    target = tmp_path / "work"
    assert main(["corpora", "--copy", str(target), "--vertical", "forgetting"]) == 0
    assert sorted(path.name for path in target.iterdir()) == [shipped.name, shipped.stem + ".sidecar.json"]
    assert (target / shipped.name).read_bytes() == shipped.read_bytes()
    assert main(["corpora", "--copy", str(target), "--vertical", "forgetting"]) == 0  # identical: fine
    (target / shipped.name).write_text("[]", encoding="utf-8")
    capsys.readouterr()
    assert main(["corpora", "--copy", str(target)]) == 2
    assert "exists and differs from the shipped file" in capsys.readouterr().err
    assert (target / shipped.name).read_text(encoding="utf-8") == "[]"
    assert main(["corpora"]) == 0 and shipped.stem in capsys.readouterr().out
