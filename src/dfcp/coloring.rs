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
    // used[dof] is a bitmask of the colours already touching that dof (max_colors <= 64).
    let max_colors = max_colors.min(64);
    let mut used = vec![0u64; ndof];
    let mut out = Coloring { colors: vec![Vec::new(); max_colors], tail: Vec::new() };
    for c in 0..nc {
        let mask = dofs(c).iter().fold(0u64, |m, &d| m | used[d]);
        let free = (!mask).trailing_zeros() as usize;
        if free < max_colors {
            out.colors[free].push(c);
            for &d in dofs(c) {
                used[d] |= 1 << free;
            }
        } else {
            out.tail.push(c);
        }
    }
    out.colors.retain(|v| !v.is_empty());
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
}
