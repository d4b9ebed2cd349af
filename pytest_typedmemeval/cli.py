"""The ``typedmemeval`` command: ``schema``, ``gate``, ``generate``, ``corpora``, ``probe`` and ``report``."""

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
    from .generate.certify import run_corpus_gates

    results = {c.corpus_id: run_corpus_gates(c, require_probes=args.require_probes) for c in corpora}
    if args.json:
        print(json.dumps(registry.results_to_json(results), indent=2, sort_keys=True))
    else:
        print(registry.render_table(results))
    refused = any(r.status == "refused" for rs in results.values() for r in rs)
    return 1 if refused else 0


def _generate(args: argparse.Namespace) -> int:
    import time

    from .corpus.loading import corpus_sha256
    from .generate import registry as generators
    from .generate.primitives import GenerationError

    known = sorted(generators.GENERATORS)
    if args.vertical is None and not args.check:
        print("typedmemeval generate: name what to write with --vertical NAME (one of "
              f"{', '.join(known)}, or 'all'); --check alone compares every vertical", file=sys.stderr)
        return 2
    verticals = known if args.vertical in (None, "all") else [args.vertical]
    unknown = [v for v in verticals if v not in generators.GENERATORS]
    if unknown:
        print(f"typedmemeval generate: no generator for {', '.join(unknown)} (known: "
              f"{', '.join(known)}, or 'all')", file=sys.stderr)
        return 2
    began = time.perf_counter()
    differs = 0
    for vertical in verticals:
        if args.check:
            # Rebuild from the recorded seed and dial in memory; compare with the shipped bytes.
            module = generators.generator_module(vertical)
            start = time.perf_counter()
            text = generators.corpus_text(vertical, module.SEED, generators.recorded_dial(module))
            path = generators.shipped_corpora_dir() / f"{generators.corpus_id(vertical)}.json"
            shipped = corpus_sha256(path.read_bytes()) if path.is_file() else None
            rebuilt = corpus_sha256(text.encode("utf-8"))
            same = shipped == rebuilt
            differs += not same
            print(f"{vertical}: rebuilt sha256 {rebuilt[:12]}, shipped "
                  f"{shipped[:12] if shipped else 'missing'}: {'identical' if same else 'DIFFERS'} "
                  f"({time.perf_counter() - start:.1f}s)")
            continue
        try:
            report = generators.generate(vertical, args.out, search=args.search)
        except GenerationError as error:
            print(f"typedmemeval generate: {error}", file=sys.stderr)
            return 1
        print(report.summary())
        if args.search:
            module = generators.generator_module(vertical)
            print(f"  competition found by the search: "
                  f"{json.dumps(report.dial_by_shape, sort_keys=True)}")
            print(f"  search record written to {generators.calibration_record_path(module)}; "
                  f"record the dial as RECORDED_COMPETITION in {module.__file__} so rebuilds "
                  f"reproduce these bytes")
    print(f"total {time.perf_counter() - began:.1f}s for {len(verticals)} vertical(s)")
    return 1 if differs else 0


def _corpora(args: argparse.Namespace) -> int:
    """List the shipped corpora, or copy them (corpus and sidecar) to ``--copy DIR``: a pip install
    has no ``corpora/`` directory to ``cp`` from (issue 22, item 10), and ``probe`` must work on a
    copy, never on the installed record."""
    import shutil
    from pathlib import Path

    from .corpus.identity import corpus_sha256
    from .corpus.loading import sidecar_path_for
    from .corpus.registry import shipped_corpus_paths

    paths = [path for path in shipped_corpus_paths()
             if args.vertical is None or path.stem.startswith(f"typedmemeval-{args.vertical}-v")]
    if not paths:
        print(f"typedmemeval corpora: no shipped corpus of the vertical {args.vertical!r}", file=sys.stderr)
        return 2
    if args.copy is None:
        for path in paths:
            print(f"{path.stem:<32} sha256 {corpus_sha256(path.read_bytes())[:12]}  {path}")
        return 0
    target = Path(args.copy)
    if target.exists() and not target.is_dir():
        print(f"typedmemeval corpora: --copy {target}: is a file; name a directory", file=sys.stderr)
        return 2
    files = [file for path in paths for file in (path, sidecar_path_for(path)) if file.is_file()]
    clashes = [target / file.name for file in files
               if (target / file.name).exists() and (target / file.name).read_bytes() != file.read_bytes()]
    if clashes:
        print(f"typedmemeval corpora: --copy {target}: {clashes[0]} exists and differs from the shipped "
              f"file ({len(clashes)} such file(s)); nothing copied: remove them or choose another "
              "directory", file=sys.stderr)
        return 2
    target.mkdir(parents=True, exist_ok=True)
    for file in files:
        shutil.copyfile(file, target / file.name)
        print(f"{target / file.name}")
    print(f"copied {len(files)} file(s) ({len(paths)} corpus file(s) and their sidecars) to {target}")
    return 0


def _probe(args: argparse.Namespace) -> int:
    from .probing.command import run

    return run(args)


def _add_probe(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .calls.settings import DEFAULT_CONCURRENCY, DEFAULT_MAX_USD

    probe = commands.add_parser(
        "probe", help="run the model-backed probe arms (V1..V11) and record them in the sidecar")
    probe.add_argument("--corpus", action="append", required=True, metavar="PATH",
                       help="corpus file whose sidecar receives the records (repeatable)")
    probe.add_argument("--model", required=True, metavar="NAME", help="reference model name")
    probe.add_argument("--base-url", metavar="URL", default=None,
                       help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else the public "
                            "API); the key is read from OPENAI_API_KEY only")
    probe.add_argument("--arms", metavar="LIST", default=None,
                       help="comma-separated arms (default: V1,V2,V3,V6,V8,V9,V10,V11)")
    probe.add_argument("--shape", action="append", metavar="S", default=None,
                       help="only this shape (repeatable)")
    probe.add_argument("--limit", type=int, metavar="N", default=None,
                       help="only the first N questions of each shape (records then cover part "
                            "of a shape, which the gate reports as not measured)")
    probe.add_argument("--samples-scale", type=float, metavar="F", default=1.0,
                       help="multiply every arm's sample count by F, rounded up, at least 1 "
                            "(default 1: the spec's counts)")
    probe.add_argument("--max-usd", type=float, metavar="X", default=DEFAULT_MAX_USD,
                       help=f"cost ceiling for the whole run (default {DEFAULT_MAX_USD:g})")
    probe.add_argument("--allow-unpriced", action="store_true",
                       help="run a model without a price as free (else it is refused)")
    probe.add_argument("--prices", metavar="PATH", default=None, help="JSON price table to add")
    probe.add_argument("--cache-dir", metavar="DIR", default=None,
                       help="response cache (default: $TYPEDMEMEVAL_CACHE_DIR or "
                            "~/.cache/pytest-typedmemeval/model-calls)")
    probe.add_argument("--concurrency", type=int, metavar="N", default=None,
                       help="requests in flight at most (default: 1 for a server on this machine or "
                            f"a private address, which computes one at a time unless started with "
                            f"parallel slots; {DEFAULT_CONCURRENCY} for a hosted API); halves on "
                            "every timeout")
    probe.add_argument("--request-timeout", type=float, metavar="SECONDS", default=None,
                       help="seconds to wait for one reply (default 60); a timed-out request to a "
                            "local server is re-sent only once the server has answered a later "
                            "one, never while it may still compute it")
    probe.add_argument("--temperature", type=float, metavar="T", default=0.0,
                       help="sampling temperature, recorded with every record (default 0)")
    probe.add_argument("--seed", type=int, metavar="N", default=0,
                       help="base seed; sample i is sent with seed N+i (default 0)")
    probe.add_argument("--date", metavar="YYYY-MM-DD", default=None,
                       help="date recorded with the records (default: today, UTC)")
    probe.add_argument("--dry-run", action="store_true",
                       help="print requests per arm and the worst-case cost; call nothing")
    probe.add_argument("--judge", choices=("mechanical", "hybrid"), default="mechanical",
                       help="who grades: the mechanical judge (default), or hybrid — a model is asked "
                            "only about the answers the rules leave unjudged (its fingerprint is "
                            "recorded with the verdicts; its calls share the cache and the ceiling)")
    probe.add_argument("--judge-model", metavar="NAME", default=None,
                       help="model of the hybrid judge (default: --model)")
    probe.add_argument("--judge-base-url", metavar="URL", default=None,
                       help="endpoint of the hybrid judge (default: --base-url)")
    probe.set_defaults(handler=_probe)


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
    generate = commands.add_parser(
        "generate", help="rebuild a vertical's corpus and sidecar from its recorded seed and dial")
    generate.add_argument("--vertical", default=None, metavar="NAME",
                          help="vertical to generate (e.g. forgetting), or 'all' (with --check, "
                               "default all)")
    generate.add_argument("--out", metavar="DIR", default=None,
                          help="output directory (default: the current directory; never the "
                               "installed package; in a source checkout, --out corpora rewrites "
                               "the shipped copy)")
    action = generate.add_mutually_exclusive_group()
    action.add_argument("--search", action="store_true",
                        help="run the calibration search (sweep, then bisect) instead of reading the "
                             "recorded topical-competition dial, and print the "
                             "dial to record")
    action.add_argument("--check", action="store_true",
                        help="rebuild in memory and compare with the shipped bytes; write nothing")
    generate.set_defaults(handler=_generate)
    corpora = commands.add_parser(
        "corpora", help="list the shipped corpora, or copy them (with their sidecars) to a directory")
    corpora.add_argument("--copy", metavar="DIR", default=None,
                         help="copy each corpus file and its sidecar into DIR (created; an existing "
                              "different file is never overwritten)")
    corpora.add_argument("--vertical", metavar="NAME", default=None, help="only this vertical's corpus")
    corpora.set_defaults(handler=_corpora)
    _add_probe(commands)
    from .report import command as _report_command

    _report_command.add_parser(commands)
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
