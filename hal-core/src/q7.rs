//! The Q7 (pooling-engine vision core) shims: the swap table and the ucode
//! loader [004 §5], [q7 §4–§5], [FACTS §3.7, §13.3].
//!
//! The swap table is the one place SUNDA and CAYMAN differ in behaviour, not
//! just address: SUNDA writes three dwords to `nx_rsvd_space0/1/2`
//! (`+0x83C/+0x840/+0x844` of the POOL XT/NX window `xt_local(mem, 2, 1)`),
//! CAYMAN is a successful no-op (`xor eax,eax; ret`) that touches nothing and
//! whose offset getter answers zeros [004 §5 QUIRK]. MARIANA's swap table is
//! not in the sources: it does not implement [`Q7SwapTable`]. The three swap
//! slots (`+0x390/+0x398/+0x3A0`, MED) and the loader's (`+0x3A8`) have no
//! NULL policy in any source ([`crate::engine::slots::NullPolicy::NotTraced`]):
//! khal gives them none, so an arch without a swap table has no operation,
//! never Pooling's silent 0 [FACTS §13.3].
//!
//! The ucode loader `q7_ucode_eng_init(tpb, image_base, imgs, owner_idx)` runs
//! on the recovered geometry ([`crate::family::Q7Params`]) [q7 §4]:
//! 1. owner: `A::q7_owner(owner_idx)` (SUNDA 0 only; CAYMAN/MARIANA 0 → 2,
//!    1 → 5), else -1;
//! 2. IRAM image larger than `iram_size` → -1 "IRAM ucode too big!"; DRAM
//!    likewise;
//! 3. for each core k: the DRAM image at `dram(k)` **then** the IRAM image at
//!    `iram(k)` (§13.10 #4: the sibling page's byte decode, flagged as a trap,
//!    wins over [004 §5]'s IRAM-then-DRAM), each zero-padded to its per-core
//!    aperture. Every core gets the same images.
//!
//! The address arithmetic (`image_base` standing for `tpb_addr`) and the pad
//! sizes (the per-core apertures `iram_size` / `dram_size`) are MED: the page
//! names the inputs, not the formula. The C `swap_cb` hook is not offered
//! (khal's own: the images are written as they are).

use crate::addr::DeviceAddr;
use crate::engine::padded::write_padded;
use crate::error::{Error, Result};
use crate::family::nx_local::{xt_local_window, OWNER_TPB};
use crate::family::{Arch, NxLocal, Q7Owner, Q7Param, Q7Params};
use crate::ids::Engine;
use crate::Mmio;

/// The arch's swap-table policy [004 §5]. Implemented by SUNDA (real write)
/// and CAYMAN (no-op); MARIANA's is not traced.
pub trait Q7SwapTable: Arch {
    /// `aws_hal_q7_swap_table_<arch>(mem, lo_hi, b)`; `mem` is the TPB
    /// memory handle whose POOL XT/NX window holds the registers.
    fn q7_swap_table<M: Mmio + ?Sized>(mmio: &M, mem: DeviceAddr, lo_hi: u64, b: u32)
        -> Result<()>;

    /// `aws_hal_q7_swap_table_get_register_offsets_<arch>`: the three register
    /// offsets (CAYMAN: zeros).
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]>;

    /// `aws_hal_q7_swap_file_io_table_<arch>` (CAYMAN: a no-op returning 0).
    fn q7_swap_file_io_table() -> Result<()>;
}

/// The SUNDA swap-table program on an explicit XT/NX window: write the low
/// dword of `lo_hi` to `nx_rsvd_space0` (`+0x83C`), the high dword to
/// `nx_rsvd_space1` (`+0x840`), `b` to `nx_rsvd_space2` (`+0x844`) [004 §5].
fn swap_table_at<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    window: DeviceAddr,
    lo_hi: u64,
    b: u32,
) -> Result<()> {
    let [r0, r1, r2] = A::NX_LOCAL_REGS.nx_rsvd_space?;
    // The three dwords, the last one highest, checked before the first write.
    window.check_span(
        r2.offset().saturating_add(4),
        "swap table past 2^64 from its window",
    )?;
    r0.write(mmio, window, lo_hi as u32)?;
    r1.write(mmio, window, (lo_hi >> 32) as u32)?;
    r2.write(mmio, window, b)
}

/// SUNDA's swap table through the arch: window = `xt_local(mem, 2, 1)`
/// [004 §5], [FACTS §13.1], then the three writes of `swap_table_at`.
pub fn swap_table_via_window<A: NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    lo_hi: u64,
    b: u32,
) -> Result<()> {
    let window = xt_local_window::<A>(mem, Engine::Pool.index() as u32, OWNER_TPB)?;
    swap_table_at::<A, M>(mmio, window, lo_hi, b)
}

/// The Q7 microcode images (`imgs`: IRAM bin `+0x00` / size `+0x08`, DRAM bin
/// `+0x10` / size `+0x18` [q7 §4]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Q7Ucode<'a> {
    /// The IRAM image.
    pub iram: &'a [u8],
    /// The DRAM image.
    pub dram: &'a [u8],
}

/// `q7_ucode_eng_init(tpb, image_base, imgs, owner_idx)` through the arch
/// (kaena_khal `+0x3A8`) [q7 §4], [FACTS §13.3]: owner, params, size checks
/// (all before any write), then the per-core writes of `q7_ucode_load_with`.
pub fn q7_ucode_eng_init<A: Q7Params, M: Mmio + ?Sized>(
    mmio: &M,
    image_base: DeviceAddr,
    ucode: Q7Ucode<'_>,
    owner_idx: u32,
) -> Result<()> {
    let owner = A::q7_owner(owner_idx).inspect_err(|_| error!("q7 owner {}", owner_idx))?;
    let param = A::q7_params(owner)?;
    q7_ucode_load_with(mmio, image_base, ucode, &param, owner)
}

/// The loader body on a resolved param set [q7 §4c]: the size checks (and
/// khal's: every core's images below 2^64 from `image_base`, else
/// `InvalidArgument`), then per core the DRAM image then the IRAM image,
/// each padded to its aperture.
/// A failed write logs "Failed to load pooling q7 {dram|iram} core %u" and
/// answers -1 ([`Error::Rejected`]).
fn q7_ucode_load_with<M: Mmio + ?Sized>(
    mmio: &M,
    image_base: DeviceAddr,
    ucode: Q7Ucode<'_>,
    p: &Q7Param,
    owner: Q7Owner,
) -> Result<()> {
    if ucode.iram.len() as u64 > p.iram_size {
        error!("IRAM ucode too big!");
        return Err(Error::Rejected("IRAM ucode too big!"));
    }
    if ucode.dram.len() as u64 > p.dram_size {
        error!("DRAM ucode too big!");
        return Err(Error::Rejected("DRAM ucode too big!"));
    }
    // Every core's images, checked before the first: the last core's DRAM
    // ends the span (`dram(k) = iram(k) + iram_size + iram_rsvd`) [ucode §3].
    if let Some(last) = p.num_q7.checked_sub(1) {
        image_base.check_span(
            p.dram(last).get().saturating_add(p.dram_size),
            "q7 ucode images run past 2^64 from the image base",
        )?;
    }
    debug!("q7 ucode load: owner {}, {} cores", owner as u32, p.num_q7);
    for k in 0..p.num_q7 {
        write_padded(mmio, p.dram(k).at(image_base), ucode.dram, p.dram_size).map_err(|e| {
            error!("Failed to load pooling q7 dram core {}: {:?}", k, e);
            Error::Rejected("Failed to load pooling q7 dram core")
        })?;
        write_padded(mmio, p.iram(k).at(image_base), ucode.iram, p.iram_size).map_err(|e| {
            error!("Failed to load pooling q7 iram core {}: {:?}", k, e);
            Error::Rejected("Failed to load pooling q7 iram core")
        })?;
    }
    Ok(())
}
