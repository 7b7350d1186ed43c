//! Developer probe: solve one FCLib problem and compare with a Siconos reference per contact.
//! `cargo run --release --example dfcp_probe -- PROBLEM.hdf5 REF.txt SOLVER TOL`
use fricsim::dfcp::dispatch::solve;
use fricsim::dfcp::fclib::{read_problem, read_vectors};
use fricsim::dfcp::solver::SolverOptions;
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let p = read_problem(Path::new(&a[1]))?;
    let refv = read_vectors(Path::new(&a[2]))?;
    let tol: f64 = a.get(4).map_or(Ok(1e-10), |s| s.parse())?;
    let s = solve(&p, &a[3], &SolverOptions::new(tol, 100_000))?;
    println!("{}", s.report);
    let (x, xr) = match &s.v {
        Some(v) => (v.clone(), refv["v"].clone()),
        None => (s.u.clone(), refv["u"].clone()),
    };
    let nrm = xr.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    println!("|ref|_inf = {nrm:.3e}");
    let mut worst: Vec<(f64, usize)> = (0..x.len()).map(|i| ((x[i] - xr[i]).abs(), i)).collect();
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (d, i) in worst.iter().take(8) {
        let c = i / 3;
        println!(
            "idx {i} (contact {c}) diff {d:.3e}: ours {:.6e} ref {:.6e}  r_ours {:?} r_ref {:?}",
            x[*i],
            xr[*i],
            &s.r[3 * c..3 * c + 3],
            &refv["r"][3 * c..3 * c + 3]
        );
    }
    Ok(())
}
