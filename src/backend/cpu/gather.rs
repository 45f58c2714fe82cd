//! The check of a gather under the error policy (`ir::Op::IndexCheck`): the kernels
//! before it found the first out-of-range index; this turns it into the failure, or the
//! zero the gather reads when every index is in range.

use crate::ir::{Error, ErrorKind, Result, Shape, Value, bail};

/// The rank-0 element of `v` (a host value of `T`).
fn scalar<T: Copy>(v: &Value) -> Result<T> {
    let Some(bytes) = v.storage.host_bytes() else {
        bail!(Internal, "index check operand is not in host memory");
    };
    let at = v.layout.offset as usize * size_of::<T>();
    let Some(b) = bytes.get(at..at + size_of::<T>()) else {
        bail!(Internal, "index check operand is shorter than one element");
    };
    // SAFETY: `b` holds `size_of::<T>()` bytes of a `T`.
    Ok(unsafe { std::ptr::read_unaligned(b.as_ptr() as *const T) })
}

/// Writes 0 to `out` when `inputs[0]` (the first bad position) is `i64::MAX`; otherwise
/// fails naming the position and its indices (`inputs[1..]`).
pub fn index_check(what: &str, src: &Shape, out: &Shape, inputs: &[Value], result: &Value) -> Result<()> {
    let first: i64 = scalar(&inputs[0])?;
    if first == i64::MAX {
        let Some(bytes) = result.storage.host_bytes() else {
            bail!(Internal, "index check result is not in host memory");
        };
        // SAFETY: the result is a fresh rank-0 i64 the check alone writes.
        unsafe { std::ptr::write_unaligned(bytes.as_ptr() as *mut i64, 0) };
        return Ok(());
    }
    let index = inputs[1..].iter().map(scalar::<f64>).collect::<Result<Vec<_>>>()?;
    let at = out.unravel(first as usize);
    let list = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
    Err(Error::new(
        ErrorKind::InvalidArgument,
        format!(
            "{what}: the index ({}) of result element ({}) is out of range for the source {src} (the first, column-major)",
            list(&mut index.iter().map(|i| i.to_string())),
            list(&mut at[..out.rank().max(1)].iter().map(|i| i.to_string())),
        ),
    ))
}
