//! Greedy colouring of contacts for the deterministic parallel Gauss–Seidel sweep (004 §6.2.8):
//! contacts that share a degree of freedom never share a colour, at most `max_colors` colours are
//! used, and the contacts that do not fit are swept sequentially afterwards (the tail).

/// Colour classes (each a list of contacts in increasing order) and the sequential tail.
#[derive(Clone, Debug, Default)]
pub struct Coloring {
    pub colors: Vec<Vec<usize>>,
    pub tail: Vec<usize>,
}

/// `dofs(c)` lists the degrees of freedom contact `c` touches; `ndof` bounds them.
pub fn greedy<'a>(nc: usize, ndof: usize, max_colors: usize, dofs: impl Fn(usize) -> &'a [usize]) -> Coloring {
    greedy_blocks(nc, ndof, max_colors, nc.max(1), dofs).pop().unwrap_or_default()
}

/// Colour the contacts in consecutive blocks of `block` contacts, each block on its own
/// (contacts `b * block ..`, numbered globally). Sweeping block after block, each one colour by
/// colour then its tail, is still a Gauss–Seidel sweep in one fixed order, and a block's
/// colours span only the part of the velocities its contacts touch (which stays in cache)
/// instead of all of them.
pub fn greedy_blocks<'a>(
    nc: usize,
    ndof: usize,
    max_colors: usize,
    block: usize,
    dofs: impl Fn(usize) -> &'a [usize],
) -> Vec<Coloring> {
    // used[dof] is a bitmask of the colours already touching that dof (max_colors <= 64); it is
    // cleared after each block over the dofs the block touched.
    let max_colors = max_colors.min(64);
    let mut used = vec![0u64; ndof];
    let mut out = Vec::with_capacity(nc.div_ceil(block.max(1)));
    for start in (0..nc).step_by(block.max(1)) {
        let end = nc.min(start + block.max(1));
        let mut col = Coloring { colors: vec![Vec::new(); max_colors], tail: Vec::new() };
        for c in start..end {
            let mask = dofs(c).iter().fold(0u64, |m, &d| m | used[d]);
            let free = (!mask).trailing_zeros() as usize;
            if free < max_colors {
                col.colors[free].push(c);
                for &d in dofs(c) {
                    used[d] |= 1 << free;
                }
            } else {
                col.tail.push(c);
            }
        }
        for c in start..end {
            for &d in dofs(c) {
                used[d] = 0;
            }
        }
        col.colors.retain(|v| !v.is_empty());
        out.push(col);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn no_shared_dof_within_a_colour() {
        // A chain: contact c touches dofs c and c+1, so two colours suffice.
        let d: Vec<[usize; 2]> = (0..10).map(|c| [c, c + 1]).collect();
        let col = super::greedy(10, 11, 8, |c| &d[c][..]);
        assert_eq!(col.colors.len(), 2);
        assert!(col.tail.is_empty());
        // A star: all contacts share dof 0, so with 3 colours, 7 go to the tail.
        let s: Vec<[usize; 2]> = (0..10).map(|c| [0, c + 1]).collect();
        let col = super::greedy(10, 11, 3, |c| &s[c][..]);
        assert_eq!(col.colors.iter().map(Vec::len).sum::<usize>(), 3);
        assert_eq!(col.tail.len(), 7);
    }

    #[test]
    fn blocks_are_coloured_independently() {
        // The star in blocks of 4 contacts: each block uses its 3 colours afresh, so each block
        // of 4 sends exactly one contact to its tail (the last block has 2 contacts, no tail).
        let s: Vec<[usize; 2]> = (0..10).map(|c| [0, c + 1]).collect();
        let cols = super::greedy_blocks(10, 11, 3, 4, |c| &s[c][..]);
        assert_eq!(cols.len(), 3);
        assert_eq!(cols.iter().map(|c| c.tail.len()).collect::<Vec<_>>(), [1, 1, 0]);
        assert_eq!(cols[1].colors, [vec![4], vec![5], vec![6]]);
        assert_eq!(cols[1].tail, [7]);
    }
}
