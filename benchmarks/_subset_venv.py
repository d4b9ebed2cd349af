"""Virtual environments holding a chosen subset of this environment's distributions, offline.

The overhead benchmark compares an unrelated project's pytest start-up in a venv with only pytest
(and what pytest requires) against one with the plugin as ``pip install pytest-typedmemeval``
installs it (no extras), and against this environment as it is. Installing those venvs from a
package index would need the network and could pick other versions than the ones measured, so each
is built from the distributions already installed here: ``python -m venv --without-pip`` plus a
symlink for every file a distribution's ``RECORD`` lists. pytest discovers plugins from the
``dist-info`` directories of its site-packages, so a venv holds exactly the plugins of the
distributions linked into it. An editable install links its ``.pth`` file and finder, so it works
the same way.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


class SubsetError(RuntimeError):
    """A distribution cannot be linked (not installed here, or installed without a RECORD)."""


def closure(roots: Iterable[str], extras: Iterable[str] = ()) -> list[metadata.Distribution]:
    """The installed distributions ``roots`` need (their requirements, transitively, markers
    evaluated for this interpreter; ``extras`` only for the roots themselves)."""
    wanted_extras = set(extras)
    seen: dict[str, metadata.Distribution] = {}
    pending: list[tuple[str, set[str]]] = [(root, wanted_extras) for root in roots]
    while pending:
        name, chosen = pending.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise SubsetError(f"{name} is not installed in this environment") from None
        seen[key] = dist
        for text in dist.requires or ():
            requirement = Requirement(text)
            environment = dict(default_environment())
            if requirement.marker is not None and not any(
                    requirement.marker.evaluate({**environment, "extra": extra})
                    for extra in (chosen or {""})):
                continue
            pending.append((requirement.name, set(requirement.extras)))
    return list(seen.values())


def site_packages(venv: Path) -> Path:
    relative = Path(sysconfig.get_path("purelib")).relative_to(sysconfig.get_path("data"))
    return venv / relative


def build(venv: Path, dists: Iterable[metadata.Distribution]) -> Path:
    """A venv at ``venv`` linking every file of ``dists``; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = site_packages(venv)
    for dist in dists:
        files = dist.files
        if files is None:
            raise SubsetError(f"{dist.metadata['Name']} has no RECORD: it cannot be linked")
        for relative in files:
            if relative.parts and relative.parts[0] == "..":
                continue  # console scripts: not needed, the benchmark runs python -m pytest
            source = Path(dist.locate_file(relative)).resolve()
            if not source.exists() or relative.suffix == ".pyc":
                continue  # bytecode is written afresh beside the links
            link = target / relative
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(source)
    return venv / "bin" / "python"


def names(dists: Iterable[metadata.Distribution]) -> list[str]:
    return sorted(str(dist.metadata["Name"]) for dist in dists)


__all__ = ["SubsetError", "build", "closure", "names", "site_packages"]
