//! The block distribution and what a distributed array is: a global shape and type, and the
//! dimension its elements are split along (or none: replicated, every rank holds it all).
//!
//! The rule: `n` elements over `p` ranks give the first `n mod p` ranks `n / p + 1`
//! consecutive elements each and the others `n / p`, in rank order. Blocks differ by at
//! most one element; with `n < p` the last `p - n` ranks hold none.

use crate::sluice_sys::{dtype_name, sl_dtype};

/// Rank `index`'s block of `n` elements over `parts` ranks: (first element, count).
pub fn block(n: i64, parts: i32, index: i32) -> (i64, i64) {
    let p = i64::from(parts);
    let i = i64::from(index);
    let (base, extra) = (n / p, n % p);
    (i * base + i.min(extra), base + i64::from(i < extra))
}

/// The rank whose block holds element `j` (`0 <= j < n`).
pub fn owner(n: i64, parts: i32, j: i64) -> i32 {
    let p = i64::from(parts);
    let (base, extra) = (n / p, n % p);
    let long = extra * (base + 1);
    (if j < long { j / (base + 1) } else { extra + (j - long) / base }) as i32
}

#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    pub dtype: sl_dtype,
    /// The global shape.
    pub dims: Vec<i64>,
    /// The dimension split over the ranks; `None`: replicated.
    pub dist: Option<usize>,
}

impl Meta {
    /// This rank's block along the distributed dimension (all of it when replicated).
    pub fn block(&self, size: i32, rank: i32) -> (i64, i64) {
        match self.dist {
            Some(d) => block(self.dims[d], size, rank),
            None => (0, 0),
        }
    }

    /// The shape of rank `rank`'s part.
    pub fn local_dims(&self, size: i32, rank: i32) -> Vec<i64> {
        let mut dims = self.dims.clone();
        if let Some(d) = self.dist {
            dims[d] = self.block(size, rank).1;
        }
        dims
    }

    /// `self`'s local shape with `len` elements along the distributed dimension.
    pub fn with_len(&self, len: i64) -> Vec<i64> {
        let mut dims = self.dims.clone();
        if let Some(d) = self.dist {
            dims[d] = len;
        }
        dims
    }

    /// E.g. "f64 [100, 50] split along dim 0" or "f32 [3] replicated".
    pub fn describe(&self) -> String {
        let how = match self.dist {
            Some(d) => format!("split along dim {d}"),
            None => "replicated".into(),
        };
        format!("{} {:?} {how}", dtype_name(self.dtype), self.dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_in_order_and_differ_by_at_most_one() {
        for n in 0..40i64 {
            for p in 1..9i32 {
                let mut next = 0;
                let counts: Vec<i64> = (0..p).map(|r| block(n, p, r).1).collect();
                for r in 0..p {
                    let (s, c) = block(n, p, r);
                    assert_eq!(s, next, "n {n} p {p} rank {r}");
                    for j in s..s + c {
                        assert_eq!(owner(n, p, j), r, "n {n} p {p} element {j}");
                    }
                    next += c;
                }
                assert_eq!(next, n);
                assert!(counts.iter().max().unwrap() - counts.iter().min().unwrap() <= 1);
                assert!(counts.windows(2).all(|w| w[0] >= w[1]), "longer blocks first");
            }
        }
    }
}
