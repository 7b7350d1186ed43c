//! Developer probe: eigenvalues of the diagonal blocks of a local FCLib problem.
use fricsim::dfcp::fclib::{FclibProblem, read_problem};
fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let FclibProblem::Local(p) = read_problem(std::path::Path::new(&a[1]))? else { anyhow::bail!("local only") };
    let mut mins = Vec::new();
    for (c, b) in p.blocks.diag.iter().enumerate() {
        let m = nalgebra::Matrix3::from_row_slice(b);
        let e = (0.5 * (m + m.transpose())).symmetric_eigenvalues();
        let asym = (m - m.transpose()).abs().max();
        mins.push((e.min() / e.max(), c, e, asym, p.cones[c].mu_t));
    }
    mins.sort_by(|a, b| a.0.total_cmp(&b.0));
    for m in mins.iter().take(6) {
        println!("contact {} ratio {:.3e} eig {:?} asym {:.2e} mu {}", m.1, m.0, m.2.as_slice(), m.3, m.4);
    }
    Ok(())
}
