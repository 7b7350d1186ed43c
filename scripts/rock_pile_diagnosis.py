#!/usr/bin/env python3
"""Why RockPile_tob1 (and any local FCLib problem) is hard: the structure of W and of a solution.

    /usr/bin/python3 scripts/rock_pile_diagnosis.py PROBLEM.txt [SOLUTION.txt]

PROBLEM.txt is a local problem in the shared text format (../shared/fclib/*.txt); SOLUTION.txt
an iterate written by `fricsim fclib solve --output`. Needs numpy and scipy (Debian
python3-scipy). Prints:
  * W's asymmetry, the rank and null space of its symmetric part, whether the null space is
    W's own, and W's smallest singular values on its range (the conditioning the solvers see);
  * whether a nonzero force inside the friction cones can produce no velocity (a wedged
    self-stress): an LP over the null space with each disc cone replaced by its circumscribed
    octagon, so "infeasible" proves that none exists in the true cones either. Then range(W)
    meets the interior of the dual cones (theorem of alternatives), the problem is strictly
    feasible, a solution exists (Acary, Cadoux, Lemarechal, Malick 2011) and the forces of the
    solutions are bounded;
  * with a solution: how many contacts are separated, sticking and sliding, and how many
    equations the active contacts impose (3 per sticking contact, 1 per sliding one) against
    the rank of W: more equations than the rank means the forces are not unique there and a
    Newton method's Jacobian is singular.
"""
import sys
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog


def read(path):
    mats, vecs, lines, i = {}, {}, open(path).read().split('\n'), 0
    while i < len(lines):
        t = lines[i].split('#')[0].split()
        if t and t[0] == 'matrix':
            name, m, n, nnz = t[1], int(t[2]), int(t[3]), int(t[4])
            a = np.array([l.split() for l in lines[i + 1:i + 1 + nnz]], dtype=float).reshape(-1, 3)
            mats[name] = sp.csr_matrix((a[:, 2], (a[:, 0].astype(int), a[:, 1].astype(int))), shape=(m, n))
            i += 1 + nnz
        elif t and t[0] == 'vector':
            name, n = t[1], int(t[2])
            vecs[name] = np.array(lines[i + 1:i + 1 + n], dtype=float)
            i += 1 + n
        else:
            i += 1
    return mats, vecs


def structure(w):
    wd = w.toarray()
    print(f"W: {wd.shape[0]} x {wd.shape[1]}, {w.nnz} entries; "
          f"max|W - W^T| / max|W| = {np.abs(wd - wd.T).max() / np.abs(wd).max():.1e}")
    ev, vec = np.linalg.eigh((wd + wd.T) / 2)
    null = vec[:, ev < 1e-9 * ev[-1]]
    print(f"symmetric part: eigenvalues {ev[0]:.2e} .. {ev[-1]:.2e}, rank {wd.shape[0] - null.shape[1]}, "
          f"null space dimension {null.shape[1]}")
    print(f"max|W N| over the null space N: {np.abs(wd @ null).max():.1e} (W's own null space if ~1e-13)")
    s = np.linalg.svd(wd, compute_uv=False)
    on_range = s[s > 1e-9 * s[0]]
    print(f"W's singular values on its range: {s[0]:.2e} down to {on_range[-1]:.2e} "
          f"(condition {s[0] / on_range[-1]:.1e}); smallest ten: "
          + ' '.join(f'{x:.1e}' for x in on_range[-10:]))
    return wd, null


def self_stress(null, mu):
    """A nonzero r = N a with every contact in its octagon |e_k . r_T| <= mu r_N, sum r_N = 1."""
    nc = len(mu)
    rows = []
    for c in range(nc):
        nn, nt = null[3 * c], null[3 * c + 1:3 * c + 3]
        rows.append(-nn)
        for j in range(8):
            e = np.array([np.cos(j * np.pi / 4), np.sin(j * np.pi / 4)])
            rows.append(e @ nt - mu[c] * nn)
    k = null.shape[1]
    res = linprog(np.zeros(k), A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                  A_eq=null[0::3].sum(axis=0)[None, :], b_eq=[1.0], bounds=[(-1e4, 1e4)] * k, method='highs-ds')
    if res.status == 2:
        print("self-stress in the cones: none (LP infeasible): the problem is strictly feasible, "
              "a solution exists and its forces are bounded")
    elif res.status == 0:
        print("self-stress in the octagons: FOUND: forces may be unbounded (wedging); "
              "check it against the disc cones")
    else:
        print(f"self-stress LP: {res.message}")


def active_set(wd, q, mu, r, rank):
    u = wd @ r + q
    rmax = np.abs(r).max()
    # At rest u ~ 0 everywhere (a stack): "sticking" is judged on the velocity scale of q.
    vscale = max(np.abs(q).max(), np.abs(u).max())
    kinds = {'separated': 0, 'sticking': 0, 'sliding': 0}
    slow = []
    for c in range(len(mu)):
        rc, uc = r[3 * c:3 * c + 3], u[3 * c:3 * c + 3]
        ut = np.hypot(uc[1], uc[2])
        if rc[0] <= 1e-9 * rmax:
            kinds['separated'] += 1
        elif ut <= 1e-6 * vscale:
            kinds['sticking'] += 1
        else:
            kinds['sliding'] += 1
            slow.append(ut)
    eqs = 3 * kinds['sticking'] + kinds['sliding']
    print(f"solution: |r| = {np.linalg.norm(r):.4g}, |u| = {np.linalg.norm(u):.4g}; "
          + ', '.join(f'{v} {k}' for k, v in kinds.items()))
    print(f"active equations {eqs} against rank {rank}" + (" (more: forces not unique, Newton's Jacobian singular)"
                                                         if eqs > rank else ""))
    if slow:
        print("slowest sliding contacts |u_T|: " + ' '.join(f'{x:.1e}' for x in sorted(slow)[:6]))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mats, vecs = read(sys.argv[1])
    w, q, mu = mats['W'], vecs['q'], vecs['mu']
    print(f"{sys.argv[1]}: {len(mu)} contacts, mu in [{mu.min()}, {mu.max()}], |q| = {np.linalg.norm(q):.4g}")
    wd, null = structure(w)
    self_stress(null, mu)
    if len(sys.argv) > 2:
        _, sol = read(sys.argv[2])
        active_set(wd, q, mu, sol['r'], wd.shape[0] - null.shape[1])


if __name__ == '__main__':
    main()
