"""Vertical name -> generator module; writing a corpus and its sidecar; rebuilding from a sidecar.

A vertical module ``generate/<vertical>.py`` (the name as in ``gates/vertical_specs.py``; it is
discovered, not listed) provides, as module attributes:

- ``VERTICAL`` (``"forgetting"``), ``GENERATOR`` (its dotted module name, stamped in the sidecar),
  ``GENERATOR_VERSION`` (bump when the bytes a seed produces change), ``SEED``;
- ``SHAPES`` (every shape, in the vertical spec's names) and ``CALIBRATED_SHAPES`` (the shapes with
  gold, in search order);
- ``RECORDED_ECHO`` (echo per shape from the authoring search; gold-less shapes 0.0) and
  ``CALIBRATION_RECORD`` (what that search reported, for the sidecar);
- ``build_records(seed, echo_by_shape, *, shapes=SHAPES) -> list[dict]``: the records in id order,
  every validity rule checked (a :class:`.machinery.GenerationError` on any defect);
- optionally ``DIFFICULTY_NOTE``: one line on what its difficulty bands do and do not show.

Rebuilding reads the recorded echo and never searches (§4.11); ``search=True`` runs the sweep and
bisection of :mod:`.calibration` and reports the echo to record.
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
from . import calibration
from .machinery import dump_json
from .sidecar import build_sidecar

REVISION = 1
"""Revision of every corpus this project generates so far (Appendix A: starting at v1)."""

def _discover() -> dict[str, str]:
    """Every declared vertical (``gates/vertical_specs.py``) with a generator module: the
    revision-2 declaration ``generate/verticals/<vertical>.py`` when there is one, else the
    revision-1 module ``generate/<vertical>.py``."""
    found: dict[str, str] = {}
    for vertical in VERTICAL_SPECS:
        for name in (f"{__package__}.verticals.{vertical}", f"{__package__}.{vertical}"):
            if importlib.util.find_spec(name) is not None:
                found[vertical] = name
                break
    return found


GENERATORS: dict[str, str] = _discover()
"""Vertical -> generator module, discovered: adding ``generate/<vertical>.py`` registers it."""


def revision_of(module: ModuleType) -> int:
    """The corpus revision a generator module writes (revision-1 modules do not say)."""
    return int(getattr(module, "REVISION", REVISION))


def corpus_id(vertical: str) -> str:
    return f"typedmemeval-{vertical}-v{revision_of(generator_module(vertical))}"


def recorded_dial(module: ModuleType) -> dict[str, float]:
    """The recorded calibration dial: topical competition (revision 2) or echo (revision 1)."""
    if revision_of(module) >= 2:
        return dict(module.RECORDED_COMPETITION)
    return dict(module.RECORDED_ECHO)


def calibration_record_path(module: ModuleType) -> Path:
    """Where a revision-2 declaration's authoring-search record lives: beside the module, as data
    (``<vertical>.calibration.json``), so the declaration stays a declaration."""
    return Path(str(module.__file__)).with_suffix(".calibration.json")


def calibration_record(module: ModuleType) -> dict[str, Any] | None:
    """What the authoring search reported (stamped into the sidecar): the module's own
    ``CALIBRATION_RECORD`` (revision 1), else its record file, else ``None``."""
    inline = getattr(module, "CALIBRATION_RECORD", None)
    if inline:
        return dict(inline)
    path = calibration_record_path(module)
    if path.is_file():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    return None


def build_records(module: ModuleType, seed: int, dial: Mapping[str, float], *,
                  shapes: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The records a generator module builds, whichever revision's entry point it has."""
    shapes = module.SHAPES if shapes is None else shapes
    if revision_of(module) >= 2:
        return module.build(seed, dial, shapes=shapes).records
    return module.build_records(seed, dial, shapes=shapes)


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


def corpus_text(vertical: str, seed: int, echo_by_shape: Mapping[str, float]) -> str:
    """The corpus bytes (as text) for (generator, seed, echo): the reproducibility function."""
    module = generator_module(vertical)
    return dump_json(build_records(module, seed, echo_by_shape))


def search_echo(vertical: str, seed: int | None = None) -> calibration.CalibrationResult:
    """Run the authoring search for ``vertical`` (through its real build entry point)."""
    module = generator_module(vertical)
    seed = module.SEED if seed is None else seed

    def build(echo: Mapping[str, float]) -> list[QuestionRecord]:
        records = build_records(module, seed, echo, shapes=module.CALIBRATED_SHAPES)
        return [QuestionRecord.model_validate(record) for record in records]

    # A fixed start, never the previous recording: the search is a function of (generator, seed).
    start = {shape: calibration.START_ECHO for shape in module.SHAPES}
    result = calibration.calibrate(build, module.CALIBRATED_SHAPES, start,
                                   panel=revision_of(module) >= 2)
    for shape in module.SHAPES:
        if shape not in module.CALIBRATED_SHAPES:
            # Not searched: gold-less shapes read 0.0 (§4.9); a revision-2 shape the search cannot
            # move (a declared exemption) keeps the fixed dial its declaration records.
            fixed = recorded_dial(module).get(shape, 0.0) if revision_of(module) >= 2 else 0.0
            result.echo_by_shape[shape] = fixed
    return result


@dataclass
class GenerationReport:
    """What ``generate`` did, with the time taken per phase (printed, never written to disk)."""

    vertical: str
    corpus_path: Path
    sidecar_path: Path
    sha256: str
    echo_by_shape: dict[str, float]
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
    """Write ``<out>/typedmemeval-<vertical>-v1.json`` and its sidecar from the recorded seed.

    Without ``search`` the echo is the module's ``RECORDED_ECHO`` (a pinned rebuild, byte-identical
    to the shipped file). With ``search`` the calibration search runs first and its echo is used
    (and must then be recorded in the module for the next rebuild to match).
    """
    module = generator_module(vertical)
    out = Path(out_dir) if out_dir is not None else shipped_corpora_dir()
    out.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    record: Mapping[str, Any] | None = calibration_record(module)
    echo = recorded_dial(module)
    revision = revision_of(module)
    if search:
        began = time.perf_counter()
        result = search_echo(vertical)
        seconds["search"] = time.perf_counter() - began
        echo = result.echo_by_shape
        record = result.record()
        if revision >= 2:
            # The record is data beside the declaration; the dial itself is still copied into the
            # module by hand (RECORDED_COMPETITION), so a search never silently moves a corpus.
            _write(calibration_record_path(module), dump_json(record))
    began = time.perf_counter()
    text, stats = _text_and_stats(module, echo)
    seconds["build"] = time.perf_counter() - began
    began = time.perf_counter()
    name = corpus_id(vertical)
    dials: dict[str, Any] = ({"competition_by_shape": echo, "echo_by_shape": {}, "text_stats": stats}
                             if revision >= 2 else {"echo_by_shape": echo})
    sidecar = build_sidecar(text, corpus_id=name, vertical=vertical, revision=revision,
                            generator=module.GENERATOR, generator_version=module.GENERATOR_VERSION,
                            seed=module.SEED, calibration=record,
                            difficulty_note=getattr(module, "DIFFICULTY_NOTE", None), **dials)
    seconds["sidecar"] = time.perf_counter() - began
    path = out / f"{name}.json"
    _write(path, text)
    _write(sidecar_path_for(path), dump_json(sidecar))
    return GenerationReport(vertical, path, sidecar_path_for(path), corpus_sha256(text.encode("utf-8")),
                            dict(echo), search, seconds, dict(record) if record else None)


def _text_and_stats(module: ModuleType, dial: Mapping[str, float]
                    ) -> tuple[str, dict[str, Any] | None]:
    """Corpus text, and for revision 2 the rendering tally (fact-sentence share) for the sidecar."""
    if revision_of(module) >= 2:
        built = module.build(module.SEED, dial, shapes=module.SHAPES)
        return dump_json(built.records), built.tally.as_stats()
    return dump_json(module.build_records(module.SEED, dial)), None


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def regenerate_text(corpus: Corpus) -> str | None:
    """Rebuild ``corpus`` from its sidecar's generator, seed and recorded echo (never searching).

    For the structure gate's reproducibility rule: ``structure.check(corpus,
    regenerate=regenerate_text)``. ``None`` when the corpus names no generator this registry knows
    (hand-made or foreign corpora): the gate then reports reproducibility as skipped with the
    reason. A sidecar naming another ``generator_version`` is still rebuilt with the installed
    generator, so a corpus left behind by a generator change is refused, not skipped.
    """
    sidecar = corpus.sidecar
    if sidecar is None or sidecar.generator is None or sidecar.seed is None:
        return None
    for vertical, module_name in GENERATORS.items():
        if module_name == sidecar.generator:
            dial = (sidecar.competition_by_shape if sidecar.revision >= 2
                    else sidecar.echo_by_shape)
            return corpus_text(vertical, sidecar.seed, dial)
    return None


__all__ = ["GENERATORS", "GenerationReport", "REVISION", "corpus_id", "corpus_text", "generate",
           "calibration_record", "calibration_record_path", "generator_module", "recorded_dial", "regenerate_text", "revision_of", "search_echo",
           "shipped_corpora_dir"]
