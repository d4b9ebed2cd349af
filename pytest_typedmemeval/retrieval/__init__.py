"""The BM25 reference retriever and its tokenizer (GATES.md §3)."""

from .bm25 import K_REF, rank_sessions, realised_coverage, session_document, top_k
from .tokenizer import STOPWORDS, raw_tokens, tokenize

__all__ = ["K_REF", "STOPWORDS", "rank_sessions", "raw_tokens", "realised_coverage", "session_document", "tokenize", "top_k"]
