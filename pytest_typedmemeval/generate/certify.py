"""The corpus gates as ``typedmemeval gate`` and the plugin's gate items run them: the gate
registry with the generators' reproducibility hook plugged in.

Structure's reproducibility rule rebuilds a corpus from its sidecar's declaration, seed and
recorded dial, which only the generators know how to do; the gates cannot import them (the
generators import the gates), so the hook is injected here, one layer above both.
:func:`.registry.regenerate_text` imports only this package's own declarations (a sidecar is
data: the module name it carries is matched, never imported) and answers ``None`` (reported as
skipped) for a corpus no declaration wrote: hand-made, foreign or a retired revision 1.
"""

from __future__ import annotations

from typing import Any

from ..gates import registry as gates
from ..gates.result import GateResult
from .registry import regenerate_text


def run_corpus_gate(name: str, corpus: Any, *, require_probes: bool = False) -> GateResult:
    """:func:`..gates.registry.run_corpus_gate`, reproducibility checked by rebuilding."""
    return gates.run_corpus_gate(name, corpus, require_probes=require_probes,
                                 regenerate=regenerate_text)


def run_corpus_gates(corpus: Any, *, require_probes: bool = False) -> list[GateResult]:
    """Every corpus gate over ``corpus``, in ``GATES`` order, reproducibility checked by
    rebuilding."""
    return gates.run_corpus_gates(corpus, require_probes=require_probes, regenerate=regenerate_text)


__all__ = ["run_corpus_gate", "run_corpus_gates"]
