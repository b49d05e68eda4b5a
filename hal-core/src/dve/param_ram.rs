//! The DVE parameter RAM's default contents: 256 reciprocals `1/(i+1)` as f32.
//!
//! [000 §4]: the loader stages a 256-entry parameter RAM (`bn_param_ram`,
//! 0x400 bytes = 256 × f32) filled by a SIMD loop computing `1/(i+1)` for
//! i = 0..255 with `_mm_div_pd` (math HIGH; the BatchNorm reading of the name is
//! MED). `_mm_div_pd` divides in **double** precision; the quotients are then
//! converted to f32 (round to nearest even) and stored. [`DEFAULT_PARAM_RAM`]
//! reproduces exactly that: `(1.0f64 / (i + 1) as f64) as f32`, stored
//! little-endian (the device and the x86 host that built it are little-endian).
//! For these 256 divisors the double-then-round result equals the single
//! precision quotient `1.0f32 / (i + 1) as f32` bit for bit (checked by a test),
//! so either reading gives the same table.

/// Entries of the parameter RAM [000 §4], [FACTS §3.4].
pub(super) const PARAM_RAM_ENTRIES: usize = 256;

/// Bytes of the parameter RAM: 256 × 4 = 0x400 [000 §4], [FACTS §3.4].
pub(super) const PARAM_RAM_BYTES: usize = PARAM_RAM_ENTRIES * 4;

static_assertions::const_assert_eq!(PARAM_RAM_BYTES, 0x400);

/// Entry `i` of the default parameter RAM: `1/(i+1)`, divided in double
/// precision then rounded to f32, as the notes' `_mm_div_pd` loop does [000 §4].
pub(super) const fn reciprocal_entry(i: u32) -> f32 {
    (1.0f64 / (i as f64 + 1.0)) as f32
}

/// The default parameter RAM image, 0x400 bytes: entry `i` = `1/(i+1)` as a
/// little-endian f32 [000 §4]. Computed at compile time.
pub(super) const DEFAULT_PARAM_RAM: [u8; PARAM_RAM_BYTES] = build();

// Its one indexing is byte `i % 4` of entry `i / 4` into `out[i]`, with
// `i < 0x400 = out.len()` and `i % 4 < 4`: a const fn cannot use `get_mut`,
// and the bounds are the loop's.
#[allow(clippy::indexing_slicing)]
const fn build() -> [u8; PARAM_RAM_BYTES] {
    let mut out = [0u8; PARAM_RAM_BYTES];
    let mut i = 0;
    while i < PARAM_RAM_BYTES {
        out[i] = reciprocal_entry((i / 4) as u32).to_bits().to_le_bytes()[i % 4];
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_entries_are_exact_reciprocals() {
        let f =
            |i: usize| f32::from_le_bytes(DEFAULT_PARAM_RAM[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(f(0), 1.0);
        assert_eq!(f(1), 0.5);
        assert_eq!(f(3), 0.25);
        assert_eq!(f(255), 1.0 / 256.0);
        // 1/3 as f32 is 0x3EAAAAAB (round to nearest).
        assert_eq!(f(2).to_bits(), 0x3EAA_AAAB);
        assert_eq!(&DEFAULT_PARAM_RAM[0..4], &[0x00, 0x00, 0x80, 0x3F]);
    }

    #[test]
    fn double_then_round_equals_single_division_for_all_256() {
        for i in 0..PARAM_RAM_ENTRIES as u32 {
            let single = 1.0f32 / (i + 1) as f32;
            assert_eq!(reciprocal_entry(i).to_bits(), single.to_bits(), "entry {i}");
        }
    }
}
