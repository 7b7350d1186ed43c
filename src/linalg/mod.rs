//! Linear algebra shared by the pipelines and solvers.
pub mod anderson;
pub mod bicgstab;
pub mod clarabel;
pub mod dense_lu;
pub mod gmres;
pub mod lemke;
pub mod newton_solver;
pub mod object_cholesky;
pub mod pcg;
pub mod qp;
pub mod row_terms;
pub mod sparse;
pub mod woodbury;

/// Runs faer's factorisations (dense LU, sparse LU and Cholesky) on the calling thread.
///
/// fricsim parallelises its own kernels with rayon; faer's task splitting inside one
/// factorisation costs more in thread hand-offs than it gains at the sizes fricsim factors.
/// Measured on 2 cores, parallel against sequential: FB Newton on BoxesStack (144 unknowns,
/// dense LU) 16.7 against 9.2 ms and on KaplasTower (1710, sparse LU) 14.4 against 9.4 s; the
/// local ADMM on KaplasTower (sparse Cholesky) 12.9 against 11.2 ms; the `ramp_6k` bench scene
/// 1.80 against 1.60 s for 2 frames; no case was slower sequentially.
pub fn use_sequential_factorisations() {
    faer::set_global_parallelism(faer::Par::Seq);
}
