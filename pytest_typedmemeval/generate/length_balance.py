"""Word-length balance between the banks that different roles draw from.

Why: red team 22 (WorkingMemory) and red team 27 (Episodic) each located gold without reading a
word, from the *lengths* of a statement's words in order — own tails "I did" (``1 3``) never in a
competitor's, "added" frames of 17/40/44/52 characters against 22/43/56/58. A bank balanced only on
average or on a sorted profile still leaks through order, a lookup table or a histogram. The check
here is exact: every word-length sequence must make up the same share of every role's bank, so no
reader of lengths can tell the roles apart in any sample, not only on average. Generators run it at
import on every bank whose role a reader must not see.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any


def length_sequence(text: str) -> tuple[Any, ...]:
    """A line's words in order, each as its length, with commas and colons kept and every slot
    ("{rel}", "{value}") as itself: what red teams 22 and 27 read."""
    return tuple(t if t.startswith("{") or t in ",:" else len(re.sub(r"[^A-Za-z]", "", t))
                 for t in re.findall(r"\{\w+\}|[A-Za-z']+|[,:]", text))


def length_sequence_imbalance(banks: Mapping[str, Sequence[str]]) -> list[str]:
    """The word-length sequences whose share differs between two or more role banks (empty when
    sound). Each bank is what its role draws from uniformly, so a sequence must make up the same
    share of every bank, or the role can be read from word lengths in order."""
    shares = {role: {seq: n / len(lines) for seq, n in Counter(map(length_sequence, lines)).items()}
              for role, lines in banks.items()}
    every = sorted({seq for share in shares.values() for seq in share}, key=str)
    out = []
    for seq in every:
        found = {role: share.get(seq, 0.0) for role, share in shares.items()}
        if max(found.values()) - min(found.values()) > 1e-9:
            out.append(f"{' '.join(map(str, seq))}: " + ", ".join(
                f"{role} {v:.3f}" for role, v in found.items()))
    return out
