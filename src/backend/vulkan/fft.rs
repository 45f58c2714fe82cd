//! Fourier transforms on the device: GLSL generated for the length and layout of each
//! one-dimensional pass, through the program cache like every other kernel.
//!
//! A transform along several dimensions is one pass per dimension, in the CPU executor's
//! order (`backend/cpu/fft.rs`). A pass transforms the lines along its dimension, batched
//! over the others: its loads read the source through its layout (offset and strides,
//! negative ones included; the input's offset is the launch's one meta word, the rest is
//! in the source text) and its stores write the destination dense, so strided views are
//! read in place and nothing is transposed.
//!
//! A line is transformed by Stockham autosort stages of radix 8, 7, 5, 4, 3 or 2 (larger
//! first). When two copies of a workgroup's lines fit its shared memory (the device's
//! `maxComputeSharedMemorySize`), one dispatch loads the lines, runs every stage between
//! two shared arrays and stores them (`shared_source`); longer lines take one dispatch
//! per stage, ping-ponging between two regions of the launch's scratch buffer
//! (`stage_source`). A length with a prime factor above 7 is Bluestein's convolution:
//! chirp times the input, zero-padded to a power of two `m >= 2n - 1`, transformed
//! together with the chirp filter (one extra line), multiplied by the filter's spectrum
//! in the inverse transform's load, and multiplied by the chirp in its store.
//!
//! Twiddles `e^(-2 pi i r / n)` are computed where they are used, from the exact integer
//! `r mod n`: a quarter-turn count and a remainder of at most 1/8 turn (one rounding),
//! then the CPU executor's f32 fits for cos/sin of the remainder, or math.glsl's f64
//! cos/sin. Real input is promoted to complex (imaginary part 0) in the halved pass's
//! load, which stores the first `n / 2 + 1` points; complex-to-real loads the Hermitian
//! extension of the half spectrum and stores the real part. The normalisation is folded
//! into the last pass's store.
//!
//! f64 on a device without `shaderFloat64`, arrays or scratch beyond one storage-buffer
//! range and numbers beyond 32 bits run on the CPU executor.

use std::fmt::Write;

use super::glsl::{self, Helpers};
use super::{Launch, Plan, VulkanExecutor};
use crate::exec::Work;
use crate::ir::{DType, FftKind, FftSpec, Result, Shape, UnaryOp, Value};

/// Invocations per workgroup (fewer if the device allows fewer).
const LANES: u32 = 64;
/// Points a workgroup of the shared-memory kernel transforms at a time (lines of
/// fewer points are grouped).
const GROUP_POINTS: usize = 1024;
/// Radices of the Stockham stages, tried in this order.
const RADICES: [usize; 6] = [8, 7, 5, 4, 3, 2];
/// Longest line: twiddle indices `4 r` and Bluestein's `2 n` stay within 32 bits.
const MAX_LEN: usize = 1 << 26;

/// Bindings: meta, input, output, scratch; one range each.
const RANGES: [u32; 4] = [1; 4];
const NAMES: [&str; 4] = ["meta", "src", "dst", "scratch"];

/// Where a pass reads or writes: the element of point `k` of line `line` is
/// `offset + sum c_d * stride_d + k * step`, where `c` are the line's coordinates over
/// `other` (sizes and strides of the other dimensions, first fastest).
#[derive(Clone)]
struct Place {
    binding: usize,
    /// The input's offset is the meta word; others are numbers.
    offset: Option<i64>,
    other: Vec<(usize, i64)>,
    step: i64,
    /// Elements are real (loads promote them; stores keep the real part).
    real: bool,
}

impl Place {
    /// A region of the scratch buffer holding `lines` dense lines of `len` points.
    fn region(at: usize, len: usize, lines: usize) -> Place {
        Place { binding: 3, offset: Some(at as i64), other: vec![(lines, len as i64)], step: 1, real: false }
    }

    /// The lines of `shape` along `dim` in an array laid out with `offset` and `strides`.
    fn along(binding: usize, offset: Option<i64>, shape: &Shape, strides: &[i64], dim: usize, real: bool) -> Place {
        let other = (0..shape.rank()).filter(|&d| d != dim).map(|d| (shape.dims()[d], strides[d])).collect();
        Place { binding, offset, other, step: strides[dim], real }
    }

    /// GLSL statements setting `int {name}` to the element index of `(line, k)`.
    fn index(&self, name: &str, line: &str, k: &str) -> String {
        let offset = self.offset.map_or("meta.w[0]".to_string(), |o| o.to_string());
        let mut s = format!("int {name} = {offset} + {k} * ({});\n", self.step);
        let mut rest = line.to_string();
        for (i, &(size, stride)) in self.other.iter().enumerate() {
            if i + 1 == self.other.len() {
                writeln!(s, "{name} += ({rest}) * ({stride});").unwrap();
            } else {
                writeln!(s, "{name} += (({rest}) % {size}) * ({stride});").unwrap();
                rest = format!("(({rest}) / {size})");
            }
        }
        s
    }

    /// The complex value at `(line, k)`.
    fn read(&self, t: &str, line: &str, k: &str) -> String {
        let v = NAMES[self.binding];
        let e = if self.real { format!("{t}({v}.v[at], 0.0)") } else { format!("{v}.v[at]") };
        format!("{{\n{}return {e};\n}}\n", self.index("at", line, k))
    }

    fn write(&self, line: &str, k: &str, value: &str) -> String {
        let v = NAMES[self.binding];
        let e = if self.real { format!("({value}).x") } else { value.to_string() };
        format!("{{\n{}{v}.v[at] = {e};\n}}\n", self.index("at", line, k))
    }
}

/// How the first stage of a line transform gets its points.
#[derive(Clone)]
enum Load {
    Plain(Place),
    /// Complex-to-real: point `k` of a line of `n` is `x[k]` up to `n / 2`, else `conj x[n - k]`.
    Hermitian(Place, usize),
    /// Bluestein's first transform (length `m`): `x[k] chirp(k)` for `k < n`, else 0; line
    /// `filter` is the chirp filter `conj chirp(|k|)` (k taken modulo m).
    ChirpIn {
        x: Box<Load>,
        chirp: Chirp,
        m: usize,
        filter: usize,
    },
    /// Bluestein's second transform: the spectrum times the filter's (line `filter`).
    TimesFilter(Place, usize),
}

/// Bluestein's chirp `e^(-+ i pi k^2 / n)` of a transform of `n` points (`+` inverse).
#[derive(Clone, Copy)]
struct Chirp {
    n: usize,
    inverse: bool,
}

/// How the last stage of a line transform puts its points: the first `count`, times the
/// chirp if any, times `scale`.
#[derive(Clone)]
struct Store {
    place: Place,
    count: usize,
    scale: f64,
    chirp: Option<Chirp>,
}

/// One-dimensional transforms of `lines` lines of `n` points.
struct LineFft {
    n: usize,
    lines: usize,
    inverse: bool,
    load: Load,
    store: Store,
}

/// The radices of `n`, larger first, if 2, 3, 5 and 7 are its only prime factors.
fn radices(mut n: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    for r in RADICES {
        while n.is_multiple_of(r) {
            out.push(r);
            n /= r;
        }
    }
    (n == 1).then_some(out)
}

/// What generating a launch needs to know about the element type and device.
struct Gen {
    /// The complex type (c64 or c128).
    dtype: DType,
    shared_bytes: usize,
    lanes: u32,
    max_groups: u32,
    /// Scratch elements handed out so far.
    scratch: usize,
    dispatches: Vec<(String, u32)>,
}

impl Gen {
    fn t(&self) -> &'static str {
        glsl::reg_type(self.dtype)
    }

    fn f(&self) -> &'static str {
        glsl::reg_type(self.dtype.real())
    }

    fn region(&mut self, elems: usize) -> usize {
        let at = self.scratch;
        self.scratch += elems;
        at
    }

    fn groups(&self, n: usize) -> u32 {
        n.clamp(1, self.max_groups as usize) as u32
    }

    /// A literal of the part type.
    fn lit(&self, x: f64) -> String {
        if self.dtype == DType::C64 { format!("{:?}", x as f32) } else { format!("{x:?}lf") }
    }

    /// The text every shader of the launch starts with: bindings, complex product,
    /// twiddle, and the chirp when `chirp_n` is given.
    fn header(&self, in_type: DType, out_type: DType, lanes: u32) -> String {
        let (t, f) = (self.t(), self.f());
        let mut s = String::from(
            "#version 450\n\
             #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n",
        );
        writeln!(s, "layout(local_size_x = {lanes}) in;").unwrap();
        s += "layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;\n";
        writeln!(
            s,
            "layout(std430, set = 0, binding = 1) readonly buffer In {{ {} v[]; }} src;",
            glsl::mem_type(in_type)
        )
        .unwrap();
        writeln!(s, "layout(std430, set = 0, binding = 2) buffer Out {{ {} v[]; }} dst;", glsl::mem_type(out_type))
            .unwrap();
        writeln!(s, "layout(std430, set = 0, binding = 3) buffer Scratch {{ {t} v[]; }} scratch;").unwrap();
        writeln!(s, "{t} cmul({t} a, {t} b) {{ return {t}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }}").unwrap();
        // e^(-2 pi i r / n) for 0 <= r < n: r/n = q/4 + e exactly, |e| <= 1/8 (rounded once).
        let mut helpers = Helpers::new(self.dtype == DType::C128);
        let cos_sin = if self.dtype == DType::C64 {
            glsl::cos_sin_eighth_turn_f32("e", "(e * e)")
        } else {
            let a = format!("({} * e)", self.lit(std::f64::consts::TAU));
            let (c, s) = (helpers.unary(UnaryOp::Cos, DType::F64, &a), helpers.unary(UnaryOp::Sin, DType::F64, &a));
            format!("dvec2({c}, {s})")
        };
        s += &helpers.source();
        write!(
            s,
            "{t} twiddle(uint r, uint n) {{\n\
             uint q = (4u * r + (n >> 1)) / n;\n\
             {f} e = {f}(int(4u * r - q * n)) / {f}(4u * n);\n\
             {t} cs = {cos_sin};\n\
             if ((q & 1u) != 0u) cs = {t}(-cs.y, cs.x);\n\
             if ((q & 2u) != 0u) cs = -cs;\n\
             return {t}(cs.x, -cs.y);\n}}\n"
        )
        .unwrap();
        s
    }

    /// `{name}(line, k)`: the point `load` gives.
    fn load_fn(&self, name: &str, load: &Load) -> String {
        let t = self.t();
        let head = format!("{t} {name}(int line, int k) ");
        match load {
            Load::Plain(p) => head + &p.read(t, "line", "k"),
            Load::Hermitian(p, n) => format!(
                "{t} {name}_h(int line, int k) {}{head}{{
                 if (k <= {}) return {name}_h(line, k);
                 {t} x = {name}_h(line, {n} - k);
                 return {t}(x.x, -x.y);
}}
",
                p.read(t, "line", "k"),
                n / 2
            ),
            Load::ChirpIn { x, chirp, m, filter } => format!(
                "{}{head}{{
                 if (line == {filter}) {{
                 int j = k < {n} ? k : ({m} - k < {n} ? {m} - k : -1);
                 if (j < 0) return {t}(0.0);
                 {t} c = chirp(j);
                 return {t}(c.x, -c.y);
}}
                 if (k >= {n}) return {t}(0.0);
                 return cmul({name}_x(line, k), chirp(k));
}}
",
                self.load_fn(&format!("{name}_x"), x),
                n = chirp.n
            ),
            Load::TimesFilter(p, filter) => format!(
                "{t} {name}_x(int line, int k) {}{head}{{
return cmul({name}_x(line, k), {name}_x({filter}, k));
}}
",
                p.read(t, "line", "k")
            ),
        }
    }

    /// `load(line, k)` and `store(line, k, v)` of a stage reading `load` and writing `store`.
    fn access(&self, load: &Load, store: &Store) -> String {
        let t = self.t();
        let mut s = String::new();
        let chirp = match load {
            Load::ChirpIn { chirp, .. } => Some(*chirp),
            _ => store.chirp,
        };
        if let Some(Chirp { n, inverse }) = chirp {
            // k^2 mod 2n exactly: k^2 passes 32 bits from k = 65536.
            let conj = if inverse { format!("c = {t}(c.x, -c.y);\n") } else { String::new() };
            write!(
                s,
                "{t} chirp(int k) {{\n\
                 {t} c = twiddle(uint(uint64_t(k) * uint64_t(k) % uint64_t({two_n})), {two_n}u);\n\
                 {conj}return c;\n}}\n",
                two_n = 2 * n
            )
            .unwrap();
        }
        s += &self.load_fn("load", load);
        writeln!(s, "void store(int line, int k, {t} v) {{\nif (k >= {}) return;", store.count).unwrap();
        if store.chirp.is_some() {
            s += "v = cmul(v, chirp(k));\n";
        }
        if store.scale != 1.0 {
            writeln!(s, "v *= {};", self.lit(store.scale)).unwrap();
        }
        s += &store.place.write("line", "k", "v");
        s += "}\n";
        s
    }

    /// The statements of one radix-`r` Stockham stage on points `read(q)` (q < r) of
    /// butterfly `j` (of `n / r`) of a line, after sub-transforms of `ns` points, writing
    /// output `p` with `write(index, value)`.
    fn butterfly(
        &self,
        r: usize,
        ns: usize,
        n: usize,
        inverse: bool,
        read: impl Fn(&str) -> String,
        write: impl Fn(&str, &str) -> String,
    ) -> String {
        let t = self.t();
        let stride = n / r;
        let mut s = String::from("{\nint k = j % ");
        writeln!(s, "{ns};").unwrap();
        for q in 0..r {
            writeln!(s, "{t} v{q} = {};", read(&format!("j + {}", q * stride))).unwrap();
        }
        if ns > 1 {
            for q in 1..r {
                let tw = format!("twiddle(uint({q} * k), {}u)", ns * r);
                let tw = if inverse { format!("(({t}(1.0, -1.0)) * {tw})") } else { tw };
                writeln!(s, "v{q} = cmul(v{q}, {tw});").unwrap();
            }
        }
        // y_p = sum_q v_q w^(p q), w = e^(-+ 2 pi i / r); quarter turns are exact.
        let sign = if inverse { 1.0 } else { -1.0 };
        for p in 0..r {
            let terms: Vec<String> = (0..r)
                .map(|q| {
                    let e = p * q % r;
                    let v = format!("v{q}");
                    if (4 * e).is_multiple_of(r) {
                        match (4 * e / r, inverse) {
                            (0, _) => v,
                            (2, _) => format!("(-{v})"),
                            (1, false) | (3, true) => format!("{t}({v}.y, -{v}.x)"),
                            _ => format!("{t}(-{v}.y, {v}.x)"),
                        }
                    } else {
                        let a = std::f64::consts::TAU * e as f64 / r as f64;
                        format!("cmul({v}, {t}({}, {}))", self.lit(a.cos()), self.lit(sign * a.sin()))
                    }
                })
                .collect();
            writeln!(s, "{t} y{p} = {};", terms.join(" + ")).unwrap();
        }
        writeln!(s, "int o = (j / {ns}) * {} + k;", ns * r).unwrap();
        for p in 0..r {
            s += &write(&format!("o + {}", p * ns), &format!("y{p}"));
        }
        s + "}\n"
    }

    /// Adds the dispatches of `fft`.
    fn line_fft(&mut self, fft: &LineFft, in_type: DType, out_type: DType) {
        let Some(stages) = radices(fft.n) else { return self.bluestein(fft, in_type, out_type) };
        let elem = self.dtype.size();
        if 2 * fft.n * elem <= self.shared_bytes {
            self.shared(fft, &stages, in_type, out_type);
            return;
        }
        // One dispatch per stage between two scratch regions, the last into the store.
        let elems = fft.lines * fft.n;
        let regions = [self.region(elems), self.region(elems)];
        let mut ns = 1;
        for (i, &r) in stages.iter().enumerate() {
            let load = if i == 0 {
                fft.load.clone()
            } else {
                Load::Plain(Place::region(regions[(i - 1) % 2], fft.n, fft.lines))
            };
            let store = if i + 1 == stages.len() {
                fft.store.clone()
            } else {
                Store { place: Place::region(regions[i % 2], fft.n, fft.lines), count: fft.n, scale: 1.0, chirp: None }
            };
            let mut s = self.header(in_type, out_type, self.lanes);
            s += &self.access(&load, &store);
            let butterflies = fft.lines * (fft.n / r);
            write!(
                s,
                "void main() {{\n\
                 for (int b = int(gl_GlobalInvocationID.x); b < {butterflies}; b += int(gl_NumWorkGroups.x * {})) {{\n\
                 int line = b / {nr}, j = b % {nr};\n",
                self.lanes,
                nr = fft.n / r
            )
            .unwrap();
            s += &self.butterfly(
                r,
                ns,
                fft.n,
                fft.inverse,
                |k| format!("load(line, {k})"),
                |k, v| format!("store(line, {k}, {v});\n"),
            );
            s += "}\n}\n";
            let groups = self.groups(butterflies.div_ceil(self.lanes as usize));
            self.dispatches.push((s, groups));
            ns *= r;
        }
    }

    /// Every stage of a group of lines in shared memory, in one dispatch.
    fn shared(&mut self, fft: &LineFft, stages: &[usize], in_type: DType, out_type: DType) {
        let (t, n) = (self.t(), fft.n);
        let fit = self.shared_bytes / (2 * n * self.dtype.size());
        let per_group = (GROUP_POINTS / n).clamp(1, fit).min(fft.lines.max(1));
        let points = per_group * n;
        let lanes = (self.lanes as usize).min(points.div_ceil(2).next_power_of_two()) as u32;
        let mut s = self.header(in_type, out_type, lanes);
        s += &self.access(&fft.load, &fft.store);
        writeln!(s, "shared {t} sh0[{points}];\nshared {t} sh1[{points}];").unwrap();
        let groups = fft.lines.div_ceil(per_group);
        write!(
            s,
            "void main() {{\n\
             int tid = int(gl_LocalInvocationID.x);\n\
             for (int g = int(gl_WorkGroupID.x); g < {groups}; g += int(gl_NumWorkGroups.x)) {{\n\
             int first = g * {per_group};\n\
             for (int i = tid; i < {points}; i += {lanes}) {{\n\
             int p = i / {n};\n\
             if (first + p < {lines}) sh0[i] = load(first + p, i - p * {n});\n}}\n\
             barrier();\n",
            lines = fft.lines
        )
        .unwrap();
        let mut ns = 1;
        for (i, &r) in stages.iter().enumerate() {
            let (from, to) = if i % 2 == 0 { ("sh0", "sh1") } else { ("sh1", "sh0") };
            let nr = n / r;
            write!(
                s,
                "for (int b = tid; b < {}; b += {lanes}) {{\nint p = b / {nr}, j = b % {nr}, base = p * {n};\n",
                per_group * nr
            )
            .unwrap();
            s += &self.butterfly(
                r,
                ns,
                n,
                fft.inverse,
                |k| format!("{from}[base + {k}]"),
                |k, v| format!("{to}[base + {k}] = {v};\n"),
            );
            s += "}\nbarrier();\n";
            ns *= r;
        }
        let last = if stages.len().is_multiple_of(2) { "sh0" } else { "sh1" };
        write!(
            s,
            "for (int i = tid; i < {points}; i += {lanes}) {{\n\
             int p = i / {n};\n\
             if (first + p < {lines}) store(first + p, i - p * {n}, {last}[i]);\n}}\n\
             barrier();\n}}\n}}\n",
            lines = fft.lines
        )
        .unwrap();
        let groups = self.groups(groups);
        self.dispatches.push((s, groups));
    }

    /// A length with a prime factor above 7: a convolution with the chirp filter by two
    /// power-of-two transforms of `m >= 2n - 1` points, the filter's as one more line of
    /// the first.
    fn bluestein(&mut self, fft: &LineFft, in_type: DType, out_type: DType) {
        let (n, lines) = (fft.n, fft.lines);
        let m = (2 * n - 1).next_power_of_two();
        let chirp = Chirp { n, inverse: fft.inverse };
        let spectra = Place::region(self.region((lines + 1) * m), m, lines + 1);
        let x = Box::new(fft.load.clone());
        self.line_fft(
            &LineFft {
                n: m,
                lines: lines + 1,
                inverse: false,
                load: Load::ChirpIn { x, chirp, m, filter: lines },
                store: Store { place: spectra.clone(), count: m, scale: 1.0, chirp: None },
            },
            in_type,
            out_type,
        );
        let store = Store {
            count: n.min(fft.store.count),
            scale: fft.store.scale / m as f64,
            chirp: Some(chirp),
            ..fft.store.clone()
        };
        let load = Load::TimesFilter(spectra, lines);
        self.line_fft(&LineFft { n: m, lines, inverse: true, load, store }, in_type, out_type);
    }
}

/// The line transforms of `spec` on an input of `dtype` shaped `shape` with strides
/// `in_strides`, into a dense output shaped `out_shape`, in the CPU executor's order.
fn passes(plan: &mut Gen, spec: &FftSpec, shape: &Shape, in_strides: &[i64], out_shape: &Shape) -> Vec<LineFft> {
    let out_strides = out_shape.dense_strides();
    // Points of the transform: along the halved dimension, the real length.
    let logical = if spec.kind == FftKind::ComplexToReal { out_shape } else { shape };
    let total: usize = spec.dims().iter().map(|&d| logical.dims()[d as usize]).product();
    let scale = spec.norm.scale(total, spec.inverse);
    let input = |d: usize, real: bool| Place::along(1, None, shape, in_strides, d, real);
    let output = |d: usize, real: bool| Place::along(2, Some(0), out_shape, &out_strides, d, real);
    let line = |n: usize, load: Load, place: Place, count: usize| LineFft {
        n,
        lines: logical.numel() / n,
        inverse: spec.inverse,
        load,
        store: Store { place, count, scale: 1.0, chirp: None },
    };
    let halved = spec.halved_dim();
    let mut out = Vec::new();
    match spec.kind {
        FftKind::Complex => {
            for (i, &d) in spec.dims().iter().enumerate() {
                let d = d as usize;
                let from = if i == 0 { input(d, false) } else { output(d, false) };
                let n = shape.dims()[d];
                out.push(line(n, Load::Plain(from), output(d, false), n));
            }
        }
        FftKind::RealToComplex => {
            let n = shape.dims()[halved];
            out.push(line(n, Load::Plain(input(halved, true)), output(halved, false), n / 2 + 1));
            // Then the others, over the halved output.
            for &d in &spec.dims()[..spec.dims().len() - 1] {
                let n = shape.dims()[d as usize];
                let lines = out_shape.numel() / n;
                out.push(LineFft {
                    lines,
                    ..line(n, Load::Plain(output(d as usize, false)), output(d as usize, false), n)
                });
            }
        }
        FftKind::ComplexToReal => {
            // The other dimensions first, into a dense complex copy of the half spectrum.
            let half = Place::region(plan.region(shape.numel()), 0, 0);
            let half_strides = shape.dense_strides();
            let half_along = |d: usize| Place::along(3, half.offset, shape, &half_strides, d, false);
            let others = &spec.dims()[..spec.dims().len() - 1];
            for (i, &d) in others.iter().enumerate() {
                let d = d as usize;
                let from = if i == 0 { input(d, false) } else { half_along(d) };
                let n = shape.dims()[d];
                let lines = shape.numel() / n;
                out.push(LineFft { lines, ..line(n, Load::Plain(from), half_along(d), n) });
            }
            let from = if others.is_empty() { input(halved, false) } else { half_along(halved) };
            let n = out_shape.dims()[halved];
            out.push(line(n, Load::Hermitian(from, n), output(halved, true), n));
        }
    }
    if let Some(last) = out.last_mut() {
        last.store.scale = scale;
    }
    out
}

impl VulkanExecutor {
    /// How a transform runs: on the device where it can (see the module comment).
    pub(super) fn fft_plan(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<Plan> {
        let Work::Fft { spec, dtype, shape, out_shape } = work else { unreachable!("a transform step") };
        let caps = &self.ctx.caps;
        let complex = dtype.complex().unwrap_or(*dtype);
        let out_type = if spec.kind == FftKind::ComplexToReal { complex.real() } else { complex };
        let layout = &inputs[0].layout;
        let in_range = |v: &Value| (v.storage.byte_len() as u64) <= caps.chunk_bytes;
        let longest = spec.dims().iter().map(|&d| out_shape.dims()[d as usize].max(shape.dims()[d as usize])).max();
        let small = |v: i64| i32::try_from(v).is_ok();
        let device_can = (complex == DType::C64 || self.target.float64)
            && inputs.iter().chain(outputs).all(in_range)
            && longest.is_some_and(|n| n <= MAX_LEN)
            && small(layout.offset)
            && layout.strides[..shape.rank()].iter().all(|&s| small(s));
        if !device_can {
            return Ok(Plan::Cpu(work.clone()));
        }
        let mut plan = Gen {
            dtype: complex,
            shared_bytes: caps.max_shared_bytes as usize,
            lanes: LANES.min(caps.max_invocations),
            max_groups: caps.max_groups_x,
            scratch: 0,
            dispatches: Vec::new(),
        };
        if out_shape.numel() > 0 {
            for fft in passes(&mut plan, spec, shape, &layout.strides, out_shape) {
                plan.line_fft(&fft, *dtype, out_type);
            }
        }
        let scratch = plan.scratch.max(1) * complex.size();
        if scratch as u64 > caps.chunk_bytes || plan.scratch > i32::MAX as usize {
            return Ok(Plan::Cpu(work.clone()));
        }
        let words = vec![layout.offset as i32 as u32];
        let mut launch = Launch { words, scratch: Some(scratch), ranges: RANGES.to_vec(), ..Launch::default() };
        for (source, groups) in &plan.dispatches {
            launch.dispatches.push((self.programs.pipeline(source, &RANGES)?, [*groups, 1, 1]));
        }
        Ok(Plan::Device(launch))
    }
}
