"""Where ``--tme-baseline`` keeps its syrupy snapshots, as a syrupy extension (issue 22, item 1).

syrupy looks for unused snapshots in the ``__snapshots__`` directory beside every collected test
file, our virtual corpus and scenario modules included. Baselines stored there were counted as
*unused* by every run that did not assert them (a plain or threshold run: exit 1, ``N snapshots
unused``) and deleted by ``--snapshot-update`` outside baseline mode. The baseline items therefore
assert through :class:`BaselineExtension`, syrupy's amber format in a directory of its own
(:data:`.session.BASELINE_DIRNAME`): syrupy scans a directory only for the extensions that
asserted or the default one, so a run that does not assert a baseline never reads, counts or
deletes it, and the user's own snapshots keep syrupy's usual rules.

Imported only when a baseline is asserted (it imports syrupy).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from syrupy.extensions.amber import AmberSnapshotExtension

from .session import BASELINE_DIRNAME

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation


class BaselineExtension(AmberSnapshotExtension):
    """Amber snapshots in ``<module dir>/__baseline__/`` instead of ``__snapshots__/``."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(Path(test_location.filepath).parent / BASELINE_DIRNAME)


def baseline_snapshot(request: pytest.FixtureRequest) -> Any:
    """The item's syrupy ``snapshot`` fixture, asserting through :class:`BaselineExtension`."""
    return request.getfixturevalue("snapshot").use_extension(BaselineExtension)
