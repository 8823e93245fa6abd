"""Loops over Python floats: a fixed-point iteration and an ODE stepper.

Scalar code pays for every helper call in every iteration, so these measure
the per-iteration overhead of generated loops against a hand-written reverse
loop (a list of the carried values, then the chain rule backwards).
"""
import math

import numpy as np

from .base import Case, Spelling

STEPS = 50


# ---- square root by Heron's iteration ------------------------------------------------------
def heron(a):
    x = 1.0
    for i in range(50):
        x = 0.5 * (x + a / x)
    return x


def heron_halves(a):
    x = 1.0
    for _ in range(50):
        x = (x + a / x) / 2
    return x


def heron_newton(a):  # Newton's step on x*x - a: the same iterates
    x = 1.0
    for _ in range(50):
        x -= (x * x - a) / (2.0 * x)
    return x


def heron_hand(a):
    x, xs = 1.0, []
    for _ in range(STEPS):
        xs.append(x)
        x = 0.5 * (x + a / x)
    x_bar, a_bar = 1.0, 0.0
    for x in reversed(xs):
        a_bar += x_bar * 0.5 / x
        x_bar *= 0.5 * (1.0 - a / (x * x))
    return a_bar


# ---- a damped pendulum, explicit Euler ----------------------------------------------------
def pendulum(theta0, k):
    theta, omega = theta0, 0.0
    for i in range(50):
        omega = omega + 0.01 * (-k * np.sin(theta) - 0.1 * omega)
        theta = theta + 0.01 * omega
    return theta


def pendulum_math(theta0, k):
    theta, omega = theta0, 0.0
    for _ in range(50):
        omega += 0.01 * (-k * math.sin(theta) - 0.1 * omega)
        theta += 0.01 * omega
    return theta


def pendulum_dt(theta0, k, dt=0.01, damping=0.1):  # step size and damping as parameters
    theta, omega = theta0, 0.0
    for _ in range(50):
        accel = -k * np.sin(theta) - damping * omega
        omega = omega + dt * accel
        theta = theta + dt * omega
    return theta


def pendulum_hand(theta0, k):
    dt, c = 0.01, 0.1
    theta, omega, thetas = theta0, 0.0, []
    for _ in range(STEPS):
        thetas.append(theta)
        omega += dt * (-k * math.sin(theta) - c * omega)
        theta += dt * omega
    theta_bar, omega_bar, k_bar = 1.0, 0.0, 0.0
    for th in reversed(thetas):
        omega_bar += dt * theta_bar  # theta = theta + dt * omega (the new omega)
        k_bar -= dt * omega_bar * math.sin(th)
        theta_bar -= dt * omega_bar * k * math.cos(th)
        omega_bar *= 1.0 - dt * c
    return theta_bar, k_bar


def _heron_args(rng):
    return {"a": float(rng.uniform(1.0, 4.0))}


def _pendulum_args(rng):
    theta0, k = rng.uniform(0.2, 1.0, 2)
    return {"theta0": float(theta0), "k": float(k) + 1.0}


HERON = Case(
    "fixed point", ("a",), heron_hand, {"50 steps": _heron_args},
    [Spelling("0.5 * (x + a / x)", heron),
     Spelling("(x + a / x) / 2", heron_halves),
     Spelling("x -= newton step", heron_newton)],
)

PENDULUM = Case(
    "euler stepper", ("theta0", "k"), pendulum_hand, {"50 steps": _pendulum_args},
    [Spelling("np.sin, assignments", pendulum),
     Spelling("math.sin, +=", pendulum_math),
     Spelling("dt, damping params", pendulum_dt)],
)
