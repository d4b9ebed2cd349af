"""The blind answer sets (tests/judge_bank/blind*.jsonl): answers written and labelled from
docs/JUDGING.md alone by authors who never read the judge, its bank or each other's set, frozen
(sha256 in each set's README) before the judge first graded them. First-run figures are in the
CHANGELOG; these tests keep what the judge has since reached from sliding back."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_typedmemeval.corpus.models import AnswerKey
from pytest_typedmemeval.judge.mechanical import judge_answer

HERE = Path(__file__).parent / "judge_bank"
FROZEN = {"blindA": "7a9502f59bda5aca1707d96f85e1816069d10bdba4f16824a47f3785ec4cbb90",
          "blindB": "b4e3af245328ef212f75956aab0eb2c82807f47ea7fec77df16cec96cc306444",
          "blindD1": "b34deb3405c05b335fdce6ea14fbb5987e85e656ba09345caff845f2133366c5",
          "blindD2": "c956e0127a389bd99ca525273245e1a01aeec57208c6c7081487a3e9f92f8e66",
          "blindE1": "379acb3f4821805c17d9c63544bc2e14b73f24a007a3741037011155b2d01b3e",
          "blindE2": "c7ff44d03a145095b15a936b7e8828f132c4283c9bc9199118227d0c98059437",
          "blindF1": "2bbcbd0c4bd9af47c9a82f7ff48b13ad4ec4ee9c8b210de39cf816ab7ac707e8",
          "blindF2": "d212ebef17bb8dd4bdb278e1ac23c11e422c117521eb285896bc7076c358385e",
          "blindG1": "a57289f123e7fc4818901cec591832334198ba121ff091cc1a7bb02a67156ccd",
          "blindG2": "be8534c30732bec5bba06cbe50533df9525b8a24515d25517b51e0f33c3b6eac",
          "blindH1": "025a228c302ce569d4088fa2560ca07e1d212124196b37620dd6ae30d5b76955",
          "blindH2": "a9a0c068948e8df6c90136ef83829001527d4dca95b86d048ea6aa323c27154a",
          "blindI1": "dcc3a69a2fd0b1877e259e7ab1c08ec190e579935159041a67ee22445c3d4781",
          "blindI2": "75a91f984cbf1a3c136a2aec209b676a3d2098e91229b717a605b4967338c2d9",
          "blindJ": "967e9a3cbbfbdc22c6dfa526d0d7c0f1dc4f523a336e6e3a6ba0b56db671dff8",
          "real1": "1d9d49365b1f59ebec9c1f9b65946b1b51fcc70c0b31caa7bfd0c827a045f217",
          "real2": "eae564dc20aa856ec9e32921074c79c87c2d7042f12983a0d906c0f22fe0e9e7",
          "real3": "981cf5e7be69fffe8857abbfd6e6be25cfec1c0d3a011c14389aad4d81284f9a",
          "real4": "5097738add20d99adebb3aaf96522197590aa6e77dfce9daa2961e5bfc8bd0be"}
FLOOR = {"blindA": 0.975, "blindB": 0.955, "blindD1": 0.99, "blindD2": 0.99, "blindE1": 0.99,
         "blindE2": 0.99, "blindF1": 0.99, "blindF2": 0.99, "blindG1": 0.99, "blindG2": 0.99,
         "blindH1": 0.99, "blindH2": 0.99, "blindI1": 0.99, "blindI2": 0.99, "blindJ": 0.99, "real1": 0.95,
         "real2": 0.95, "real3": 0.90, "real4": 0.95}
"""Agreement each set held when the floor was set (blind A: 0.8981 at its first run, 0.9633
after judge revision 3's fixes, 0.9786 after revision 4's; blind B: 0.9484 at its first run,
0.9604 after revision 4; D1: 0.9733 at its first run, 1.0 after revision 4; D2: 0.9499 at its
first run, 1.0 after revision 4 — D1 and D2 were what revision 4 was fixed from, so their
after-figures are not held-out evidence; E1/E2: 0.9903/0.9892 at their first run (revision 4),
1.0 after revision 6, fitted; F1/F2: 0.9913/0.9721 at their first run (ruleset 6), 1.0 after
revision 7, fitted; G1/G2: 0.9915/0.9848 at their first run (ruleset 7), 0.9972/1.0 after
revision 8, fitted — G1-216 stays disagreeing, its label departing from J12 (J20.2); H1/H2:
0.9886/0.9773 at their first run (ruleset 8), 0.9943/1.0 after revision 9, fitted — H1-114 (J13.5:
another holder's thing alone is not read) and H1-335 (J6: a not-yet with another key value as the
plan is wrong) stay disagreeing, their labels departing from the contract (J21.7); I1/I2:
0.9749/0.9798 at their first run (ruleset 9), 0.9944/1.0 after revision 10, fitted (the fixes
were made looking at them; a fresh set is needed for an unseen figure) — I1-073 (J7.2: a lone
figure in another currency is another quantity) and I1-357 (J3.2: a hedge commits) stay
disagreeing, their labels departing from the contract (J22.6, J22.9); J: 1.0 at its first run
(ruleset 10; 260 answers on 69 questions, held out: no fix has been made looking at it); the real-model sets real1/real2/real3 (SmolLM2-135M answers, labelled blind): 0.75 at real1's first
run and 0.9808 after revision 5 (fitted), real2 0.9136 and real3 0.8269 at their first runs, held
out until revision 8, after which they read 0.9630 and 0.9423 (every clear label agreeing; fitted);
real4 (115 answers written after revision 10, labelled blind): 0.9565 at its first run, every one of
its 96 clear labels agreeing, held out);
a floor, not a target."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _graded(name: str) -> list[tuple[dict[str, Any], str, list[str]]]:
    questions = {(q["corpus_id"], q["question_id"]): q for q in _lines(HERE / f"{name}_questions.jsonl")}
    out = []
    for case in _lines(HERE / f"{name}.jsonl"):
        record = questions[case["corpus_id"], case["question_id"]]
        key = AnswerKey.model_validate(record["typedmemeval"]["answer_key"])
        verdict = judge_answer(case["answer"], key, question=record["question"])
        out.append((case, verdict.outcome.value, sorted(verdict.subcounts)))
    return out


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_a_blind_set_is_the_frozen_file(name: str) -> None:
    digest = hashlib.sha256((HERE / f"{name}.jsonl").read_bytes()).hexdigest()
    assert digest == FROZEN[name]


@pytest.mark.parametrize("name", sorted(FROZEN))
def test_the_judge_keeps_its_agreement_and_never_credits_a_wrong_answer(name: str) -> None:
    graded = _graded(name)
    hits = sum(1 for case, outcome, subs in graded
               if outcome == case["expected"] and subs == case["expected_subcounts"])
    # The real-model sets mark each label clear or not (the labeller had to interpret the contract);
    # an answer credited against an unclear label is reported in the CHANGELOG, not refused here.
    false_positives = [case["case_id"] for case, outcome, _ in graded
                       if outcome == "correct" and case["expected"] != "correct"
                       and case.get("clear", True)]
    assert not false_positives
    assert hits / len(graded) >= FLOOR[name], f"{hits}/{len(graded)}"
