"""Make tests/data/tuned_v4.json, which tests/test_tuned.py loads: run with the version-4 code (commit 24ddab4, where
search/tuned.py has VERSION = 4), from a checkout of it:

    git worktree add /tmp/v4 24ddab4 && cd /tmp/v4 && PYTHONPATH=. python tests/data/make_tuned_v4.py OUT.json

A tuned agent plays two games and half a third against a random one, forgetting after each; saved is its state
(each seat's strategy as the log of its asks and tells) and the asks each seat's strategy makes next under
fixed rewards (its open ask told first), which a later version must repeat after loading the state."""

import json
import sys

import games
from tuner.agents import make_agent

C4 = games.load("connect4")
SPEC = "mcts:simulations=8,dsa=fixed,dda_tuner=nmc,dda_tune=z+floor,dda_forget=0.8"
REWARDS = [0.9, 0.1, 0.5, 0.7, 0.2, 0.6]
OPEN_TOLD = 0.4


def main(path: str) -> None:
    agent, opponent = make_agent(C4, SPEC, seed=5), make_agent(C4, "random", seed=6)
    for game in range(3):
        state = C4.new_initial_state()
        agent.new_game(seed=game, seat=game % 2)
        while not state.is_terminal() and (game < 2 or len(state.history()) < 6):
            mover = agent if state.current_player() == game % 2 else opponent
            action = mover.select_action(state)
            agent.observe(state, action)
            state.apply_action(action)
        if game < 2:
            agent.game_over(state.returns())
    saved = json.loads(json.dumps(agent.adjuster.state_dict()))
    assert saved["version"] == 4, "run this with the version-4 code"
    asks = [[], []]
    for seat in (0, 1):
        tuner = agent.adjuster.tuners[seat]
        if saved["asked"][seat] is not None:
            tuner.tell(saved["asked"][seat], OPEN_TOLD)
        for reward in REWARDS:
            x = tuner.ask()
            asks[seat].append(x.tolist())
            tuner.tell(x, reward)
    made = "the version-4 code at commit 24ddab4, by tests/data/make_tuned_v4.py"
    out = {"made_by": made, "spec": SPEC, "state": saved, "z_in_force": agent.adjuster.inner.z}
    out.update(open_told=OPEN_TOLD, rewards=REWARDS, next_asks=asks)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
