"""Proof that a change to the data path leaves the JSON report as it was, timing aside (issue 13).

Runs the same no-op benchmark twice, once with this checkout's package and once with the package
as it stood at a git revision (checked out into a temporary worktree), over the shipped corpora and
over a synthetic corpus of ``--synthetic`` questions (clones of the shipped records under new ids,
the overhead benchmark's corpus), and compares the two reports key by key. Only the ``timing``
block and each question's ``duration_seconds`` may differ. Exits 1 on any other difference.

    python benchmarks/check_report_identity.py --against 91d4a56
    python benchmarks/check_report_identity.py --against HEAD~3 --synthetic 5000 -n 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_plugin_overhead import NOOP_CONFTEST, NOOP_ARGS, write_synthetic  # noqa: E402

TIMING_KEYS = frozenset({"timing", "duration_seconds"})


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_timing(item) for key, item in value.items() if key not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timing(item) for item in value]
    return value


def differences(old: Any, new: Any, path: str = "") -> list[str]:
    """Every place the two documents differ, as ``path: old != new`` lines."""
    if type(old) is not type(new):
        return [f"{path or '<root>'}: {type(old).__name__} != {type(new).__name__}"]
    if isinstance(old, dict):
        found = []
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                found.append(f"{path}.{key}: only in the {'new' if key not in old else 'old'} report")
            else:
                found += differences(old[key], new[key], f"{path}.{key}")
        return found
    if isinstance(old, list):
        if len(old) != len(new):
            return [f"{path}: {len(old)} items != {len(new)} items"]
        return [line for index, (a, b) in enumerate(zip(old, new)) for line in differences(a, b, f"{path}[{index}]")]
    return [] if old == new else [f"{path}: {old!r:.80} != {new!r:.80}"]


def run_report(package_root: Path, workdir: Path, args: list[str], report: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    completed = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args,
                                *NOOP_ARGS, f"--tme-report={report}"], cwd=workdir, env=env,
                               capture_output=True, text=True)
    if not report.is_file():
        raise SystemExit(f"no report from {package_root} (exit {completed.returncode}):\n{completed.stdout[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="git revision whose package is the reference")
    parser.add_argument("--synthetic", type=int, default=5000, help="questions in the synthetic corpus (0: none)")
    parser.add_argument("-n", dest="workers", default="0", help="pytest-xdist workers for both runs (default 0)")
    options = parser.parse_args(argv)
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="tme-identity-") as tmp:
        root = Path(tmp)
        reference = root / "reference"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "-q", str(reference),
                        options.against], check=True)
        try:
            workdir = root / "project"
            workdir.mkdir()
            (workdir / "conftest.py").write_text(NOOP_CONFTEST, encoding="utf-8")
            runs = {"shipped corpora": ["--typedmemeval"]}
            if options.synthetic:
                paths = write_synthetic(root / "synthetic", options.synthetic)
                runs[f"synthetic, {options.synthetic:,} questions"] = [f"--tme-corpus={p}" for p in paths]
            failed = False
            for name, args in runs.items():
                args = [*args, "-n", options.workers]
                old = run_report(reference, workdir, args, root / "old.json")
                new = run_report(repo, workdir, args, root / "new.json")
                found = differences(_without_timing(old), _without_timing(new))
                questions = len(new.get("questions", []))
                print(f"{name}: {questions:,} questions, "
                      + ("identical (timing aside)" if not found else f"{len(found)} difference(s)"))
                for line in found[:20]:
                    print(f"  {line}")
                failed |= bool(found)
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(reference)], check=False)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
