"""``openai`` is the optional extra ``models`` (issue 22, item 6): the mechanical path runs without
it, and every model feature used without it is one line naming the extra — never a traceback, never
an ``error`` per question.

Without the extra is simulated by a package named ``openai`` that raises :class:`ImportError`, put
first on ``PYTHONPATH`` of a subprocess (this environment has the real client, which the rest of
the suite needs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from _support import fixture_corpus_files

REPO = Path(__file__).resolve().parents[1]
EXTRA_LINE = "pip install 'pytest-typedmemeval[models]'"
DEAD_URL = "http://127.0.0.1:9/v1"
"""Never reached: the missing client is refused before any call."""


@pytest.fixture
def without_openai(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    shadow = tmp_path_factory.mktemp("no-openai")
    (shadow / "openai").mkdir()
    (shadow / "openai" / "__init__.py").write_text(
        'raise ImportError("No module named \'openai\'")\n', encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return shadow


def test_openai_is_only_in_the_models_extra() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(dep.lower().startswith("openai") for dep in project["dependencies"])
    assert any(dep.startswith("openai") for dep in project["optional-dependencies"]["models"])


@pytest.fixture
def project(pytester: pytest.Pytester, without_openai: Path) -> pytest.Pytester:
    for path in fixture_corpus_files()[:1]:
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    return pytester


def _corpus_args(pytester: pytest.Pytester) -> list[str]:
    return [f"--tme-corpus={p.name}" for p in sorted(pytester.path.glob("corpus_*.json"))]


def test_the_mechanical_path_runs_without_openai(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(*_corpus_args(project), "--tme-agent", "reference",
                                          "--tme-fail-under", "0", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(("options", "names"), [
    (["--tme-agent", "llm-no-memory", "--tme-model", "m", "--tme-base-url", DEAD_URL], "--tme-agent llm-no-memory"),
    (["--tme-agent", "reference", "--tme-judge", "llm", "--tme-judge-model", "m",
      "--tme-judge-base-url", DEAD_URL], "--tme-judge llm"),
], ids=["llm-agent", "llm-judge"])
def test_a_model_option_without_openai_is_one_line_naming_the_extra(
        project: pytest.Pytester, options: list[str], names: str) -> None:
    result = project.runpytest_subprocess(*_corpus_args(project), *options, "--tme-allow-unpriced",
                                          "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if EXTRA_LINE in line]
    assert len(lines) == 1 and names in lines[0], result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_probe_without_openai_is_one_line_naming_the_extra(without_openai: Path, tmp_path: Path) -> None:
    from test_probe_runner import FORGETTING, copy_corpus

    corpus = copy_corpus(FORGETTING, tmp_path / "corpus")
    done = subprocess.run([sys.executable, "-m", "pytest_typedmemeval.cli", "probe", "--corpus", str(corpus),
                           "--model", "m", "--base-url", DEAD_URL, "--allow-unpriced",
                           "--cache-dir", str(tmp_path / "cache"), "--date", "2026-05-01"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and EXTRA_LINE in done.stderr, done.stderr
    assert done.stderr.startswith("typedmemeval probe: ")


def test_the_readme_test_suite_line_and_ci_install_the_models_extra() -> None:
    """The suite needs the client; a fresh clone following the README must get it, and CI must
    install what the README says (and run the README's first command without it)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    suite = readme.split("**Run the test suite**", 1)[1].split("```bash", 1)[1].split("```", 1)[0].strip()
    assert suite == "pip install '.[models,upstream]' && pytest"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    first, rest = ci.split("README command 2", 1)
    assert "python -m pip install --quiet .\n" in first and "[models]" not in first
    assert "python -m pip install --quiet '.[models,upstream]'" in rest
