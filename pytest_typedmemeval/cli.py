"""The ``typedmemeval`` command: ``schema`` and ``gate`` (``generate`` arrives with the generators)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def _schema(args: argparse.Namespace) -> int:
    from pydantic import TypeAdapter

    from .corpus.models import QuestionRecord, Sidecar

    if args.sidecar:
        schema = Sidecar.model_json_schema()
    else:
        schema = TypeAdapter(list[QuestionRecord]).json_schema()
        schema["title"] = "TypedMemEval corpus file (array of question records)"
    print(json.dumps(schema, indent=2, sort_keys=True))
    return 0


def _gate(args: argparse.Namespace) -> int:
    from .corpus.loading import CorpusError, load_corpus
    from .corpus.registry import shipped_corpora
    from .gates import registry

    if args.self_test:
        outcomes = registry.run_self_tests()
        failed = 0
        for gate, cases in sorted(outcomes.items()):
            for case in cases:
                mark = "ok  " if case.ok else "FAIL"
                failed += not case.ok
                print(f"{mark} {gate:<13} {case.kind:<7} {case.name}: {case.detail}")
        print(f"{sum(len(c) for c in outcomes.values()) - failed} ok, {failed} failed")
        return 1 if failed else 0
    try:
        corpora = [load_corpus(path) for path in args.corpus] if args.corpus else list(shipped_corpora())
    except CorpusError as error:
        print(f"typedmemeval gate: {error}", file=sys.stderr)
        return 2
    results = {c.corpus_id: registry.run_corpus_gates(c, require_probes=args.require_probes) for c in corpora}
    if args.json:
        print(json.dumps(registry.results_to_json(results), indent=2, sort_keys=True))
    else:
        print(registry.render_table(results))
    refused = any(r.status == "refused" for rs in results.values() for r in rs)
    return 1 if refused else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="typedmemeval", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    schema = commands.add_parser("schema", help="print the JSON Schema of a corpus file (or sidecar)")
    schema.add_argument("--sidecar", action="store_true", help="print the sidecar schema instead")
    schema.set_defaults(handler=_schema)
    gate = commands.add_parser("gate", help="run the certification gates and print a per-vertical table")
    gate.add_argument("--corpus", action="append", default=[], metavar="PATH",
                      help="corpus file to certify (repeatable; default: every shipped corpus)")
    gate.add_argument("--json", action="store_true", help="print machine-readable results")
    gate.add_argument("--self-test", action="store_true", help="run every gate's self-test instead")
    gate.add_argument("--require-probes", action="store_true",
                      help="a shape without probe records is refused instead of skipped")
    gate.set_defaults(handler=_gate)
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
