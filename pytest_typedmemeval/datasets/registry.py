"""The datasets a user can name (``--tme-dataset NAME=PATH``) and one call to load any of them.

Loading is explicit and local: the file is read from the path the user gives, never downloaded,
never copied. ``principal`` applies to LoCoMo only; sampling applies to all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import halumem, locomo, longmemeval
from .models import DatasetSpec, LoadedDataset
from .sampling import sample_dataset

SPECS: dict[str, DatasetSpec] = {spec.name: spec for spec in (locomo.SPEC, longmemeval.SPEC, halumem.SPEC)}
_LOADERS: dict[str, Callable[..., LoadedDataset]] = {
    locomo.SPEC.name: locomo.load_locomo,
    longmemeval.SPEC.name: longmemeval.load_longmemeval,
    halumem.SPEC.name: halumem.load_halumem,
}


class DatasetOptionError(ValueError):
    """A ``--tme-dataset`` value or a dataset option the loaders cannot use."""


def parse_dataset_option(value: str) -> tuple[str, Path]:
    """``"locomo=/data/locomo10.json"`` -> ``("locomo", Path(...))``."""
    name, sep, path = value.partition("=")
    name = name.strip().casefold()
    if not sep or not path.strip():
        raise DatasetOptionError(f"--tme-dataset {value!r}: expected NAME=PATH with NAME one of {', '.join(SPECS)}")
    if name not in SPECS:
        raise DatasetOptionError(f"--tme-dataset {value!r}: unknown dataset {name!r}; known: {', '.join(SPECS)}")
    return name, Path(path.strip()).expanduser()


def load_dataset(name: str, path: str | Path, *, principal: str | None = None, sample: int | None = None,
                 seed: int = 0) -> LoadedDataset:
    """Load dataset ``name`` from ``path``, then draw ``sample`` questions with ``seed``.

    Raises :class:`~.errors.DatasetFormatError` (one line: file, question, field) when the file is
    not that dataset, :class:`DatasetOptionError` for an unknown name or an option that does not
    apply.
    """
    if name not in _LOADERS:
        raise DatasetOptionError(f"unknown dataset {name!r}; known: {', '.join(SPECS)}")
    options: dict[str, Any] = {}
    if principal is not None:
        if name != locomo.SPEC.name:
            raise DatasetOptionError(f"the principal speaker applies to LoCoMo only, not to {SPECS[name].title}")
        if principal not in ("a", "b"):
            raise DatasetOptionError(f"principal speaker must be 'a' or 'b', not {principal!r}")
        options["principal"] = principal
    return sample_dataset(_LOADERS[name](path, **options), sample, seed)
