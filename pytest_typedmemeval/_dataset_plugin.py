"""The dataset items of the plugin (issue 11): registered by :mod:`.plugin` only when asked for.

A plugin object of its own, so the main plugin stays about the TypedMemEval corpora and a run
that asks for neither pays nothing beyond adding these options.
"""

from __future__ import annotations

import pytest


def add_options(parser: pytest.Parser) -> None:
    """The dataset options (called from :func:`.plugin.pytest_addoption`)."""


def register_if_wanted(config: pytest.Config) -> None:
    """Register the dataset plugin object when its options ask for it (from ``pytest_configure``)."""
