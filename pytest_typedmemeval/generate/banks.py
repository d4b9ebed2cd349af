"""Scaffold text shared by more than one vertical, so a reply bank is written once.

Only banks that are identical across verticals live here; a vertical whose parity work tuned its
own bank keeps it in its module (the bytes a seed produces depend on the exact bank).
"""

from __future__ import annotations

ASSISTANT_TALK: tuple[str, ...] = (
    "Thanks for telling me.",
    "Good to hear.",
    "That sounds nice.",
    "Understood.",
    "Got it, thanks.",
    "That makes sense.",
    "Sounds good to me.",
    "Thanks for the update.",
    "I see, that is helpful.",
    "Understood, thank you.",
    "Glad you shared that.",
    "That is good to know.",
    "Thanks, that helps.",
    "Happy to hear it.",
    "I follow, thanks.",
    "Right, that is clear.",
    "Good, thanks for the detail.",
    "That sounds like a plan.",
    "Thanks for keeping me posted.",
    "That is useful to hear.",
)
"""Assistant replies for every assistant turn: generic acknowledgements that never repeat a value
or a subject, so they cannot mark gold (used by Forgetting and Arithmetic)."""
