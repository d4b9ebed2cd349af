"""Regenerate ``docs/report-screenshot.png``: the HTML report of a real run, photographed by headless
Chromium, so the README picture is produced by code and never drawn by hand.

The run is the built-in reference agent over the shipped corpora, in an empty temporary directory
(so pytest collects no test files, only the corpora). Usage::

    python scripts/report_screenshot.py [--out docs/report-screenshot.png] [--html report.html]

Needs ``/usr/bin/chromium`` (Debian/Ubuntu: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pytest_typedmemeval.report.html import render_html  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
WINDOW = "1280,2000"


def chromium_command(page: Path, profile: Path, *extra: str) -> list[str]:
    """Headless Chromium with everything that might reach the network switched off."""
    return [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
            f"--user-data-dir={profile}", *extra, page.as_uri()]


def run_reference(workdir: Path) -> dict[str, object]:
    """A real run of the reference agent over the shipped corpora; returns its JSON report."""
    report = workdir / "report.json"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(workdir),
               "--typedmemeval", "--tme-agent", "reference", "--tme-report", str(report)]
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=900)
    if not report.exists():
        raise SystemExit(f"the reference run wrote no report (exit {done.returncode}):\n{done.stdout[-2000:]}")
    loaded: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return loaded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "report-screenshot.png")
    parser.add_argument("--html", type=Path, default=None, help="also keep the rendered HTML here")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is absent: install it (apt-get install -y chromium) and run again", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tme-shot-") as temporary:
        workdir = Path(temporary)
        html = render_html(run_reference(workdir))
        page = workdir / "report.html"
        page.write_text(html, encoding="utf-8")
        if args.html is not None:
            args.html.write_text(html, encoding="utf-8")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        command = chromium_command(page, workdir / "profile", f"--screenshot={args.out.resolve()}",
                                   f"--window-size={WINDOW}")
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or not args.out.exists():
            print(f"chromium failed (exit {done.returncode}): {done.stderr[-2000:]}", file=sys.stderr)
            return 1
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) from a {len(html)}-byte page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
