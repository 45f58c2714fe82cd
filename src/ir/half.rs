//! Conversions to f16 and bf16 rounded once, to nearest even. The `half` crate rounds f64
//! twice on some targets (through f32 with the F16C instruction; bf16 from the upper 32
//! bits only), so wider values are first brought to f32 rounded to odd: f32 has more
//! than two bits beyond either type's significand, so rounding that value to nearest even
//! gives the correctly rounded result.

use half::{bf16, f16};

/// `x` as f32 rounded to odd: exact values stay, others become the neighbour toward zero
/// with its last significand bit set (which records that bits were dropped).
fn odd_from_f64(x: f64) -> f32 {
    let y = x as f32;
    if y as f64 == x || !y.is_finite() {
        return y;
    }
    let toward_zero = if (y as f64).abs() > x.abs() { f32::from_bits(y.to_bits() - 1) } else { y };
    f32::from_bits(toward_zero.to_bits() | 1)
}

/// An integer as f32 rounded to odd (every integer type's values fit in i128).
fn odd_from_int(v: i128) -> f32 {
    let y = v as f32;
    if y as i128 == v {
        return y;
    }
    let toward_zero = if (y as i128).abs() > v.abs() { f32::from_bits(y.to_bits() - 1) } else { y };
    f32::from_bits(toward_zero.to_bits() | 1)
}

pub fn f16_from_f64(x: f64) -> f16 {
    f16::from_f32(odd_from_f64(x))
}

pub fn bf16_from_f64(x: f64) -> bf16 {
    bf16::from_f32(odd_from_f64(x))
}

pub fn f16_from_int(v: i128) -> f16 {
    f16::from_f32(odd_from_int(v))
}

pub fn bf16_from_int(v: i128) -> bf16 {
    bf16::from_f32(odd_from_int(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values just above a tie of the 16-bit type that f32 rounds onto the tie.
    #[test]
    fn rounds_once() {
        let above_f16_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16_from_f64(above_f16_tie).to_f64(), 1.0 + 2f64.powi(-10));
        assert_eq!(f16_from_f64(-above_f16_tie).to_f64(), -(1.0 + 2f64.powi(-10)));
        let above_bf16_tie = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(bf16_from_f64(above_bf16_tie).to_f64(), 1.0 + 2f64.powi(-7));
        // 2^60 + 2^52 + 1 is above the bf16 tie between 2^60 and 2^60 + 2^53.
        assert_eq!(bf16_from_int((1 << 60) + (1 << 52) + 1).to_f64(), 2f64.powi(60) + 2f64.powi(53));
        assert_eq!(bf16_from_int((1 << 60) + (1 << 52)).to_f64(), 2f64.powi(60));
        assert_eq!(f16_from_int(2049).to_f64(), 2048.0);
        assert_eq!(f16_from_int(2051).to_f64(), 2052.0);
        assert!(f16_from_f64(f64::NAN).is_nan() && f16_from_f64(1e300).is_infinite());
        assert_eq!(f16_from_f64(1e-300).to_bits(), 0);
        assert_eq!(f16_from_f64(-1e-300).to_bits(), 0x8000);
    }
}
