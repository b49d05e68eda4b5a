//! The Q7 (pooling-engine vision core) shims: the swap table and the CAYMAN
//! ucode loader [004 §5], [FACTS §3.7].
//!
//! The swap table is the one place SUNDA and CAYMAN differ in behaviour, not
//! just address: SUNDA writes three dwords to `nx_rsvd_space0/1/2`
//! (`+0x83C/+0x840/+0x844` of the POOL engine's XT-local window), CAYMAN is a
//! successful no-op whose offset getter answers zeros [004 §5 QUIRK]. MARIANA's
//! swap table is not in the notes: it does not implement [`Q7SwapTable`].
//!
//! The CAYMAN ucode loader is live: owner 0 → param set 2, owner 1 → param
//! set 5, other → "Invalid q7 owner"; IRAM / DRAM larger than the param set's
//! sizes → "too big", before any write; then, per core, padded writes of the
//! IRAM and DRAM images. The Q7 params and the per-core stride are NOT TRACED:
//! on a real arch the loader answers `NotTraced`; [`q7_ucode_load_with`] takes
//! them injected (tests, or a platform that knows them).

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Arch, NxLocal, Q7Param};
use crate::ids::{Bounded, Engine};
use crate::mmio::Mmio;

/// The arch's swap-table policy [004 §5]. Implemented by SUNDA (real write)
/// and CAYMAN (no-op); MARIANA's is not traced.
pub trait Q7SwapTable: Arch {
    /// `aws_hal_q7_swap_table_<arch>(lo_hi, b)`.
    fn q7_swap_table<M: Mmio + ?Sized>(mmio: &M, lo_hi: u64, b: u32) -> Result<()>;

    /// `aws_hal_q7_swap_table_get_register_offsets_<arch>`: the three register
    /// offsets (CAYMAN: zeros).
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]>;

    /// `aws_hal_q7_swap_file_io_table_<arch>` (CAYMAN: a no-op returning 0).
    fn q7_swap_file_io_table() -> Result<()>;
}

/// The SUNDA swap-table program on an explicit XT-local window: write the low
/// dword of `lo_hi` to `nx_rsvd_space0` (`+0x83C`), the high dword to
/// `nx_rsvd_space1` (`+0x840`), `b` to `nx_rsvd_space2` (`+0x844`) [004 §5].
///
/// The registers come from `A`'s NX-local description; SUNDA's real path
/// resolves `window` from `xt_local_reg_offset(POOL)`, which is NOT TRACED.
pub fn swap_table_at<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    window: DeviceAddr,
    lo_hi: u64,
    b: u32,
) -> Result<()> {
    let mut regs = [None; 3];
    for (i, slot) in regs.iter_mut().enumerate() {
        *slot = Some(A::nx_rsvd_space(Bounded::new(i as u32, "nx_rsvd_space")?)?);
    }
    let [Some(r0), Some(r1), Some(r2)] = regs else {
        return Err(Error::NotTraced("nx_rsvd_space0..2"));
    };
    r0.write(mmio, window, lo_hi as u32)?;
    r1.write(mmio, window, (lo_hi >> 32) as u32)?;
    r2.write(mmio, window, b)
}

/// SUNDA's swap table through the arch: window = `xt_local_reg_offset(POOL)`
/// (NOT TRACED → `NotTraced`, nothing written), then [`swap_table_at`].
pub fn swap_table_via_window<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    lo_hi: u64,
    b: u32,
) -> Result<()> {
    let window = A::xt_local_reg_offset(Engine::Pool)?;
    swap_table_at::<A, M>(mmio, window, lo_hi, b)
}

/// The arches whose Q7 ucode loader the notes decode (CAYMAN) [004 §5].
pub trait Q7UcodeLoader: Arch {
    /// The per-core address stride of the IRAM / DRAM images (NOT TRACED
    /// everywhere: `Err(NotTraced)`).
    fn q7_core_stride() -> Result<u64>;
}

/// The CAYMAN owner → param-set mapping: 0 → 2, 1 → 5, other →
/// `InvalidArgument("Invalid q7 owner")` [004 §5].
pub const fn q7_param_set(owner: u32) -> Result<u32> {
    match owner {
        0 => Ok(2),
        1 => Ok(5),
        _ => Err(Error::InvalidArgument("Invalid q7 owner")),
    }
}

/// The Q7 microcode images (the C `a3[0..4]`: IRAM pointer and size, DRAM
/// pointer and size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Q7Ucode<'a> {
    /// The IRAM image.
    pub iram: &'a [u8],
    /// The DRAM image.
    pub dram: &'a [u8],
}

/// Everything the loader needs of the arch, resolved: the param set and the
/// per-core stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Q7Layout {
    /// The param set of the owner.
    pub param: Q7Param,
    /// Bytes between two cores' IRAM (and DRAM) images.
    pub core_stride: u64,
}

/// `aws_hal_q7_ucode_eng_init_cayman` through the arch: owner → param set
/// (error first), then `A::q7_params(set)` and the per-core stride (NOT
/// TRACED → `NotTraced`, nothing written), then [`q7_ucode_load_with`].
pub fn q7_ucode_eng_init<A: Q7UcodeLoader, M: Mmio + ?Sized>(
    mmio: &M,
    ucode: Q7Ucode<'_>,
    owner: u32,
) -> Result<()> {
    let set = q7_param_set(owner)?;
    let layout = Q7Layout {
        param: A::q7_params(set)?,
        core_stride: A::q7_core_stride()?,
    };
    q7_ucode_load_with(mmio, ucode, &layout)
}

/// The loader body with a resolved layout [004 §5]: IRAM image larger than
/// `iram_size` → `InvalidArgument("IRAM ucode too big!")`, DRAM likewise
/// (`"DRAM ucode too big!"`), both before any write; then for each core
/// `0..ncores` the padded IRAM image at `iram_base + core * stride`, then the
/// padded DRAM image at `dram_base + core * stride`.
///
/// "Padded": the images are written as little-endian dwords, the last one
/// zero-padded (interpretation MED: the notes name `write_padded` without its
/// body).
pub fn q7_ucode_load_with<M: Mmio + ?Sized>(
    mmio: &M,
    ucode: Q7Ucode<'_>,
    layout: &Q7Layout,
) -> Result<()> {
    let p = &layout.param;
    if ucode.iram.len() as u64 > p.iram_size {
        return Err(Error::InvalidArgument("IRAM ucode too big!"));
    }
    if ucode.dram.len() as u64 > p.dram_size {
        return Err(Error::InvalidArgument("DRAM ucode too big!"));
    }
    for core in 0..u64::from(p.ncores) {
        let off = core.wrapping_mul(layout.core_stride);
        write_padded(mmio, p.iram_base.add(off), ucode.iram)?;
        write_padded(mmio, p.dram_base.add(off), ucode.dram)?;
    }
    Ok(())
}

/// Dwords per burst of [`write_padded`].
const BURST_WORDS: usize = 64;

/// Write `data` at `addr` as little-endian dwords, the last zero-padded, in
/// bursts of up to [`BURST_WORDS`].
fn write_padded<M: Mmio + ?Sized>(mmio: &M, addr: DeviceAddr, data: &[u8]) -> Result<()> {
    let mut buf = [0u32; BURST_WORDS];
    let mut at = addr;
    for chunk in data.chunks(BURST_WORDS * 4) {
        let mut n = 0;
        for (w, bytes) in buf.iter_mut().zip(chunk.chunks(4)) {
            let mut le = [0u8; 4];
            for (d, s) in le.iter_mut().zip(bytes) {
                *d = *s;
            }
            *w = u32::from_le_bytes(le);
            n += 1;
        }
        let words = buf.get(..n).ok_or(Error::InvalidArgument("q7 burst"))?;
        mmio.write_burst(at, words)?;
        at = at.add(4 * n as u64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners() {
        assert_eq!(q7_param_set(0), Ok(2));
        assert_eq!(q7_param_set(1), Ok(5));
        assert_eq!(
            q7_param_set(2),
            Err(Error::InvalidArgument("Invalid q7 owner"))
        );
    }
}
