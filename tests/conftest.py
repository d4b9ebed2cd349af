"""Fixtures shared by the plugin's own tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import numpy  # noqa: F401
import openai  # noqa: F401
import pytest
import rank_bm25  # noqa: F401

# Imported here, before any in-process pytester run: pytester restores sys.modules after each
# inner run, and numpy's C extension (like openai's jiter, a PyO3 module) refuses to be imported a
# second time in one process.

from _loopback_openai import LoopbackOpenAI
from _support import ORACLE_CONFTEST, fixture_corpus_files


@pytest.fixture(autouse=True)
def _private_model_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model-call cache defaults to the user's cache directory: no test may read or fill it
    (a cached reply would hide a request a test counts)."""
    monkeypatch.setenv("TYPEDMEMEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("model-cache")))


@pytest.fixture(autouse=True)
def _no_inherited_xdist_role(monkeypatch: pytest.MonkeyPatch) -> None:
    """When this suite itself runs under xdist, a pytest the test starts (pytester's subprocess) would
    inherit ``PYTEST_XDIST_WORKER`` and take its controller for a worker (syrupy then reports no
    unused snapshots): the test's run is its own session."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)


@pytest.fixture
def consumer(pytester: pytest.Pytester) -> pytest.Pytester:
    """A consumer project: the fixture corpora copied in as user corpora and a scripted adapter."""
    for path in fixture_corpus_files():
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    pytester.makeconftest(ORACLE_CONFTEST)
    return pytester


@pytest.fixture
def loopback_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackOpenAI]:
    """A scripted chat-completions server on 127.0.0.1 (see tests/_loopback_openai.py).

    A dummy ``OPENAI_API_KEY`` is set and ``OPENAI_BASE_URL`` cleared, so a developer's real key or
    endpoint is never used and nothing leaves the machine.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with LoopbackOpenAI() as server:
        yield server
