//! The program cache on disk: SPIR-V per shader source, and the driver's pipeline cache,
//! in a directory per device and driver. Files are written to a temporary name and
//! renamed, so processes sharing the directory never read a partial file; a file that
//! is unreadable or malformed is ignored (and replaced by the next write).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped when what a source compiles to changes (compiler options, shader prelude).
const FORMAT: &str = "sluice-spirv-1";
const SPIRV_MAGIC: u32 = 0x0723_0203;
const PIPELINES: &str = "pipelines.bin";

pub struct DiskCache {
    dir: PathBuf,
}

/// A 128-bit name for `source`: two independent 64-bit hashes.
fn key(source: &str) -> String {
    let half = |salt: u64| {
        let mut h = rustc_hash::FxHasher::default();
        (salt, FORMAT, source).hash(&mut h);
        h.finish()
    };
    format!("{:016x}{:016x}", half(0x9e37_79b9_7f4a_7c15), half(0xc2b2_ae3d_27d4_eb4f))
}

impl DiskCache {
    /// The cache for one device below `root`, or `None` if the directory cannot be made.
    pub fn open(root: &Path, device: &str) -> Option<DiskCache> {
        let dir = root.join(device);
        std::fs::create_dir_all(&dir).ok()?;
        Some(DiskCache { dir })
    }

    pub fn load_spirv(&self, source: &str) -> Option<Vec<u32>> {
        let bytes = std::fs::read(self.dir.join(format!("{}.spv", key(source)))).ok()?;
        if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
            return None;
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        (words[0] == SPIRV_MAGIC).then_some(words)
    }

    pub fn store_spirv(&self, source: &str, words: &[u32]) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.write(&format!("{}.spv", key(source)), &bytes);
    }

    /// The driver's pipeline cache data saved by an earlier run (empty if none).
    pub fn load_pipelines(&self) -> Vec<u8> {
        std::fs::read(self.dir.join(PIPELINES)).unwrap_or_default()
    }

    pub fn store_pipelines(&self, data: &[u8]) {
        self.write(PIPELINES, data);
    }

    /// Writes `name` atomically; a failure only costs a later recompilation.
    fn write(&self, name: &str, bytes: &[u8]) {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tmp = self.dir.join(format!(".{name}.{}.{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, self.dir.join(name)).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The cache root: `SLUICE_CACHE_DIR`, else `$XDG_CACHE_HOME/sluice`, else
/// `$HOME/.cache/sluice`.
pub fn default_root(explicit: Option<&str>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(PathBuf::from(dir));
    }
    let var = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty()).map(PathBuf::from);
    var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache"))).map(|d| d.join("sluice"))
}
