//! FCLib reading/writing and the natural-map residual against the values `fclib_tools.py`
//! printed in the Siconos reference headers.

mod common;
use common::*;
use fricsim::dfcp::fclib::{FclibProblem, read_problem, write_hdf5, write_text_problem};
use fricsim::dfcp::residual::{global_error, local_error_of};

fn same_matrix(a: &fricsim::dfcp::problem::Csc, b: &fricsim::dfcp::problem::Csc) {
    assert_eq!((a.nrows(), a.ncols()), (b.nrows(), b.ncols()));
    assert_eq!(a.symbolic().col_ptr(), b.symbolic().col_ptr());
    assert_eq!(a.symbolic().row_idx(), b.symbolic().row_idx());
    // The text copies print %.17g, which round-trips exactly: bitwise equality.
    assert_eq!(a.val(), b.val());
}

fn same_problem(a: &FclibProblem, b: &FclibProblem) {
    match (a, b) {
        (FclibProblem::Local(a), FclibProblem::Local(b)) => {
            same_matrix(&a.w, &b.w);
            assert_eq!(a.q, b.q);
            assert_eq!(a.cones, b.cones);
        }
        (FclibProblem::Global(a), FclibProblem::Global(b)) => {
            same_matrix(&a.m, &b.m);
            same_matrix(&a.h, &b.h);
            assert_eq!((&a.f, &a.w, &a.cones), (&b.f, &b.w, &b.cones));
        }
        _ => panic!("kinds differ"),
    }
}

#[test]
fn hdf5_and_text_copies_agree() {
    for stem in LOCAL.iter().chain(GLOBAL.iter()).map(|x| x.0) {
        let h = problem(stem);
        let t = read_problem(&fclib_dir().join(format!("{stem}.txt"))).unwrap();
        same_problem(&h, &t);
    }
}

#[test]
fn round_trip_through_our_writers() {
    let dir = tempfile::tempdir().unwrap();
    for stem in LOCAL.iter().chain(GLOBAL.iter()).map(|x| x.0) {
        let p = problem(stem);
        let t = dir.path().join("p.txt");
        let h = dir.path().join("p.hdf5");
        write_text_problem(&t, &p).unwrap();
        write_hdf5(&h, &p).unwrap();
        same_problem(&p, &read_problem(&t).unwrap());
        same_problem(&p, &read_problem(&h).unwrap());
    }
}

#[test]
fn residual_matches_fclib_tools_on_references() {
    // The headers print 4 significant digits (%.3e): agreement to 5e-4 relative.
    let close = |a: f64, b: f64| (a - b).abs() <= 5e-4 * b.abs();
    for (stem, solver) in LOCAL {
        let FclibProblem::Local(p) = problem(stem) else { panic!() };
        let refv = reference(stem, solver);
        let e = local_error_of(&p, &refv["r"]);
        let h = reference_errors(stem, solver);
        assert!(close(e.natmap_abs, h["natmap_abs"]), "{stem}: {} vs {}", e.natmap_abs, h["natmap_abs"]);
        assert!(close(e.rel, h["siconos_rel"]), "{stem}: {} vs {}", e.rel, h["siconos_rel"]);
    }
    for (stem, solver) in GLOBAL.iter().copied().chain([("Box_Stacks-i0122-82-5", "ADMM")]) {
        let FclibProblem::Global(p) = problem(stem) else { panic!() };
        let refv = reference(stem, solver);
        let e = global_error(&p, &refv["r"], &refv["v"]);
        let h = reference_errors(stem, solver);
        assert!(close(e.natmap_abs, h["natmap_abs"]), "{stem}: {} vs {}", e.natmap_abs, h["natmap_abs"]);
        assert!(close(e.natmap_rel, h["natmap_rel"]), "{stem}");
        assert!(close(e.eq_rel, h["eq_rel"]), "{stem}: {} vs {}", e.eq_rel, h["eq_rel"]);
        assert!(close(e.total, h["siconos_gfc3d_error"]), "{stem}");
    }
}

#[test]
fn bad_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("kind local\nnc 1\nvector mu 1\n0.1\n", "matrix W missing"),
        ("kind local\nnc 1\nmatrix W 3 3 1\n5 0 1.0\n", "outside the 3x3 matrix W"),
        ("kind local\nnc 1\nmatrix W 3 3 1\n0 0 1.0\nvector q 3\n1\n2\n", "file ends"),
        ("kind local\nnc 1\nmatrix W 3 3 1\n0 0 x\n", "cannot parse value"),
        ("kind local\nnc 1\nmatrix W 3 3 1\n0 0 1\nvector q 3\n1\n2\n3\nvector mu 1\n-1\n", "invalid friction cone"),
        ("kind local\nnc 2\nmatrix W 3 3 1\n0 0 1\nvector q 3\n1\n2\n3\nvector mu 1\n0.1\n", "nc = 2 but mu has 1"),
        (
            "kind local\nnc 1\nmatrix W 6 6 1\n0 0 1\nvector q 3\n1\n2\n3\nvector mu 1\n0.1\n",
            "matrix W is 6x6, expected 3x3",
        ),
        ("kind banana\nvector mu 1\n0.1\n", "unknown kind"),
    ];
    for (text, msg) in cases {
        let f = dir.path().join("bad.txt");
        std::fs::write(&f, text).unwrap();
        let e = format!("{:#}", read_problem(&f).unwrap_err());
        assert!(e.contains(msg), "expected {msg:?} in {e:?}");
    }
    let e = format!("{:#}", read_problem(&dir.path().join("nope.hdf5")).unwrap_err());
    assert!(e.contains("cannot read"), "{e}");
    let f = dir.path().join("trunc.hdf5");
    let bytes = std::fs::read(fclib_dir().join("Capsules-i125-1213.hdf5")).unwrap();
    std::fs::write(&f, &bytes[..2000]).unwrap();
    assert!(read_problem(&f).is_err());
}

/// Independent reader check (needs Debian python3-h5py, numpy, scipy):
/// `cargo test --release --test dfcp_fclib_io -- --ignored`. fclib_tools.py (h5py + scipy) reads
/// the HDF5 problem and the solution file we write and must print the same error as fricsim.
#[test]
#[ignore]
fn our_hdf5_and_solution_files_are_read_by_fclib_tools() {
    use fricsim::dfcp::dispatch::solve;
    use fricsim::dfcp::fclib::write_solution;
    use fricsim::dfcp::solver::SolverOptions;
    let dir = tempfile::tempdir().unwrap();
    for stem in ["Capsules-i125-1213", "LMGC_GlobalFrictionContactProblem00046"] {
        let p = problem(stem);
        let h5 = dir.path().join(format!("{stem}.hdf5"));
        write_hdf5(&h5, &p).unwrap();
        let s = solve(&p, "auto", &SolverOptions::new(1e-9, 100_000)).unwrap();
        let sol = dir.path().join("sol.txt");
        write_solution(&sol, "test", &s.r, &s.u, s.v.as_deref()).unwrap();
        let out = std::process::Command::new("/usr/bin/python3")
            .arg(fclib_dir().join("fclib_tools.py"))
            .args(["check", h5.to_str().unwrap(), sol.to_str().unwrap()])
            .output()
            .expect("python3 runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text} {}", String::from_utf8_lossy(&out.stderr));
        let abs: f64 = text.split("'natmap_abs': ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        // Same formula and data, but scipy recomputes u = W r + q (or H^T v + w) in another
        // summation order: the two errors differ by round-off of u, ~1e-16 |u| per entry; allow
        // 1e-12 of the data scale.
        let scale = fricsim::dfcp::problem::norm2(&s.u).max(fricsim::dfcp::problem::norm2(&s.r));
        assert!((abs - s.report.residual_abs).abs() <= 1e-12 * scale, "{stem}: {abs} vs {}", s.report.residual_abs);
    }
}
