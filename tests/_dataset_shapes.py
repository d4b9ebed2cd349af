"""Tiny files in the exact upstream layouts of LoCoMo, LongMemEval and HaluMem, written by the
tests themselves (the real files are never in the repository, VERTICALS.md §6.7).

Every conversation here is invented: two friends, Ada and Bo, talking about a kettle, a bike and
a trip. The layouts follow ``snap-research/LoCoMo`` ``data/locomo10.json`` @3eb6f2c,
``xiaowu0162/LongMemEval`` README "Dataset Format" @9e0b455, and ``MemTensor/HaluMem`` README and
``eval/eval_memzero.py`` @59402b9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def locomo_record() -> dict[str, Any]:
    """One LoCoMo conversation with two sessions and a QA list holding every known defect.

    Speaker A is Ada; turns D1:1, D1:3, D2:1 are hers, D1:2 and D2:2 are Bo's.
    """
    return {
        "qa": [
            # q000: clean, evidence in Ada's turn, numeric answer (the file has ints)
            {"question": "In which year did Ada buy the kettle?", "answer": 2021, "evidence": ["D1:1"],
             "category": 2},
            # q001: evidence in Bo's turn -> excluded under principal a, scored under b
            {"question": "What colour is Bo's bike?", "answer": "green", "evidence": ["D1:2"], "category": 4},
            # q002: several references in one string, one zero-padded -> both resolve to Ada's turns
            {"question": "Where did Ada go and what did she buy?", "answer": "Lisbon, kettle",
             "evidence": ["D1:1; D2:01"], "category": 1},
            # q003: malformed "D" and a dangling reference, plus a repairable "D:1:3"
            {"question": "What does Ada collect?", "answer": "stamps", "evidence": ["D", "D9:9", "D:1:3"],
             "category": 4},
            # q004: empty evidence -> excluded (nothing to place in a speaker's turns)
            {"question": "Would Ada enjoy a museum?", "answer": "Yes; she likes history", "evidence": [],
             "category": 3},
            # q005: adversarial without "answer" (444 of 446 upstream), evidence in Ada's turn
            {"question": "What did Bo buy in Lisbon?", "evidence": ["D2:1"], "category": 5,
             "adversarial_answer": "a kettle"},
        ],
        "conversation": {
            "speaker_a": "Ada",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ada", "dia_id": "D1:1", "text": "I finally bought a copper kettle back in 2021."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice! My new bike is green, by the way.",
                 "img_url": ["https://example.invalid/bike.jpg"], "blip_caption": "a photo of a green bike",
                 "query": "green bike"},
                {"speaker": "Ada", "dia_id": "D1:3", "text": "I have started collecting stamps too."},
            ],
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [
                {"speaker": "Ada", "dia_id": "D2:1", "text": "I just got back from Lisbon."},
                {"speaker": "Bo", "dia_id": "D2:2", "text": "How was the weather?"},
            ],
            # upstream conv-26 has dates for sessions that do not exist
            "session_3_date_time": "4:10 pm on 26 October, 2023",
        },
        "event_summary": {"events_session_1": {"Ada": ["Ada bought a kettle."], "Bo": [], "date": "8 May, 2023"}},
        "observation": {"session_1_observation": {"Ada": [["Ada owns a kettle.", "D1:1"]], "Bo": []}},
        "session_summary": {"session_1_summary": "Ada and Bo talk about a kettle and a bike."},
        "sample_id": "conv-1",
    }


def write_locomo(path: Path, records: list[dict[str, Any]] | None = None) -> Path:
    path.write_text(json.dumps(records if records is not None else [locomo_record()]), encoding="utf-8")
    return path


def longmemeval_records() -> list[dict[str, Any]]:
    """Three LongMemEval questions: a clean one, an abstention one, and an oracle-style messy one."""
    def turns(*pairs: tuple[str, str, bool]) -> list[dict[str, Any]]:
        out = []
        for role, content, has_answer in pairs:
            turn: dict[str, Any] = {"role": role, "content": content}
            if has_answer:
                turn["has_answer"] = True
            out.append(turn)
        return out

    return [
        {
            "question_id": "e47becba", "question_type": "single-session-user",
            "question": "What colour is my kettle?", "answer": "copper",
            "question_date": "2023/05/30 (Tue) 23:40",
            "haystack_session_ids": ["sharegpt_aaa_0", "answer_e47becba_1"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/25 (Thu) 10:00"],
            "haystack_sessions": [
                turns(("user", "Can you suggest a pasta recipe?", False), ("assistant", "Try carbonara.", False)),
                turns(("user", "My new kettle is copper and it whistles.", True), ("assistant", "Lovely.", False)),
            ],
            "answer_session_ids": ["answer_e47becba_1"],
        },
        {
            "question_id": "e47becba_abs", "question_type": "single-session-user",
            "question": "What colour is my toaster?",
            "answer": "The information provided is not enough. You mentioned your kettle but not a toaster.",
            "question_date": "2023/05/30 (Tue) 23:40",
            "haystack_session_ids": ["ultrachat_bbb", "answer_e47becba_abs_1"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/25 (Thu) 10:00"],
            "haystack_sessions": [
                turns(("user", "Tell me about tides.", False), ("assistant", "The moon pulls the sea.", False)),
                turns(("user", "My new kettle is copper and it whistles.", False), ("assistant", "Lovely.", False)),
            ],
            "answer_session_ids": ["answer_e47becba_abs_1"],
        },
        {
            # oracle-style: not sorted by date; a duplicated session id; one date whose weekday is
            # wrong; one session dated after the question; a dangling evidence id; int answer
            "question_id": "gpt4_91c3", "question_type": "single-session-assistant",
            "question": "How many gears did you say my bike has?", "answer": 21,
            "question_date": "2023/06/10 (Sat) 09:00",
            "haystack_session_ids": ["answer_91c3_2", "dup_9", "answer_91c3_1", "dup_9"],
            "haystack_dates": ["2023/06/05 (Mon) 08:00", "2023/06/02 (Mon) 08:00",
                               "2023/06/01 (Thu) 08:00", "2023/06/12 (Mon) 08:00"],
            "haystack_sessions": [
                turns(("user", "Thanks again.", False), ("assistant", "Your bike has 21 gears.", True)),
                turns(("user", "Filler one.", False)),
                turns(("user", "I bought a bike.", False), ("assistant", "Which model?", False)),
                turns(("user", "Filler two.", False)),
            ],
            "answer_session_ids": ["answer_91c3_2", "answer_91c3_1", "answer_91c3_missing"],
        },
    ]


def write_longmemeval(path: Path, records: list[dict[str, Any]] | None = None) -> Path:
    path.write_text(json.dumps(records if records is not None else longmemeval_records()), encoding="utf-8")
    return path


def halumem_user() -> dict[str, Any]:
    """One HaluMem user with two sessions; questions sit on the second session."""
    def dialogue(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
        out = []
        for turn, (user, assistant) in enumerate(pairs):
            out.append({"role": "user", "content": user, "timestamp": "Dec 15, 2025, 06:11:23", "dialogue_turn": turn})
            out.append({"role": "assistant", "content": assistant, "timestamp": "Dec 15, 2025, 06:11:23",
                        "dialogue_turn": turn})
        return out

    kettle = "Ada Lind owns a copper kettle."
    moved = "Ada Lind moved to Porto."
    return {
        "uuid": "9f0c2d1e-0000-4000-8000-000000000001",
        "persona_info": "Name: Ada Lind; Gender: Female; Occupation: Teacher",
        "sessions": [
            {
                "start_time": "Dec 15, 2025, 06:11:23", "end_time": "Dec 15, 2025, 06:30:00",
                "dialogue_turn_num": 1,
                "dialogue": dialogue(("I own a copper kettle that I love.", "That sounds lovely, Ada.")),
                "memory_points": [{"index": 1, "memory_content": kettle, "memory_type": "Persona Memory",
                                   "memory_source": "primary", "is_update": "False", "original_memories": [],
                                   "timestamp": "Dec 15, 2025, 06:11:23", "importance": 0.5}],
                "dialogue_token_length": 40,
            },
            {
                "start_time": "Jan 03, 2026, 09:00:00", "end_time": "Jan 03, 2026, 09:20:00",
                "dialogue_turn_num": 1,
                "dialogue": dialogue(("I moved to Porto last week.", "Congratulations on the move!")),
                "memory_points": [{"index": 1, "memory_content": moved, "memory_type": "Event Memory",
                                   "memory_source": "primary", "is_update": "True",
                                   "original_memories": ["Ada Lind lives in Lisbon."],
                                   "timestamp": "Jan 03, 2026, 09:00:00", "importance": 0.8}],
                "questions": [
                    {"question": "Which city does Ada live in now?", "answer": "Porto",
                     "evidence": [{"memory_content": moved, "memory_type": "Event Memory"}],
                     "difficulty": "easy", "question_type": "Dynamic Update"},
                    {"question": "What is Ada's blood type?",
                     "answer": "Unknown; Ada never mentioned her blood type.",
                     "evidence": [], "difficulty": "medium", "question_type": "Memory Boundary"},
                    {"question": "What kind of kettle does Ada own?", "answer": "A copper kettle",
                     "evidence": [{"memory_content": kettle, "memory_type": "Persona Memory"},
                                  {"memory_content": "A memory point no session holds.",
                                   "memory_type": "Persona Memory"}],
                     "difficulty": "easy", "question_type": "Basic Fact Recall"},
                ],
                "dialogue_token_length": 38,
            },
        ],
        "total_dialogue_token_length": 78,
        "total_question_count": 3,
    }


def write_halumem(path: Path, users: list[dict[str, Any]] | None = None) -> Path:
    lines = [json.dumps(user) for user in (users if users is not None else [halumem_user()])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
