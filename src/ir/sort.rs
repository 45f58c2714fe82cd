//! Sorting and searching along a dimension. Every one orders elements by one total
//! order: integers and bools by value; floating-point numbers by value with -0 equal to
//! +0 and every NaN after every number (in both directions), NaNs equal to each other.
//! Sorts are stable: equal elements keep their order along the dimension.

/// A sort or search (`Op::Sort`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SortOp {
    /// [a] -> a with every line along `dim` sorted.
    Sort { dim: u8, descending: bool },
    /// [a] -> i64 positions along `dim`: where each element of the sorted line came from.
    ArgSort { dim: u8, descending: bool },
    /// [sorted (a vector, ascending), v] -> i64 shaped like v: the number of elements of
    /// `sorted` ordered before v (`right`: before or equal to v), numpy's `searchsorted`.
    SearchSorted { right: bool },
}

impl SortOp {
    pub fn name(&self) -> &'static str {
        match self {
            SortOp::Sort { .. } => "sort",
            SortOp::ArgSort { .. } => "argsort",
            SortOp::SearchSorted { .. } => "searchsorted",
        }
    }
}
