//! Axis-aligned bounding boxes in f64, rounded outwards so that a box always contains the exact
//! (real-number) region it is meant to bound.

/// An axis-aligned box `[min, max]`. The empty box has `min > max` and overlaps nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb { min: [f64::INFINITY; 3], max: [f64::NEG_INFINITY; 3] };

    pub fn from_point(p: [f64; 3]) -> Aabb {
        Aabb { min: p, max: p }
    }

    /// Smallest box holding `self` and `p`.
    #[inline]
    pub fn grow(&mut self, p: [f64; 3]) {
        for (k, &c) in p.iter().enumerate() {
            self.min[k] = self.min[k].min(c);
            self.max[k] = self.max[k].max(c);
        }
    }

    #[inline]
    pub fn union(&self, o: &Aabb) -> Aabb {
        let mut u = *self;
        for k in 0..3 {
            u.min[k] = u.min[k].min(o.min[k]);
            u.max[k] = u.max[k].max(o.max[k]);
        }
        u
    }

    /// The box grown by `r >= 0` on every side. `min - r` and `max + r` are each moved one ulp
    /// outwards after rounding, so the result contains the exact inflated box: two primitives at a
    /// distance of exactly their summed inflations still overlap.
    #[inline]
    pub fn inflated(&self, r: f64) -> Aabb {
        Aabb { min: self.min.map(|m| (m - r).next_down()), max: self.max.map(|m| (m + r).next_up()) }
    }

    /// Closed-interval overlap on every axis (touching boxes overlap). NaN compares false, so a
    /// box with NaN bounds overlaps nothing; callers check positions for finiteness first.
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min[0] <= o.max[0]
            && o.min[0] <= self.max[0]
            && self.min[1] <= o.max[1]
            && o.min[1] <= self.max[1]
            && self.min[2] <= o.max[2]
            && o.min[2] <= self.max[2]
    }

    #[inline]
    pub fn centroid(&self) -> [f64; 3] {
        [0, 1, 2].map(|k| 0.5 * (self.min[k] + self.max[k]))
    }

    /// Half the surface area (the SAH only compares areas, so the factor 2 is dropped). Zero for
    /// the empty box.
    #[inline]
    pub fn half_area(&self) -> f64 {
        let d = [0, 1, 2].map(|k| (self.max[k] - self.min[k]).max(0.0));
        d[0] * d[1] + d[1] * d[2] + d[2] * d[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflation_contains_exact_box_and_touching_boxes_overlap() {
        let a = Aabb::from_point([0.1, 0.2, 0.3]).inflated(0.7);
        // One ulp beyond the rounded sums, whichever way they rounded.
        assert!(a.min[0] < 0.1 - 0.7 && a.max[0] > 0.1 + 0.7);
        let b = Aabb::from_point([1.5, 0.2, 0.3]).inflated(0.7);
        assert!(a.overlaps(&b), "boxes at distance exactly 0.7 + 0.7 must overlap");
        let c = Aabb::from_point([1.5001, 0.2, 0.3]).inflated(0.7);
        assert!(!a.overlaps(&c));
        assert!(!Aabb::EMPTY.overlaps(&a));
        assert_eq!(Aabb::EMPTY.half_area(), 0.0);
        assert_eq!(a.union(&Aabb::EMPTY), a);
        assert_eq!(
            Aabb::from_point([0.0, 2.0, 4.0]).union(&Aabb::from_point([2.0, 0.0, 0.0])).centroid(),
            [1.0, 1.0, 2.0]
        );
    }
}
