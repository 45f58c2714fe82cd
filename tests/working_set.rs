//! A flush frees each value it stores once the last step reading it has run, so a chain
//! of pending results computes within a memory limit that holds its working set (the
//! operands of one step and its result), not every value of the chain. Run on each
//! executor (`SLUICE_BACKEND=vulkan` for the Vulkan one, whose device memory has the
//! same limit).

mod common;

use common::reference as r;
use common::*;
use sluice::*;

/// Matrices of N x N f32: 256 KiB each, a size class of its own (no rounding up).
const N: usize = 256;
const BYTES: usize = N * N * 4;
/// Matmuls in the chain.
const STEPS: usize = 10;

#[test]
fn a_chain_computes_within_its_working_set() {
    let mut rng = rng("a_chain_computes_within_its_working_set");
    // Four matrices: the application's two (m and a0) and one step's operand and result.
    let limit = 4 * BYTES + (64 << 10);
    // SAFETY: the only test in this process; set before the runtime starts.
    unsafe { std::env::set_var("SLUICE_MEMORY_LIMIT", limit.to_string()) };

    // Entries of size about 1/sqrt(N), so products neither grow nor shrink much.
    let scale = (3.0 / N as f64).sqrt();
    let m = rand_arr(&mut rng, SL_F32, &[N, N], -scale, scale, false);
    let a0 = rand_arr(&mut rng, SL_F32, &[N, N], -1.0, 1.0, false);
    let (hm, ha0) = (m.upload(), a0.upload());
    // a_{k+1} = a_k m, each a_k released once the next is made: all pending until the read.
    let mut a = ha0;
    for k in 0..STEPS {
        let mut next = 0;
        ok(sl_matmul(a, hm, &mut next));
        if k > 0 {
            release(&[a]);
        }
        a = next;
    }
    let got = download(a);
    let mut want = a0.clone();
    for _ in 0..STEPS {
        want = r::matmul(&want, &m);
    }
    let magnitude = want.v.iter().map(|v| v.f().abs()).fold(0.0, f64::max);
    assert_near("a_0 m^10", &got, &want, 1e-4 * magnitude, 1e-4);
    let s = stats();
    assert!(s.peak_live_bytes as usize <= limit, "peak {} within the limit {limit}", s.peak_live_bytes);
    release(&[a]);

    // A stored value that a pending array outside the flush reads is kept: b1 is released
    // by the application, stored by the flush that reads b2, and read again for d.
    let (mut b1, mut b2, mut d) = (0, 0, 0);
    ok(sl_matmul(ha0, hm, &mut b1));
    ok(sl_mul_scalar(b1, 2.0, &mut d));
    ok(sl_matmul(b1, hm, &mut b2));
    release(&[b1]);
    let want_b1 = r::matmul(&a0, &m);
    let want_b2 = r::matmul(&want_b1, &m);
    let magnitude = |w: &Arr| w.v.iter().map(|v| v.f().abs()).fold(0.0, f64::max);
    assert_near("b2", &download(b2), &want_b2, 1e-4 * magnitude(&want_b2), 1e-4);
    release(&[b2]);
    let want_d = r::map1(&want_b1, |v| V::F32(v.f() as f32 * 2.0));
    assert_near("d = 2 b1", &download(d), &want_d, 1e-4 * magnitude(&want_d), 1e-4);
    release(&[hm, ha0, d]);
}
