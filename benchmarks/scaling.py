"""How a run scales with cores: `ascendc-conformance run --target reference --seed 1 --profile P --workers W`
for each profile and number of workers, wall seconds and speedup, and T(w) = fixed + work / w fitted per profile.

    python3 benchmarks/scaling.py                          # ci at 1 2 4 8 16 workers, full at 4 8 16
    python3 benchmarks/scaling.py --profiles ci --workers 1 2
    python3 benchmarks/scaling.py --out DIR                # also DIR/scaling.json and DIR/scaling.md, rewritten
                                                           # after every run (a cut-off sweep keeps what it ran)
    python3 benchmarks/scaling.py --pack-build             # also `pack build --profile ci --workers W`
    python3 benchmarks/scaling.py --profiles --pack-build --workers 1 2 8 16   # only the pack builds
    python3 benchmarks/scaling.py --profiles --pack-runs --workers 1 8 16   # only runs of the pinned ci pack:
                                                           # in-process, and served over exec with 1 and 2 target
                                                           # processes per worker

Needs only python3 and the installed package (no network, nothing else of the repository but
benchmarks/timeline.py beside this file, which also splits every run into its phases: start-up, each worker's
collection, the tests, the reports). The speedup of a profile is over its run on one worker; where that run was
not made (full: ~10 minutes on one worker), over T(1) = fixed + work of the fit, and the table says so.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import timeline  # noqa: E402

DEFAULT_WORKERS = {"ci": [1, 2, 4, 8, 16], "full": [4, 8, 16]}


def run_argv(profile: str, workers: int, seed: int) -> list[str]:
    return [sys.executable, "-m", "ascendc_conformance", "run", "--target", "reference", "--seed", str(seed),
            "--profile", profile, "--workers", str(workers), "--progress", "off"]


SERVED_REFERENCE = f"exec:{sys.executable} -m ascendc_conformance.targets.serve reference"


def pack_build_seconds(workers: int, seed: int, out: Path | None = None) -> dict[str, Any]:
    """Wall seconds and pack id of `pack build --profile ci --seed N --workers W` (every product and API), into
    `out` (default: a directory removed afterwards)."""
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "build", "--profile", "ci",
                               "--seed", str(seed), "--workers", str(workers),
                               "--out", str(out or Path(directory, "pack"))], capture_output=True, text=True)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"pack build --workers {workers} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return {"workers": workers, "seconds": round(seconds, 2), "pack_id": done.stdout.split()[1]}


def pack_run_seconds(pack: Path, pack_id: str, workers: int, processes: int | None) -> dict[str, Any]:
    """Wall seconds of `run --pack P --pack-id ID --workers W` against the reference: in-process (`processes`
    None), or served over exec with `processes` target processes per worker."""
    target = ["--target", "reference"] if processes is None else ["--target", SERVED_REFERENCE,
                                                                     "--target-processes", str(processes)]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ascendc_conformance", "run", *target, "--pack", str(pack),
                           "--pack-id", pack_id, "--workers", str(workers), "--progress", "off"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"the pack run at {workers} workers exited {done.returncode}:\n{done.stdout[-2000:]}")
    return {"workers": workers, "target_processes": processes, "seconds": round(seconds, 2)}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per profile: seconds per worker count, the fit, and the speedups (over one worker, or over the fit's T(1))."""
    profiles: dict[str, Any] = {}
    for profile in dict.fromkeys(run["profile"] for run in runs):
        seconds = {run["workers"]: run["seconds"] for run in runs if run["profile"] == profile}
        fitted = timeline.fit(seconds) if len(seconds) > 1 else None
        one = seconds.get(1) or (fitted["fixed"] + fitted["work"] if fitted else None)
        profiles[profile] = {"seconds": seconds, "fit": fitted, "baseline": "measured" if 1 in seconds else "fitted",
                             "speedup": {w: round(one / s, 2) for w, s in seconds.items()} if one else None}
    return profiles


def workers_label(count: int) -> str:
    return f"{count} worker{'s' if count > 1 else ''}"


def markdown(result: dict[str, Any]) -> str:
    lines = [f"Measured on {result['machine']['cpus']} CPUs, Python {result['machine']['python']}, "
             f"`run --target reference --seed {result['seed']}`, wall time:", ""]
    for profile, figures in result["profiles"].items():
        counts = sorted(figures["seconds"])
        lines += [f"| `{profile}` | " + " | ".join(map(workers_label, counts)) + " |",
                  "|---|" + "---|" * len(counts),
                  "| seconds | " + " | ".join(f"{figures['seconds'][w]:.1f}" for w in counts) + " |"]
        if figures["speedup"]:
            label = "speedup" if figures["baseline"] == "measured" else "speedup over the fitted T(1)"
            lines.append(f"| {label} | " + " | ".join(f"{figures['speedup'][w]:.2f}" for w in counts) + " |")
        if figures["fit"]:
            lines += ["", f"T(w) = fixed + work / w: fixed {figures['fit']['fixed']} s, work {figures['fit']['work']} s"]
        lines.append("")
    if result["pack_runs"]:
        runs = result["pack_runs"]
        counts = sorted({run["workers"] for run in runs})
        lines += ["| pinned `ci` pack run | " + " | ".join(map(workers_label, counts)) + " |",
                  "|---|" + "---|" * len(counts)]
        for processes in dict.fromkeys(run["target_processes"] for run in runs):
            seconds = {run["workers"]: run["seconds"] for run in runs if run["target_processes"] == processes}
            label = "in-process" if processes is None else f"over exec, {processes} target process(es) a worker"
            lines.append(f"| {label} | " + " | ".join(f"{seconds[w]:.1f}" if w in seconds else "–" for w in counts)
                         + " |")
        lines.append("")
    if result["pack_builds"]:
        builds = result["pack_builds"]
        lines += ["| `pack build --profile ci` | " + " | ".join(workers_label(b["workers"]) for b in builds) + " |",
                  "|---|" + "---|" * len(builds),
                  "| seconds | " + " | ".join(f"{b['seconds']:.1f}" for b in builds) + " |",
                  f"| same pack id | {'yes' if len({b['pack_id'] for b in builds}) == 1 else 'NO'} |", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", nargs="*", default=["ci", "full"], choices=["quick", "ci", "full"],
                        help="profiles to run (default ci full; none, with --pack-build: only the pack builds)")
    parser.add_argument("--workers", nargs="+", type=int, metavar="W",
                        help="worker counts of every profile (default: ci 1 2 4 8 16, full 4 8 16)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pack-build", action="store_true", help="also time `pack build --profile ci --workers W`")
    parser.add_argument("--pack-runs", action="store_true",
                        help="also time runs of the ci pack (built once on every core, its id pinned) at each worker "
                             "count: in-process, and served over exec with 1 and 2 target processes a worker")
    parser.add_argument("--out", type=Path, metavar="DIR", help="write scaling.json and scaling.md there as it goes")
    args = parser.parse_args(argv)

    result: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "loadavg_at_start": os.getloadavg()},
        "seed": args.seed, "runs": [], "profiles": {}, "pack_builds": [], "pack_runs": []}

    def save() -> None:
        result["profiles"] = summary(result["runs"])
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "scaling.json").write_text(json.dumps(result, indent=1) + "\n")
            (args.out / "scaling.md").write_text(markdown(result) + "\n")

    for profile in args.profiles:
        for workers in args.workers or DEFAULT_WORKERS.get(profile, DEFAULT_WORKERS["ci"]):
            timed = timeline.run_timed(run_argv(profile, workers, args.seed), os.getcwd())
            result["runs"].append({"profile": profile, "workers": workers, **timed})
            print(f"{profile} {workers} worker(s): {timed['seconds']} s; phases {json.dumps(timed['split'])}",
                  file=sys.stderr, flush=True)
            save()
    if args.pack_build:
        for workers in args.workers or DEFAULT_WORKERS["ci"]:
            result["pack_builds"].append(pack_build_seconds(workers, args.seed))
            print(f"pack build {result['pack_builds'][-1]}", file=sys.stderr, flush=True)
            save()
    if args.pack_runs:
        with tempfile.TemporaryDirectory() as directory:
            pack = Path(directory, "pack")
            built = pack_build_seconds(os.cpu_count() or 1, args.seed, pack)
            # the checks of its test files, once per pack id and machine: untimed, as every run but a pack's first
            subprocess.run([sys.executable, "-m", "ascendc_conformance", "pack", "verify", str(pack)],
                           capture_output=True, check=True)
            for workers in args.workers or DEFAULT_WORKERS["ci"]:
                for processes in (None, 1, 2):
                    result["pack_runs"].append(pack_run_seconds(pack, built["pack_id"], workers, processes))
                    print(f"pack run {result['pack_runs'][-1]}", file=sys.stderr, flush=True)
                    save()
    result["machine"]["loadavg_at_end"] = os.getloadavg()
    save()
    print(markdown(result))
    print(json.dumps({"profiles": result["profiles"], "pack_builds": result["pack_builds"],
                      "pack_runs": result["pack_runs"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
