"""Run the fault matrix (tests/faults/fault_cases.py) and print one line per case, then the summary
``cases N, ok N, lost N, unclear N, crash N, hung N``. Exit status 1 unless every case is ok.

    python scripts/fault_matrix.py [-j JOBS] [-k SUBSTRING]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "faults"))

from fault_cases import CASES, CaseOutcome, run_case, summary_line  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="cases run at once")
    parser.add_argument("-k", default="", help="only cases whose name contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the output of failing cases")
    options = parser.parse_args(argv)
    cases = [case for case in CASES if options.k.lower() in case.name.lower()]
    with tempfile.TemporaryDirectory(prefix="tme-fault-matrix-") as scratch:
        def run(index: int) -> CaseOutcome:
            return run_case(cases[index], Path(scratch) / f"case-{index:02d}")

        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            outcomes = list(pool.map(run, range(len(cases))))
    for outcome in outcomes:
        print(outcome.line())
        if options.verbose and not outcome.ok:
            print(outcome.output[-4000:])
    print(summary_line([outcome.tally() for outcome in outcomes]))
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
