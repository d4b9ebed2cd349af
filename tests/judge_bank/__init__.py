"""The labelled judge answer bank (docs/JUDGING.md): a package so tests and benchmarks can import
its builder as ``judge_bank.build_bank`` (``tests/`` is on ``sys.path`` under pytest)."""
