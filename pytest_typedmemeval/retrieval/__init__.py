"""The BM25 reference retriever and its tokenizer (GATES.md §3), and the English analyzer of the
calibration panel's ``bm25-english`` arm (VERTICALS.md Appendix D; :mod:`.analyzers`)."""

from .analyzers import ENGLISH_STOPWORDS, english_tokens
from .bm25 import K_REF, rank_sessions, realised_coverage, session_document, top_k
from .tokenizer import STOPWORDS, raw_tokens, tokenize

__all__ = ["ENGLISH_STOPWORDS", "K_REF", "STOPWORDS", "english_tokens", "rank_sessions", "raw_tokens",
           "realised_coverage", "session_document", "tokenize", "top_k"]
