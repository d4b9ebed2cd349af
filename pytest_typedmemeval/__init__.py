"""TypedMemEval as a pytest plugin: typed-outcome memory benchmark corpora run against your adapter.

``__all__`` is the contract; everything else is importable but not promised.

The names are imported on first use (PEP 562): pytest imports this package for the plugin entry
point in every run, enabled or not, and an unrelated project must not pay for pydantic and the
corpus models at each start (issue 13, P4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from .adapter.factories import AdapterFactory
    from .adapter.protocol import Answer, Evidence, MemoryAgent, Session, Turn
    from .corpus.identity import CorpusError
    from .corpus.loading import Corpus, load_corpus
    from .corpus.models import AnswerKey, NumericKey, QuestionRecord, Sidecar
    from .corpus.registry import shipped_corpora, shipped_sha256s
    from .judge.outcomes import Outcome, Verdict
    from .results import QuestionResult

_HOMES = {
    "AdapterFactory": ".adapter.factories",
    "Answer": ".adapter.protocol", "Evidence": ".adapter.protocol", "MemoryAgent": ".adapter.protocol",
    "Session": ".adapter.protocol", "Turn": ".adapter.protocol",
    "Corpus": ".corpus.loading", "CorpusError": ".corpus.identity", "load_corpus": ".corpus.loading",
    "AnswerKey": ".corpus.models", "NumericKey": ".corpus.models", "QuestionRecord": ".corpus.models",
    "Sidecar": ".corpus.models",
    "shipped_corpora": ".corpus.registry", "shipped_sha256s": ".corpus.registry",
    "Outcome": ".judge.outcomes", "Verdict": ".judge.outcomes",
    "QuestionResult": ".results",
}

__all__ = [
    "AdapterFactory",
    "Answer",
    "AnswerKey",
    "Corpus",
    "CorpusError",
    "Evidence",
    "MemoryAgent",
    "NumericKey",
    "Outcome",
    "QuestionRecord",
    "QuestionResult",
    "Session",
    "Sidecar",
    "Turn",
    "Verdict",
    "load_corpus",
    "shipped_corpora",
    "shipped_sha256s",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__, lambda: globals())
