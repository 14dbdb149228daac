"""Vectorized cart-pole simulation on the GPU: 4096 environments stepped together, actions
from a small policy network (inference only), finished episodes reset in place.

Pattern: reset the finished environments by index,
`idx = torch.nonzero(done).squeeze(1)` then `state[idx] = start[idx]`. nonzero's output size
depends on the data, so it waits for the GPU every step.
Fix: reset with a mask instead of indices, `state = torch.where(done[:, None], start, state)`:
fixed shapes, no wait.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn

WARMUP = 50
N_ENVS = 4096
GRAVITY, CART_MASS, POLE_MASS, POLE_HALF_LEN, FORCE, DT = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
MAX_ANGLE, MAX_X, MAX_T = 12 * math.pi / 180, 2.4, 500


def physics(state, action):
    x, x_dot, theta, theta_dot = state.unbind(1)
    force = FORCE * (2 * action.float() - 1)
    cos, sin = theta.cos(), theta.sin()
    total_mass = CART_MASS + POLE_MASS
    temp = (force + POLE_MASS * POLE_HALF_LEN * theta_dot ** 2 * sin) / total_mass
    theta_acc = (GRAVITY * sin - cos * temp) / (
        POLE_HALF_LEN * (4.0 / 3.0 - POLE_MASS * cos ** 2 / total_mass))
    x_acc = temp - POLE_MASS * POLE_HALF_LEN * theta_acc * cos / total_mass
    return torch.stack([x + DT * x_dot, x_dot + DT * x_acc,
                        theta + DT * theta_dot, theta_dot + DT * theta_acc], dim=1)


def rollout(policy, state, t, start, steps):
    for _ in range(steps):
        action = policy(state).argmax(dim=1)
        state = physics(state, action)
        t = t + 1
        done = (state[:, 0].abs() > MAX_X) | (state[:, 2].abs() > MAX_ANGLE) | (t >= MAX_T)
        idx = torch.nonzero(done).squeeze(1)  # FIX:
        state[idx] = start[idx]
        t[idx] = 0
    return state, t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2500)
    args = parser.parse_args()

    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2)).cuda()
    start = (torch.rand(N_ENVS, 4, device="cuda") - 0.5) * 0.1
    state = start.clone()
    t = torch.zeros(N_ENVS, dtype=torch.long, device="cuda")

    with torch.inference_mode():
        state, t = rollout(policy, state, t, start, WARMUP)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        state, t = rollout(policy, state, t, start, args.steps)
        torch.cuda.synchronize()
        loop_s = time.perf_counter() - t0
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
