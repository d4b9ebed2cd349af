"""Names a dataset question carries in pytest: its node-id part and its markers.

Item ids are built from positions (``dataset/locomo/conv-26/q017``, ``dataset/longmemeval/q0042``,
``dataset/halumem/u03/q0012``), never from the upstream question id or the category: the node id
reaches the process under test (``PYTEST_CURRENT_TEST``), and LongMemEval's ``_abs`` suffix would
tell an adapter which questions have no answer. Markers are not visible to the adapter, so they
carry the category; they are prefixed with the dataset so that ``-m temporal`` keeps meaning the
TypedMemEval vertical.
"""

from __future__ import annotations

import re

from .models import DatasetQuestion, DatasetSpec

DATASET_MARKER = "dataset"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-/]+")


def dataset_item_id(question: DatasetQuestion) -> str:
    """``dataset/<name>/<position-based id>``."""
    return f"dataset/{question.dataset}/{_UNSAFE.sub('_', question.item_id)}"


def category_marker(dataset: str, category: str) -> str:
    """``locomo_multi_hop``, ``longmemeval_single_session_user``, ``halumem_memory_boundary``."""
    words = re.sub(r"[^a-z0-9]+", "_", category.casefold()).strip("_") or "uncategorised"
    return f"{dataset}_{words}"


def abstention_marker(dataset: str) -> str:
    return f"{dataset}_abstention"


def item_markers(question: DatasetQuestion) -> tuple[str, ...]:
    """``dataset``, the dataset's name, its category marker, and its abstention marker if any."""
    markers = [DATASET_MARKER, question.dataset, category_marker(question.dataset, question.category)]
    if question.abstention:
        markers.append(abstention_marker(question.dataset))
    return tuple(markers)


def spec_markers(spec: DatasetSpec) -> list[tuple[str, str]]:
    """Every marker a dataset's items can carry for its known categories, with a description,
    for ``config.addinivalue_line("markers", ...)`` so ``--strict-markers`` passes. A category the
    file adds beyond the known ones needs registering when its items are made."""
    out = [(spec.name, f"{spec.title} question (public dataset, read from a local file)"),
           (abstention_marker(spec.name), f"{spec.title} abstention probe")]
    out += [(category_marker(spec.name, category), f"{spec.title} category {category!r}")
            for category in spec.categories]
    return out
