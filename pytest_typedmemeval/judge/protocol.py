"""What a judge is, as the runner and the plugin's hooks see it: the protocol every judge meets.

The built-in judges (:mod:`.mechanical`, :mod:`.llm`) and a judge returned by the
``pytest_typedmemeval_make_judge`` hook all satisfy it. Kept here, with the judges, so that the
runner (:mod:`..adapter.run`) depends on the judging layer and never the other way round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..corpus.models import AnswerKey
    from .outcomes import Verdict


class Judge(Protocol):
    """A judge grades one answer against the answer key. The mechanical judge is the default.

    ``question`` is the question text as the adapter saw it (never its id): the mechanical rules do
    not need it, a model judge does. A judge may also offer ``model: str | None`` (named in the
    report's ``judge`` block) and ``close()`` (called once at the end of the session).
    """

    name: str
    fingerprint: str

    def judge(self, answer: str, key: AnswerKey, surfaced_items: frozenset[str] | None = None,
              *, question: str | None = None) -> Verdict: ...
