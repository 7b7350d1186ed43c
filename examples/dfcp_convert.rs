//! Developer tool: convert an FCLib problem between HDF5 and text with fricsim's writers.
//! `cargo run --release --example dfcp_convert -- IN OUT` (OUT's extension picks the format).
use fricsim::dfcp::fclib::{read_problem, write_hdf5, write_text_problem};
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    anyhow::ensure!(a.len() == 3, "usage: dfcp_convert IN OUT");
    let p = read_problem(Path::new(&a[1]))?;
    let out = Path::new(&a[2]);
    if out.extension().is_some_and(|e| e == "hdf5" || e == "h5") {
        write_hdf5(out, &p)
    } else {
        write_text_problem(out, &p)
    }
}
