//! Islands: the contacts of a step split into groups that share no dynamic body, so that the
//! Delassus operator is block diagonal and each block is a contact problem of its own, solved
//! independently (in parallel). Colliders and scripted bodies do not join islands: their
//! velocity is known, so two stacks on one floor are two problems.
//!
//! Each island must meet the tolerance on its own scale (its natural-map error relative to the
//! largest of its own `|q|, |r|, |u|`), as it would solved alone. That is stricter than the
//! monolithic solve for light islands, whose errors the whole problem's scale (set by the heavy
//! ones) would hide; it implies the whole problem's relative error is at most `√3 tol` (the
//! squared island scales add up to at most 3 times the whole's largest squared).

use super::detect::Contact;
use crate::contact::rigid::Participant;
use crate::dfcp::problem::{Csc, LocalProblem};
use crate::dfcp::solver::{SolveReport, SolverOptions};
use crate::model::Model;
use rayon::prelude::*;
use std::ops::Range;
use std::time::Instant;

/// The contacts reordered so that each island's contacts are contiguous, and the islands' ranges
/// in that order. Bodies a joint `links` share an island whatever touches them. Islands come in
/// the order of their first contact, contacts keep their order within an island, so the split is
/// deterministic.
pub fn group(model: &Model, contacts: Vec<Contact>, links: &[(usize, usize)]) -> (Vec<Contact>, Vec<Range<usize>>) {
    let n = model.rigids.len();
    let mut parent: Vec<usize> = (0..n).collect();
    for &(a, b) in links {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let dynamic_body = |p: Participant| match p {
        Participant::Body(i) if model.rigids[i].is_dynamic() => Some(i),
        _ => None,
    };
    for c in &contacts {
        if let (Some(a), Some(b)) = (dynamic_body(c.contact.a), dynamic_body(c.contact.b)) {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    // Island label of each contact: its first dynamic body's root (detection never reports a
    // contact without a dynamic body).
    let labels: Vec<usize> = contacts
        .iter()
        .map(|c| {
            let body = dynamic_body(c.contact.a).or(dynamic_body(c.contact.b)).unwrap_or(0);
            root(&mut parent, body)
        })
        .collect();
    let mut order_of_root = vec![usize::MAX; n.max(1)];
    let mut roots = Vec::new();
    for &l in &labels {
        if order_of_root[l] == usize::MAX {
            order_of_root[l] = roots.len();
            roots.push(l);
        }
    }
    let mut buckets: Vec<Vec<Contact>> = vec![Vec::new(); roots.len()];
    for (c, l) in contacts.into_iter().zip(&labels) {
        buckets[order_of_root[*l]].push(c);
    }
    let mut ranges = Vec::with_capacity(buckets.len());
    let mut sorted = Vec::with_capacity(labels.len());
    for b in buckets {
        ranges.push(sorted.len()..sorted.len() + b.len());
        sorted.extend(b);
    }
    (sorted, ranges)
}

/// The root of `i` in a union-find forest, halving the path on the way.
pub(super) fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The diagonal block of `w` over the contacts `range` (a block-diagonal `w` has no entry
/// outside these blocks).
fn diagonal_block(w: &Csc, range: &Range<usize>) -> Csc {
    let (lo, hi) = (3 * range.start, 3 * range.end);
    let (col_ptr, rows, vals) = (w.col_ptr(), w.row_idx(), w.val());
    let mut triplets = Vec::new();
    for col in lo..hi {
        for k in col_ptr[col]..col_ptr[col + 1] {
            if (lo..hi).contains(&rows[k]) {
                triplets.push(faer::sparse::Triplet::new(rows[k] - lo, col - lo, vals[k]));
            }
        }
    }
    Csc::try_new_from_triplets(hi - lo, hi - lo, &triplets).expect("indices are within the block")
}

/// The rows of the factor `g` (`W = G Gᵀ`) of the contacts `range`, on the columns they touch
/// (an island's bodies), renumbered in order.
fn factor_rows(g: &Csc, range: &Range<usize>) -> Csc {
    let (lo, hi) = (3 * range.start, 3 * range.end);
    let (col_ptr, rows, vals) = (g.col_ptr(), g.row_idx(), g.val());
    let mut triplets = Vec::new();
    let mut m = 0;
    for col in 0..g.ncols() {
        let before = triplets.len();
        for k in col_ptr[col]..col_ptr[col + 1] {
            if (lo..hi).contains(&rows[k]) {
                triplets.push(faer::sparse::Triplet::new(rows[k] - lo, m, vals[k]));
            }
        }
        m += usize::from(triplets.len() > before);
    }
    Csc::try_new_from_triplets(hi - lo, m, &triplets).expect("indices are within the block")
}

/// Solves `p` island by island (`ranges` as from [`group`]) with `solve`, in parallel, writing
/// each island's forces and velocities into `r` and `u` (which hold the warm start on entry).
/// The report's iterations are the most any island took.
pub fn solve(
    p: &LocalProblem,
    ranges: &[Range<usize>],
    r: &mut [f64],
    u: &mut [f64],
    opts: &SolverOptions,
    solve: impl Fn(&LocalProblem, &mut [f64], &mut [f64], &SolverOptions) -> SolveReport + Sync,
) -> SolveReport {
    let start = Instant::now();
    let mut pieces: Vec<(Range<usize>, &mut [f64], &mut [f64])> = Vec::with_capacity(ranges.len());
    let (mut r_rest, mut u_rest) = (r, u);
    for range in ranges {
        let n = 3 * range.len();
        let (ri, rr) = std::mem::take(&mut r_rest).split_at_mut(n);
        let (ui, ur) = std::mem::take(&mut u_rest).split_at_mut(n);
        (r_rest, u_rest) = (rr, ur);
        pieces.push((range.clone(), ri, ui));
    }
    let reports: Vec<Result<SolveReport, String>> = pieces
        .into_par_iter()
        .map(|(range, ri, ui)| {
            let lo = 3 * range.start;
            let sub = LocalProblem::new(
                diagonal_block(&p.w, &range),
                p.q[lo..lo + ri.len()].to_vec(),
                p.cones[range.clone()].to_vec(),
            )
            .map_err(|e| e.to_string())?;
            let sub = match &p.factor {
                Some(g) => sub.with_factor(factor_rows(g, &range)).map_err(|e| e.to_string())?,
                None => sub,
            };
            Ok(solve(&sub, ri, ui, opts))
        })
        .collect();
    join(reports, ranges.len(), start)
}

/// One report for the islands' reports: converged when all are; the relative error is the
/// largest island's, the absolute one the whole problem's (the islands' in quadrature); the
/// solver is the islands' if they all name one (under `VelocityAdmm` small islands are `auto`'s).
pub(super) fn join(reports: Vec<Result<SolveReport, String>>, islands: usize, start: Instant) -> SolveReport {
    let mut failed = 0;
    let mut worst = String::new();
    let (mut iterations, mut rel, mut abs_sq) = (0, 0.0f64, 0.0);
    let mut solver: Option<&'static str> = None;
    let mut prox = None;
    for rep in &reports {
        match rep {
            Ok(rep) => {
                solver = match solver {
                    Some(s) if s != rep.solver => Some("islands (solvers differ)"),
                    _ => Some(rep.solver),
                };
                iterations = iterations.max(rep.iterations);
                rel = rel.max(rep.residual_rel);
                abs_sq += rep.residual_abs * rep.residual_abs;
                prox = crate::dfcp::solver::ProxCounts::add(prox, rep.prox);
                if !rep.converged {
                    failed += 1;
                    worst = rep.to_string();
                }
            }
            Err(e) => {
                // An island whose problem could not be built has no solution to measure.
                failed += 1;
                rel = f64::INFINITY;
                worst = e.clone();
            }
        }
    }
    let message = match failed {
        0 => format!("{islands} islands"),
        _ => format!("{islands} islands, {failed} failed; last failure: {worst}"),
    };
    SolveReport {
        solver: solver.unwrap_or("islands"),
        converged: failed == 0,
        iterations,
        residual_abs: abs_sq.sqrt(),
        residual_rel: rel,
        time: start.elapsed(),
        message,
        prox,
    }
}
