"""Where ``typedmemeval generate`` may write, and what it must not overwrite (issue 22, item 3).

``generate`` used to write into the shipped corpora directory by default: for a pip install that
is site-packages, so a rebuild silently replaced the installed corpus and sidecar, and without the
``[dense]`` extra it replaced a measured dense stamp by *not measured* (the calibration gate then
read ``skipped``). The rules here:

- the default output is the current directory (:func:`output_dir`);
- nothing is written inside the installed package (:func:`refuse_installed_package`) unless the
  package is a source checkout (:func:`source_checkout`), where ``--out corpora`` is how
  maintainers rewrite the shipped copy and ``--search`` writes its record beside the declaration;
- an existing sidecar at the destination whose stamps are *measured* is never replaced by one that
  would say *not measured* (:func:`refuse_downgrade`).

Each refusal is one :class:`.primitives.GenerationError` line naming the path and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .primitives import GenerationError

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The ``pytest_typedmemeval`` package directory this code runs from."""
DENSE_EXTRA = "pip install 'pytest-typedmemeval[dense]'"


def source_checkout() -> Path | None:
    """The checkout root when the package runs from a source tree (its ``pyproject.toml`` and
    ``corpora/`` beside the package), else ``None`` (an installed wheel)."""
    root = PACKAGE_DIR.parent
    pyproject = root / "pyproject.toml"
    if not (pyproject.is_file() and (root / "corpora").is_dir()):
        return None
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "pytest-typedmemeval"' in text else None


def output_dir(out: str | Path | None) -> Path:
    """``--out``, or the current directory."""
    return Path(out) if out is not None else Path.cwd()


def _inside(path: Path, directory: Path) -> bool:
    return path.resolve().is_relative_to(directory.resolve())


def refuse_installed_package(out: Path, shipped_dir: Path) -> None:
    """Refuse an output directory inside the installed package (its corpora included)."""
    if source_checkout() is not None:
        return
    for directory in (PACKAGE_DIR, shipped_dir):
        if _inside(out, directory):
            raise GenerationError(
                f"not written: {out} is inside the installed package ({directory}); generate writes "
                "to the current directory by default, or to --out DIR; the shipped corpora are "
                "rewritten only from a source checkout (--out corpora)")


def refuse_search_record(record_path: Path) -> None:
    """``--search`` writes its record beside the declaration: only in a source checkout."""
    if source_checkout() is None:
        raise GenerationError(
            f"--search writes its record beside the declaration ({record_path}), inside the "
            "installed package: run it from a source checkout of pytest-typedmemeval")


def _measured_rows(sidecar: dict[str, Any]) -> list[str]:
    stamps = (sidecar.get("extra") or {}).get("retriever_panel") or {}
    measured = [f"a measured {arm} stamp" for arm in ("dense", "hybrid")
                if isinstance(stamps.get(arm), dict) and stamps[arm].get("status") == "measured"]
    probes = [row for row in sidecar.get("probe_records") or []
              if isinstance(row, dict) and row.get("status") != "not_measured"]
    if probes:
        measured.append(f"{len(probes)} measured probe record(s)")
    return measured


def refuse_downgrade(sidecar_path: Path, new_sidecar: dict[str, Any]) -> None:
    """Refuse to replace a sidecar holding measured stamps by ``new_sidecar`` where it says not
    measured: the dense and hybrid arms (measured only with the ``[dense]`` extra) and probe
    records (``generate`` never writes them: they record model runs no rebuild reproduces)."""
    if not sidecar_path.is_file():
        return
    try:
        existing = json.loads(sidecar_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return  # an unreadable sidecar holds nothing to keep
    if not isinstance(existing, dict):
        return
    kept = set(_measured_rows(new_sidecar))
    lost = [row for row in _measured_rows(existing) if row not in kept or "probe" in row]
    if not lost:
        return
    fixes = []
    stamps = (new_sidecar.get("extra") or {}).get("retriever_panel") or {}
    reason = (stamps.get("dense") or {}).get("reason")
    if any(row.endswith(" stamp") for row in lost):
        fixes.append(f"install the [dense] extra ({DENSE_EXTRA}" + (f"; here: {reason})" if reason else ")"))
    if any("probe" in row for row in lost):
        fixes.append("rerun `typedmemeval probe` on the new bytes afterwards")
    raise GenerationError(
        f"not written: {sidecar_path} holds {' and '.join(lost)} that this rebuild would replace by "
        f"'not measured'; {' and '.join(fixes)}, write elsewhere with --out DIR, or delete the "
        "sidecar first to discard them")
