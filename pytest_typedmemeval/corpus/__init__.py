"""Corpus records, sidecars, loading with identity, and the registry of shipped corpora."""

from .loading import Corpus, CorpusError, corpus_sha256, load_corpus
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
