"""Vertical name -> declaration module; writing a corpus and its sidecar; rebuilding from a sidecar.

A vertical is declared in ``generate/verticals/<vertical>.py`` (the name as in
``gates/vertical_specs.py``; discovered, not listed), which provides as module attributes:

- ``VERTICAL`` (``"forgetting"``), ``GENERATOR`` (its dotted module name, stamped in the sidecar),
  ``GENERATOR_VERSION`` (bump when the bytes a seed produces change), ``REVISION``, ``SEED``;
- ``SHAPES`` (every shape, in the vertical spec's names) and ``CALIBRATED_SHAPES`` (the shapes the
  authoring search tunes, in search order);
- ``RECORDED_COMPETITION``: the topical-competition dial per shape (VERTICALS.md Appendix C), copied
  by hand from the authoring search so that a search never silently moves a shipped corpus;
- ``build(seed, competition_by_shape, *, shapes=SHAPES) -> engine.Built``: the records in id order,
  every validity rule checked (a :class:`.primitives.GenerationError` on any defect);
- optionally ``search_dial(seed) -> dict``: the vertical's own authoring search, for a vertical whose
  shapes must share one dial (WorkingMemory's matched distance rungs); it returns the search record,
  whose ``by_shape[shape]["dial"]`` is the dial. Without it each calibrated shape is searched alone;
- optionally ``DIFFICULTY_NOTE``: one line on what its difficulty bands do and do not show.

What the search reported lives beside the declaration as data, ``<vertical>.calibration.json``, and
is stamped into the sidecar. Rebuilding reads the recorded dial and never searches (§4.11).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from ..corpus.loading import Corpus, corpus_sha256, sidecar_path_for
from ..corpus.models import QuestionRecord
from ..corpus.registry import SHIPPED_PACKAGE
from ..gates.vertical_specs import VERTICAL_SPECS
from . import calibration, destination
from .primitives import GenerationError, dump_json
from .sidecar import build_sidecar, release_problems

REVISION = 2
"""The corpus revision the declarations write (VERTICALS.md Appendix C: revision 1 is retired; its
bytes and hashes are in the CHANGELOG)."""


def _discover() -> dict[str, str]:
    """Every declared vertical (``gates/vertical_specs.py``) with a declaration module."""
    found: dict[str, str] = {}
    for vertical in VERTICAL_SPECS:
        name = f"{__package__}.verticals.{vertical}"
        if importlib.util.find_spec(name) is not None:
            found[vertical] = name
    return found


GENERATORS: dict[str, str] = _discover()
"""Vertical -> declaration module, discovered: adding ``generate/verticals/<vertical>.py`` registers it."""


def revision_of(module: ModuleType) -> int:
    return int(getattr(module, "REVISION", REVISION))


def corpus_id(vertical: str) -> str:
    return f"typedmemeval-{vertical}-v{revision_of(generator_module(vertical))}"


def recorded_dial(module: ModuleType) -> dict[str, float]:
    """The recorded topical-competition dial per shape."""
    return dict(module.RECORDED_COMPETITION)


def calibration_record_path(module: ModuleType) -> Path:
    """Where a revision-2 declaration's authoring-search record lives: beside the module, as data
    (``<vertical>.calibration.json``), so the declaration stays a declaration."""
    return Path(str(module.__file__)).with_suffix(".calibration.json")


def calibration_record(module: ModuleType) -> dict[str, Any] | None:
    """What the authoring search reported (stamped into the sidecar), or ``None`` if never run."""
    path = calibration_record_path(module)
    if not path.is_file():
        return None
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def build_records(module: ModuleType, seed: int, dial: Mapping[str, float], *,
                  shapes: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The records a declaration builds for (seed, dial)."""
    return module.build(seed, dial, shapes=module.SHAPES if shapes is None else shapes).records


def generator_module(vertical: str) -> ModuleType:
    try:
        return importlib.import_module(GENERATORS[vertical])
    except KeyError:
        known = ", ".join(sorted(GENERATORS))
        raise KeyError(f"no generator for vertical {vertical!r} (known: {known})") from None


def shipped_corpora_dir() -> Path:
    """Where shipped corpora live: the package data directory (``corpora/`` in a checkout)."""
    try:
        return Path(str(resources.files(SHIPPED_PACKAGE)))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "corpora"


def corpus_text(vertical: str, seed: int, dial_by_shape: Mapping[str, float]) -> str:
    """The corpus bytes (as text) for (declaration, seed, dial): the reproducibility function."""
    return dump_json(build_records(generator_module(vertical), seed, dial_by_shape))


@dataclass(frozen=True)
class SearchOutcome:
    """The dial the authoring search found per shape, and its record (for the sidecar)."""

    dial_by_shape: dict[str, float]
    record: dict[str, Any]


def search_dial(vertical: str, seed: int | None = None) -> SearchOutcome:
    """Run the authoring search for ``vertical`` (through its real build entry point).

    A declaration with its own ``search_dial`` (shapes that must share one dial) is asked; every
    other declaration has each calibrated shape searched alone by :func:`.calibration.calibrate`.
    A shape the search does not tune keeps the fixed dial its declaration records."""
    module = generator_module(vertical)
    seed = module.SEED if seed is None else seed
    fixed = recorded_dial(module)
    own_search = getattr(module, "search_dial", None)
    if own_search is not None:
        record = dict(own_search(seed))
        found = {shape: float(entry["dial"]) for shape, entry in record["by_shape"].items()}
        return SearchOutcome({shape: found.get(shape, fixed.get(shape, 0.0))
                              for shape in module.SHAPES}, record)

    def build(dial: Mapping[str, float]) -> list[QuestionRecord]:
        records = build_records(module, seed, dial, shapes=module.CALIBRATED_SHAPES)
        return [QuestionRecord.model_validate(record) for record in records]

    # A fixed start, never the previous recording: the search is a function of (declaration, seed).
    start = {shape: calibration.START_DIAL for shape in module.SHAPES}
    result = calibration.calibrate(build, module.CALIBRATED_SHAPES, start, panel=True,
                                   whole_panel=revision_of(module) >= 3)
    dial = {shape: result.dial_by_shape[shape] if shape in module.CALIBRATED_SHAPES
            else fixed.get(shape, 0.0) for shape in module.SHAPES}
    return SearchOutcome(dial, result.record())


@dataclass
class GenerationReport:
    """What ``generate`` did, with the time taken per phase (printed, never written to disk)."""

    vertical: str
    corpus_path: Path
    sidecar_path: Path
    sha256: str
    dial_by_shape: dict[str, float]
    searched: bool
    seconds: dict[str, float] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None

    @property
    def total_seconds(self) -> float:
        return sum(self.seconds.values())

    def summary(self) -> str:
        phases = ", ".join(f"{name} {value:.1f}s" for name, value in self.seconds.items())
        return (f"{self.vertical}: wrote {self.corpus_path} (sha256 {self.sha256[:12]}) in "
                f"{self.total_seconds:.1f}s ({phases})")


def generate(vertical: str, out_dir: str | Path | None = None, *, search: bool = False
             ) -> GenerationReport:
    """Write ``<out>/typedmemeval-<vertical>-v<revision>.json`` and its sidecar from the recorded seed.

    ``out_dir`` defaults to the current directory; the installed package is never written and a
    measured stamp never downgraded (:mod:`.destination`).

    Without ``search`` the dial is the declaration's ``RECORDED_COMPETITION`` (a pinned rebuild,
    byte-identical to the shipped file). With ``search`` the authoring search runs first, its record
    is written beside the declaration and its dial is used; the dial must then be copied into
    ``RECORDED_COMPETITION`` by hand for the next rebuild to match, so a search never silently
    moves a corpus.
    """
    module = generator_module(vertical)
    out = destination.output_dir(out_dir)
    destination.refuse_installed_package(out, shipped_corpora_dir())
    if search:
        destination.refuse_search_record(calibration_record_path(module))
    name = corpus_id(vertical)
    out.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    record: Mapping[str, Any] | None = calibration_record(module)
    dial = recorded_dial(module)
    if search:
        began = time.perf_counter()
        outcome = search_dial(vertical)
        seconds["search"] = time.perf_counter() - began
        dial, record = outcome.dial_by_shape, outcome.record
        _write(calibration_record_path(module), dump_json(record))
    began = time.perf_counter()
    built = module.build(module.SEED, dial, shapes=module.SHAPES)
    text = dump_json(built.records)
    seconds["build"] = time.perf_counter() - began
    began = time.perf_counter()
    sidecar = build_sidecar(text, corpus_id=name, vertical=vertical, revision=revision_of(module),
                            generator=module.GENERATOR, generator_version=module.GENERATOR_VERSION,
                            seed=module.SEED, calibration=record,
                            difficulty_note=getattr(module, "DIFFICULTY_NOTE", None),
                            competition_by_shape=dial, echo_by_shape={},
                            text_stats=built.tally.as_stats())
    seconds["sidecar"] = time.perf_counter() - began
    if problems := release_problems(sidecar):
        # GENERATION.md v3: the generator refuses to write a corpus the adversaries beat or whose
        # conversation misses Appendix D's bounds, exactly as it refuses a wrong gold.
        raise GenerationError(f"{name}: not written, it fails its release checks:\n  "
                              + "\n  ".join(problems))
    path = out / f"{name}.json"
    destination.refuse_downgrade(sidecar_path_for(path), sidecar)
    _write(path, text)
    _write(sidecar_path_for(path), dump_json(sidecar))
    return GenerationReport(vertical, path, sidecar_path_for(path), corpus_sha256(text.encode("utf-8")),
                            dict(dial), search, seconds, dict(record) if record else None)


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def regenerate_text(corpus: Corpus) -> str | None:
    """Rebuild ``corpus`` from its sidecar's declaration, seed and recorded dial (never searching).

    For the structure gate's reproducibility rule: ``structure.check(corpus,
    regenerate=regenerate_text)``. ``None`` when the corpus names no declaration this registry knows
    (hand-made, foreign or retired revision-1 corpora): the gate then reports reproducibility as
    skipped with the reason. A sidecar naming another ``generator_version`` is still rebuilt with
    the installed declaration, so a corpus left behind by a generator change is refused, not skipped.
    """
    sidecar = corpus.sidecar
    if sidecar is None or sidecar.generator is None or sidecar.seed is None or sidecar.revision < 2:
        return None
    for vertical, module_name in GENERATORS.items():
        if module_name == sidecar.generator:
            return corpus_text(vertical, sidecar.seed, sidecar.competition_by_shape)
    return None


__all__ = ["GENERATORS", "GenerationReport", "REVISION", "SearchOutcome", "build_records",
           "calibration_record", "calibration_record_path", "corpus_id", "corpus_text", "generate",
           "generator_module", "recorded_dial", "regenerate_text", "revision_of", "search_dial",
           "shipped_corpora_dir"]
