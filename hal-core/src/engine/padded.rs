//! `write_padded(dst, src, size, padded)`: the image writer of the Q7 and
//! HW-decode loaders [q7 §4d], [FACTS §13.3].
//!
//! The C zero-fills a `padded`-byte buffer, copies the image in and writes it
//! with one `al_mem_write_buf` burst of `padded / 4` words (dst and length
//! 4-aligned). khal has no allocator: it streams the same words (the image as
//! little-endian dwords, its last dword zero-padded, then zero dwords up to
//! `padded`) in bursts of [`BURST_WORDS`]; the device receives the same
//! dwords at the same addresses in the same order (khal's own chunking).

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::Mmio;

/// Dwords per burst.
pub const BURST_WORDS: usize = 64;

/// Write `data` zero-padded to `padded` bytes at `dst`. `padded < data.len()`
/// (the C asserts), an unaligned `dst` or `padded`, `padded` bytes from `dst`
/// past 2^64 → `InvalidArgument`, nothing written.
pub fn write_padded<M: Mmio + ?Sized>(
    mmio: &M,
    dst: DeviceAddr,
    data: &[u8],
    padded: u64,
) -> Result<()> {
    if padded < data.len() as u64 {
        return Err(Error::InvalidArgument("write_padded: padded < size"));
    }
    if !dst.get().is_multiple_of(4) || !padded.is_multiple_of(4) {
        return Err(Error::InvalidArgument(
            "write_padded: dst and length must be 4-aligned",
        ));
    }
    dst.check_span(padded, "write_padded: image runs past 2^64")?;
    // The image as little-endian dwords, its last dword zero-padded; past
    // its end, zero dwords.
    let mut image = data.chunks(4).map(|c| {
        let mut le = [0u8; 4];
        le.iter_mut().zip(c).for_each(|(d, s)| *d = *s);
        u32::from_le_bytes(le)
    });
    let total = padded / 4;
    let mut buf = [0u32; BURST_WORDS];
    for word in (0..total).step_by(BURST_WORDS) {
        let n = core::cmp::min(BURST_WORDS as u64, total - word) as usize;
        let words = buf
            .get_mut(..n)
            .ok_or(Error::InvalidArgument("write_padded burst"))?;
        words.fill_with(|| image.next().unwrap_or(0));
        mmio.write_burst(dst.add(word * 4), words)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::test_mmio::Log;
    use crate::engine::test_mmio::Op::Write;

    /// [q7 §4d], [FACTS §13.3]: the burst needs dst AND length 4-aligned;
    /// either one unaligned is refused with nothing written, as is
    /// padded < size.
    #[test]
    fn write_padded_refuses_an_unaligned_destination_or_length_alone() {
        const MEM: u64 = 0x20_0000_0000;
        let m = Log::default();
        let align = Err(Error::InvalidArgument(
            "write_padded: dst and length must be 4-aligned",
        ));
        assert_eq!(
            write_padded(&m, DeviceAddr(MEM + 2), &[1, 2, 3, 4], 8),
            align
        );
        assert_eq!(write_padded(&m, DeviceAddr(MEM), &[1, 2, 3, 4], 6), align);
        assert_eq!(
            write_padded(&m, DeviceAddr(MEM), &[1, 2, 3, 4, 5], 4),
            Err(Error::InvalidArgument("write_padded: padded < size"))
        );
        assert!(m.ops().is_empty());
        // Aligned: the image as little-endian dwords, zero-padded, over two
        // bursts (64 + 2 dwords) at consecutive addresses.
        write_padded(&m, DeviceAddr(MEM), &[1, 2, 3, 4, 5], 4 * 66).unwrap();
        let mut expect = std::vec![(Write, MEM, 0x0403_0201), (Write, MEM + 4, 0x05)];
        for i in 2..66 {
            expect.push((Write, MEM + 4 * i, 0));
        }
        assert_eq!(m.ops(), expect);
    }

    /// An image whose padded length runs past 2^64 is refused before any
    /// write; one that ends exactly at the top is written.
    #[test]
    fn write_padded_refuses_an_image_past_the_top() {
        let m = Log::default();
        assert!(matches!(
            write_padded(&m, DeviceAddr(u64::MAX - 7), &[1; 8], 16),
            Err(Error::InvalidArgument(_))
        ));
        assert!(m.ops().is_empty());
        write_padded(&m, DeviceAddr(u64::MAX - 15), &[1; 8], 16).unwrap();
        assert_eq!(m.ops().last().map(|o| o.1), Some(u64::MAX - 3));
    }
}
