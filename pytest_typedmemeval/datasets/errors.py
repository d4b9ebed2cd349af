"""The one error a dataset file that is not the dataset raises.

Known defects of the real files (a dangling evidence reference, a missing adversarial answer, an
undated session) are counted in the :class:`~.models.LoadReport` and never raise. What raises is a
file that cannot be the dataset at all: the wrong top-level type, a record without a required key.
Then the user needs one line naming the file, the question and the field, not a traceback.
"""

from __future__ import annotations


class DatasetFormatError(ValueError):
    """``FILE: question ID: field PATH: problem`` — the file is not the dataset it was named as."""

    def __init__(self, file: str, question_id: str | None, field: str, problem: str) -> None:
        self.file = file
        self.question_id = question_id
        self.field = field
        self.problem = problem
        where = f"question {question_id}: " if question_id else ""
        super().__init__(f"{file}: {where}field {field}: {problem}")
