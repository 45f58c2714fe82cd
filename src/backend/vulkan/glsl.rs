//! GLSL spellings of element types and of the element-wise operations, with the same
//! semantics as the CPU executor (wrapping integers, x / 0 = 0 for integers, NaN-propagating
//! min/max, saturating float-to-integer casts, C `fmod` and `round`). Operations GLSL
//! has no exact builtin for are helper functions, emitted once per kernel when used.

use std::fmt::Write;

use super::special;
use crate::backend::cpu::math::TWO_OVER_PI;
use crate::ir::kernel::{Inst, Kernel};
use crate::ir::random::portable::{
    COS_TURNS_F32, COS_TURNS_F64, LG_F64, LN1P_Q_F32, LN2_PARTS_F32, LN2_PARTS_F64, SIN_TURNS_F32, SIN_TURNS_F64,
};
use crate::ir::random::samplers::{
    BD0_NEAR, BD0_TERMS, MT_SERIES_F32, MT_SERIES_F64, MT_SQUEEZE, POISSON_INVERSION_STEPS, PTRS_SHIFT, PTRS_SMALL_US,
    PTRS_SQUEEZE_US, STIRLERR, STIRLING_SERIES,
};
use crate::ir::random::sobol::Scramble;
use crate::ir::random::{ELEMENT_BLOCK_SHIFT, ELEMENT_BLOCKS, MAX_RANDOM_PARAMS};
use crate::ir::{BinaryOp, DType, Distribution, RngKind, Scalar, UnaryOp};

/// Whether the generated shaders compute values of type `t`; kernels with values of
/// other types run on the CPU (`codegen::generate` refuses them).
pub fn has_type(t: DType) -> bool {
    match t {
        DType::F32
        | DType::F64
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U32
        | DType::U64
        | DType::I8
        | DType::Bool
        | DType::C64
        | DType::C128 => true,
        DType::I16 | DType::U16 | DType::F16 | DType::BF16 => false,
    }
}

fn no_type(t: DType) -> ! {
    unreachable!("{t} values are computed on the CPU (glsl::has_type)")
}

/// The type a value has in registers. u8 is held in a `uint` (kept in 0..=255), i8 in an
/// `int` (kept in -128..=127; see `narrow`).
pub fn reg_type(t: DType) -> &'static str {
    match t {
        DType::I16 | DType::U16 | DType::F16 | DType::BF16 => no_type(t),
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I8 | DType::I32 => "int",
        DType::I64 => "int64_t",
        DType::U8 | DType::U32 => "uint",
        DType::U64 => "uint64_t",
        DType::Bool => "bool",
        DType::C64 => "vec2",
        DType::C128 => "dvec2",
    }
}

/// The element type of a storage buffer of `t`.
pub fn mem_type(t: DType) -> &'static str {
    match t {
        DType::U8 | DType::Bool => "uint8_t",
        DType::I8 => "int8_t",
        _ => reg_type(t),
    }
}

pub fn suffix(t: DType) -> &'static str {
    t.name()
}

/// A register value from a buffer element expression.
pub fn from_mem(t: DType, e: &str) -> String {
    match t {
        DType::U8 => format!("uint({e})"),
        DType::I8 => format!("int({e})"),
        DType::Bool => format!("(uint({e}) != 0u)"),
        _ => e.to_string(),
    }
}

/// A buffer element from a register value.
pub fn to_mem(t: DType, e: &str) -> String {
    match t {
        DType::U8 => format!("uint8_t({e})"),
        DType::I8 => format!("int8_t({e})"),
        DType::Bool => format!("uint8_t(({e}) ? 1u : 0u)"),
        _ => e.to_string(),
    }
}

/// A literal of type `t` with the bits of `s` (exact for NaN and infinities).
pub fn literal(s: Scalar) -> String {
    let bits = s.to_bits();
    match s {
        Scalar::F32(_) => format!("uintBitsToFloat(0x{:08x}u)", bits as u32),
        Scalar::F64(_) => format!("packDouble2x32(uvec2(0x{:08x}u, 0x{:08x}u))", bits as u32, (bits >> 32) as u32),
        Scalar::I32(v) => format!("int(0x{:08x}u)", v as u32),
        Scalar::I64(v) => format!("int64_t(0x{:016x}ul)", v as u64),
        Scalar::U8(v) => format!("{v}u"),
        Scalar::U32(v) => format!("{v}u"),
        Scalar::I8(v) => format!("int({v})"),
        Scalar::U64(v) => format!("uint64_t(0x{v:016x}ul)"),
        Scalar::Bool(v) => v.to_string(),
        Scalar::I16(_) | Scalar::U16(_) | Scalar::F16(_) | Scalar::BF16(_) => no_type(s.dtype()),
    }
}

/// `e`, a register value of a type held in a wider register (u8, i8), brought back into
/// the type's range as its wrapping arithmetic would; other types' `e` unchanged.
fn narrow(t: DType, e: &str) -> String {
    match t {
        DType::U8 => format!("(({e}) & 0xFFu)"),
        DType::I8 => format!("bitfieldExtract({e}, 0, 8)"),
        _ => e.to_string(),
    }
}

fn lit(t: DType, v: i64) -> String {
    literal(Scalar::I64(v).cast(t))
}

/// Helper functions a kernel uses, emitted before its main function.
pub struct Helpers {
    /// In definition order (dependencies first).
    used: Vec<(String, DType)>,
    /// Whether f32 helpers may compute in f64.
    float64: bool,
    /// Whether the double-precision math library is used, and its special functions.
    math: bool,
    special: bool,
    /// Whether the random streams are used, and f64 random values; whether the laws of
    /// random_dist.glsl are, and those of random_dist_f64.glsl.
    random: bool,
    random_f64: bool,
    laws: bool,
    laws_f64: bool,
    /// Whether Sobol' points are.
    sobol: bool,
    /// At most how many loop iterations one run of the expressions made so far spends in
    /// helper functions (drivers that end loops early count them: `Target::max_loop_iterations`).
    loops: usize,
}

/// The most loop iterations one call of a math.glsl function runs (m_erf's continued
/// fraction: 200; sin/cos/tan's reduction of huge arguments: 1).
const MATH_LOOPS: usize = 256;
/// The random streams' rounds (random.glsl: Philox's ten, Threefry's five groups).
const RANDOM_LOOPS: usize = 10;
/// A Sobol' coordinate's loop over the bits of its index.
pub const SOBOL_LOOPS: usize = 32;

/// The most steps `fmod`'s loop runs: the exponent difference of the operands (at most
/// 253 for f32, 2045 for f64) taken `FMOD_CHUNK` bits at a time.
fn fmod_loops(t: DType) -> usize {
    if t == DType::F32 { 253usize.div_ceil(40) } else { 2045usize.div_ceil(11) }
}

impl Helpers {
    pub fn new(float64: bool) -> Helpers {
        Helpers {
            used: Vec::new(),
            float64,
            math: false,
            special: false,
            random: false,
            random_f64: false,
            laws: false,
            laws_f64: false,
            sobol: false,
            loops: 0,
        }
    }

    /// At most how many loop iterations one evaluation of `k`'s live instructions spends
    /// in helper functions on a target with (or without) 64-bit floats.
    pub fn loops_per_point(k: &Kernel, float64: bool) -> usize {
        let mut dry = Helpers::new(float64);
        let live = k.live();
        for (i, inst) in k.insts.iter().enumerate().filter(|(i, _)| live[*i]) {
            let t = |j: u32| k.types[j as usize];
            match *inst {
                Inst::Unary { op, a } => _ = dry.unary(op, t(a), "x"),
                Inst::Binary { op, a, .. } => _ = dry.binary(op, t(a), "x", "y"),
                Inst::Random { kind, dist, .. } => {
                    let params = [const { String::new() }; MAX_RANDOM_PARAMS];
                    _ = dry.random(k.types[i], kind, dist, ["", "", ""], &params, "", &mut String::new())
                }
                Inst::Sobol { .. } => dry.loops += SOBOL_LOOPS,
                _ => {}
            }
        }
        dry.loops
    }

    fn call(&mut self, name: &str, t: DType, args: &[&str]) -> String {
        self.need(name, t);
        format!("{name}_{}({})", suffix(t), args.join(", "))
    }

    fn need(&mut self, name: &str, t: DType) {
        for dep in deps(name, t) {
            self.need(dep, t);
        }
        if !self.used.iter().any(|(n, u)| n == name && *u == t) {
            self.used.push((name.to_string(), t));
        }
    }

    pub fn unary(&mut self, op: UnaryOp, t: DType, a: &str) -> String {
        use UnaryOp as U;
        match t {
            DType::F32 | DType::F64 => {
                let ty = reg_type(t);
                let builtin = |f: &str| format!("{f}({a})");
                match op {
                    U::Neg => format!("(-{a})"),
                    U::Abs => builtin("abs"),
                    U::Sign => self.call("sign", t, &[a]),
                    U::Sqrt => builtin("sqrt"),
                    U::Rsqrt => format!("({ty}(1) / sqrt({a}))"),
                    U::Rcp => format!("({ty}(1) / {a})"),
                    U::Floor => builtin("floor"),
                    U::Ceil => builtin("ceil"),
                    U::Trunc => builtin("trunc"),
                    U::Round => self.call("round", t, &[a]),
                    U::IsNan => builtin("isnan"),
                    U::IsInf => builtin("isinf"),
                    U::Not => unreachable!("not on a float"),
                    // Transcendentals: the double-precision library (rounded for f32), or
                    // GLSL's f32 builtins on devices without f64.
                    _ if self.float64 => {
                        self.math = true;
                        self.special |= matches!(op, U::Erfc | U::Erfinv | U::Lgamma | U::Tgamma);
                        self.loops += MATH_LOOPS;
                        match t {
                            DType::F32 => format!("float(m_{}(double({a})))", op.name()),
                            _ => format!("m_{}({a})", op.name()),
                        }
                    }
                    // Builtins need not pass NaN through (lavapipe's atan(NaN) is 0).
                    U::Exp | U::Exp2 | U::Log | U::Log2 | U::Sin | U::Cos | U::Tan | U::Asin | U::Acos | U::Atan => {
                        format!("(isnan({a}) ? {a} : {})", builtin(op.name()))
                    }
                    _ => self.call(op.name(), t, &[a]),
                }
            }
            // Complex values are vec2/dvec2 (real, imaginary); their arithmetic is built
            // from real ops on the parts (front/complex.rs).
            DType::C64 | DType::C128 => match op {
                U::Real => format!("{a}.x"),
                U::Imag => format!("{a}.y"),
                _ => unreachable!("{} of complex values is computed from their parts", op.name()),
            },
            DType::Bool => match op {
                U::Not => format!("(!{a})"),
                U::IsNan | U::IsInf => "false".into(),
                _ => unreachable!("{} on bool", op.name()),
            },
            _ => {
                let wrap = |e: String| narrow(t, &e);
                match op {
                    U::Neg => wrap(format!("({} - {a})", lit(t, 0))),
                    U::Abs if t.is_unsigned_integer() => a.to_string(),
                    U::Abs => wrap(format!("({a} < {z} ? {z} - {a} : {a})", z = lit(t, 0))),
                    U::Sign => format!(
                        "({a} > {z} ? {one} : ({a} < {z} ? {m1} : {z}))",
                        z = lit(t, 0),
                        one = lit(t, 1),
                        m1 = lit(t, -1)
                    ),
                    U::Not => wrap(format!("(~{a})")),
                    U::Floor | U::Ceil | U::Round | U::Trunc => a.to_string(),
                    U::IsNan | U::IsInf => "false".into(),
                    _ => unreachable!("{} on an integer", op.name()),
                }
            }
        }
    }

    pub fn binary(&mut self, op: BinaryOp, t: DType, a: &str, b: &str) -> String {
        use BinaryOp as B;
        let cmp = |o: &str| {
            if t == DType::Bool { format!("(uint({a}) {o} uint({b}))") } else { format!("({a} {o} {b})") }
        };
        match op {
            B::Eq => return cmp("=="),
            B::Ne => return cmp("!="),
            B::Lt => return cmp("<"),
            B::Le => return cmp("<="),
            B::Gt => return cmp(">"),
            B::Ge => return cmp(">="),
            _ => {}
        }
        match t {
            DType::F32 | DType::F64 => match op {
                B::Add => format!("({a} + {b})"),
                B::Sub => format!("({a} - {b})"),
                B::Mul => format!("({a} * {b})"),
                B::Div => format!("({a} / {b})"),
                B::Rem => {
                    self.loops += fmod_loops(t);
                    self.call("fmod", t, &[a, b])
                }
                B::Min => self.call("min", t, &[a, b]),
                B::Max => self.call("max", t, &[a, b]),
                B::Pow | B::Atan2 | B::Hypot if self.float64 => {
                    self.math = true;
                    self.loops += MATH_LOOPS;
                    let name = format!("m_{}", op.name());
                    match t {
                        DType::F32 => format!("float({name}(double({a}), double({b})))"),
                        _ => format!("{name}({a}, {b})"),
                    }
                }
                B::Pow => self.call("pow", t, &[a, b]),
                B::Atan2 => self.call("atan2", t, &[a, b]),
                B::Hypot => self.call("hypot", t, &[a, b]),
                B::Complex => format!("{}({a}, {b})", reg_type(t.complex().expect("a float type"))),
                B::CopySign => self.call("copysign", t, &[a, b]),
                B::NextAfter => self.call("nextafter", t, &[a, b]),
                _ => unreachable!("{} on floats", op.name()),
            },
            DType::Bool => match op {
                B::And => format!("({a} && {b})"),
                B::Or => format!("({a} || {b})"),
                B::Xor => format!("({a} != {b})"),
                B::Min => format!("({a} && {b})"),
                B::Max => format!("({a} || {b})"),
                _ => unreachable!("{} on bool", op.name()),
            },
            _ => {
                let wrap = |e: String| narrow(t, &e);
                match op {
                    B::Add => wrap(format!("({a} + {b})")),
                    B::Sub => wrap(format!("({a} - {b})")),
                    B::Mul => wrap(format!("({a} * {b})")),
                    // i8::MIN / -1 and shifts leave the range too
                    B::Div => wrap(self.call("idiv", t, &[a, b])),
                    B::Rem => self.call("irem", t, &[a, b]),
                    B::Pow => {
                        // Squaring once per bit of the exponent.
                        self.loops += 8 * t.size();
                        self.call("ipow", t, &[a, b])
                    }
                    B::Min => format!("({b} < {a} ? {b} : {a})"),
                    B::Max => format!("({b} > {a} ? {b} : {a})"),
                    B::And => format!("({a} & {b})"),
                    B::Or => format!("({a} | {b})"),
                    B::Xor => format!("({a} ^ {b})"),
                    B::Shl => wrap(self.call("shl", t, &[a, b])),
                    B::Shr => self.call("shr", t, &[a, b]),
                    _ => unreachable!("{} on integers", op.name()),
                }
            }
        }
    }

    /// `a * b + c` rounded once (`fma_f32`, `fma_f64`): GLSL's `fma` may round twice (its
    /// precision is the driver's), so it is emulated exactly from exact products and sums;
    /// on devices without 64-bit floats f32 takes the builtin.
    pub fn fma(&mut self, t: DType, a: &str, b: &str, c: &str) -> String {
        if t == DType::F32 && !self.float64 {
            return format!("fma({a}, {b}, {c})");
        }
        if t == DType::F64 {
            self.math = true;
        }
        self.call("fma", t, &[a, b, c])
    }

    /// Element `index` (an `int64_t` expression) of a random array `dist` of type `t`
    /// from the draw `draw` of seed `seed` of generator `kind`, with the distribution's
    /// parameters `params` (expressions): the same bits as the CPU executor's uniform
    /// values, integers and decisions. `out` gets the statements before it: they compute
    /// the element's generator block, and for a normal value its Box-Muller pair, only
    /// when it is not the one the invocation computed last (held in the variables
    /// `random_cache` declares under the same `name`), so consecutive elements taken by
    /// one invocation share them; rejection methods take their own blocks in their loops.
    #[allow(clippy::too_many_arguments)]
    pub fn random(
        &mut self,
        t: DType,
        kind: RngKind,
        dist: Distribution,
        [seed, draw, index]: [&str; 3],
        params: &[String],
        name: &str,
        out: &mut String,
    ) -> String {
        self.random = true;
        self.loops += RANDOM_LOOPS;
        let f32 = t == DType::F32;
        self.random_f64 |= t == DType::F64 || dist.needs_f64();
        let k = kind_code(kind);
        let (ty, vec) = (reg_type(t), if f32 { "vec2" } else { "dvec2" });
        let block = |out: &mut String, b: &str| {
            out.push_str(&format!(
                "if ({b} != {name}_blk) {{ {name}_blk = {b}; {name}_w = r_block({k}, {seed}, {draw}, {b}); }}\n"
            ))
        };
        // f32 values take one word, f64 ones two; a normal pair takes two values.
        let words = |half: &str| {
            let w = format!("{name}_w");
            if f32 {
                format!("({half} ? {vec}(r_f32({w}.z), r_f32({w}.w)) : {vec}(r_f32({w}.x), r_f32({w}.y)))")
            } else {
                format!("({half} ? r_f64({w}.z, {w}.w) : r_f64({w}.x, {w}.y))")
            }
        };
        let e = format!("{name}_e");
        let p = |j: usize| params[j].as_str();
        let own = format!("{k}, {seed}, {draw}, {e}");
        // The element's word (one per element) and 64-bit word (two, high first).
        let word = |out: &mut String| {
            block(out, &format!("({e} >> 2)"));
            format!("{name}_w[uint({e}) & 3u]")
        };
        let wide_word = |out: &mut String| {
            block(out, &format!("({e} >> 1)"));
            let w = format!("{name}_w");
            format!(
                "(((uint({e}) & 1u) != 0u) ? packUint2x32(uvec2({w}.w, {w}.z)) : packUint2x32(uvec2({w}.y, {w}.x)))"
            )
        };
        out.push_str(&format!("uint64_t {e} = uint64_t({index});\n"));
        // The element's uniform value.
        let uniform = |out: &mut String| {
            if f32 {
                block(out, &format!("({e} >> 2)"));
                format!("r_f32({name}_w[uint({e}) & 3u])")
            } else {
                block(out, &format!("({e} >> 1)"));
                words(&format!("((uint({e}) & 1u) != 0u)"))
            }
        };
        match dist {
            Distribution::Uniform => uniform(out),
            Distribution::Normal => {
                // The pair's radius sqrt(-2 ln(1 - u)) times cos(2 pi v) and sin(2 pi v).
                let pr = format!("{name}_p");
                let mut pair = String::new();
                let uv = if f32 {
                    block(&mut pair, &format!("({pr} >> 1)"));
                    words(&format!("((uint({pr}) & 1u) != 0u)"))
                } else {
                    block(&mut pair, &pr);
                    format!("{vec}(r_f64({name}_w.x, {name}_w.y), r_f64({name}_w.z, {name}_w.w))")
                };
                pair += &format!("{vec} {name}_uv = {uv};\n");
                let ln = self.ln_one_minus(t, &format!("{name}_uv.x"));
                let cos_sin = self.cos_sin_turns(t, &format!("{name}_uv.y"));
                pair += &format!("precise {ty} {name}_r = sqrt({ty}(-2) * {ln});\n{name}_nv = {name}_r * {cos_sin};\n");
                out.push_str(&format!(
                    "uint64_t {pr} = {e} >> 1;\nif ({pr} != {name}_pair) {{\n{name}_pair = {pr};\n{pair}}}\n"
                ));
                format!("(((uint({e}) & 1u) == 0u) ? {name}_nv.x : {name}_nv.y)")
            }
            Distribution::UniformRange | Distribution::Exponential => {
                let u = uniform(out);
                writeln!(out, "precise {ty} {name}_u = {u};").unwrap();
                let u = format!("{name}_u");
                if dist == Distribution::Exponential {
                    format!("(-{})", self.ln_one_minus(t, &u))
                } else {
                    self.laws |= f32;
                    self.laws_f64 |= !f32;
                    format!("r_uniform_range_{}({u}, {}, {}, {})", suffix(t), p(0), p(1), p(2))
                }
            }
            Distribution::Bernoulli => format!("(uint64_t({}) < uint64_t({}))", word(out), p(0)),
            Distribution::Integers => {
                self.laws = true;
                self.loops += (ELEMENT_BLOCKS as usize - 1) * (RANDOM_LOOPS + 4);
                // lo + x is in the type's range: no narrowing needed.
                if t.size() <= 4 {
                    let w = word(out);
                    format!("({} + {ty}(r_below32({own}, {w}, uint64_t({}), uint({}))))", p(0), p(1), p(2))
                } else {
                    let w = wide_word(out);
                    format!("({} + {ty}(r_below64({own}, {w}, uint64_t({}), uint64_t({}))))", p(0), p(1), p(2))
                }
            }
            Distribution::Poisson { large } => {
                self.laws_f64 = true;
                let k = if large {
                    self.loops += ELEMENT_BLOCKS as usize * (RANDOM_LOOPS + BD0_TERMS as usize);
                    format!("r_ptrs({own}, {}, {}, {}, {}, {})", p(0), p(1), p(2), p(3), p(4))
                } else {
                    self.loops += POISSON_INVERSION_STEPS as usize;
                    let w = format!("{name}_w0");
                    writeln!(out, "uvec4 {w} = r_element_block({own}, 0u);").unwrap();
                    format!("r_poisson_inversion(r_f64({w}.x, {w}.y), {}, {})", p(0), p(1))
                };
                format!("{ty}({k})")
            }
            Distribution::Gamma { boost, log } => {
                self.laws |= f32;
                self.laws_f64 |= !f32;
                self.loops += (ELEMENT_BLOCKS as usize - 1) * RANDOM_LOOPS;
                let (tv, bv) = (format!("{name}_t"), format!("{name}_b"));
                writeln!(
                    out,
                    "{ty} {bv};\nprecise {ty} {tv} = r_gamma_{}({own}, {}, {}, {bv});",
                    suffix(t),
                    p(0),
                    p(1)
                )
                .unwrap();
                let ln = |h: &mut Helpers, x: &str| h.ln_positive(t, x);
                match (log, boost) {
                    (true, _) => {
                        let base = format!("({} + {ty}(3) * {})", ln(self, p(0)), ln(self, &tv));
                        if boost { format!("({base} + {} * {})", ln(self, &bv), p(2)) } else { base }
                    }
                    (false, false) => format!("({} * ({tv} * {tv} * {tv}))", p(0)),
                    (false, true) => {
                        let arg = format!("({} * {})", ln(self, &bv), p(2));
                        let exp = self.unary(UnaryOp::Exp, t, &arg);
                        format!("({} * ({tv} * {tv} * {tv}) * {exp})", p(0))
                    }
                }
            }
        }
    }

    /// A Sobol' coordinate of type `t` from its digits `x` (a `uint` variable), scrambled
    /// as `scramble` says with the seed `seed` (an `int64_t` expression) and the dimension
    /// `dim` (an `int64_t` expression).
    pub fn sobol(&mut self, t: DType, scramble: Scramble, x: &str, seed: &str, dim: &str) -> String {
        self.random = true;
        self.sobol = true;
        self.loops += SOBOL_LOOPS;
        let word = format!("r_sobol_seed({seed}, uint({dim}))");
        let digits = match scramble {
            Scramble::None => x.to_string(),
            Scramble::Shift => format!("({x} ^ {word})"),
            Scramble::Owen => format!("r_sobol_owen({x}, {word})"),
        };
        match t {
            DType::F32 => format!("r_sobol_f32({digits})"),
            _ => format!("(double({digits}) * {})", literal(Scalar::F64(1.0 / (1u64 << 32) as f64))),
        }
    }

    /// `ln x` of a positive normal value `x` of type `t`: the portable log (as the CPU's
    /// f32 `ln_normal`; fdlibm's for f64).
    fn ln_positive(&mut self, t: DType, x: &str) -> String {
        if t == DType::F32 {
            return format!("r_ln_normal({x})");
        }
        self.laws_f64 = true;
        format!("r_ln_d({x})")
    }

    /// `ln(1 - u)` of a uniform value `u` of type `t` (`1 - u` is exact and normal). f32 takes
    /// the CPU executor's log without special cases (`r_ln_normal`): a device's own f32 `log`
    /// may be far off near 1 (lavapipe's by hundreds of ulps), which put small normal values
    /// 1e-6 off on devices without f64. f64 takes the double-precision library's.
    fn ln_one_minus(&mut self, t: DType, u: &str) -> String {
        if t == DType::F32 {
            return format!("r_ln_normal(1.0 - {u})");
        }
        self.unary(UnaryOp::Log, t, &format!("(1.0lf - {u})"))
    }

    /// `(cos 2 pi v, sin 2 pi v)` (a `vec2`/`dvec2`) of a uniform value `v` of type `t`. f32
    /// takes the angle in turns as the CPU executor does (`r_cos_sin_turns`), exact in the
    /// quarter turns: `2 pi v` rounded to f32 put values near a zero of the cosine up to
    /// 3e-6 off on devices without f64, whose GLSL `cos` has no better argument either.
    /// f64 rounds `2 pi v` by at most 4.4e-16.
    fn cos_sin_turns(&mut self, t: DType, v: &str) -> String {
        if t == DType::F32 {
            return format!("r_cos_sin_turns({v})");
        }
        let tau = literal(Scalar::F64(std::f64::consts::TAU));
        let cos = self.unary(UnaryOp::Cos, t, &format!("({tau} * {v})"));
        let sin = self.unary(UnaryOp::Cos, t, &format!("({tau} * ({v} - 0.25lf))"));
        format!("dvec2({cos}, {sin})")
    }

    /// The statements computing the values of `step` consecutive elements `first ..` (a
    /// `uint64_t` expression, a multiple of `step`, which divides the values of a block)
    /// of a random array `name`: the block they lie in, and for normal values the step's
    /// `step / 2` pairs, in `{name}_nv`. `random_step_value` reads them.
    pub fn random_step(
        &mut self,
        t: DType,
        kind: RngKind,
        dist: Distribution,
        [seed, draw, first]: [&str; 3],
        step: usize,
        name: &str,
    ) -> String {
        self.random = true;
        let f32 = t == DType::F32;
        self.random_f64 |= !f32;
        let (ty, vec) = (reg_type(t), if f32 { "vec2" } else { "dvec2" });
        let shift = if f32 { 2 } else { 1 };
        let w = format!("{name}_w");
        let mut s = format!("uvec4 {w} = r_block({}, {seed}, {draw}, {first} >> {shift});\n", kind_code(kind));
        if dist == Distribution::Normal {
            writeln!(s, "{vec} {name}_nv[{}];", step / 2).unwrap();
            for q in 0..step / 2 {
                let uv = format!("{name}_uv{q}");
                if f32 {
                    // Pair q of the step takes words x, y or z, w by its parity.
                    writeln!(
                        s,
                        "{vec} {uv} = ((uint({first} >> 1) + {q}u) & 1u) != 0u ? {vec}(r_f32({w}.z), r_f32({w}.w)) \
                         : {vec}(r_f32({w}.x), r_f32({w}.y));"
                    )
                    .unwrap();
                } else {
                    writeln!(s, "{vec} {uv} = {vec}(r_f64({w}.x, {w}.y), r_f64({w}.z, {w}.w));").unwrap();
                }
                let ln = self.ln_one_minus(t, &format!("{uv}.x"));
                let cos_sin = self.cos_sin_turns(t, &format!("{uv}.y"));
                writeln!(
                    s,
                    "precise {ty} {name}_r{q} = sqrt({ty}(-2) * {ln});\n{name}_nv[{q}] = {name}_r{q} * {cos_sin};"
                )
                .unwrap();
            }
        }
        s
    }

    /// Element `first + j` of the step `random_step` computed (`j` a `uint` expression).
    pub fn random_step_value(t: DType, dist: Distribution, name: &str, first: &str, j: &str) -> String {
        let w = format!("{name}_w");
        match (dist, t) {
            (Distribution::Uniform, DType::F32) => format!("r_f32({w}[(uint({first}) + {j}) & 3u])"),
            (Distribution::Uniform, _) => {
                format!("(((uint({first}) + {j}) & 1u) != 0u ? r_f64({w}.z, {w}.w) : r_f64({w}.x, {w}.y))")
            }
            // `first` is even: the pair of the step is j / 2, its value j % 2.
            (Distribution::Normal, _) => format!("{name}_nv[{j} >> 1u][{j} & 1u]"),
            (other, _) => unreachable!("{other:?} values are computed point by point"),
        }
    }

    /// The declarations, at the start of a shader's `main`, of the variables of the random
    /// array `name` of type `t` that `random` keeps from one element to the next: the
    /// generator block last computed (no block index is all ones) and for a normal array
    /// the pair last computed.
    pub fn random_cache(t: DType, dist: Distribution, name: &str) -> String {
        let mut s = format!("uint64_t {name}_blk = ~uint64_t(0); uvec4 {name}_w = uvec4(0u);\n");
        if dist == Distribution::Normal {
            let vec = if t == DType::F32 { "vec2" } else { "dvec2" };
            s += &format!("uint64_t {name}_pair = ~uint64_t(0); precise {vec} {name}_nv = {vec}(0);\n");
        }
        s
    }

    /// `a` (of type `from`) converted with the cast op's rules.
    pub fn cast(&mut self, from: DType, to: DType, a: &str) -> String {
        if from == to {
            return a.to_string();
        }
        match (from, to) {
            (_, DType::Bool) => match from {
                DType::F32 | DType::F64 => format!("({a} != {}(0))", reg_type(from)),
                _ => format!("({a} != {})", lit(from, 0)),
            },
            (DType::Bool, _) => format!("({a} ? {} : {})", lit(to, 1), lit(to, 0)),
            (DType::F32 | DType::F64, DType::I8 | DType::I32 | DType::I64 | DType::U8 | DType::U32 | DType::U64) => {
                self.call(&format!("to_{}", suffix(to)), from, &[a])
            }
            (_, DType::U8) => format!("(uint({a}) & 0xFFu)"),
            (_, DType::I8) => format!("bitfieldExtract(int({a}), 0, 8)"),
            // Sign extension spelled out: lavapipe (Mesa 22.3.6) took a plain int64_t(int)
            // for positive when comparing it with a constant (`sign` gave 1, `abs` the input,
            // also through a cast to float); the packed form it leaves alone.
            (DType::I8 | DType::I32, DType::I64) => format!("packInt2x32(ivec2({a}, {a} >> 31))"),
            (DType::I8 | DType::I32, DType::U64) => format!("packUint2x32(uvec2(uint({a}), uint({a} >> 31)))"),
            _ => format!("{}({a})", reg_type(to)),
        }
    }

    /// The helper functions used so far.
    pub fn source(&self) -> String {
        let mut s = String::new();
        if self.math {
            s += &two_over_pi();
            s += include_str!("math.glsl");
        }
        if self.special {
            s += &special::source_f64();
        }
        if self.random {
            s += &random_constants();
            s += include_str!("random.glsl");
            s += &ln_normal_f32();
            s += &cos_sin_turns_f32();
        }
        if self.sobol {
            s += include_str!("sobol.glsl");
        }
        if self.laws {
            s += &random_constants_f32();
            s += include_str!("random_dist.glsl");
        }
        if self.random_f64 {
            s += include_str!("random_f64.glsl");
        }
        if self.laws_f64 {
            s += &random_constants_f64();
            s += include_str!("random_dist_f64.glsl");
        }
        for (name, t) in &self.used {
            s += &match name.as_str() {
                "to_i32" => float_to_int(*t, DType::I32),
                "to_i64" => float_to_int(*t, DType::I64),
                "to_u8" => float_to_int(*t, DType::U8),
                "to_u32" => float_to_int(*t, DType::U32),
                "to_u64" => float_to_int(*t, DType::U64),
                "to_i8" => float_to_int(*t, DType::I8),
                _ => helper(name, *t),
            };
        }
        s
    }
}

/// GLSL Horner form of `c[0] + c[1] g + ...` in the variable `g`, the CPU's order
/// (`ir::random::portable::horner`), with exact literals of the coefficients' type.
fn horner<T: Copy>(c: &[T], g: &str, lit: impl Fn(T) -> Scalar) -> String {
    let mut e = literal(lit(c[c.len() - 1]));
    for &k in c[..c.len() - 1].iter().rev() {
        e = format!("({} + {g} * {e})", literal(lit(k)));
    }
    e
}

fn horner_f32(c: &[f32], g: &str) -> String {
    horner(c, g, Scalar::F32)
}

fn horner_f64(c: &[f64], g: &str) -> String {
    horner(c, g, Scalar::F64)
}

/// The number of a generator in random.glsl's `r_block`.
fn kind_code(kind: RngKind) -> i32 {
    match kind {
        RngKind::Philox => 0,
        RngKind::Fast => 1,
        RngKind::Threefry => 2,
    }
}

/// The constants random.glsl needs: the layout of elements' own blocks.
fn random_constants() -> String {
    format!(
        "const uint R_ELEMENT_BLOCK_SHIFT = {ELEMENT_BLOCK_SHIFT}u;\nconst uint R_ELEMENT_BLOCKS = {ELEMENT_BLOCKS}u;\n"
    )
}

/// The constants and fits random_dist.glsl needs, exact.
fn random_constants_f32() -> String {
    format!(
        "#define R_MT_SQUEEZE_F32 {}\nfloat r_mt_series_f32(float y) {{ precise float r = {}; return r; }}\n",
        literal(Scalar::F32(MT_SQUEEZE as f32)),
        horner_f32(&MT_SERIES_F32, "y")
    )
}

/// The constants and fits random_dist_f64.glsl needs, exact.
fn random_constants_f64() -> String {
    let d = |x: f64| literal(Scalar::F64(x));
    let mut s = String::new();
    for (name, v) in [
        ("R_MT_SQUEEZE_F64", MT_SQUEEZE),
        ("R_LN2_HI_D", LN2_PARTS_F64[0]),
        ("R_LN2_LO_D", LN2_PARTS_F64[1]),
        ("R_MAGIC_D", 6_755_399_441_055_744.0),
        ("R_TAU_D", std::f64::consts::TAU),
        ("R_PTRS_SMALL_US", PTRS_SMALL_US),
        ("R_PTRS_SQUEEZE_US", PTRS_SQUEEZE_US),
        ("R_PTRS_SHIFT", PTRS_SHIFT),
        ("R_BD0_NEAR", BD0_NEAR),
    ] {
        writeln!(s, "#define {name} {}", d(v)).unwrap();
    }
    for (j, v) in LG_F64.iter().enumerate() {
        writeln!(s, "#define R_LG{} {}", j + 1, d(*v)).unwrap();
    }
    for (j, v) in STIRLING_SERIES.iter().enumerate() {
        writeln!(s, "#define R_S{j} {}", d(*v)).unwrap();
    }
    writeln!(s, "const uint R_POISSON_INVERSION_STEPS = {POISSON_INVERSION_STEPS}u;").unwrap();
    writeln!(s, "const uint R_BD0_TERMS = {BD0_TERMS}u;").unwrap();
    for (name, x, c) in [
        ("r_mt_series_f64", "y", &MT_SERIES_F64[..]),
        ("r_cos_turns_d", "g", &COS_TURNS_F64),
        ("r_sin_turns_d", "g", &SIN_TURNS_F64),
    ] {
        writeln!(s, "double {name}(double {x}) {{ precise double r = {}; return r; }}", horner_f64(c, x)).unwrap();
    }
    // The table by binary search (see `two_over_pi`).
    fn pick(lo: usize, hi: usize) -> String {
        if hi - lo == 1 {
            return literal(Scalar::F64(STIRLERR[lo]));
        }
        let mid = (lo + hi) / 2;
        format!("(i < {mid} ? {} : {})", pick(lo, mid), pick(mid, hi))
    }
    writeln!(s, "double r_stirlerr_table(int i) {{ return {}; }}", pick(0, STIRLERR.len())).unwrap();
    s
}

/// `r_ln_normal(x)`: `ln x` for a positive normal f32 `x`, as the CPU executor's
/// `math::ln_normal` computes it: `x = 2^k m`, `m` in `[sqrt(2)/2, sqrt(2))` from the bits,
/// `log(1 + f) = f + f^2 Q(f)` for `f = m - 1` (exact), plus `k ln 2` in two parts.
fn ln_normal_f32() -> String {
    let [hi, lo] = LN2_PARTS_F32;
    format!(
        "float r_ln_normal(float x) {{\n\
         uint b = floatBitsToUint(x);\n\
         int k = int(b - 0x3f3504f3u) >> 23;\n\
         precise float f = uintBitsToFloat(b - (uint(k) << 23)) - 1.0;\n\
         precise float p = f + f * f * {};\n\
         precise float kf = float(k);\n\
         precise float ln = kf * {} + (kf * {} + p);\n\
         return ln;\n}}\n",
        horner_f32(&LN1P_Q_F32, "f"),
        literal(Scalar::F32(hi)),
        literal(Scalar::F32(lo)),
    )
}

/// `r_cos_sin_turns(v)`: `vec2(cos 2 pi v, sin 2 pi v)` for an f32 `v` in `[0, 1]`, as the CPU
/// executor computes it (`math::cos_sin_turns`, the same fits): `v = n/4 + f` exactly with
/// `|f| <= 1/8`, the fits in `f`, then `n` quarter turns.
fn cos_sin_turns_f32() -> String {
    format!(
        "vec2 r_cos_sin_turns(float v) {{\n\
         float q = roundEven(4.0 * v);\n\
         precise float f = v - 0.25 * q;\n\
         precise float g = f * f;\n\
         precise vec2 cs = {};\n\
         uint n = uint(q);\n\
         cs = (n & 1u) != 0u ? vec2(-cs.y, cs.x) : cs;\n\
         return (n & 2u) != 0u ? -cs : cs;\n}}\n",
        cos_sin_eighth_turn_f32("f", "g")
    )
}

/// `vec2(cos 2 pi f, sin 2 pi f)` for an f32 `f` with `|f| <= 1/8` turn and `g = f * f`
/// (the CPU executor's fits, `math::cos_sin_turns`).
pub fn cos_sin_eighth_turn_f32(f: &str, g: &str) -> String {
    format!("vec2(1.0 + {g} * {}, {f} * {})", horner_f32(&COS_TURNS_F32, g), horner_f32(&SIN_TURNS_F32, g))
}

/// The bits of 2/pi for math.glsl's large trigonometric arguments (the CPU executor's
/// table), as a function that picks word `i` by binary search: a constant array indexed
/// at run time made every sin/cos/tan on lavapipe about ten times slower, used or not.
fn two_over_pi() -> String {
    fn pick(lo: usize, hi: usize) -> String {
        if hi - lo == 1 {
            return format!("0x{:08x}u", TWO_OVER_PI[lo]);
        }
        let mid = (lo + hi) / 2;
        format!("(i < {mid} ? {} : {})", pick(lo, mid), pick(mid, hi))
    }
    format!("uint m_two_over_pi(int i) {{ return {}; }}\n", pick(0, TWO_OVER_PI.len()))
}

/// Helpers a helper of type `t` calls.
fn deps(name: &str, t: DType) -> &'static [&'static str] {
    match name {
        "fma" if t == DType::F32 => &[],
        "asinh" | "atanh" => &["log1p"],
        "sinh" | "tanh" => &["expm1"],
        "nextafter" => &["copysign"],
        "erf" => &["erfcc"],
        "fma" => &["round_odd", "fma_core"],
        "fma_core" => &["round_odd"],
        _ => special::deps_f32(name),
    }
}

/// Saturating float-to-integer conversion (NaN gives 0), like Rust's `as`.
fn float_to_int(from: DType, to: DType) -> String {
    let (f, i) = (reg_type(from), reg_type(to));
    let name = format!("to_{}_{}", suffix(to), suffix(from));
    match to {
        DType::U8 => format!("uint {name}({f} x) {{ return x >= {f}(255) ? 255u : (x > {f}(0) ? uint(x) : 0u); }}\n"),
        _ => {
            // x at or below `lo` saturates to `min` (for u32 every x <= 0 is 0: a negative
            // float's conversion to uint is undefined).
            let (hi, lo, max, min) = match to {
                DType::I8 => ("128.0", "-128.0", "127", "(-128)"),
                DType::I32 => ("2147483648.0", "-2147483648.0", "2147483647", "(-2147483647 - 1)"),
                DType::U32 => ("4294967296.0", "0.0", "4294967295u", "0u"),
                DType::U64 => ("18446744073709551616.0", "0.0", "uint64_t(0xfffffffffffffffful)", "uint64_t(0)"),
                _ => (
                    "9223372036854775808.0",
                    "-9223372036854775808.0",
                    "int64_t(0x7fffffffffffffffl)",
                    "int64_t(0x8000000000000000ul)",
                ),
            };
            // The largest float below 2^31 (2^32, 2^63, 2^64), which x does not exceed where it is
            // converted: the min changes nothing but keeps drivers from taking the
            // conversion of an integer cast to float as that integer (Mesa folds
            // f2i(i2f(a)) to a unless exact; lavapipe gave i64(f32(16777217)) = 16777217).
            let below = {
                let limit = match to {
                    DType::I8 => 2f64.powi(7),
                    DType::I32 => 2f64.powi(31),
                    DType::U32 => 2f64.powi(32),
                    DType::U64 => 2f64.powi(64),
                    _ => 2f64.powi(63),
                };
                literal(if from == DType::F32 {
                    Scalar::F32((limit as f32).next_down())
                } else {
                    Scalar::F64(limit.next_down())
                })
            };
            format!(
                "{i} {name}({f} x) {{ return isnan(x) ? {i}(0) : (x >= {f}({hi}) ? {max} : \
                 (x <= {f}({lo}) ? {min} : {i}(min(x, {below})))); }}\n"
            )
        }
    }
}

fn helper(name: &str, t: DType) -> String {
    let ty = reg_type(t);
    let sfx = suffix(t);
    let f = |body: &str, args: &str| format!("{ty} {name}_{sfx}({args}) {{\n{body}\n}}\n");
    let x = &format!("{ty} x");
    let xy = &format!("{ty} x, {ty} y");
    match name {
        "sign" => f(&format!("return x > {ty}(0) ? {ty}(1) : (x < {ty}(0) ? {ty}(-1) : x);"), x),
        "min" => f("return (isnan(x) || isnan(y)) ? x + y : (x < y ? x : y);", xy),
        "max" => f("return (isnan(x) || isnan(y)) ? x + y : (x > y ? x : y);", xy),
        // Half away from zero; |x| - trunc|x| is exact, and the sign of x is copied so
        // that -0.4 gives -0.
        "round" => {
            let sign = if t == DType::F32 {
                "return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));"
            } else {
                "uvec2 rb = unpackDouble2x32(r); rb.y |= unpackDouble2x32(x).y & 0x80000000u; return packDouble2x32(rb);"
            };
            f(
                &format!(
                    "{ty} a = abs(x); {ty} t = trunc(a); precise {ty} d = a - t;\n\
                     {ty} r = d >= {ty}(0.5) ? t + {ty}(1) : t;\n{sign}"
                ),
                x,
            )
        }
        // Exact remainder with the dividend's sign, in integers: |x| = mx 2^ex, |y| = my 2^ey
        // (ex >= ey), so |x| mod |y| = (mx 2^(ex - ey) mod my) 2^ey, the power of two taken
        // a few bits at a time so that the shifted remainder fits 64 bits.
        "fmod" => {
            // (bits as uint64, explicit mantissa bits, exponent field mask, exponent bias of
            // the integer mantissa, smallest normal exponent, chunk, 2^k)
            let (bits, digits, field, bias, min_normal, chunk, pow2) = if t == DType::F32 {
                ("uint64_t(floatBitsToUint(a))", 23, 0xff, 150, -126, 40, "uintBitsToFloat(uint(k + 127) << 23)")
            } else {
                (
                    "packUint2x32(unpackDouble2x32(a))",
                    52,
                    0x7ff,
                    1075,
                    -1022,
                    11,
                    "packDouble2x32(uvec2(0u, uint(k + 1023) << 20))",
                )
            };
            let (mant, implicit) = ((1u64 << digits) - 1, 1u64 << digits);
            let body = f(
                &format!(
                    "if (isnan(x) || isnan(y) || isinf(x) || y == {ty}(0)) return {ty}(0) / {ty}(0) + x * y;\n\
                     {ty} ax = abs(x), ay = abs(y);\n\
                     if (isinf(y) || ax < ay) return x;\n\
                     int ex, ey;\n\
                     uint64_t mx = fmod_parts_{sfx}(ax, ex), my = fmod_parts_{sfx}(ay, ey);\n\
                     uint64_t r = mx % my;\n\
                     for (int d = ex - ey; d > 0; d -= {chunk}) r = (r << min(d, {chunk})) % my;\n\
                     {ty} v = {ty}(r);\n\
                     v = ey >= {min_normal} ? v * fmod_pow2_{sfx}(ey) : (v * fmod_pow2_{sfx}(ey + 64)) * fmod_pow2_{sfx}(-64);\n\
                     return x < {ty}(0) ? -v : v;"
                ),
                xy,
            );
            format!(
                "{ty} fmod_pow2_{sfx}(int k) {{ return {pow2}; }}\n\
                 uint64_t fmod_parts_{sfx}({ty} a, out int e) {{\n\
                   uint64_t b = {bits};\n\
                   int field = int((b >> {digits}) & 0x{field:x}ul);\n\
                   e = max(field, 1) - {bias};\n\
                   return (b & 0x{mant:x}ul) | (field == 0 ? 0ul : 0x{implicit:x}ul);\n\
                 }}\n{body}"
            )
        }
        // sqrt(x^2 + y^2) in f32, scaled by the larger one (devices without f64; with it,
        // math.glsl's m_hypot).
        "hypot" => f(
            "if (isinf(x) || isinf(y)) return 1.0 / 0.0;\n\
             if (isnan(x) || isnan(y)) return x + y;\n\
             float a = max(abs(x), abs(y)), b = min(abs(x), abs(y));\n\
             if (a == 0.0) return 0.0;\n\
             precise float r = b / a; precise float s = a * sqrt(1.0 + r * r); return s;",
            xy,
        ),
        // C pow: exact special cases, the builtin (defined for x > 0 only) otherwise.
        "pow" => f(
            "if (y == 0.0 || x == 1.0) return 1.0;\n\
             if (isnan(x) || isnan(y)) return x + y;\n\
             float ax = abs(x);\n\
             bool yint = trunc(y) == y;\n\
             bool yodd = yint && abs(y) < 16777216.0 && fract(y * 0.5) != 0.0;\n\
             float inf = 1.0 / 0.0;\n\
             if (isinf(y)) return ax == 1.0 ? 1.0 : (((ax > 1.0) == (y > 0.0)) ? inf : 0.0);\n\
             if (isinf(x) || ax == 0.0) {\n\
               bool big = isinf(x) == (y > 0.0);\n\
               float m = big ? inf : 0.0;\n\
               return (x < 0.0 || (x == 0.0 && floatBitsToUint(x) != 0u)) && yodd ? -m : m;\n\
             }\n\
             if (x < 0.0 && !yint) return 0.0 / 0.0;\n\
             float r = pow(ax, y);\n\
             return x < 0.0 && yodd ? -r : r;",
            xy,
        ),
        "atan2" => f(
            "const float pi = 3.14159265358979;\n\
             if (isnan(x) || isnan(y)) return x + y;\n\
             bool xneg = floatBitsToUint(y) >= 0x80000000u;\n\
             float s = floatBitsToUint(x) >= 0x80000000u ? -1.0 : 1.0;\n\
             if (isinf(x) && isinf(y)) return s * (xneg ? 0.75 * pi : 0.25 * pi);\n\
             if (x == 0.0 && y == 0.0) return s * (xneg ? pi : 0.0) + x * 0.0;\n\
             if (isinf(y)) return xneg ? s * pi : s * 0.0;\n\
             if (isinf(x)) return s * 0.5 * pi;\n\
             return atan(x, y);",
            xy,
        ),
        // Through expm1 where exp(x) - exp(-x) would cancel.
        "sinh" => f(
            "float a = abs(x);\n\
             float r = a < 1.0 ? 0.5 * (expm1_f32(a) + expm1_f32(a) / (expm1_f32(a) + 1.0)) : sinh(a);\n\
             return x < 0.0 ? -r : r;",
            x,
        ),
        "cosh" => f("return cosh(x);", x),
        "tanh" => f(
            "float a = abs(x);\n\
             float e = expm1_f32(2.0 * a);\n\
             float r = a > 10.0 ? 1.0 : e / (e + 2.0);\n\
             return x < 0.0 ? -r : r;",
            x,
        ),
        "asinh" => f(
            "float a = abs(x);\n\
             float r = a < 0.5 ? log1p_f32(a + a * a / (1.0 + sqrt(1.0 + a * a)))\n\
               : (a > 1e18 ? log(a) + 0.693147180559945 : log(a + sqrt(a * a + 1.0)));\n\
             return x < 0.0 ? -r : r;",
            x,
        ),
        "acosh" => f("return x > 1e18 ? log(x) + 0.693147180559945 : log(x + sqrt(x * x - 1.0));", x),
        "atanh" => f("float a = abs(x); float r = 0.5 * log1p_f32(2.0 * a / (1.0 - a)); return x < 0.0 ? -r : r;", x),
        // Newton step on exp2(log2|x| / 3).
        "cbrt" => f(
            "if (x == 0.0 || isinf(x) || isnan(x)) return x;\n\
             float a = abs(x); float r = exp2(log2(a) / 3.0);\n\
             r = r - (r * r * r - a) / (3.0 * r * r);\n\
             return x < 0.0 ? -r : r;",
            x,
        ),
        // Kahan's formulations: exact where exp/log round to 1.
        "expm1" => f(
            "float u = exp(x);\n\
             if (u == 1.0) return x;\n\
             float um = u - 1.0;\n\
             if (um == -1.0) return -1.0;\n\
             if (isinf(u)) return u;\n\
             return um * x / log(u);",
            x,
        ),
        "log1p" => f(
            "float u = 1.0 + x;\n\
             if (u == 1.0) return x;\n\
             if (isinf(u) || u == 0.0) return log(u);\n\
             return log(u) * x / (u - 1.0);",
            x,
        ),
        "log10" => f("return log2(x) * 0.301029995663981;", x),
        // Taylor series near 0, Numerical Recipes' erfc fit (special.rs) beyond.
        "erf" => f(
            "float a = abs(x);\n\
             if (a < 0.5) {\n\
               float z = x * x;\n\
               return x * 1.1283791670955126 * (1.0 + z * (-1.0 / 3.0 + z * (0.1 + z * (-1.0 / 42.0 + z * (1.0 / 216.0 + z * (-1.0 / 1320.0))))));\n\
             }\n\
             if (a > 4.0) return x < 0.0 ? -1.0 : 1.0;\n\
             float c = erfcc_f32(a);\n\
             return x < 0.0 ? c - 1.0 : 1.0 - c;",
            x,
        ),
        // f32: the product is exact in f64 and the sum rounded to odd there (the other
        // neighbour of the rounded sum when that is even and inexact), so rounding to f32 is
        // then correct (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums:
        // proved algorithms using rounding to odd", IEEE TC 2008).
        "fma" if t == DType::F32 => f(
            "precise double p = double(x) * double(y);\n\
             precise double s = p + double(z);\n\
             precise double pp = s - double(z);\n\
             precise double e = (p - pp) + (double(z) - (s - pp));\n\
             uvec2 w = unpackDouble2x32(s);\n\
             if (e != 0.0lf && !isinf(s) && !isnan(s) && (w.x & 1u) == 0u) {\n\
               uint64_t u = packUint2x32(w) + (((e > 0.0lf) == (s > 0.0lf)) ? 1ul : 0xfffffffffffffffful);\n\
               s = packDouble2x32(unpackUint2x32(u));\n\
             }\n\
             return float(s);",
            "float x, float y, float z",
        ),
        // f64: the same paper's algorithm: (uh + ul) = a b exactly (math.glsl's Dekker product),
        // (th + tl) = c + uh exactly, v = tl + ul rounded to odd, the result th + v rounded
        // once. Scaled by powers of two where the product would overflow or its low part
        // underflow; a result below the normal range is rounded to odd in the scaled range
        // and scaled once.
        "fma" => f(
            "if (isnan(x) || isnan(y) || isinf(x) || isinf(y) || x == 0.0lf || y == 0.0lf) return x * y + z;\n\
             if (isinf(z) || isnan(z)) return z;\n\
             int ex, ey, ez = 0;\n\
             precise double mx = m_frexp(x, ex), my = m_frexp(y, ey);\n\
             if (z != 0.0lf) m_frexp(z, ez);\n\
             int ep = ex + ey;\n\
             if (ep > 900 || ex > 990 || ey > 990) return m_ldexp(fma_core_f64(mx, my, m_ldexp(z, -ep), false), ep);\n\
             if (ep < -900) {\n\
               if (z != 0.0lf && ez > ep + 110) return z;\n\
               return m_ldexp(fma_core_f64(mx, my, m_ldexp(z, -ep), true), ep);\n\
             }\n\
             return fma_core_f64(x, y, z, false);",
            "double x, double y, double z",
        ),
        "fma_core" => f(
            "precise double uh, ul, th, tl, s, e;\n\
             m_two_prod(x, y, uh, ul);\n\
             m_two_sum(z, uh, th, tl);\n\
             if (isinf(th)) return th;\n\
             m_two_sum(tl, ul, s, e);\n\
             precise double v = round_odd_f64(s, e);\n\
             if (!odd) return th + v;\n\
             m_two_sum(th, v, s, e);\n\
             return round_odd_f64(s, e);",
            "double x, double y, double z, bool odd",
        ),
        // s + e (e the exact error of s) rounded to odd: s, or its neighbour toward e when s
        // is even and e is not 0.
        "round_odd" => f(
            "uvec2 w = unpackDouble2x32(x);\n\
             if (y == 0.0lf || (w.x & 1u) != 0u) return x;\n\
             uint64_t u = packUint2x32(w) + (((y > 0.0lf) == (x > 0.0lf)) ? 1ul : 0xfffffffffffffffful);\n\
             return packDouble2x32(unpackUint2x32(u));",
            "double x, double y",
        ),
        // Bit patterns: the sign bit is the top bit of the (high) word.
        "copysign" if t == DType::F32 => {
            f("return uintBitsToFloat((floatBitsToUint(x) & 0x7fffffffu) | (floatBitsToUint(y) & 0x80000000u));", xy)
        }
        "copysign" => f(
            "uvec2 b = unpackDouble2x32(x);\n\
             b.y = (b.y & 0x7fffffffu) | (unpackDouble2x32(y).y & 0x80000000u);\n\
             return packDouble2x32(b);",
            xy,
        ),
        // One step of the bit pattern: away from zero when moving outward.
        "nextafter" => {
            let (bits, back, one) = if t == DType::F32 {
                ("floatBitsToUint", "uintBitsToFloat", "1u")
            } else {
                ("packUint2x32(unpackDouble2x32", "packDouble2x32(unpackUint2x32", "1ul")
            };
            let close = if t == DType::F32 { "" } else { ")" };
            let tiny = lit(t, 0);
            f(
                &format!(
                    "if (isnan(x) || isnan(y)) return x + y;\n\
                     if (x == y) return y;\n\
                     if (x == {tiny}) return copysign_{sfx}({back}({one}{close}), y);\n\
                     return {back}(((x > {tiny}) == (y > x)) ? {bits}(x{close}) + {one} : {bits}(x{close}) - {one}{close});"
                ),
                xy,
            )
        }
        // Counts outside 0..bits shift every bit out.
        "shl" if t == DType::U8 => f("return y < 8u ? (x << y) & 0xFFu : 0u;", xy),
        "shl" => f(
            &format!("return (y >= {z} && y < {w}) ? x << y : {z};", z = lit(t, 0), w = lit(t, 8 * t.size() as i64)),
            xy,
        ),
        "shr" if t == DType::U8 => f("return y < 8u ? x >> y : 0u;", xy),
        "shr" => f(
            &format!(
                "return (y >= {z} && y < {w}) ? x >> y : (x < {z} ? {m1} : {z});",
                z = lit(t, 0),
                w = lit(t, 8 * t.size() as i64),
                m1 = lit(t, -1)
            ),
            xy,
        ),
        "idiv" if t.is_unsigned_integer() => f("return y == 0u ? 0u : x / y;", xy),
        "idiv" => {
            f(&format!("return y == {z} ? {z} : (y == {m1} ? {z} - x : x / y);", z = lit(t, 0), m1 = lit(t, -1)), xy)
        }
        "irem" if t.is_unsigned_integer() => f("return y == 0u ? 0u : x % y;", xy),
        "irem" => {
            f(&format!("return (y == {z} || y == {m1}) ? {z} : x - (x / y) * y;", z = lit(t, 0), m1 = lit(t, -1)), xy)
        }
        // Wrapping power by squaring; negative exponents give 0 except for bases 1 and -1.
        "ipow" => {
            let (z, one) = (lit(t, 0), lit(t, 1));
            let (r, b) = (narrow(t, "r * b"), narrow(t, "b * b"));
            let neg = if t.is_unsigned_integer() {
                String::new()
            } else {
                format!(
                    "if (y < {z}) return x == {one} ? {one} : (x == {m1} ? (((y & {one}) != {z}) ? {m1} : {one}) : {z});\n",
                    m1 = lit(t, -1)
                )
            };
            f(
                &format!(
                    "{neg}{ty} r = {one}; {ty} b = x; {ty} e = y;\n\
                     while (e != {z}) {{ if ((e & {one}) != {z}) r = {r}; b = {b}; e = e >> 1; }}\n\
                     return r;"
                ),
                xy,
            )
        }
        _ => special::helper_f32(name).unwrap_or_else(|| unreachable!("no helper {name}")),
    }
}
