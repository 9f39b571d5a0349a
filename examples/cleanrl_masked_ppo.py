"""Masked PPO in one file, CleanRL style, on the Gymnasium vector env of any registered game.

    python examples/cleanrl_masked_ppo.py --game village --players 2 --timesteps 100000

It trains one seat against `--opponents` (default `random`) on `training.learn.gym_vector.
GameVectorEnv` (B games in one batch engine, Gymnasium 1.x same-step autoreset, the learner's
legal actions in `infos["action_mask"]`), then plays `--eval-games` games greedily against the
same opponents on other seeds and prints its win share with a 95% Wilson interval (and, with
`--json`, writes it). Illegal actions never reach the game: the policy's logits are masked.
The loop follows CleanRL's ppo.py (Huang et al. 2022, "The 37 implementation details of PPO"):
GAE, clipped objective, value loss, entropy bonus, advantage normalisation per minibatch.
Needs torch (the extra [train]).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from core.registry import get_game
from training.arena.ratings import wilson_interval
from training.learn.gym_vector import GameVectorEnv


def layer(n_in: int, n_out: int, std: float = 2**0.5) -> nn.Linear:
    out = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(out.weight, std)
    nn.init.constant_(out.bias, 0.0)
    return out


class Agent(nn.Module):
    def __init__(self, obs_size: int, actions: int, hidden: int = 256):
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, 1, 1.0),
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
            layer(hidden, actions, 0.01),
        )  # fmt: skip

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e9)  # illegal actions get no probability
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def train(a: argparse.Namespace) -> tuple[Agent, dict]:
    torch.manual_seed(a.seed)
    env = GameVectorEnv(
        a.game, num_envs=a.envs, players=a.players, opponents=a.opponents, seed=a.seed
    )
    B, T = a.envs, a.steps
    obs_size, actions = env.single_observation_space.shape[0], env.single_action_space.n
    agent = Agent(obs_size, actions)
    opt = torch.optim.Adam(agent.parameters(), lr=a.lr, eps=1e-5)
    buf_obs = torch.zeros((T, B, obs_size))
    buf_mask = torch.zeros((T, B, actions), dtype=torch.bool)
    buf_act = torch.zeros((T, B), dtype=torch.long)
    buf_logp, buf_rew, buf_done, buf_val = (torch.zeros((T, B)) for _ in range(4))
    obs, infos = env.reset(seed=a.seed)
    next_obs = torch.as_tensor(obs)
    next_mask = torch.as_tensor(infos["action_mask"])
    next_done = torch.zeros(B)
    start, step, updates, episodes, won = time.monotonic(), 0, 0, 0, 0.0
    while step < a.timesteps and time.monotonic() - start < a.minutes * 60:
        for t in range(T):
            buf_obs[t], buf_mask[t], buf_done[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _ent, value = agent.act(next_obs, next_mask)
            buf_act[t], buf_logp[t], buf_val[t] = action, logp, value
            obs, rew, term, trunc, infos = env.step(action.numpy())
            buf_rew[t] = torch.as_tensor(rew)
            done = term | trunc
            next_obs = torch.as_tensor(obs)
            next_mask = torch.as_tensor(infos["action_mask"])
            next_done = torch.as_tensor(done, dtype=torch.float32)
            if done.any():
                shares = infos["final_info"]["outcome"]["win_share"][done]
                episodes, won = episodes + int(done.sum()), won + float(shares.sum())
        step += T * B
        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.value(next_obs)
            adv = torch.zeros((T, B))
            last = torch.zeros(B)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else buf_done[t + 1])
                v_next = next_value if t == T - 1 else buf_val[t + 1]
                delta = buf_rew[t] + a.gamma * v_next * nonterminal - buf_val[t]
                last = delta + a.gamma * a.lam * nonterminal * last
                adv[t] = last
            ret = adv + buf_val
        flat = lambda x: x.reshape((T * B, *x.shape[2:]))  # noqa: E731
        b_obs, b_mask, b_act, b_logp = map(flat, (buf_obs, buf_mask, buf_act, buf_logp))
        b_adv, b_ret = flat(adv), flat(ret)
        for _epoch in range(a.epochs):
            order = torch.randperm(T * B)
            for k in range(0, T * B, a.minibatch):
                mb = order[k : k + a.minibatch]
                _a, logp, ent, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - a.clip, 1 + a.clip))
                loss = pg.mean() + 0.5 * ((value - b_ret[mb]) ** 2).mean() - a.ent * ent.mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        updates += 1
        if updates % 10 == 0:
            rate = won / max(episodes, 1)
            print(f"step {step}: {episodes} episodes, win share {rate:.3f}", flush=True)
    return agent, {
        "timesteps": step,
        "seconds": round(time.monotonic() - start, 1),
        "episodes": episodes,
    }


def evaluate(agent: Agent, a: argparse.Namespace) -> dict:
    """`--eval-games` greedy games against the opponents on seeds training did not use. Every env
    plays the same number of games and each of them counts (the first games to finish are the
    short ones: keeping those would bias the share), so B is the largest divisor of the games
    that is at most `--envs`."""
    b = max(k for k in range(1, min(a.envs, a.eval_games) + 1) if a.eval_games % k == 0)
    per_env = a.eval_games // b
    env = GameVectorEnv(a.game, num_envs=b, players=a.players, opponents=a.opponents,
                        seed=a.seed + 10**6)  # fmt: skip
    obs, infos = env.reset(seed=a.seed + 10**6)
    shares: list[list[float]] = [[] for _ in range(b)]
    while min(len(x) for x in shares) < per_env:
        with torch.no_grad():
            logits = agent.actor(torch.as_tensor(obs)).masked_fill(
                ~torch.as_tensor(infos["action_mask"]), -1e9
            )
        obs, _r, term, trunc, infos = env.step(logits.argmax(-1).numpy())
        for i in np.flatnonzero(term | trunc):
            if len(shares[i]) < per_env:
                shares[i].append(float(infos["final_info"]["outcome"]["win_share"][i]))
    won = sum(sum(x) for x in shares)
    lo, hi = wilson_interval(won, a.eval_games)
    return {"games": a.eval_games, "win_share": won / a.eval_games, "ci95": [lo, hi]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="village")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="random")
    p.add_argument("--timesteps", type=int, default=200_000)
    p.add_argument("--minutes", type=float, default=5.0, help="stop training after this long")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=64, help="steps per env per rollout")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=1024)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent", type=float, default=0.01)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default="", help="also write the result here")
    a = p.parse_args(argv)
    torch.set_num_threads(2)
    agent, run = train(a)
    result = {**vars(a), **run, "eval": evaluate(agent, a)}
    result["rules_data_hash"] = get_game(a.game).RULES_DATA_HASH  # what the figure was played under
    e = result["eval"]
    print(f"greedy vs {a.opponents}: win share {e['win_share']:.3f} "
          f"[{e['ci95'][0]:.3f}, {e['ci95'][1]:.3f}] over {e['games']} games")  # fmt: skip
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
