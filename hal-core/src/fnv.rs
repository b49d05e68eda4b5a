//! FNV-1a 64 with a caller seed: the notes' `fnv_64a_buf` [000 §4].
//!
//! The reference runtime uses it to key its kbin hashtable (`ht_buf_*`), beside
//! the DVE loader's SHA-256 fingerprint. The seed (`hval`) is passed in; a fresh
//! hash starts from the standard FNV-1a 64 offset basis [`FNV1A_64_OFFSET_BASIS`].
//! Chaining is supported: hashing `a` then feeding the result as the seed for `b`
//! equals hashing `a ++ b`.

/// The FNV 64-bit prime `0x100000001B3` [000 §4], [FACTS §8].
const FNV_64_PRIME: u64 = 0x0000_0100_0000_01B3;

/// The standard FNV-1a 64 offset basis `0xCBF29CE484222325`: the seed of a fresh
/// hash [FACTS §8] (the FNV specification's `FNV1_64A_INIT`).
pub const FNV1A_64_OFFSET_BASIS: u64 = 0xCBF2_9CE4_8422_2325;

/// FNV-1a 64 over `buf`, starting from `hval` [000 §4]:
/// for each byte, `hval = (hval ^ byte) * 0x100000001B3` (wrapping).
///
/// ```
/// use khal_core::fnv::{fnv_64a_buf, FNV1A_64_OFFSET_BASIS};
/// assert_eq!(fnv_64a_buf(b"a", FNV1A_64_OFFSET_BASIS), 0xaf63dc4c8601ec8c);
/// ```
pub const fn fnv_64a_buf(buf: &[u8], hval: u64) -> u64 {
    let mut h = hval;
    let mut rest = buf;
    // A `while let` over `split_first` keeps this `const` and free of indexing.
    while let [b, tail @ ..] = rest {
        h = (h ^ *b as u64).wrapping_mul(FNV_64_PRIME);
        rest = tail;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn fnv1a_64(buf: &[u8]) -> u64 {
        fnv_64a_buf(buf, FNV1A_64_OFFSET_BASIS)
    }

    /// Published FNV-1a 64 vectors: Landon Curt Noll's FNV test suite
    /// (`test_fnv.c`, the `fnv1a_64_vector` rows for "", "a", "b", "c", "foo",
    /// "foob", "fooba", "foobar"), also in the IETF FNV draft
    /// (draft-eastlake-fnv). Computed independently of this code.
    const VECTORS: &[(&[u8], u64)] = &[
        (b"", 0xcbf2_9ce4_8422_2325),
        (b"a", 0xaf63_dc4c_8601_ec8c),
        (b"b", 0xaf63_df4c_8601_f1a5),
        (b"c", 0xaf63_de4c_8601_eff2),
        (b"foo", 0xdcb2_7518_fed9_d577),
        (b"foob", 0xdd12_0e79_0c25_12af),
        (b"fooba", 0xcac1_65af_a2fe_f40a),
        (b"foobar", 0x8594_4171_f739_67e8),
    ];

    #[test]
    fn published_vectors() {
        for (input, want) in VECTORS {
            assert_eq!(fnv1a_64(input), *want, "input {input:?}");
        }
    }

    #[test]
    fn constants() {
        assert_eq!(FNV_64_PRIME, 0x100000001B3);
        assert_eq!(FNV1A_64_OFFSET_BASIS, 0xCBF29CE484222325);
        // The empty buffer returns the seed unchanged, whatever the seed.
        assert_eq!(fnv_64a_buf(b"", 0x1234), 0x1234);
    }

    #[test]
    fn the_seed_chains() {
        let first = fnv_64a_buf(b"foo", FNV1A_64_OFFSET_BASIS);
        assert_eq!(fnv_64a_buf(b"bar", first), fnv1a_64(b"foobar"));
        // A different seed gives a different hash.
        assert_ne!(fnv_64a_buf(b"foobar", 0), fnv1a_64(b"foobar"));
    }

    #[test]
    fn usable_in_const_context() {
        const H: u64 = fnv1a_64(b"foobar");
        assert_eq!(H, 0x85944171f73967e8);
    }
}
