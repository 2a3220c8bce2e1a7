"""`sparring study ...`: create, run, inspect, report and compare study folders."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tuner.cli.common import CLUSTER_HELP, count
from tuner.study.objective import OBJECTIVES
from tuner.study.spec import STRATEGIES, TEMPLATES, StudyError, StudySpec, render

RAW = argparse.RawDescriptionHelpFormatter
STORAGE_HELP = "an Optuna storage URL, postgresql://USER:PASSWORD@HOST/DB (default: the folder's journal.log)"


def _new(args) -> int:
    folder = Path(args.folder)
    if (folder / "study.toml").exists():
        raise StudyError(f"{folder}/study.toml exists already; choose another folder")
    text = render(TEMPLATES[args.template], folder.name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(text)
    print(f"wrote {folder / 'study.toml'}; edit it, then: sparring study run {folder}")
    return 0


def _run(args) -> int:
    from tuner.cli.common import check_cluster
    from tuner.study.report import write_report
    from tuner.study.runner import run

    check_cluster(args.cluster)
    summary = run(
        args.folder,
        workers=args.workers,
        storage=args.storage,
        trials=args.trials,
        progress=not args.json,
        verbose=args.verbose,
        cluster=args.cluster,
    )
    report = Path(args.folder) / "report" / "report.md"
    if summary["updated"] or not report.exists():  # a finished study run again changes nothing on disk
        report = write_report(args.folder, args.storage)
    summary["report"] = str(report)
    if args.json:
        print(json.dumps(summary))
    else:
        _print_status(summary)
        if not summary["updated"]:
            print("nothing left to run: raise --trials for more (`sparring study report` rewrites the report)")
        print(f"report: {summary['report']}")
    return 0


def _status(args) -> int:
    from tuner.study.runner import status

    summary = status(args.folder, args.storage)
    if args.json:
        print(json.dumps(summary))
    else:
        _print_status(summary)
    return 0


def _report(args) -> int:
    from tuner.study.report import write_report

    path = write_report(args.folder, args.storage)
    print(f"report: {path}")
    return 0


def _compare(args) -> int:
    from tuner.study.report import write_comparison

    out = Path(args.out) if args.out else Path(args.folder[0]).resolve().parent / "report"
    if args.truth:
        from tuner.study import regret

        table = _truth_table(args.truth)
        curves = regret.regret_curves(table, args.folder, args.budgets, args.storage)
        title = f"Strategies on {table.spec.game}, real games: regret of the recommendation"
        path = regret.write(curves, args.budgets, out, "regret", title, table)
        _print_regret(regret.summarise(curves, args.budgets), args.budgets)
        print(f"regret: {path}")
    path = write_comparison(args.folder, out, args.storage)
    if not args.truth:  # the recommendations' replayed values: what to compare by without a truth table
        print(path.read_text().partition("## Recommendations, replayed")[2].strip())
    print(f"best so far: {path}")
    return 0


def _truth_table(folder):
    """A complete truth table, or a StudyError saying how to finish it."""
    from tuner.study import truth

    table = truth.load(folder)
    missing = len(truth.points(table.spec)) - len(table.rows)
    if missing:
        raise StudyError(
            f"{folder} has no complete truth table ({missing} points missing): run "
            f"`sparring study truth {folder} --games M` first"
        )
    return table


def _bench(args) -> int:
    from tqdm import tqdm

    from tuner.study import regret

    table = _truth_table(args.truth)
    strategies = len({StudySpec.load(f).label for f in args.folder})
    with tqdm(total=strategies * args.seeds, desc="tabular benchmark", unit="run", dynamic_ncols=True) as bar:
        curves = regret.bench(table, args.folder, args.seeds, args.budgets, args.workers, progress=bar)
    out = Path(args.out) if args.out else Path(args.folder[0]).resolve().parent / "report"
    title = f"Strategies on {table.spec.game}, tabular benchmark ({args.seeds} seeds): regret of the recommendation"
    path = regret.write(curves, args.budgets, out, "bench", title, table)
    _print_regret(regret.summarise(curves, args.budgets), args.budgets)
    print(f"tabular benchmark: {path}")
    return 0


def _print_regret(rows: list[dict], budgets: list[int]) -> None:
    """Per strategy, the mean regret [95% interval] at each budget and the recommendation's true value at the
    last, lowest final regret first."""
    by: dict[str, list[dict]] = {}
    for r in rows:
        by.setdefault(r["strategy"], []).append(r)
    width = max(len(n) for n in by) + 2
    print(
        f"{'simple regret of the recommendation':<{width}}"
        + "".join(f"{f'at {b} games':>26}" for b in budgets)
        + f"{f'true value at {budgets[-1]}':>26}"
    )
    for name in sorted(by, key=lambda n: by[n][-1]["regret"]):
        mine = by[name]
        cells = [(r["regret"], *r["regret_ci95"]) for r in mine] + [(mine[-1]["value"], *mine[-1]["value_ci95"])]
        print(
            f"{name:<{width}}"
            + "".join(f"{m:>8.3f} [{lo:6.3f}, {hi:6.3f}]" for m, lo, hi in cells)
            + f"  ({mine[0]['seeds']} seeds)"
        )


def _budgets(text: str) -> list[int]:
    try:
        budgets = sorted({int(b) for b in text.split(",")})
    except ValueError:
        budgets = []
    if not budgets or budgets[0] < 1:
        raise argparse.ArgumentTypeError(f"expected games counts joined by commas, e.g. 100,300,1000; got {text!r}")
    return budgets


def _truth(args) -> int:
    from tuner.cli.common import check_cluster, progress
    from tuner.study import truth
    from tuner.study.spec import StudySpec, trial_games

    spec = StudySpec.load(args.folder)
    check_cluster(args.cluster)
    total = len(truth.points(spec)) * trial_games(args.games, len(spec.opponents))
    with progress(total, f"truth of {Path(args.folder).name}") as bar:
        table = truth.run(args.folder, args.games, workers=args.workers, progress=bar, cluster=args.cluster)
    best = table.best()
    params = ", ".join(f"{k} = {v:g}" for k, v in best["values"].items())
    print(
        f"{Path(args.folder) / truth.TRUTH}: {len(table.rows)} points, {args.games} games per opponent and seat; "
        f"best {spec.objective} = {best['value']:.4g} at {params}"
    )
    return 0


def _print_status(s: dict) -> None:
    t = s["trials"]
    print(
        f"{s['study']}: {s['strategy']}, {s['objective']} ({s['direction']}); "
        f"{t['complete']} of {s['target']} trials finished, {t['running']} running, {t['waiting']} queued, "
        f"{t['failed']} failed; {count(s['games'], 'game')}"
    )
    if "best" in s:
        b = s["best"]
        way = "upward" if s["direction"] == "maximize" else "downward"
        print(
            f"best observed: trial {b['trial']}, {s['objective']} = {b['value']:.4g} at {_point(b['params'])} "
            f"(the best of noisy trials: biased {way})"
        )
        print(f"recommended: {_point(s['recommended'])}")
    if "verdict" in s:
        print(s["verdict"]["text"])
    from tuner.study.validate import interval_text

    for r in s.get("validated", []):
        print(
            f"  replayed ({r['role']}): {_point(r['values'])}: {s['objective']} = {r['value']:.4g} "
            f"{interval_text(r['interval'])} over {r['games']} games per opponent and seat"
        )


def _point(values: dict) -> str:
    return ", ".join(f"{k} = {v:.4g}" for k, v in values.items())


def _subcommand(commands, name, summary, description, example, run):
    """One `study` subcommand with its --help text and an example."""
    parser = commands.add_parser(
        name, help=summary, description=description, epilog=f"example:\n  {example}", formatter_class=RAW
    )
    parser.add_argument("folder", metavar="FOLDER", nargs="+" if name in ("compare", "bench") else None)
    parser.set_defaults(run=run)
    return parser


def add_commands(sub) -> None:
    """The `study` command and its subcommands, on the main parser's subparsers."""
    study = sub.add_parser(
        "study",
        help="off-line tuning in a study folder: new, run, status, report, compare",
        description="Off-line tuning: a study folder holds study.toml (what to tune, against whom, how)\n"
        "and everything a run stores (the Optuna journal, each trial's games, the environment).\n"
        "A study killed at any moment resumes where it stopped with `study run` again.",
        epilog="example:\n  sparring study new studies/my-sp --template sp-offline\n"
        "  sparring study run studies/my-sp --workers 2\n  sparring study status studies/my-sp",
        formatter_class=RAW,
    )
    commands = study.add_subparsers(dest="study_command", metavar="SUBCOMMAND", required=True)

    new = _subcommand(
        commands,
        "new",
        "write a commented study.toml from a template",
        "Create FOLDER with a study.toml to edit. Templates:\n"
        + "\n".join(f"  {name:<12}{t.doc}" for name, t in TEMPLATES.items()),
        "sparring study new studies/my-dsa --template dsa-grid",
        _new,
    )
    new.add_argument("--template", choices=list(TEMPLATES), default="sp-offline", help="(default: sp-offline)")

    run = _subcommand(
        commands,
        "run",
        "run or resume a study until it has its trials",
        "Run the study in FOLDER until it has its number of finished trials, then write its\n"
        "report (as `study report`). A resumed run runs only what is missing, and re-runs trials\n"
        "that a dead worker left unfinished; a finished study run again changes nothing. Several\n"
        "`study run` processes (or --workers) share the trials; with --storage they may run on\n"
        "several machines.\n\nStrategies: "
        + ", ".join(STRATEGIES)
        + "\n(skopt-gp needs `pip install scikit-optimize`; only its GP Optimizer is used, since\n"
        "the package is archived upstream.)\nObjectives:\n"
        + "\n".join(f"  {k:<9}{v.doc}" for k, v in OBJECTIVES.items()),
        "sparring study run studies/sp-offline-connect4 --workers 2 --trials 40",
        _run,
    )
    run.add_argument("--workers", type=int, help="trials run at once, as processes (study.toml's workers)")
    run.add_argument("--trials", type=int, help="finished trials to reach (study.toml's trials)")
    run.add_argument("--storage", metavar="URL", help=STORAGE_HELP)
    run.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play each trial's games on a Dask cluster (its scheduler, e.g. tcp://10.0.0.5:8786; needs "
        "sparring[cluster]): the same games; the trials still run as --workers processes here",
    )
    run.add_argument("--json", action="store_true", help="no progress bar; print the final status as JSON")
    run.add_argument("-v", "--verbose", action="store_true", help="show Optuna's notices (a study created, ...)")

    status = _subcommand(
        commands,
        "status",
        "trials finished, running and failed; the best setting",
        "What the study in FOLDER has done: trials finished, running, queued and failed,\n"
        "games played, and the best trial with its parameters.",
        "sparring study status studies/sp-offline-connect4 --json",
        _status,
    )
    status.add_argument("--storage", metavar="URL", help=STORAGE_HELP)
    status.add_argument("--json", action="store_true", help="print one JSON object")

    report = _subcommand(
        commands,
        "report",
        "a Markdown report with plots of one study",
        "Write FOLDER/report/report.md with PNG plots: the objective per trial and the best so\n"
        "far, one slice per parameter, and the best setting's wins, draws and losses per opponent\n"
        "and seat with 95% intervals.",
        "sparring study report studies/dsa-grid-connect4",
        _report,
    )
    report.add_argument("--storage", metavar="URL", help=STORAGE_HELP)

    truth = _subcommand(
        commands,
        "truth",
        "play every point of the space with many games: the ground truth",
        "Play every point of FOLDER's discrete space (the product of the parameters' values)\n"
        "with --games games per opponent and seat, against the study's opponents, and store each\n"
        "point's wins, draws and losses and objective in FOLDER/truth.jsonl. A killed run resumes\n"
        "at the first missing point. `study compare --truth FOLDER` scores recommendations by it,\n"
        "and `study bench` draws a tabular benchmark's games from it.",
        "sparring study truth studies/strategies-compare-connect4/truth --games 500 --workers 2",
        _truth,
    )
    truth.add_argument("--games", type=int, required=True, help="games per opponent and seat at each point")
    truth.add_argument("--workers", type=int, default=1, help="games played at once, as threads (1)")
    truth.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)

    compare = _subcommand(
        commands,
        "compare",
        "compare strategies (several seeds each) on one objective",
        "Compare studies that share one objective, grouped by strategy and its settings (one folder\n"
        "per seed): each seed's recommendation replayed (where the studies have [validate]) with a 95%\n"
        "interval over seeds, and the best so far against games played, in compare.md and compare.png.\n"
        "With --truth, also the true value and simple regret of the recommendation after each budget\n"
        "(regret.md, .png, .json), with t-test p-values against the best (paired by seed).",
        "sparring study compare studies/strategies-compare-connect4/*-s*/",
        _compare,
    )
    compare.add_argument("--out", metavar="DIR", help="where to write (default: report/ beside the first folder)")
    compare.add_argument("--storage", metavar="URL", help=STORAGE_HELP)
    compare.add_argument(
        "--truth",
        metavar="FOLDER",
        help="a folder with the problem's truth table (`study truth`): "
        "also write regret.md, the true regret of each strategy's recommendation",
    )
    compare.add_argument(
        "--budgets",
        type=_budgets,
        default=[100, 300, 1000],
        metavar="G,G,...",
        help="games spent at which regret is read (100,300,1000)",
    )

    bench = _subcommand(
        commands,
        "bench",
        "compare strategies on a tabular benchmark: games drawn from a truth table",
        "Run the strategies of the given study folders (each with its settings) over many seeds on a\n"
        "tabular benchmark: a trial's games are drawn from the truth table's win, draw and loss\n"
        "frequencies instead of played, through the same samplers and recommendation as a real\n"
        "study, in memory. Writes bench.md, bench.png and bench.json: the regret of each strategy's\n"
        "recommendation against games spent, with 95% intervals over seeds. LSI, which plans its\n"
        "budget up front, runs once per budget, planned for it.",
        "sparring study bench studies/strategies-compare-connect4/*-s0/ --truth "
        "studies/strategies-compare-connect4/truth --seeds 100",
        _bench,
    )
    bench.add_argument("--truth", metavar="FOLDER", required=True, help="the folder with the truth table")
    bench.add_argument("--seeds", type=int, default=100, help="seeds per strategy: 0, 1, ... (100)")
    bench.add_argument(
        "--budgets",
        type=_budgets,
        default=[100, 300, 1000],
        metavar="G,G,...",
        help="games spent at which regret is read (100,300,1000)",
    )
    bench.add_argument("--workers", type=int, default=1, help="runs at once, as processes (1)")
    bench.add_argument("--out", metavar="DIR", help="where to write (default: report/ beside the first folder)")
