//! Nodal contact detection (`contact::nodal`): CCD against dense sampling of the motion on
//! thousands of random trajectories (generic, tunnelling, grazing, parallel, degenerate), the
//! global time of impact against a brute-force loop over all primitive pairs, and
//! thread-count independence of proximity and CCD on a folded cloth with rods.

#[path = "support/nodal_scenes.rs"]
mod nodal_scenes;
#[path = "support/rng.rs"]
#[allow(dead_code)]
mod rng;

use fricsim::contact::nodal::proximity::{point_triangle_distance2, segment_segment};
use fricsim::contact::nodal::{
    CcdOptions, ContactMesh, ContactMeshBuilder, Detector, Impact, PairKind, edge_edge_toi, vertex_triangle_toi,
};
use nalgebra::Vector3;
use nodal_scenes::{folded_cloth, rod_bundle};
use rng::Rng;

type Nodes = [[f64; 3]; 4];

fn arr(v: Vector3<f64>) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn at(x0: &Nodes, x1: &Nodes, t: f64) -> Nodes {
    let mut x = *x0;
    for i in 0..4 {
        for k in 0..3 {
            x[i][k] = x0[i][k] + t * (x1[i][k] - x0[i][k]);
        }
    }
    x
}

fn vt_dist(x: &Nodes) -> f64 {
    point_triangle_distance2(x[0], &[x[1], x[2], x[3]]).sqrt()
}

fn ee_dist(x: &Nodes) -> f64 {
    segment_segment(x[0], x[1], x[2], x[3]).2.sqrt()
}

/// One trajectory: start, end, thickness and times worth sampling besides the uniform grid (the
/// instant of closest approach of constructed cases, which a grid would straddle).
struct Case {
    x0: Nodes,
    x1: Nodes,
    thickness: f64,
    critical: Option<f64>,
    /// The construction guarantees the pair comes closer than the thickness.
    must_hit: bool,
}

#[derive(Default, Debug)]
struct Tally {
    hits: usize,
    sampled_violations: usize,
}

/// Check one CCD answer against dense sampling: an impact no later than the first sampled
/// violation of the effective thickness, and no violation sampled before the reported time.
fn check(case: &Case, toi: Option<f64>, dist: fn(&Nodes) -> f64, tally: &mut Tally, label: &str) {
    const SAMPLES: usize = 2000;
    let mut times: Vec<f64> = (0..=SAMPLES).map(|k| k as f64 / SAMPLES as f64).collect();
    times.extend(case.critical);
    if let Some(t) = toi {
        times.push(t);
    }
    times.sort_by(f64::total_cmp);
    let d0 = dist(&case.x0);
    // The thickness CCD enforces (see contact::nodal::ccd): the full one unless the pair starts
    // inside it.
    let xi = if d0 > case.thickness { case.thickness } else { 0.0 };
    let first_violation = times.iter().copied().find(|&t| dist(&at(&case.x0, &case.x1, t)) <= xi);
    if let Some(tv) = first_violation {
        tally.sampled_violations += 1;
        let t = toi.unwrap_or_else(|| panic!("{label}: missed an impact at t = {tv} (d0 = {d0}, xi = {xi})"));
        assert!(t <= tv, "{label}: impact reported at {t}, after the sampled one at {tv}");
    }
    // Constructed impacts count when the pair starts outside its thickness (a grazing vertex may
    // start above the face, inside it, where only crossing is checked).
    assert!(!(case.must_hit && d0 > case.thickness) || toi.is_some(), "{label}: constructed impact missed");
    if let Some(t) = toi {
        tally.hits += 1;
        for &s in times.iter().take_while(|&&s| s <= t) {
            let d = dist(&at(&case.x0, &case.x1, s));
            assert!(d > xi, "{label}: distance {d} <= {xi} at {s}, before the reported impact at {t}");
        }
    }
}

fn unit(rng: &mut Rng) -> Vector3<f64> {
    loop {
        let v = rng.vec3();
        if v.norm() > 0.1 {
            return v.normalize();
        }
    }
}

/// Random point in a triangle (barycentric weights bounded away from 0).
fn inside(t: &[Vector3<f64>; 3], rng: &mut Rng) -> Vector3<f64> {
    let w = [1.1 + rng.sym(), 1.1 + rng.sym(), 1.1 + rng.sym()];
    let s = w[0] + w[1] + w[2];
    (t[0] * w[0] + t[1] * w[1] + t[2] * w[2]) / s
}

/// A common random translation of every node (distances do not change).
fn translate(x0: &mut Nodes, x1: &mut Nodes, rng: &mut Rng) {
    let (a, b) = (rng.vec3() * 2.0, rng.vec3() * 2.0);
    for i in 0..4 {
        x0[i] = arr(Vector3::from(x0[i]) + a);
        x1[i] = arr(Vector3::from(x1[i]) + b);
    }
}

fn vertex_triangle_case(i: usize, rng: &mut Rng) -> Case {
    let tri = [rng.vec3(), rng.vec3(), rng.vec3()];
    let n = (tri[1] - tri[0]).cross(&(tri[2] - tri[0])).normalize();
    let c = inside(&tri, rng);
    let thickness = 0.05 * (rng.sym() + 1.0);
    let still = |v: [f64; 3]| -> Nodes { [v, arr(tri[0]), arr(tri[1]), arr(tri[2])] };
    let mut case = match i % 5 {
        // Generic: every node moves independently (non-rigid).
        0 => {
            let x0 = [arr(rng.vec3()), arr(tri[0]), arr(tri[1]), arr(tri[2])];
            let mut x1 = x0;
            for p in &mut x1 {
                *p = arr(Vector3::from(*p) + rng.vec3() * 1.5);
            }
            Case { x0, x1, thickness, critical: None, must_hit: false }
        }
        // Tunnelling: from just above the face to far below it in one step.
        1 => {
            let h = thickness + 0.01 + 0.1 * (rng.sym() + 1.0);
            let depth = 10f64.powf(1.0 + 2.0 * (rng.sym() + 1.0)); // 10 .. 10^5
            let x0 = still(arr(c + n * h));
            let x1 = still(arr(c - n * depth));
            Case { x0, x1, thickness, critical: Some(h / (h + depth)), must_hit: true }
        }
        // Grazing: parallel to the face at a height a relative 1e-6 above or below the thickness,
        // fast, closest over the interior point c at the critical time.
        2 | 3 => {
            let h = thickness * (1.0 + 1e-6 * rng.sym().signum()).max(1e-9);
            let w = n.cross(&unit(rng)).normalize() * (1.0 + 20.0 * (rng.sym() + 1.0));
            let tc = 0.5 + 0.4 * rng.sym();
            let x0 = still(arr(c + n * h - w * tc));
            let x1 = still(arr(c + n * h + w * (1.0 - tc)));
            Case { x0, x1, thickness, critical: Some(tc), must_hit: h < thickness }
        }
        // Degenerate: a collinear (zero-area) triangle swept through by the vertex.
        _ => {
            let a = rng.vec3();
            let d = unit(rng);
            let line = [a, a + d * 0.5, a + d];
            let off = d.cross(&unit(rng)).normalize();
            let x0 = [arr(line[1] + off * 0.5), arr(line[0]), arr(line[1]), arr(line[2])];
            let x1 = [arr(line[1] - off * 0.5), arr(line[0]), arr(line[1]), arr(line[2])];
            Case { x0, x1, thickness: 0.0, critical: Some(0.5), must_hit: false }
        }
    };
    if i.is_multiple_of(3) {
        translate(&mut case.x0, &mut case.x1, rng);
    }
    case
}

fn edge_edge_case(i: usize, rng: &mut Rng) -> Case {
    let thickness = 0.05 * (rng.sym() + 1.0);
    let a0 = rng.vec3();
    let da = unit(rng) * (0.5 + rng.sym().abs());
    let a1 = a0 + da;
    let mut case = match i % 6 {
        0 => {
            let x0 = [arr(a0), arr(a1), arr(rng.vec3()), arr(rng.vec3())];
            let mut x1 = x0;
            for p in &mut x1 {
                *p = arr(Vector3::from(*p) + rng.vec3() * 1.5);
            }
            Case { x0, x1, thickness, critical: None, must_hit: false }
        }
        // Crossing edges driven through each other along their common normal.
        1 => {
            let db = da.cross(&unit(rng)).normalize() * 0.8;
            let n = da.cross(&db).normalize();
            let ca = a0 + da * (0.2 + 0.3 * (rng.sym() + 1.0));
            let h = thickness + 0.01 + 0.1 * (rng.sym() + 1.0);
            let depth = 10f64.powf(1.0 + 2.0 * (rng.sym() + 1.0));
            let b = |off: f64| [arr(ca + n * off - db * 0.4), arr(ca + n * off + db * 0.6)];
            let (b0, b1) = (b(h), b(-depth));
            Case {
                x0: [arr(a0), arr(a1), b0[0], b0[1]],
                x1: [arr(a0), arr(a1), b1[0], b1[1]],
                thickness,
                critical: Some(h / (h + depth)),
                must_hit: true,
            }
        }
        // Grazing: a crossing edge sliding along `a` at a constant distance just above or below
        // the thickness, with interior closest points at the critical time.
        2 | 3 => {
            let db = da.cross(&unit(rng)).normalize() * 0.8;
            let n = da.cross(&db).normalize();
            let h = thickness * (1.0 + 1e-6 * rng.sym().signum()).max(1e-9);
            let tc = 0.5 + 0.4 * rng.sym();
            let ca = a0 + da * 0.5;
            let speed = da * (3.0 + 10.0 * (rng.sym() + 1.0));
            let b =
                |t: f64| [arr(ca + n * h - db * 0.5 + speed * (t - tc)), arr(ca + n * h + db * 0.5 + speed * (t - tc))];
            let (b0, b1) = (b(0.0), b(1.0));
            Case {
                x0: [arr(a0), arr(a1), b0[0], b0[1]],
                x1: [arr(a0), arr(a1), b1[0], b1[1]],
                thickness,
                critical: Some(tc),
                must_hit: h < thickness,
            }
        }
        // Parallel edges (exactly, or within 1e-9 rad) passing through each other sideways
        // while sliding along their length.
        4 => {
            let n = da.cross(&unit(rng)).normalize();
            let tilt = if i % 12 == 4 { 0.0 } else { 1e-9 };
            let off = 0.3 * (rng.sym() + 1.0) + thickness + 0.01;
            let slide = da * rng.sym();
            let b0 = [a0 + n * off + da * 0.3, a1 + n * (off + tilt) + da * 0.3];
            let b1 = [a0 - n * off + slide, a1 - n * (off - tilt) + slide];
            Case {
                x0: [arr(a0), arr(a1), arr(b0[0]), arr(b0[1])],
                x1: [arr(a0), arr(a1), arr(b1[0]), arr(b1[1])],
                thickness,
                critical: Some(0.5),
                must_hit: true,
            }
        }
        // Degenerate: a zero-length edge (a point) crossing `a`.
        _ => {
            let n = da.cross(&unit(rng)).normalize();
            let p = a0 + da * 0.5;
            Case {
                x0: [arr(a0), arr(a1), arr(p + n * 0.4), arr(p + n * 0.4)],
                x1: [arr(a0), arr(a1), arr(p - n * 0.4), arr(p - n * 0.4)],
                thickness,
                critical: Some(0.5),
                must_hit: true,
            }
        }
    };
    if i.is_multiple_of(4) {
        translate(&mut case.x0, &mut case.x1, rng);
    }
    case
}

#[test]
fn ccd_vertex_triangle_never_misses_sampled_impacts() {
    let mut rng = Rng(0x5eed_0001);
    let opts = CcdOptions::default();
    let mut tally = Tally::default();
    for i in 0..5000 {
        let case = vertex_triangle_case(i, &mut rng);
        let toi = vertex_triangle_toi(&case.x0, &case.x1, case.thickness, &opts);
        check(&case, toi, vt_dist, &mut tally, &format!("vertex-triangle case {i}"));
    }
    // Every class contributes: at least the tunnelling and grazing-below cases hit, and plenty of
    // trajectories stay clear.
    assert!(tally.sampled_violations > 1500 && tally.hits < 4500, "{tally:?}");
}

#[test]
fn ccd_edge_edge_never_misses_sampled_impacts() {
    let mut rng = Rng(0x5eed_0002);
    let opts = CcdOptions::default();
    let mut tally = Tally::default();
    for i in 0..6000 {
        let case = edge_edge_case(i, &mut rng);
        let toi = edge_edge_toi(&case.x0, &case.x1, case.thickness, &opts);
        check(&case, toi, ee_dist, &mut tally, &format!("edge-edge case {i}"));
    }
    assert!(tally.sampled_violations > 2000 && tally.hits < 5500, "{tally:?}");
}

/// A folded cloth (self-contact) with a bundle of rods standing on it; `x1` folds the cloth
/// further (the upper half goes through the lower half) and drops the rods through it.
fn falling_scene(n: usize, rods: usize, segments: usize, rng: &mut Rng) -> (ContactMesh, Vec<f64>, Vec<f64>) {
    let (tris, mut x0) = folded_cloth(n, 1.0, 0.02, 1e-3 / n as f64, rng);
    let cloth_nodes = x0.len() / 3;
    let (rod_nodes, xr) = rod_bundle(rods, segments, 0.2, 0.01, 0.005, cloth_nodes, rng);
    // Rods stand above the middle of the cloth.
    x0.extend(xr.chunks(3).flat_map(|p| [p[0] + 0.3, p[1] + 0.3, p[2] + 0.03]));
    let mut b = ContactMeshBuilder::new();
    let (cloth, hair) = (b.add_object(true), b.add_object(true));
    b.add_surface(cloth, &tris, 0.002).unwrap();
    for r in &rod_nodes {
        b.add_rod(hair, r, 0.001).unwrap();
    }
    let mesh = b.build().unwrap();
    let mut x1 = x0.clone();
    for (i, p) in x1.chunks_mut(3).enumerate() {
        let dz = if i >= cloth_nodes {
            -0.1
        } else if p[2] > 0.015 {
            -0.04
        } else {
            0.0
        };
        p[0] += 0.002 * rng.sym();
        p[1] += 0.002 * rng.sym();
        p[2] += dz + 0.002 * rng.sym();
    }
    (mesh, x0, x1)
}

fn node(x: &[f64], n: usize) -> [f64; 3] {
    [x[3 * n], x[3 * n + 1], x[3 * n + 2]]
}

#[test]
fn global_toi_matches_brute_force_and_is_safe() {
    let mut rng = Rng(0x5eed_0003);
    // Impacts are kept within 1 mm of contact, so the detector must agree with a loop over all
    // pairs (see Detector::ccd).
    let opts = CcdOptions { max_separation: 1e-3, ..CcdOptions::default() };
    let (mesh, x0, x1) = falling_scene(16, 24, 12, &mut rng);
    let report = Detector::new().ccd(&mesh, &x0, &x1, &opts).unwrap();
    // Brute force over every primitive pair.
    let mut brute = Vec::new();
    for v in 0..mesh.vertex_count() as u32 {
        for t in 0..mesh.triangle_count() as u32 {
            if mesh.vertex_triangle_excluded(v, t) {
                continue;
            }
            let tri = mesh.triangle(t);
            let nodes = [mesh.vertex(v), tri[0], tri[1], tri[2]];
            let th = mesh.vertex_radius(v) + mesh.triangle_radius(t);
            if let Some(toi) =
                vertex_triangle_toi(&nodes.map(|n| node(&x0, n)), &nodes.map(|n| node(&x1, n)), th, &opts)
            {
                brute.push(Impact { kind: PairKind::VertexTriangle, first: v, second: t, nodes, toi });
            }
        }
    }
    for a in 0..mesh.edge_count() as u32 {
        for b in a + 1..mesh.edge_count() as u32 {
            if mesh.edge_edge_excluded(a, b) {
                continue;
            }
            let (ea, eb) = (mesh.edge(a), mesh.edge(b));
            let nodes = [ea[0], ea[1], eb[0], eb[1]];
            let th = mesh.edge_radius(a) + mesh.edge_radius(b);
            if let Some(toi) = edge_edge_toi(&nodes.map(|n| node(&x0, n)), &nodes.map(|n| node(&x1, n)), th, &opts) {
                brute.push(Impact { kind: PairKind::EdgeEdge, first: a, second: b, nodes, toi });
            }
        }
    }
    assert_eq!(report.impacts, brute);
    assert!(
        report.impacts.len() > 100 && report.toi > 0.0 && report.toi < 1.0,
        "{} impacts, toi {}",
        brute.len(),
        report.toi
    );
    assert_eq!(report.toi, brute.iter().map(|i| i.toi).fold(1.0, f64::min));
    // Moving every node by the safe fraction leaves every pair that started apart still apart.
    let xt: Vec<f64> = x0.iter().zip(&x1).map(|(a, b)| a + report.toi * (b - a)).collect();
    for v in 0..mesh.vertex_count() as u32 {
        for t in 0..mesh.triangle_count() as u32 {
            let th = mesh.vertex_radius(v) + mesh.triangle_radius(t);
            let tri = mesh.triangle(t);
            let d = |x: &[f64]| point_triangle_distance2(node(x, mesh.vertex(v)), &tri.map(|n| node(x, n))).sqrt();
            if !mesh.vertex_triangle_excluded(v, t) && d(&x0) > th {
                assert!(d(&xt) > th, "vertex {v} / triangle {t}");
            }
        }
    }
    for a in 0..mesh.edge_count() as u32 {
        for b in a + 1..mesh.edge_count() as u32 {
            let th = mesh.edge_radius(a) + mesh.edge_radius(b);
            let (ea, eb) = (mesh.edge(a), mesh.edge(b));
            let d =
                |x: &[f64]| segment_segment(node(x, ea[0]), node(x, ea[1]), node(x, eb[0]), node(x, eb[1])).2.sqrt();
            if !mesh.edge_edge_excluded(a, b) && d(&x0) > th {
                assert!(d(&xt) > th, "edges {a} / {b}");
            }
        }
    }
}

#[test]
fn detection_is_identical_for_one_and_two_threads() {
    let mut rng = Rng(0x5eed_0004);
    // Large enough for parallel tree builds and many traversal tasks.
    let (mesh, x0, x1) = falling_scene(70, 300, 20, &mut rng);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut d = Detector::new();
            let contacts = d.proximity(&mesh, &x0, 0.002).unwrap();
            let report = d.ccd(&mesh, &x0, &x1, &CcdOptions::default()).unwrap();
            (contacts, report)
        })
    };
    let (c1, r1) = run(1);
    let (c2, r2) = run(2);
    assert!(c1.len() > 500 && r1.impacts.len() > 1000, "{} contacts, {} impacts", c1.len(), r1.impacts.len());
    assert_eq!(c1, c2);
    assert_eq!(r1, r2);
}
