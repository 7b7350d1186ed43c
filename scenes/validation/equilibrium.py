#!/usr/bin/env python3
"""Initial pose of the validation block in static equilibrium on its penalty layer.

A block released "from rest" must start where the contact forces already balance gravity;
otherwise it rocks on the penalty layer in the first steps and, exactly at the stick/slip
threshold (mu = tan(theta)), keeps the speed that rocking gave it. For a rigid block with its
5 x 5 bottom vertices (spacing a) at along-slope offsets x_i (downhill positive), the penalty
forces lambda_i = 3 kappa/delta (delta - d_i)^2 with gaps d_i = d0 - phi x_i must satisfy
  sum lambda_i = W cos(theta)                     (normal balance)
  sum lambda_i x_i = W sin(theta) h / 2           (moment of friction, which acts at the bottom
                                                   face, h/2 below the centroid)
This script solves for (d0, phi) by Newton and prints the scene's position and rotation.
Usage: python3 equilibrium.py THETA_DEG [KAPPA] [DELTA]
"""
import math
import sys

theta = math.radians(float(sys.argv[1]))
kappa = float(sys.argv[2]) if len(sys.argv) > 2 else 1e4
delta = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
m, g, size, n = 1.0, 9.81, 0.1, 5
W = m * g
c = 3 * kappa / delta
xs = [(-size / 2 + size * i / (n - 1)) for i in range(n) for _ in range(n)]

d0, phi = delta / 2, 0.0
for _ in range(50):
    lam = [c * (delta - (d0 - phi * x)) ** 2 for x in xs]
    r1 = sum(lam) - W * math.cos(theta)
    r2 = sum(l * x for l, x in zip(lam, xs)) - W * math.sin(theta) * size / 2
    # d lambda / d d0 = -2 c (delta - d), d lambda / d phi = 2 c (delta - d) x
    j = [[sum(-2 * c * (delta - (d0 - phi * x)) for x in xs), sum(2 * c * (delta - (d0 - phi * x)) * x for x in xs)],
         [sum(-2 * c * (delta - (d0 - phi * x)) * x for x in xs), sum(2 * c * (delta - (d0 - phi * x)) * x * x for x in xs)]]
    det = j[0][0] * j[1][1] - j[0][1] * j[1][0]
    dd0 = (-r1 * j[1][1] + r2 * j[0][1]) / det
    dphi = (-r2 * j[0][0] + r1 * j[1][0]) / det
    d0, phi = d0 + dd0, phi + dphi
    if abs(dd0) < 1e-18 and abs(dphi) < 1e-16:
        break

# The block's local axes: rotation about y by -(theta + phi) tilts its downhill edge closer to the
# ramp by phi (downhill is -x in the ramp frame, whose normal is (-sin, 0, cos)).
beta = theta + phi
nrm = (-math.sin(theta), 0.0, math.cos(theta))
center = [nrm[k] * (size / 2 + d0) for k in range(3)]
print(f"d0 = {d0!r} m, tilt phi = {phi!r} rad")
print(f"position: ({center[0]!r}, 0.0, {center[2]!r}),")
print(f"rotation: (0.0, {-math.degrees(beta)!r}, 0.0),")
