use sluice::*;
fn main() {
    let n = 1usize << 24;
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dims = [n as i64];
    let mut x = 0;
    sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, xs.as_ptr() as *const _, n * 4, &mut x);
    let t0 = std::time::Instant::now();
    for _ in 0..50 {
        let (mut ax, mut out) = (0, 0);
        sl_mul_scalar(x, 1.5, &mut ax);
        sl_add_scalar(ax, 0.25, &mut out);
        sl_eval(&out, 1);
        sl_sync();
        sl_release(ax);
        sl_release(out);
    }
    println!("{:?} per iteration", t0.elapsed() / 50);
    let mut st: sl_stats = unsafe { std::mem::zeroed() };
    sl_get_stats(&mut st);
    println!("allocs {} peak {} live {} kernels {} seqs {}", st.allocations, st.peak_live_bytes, st.live_bytes, st.kernels, st.sequences);
}
#[allow(dead_code)]
fn stats() {}
