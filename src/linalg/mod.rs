pub mod qp;
