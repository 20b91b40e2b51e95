"""Command line of weft's fuzzers (run from the repository root):

    python -m tests.fuzz differential --seed 1 --programs 200          # the CI run (CPU + sm_90)
    python -m tests.fuzz differential --long --time-limit 500          # the GPU machine's run
    python -m tests.fuzz malformed --seed 1 --mutants 150
    python -m tests.fuzz reduce REPORT.json                            # minimal reproducers
    python -m tests.fuzz tiles --seed 1 --programs 12                  # tile kernels, CPU vs NumPy
    python -m tests.fuzz tiles --long --time-limit 200                 # the GPU machine's run

Each prints its counts, writes a JSON report with --json, and exits 1 when a failure was found, 0
otherwise.
"""

import argparse
import json
import os
import pathlib
import sys
import time
from dataclasses import replace

from . import differential, generator, malformed, tiles


def _differential(args) -> dict:
    import weft

    config = generator.Config()
    if args.long:
        config = replace(config, max_statements=7, max_helpers=3)
    if args.contraction or "gpu" in args.targets:
        config = replace(config, contraction=True)  # the GPU may fuse a product into an fma
    targets = tuple(args.targets)
    if "gpu" in targets and not weft.gpu_available():
        print("fuzz: no usable GPU; running the CPU target only")
        targets = tuple(t for t in targets if t != "gpu")
    weftc = differential.find_weftc() if args.sm90 else ""
    if args.sm90 and not weftc:
        print("fuzz: weftc not found; skipping the sm_90 compilations")
    options = differential.Options(targets=targets, threads=args.threads, sm90=bool(weftc), work=args.work,
                                   config=config, weftc=weftc, sm90_output="cubin" if args.long else "ptx",
                                   sm90_all_launches=args.long)
    return differential.run(args.seed, args.programs, args.batch, options, time_limit=args.time_limit, jobs=args.jobs,
                            first=args.first)


def _malformed(args) -> dict:
    return malformed.run(args.seed, args.mutants, args.work, differential.find_weftc(), nesting=not args.no_nesting,
                         jobs=args.jobs)


def _reduce(args) -> dict:
    """Minimal reproducers for the differential failures of a report (whose programs are
    regenerated from the report's seed and configuration)."""
    report = json.loads(args.report.read_text())
    config = generator.Config(**{**report["config"], "types": tuple(report["config"]["types"])})
    options = differential.Options(targets=tuple(report["targets"]), threads=report["threads"], work=args.work,
                                   config=config, weftc=differential.find_weftc(), sm90=True)
    out = []
    for failure in report["failures"]:
        if failure["seed"] is None:
            continue  # a whole batch, reproduced by its module (the report's "reproducer")
        program = generator.generate(tuple(failure["seed"]), failure["program"], config)
        found = differential.failure_of(program, options)
        if found is None:
            out.append({"program": failure["program"], "reproducer": None, "note": "does not fail alone"})
            continue
        text = differential.minimize(program, found, options)
        out.append({"program": failure["program"], "stage": found.stage, "reproducer": text})
        print(f"== {failure['program']} ({found.stage})\n{text}")
    return {"reductions": out, "failures": []}


def _tiles(args) -> dict:
    """Generated tile kernels: the CPU target against the NumPy model; with the GPU, the GPU
    against the CPU target (floating products approximate there: the GPU may fuse them)."""
    import weft

    targets = tuple(args.targets)
    if "gpu" in targets and not weft.gpu_available():
        print("fuzz: no usable GPU; running the CPU target only")
        targets = tuple(t for t in targets if t != "gpu")
    config = tiles.Config(contraction="gpu" in targets)
    if args.long:
        config = replace(config, max_statements=14, max_elements=1024)
    return tiles.run(args.seed, args.programs, targets, config, args.work, time_limit=args.time_limit, first=args.first)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("differential", help="generated programs against the model")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--programs", type=int, default=200)
    d.add_argument("--first", type=int, default=0,
                   help="the number of the first program (a report's batch runs again with its first program's number)")
    d.add_argument("--batch", type=int, default=50, help="programs per module (one compilation per target)")
    d.add_argument("--threads", type=int, default=32, help="inputs per program (one thread each)")
    d.add_argument("--targets", type=lambda s: s.split(","), default=["cpu"], help="cpu, gpu or cpu,gpu")
    d.add_argument("--no-sm90", dest="sm90", action="store_false", help="skip the weftc sm_90 compilations")
    d.add_argument("--long", action="store_true",
                   help="the GPU machine's run: bigger programs, cpu and gpu targets, 64 threads, 5000 programs, "
                        "sm_90 cubins of both launches' globals, a job per CPU (at most 16)")
    d.add_argument("--contraction", action="store_true", help="treat float products as approximate (GPU fma)")
    d.add_argument("--time-limit", type=float, default=0, help="stop starting batches after this many seconds")
    d.add_argument("--jobs", type=int, default=1, help="batches checked at once, each in a worker process")
    m = sub.add_parser("malformed", help="mutated kernels must give clean diagnostics")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--mutants", type=int, default=150)
    m.add_argument("--no-nesting", action="store_true", help="leave out the deep-nesting mutations")
    m.add_argument("--jobs", type=int, default=1, help="weftc processes at a time")
    r = sub.add_parser("reduce", help="minimal reproducers of a differential report's failures")
    r.add_argument("report", type=pathlib.Path)
    t = sub.add_parser("tiles", help="generated tile kernels against a NumPy model (and the GPU against the CPU)")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--programs", type=int, default=12)
    t.add_argument("--first", type=int, default=0, help="the number of the first program")
    t.add_argument("--targets", type=lambda s: s.split(","), default=["cpu"], help="cpu, gpu or cpu,gpu")
    t.add_argument("--long", action="store_true",
                   help="the GPU machine's run: bigger programs and tiles, cpu and gpu targets, 3000 programs")
    t.add_argument("--time-limit", type=float, default=0, help="stop starting programs after this many seconds")
    for p in (d, m, r, t):
        p.add_argument("--json", type=pathlib.Path, help="write the report here")
        p.add_argument("--work", type=pathlib.Path, default=pathlib.Path(f"/tmp/weft-fuzz-{os.getpid()}"))
    args = parser.parse_args(argv)
    if args.command == "differential" and args.long:
        if args.programs == 200:
            args.programs = 5000
        if args.targets == ["cpu"]:
            args.targets = ["cpu", "gpu"]
        if args.threads == 32:
            args.threads = 64
        if args.jobs == 1:
            args.jobs = min(16, os.cpu_count() or 1)
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if args.command == "tiles" and args.long:
        if args.programs == 12:
            args.programs = 3000
        if args.targets == ["cpu"]:
            args.targets = ["cpu", "gpu"]
    report = {"differential": _differential, "malformed": _malformed, "reduce": _reduce,
              "tiles": _tiles}[args.command](args)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    failures = report["failures"]
    if "counts" in report:
        print(json.dumps(report["counts"], indent=1, default=str))
    for f in failures:
        where = f.get("program") or f"mutant {f.get('id')} ({f.get('mode')}, {', '.join(f.get('mutations', []))})"
        print(f"--- {where}: {f.get('stage') or f.get('outcome')}\n{str(f.get('message') or f.get('detail'))[:1500]}")
    print(f"fuzz {args.command}: {len(failures)} failures in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
