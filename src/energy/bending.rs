//! Discrete-shell bending (Grinspun, Hirani, Desbrun, Schröder 2003, "Discrete Shells"): one hinge
//! per interior edge of a triangle mesh,
//!
//! E = k (θ − θ̄)² |ē| / h̄_e = k (θ − θ̄)² 3 |ē|² / (Ā_1 + Ā_2),
//!
//! with θ the signed dihedral (bending) angle at the edge, θ̄ its rest value, |ē| the rest edge
//! length and h̄_e a third of the average rest height of the two triangles (h_i = 2 Ā_i/|ē|).
//!
//! # Stencil and angle
//! Nodes `[x0, x1, x2, x3]` (12 DOFs): the hinge edge is x0–x1, x2 is the third vertex of the
//! triangle (x0, x1, x2) and x3 of the triangle (x1, x0, x3) (the two triangles consistently
//! oriented). With the unnormalized normals n1 = e × (x2 − x0), n2 = (x3 − x0) × e, e = x1 − x0,
//! θ = atan2((n1 × n2)·ê, n1·n2) ∈ (−π, π]: 0 when flat, positive when the hinge is convex seen
//! from the side the normals point to. Why atan2 and not acos(n̂1·n̂2): acos loses the sign and
//! its derivative is infinite at the flat state, exactly where cloth spends its time.
//!
//! θ − θ̄ itself is evaluated as one atan2 of the rotated pair (x, y) = (n1·n2, (n1×n2)·ê):
//! θ − θ̄ = atan2(y cos θ̄ − x sin θ̄, x cos θ̄ + y sin θ̄). This is θ − θ̄ wrapped to (−π, π], so
//! the energy is smooth everywhere except where the hinge is folded exactly opposite to its rest
//! angle (θ − θ̄ = ±π) — in particular smooth through θ = ±π ("flipped" hinges) when θ̄ ≠ 0.
//! Normalizing n1, n2 is unnecessary since atan2 only needs the ratio.
//!
//! # Derivatives
//! The gradient is hand-derived ([`angle_gradient`], Bridson et al. 2003). The exact Hessian
//! `2 k w (∇θ ∇θᵀ + δ ∇²θ)` takes `∇²θ` by first-order forward-mode AD of that gradient
//! (`DualSVec64<9>` in the 9 translation-invariant variables x1 − x0, x2 − x0, x3 − x0, mapped
//! back exactly): the hand-derived one (Tamstorf & Grinspun 2013) is long; both are checked
//! against finite differences. Cost: `benches/thin.rs`.
//! [`HingeElement::energy_gradient_gauss_newton`] is the cheap PSD alternative for projected
//! Newton: with δ = θ − θ̄, ∇E = 2 k w δ ∇θ exactly and H ≈ 2 k w ∇θ ∇θᵀ (drops 2 k w δ ∇²θ,
//! exact at rest), hand-derived.
//!
//! # Stiffness
//! [`hinge_stiffness`] k = D/6 with D = E h³/(12(1 − ν²)), calibrated so that a sheet bent into a
//! cylinder whose rulings follow mesh edges (regular right-triangle grid or equilateral mesh) has
//! the plate energy D/2 ∫ κ² dA: there only the ruling edges bend, by θ = w/R for a strip of width
//! w, and Σ_e 3|ē|²/(Ā_1 + Ā_2) θ² = 3 ∫ κ² dA. Discrete shells are mesh dependent: bending across
//! the edges of a grid gives a different constant (see `tests/thin_energy_fd.rs`).

use nalgebra::Const;
use nalgebra::{SMatrix, SVector, Vector3};
use num_dual::{Derivative, DualSVec64};

use crate::contact::vec3::{Scalar, V3, cross, dot, norm, scale};

/// k = D/6 = E h³/(72 (1 − ν²)) (J): see the module docs for the calibration.
pub fn hinge_stiffness(youngs_modulus: f64, poisson_ratio: f64, thickness: f64) -> f64 {
    youngs_modulus * thickness.powi(3) / (12.0 * (1.0 - poisson_ratio * poisson_ratio)) / 6.0
}

/// A bending hinge with its rest data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeElement {
    /// `[x0, x1, x2, x3]`: edge x0–x1, x2 and x3 opposite (see the module docs).
    pub nodes: [usize; 4],
    /// Rest dihedral angle θ̄ (rad).
    pub rest_angle: f64,
    /// |ē| / h̄_e = 3 |ē|² / (Ā_1 + Ā_2) (dimensionless).
    pub weight: f64,
    /// (sin θ̄, cos θ̄), cached for the wrapped difference.
    rest_sin_cos: (f64, f64),
}

/// (x, y) = (n1·n2, (n1×n2)·ê): θ = atan2(y, x), from the stencil `q`.
#[inline]
fn angle_pair<T: Scalar>(q: &[T; 12]) -> (T, T) {
    angle_pair_reduced(&reduce(q))
}

/// The reduced variables z = (x1 − x0, x2 − x0, x3 − x0): the energy is translation invariant,
/// so it depends on the 12 DOFs only through these 9. The Hessian is taken in z (AD numbers
/// 9 + 81 wide instead of 12 + 144) and mapped back exactly (H = Tᵀ H_z T).
#[inline]
fn reduce<T: Scalar>(q: &[T; 12]) -> [T; 9] {
    std::array::from_fn(|k| q[3 + k] - q[k % 3])
}

#[inline]
fn angle_pair_reduced<T: Scalar>(z: &[T; 9]) -> (T, T) {
    let e: V3<T> = [z[0], z[1], z[2]];
    let n1 = cross(e, [z[3], z[4], z[5]]);
    let n2 = cross([z[6], z[7], z[8]], e);
    let e_hat = scale(e, norm(e).recip());
    (dot(n1, n2), dot(cross(n1, n2), e_hat))
}

/// g = Tᵀ g_z: ∂/∂x0 = −Σ ∂/∂z_k (per coordinate), ∂/∂x_{a} = ∂/∂z_{a−1} for a = 1, 2, 3.
#[inline]
fn expand_gradient(gz: &SVector<f64, 9>) -> SVector<f64, 12> {
    let mut g = SVector::<f64, 12>::zeros();
    for c in 0..3 {
        g[c] = -(gz[c] + gz[3 + c] + gz[6 + c]);
    }
    for k in 0..9 {
        g[3 + k] = gz[k];
    }
    g
}

impl HingeElement {
    /// Rest data from the rest positions of the 4 nodes (in `nodes` order).
    pub fn new(nodes: [usize; 4], rest: &[Vector3<f64>; 4]) -> HingeElement {
        let e = rest[1] - rest[0];
        let a1 = 0.5 * e.cross(&(rest[2] - rest[0])).norm();
        let a2 = 0.5 * e.cross(&(rest[3] - rest[0])).norm();
        let rest_angle = dihedral_angle(rest);
        HingeElement {
            nodes,
            rest_angle,
            weight: 3.0 * e.norm_squared() / (a1 + a2),
            rest_sin_cos: rest_angle.sin_cos(),
        }
    }

    /// One hinge per interior edge of a triangle mesh (edges shared by exactly two triangles;
    /// boundary and non-manifold edges get none), with rest data from `rest`. The hinge edge is
    /// taken in the direction of the first triangle that lists it. An inconsistently oriented
    /// pair still gives a valid hinge: its normals are then opposite at rest, θ̄ ≈ ±π, and the
    /// wrapped θ − θ̄ measures the same bending.
    pub fn from_triangles(triangles: &[[usize; 3]], rest: &[Vector3<f64>]) -> Vec<HingeElement> {
        // (min, max) vertex pair -> [(a, b, opposite)] in first-seen order.
        type Sides = Vec<(usize, usize, usize)>;
        let mut edges: std::collections::HashMap<(usize, usize), Sides> = std::collections::HashMap::new();
        let mut order = Vec::new();
        for t in triangles {
            for k in 0..3 {
                let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
                let key = (a.min(b), a.max(b));
                let list = edges.entry(key).or_default();
                if list.is_empty() {
                    order.push(key);
                }
                list.push((a, b, c));
            }
        }
        order
            .iter()
            .filter_map(|key| match edges[key].as_slice() {
                [(a, b, c), (_, _, d)] => {
                    let nodes = [*a, *b, *c, *d];
                    Some(HingeElement::new(nodes, &nodes.map(|i| rest[i])))
                }
                _ => None,
            })
            .collect()
    }

    /// The 4 node positions from a body's vertex array.
    #[inline]
    pub fn gather(&self, x: &[Vector3<f64>]) -> [Vector3<f64>; 4] {
        self.nodes.map(|i| x[i])
    }

    /// E = k w (θ − θ̄)², generic over the AD scalar; `q` = [x0, y0, z0, …, z3].
    pub fn energy_generic<T: Scalar>(&self, k: f64, q: &[T; 12]) -> T {
        let d = self.angle_change_generic(q);
        d * d * (k * self.weight)
    }

    /// The gradient `2 k w δ ∇θ` generic over the AD scalar: seeded with a direction, one dual
    /// pass gives the Hessian-vector product.
    pub fn gradient_generic<T: Scalar>(&self, k: f64, q: &[T; 12]) -> [T; 12] {
        let d = self.angle_change_generic(q) * (2.0 * k * self.weight);
        angle_gradient_generic(q).map(|g| g * d)
    }

    /// E (J) for hinge stiffness k (J).
    pub fn energy(&self, k: f64, x: &[Vector3<f64>; 4]) -> f64 {
        self.energy_generic(k, &flat(x))
    }

    /// Energy and gradient, hand-derived: ∇E = 2 k w δ ∇θ with ∇θ from [`angle_gradient`].
    pub fn energy_gradient(&self, k: f64, x: &[Vector3<f64>; 4]) -> (f64, SVector<f64, 12>) {
        let d = self.angle_change(x);
        let kw = k * self.weight;
        // The same values as `gradient_generic`'s, without its second angle evaluation.
        (kw * d * d, angle_gradient(x) * (2.0 * kw * d))
    }

    /// θ − θ̄ wrapped to (−π, π] (f64).
    #[inline]
    pub fn angle_change(&self, x: &[Vector3<f64>; 4]) -> f64 {
        self.angle_change_generic(&flat(x))
    }

    /// Energy, gradient and 12×12 Hessian `2 k w (∇θ ∇θᵀ + δ ∇²θ)`, with `∇²θ` by one
    /// forward-mode pass (9 directions: θ depends on the positions relative to node 0) over the
    /// hand-derived `∇θ`, where second-order AD of the energy carried 90 numbers per operation.
    /// With `project_psd` the Hessian is replaced by its nearest PSD matrix: the hinge Hessian is
    /// indefinite whenever θ ≠ θ̄ (the δ ∇²θ term).
    pub fn energy_gradient_hessian(
        &self,
        k: f64,
        x: &[Vector3<f64>; 4],
        project_psd: bool,
    ) -> (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>) {
        let q = flat(x);
        let seeded: [DualSVec64<9>; 12] = std::array::from_fn(|i| {
            let mut d = DualSVec64::<9>::from_re(q[i]);
            if i >= 3 {
                d.eps = Derivative::derivative_generic(Const::<9>, Const::<1>, i - 3);
            }
            d
        });
        let dg = angle_gradient_generic(&seeded);
        let grad = SVector::<f64, 12>::from_fn(|i, _| dg[i].re);
        let d = self.angle_change(x);
        let kw = k * self.weight;
        // Row r of ∇²θ: ∂(∇θ)_r/∂z mapped back to the 12 positions.
        let mut h = grad * grad.transpose();
        for (r, g) in dg.iter().enumerate() {
            let row = expand_gradient(&g.eps.unwrap_generic(Const::<9>, Const::<1>));
            h.set_row(r, &(h.row(r) + row.transpose() * d));
        }
        // ∇²θ is symmetric; its forward-mode columns are so to round-off, made exactly so here.
        let mut h = (h + h.transpose()) * kw;
        let e = kw * d * d;
        let g = grad * (2.0 * kw * d);
        if project_psd {
            crate::energy::project_psd(&mut h);
        }
        (e, g, h)
    }
}

impl HingeElement {
    /// θ − θ̄ wrapped to (−π, π] (generic scalar).
    pub fn angle_change_generic<T: Scalar>(&self, q: &[T; 12]) -> T {
        self.angle_change_reduced(&reduce(q))
    }

    fn angle_change_reduced<T: Scalar>(&self, z: &[T; 9]) -> T {
        let (x, y) = angle_pair_reduced(z);
        let (s, c) = self.rest_sin_cos;
        (y * c - x * s).atan2(x * c + y * s)
    }

    /// Energy, exact gradient and the Gauss–Newton Hessian 2 k w ∇θ ∇θᵀ (rank one, PSD; see the
    /// module docs). Hand-derived, no AD.
    pub fn energy_gradient_gauss_newton(
        &self,
        k: f64,
        x: &[Vector3<f64>; 4],
    ) -> (f64, SVector<f64, 12>, SMatrix<f64, 12, 12>) {
        let d = self.angle_change(x);
        let dd = angle_gradient(x);
        let kw = k * self.weight;
        (kw * d * d, dd * (2.0 * kw * d), dd * dd.transpose() * (2.0 * kw))
    }
}

/// ∇θ of the dihedral angle with respect to `[x0, x1, x2, x3]` (Bridson et al. 2003, in this
/// module's sign convention). A wing tip moving along its triangle's normal by dz turns the wing
/// by dz/h (h = |n|/|e| its height over the edge) towards the normals' side, which decreases θ:
/// ∇_{x2} θ = −|e| n1/|n1|², ∇_{x3} θ = −|e| n2/|n2|². Moving an edge vertex is, for each wing,
/// the opposite motion of the tip weighted by the tip's barycentric position along the edge,
/// s_a = (x_a − x0)·e/|e|²: ∇_{x0} θ = −(1 − s2) ∇_{x2} θ − (1 − s3) ∇_{x3} θ and
/// ∇_{x1} θ = −s2 ∇_{x2} θ − s3 ∇_{x3} θ (the four sum to 0: translation invariance).
pub fn angle_gradient(x: &[Vector3<f64>; 4]) -> SVector<f64, 12> {
    SVector::from(angle_gradient_generic(&flat(x)))
}

/// [`angle_gradient`] generic over the AD scalar (`q` = [x0, y0, z0, …, z3]).
pub fn angle_gradient_generic<T: Scalar>(q: &[T; 12]) -> [T; 12] {
    let z = reduce(q);
    let (e, d2, d3): (V3<T>, V3<T>, V3<T>) = ([z[0], z[1], z[2]], [z[3], z[4], z[5]], [z[6], z[7], z[8]]);
    let n1 = cross(e, d2);
    let n2 = cross(d3, e);
    let e2 = dot(e, e);
    let le = e2.sqrt();
    let g2 = scale(n1, -le / dot(n1, n1));
    let g3 = scale(n2, -le / dot(n2, n2));
    let (s2, s3) = (dot(d2, e) / e2, dot(d3, e) / e2);
    let mut g = [T::from(0.0); 12];
    for k in 0..3 {
        g[k] = -g2[k] * (-s2 + 1.0) - g3[k] * (-s3 + 1.0);
        g[3 + k] = -g2[k] * s2 - g3[k] * s3;
        g[6 + k] = g2[k];
        g[9 + k] = g3[k];
    }
    g
}

/// The signed dihedral angle θ ∈ (−π, π] of a hinge `[x0, x1, x2, x3]` (module docs).
pub fn dihedral_angle(x: &[Vector3<f64>; 4]) -> f64 {
    let (c, s) = angle_pair(&flat(x));
    s.atan2(c)
}

#[inline]
fn flat(x: &[Vector3<f64>; 4]) -> [f64; 12] {
    std::array::from_fn(|i| x[i / 3][i % 3])
}
