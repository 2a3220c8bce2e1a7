"""Match work and self-play on a Dask cluster (tuner.match.cluster): a two-worker cluster on loopback, started here,
plays the same games as one machine, a lost worker's games are played again and counted once, and a cluster that
cannot be reached is one line."""

import json
import os
import signal
import threading
import time
from functools import partial

import numpy as np
import pytest

from tuner.cli import main
from tuner.match import play_match
from tuner.match.cluster import connect

distributed = pytest.importorskip("distributed", reason="needs Dask distributed (the test extra)")
pytestmark = pytest.mark.slow
A, B = "mcts:simulations=30", "mcts:simulations=10"


@pytest.fixture
def cluster():
    """Two worker processes of one thread each, on loopback; yields the scheduler's address."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local.scheduler_address


def shares_played(address: str) -> int:
    """Tasks the cluster's scheduler has seen finish so far: proof that the games ran there, not here."""
    client = connect(address)
    log = client.run_on_scheduler(lambda dask_scheduler: [tuple(t[1:3]) for t in dask_scheduler.transition_log])
    client.close()
    return log.count(("processing", "memory"))


def games_of(result) -> str:
    return json.dumps(result.to_dict(with_games=True), sort_keys=True)


def test_a_match_on_two_workers_is_byte_for_byte_the_match_on_one_machine(cluster):
    here = play_match("connect4", A, B, games=8, seed=5)
    there = play_match("connect4", A, B, games=8, seed=5, backend="cluster", cluster=cluster)
    assert games_of(there) == games_of(here) and shares_played(cluster) == 2  # one share per worker thread
    split = play_match("connect4", A, B, games=8, seed=5, workers=3, backend="cluster", cluster=cluster)
    assert (
        games_of(split) == games_of(here) and shares_played(cluster) == 5
    )  # three shares on two workers: the same games


def test_the_command_line_plays_a_tournament_on_the_cluster(cluster, capsys):
    argv = ["tournament", "connect4", A, B, "random", "--games", "4", "--json"]
    assert main(argv) == 0
    here = json.loads(capsys.readouterr().out)
    assert main([*argv, "--cluster", cluster]) == 0
    there = json.loads(capsys.readouterr().out)
    assert here.pop("environment")["seed"] == there.pop("environment")["seed"]  # its date differs
    assert there == here and shares_played(cluster) >= 3


def test_a_lost_workers_games_are_played_again_and_counted_once(cluster):
    """One worker is killed while both play their shares: the scheduler runs its share again on a worker that
    lives, and the match has every game once, the same games as on one machine."""
    here = play_match("connect4", A, B, games=12, seed=7)
    client = connect(cluster)
    pids = client.run(os.getpid)  # worker address -> its process
    done = {}

    def play():
        done["result"] = play_match("connect4", A, B, games=12, seed=7, workers=2, backend="cluster", cluster=cluster)

    worker = threading.Thread(target=play)
    worker.start()
    deadline = time.monotonic() + 60
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)  # until a share is being played
    busy = next(address for address, tasks in client.processing().items() if tasks)
    os.kill(pids[busy], signal.SIGKILL)
    worker.join(300)
    moves = client.run_on_scheduler(lambda dask_scheduler: [tuple(t[1:3]) for t in dask_scheduler.transition_log])
    client.close()
    assert ("processing", "released") in moves  # a share taken from the lost worker, to be played again
    assert not worker.is_alive() and "result" in done
    assert games_of(done["result"]) == games_of(here)
    assert sorted(g.index for g in done["result"].games) == list(range(12))


def test_a_cluster_that_cannot_be_reached_is_one_line(capsys):
    with pytest.raises(ValueError, match="cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'") as error:
        connect("tcp://127.0.0.1:9", timeout=1)
    assert "\n" not in str(error.value)
    assert main(["arena", "connect4", A, B, "--games", "2", "--cluster", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot reach a Dask scheduler" in err[0]


def test_a_worker_with_another_file_under_a_nets_name_refuses_in_one_line(cluster, tmp_path, monkeypatch, capsys):
    """A spec names a net, not its weights: a worker on another checkout would play another file under the same
    name (`az` alone: that checkout's shipped net), so each share checks the nets' digests against the run's."""
    import torch

    import nets

    here, there = tmp_path / "here", tmp_path / "there"
    for seed, folder in enumerate((here, there)):
        folder.mkdir()
        torch.manual_seed(seed)
        nets.save(folder / "net.pt", nets.build("connect4", filters=4, blocks=1))
    monkeypatch.chdir(here)
    spec = "az:net=net.pt,simulations=4"
    client = connect(cluster)
    try:
        client.run(os.chdir, str(here))  # the workers' net.pt is this run's: they play
        assert (
            play_match("connect4", spec, "random", games=2, seed=0, backend="cluster", cluster=cluster).total.games == 2
        )
        client.run(os.chdir, str(there))  # now another file under the same name
        assert main(["arena", "connect4", spec, "random", "--games", "2", "--cluster", cluster]) == 2
    finally:
        client.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has the net 'net.pt' at digest" in err[0] and "same checkout" in err[0]


def test_a_study_on_workers_with_other_nets_refuses_before_asking_for_trials(
    cluster, tmp_path, make_study, monkeypatch, capsys
):
    """`study run --cluster` asks the workers for their nets before it asks for trials: a refusal in a share would
    fail the batch's trials and spend their retries. A worker without the net is one line too."""
    import torch

    import nets
    from tuner.study.runner import load

    here, there, bare = tmp_path / "here", tmp_path / "there", tmp_path / "bare"
    for seed, folder in enumerate((here, there, bare)):
        folder.mkdir()
        torch.manual_seed(seed)
        if folder != bare:
            nets.save(folder / "net.pt", nets.build("connect4", filters=4, blocks=1))
    monkeypatch.chdir(here)
    study = make_study(**{'agent = "mcts:simulations=30,c={C}"': 'agent = "az:net=net.pt,simulations=4,c_puct={C}"'})
    client = connect(cluster)
    try:
        for folder, expected in ((there, "has the net 'net.pt' at digest"), (bare, "cannot play the run's nets")):
            client.run(os.chdir, str(folder))
            assert main(["study", "run", str(study), "--cluster", cluster]) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and expected in err[0], err
            assert load(study)[1].trials == [] and not (study / "runs.jsonl").exists()  # nothing asked, nothing run
    finally:
        client.close()


def test_a_truth_table_played_on_the_cluster_is_the_one_played_here(cluster, make_study, tmp_path):
    """`study truth --cluster`: every point's games on the two workers; the table is the local one's, row for row."""
    from tuner.study import truth

    here, there = make_study("here"), make_study("there")
    local = truth.run(here, 2)
    assert main(["study", "truth", str(there), "--games", "2", "--cluster", cluster]) == 0
    keep = ("index", "values", "games", "seed", "records", "value")
    rows = [[{k: r[k] for k in keep} for r in table.rows] for table in (local, truth.load(there))]
    assert len(rows[0]) == 4 and rows[1] == rows[0] and shares_played(cluster) > 0


def test_a_study_run_on_the_cluster_stores_the_trials_run_here(cluster, make_study):
    """`study run --cluster`: the trials' games on the two workers; the same values as a run here."""
    from tuner.study.runner import load, run

    here, there = make_study("here"), make_study("there")
    run(here, progress=False)
    assert main(["study", "run", str(there), "--cluster", cluster, "--json"]) == 0
    values = [[(t.params, t.value) for t in load(folder)[1].trials] for folder in (here, there)]
    assert len(values[0]) == 4 and values[1] == values[0] and shares_played(cluster) > 0


def test_a_match_whose_agents_adapt_between_games_stays_in_order_on_the_cluster(cluster):
    """dsa=inter learns from each game the next one: one machine plays the match as one sequence, and with no
    --workers the cluster must too (its threads would otherwise cut it into shares with their own adjusters)."""
    spec = "mcts:simulations=20,dsa=inter"
    here = play_match("connect4", spec, B, games=8, seed=5)
    there = play_match("connect4", spec, B, games=8, seed=5, backend="cluster", cluster=cluster)
    assert games_of(there) == games_of(here) and shares_played(cluster) == 1  # one share, in order


def test_a_listener_that_is_no_scheduler_an_empty_cluster_and_an_empty_address_are_one_line(capsys):
    import socket

    quiet = socket.socket()  # accepts connections and never says a word
    quiet.bind(("127.0.0.1", 0))
    quiet.listen()
    address = f"tcp://127.0.0.1:{quiet.getsockname()[1]}"
    start = time.monotonic()
    with pytest.raises(ValueError, match=f"cannot reach a Dask scheduler at '{address}'") as error:
        connect(address, timeout=1)
    assert time.monotonic() - start < 30 and "\n" not in str(error.value)
    quiet.close()
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None) as empty:
        with pytest.raises(ValueError, match="has no worker: start some"):
            connect(empty.scheduler_address)
    assert main(["arena", "connect4", A, B, "--games", "2", "--cluster", ""]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a cluster's address is its scheduler's" in err[0]


TRAIN = dict(filters=8, blocks=1, games=5, simulations=12, queue=300, batch=64, eval_every=0)


def test_training_with_self_play_on_the_cluster_ends_with_the_weights_trained_here(cluster, tmp_path):
    """Two iterations whose five games go to the two workers in three shares by index end with the bits, examples
    and history of the run whose games were all played here in the same chunks of rows."""
    import torch

    from nets.train import Run, TrainConfig
    from tuner.match.cluster import spread

    config = TrainConfig.for_game("connect4", chunk=4, **TRAIN)
    with Run(tmp_path / "here", config, device="cpu") as here:
        rows = []
        here.model.register_forward_pre_hook(lambda net, args: None if net.training else rows.append(len(args[0])))
        records = [here.step() for _ in range(2)]
    assert rows and set(rows) == {4}  # self-play's forwards here in chunks of 4, as the workers' are
    client = connect(cluster)
    with client, Run(tmp_path / "there", config, device="cpu", spread=partial(spread, client), shares=3) as there:
        spread_records = [there.step() for _ in range(2)]
    assert shares_played(cluster) == 2 * (1 + 3)  # an iteration: the net sent, then three shares played there
    timing = ("self_play_seconds", "learn_seconds", "positions_per_second", "moves_per_second")
    timing += ("simulations_per_second", "seconds")
    assert [{k: v for k, v in r.items() if k not in timing} for r in spread_records] == [
        {k: v for k, v in r.items() if k not in timing} for r in records
    ]
    weights = [torch.load(tmp_path / run / "checkpoint.pt", weights_only=True) for run in ("here", "there")]
    for name, tensor in weights[0]["model"].items():
        assert torch.equal(weights[1]["model"][name], tensor), name
    for name, tensor in weights[0]["queue"].items():
        assert not torch.is_tensor(tensor) or torch.equal(weights[1]["queue"][name], tensor), name


def test_the_command_line_trains_on_the_cluster_and_refuses_a_run_without_chunks(cluster, tmp_path, capsys):
    """`train --cluster`: a new run takes chunks of its share's size (3 games over 2 workers: 2 rows, rounded up to
    4, `nets.evaluator.check_chunk`) and plays its games on the workers; a run begun here without chunks, or an
    unreachable cluster, is one line before anything is written."""
    small = ["--filters", "8", "--blocks", "1", "--games", "3", "--simulations", "8", "--queue", "200"]
    argv = ["train", "connect4", *small, "--batch", "32", "--eval-games", "0", "--iterations", "1"]
    assert main([*argv, "--out", str(tmp_path / "c"), "--cluster", cluster]) == 0
    assert json.loads((tmp_path / "c" / "config.json").read_text())["chunk"] == 4 and shares_played(cluster) == 1 + 2
    assert main([*argv, "--out", str(tmp_path / "plain")]) == 0
    capsys.readouterr()
    again = [*argv[:-1], "2", "--out", str(tmp_path / "plain")]
    for extra, words in (
        (["--cluster", cluster], "forwards its self-play batches whole"),
        (["--cluster", "tcp://127.0.0.1:9"], "cannot reach a Dask scheduler"),
    ):
        assert main([*again, *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0]
    assert len((tmp_path / "plain" / "log.jsonl").read_text().splitlines()) == 1  # nothing more written


def test_a_lost_workers_self_play_shares_are_played_again_with_the_net_computed_again():
    """A cluster of one worker (two threads) is killed while it plays both shares: it held the only copy of the net,
    which the cluster computes again on the worker that replaces it (data scattered by joblib could not come back),
    and the shares played again give the games played here, each once."""
    import torch

    import nets
    from nets.selfplay import join, play_share
    from tuner.match.cluster import spread

    torch.manual_seed(0)
    net = nets.build("connect4", filters=8, blocks=1).eval()
    settings = dict(games=6, simulations=40, seed=11)
    calls = [(net, share, 4, settings) for share in ([0, 1, 2], [3, 4, 5])]
    here = join([play_share(*call) for call in calls])
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
    ) as one:
        client = connect(one.scheduler_address)
        (pid,) = client.run(os.getpid).values()
        done = {}
        worker = threading.Thread(target=lambda: done.update(result=join(spread(client, play_share, calls, (net,)))))
        worker.start()
        deadline = time.monotonic() + 60
        while sum(map(len, client.processing().values())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # until both shares are being played
        os.kill(pid, signal.SIGKILL)
        worker.join(300)
        moves = client.run_on_scheduler(lambda dask_scheduler: [tuple(t[1:3]) for t in dask_scheduler.transition_log])
        client.close()
    assert ("processing", "released") in moves and ("memory", "released") in moves  # shares and the net lost
    assert not worker.is_alive() and "result" in done
    (examples, counts), (want, want_counts) = done["result"], here
    assert counts == want_counts and counts.games == 6
    for field in ("planes", "policy", "value"):
        assert np.array_equal(getattr(examples, field), getattr(want, field))
