"""The on-disk response cache: a rerun of the same request makes zero calls.

The key is the sha256 of the *whole* request as sent — base URL, model, messages, every sampling
parameter, seed and JSON mode — in canonical JSON, so two requests share an entry only when the
server would have been asked exactly the same thing. Only successful replies are stored; a refusal,
a timeout or a malformed reply is never cached (the next run asks again). Entries are written to a
temporary file and renamed into place, so a crash or two xdist workers racing on one key can leave
an entry missing, never half-written. An unreadable entry is treated as absent and overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1


def request_key(request: Mapping[str, Any]) -> str:
    canonical = json.dumps({"format": CACHE_FORMAT, "request": request}, sort_keys=True,
                           ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """``get``/``put`` of reply dicts by request; ``directory=None`` caches nothing."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def get(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.directory is None:
            return None
        path = self._path(request_key(request))
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        reply = entry.get("reply") if isinstance(entry, dict) else None
        return reply if isinstance(reply, dict) and isinstance(reply.get("content"), str) else None

    def put(self, request: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        if self.directory is None:
            return
        path = self._path(request_key(request))
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": CACHE_FORMAT, "request": request, "reply": reply},
                          ensure_ascii=False, sort_keys=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


__all__ = ["CACHE_FORMAT", "ResponseCache", "request_key"]
