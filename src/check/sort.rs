//! References of sorts and searches: each line sorted by a comparison (std's stable sort
//! with the order of `ir/sort.rs` written as a comparator on f64 and i64 values), so they
//! share nothing with the executors' radix keys.

use std::cmp::Ordering;

use super::reference::{Elem, Reference, coords};
use crate::ir::{DType, MAX_RANK, Shape, SortOp};

/// The sort order: numbers by value (-0 equal to +0), NaNs after every number and equal
/// to each other.
fn order(a: Elem, b: Elem) -> Ordering {
    match (a, b) {
        (Elem::F(x), Elem::F(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => x.partial_cmp(&y).expect("numbers compare"),
        },
        (a, b) => a.i().cmp(&b.i()),
    }
}

/// `order` in the direction asked: descending reverses numbers, NaNs stay last.
fn directed(a: Elem, b: Elem, descending: bool) -> Ordering {
    let nan = |e: Elem| matches!(e, Elem::F(x) if x.is_nan());
    if descending && !nan(a) && !nan(b) { order(b, a) } else { order(a, b) }
}

fn linear(shape: &Shape, at: &[i64; MAX_RANK]) -> usize {
    let strides = shape.dense_strides();
    (0..shape.rank()).map(|d| at[d] * strides[d]).sum::<i64>() as usize
}

pub fn evaluate(op: SortOp, dtype: DType, shape: Shape, ins: &[&Reference]) -> Reference {
    let a = ins[0];
    match op {
        SortOp::Sort { dim, descending } | SortOp::ArgSort { dim, descending } => {
            let dim = dim as usize;
            let n = shape.dim(dim);
            let mut out = vec![Elem::I(0); shape.numel()];
            for start in coords(&shape.with_dim(dim, 1)) {
                let place = |i: usize| {
                    let mut at = start;
                    at[dim] = i as i64;
                    linear(&shape, &at)
                };
                let mut line: Vec<(Elem, usize)> = (0..n).map(|i| (a.at(place(i)), i)).collect();
                line.sort_by(|x, y| directed(x.0, y.0, descending));
                for (i, (e, from)) in line.into_iter().enumerate() {
                    out[place(i)] = if matches!(op, SortOp::Sort { .. }) { e } else { Elem::I(from as i128) };
                }
            }
            Reference::new(dtype, shape, out.into_iter())
        }
        SortOp::SearchSorted { right } => {
            let sorted: Vec<Elem> = (0..a.shape.numel()).map(|i| a.at(i)).collect();
            let v = ins[1];
            let counts = (0..v.shape.numel()).map(|i| {
                let x = v.at(i);
                let before = if right {
                    sorted.partition_point(|&s| order(s, x) != Ordering::Greater)
                } else {
                    sorted.partition_point(|&s| order(s, x) == Ordering::Less)
                };
                Elem::I(before as i128)
            });
            Reference::new(dtype, shape, counts)
        }
    }
}
