"""An honestly declining system is never reported as committing wrong values (docs/JUDGING.md J1).

The v1 judge graded "I do not have that information." — the very phrase the scenario benchmark asks
for — as ``wrong`` in every vertical. These runs go through the whole plugin on every shipped
question, so a regression anywhere between the instruction and the report shows up here.
"""

from __future__ import annotations

import json

import pytest

from pytest_typedmemeval import shipped_corpora

DECLINING_CONFTEST = '''
import itertools
import pytest

OTHER_DECLINES = itertools.cycle([
    "Unknown.", "I have no idea.", "Our conversations don't say.", "I'm not sure.",
    "I can't recall that.", "There's no record of that.", "N/A", "No idea, sorry!",
    "I'm afraid I don't have any details on that.", "Hmm, I can't say for sure.",
    "I don't know whether you told me.", "Nothing in our chats covers that.",
])


class DecliningAgent:
    """Declines every question. CONTRACT mode answers with the exact phrase the instruction asks
    for (read from the instruction, so the test also proves the instruction states it)."""

    def __init__(self, mode):
        self.mode = mode

    def reset(self):
        pass

    def ingest(self, session):
        pass

    def answer(self, question, *, query_time, instruction):
        if self.mode == "contract":
            marker = "reply exactly: "
            assert marker in instruction, instruction
            return instruction.split(marker, 1)[1]
        return next(OTHER_DECLINES)


@pytest.fixture(scope="session")
def typedmemeval_agent(request):
    return DecliningAgent(request.config.getoption("--declining-mode"))


def pytest_addoption(parser):
    parser.addoption("--declining-mode", default="contract")
'''


@pytest.mark.parametrize("mode", ["contract", "varied"])
def test_a_declining_system_is_never_graded_wrong(pytester: pytest.Pytester, mode: str) -> None:
    pytester.makeconftest(DECLINING_CONFTEST)
    result = pytester.runpytest("--typedmemeval", f"--declining-mode={mode}", "--tme-fail-under",
                                "0", "--tme-report", "report.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    negative = {
        (corpus.corpus_id, record.question_id)
        for corpus in shipped_corpora()
        for record in corpus.records
        if record.typedmemeval.answer_key.expected_negative == "abstain"
        and not record.typedmemeval.answer_key.must_name  # J5.1: a recorded plan must be named
    }
    assert len(report["questions"]) == sum(len(c.records) for c in shipped_corpora())
    for row in report["questions"]:
        expected = "correct" if (row["corpus_id"], row["question_id"]) in negative else "abstained"
        assert row["outcome"] == expected, row
    assert result.ret == pytest.ExitCode.OK
