"""Noisy samples of a damped, driven harmonic oscillator (written for trace-bench).

Ground truth (hidden from the candidate):  a = x'' = F*cos(OMEGA*t) - GAMMA*v - K*x
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

GAMMA = 0.5   # damping coefficient
K = 2.0       # stiffness (squared natural frequency)
F = 0.8       # driving amplitude
OMEGA = 1.3   # driving angular frequency
INITIAL_STATES = ((1.0, 0.0), (-0.5, 1.0))


def true_acceleration(t, x, v):
    return F * np.cos(OMEGA * t) - GAMMA * v - K * x


def generate_data(n_points: int = 500, t_end: float = 20.0, noise_std: float = 0.01, seed: int = 2024) -> dict:
    """Samples (t, x, v, a) along trajectories started from each of INITIAL_STATES.

    Each trajectory is integrated with scipy's solve_ivp (RK45, rtol 1e-10, atol 1e-12) and sampled
    at n_points // len(INITIAL_STATES) evenly spaced times in [0, t_end]; `a` is the true
    acceleration plus Gaussian noise of standard deviation `noise_std` (RandomState(seed)).
    """
    rng = np.random.RandomState(seed)
    per_trajectory = max(2, int(n_points) // len(INITIAL_STATES))
    times = np.linspace(0.0, float(t_end), per_trajectory)
    ts, xs, vs = [], [], []
    for x0, v0 in INITIAL_STATES:
        solution = solve_ivp(lambda t, s: [s[1], true_acceleration(t, s[0], s[1])], (0.0, float(t_end)),
                             [x0, v0], t_eval=times, rtol=1e-10, atol=1e-12)
        ts.append(times)
        xs.append(solution.y[0])
        vs.append(solution.y[1])
    t = np.concatenate(ts)
    x = np.concatenate(xs)
    v = np.concatenate(vs)
    a = true_acceleration(t, x, v) + rng.normal(0.0, noise_std, size=t.shape)
    return {"t": t, "x": x, "v": v, "a": a}
