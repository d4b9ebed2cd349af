"""Corpus records, sidecars, loading with identity, and the registry of shipped corpora.

Names are imported on first use (PEP 562), as in the package root: a run that collects from
pytest's cache imports :mod:`.identity` and :mod:`.index` only, never pydantic or the models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .identity import CorpusError, corpus_sha256
    from .loading import Corpus, load_corpus
    from .models import (
        AnswerKey,
        CorpusTurn,
        ExtensionBlock,
        NumericKey,
        QuestionRecord,
        Sidecar,
        format_corpus_date,
        parse_corpus_date,
    )
    from .registry import shipped_corpora, shipped_corpus_paths

_HOMES = {
    "CorpusError": ".identity", "corpus_sha256": ".identity",
    "Corpus": ".loading", "load_corpus": ".loading",
    "AnswerKey": ".models", "CorpusTurn": ".models", "ExtensionBlock": ".models", "NumericKey": ".models",
    "QuestionRecord": ".models", "Sidecar": ".models", "format_corpus_date": ".models",
    "parse_corpus_date": ".models",
    "shipped_corpora": ".registry", "shipped_corpus_paths": ".registry",
}

__all__ = [
    "AnswerKey",
    "Corpus",
    "CorpusError",
    "CorpusTurn",
    "ExtensionBlock",
    "NumericKey",
    "QuestionRecord",
    "Sidecar",
    "corpus_sha256",
    "format_corpus_date",
    "load_corpus",
    "parse_corpus_date",
    "shipped_corpora",
    "shipped_corpus_paths",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__, lambda: globals())
