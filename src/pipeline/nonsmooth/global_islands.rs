//! Islands of a nodal step's global problem `A v = f + H r`: groups of unknowns that no entry of
//! `A` and no contact joins (stools standing apart on one floor, critters not yet touching).
//! Each island is a global problem of its own, reduced to its Delassus form and solved on its
//! own scale, in parallel; the unknowns no contact touches form one more, contact-free island.
//!
//! Splitting first is what makes a scene of many separate bodies cost what its bodies cost: the
//! whole step's Delassus operator would be assembled and then cut into the same blocks, and its
//! relative error would be measured on the heaviest body's scale (see `islands` for the rule
//! each island meets, the same as in the rigid step).

use super::islands::{join, root};
use crate::dfcp::problem::{Csc, GlobalProblem};
use crate::dfcp::solver::SolveReport;
use faer::sparse::Triplet;
use rayon::prelude::*;
use std::time::Instant;

/// One island: its unknowns and its contacts, each ascending.
pub struct GlobalIsland {
    pub dofs: Vec<usize>,
    pub contacts: Vec<usize>,
}

/// The islands of `g`, those with contacts in the order of their first contact, then the
/// contact-free unknowns (if any) as one island. A single island means nothing splits.
pub fn split(g: &GlobalProblem) -> Vec<GlobalIsland> {
    let n = g.ndof();
    let mut parent: Vec<usize> = (0..n).collect();
    let join_dofs = |a: usize, b: usize, parent: &mut Vec<usize>| {
        let (ra, rb) = (root(parent, a), root(parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    };
    let (m, h) = (g.m.as_ref(), g.h.as_ref());
    for j in 0..n {
        for &i in m.row_idx_of_col_raw(j) {
            join_dofs(i, j, &mut parent);
        }
    }
    let first_row = |c: usize| (3 * c..3 * c + 3).find_map(|j| h.row_idx_of_col_raw(j).first().copied());
    for c in 0..g.nc() {
        let Some(first) = first_row(c) else { continue };
        for j in 3 * c..3 * c + 3 {
            for &i in h.row_idx_of_col_raw(j) {
                join_dofs(first, i, &mut parent);
            }
        }
    }
    let mut island_of_root = vec![usize::MAX; n];
    let mut islands: Vec<GlobalIsland> = Vec::new();
    let mut unplaced = Vec::new();
    for c in 0..g.nc() {
        // A contact that moves no unknown is left to the whole solve.
        let Some(first) = first_row(c) else { return vec![everything(g)] };
        let r = root(&mut parent, first);
        if island_of_root[r] == usize::MAX {
            island_of_root[r] = islands.len();
            islands.push(GlobalIsland { dofs: Vec::new(), contacts: Vec::new() });
        }
        islands[island_of_root[r]].contacts.push(c);
    }
    for d in 0..n {
        match island_of_root[root(&mut parent, d)] {
            usize::MAX => unplaced.push(d),
            k => islands[k].dofs.push(d),
        }
    }
    if !unplaced.is_empty() {
        islands.push(GlobalIsland { dofs: unplaced, contacts: Vec::new() });
    }
    islands
}

fn everything(g: &GlobalProblem) -> GlobalIsland {
    GlobalIsland { dofs: (0..g.ndof()).collect(), contacts: (0..g.nc()).collect() }
}

/// Island `k`'s problem: `A` on its unknowns, `H` on its unknowns and contacts, renumbered in
/// their order. `local[d]` is unknown d's index in its own island.
fn sub_problem(g: &GlobalProblem, island: &GlobalIsland, local: &[usize]) -> anyhow::Result<GlobalProblem> {
    let (m, h) = (g.m.as_ref(), g.h.as_ref());
    let block = |matrix: faer::sparse::SparseColMatRef<'_, usize, f64>, cols: &mut dyn Iterator<Item = usize>| {
        let mut t = Vec::new();
        for (k, j) in cols.enumerate() {
            for (i, v) in matrix.row_idx_of_col_raw(j).iter().zip(matrix.val_of_col(j)) {
                t.push(Triplet::new(local[*i], k, *v));
            }
        }
        t
    };
    let (nd, nc) = (island.dofs.len(), island.contacts.len());
    let a = Csc::try_new_from_triplets(nd, nd, &block(m, &mut island.dofs.iter().copied()))?;
    let columns = &mut island.contacts.iter().flat_map(|&c| 3 * c..3 * c + 3);
    let hs = Csc::try_new_from_triplets(nd, 3 * nc, &block(h, columns))?;
    let f = island.dofs.iter().map(|&d| g.f[d]).collect();
    let w = island.contacts.iter().flat_map(|&c| g.w[3 * c..3 * c + 3].iter().copied()).collect();
    let cones = island.contacts.iter().map(|&c| g.cones[c]).collect();
    Ok(GlobalProblem::new(a, hs, f, w, cones)?)
}

/// An island's report (or why its problem could not be built), impulses and velocities.
type Solved = (Result<SolveReport, String>, Vec<f64>, Vec<f64>);

/// Solves `g` island by island with `solve_one` (which gets each island's problem, its impulses
/// holding the warm start, and its velocities), in parallel, and writes the islands' impulses
/// and velocities back into `r` and `v`. The report joins the islands' as the rigid step does.
pub fn solve(
    g: &GlobalProblem,
    islands: &[GlobalIsland],
    r: &mut [f64],
    v: &mut [f64],
    solve_one: impl Fn(&GlobalProblem, &mut [f64], &mut [f64]) -> anyhow::Result<SolveReport> + Sync,
) -> SolveReport {
    let start = Instant::now();
    let mut local = vec![0; g.ndof()];
    for island in islands {
        for (k, &d) in island.dofs.iter().enumerate() {
            local[d] = k;
        }
    }
    let gather = |x: &[f64], contacts: &[usize]| -> Vec<f64> {
        contacts.iter().flat_map(|&c| x[3 * c..3 * c + 3].iter().copied()).collect()
    };
    let solved: Vec<Solved> = islands
        .par_iter()
        .map(|island| {
            let mut ri = gather(r, &island.contacts);
            let mut vi: Vec<f64> = island.dofs.iter().map(|&d| v[d]).collect();
            let report = sub_problem(g, island, &local)
                .and_then(|sub| solve_one(&sub, &mut ri, &mut vi))
                .map_err(|e| e.to_string());
            (report, ri, vi)
        })
        .collect();
    let mut reports = Vec::with_capacity(islands.len());
    for ((report, ri, vi), island) in solved.into_iter().zip(islands) {
        for (k, &c) in island.contacts.iter().enumerate() {
            r[3 * c..3 * c + 3].copy_from_slice(&ri[3 * k..3 * k + 3]);
        }
        for (k, &d) in island.dofs.iter().enumerate() {
            v[d] = vi[k];
        }
        // The contact-free island has no contact problem to report, only a failure.
        if !island.contacts.is_empty() || report.is_err() {
            reports.push(report);
        }
    }
    let count = reports.len();
    join(reports, count, start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::friction::cone::Cone;

    /// Three point masses of 3 unknowns each (masses 1, 2, 4): contact 0 joins masses 0 and 2,
    /// contact 1 touches mass 0 alone, contact 2 mass 1 alone; a fourth mass touches nothing.
    fn problem() -> GlobalProblem {
        let masses = [1.0, 2.0, 4.0, 8.0];
        let m: Vec<_> = (0..12).map(|d| Triplet::new(d, d, masses[d / 3])).collect();
        let mut h = Vec::new();
        for (contact, mass, sign) in [(0, 0, 1.0), (0, 2, -1.0), (1, 0, 1.0), (2, 1, 1.0)] {
            for k in 0..3 {
                h.push(Triplet::new(3 * mass + k, 3 * contact + (k + 1) % 3, sign));
            }
        }
        let f: Vec<f64> = (0..12).map(|d| -9.81 * masses[d / 3] * f64::from(d % 3 == 2) + 0.1 * d as f64).collect();
        let w = vec![0.0, 0.01, -0.02, 0.0, 0.0, 0.0, 0.003, 0.0, 0.0];
        let cones = vec![Cone::isotropic(0.5).unwrap(); 3];
        GlobalProblem::new(
            Csc::try_new_from_triplets(12, 12, &m).unwrap(),
            Csc::try_new_from_triplets(12, 9, &h).unwrap(),
            f,
            w,
            cones,
        )
        .unwrap()
    }

    #[test]
    fn unknowns_no_entry_or_contact_joins_are_islands() {
        let islands = split(&problem());
        let got: Vec<(Vec<usize>, Vec<usize>)> = islands.into_iter().map(|i| (i.dofs, i.contacts)).collect();
        let dofs = |masses: &[usize]| masses.iter().flat_map(|m| 3 * m..3 * m + 3).collect::<Vec<_>>();
        assert_eq!(got, vec![(dofs(&[0, 2]), vec![0, 1]), (dofs(&[1]), vec![2]), (dofs(&[3]), vec![])]);
    }

    #[test]
    fn the_islands_solve_gives_the_whole_problem_s_solution() {
        // Each island's problem is the whole one's restriction, so the exact solution is the
        // same; FB Newton on the whole and on the pieces agree to its 1e-12 stop (relative to
        // impulses and velocities of order 10: 1e-10 absolute, with room for the back-solves).
        let g = problem();
        let opts = crate::dfcp::solver::SolverOptions::new(1e-12, 200);
        let solve_one = |p: &GlobalProblem, r: &mut [f64], v: &mut [f64]| -> anyhow::Result<SolveReport> {
            let red = crate::dfcp::global_reduction::Reduced::new(p)?;
            let mut u = vec![0.0; r.len()];
            let rep = match p.nc() {
                0 => SolveReport::no_contacts(),
                _ => crate::dfcp::fb_newton::solve(&red.local, r, &mut u, &opts),
            };
            red.velocity(p, r, v);
            Ok(rep)
        };
        let (mut r1, mut v1) = (vec![0.0; 9], vec![0.0; 12]);
        let whole = solve_one(&g, &mut r1, &mut v1).unwrap();
        assert!(whole.converged, "{whole}");
        let (mut r2, mut v2) = (vec![0.0; 9], vec![0.0; 12]);
        let rep = solve(&g, &split(&g), &mut r2, &mut v2, solve_one);
        assert!(rep.converged, "{rep}");
        assert_eq!(rep.message, "2 islands", "the contact-free island is not a contact problem");
        let worst = r1.iter().zip(&r2).chain(v1.iter().zip(&v2)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-10, "islands and whole differ by {worst}");
        // The free mass falls freely: v = M⁻¹ f.
        assert!((v2[11] - (-9.81 + 1.1 / 8.0)).abs() < 1e-14, "{}", v2[11]);
        assert!(r2[3] > 0.0, "contact 1 holds mass 0 up");
    }
}
