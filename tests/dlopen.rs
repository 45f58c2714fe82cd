//! The shared library loaded at run time (as a plugin host or a legacy code would), its
//! C API called through function pointers.

use libloading::{Library, Symbol};
use sluice::{SL_COL_MAJOR, SL_ERR_INVALID_HANDLE, SL_F64, SL_MUL, SL_OK, SL_SUM};

type Create = unsafe extern "C" fn(i32, i32, *const i64, i32, *const u8, usize, *mut u64) -> i32;
type BinaryScalar = unsafe extern "C" fn(i32, u64, f64, *mut u64) -> i32;
type Reduce = unsafe extern "C" fn(i32, u64, i32, *mut u64) -> i32;
type Read = unsafe extern "C" fn(u64, i32, *mut u8, usize) -> i32;
type Release = unsafe extern "C" fn(u64) -> i32;

/// The shared library cargo built for this test: the library's unit makes every crate type
/// it declares at once, so the cdylib sits beside the test binary in `deps/`, from the same
/// compilation as the code the test binary links.
fn cdylib() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.with_file_name(format!("{}sluice{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX))
}

#[test]
fn load_and_call_through_function_pointers() {
    let path = cdylib();
    // SAFETY: loading our own library, whose initialisers are Rust's and harmless.
    let lib = unsafe { Library::new(&path) }.unwrap_or_else(|e| panic!("load {}: {e}", path.display()));
    unsafe {
        let create: Symbol<Create> = lib.get(b"sl_create").unwrap();
        let binary_scalar: Symbol<BinaryScalar> = lib.get(b"sl_binary_scalar").unwrap();
        let reduce: Symbol<Reduce> = lib.get(b"sl_reduce").unwrap();
        let read: Symbol<Read> = lib.get(b"sl_read").unwrap();
        let release: Symbol<Release> = lib.get(b"sl_release").unwrap();
        let xs: Vec<f64> = (0..5000).map(|i| (i as f64 * 0.37).cos()).collect();
        let n = xs.len() as i64;
        let (mut a, mut b, mut s) = (0u64, 0u64, 0u64);
        let bytes = xs.len() * 8;
        assert_eq!(create(SL_F64, 1, &n, SL_COL_MAJOR, xs.as_ptr() as *const u8, bytes, &mut a), SL_OK);
        assert_eq!(binary_scalar(SL_MUL, a, 2.5, &mut b), SL_OK);
        assert_eq!(reduce(SL_SUM, b, -1, &mut s), SL_OK, "-1: over all elements");
        let mut got = 0f64;
        assert_eq!(read(s, SL_COL_MAJOR, &mut got as *mut f64 as *mut u8, 8), SL_OK);
        let want: f64 = xs.iter().map(|x| x * 2.5).sum();
        assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "{got} vs {want}");
        for h in [a, b, s] {
            assert_eq!(release(h), SL_OK);
        }
        assert_eq!(release(a), SL_ERR_INVALID_HANDLE, "a released handle is reported");
    }
}
