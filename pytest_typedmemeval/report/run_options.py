"""The fingerprint of a report's ``options`` block: what decides whether two runs measured alike.

Shared by the pytest run that writes the block (:meth:`..plugin.session.TypedMemEvalSession.options_description`)
and the merge of a sharded run (:mod:`.merge`), which rewrites the bounds when ``--fail-under`` is
given to it and must fingerprint them exactly as a run given those bounds would.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

FINGERPRINTED = ("agent", "timeout_seconds", "judge_mode", "judge_model", "fail_under", "baseline")
"""The options that change what an outcome means (where the adapter came from does not)."""


def options_fingerprint(described: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the :data:`FINGERPRINTED` options of ``described``."""
    canonical = json.dumps({name: described[name] for name in FINGERPRINTED}, sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


__all__ = ["FINGERPRINTED", "options_fingerprint"]
