"""Reading the scenario corpus: models, rules, and the digest that travels with every result.

The digest is the SHA-256 of the file bytes (§6.2), newline-normalised like every corpus here: a result names the bytes it
was measured on, and a corpus that fails any rule never reaches a run, because a half-valid corpus
would be reported under a digest that does not describe what ran.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..corpus.identity import corpus_sha256, located
from .models import MemoryBenchmarkCorpus
from .rules import RuleViolation, check_corpus

SHIPPED_CORPUS_FILE = "scenarios-v1.json"


class ScenarioCorpusError(ValueError):
    """The scenario corpus cannot be used. One line: file, scenario, probe, field, problem."""

    def __init__(self, path: Path | str, problem: str, *, scenario_id: str | None = None,
                 probe_id: str | None = None, field: str | None = None) -> None:
        self.path = str(path)
        self.scenario_id = scenario_id
        self.probe_id = probe_id
        self.field = field
        self.problem = problem
        super().__init__(located(path, " ".join(problem.split()), ("scenario", scenario_id),
                                 ("probe", probe_id), ("field", field)))


@dataclass(frozen=True)
class ScenarioCorpus:
    """A validated corpus and the identity every result carries."""

    path: Path
    sha256: str
    document: MemoryBenchmarkCorpus


def corpus_digest(raw: bytes) -> str:
    """SHA-256 of the bytes with CRLF/CR read as LF: the project's corpus identity rule (a Windows
    checkout must not show as drift against a baseline recorded on Linux)."""
    return corpus_sha256(raw)


def shipped_scenarios_path() -> Path:
    """The corpus shipped inside the package (``scenarios/data/scenarios-v1.json``)."""
    return Path(str(resources.files(__package__).joinpath("data", SHIPPED_CORPUS_FILE)))


def _locate(data: Any, loc: tuple[int | str, ...]) -> tuple[str | None, str | None, str]:
    """Turn a pydantic location into (scenario id, probe id, field path inside that object)."""
    scenario_id = probe_id = None
    rest = list(loc)
    if len(rest) >= 2 and rest[0] == "scenarios" and isinstance(rest[1], int):
        raw = data["scenarios"][rest[1]] if isinstance(data, dict) else None
        scenario_id = str(raw.get("id", f"#{rest[1]}")) if isinstance(raw, dict) else f"#{rest[1]}"
        rest = rest[2:]
        if len(rest) >= 2 and rest[0] == "probes" and isinstance(rest[1], int) and isinstance(raw, dict):
            probe = raw["probes"][rest[1]]
            probe_id = str(probe.get("id", f"#{rest[1]}")) if isinstance(probe, dict) else f"#{rest[1]}"
            rest = rest[2:]
    text = ""
    for part in rest:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return scenario_id, probe_id, text or "<object>"


def parse_scenarios(data: Any, path: Path | str = "<memory>") -> MemoryBenchmarkCorpus:
    """Validate already-decoded JSON: schema first, then every rule of :mod:`.rules`."""
    try:
        document = MemoryBenchmarkCorpus.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        scenario_id, probe_id, field = _locate(data, tuple(first["loc"]))
        more = error.error_count() - 1
        suffix = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        raise ScenarioCorpusError(path, first["msg"] + suffix, scenario_id=scenario_id,
                                  probe_id=probe_id, field=field) from None
    try:
        check_corpus(document)
    except RuleViolation as violation:
        raise ScenarioCorpusError(path, violation.problem, scenario_id=violation.scenario_id,
                                  probe_id=violation.probe_id, field=violation.field) from None
    return document


def load_scenarios(path: str | Path | None = None) -> ScenarioCorpus:
    """Load and validate a scenario corpus (the shipped one when ``path`` is ``None``).

    Raises :class:`ScenarioCorpusError` with a one-line message.
    """
    path = Path(path) if path is not None else shipped_scenarios_path()
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ScenarioCorpusError(path, f"cannot read scenario corpus: {error.strerror or error}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ScenarioCorpusError(path, f"not UTF-8 at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise ScenarioCorpusError(path, f"invalid JSON at line {error.lineno} column {error.colno}: "
                                  f"{error.msg}") from None
    return ScenarioCorpus(path, corpus_digest(raw), parse_scenarios(data, path))
