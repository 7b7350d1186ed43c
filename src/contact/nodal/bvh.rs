//! A bounding-volume hierarchy over primitive boxes, stored flat, with refit and parallel
//! overlap queries (one tree against itself, or two trees).
//!
//! # Layout
//! Nodes sit in one `Vec` in depth-first pre-order: a node's left child is the next node and its
//! right child is stored by index, so every subtree is one contiguous slice (the refit splits it
//! with `split_at_mut` and recurses in parallel). Primitives are permuted into leaf order once at
//! build; the tree keeps its own copy of their boxes in that order so leaf tests read memory
//! sequentially.
//!
//! # Costs (n primitives, k overlapping pairs)
//! - **build**: binned SAH (16 bins on the longest centroid axis, leaves of at most 4 primitives)
//!   is O(n log n); subtrees above 8192 primitives are built on separate rayon tasks. Past depth
//!   48 splits fall back to the median, so the depth stays below 48 + log2 n whatever the input.
//! - **refit**: O(n), parallel; the topology (and so the result of queries, which is exact) does
//!   not change, only the boxes. A tree refitted after large relative motion stays correct but
//!   gets slow; [`Bvh::degradation`] measures that and the caller rebuilds when it grows.
//! - **query**: O(n log n + k) for primitives of similar size spread over a surface or a curve
//!   (each primitive meets O(1) others); O(n²) in the degenerate case where all boxes overlap.
//!   The traversal is split into independent tasks of about 2048 primitives run with rayon; the
//!   set of pairs does not depend on the split, and callers sort it for a thread-independent
//!   order.

use super::aabb::Aabb;
use super::mesh::NodalError;
use rayon::prelude::*;

const LEAF_SIZE: usize = 4;
const BINS: usize = 16;
/// Depth after which splits are medians: SAH can peel off a few primitives at a time (a cluster
/// plus outliers); the median bound keeps the build and refit recursion shallow.
const SAH_MAX_DEPTH: u32 = 48;
/// Subtrees covering more primitives than this are built and refitted on separate rayon tasks;
/// below it the task overhead (microseconds) exceeds the work.
const PARALLEL_PRIMITIVES: u32 = 8192;
/// Traversal tasks covering at most this many primitives (both sides) are not split further:
/// small enough to balance two to dozens of threads on a 100k-primitive query, large enough that
/// task bookkeeping is negligible.
const TASK_GRAIN: u32 = 2048;

#[derive(Debug, Clone, Copy)]
struct Node {
    aabb: Aabb,
    /// First primitive (position in leaf order) covered by the subtree.
    first: u32,
    /// Number of primitives covered by the subtree.
    count: u32,
    /// Index of the right child; 0 marks a leaf (the root is never a right child).
    right: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.right == 0
    }
    fn range(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }
}

/// A BVH over a fixed set of primitive boxes (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Bvh {
    nodes: Vec<Node>,
    /// Primitive index at each leaf position.
    order: Vec<u32>,
    /// Primitive boxes in leaf order.
    boxes: Vec<Aabb>,
    /// Summed node area over root area right after the build (see [`Bvh::degradation`]).
    built_cost: f64,
}

#[derive(Debug, Clone, Copy)]
enum Task {
    /// Pairs inside one subtree (self query only).
    Within(u32),
    /// Pairs between a subtree of the first tree and one of the second.
    Between(u32, u32),
}

impl Bvh {
    /// Build over `boxes` (primitive `i` has box `boxes[i]`).
    pub fn build(boxes: &[Aabb]) -> Result<Bvh, NodalError> {
        let n = boxes.len();
        if n >= u32::MAX as usize / 2 {
            return Err(NodalError::TooMany { what: "primitives in one tree", count: n });
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        let centroids: Vec<[f64; 3]> = boxes.par_iter().map(Aabb::centroid).collect();
        let mut nodes = Vec::with_capacity(2 * n.div_ceil(LEAF_SIZE));
        if n > 0 {
            build_subtree(&mut order, 0, 0, boxes, &centroids, &mut nodes);
        }
        let boxes = order.par_iter().map(|&i| boxes[i as usize]).collect();
        let mut bvh = Bvh { nodes, order, boxes, built_cost: 0.0 };
        bvh.built_cost = bvh.relative_cost();
        Ok(bvh)
    }

    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.order.len()
    }
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Replace the primitive boxes (same primitives, same indexing) and recompute node boxes
    /// bottom-up, keeping the topology.
    pub fn refit(&mut self, boxes: &[Aabb]) -> Result<(), NodalError> {
        if boxes.len() != self.order.len() {
            return Err(NodalError::LengthMismatch { start: self.order.len(), end: boxes.len() });
        }
        self.boxes.par_iter_mut().zip(self.order.par_iter()).for_each(|(b, &i)| *b = boxes[i as usize]);
        if !self.nodes.is_empty() {
            refit_subtree(&mut self.nodes, 0, &self.boxes);
        }
        Ok(())
    }

    /// Summed node area relative to the root's, divided by the same ratio at build time: 1 after
    /// a build, growing as refits stretch nodes over primitives that moved apart. Query cost grows
    /// roughly in proportion, so rebuilding past about 2 pays for itself.
    pub fn degradation(&self) -> f64 {
        if self.built_cost > 0.0 { self.relative_cost() / self.built_cost } else { 1.0 }
    }

    fn relative_cost(&self) -> f64 {
        let Some(root) = self.nodes.first() else { return 0.0 };
        let area = root.aabb.half_area();
        if area > 0.0 { self.nodes.iter().map(|n| n.aabb.half_area()).sum::<f64>() / area } else { 0.0 }
    }

    /// Call `visit(i, j, out)` once for every unordered pair of distinct primitives whose boxes
    /// overlap (in either order), in parallel, and gather what the calls push. The order of the
    /// result depends on scheduling: sort it.
    pub fn self_overlaps<T, F>(&self, visit: F) -> Vec<T>
    where
        T: Send,
        F: Fn(u32, u32, &mut Vec<T>) + Sync,
    {
        if self.nodes.is_empty() {
            return Vec::new();
        }
        run_tasks(self, self, split_tasks(self, self, Task::Within(0)), &visit)
    }

    /// Call `visit(i, j, out)` for every primitive `i` of `self` and `j` of `other` whose boxes
    /// overlap, as [`Self::self_overlaps`].
    pub fn overlaps_with<T, F>(&self, other: &Bvh, visit: F) -> Vec<T>
    where
        T: Send,
        F: Fn(u32, u32, &mut Vec<T>) + Sync,
    {
        if self.nodes.is_empty() || other.nodes.is_empty() {
            return Vec::new();
        }
        run_tasks(self, other, split_tasks(self, other, Task::Between(0, 0)), &visit)
    }

    /// Sorted overlapping pairs `(i, j)`, `i < j`, within this tree.
    pub fn self_pairs(&self) -> Vec<(u32, u32)> {
        let mut p = self.self_overlaps(|i, j, out| out.push((i.min(j), i.max(j))));
        p.par_sort_unstable();
        p
    }

    /// Sorted overlapping pairs `(i in self, j in other)`.
    pub fn pairs_with(&self, other: &Bvh) -> Vec<(u32, u32)> {
        let mut p = self.overlaps_with(other, |i, j, out| out.push((i, j)));
        p.par_sort_unstable();
        p
    }
}

/// Build the subtree over `order` (primitives at leaf positions `first..`) into `out`, with child
/// indices relative to the start of `out`.
fn build_subtree(
    order: &mut [u32],
    first: u32,
    depth: u32,
    boxes: &[Aabb],
    centroids: &[[f64; 3]],
    out: &mut Vec<Node>,
) {
    let me = out.len();
    let aabb = order.iter().fold(Aabb::EMPTY, |b, &i| b.union(&boxes[i as usize]));
    let count = order.len() as u32;
    out.push(Node { aabb, first, count, right: 0 });
    if order.len() <= LEAF_SIZE {
        return;
    }
    let mid = split(order, depth, boxes, centroids);
    let (left, right) = order.split_at_mut(mid);
    let right_first = first + mid as u32;
    if count > PARALLEL_PRIMITIVES {
        let (l, r) = rayon::join(
            || {
                let mut v = Vec::new();
                build_subtree(left, first, depth + 1, boxes, centroids, &mut v);
                v
            },
            || {
                let mut v = Vec::new();
                build_subtree(right, right_first, depth + 1, boxes, centroids, &mut v);
                v
            },
        );
        append_shifted(out, l);
        out[me].right = out.len() as u32;
        append_shifted(out, r);
    } else {
        build_subtree(left, first, depth + 1, boxes, centroids, out);
        out[me].right = out.len() as u32;
        build_subtree(right, right_first, depth + 1, boxes, centroids, out);
    }
}

/// Append nodes built in a separate vector, shifting their child indices to their new place.
fn append_shifted(out: &mut Vec<Node>, sub: Vec<Node>) {
    let offset = out.len() as u32;
    out.extend(sub.into_iter().map(|mut n| {
        if !n.is_leaf() {
            n.right += offset;
        }
        n
    }));
}

/// Reorder `order` into two non-empty halves and return the size of the first: the best of the
/// binned SAH candidates on the longest centroid axis, or the median past [`SAH_MAX_DEPTH`] or
/// when all centroids coincide.
fn split(order: &mut [u32], depth: u32, boxes: &[Aabb], centroids: &[[f64; 3]]) -> usize {
    let cb = order.iter().fold(Aabb::EMPTY, |mut b, &i| {
        b.grow(centroids[i as usize]);
        b
    });
    let extent = [0, 1, 2].map(|k| cb.max[k] - cb.min[k]);
    let axis = if extent[0] >= extent[1] && extent[0] >= extent[2] {
        0
    } else if extent[1] >= extent[2] {
        1
    } else {
        2
    };
    let median = |order: &mut [u32]| {
        let mid = order.len() / 2;
        order.select_nth_unstable_by(mid, |&a, &b| {
            centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis]).then(a.cmp(&b))
        });
        mid
    };
    if extent[axis].is_nan() || extent[axis] <= 0.0 || depth >= SAH_MAX_DEPTH {
        return median(order);
    }
    let (lo, scale) = (cb.min[axis], BINS as f64 / extent[axis]);
    let bin = |i: u32| (((centroids[i as usize][axis] - lo) * scale) as usize).min(BINS - 1);
    let mut counts = [0usize; BINS];
    let mut bounds = [Aabb::EMPTY; BINS];
    for &i in order.iter() {
        let b = bin(i);
        counts[b] += 1;
        bounds[b] = bounds[b].union(&boxes[i as usize]);
    }
    // Sweep from the right for suffix areas, then from the left for the cost of each split
    // "bins 0..=k | bins k+1..". Bin 0 and bin BINS-1 both hold the extreme centroids, so every
    // candidate leaves both sides non-empty.
    let mut right_area = [0.0; BINS];
    let mut acc = Aabb::EMPTY;
    for k in (1..BINS).rev() {
        acc = acc.union(&bounds[k]);
        right_area[k] = acc.half_area();
    }
    let (mut best, mut best_cost) = (0, f64::INFINITY);
    let (mut left, mut left_count) = (Aabb::EMPTY, 0);
    for k in 0..BINS - 1 {
        left = left.union(&bounds[k]);
        left_count += counts[k];
        let cost = left.half_area() * left_count as f64 + right_area[k + 1] * (order.len() - left_count) as f64;
        if cost < best_cost {
            (best, best_cost) = (k, cost);
        }
    }
    // In-place partition: primitives in bins 0..=best first.
    let (mut i, mut j) = (0, order.len());
    while i < j {
        if bin(order[i]) <= best {
            i += 1;
        } else {
            j -= 1;
            order.swap(i, j);
        }
    }
    if i == 0 || i == order.len() {
        // Unreachable by the argument above, but a median is always a valid split.
        return median(order);
    }
    i
}

/// Recompute the boxes of the subtree stored in `nodes` (its root first) from the leaf boxes.
fn refit_subtree(nodes: &mut [Node], base: u32, leaf_boxes: &[Aabb]) -> Aabb {
    let Some((head, rest)) = nodes.split_first_mut() else { return Aabb::EMPTY };
    if head.is_leaf() {
        head.aabb = leaf_boxes[head.range()].iter().fold(Aabb::EMPTY, |b, x| b.union(x));
        return head.aabb;
    }
    let (left, right) = rest.split_at_mut((head.right - base - 1) as usize);
    let (a, b) = if head.count > PARALLEL_PRIMITIVES {
        rayon::join(|| refit_subtree(left, base + 1, leaf_boxes), || refit_subtree(right, head.right, leaf_boxes))
    } else {
        (refit_subtree(left, base + 1, leaf_boxes), refit_subtree(right, head.right, leaf_boxes))
    };
    head.aabb = a.union(&b);
    head.aabb
}

/// Expand the root task breadth-first until the pieces are small; drop node pairs that do not
/// overlap on the way.
fn split_tasks(a: &Bvh, b: &Bvh, root: Task) -> Vec<Task> {
    let mut pending = vec![root];
    let mut ready = Vec::new();
    while let Some(task) = pending.pop() {
        match task {
            Task::Within(n) => {
                let node = a.nodes[n as usize];
                if node.is_leaf() || node.count <= TASK_GRAIN {
                    ready.push(task);
                } else {
                    pending.extend([Task::Within(n + 1), Task::Within(node.right), Task::Between(n + 1, node.right)]);
                }
            }
            Task::Between(i, j) => {
                let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
                if !na.aabb.overlaps(&nb.aabb) {
                    continue;
                }
                if na.count + nb.count <= TASK_GRAIN || (na.is_leaf() && nb.is_leaf()) {
                    ready.push(task);
                } else if descend_first(na, nb) {
                    pending.extend([Task::Between(i + 1, j), Task::Between(na.right, j)]);
                } else {
                    pending.extend([Task::Between(i, j + 1), Task::Between(i, nb.right)]);
                }
            }
        }
    }
    ready
}

/// In a node pair, open the larger box (the classic rule: it shrinks the overlap test fastest).
fn descend_first(na: &Node, nb: &Node) -> bool {
    nb.is_leaf() || (!na.is_leaf() && na.aabb.half_area() >= nb.aabb.half_area())
}

fn run_tasks<T, F>(a: &Bvh, b: &Bvh, tasks: Vec<Task>, visit: &F) -> Vec<T>
where
    T: Send,
    F: Fn(u32, u32, &mut Vec<T>) + Sync,
{
    let parts: Vec<Vec<T>> = tasks
        .par_iter()
        .fold(
            || (Vec::new(), Vec::new()),
            |(mut out, mut stack), &task| {
                traverse(a, b, task, &mut stack, &mut out, visit);
                (out, stack)
            },
        )
        .map(|(out, _)| out)
        .collect();
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut p in parts {
        all.append(&mut p);
    }
    all
}

/// Depth-first traversal of one task with an explicit stack (reused across tasks).
fn traverse<T, F>(a: &Bvh, b: &Bvh, root: Task, stack: &mut Vec<Task>, out: &mut Vec<T>, visit: &F)
where
    F: Fn(u32, u32, &mut Vec<T>),
{
    stack.clear();
    stack.push(root);
    while let Some(task) = stack.pop() {
        match task {
            Task::Within(n) => {
                let node = a.nodes[n as usize];
                if node.is_leaf() {
                    let r = node.range();
                    for p in r.clone() {
                        for q in p + 1..r.end {
                            if a.boxes[p].overlaps(&a.boxes[q]) {
                                visit(a.order[p], a.order[q], out);
                            }
                        }
                    }
                } else {
                    stack.extend([Task::Within(n + 1), Task::Within(node.right), Task::Between(n + 1, node.right)]);
                }
            }
            Task::Between(i, j) => {
                let (na, nb) = (&a.nodes[i as usize], &b.nodes[j as usize]);
                if !na.aabb.overlaps(&nb.aabb) {
                    continue;
                }
                if na.is_leaf() && nb.is_leaf() {
                    for p in na.range() {
                        let bp = &a.boxes[p];
                        if !bp.overlaps(&nb.aabb) {
                            continue;
                        }
                        for q in nb.range() {
                            if bp.overlaps(&b.boxes[q]) {
                                visit(a.order[p], b.order[q], out);
                            }
                        }
                    }
                } else if descend_first(na, nb) {
                    stack.extend([Task::Between(i + 1, j), Task::Between(na.right, j)]);
                } else {
                    stack.extend([Task::Between(i, j + 1), Task::Between(i, nb.right)]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_rng::unit as uniform;

    /// Boxes of mixed sizes (some large, some flat, some duplicated) in the unit cube.
    fn soup(n: usize, seed: &mut u64) -> Vec<Aabb> {
        (0..n)
            .map(|i| {
                let c = [uniform(seed), uniform(seed), uniform(seed)];
                let size = if i.is_multiple_of(17) { 0.3 } else { 0.03 };
                let h = [0, 1, 2].map(|k| if i.is_multiple_of(11) && k == 2 { 0.0 } else { size * uniform(seed) });
                Aabb { min: [0, 1, 2].map(|k| c[k] - h[k]), max: [0, 1, 2].map(|k| c[k] + h[k]) }
            })
            .chain(std::iter::repeat_n(Aabb::from_point([0.5; 3]).inflated(0.01), 7))
            .collect()
    }

    fn brute_self(b: &[Aabb]) -> Vec<(u32, u32)> {
        let mut p = Vec::new();
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                if b[i].overlaps(&b[j]) {
                    p.push((i as u32, j as u32));
                }
            }
        }
        p
    }

    fn brute_cross(a: &[Aabb], b: &[Aabb]) -> Vec<(u32, u32)> {
        let mut p = Vec::new();
        for (i, ba) in a.iter().enumerate() {
            for (j, bb) in b.iter().enumerate() {
                if ba.overlaps(bb) {
                    p.push((i as u32, j as u32));
                }
            }
        }
        p
    }

    #[test]
    fn self_and_cross_pairs_match_brute_force() {
        let mut seed = 7;
        for n in [0, 1, 2, 5, 40, 3000] {
            let a = soup(n, &mut seed);
            let b = soup(n / 2 + 1, &mut seed);
            let ta = Bvh::build(&a).unwrap();
            let tb = Bvh::build(&b).unwrap();
            assert_eq!(ta.self_pairs(), brute_self(&a), "n = {n}");
            assert_eq!(ta.pairs_with(&tb), brute_cross(&a, &b), "n = {n}");
            assert_eq!(tb.pairs_with(&ta), brute_cross(&b, &a), "n = {n}");
        }
    }

    #[test]
    fn identical_boxes_and_refit() {
        // All centroids equal: median splits, every pair overlaps.
        let same = vec![Aabb::from_point([1.0, 2.0, 3.0]); 50];
        assert_eq!(Bvh::build(&same).unwrap().self_pairs().len(), 50 * 49 / 2);
        // Refit after moving every box matches a fresh build and brute force.
        let mut seed = 3;
        let a = soup(2000, &mut seed);
        let mut t = Bvh::build(&a).unwrap();
        let moved: Vec<Aabb> = a
            .iter()
            .map(|b| {
                let d = [uniform(&mut seed) - 0.5, uniform(&mut seed) - 0.5, uniform(&mut seed) - 0.5];
                Aabb { min: [0, 1, 2].map(|k| b.min[k] + d[k]), max: [0, 1, 2].map(|k| b.max[k] + d[k]) }
            })
            .collect();
        t.refit(&moved).unwrap();
        assert!(t.degradation() > 1.5, "scrambling the boxes degrades the tree: {}", t.degradation());
        assert_eq!(t.self_pairs(), brute_self(&moved));
        assert_eq!(t.self_pairs(), Bvh::build(&moved).unwrap().self_pairs());
        assert!(t.refit(&moved[1..]).is_err());
    }

    #[test]
    fn output_independent_of_thread_count() {
        let mut seed = 11;
        // Large enough for parallel build, refit and many traversal tasks.
        let a = soup(30_000, &mut seed);
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let t = Bvh::build(&a).unwrap();
                (t.order.clone(), t.self_pairs())
            })
        };
        let (o1, p1) = run(1);
        let (o2, p2) = run(2);
        assert_eq!(o1, o2, "the tree itself is deterministic");
        assert_eq!(p1, p2);
        assert!(p1.len() > 30_000);
    }
}
