"""Fixtures shared by the plugin's own tests."""

from __future__ import annotations

import shutil

import numpy  # noqa: F401
import pytest
import rank_bm25  # noqa: F401

# Imported here, before any in-process pytester run: pytester restores sys.modules after each
# inner run, and numpy's C extension refuses to be imported a second time in one process.

from _support import ORACLE_CONFTEST, fixture_corpus_files


@pytest.fixture
def consumer(pytester: pytest.Pytester) -> pytest.Pytester:
    """A consumer project: the fixture corpora copied in as user corpora and a scripted adapter."""
    for path in fixture_corpus_files():
        shutil.copy(path, pytester.path / f"corpus_{path.name}")
    pytester.makeconftest(ORACLE_CONFTEST)
    return pytester
