use sluice::*;

fn create_f32(shape: &[i64], data: &[f32]) -> sl_array {
    let mut h = 0;
    let st = sl_create(
        SL_F32,
        shape.len() as i32,
        shape.as_ptr(),
        SL_COL_MAJOR,
        data.as_ptr() as *const _,
        data.len() * 4,
        &mut h,
    );
    assert_eq!(st, SL_OK);
    h
}

fn read_f32(h: sl_array, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    let st = sl_read(h, SL_COL_MAJOR, v.as_mut_ptr() as *mut _, n * 4);
    if st != SL_OK {
        let mut info = unsafe { std::mem::zeroed() };
        sl_last_error(&mut info);
        panic!("read failed: {}", unsafe { std::ffi::CStr::from_ptr(info.message) }.to_string_lossy());
    }
    v
}

#[test]
fn add_mul_sum() {
    let x: Vec<f32> = (0..5000).map(|i| i as f32 * 0.5).collect();
    let a = create_f32(&[5000], &x);
    let mut b = 0;
    assert_eq!(sl_mul_scalar(a, 2.0, &mut b), SL_OK);
    let mut c = 0;
    assert_eq!(sl_add(a, b, &mut c), SL_OK);
    let mut s = 0;
    assert_eq!(sl_sum(c, SL_ALL_DIMS, &mut s), SL_OK);
    let r = read_f32(c, 5000);
    for i in 0..5000 {
        assert_eq!(r[i], x[i] * 3.0);
    }
    let total = read_f32(s, 1)[0];
    let want: f64 = x.iter().map(|&v| (v * 3.0) as f64).sum();
    assert!((total as f64 - want).abs() < want * 1e-6, "{total} vs {want}");
    let mut sn = 0;
    assert_eq!(sl_sin(a, &mut sn), SL_OK);
    let r = read_f32(sn, 5000);
    for i in 0..5000 {
        assert!((r[i] - x[i].sin()).abs() < 1e-5);
    }
}
