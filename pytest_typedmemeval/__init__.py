"""TypedMemEval as a pytest plugin: typed-outcome memory benchmark corpora run against your adapter.

``__all__`` is the contract; everything else is importable but not promised.
"""

from .agent import Answer, Evidence, MemoryAgent, Session, Turn
from .corpus.loading import Corpus, CorpusError, load_corpus
from .corpus.models import AnswerKey, NumericKey, QuestionRecord, Sidecar
from .corpus.registry import shipped_corpora, shipped_sha256s
from .judge.outcomes import Outcome, Verdict
from .results import QuestionResult

__all__ = [
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
