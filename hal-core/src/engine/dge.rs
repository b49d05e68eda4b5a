//! The DGE carveout and DMA-mapping setters and their `_offset_and_val`
//! getters [arch-stpb §3–§4], [devmap-dma §6.3], [FACTS §13.8].
//!
//! `set_dge_carveout(mem, size, offset)`: window = `xt_local(mem, 2, 1)`;
//! `offset + size > cap` → -22 (checked first; `= cap` passes); `size & 0xF`
//! or `offset & 0xF` → -22; value = `((size >> 4) << 16) | (offset >> 4)`;
//! one W of `SW_DGE_CARVEOUT`. The getter makes the same checks and returns
//! the register and value without writing (the C out-param order is NOT
//! TRACED: here a struct with named fields). `set_dge_dma_mapping(mem, hi,
//! lo)`: value = `(hi << 16) | lo`, no checks. The register offsets are traced
//! on CAYMAN only; elsewhere `NotTraced` after the checks, before any write.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{DgeRegs, NxLocal, Offset};
use crate::Mmio;

use super::run_stall::pool_window;

/// A DGE register write, computed and not done: the `_offset_and_val` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DgeWrite {
    /// The register's offset in the POOL XT/NX window.
    pub offset: Offset,
    /// The value the setter writes.
    pub value: u32,
}

/// The offset and the register value in hex.
#[cfg(feature = "defmt")]
impl defmt::Format for DgeWrite {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "DgeWrite {{ offset: {}, value: {=u32:#x} }}",
            self.offset,
            self.value
        )
    }
}

/// The carveout value after the checks [FACTS §13.8].
fn dge_carveout_value<A: DgeRegs>(size: u32, offset: u32) -> Result<u32> {
    if u64::from(offset) + u64::from(size) > u64::from(A::DGE_CARVEOUT_CAP) {
        error!("dge carveout: offset + size above the cap");
        return Err(Error::InvalidArgument("dge carveout: offset + size > cap"));
    }
    if size & 0xF != 0 || offset & 0xF != 0 {
        error!("dge carveout: size or offset not 16-byte aligned");
        return Err(Error::InvalidArgument(
            "dge carveout: size or offset not a multiple of 16",
        ));
    }
    Ok(((size >> 4) << 16) | (offset >> 4))
}

/// `get_dge_carveout_register_offset_and_val(size, offset)`: the checks, then
/// the register and value; no I/O.
pub fn get_dge_carveout_register_offset_and_val<A: DgeRegs + NxLocal>(
    size: u32,
    offset: u32,
) -> Result<DgeWrite> {
    // The checks first, then the register.
    Ok(DgeWrite {
        value: dge_carveout_value::<A>(size, offset)?,
        offset: Offset(A::NX_LOCAL_REGS.sw_dge_carveout?.offset()),
    })
}

/// `set_dge_carveout(mem, size, offset)`: the checks, then one W.
pub fn set_dge_carveout<A: DgeRegs + NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    size: u32,
    offset: u32,
) -> Result<()> {
    let w = pool_window::<A>(mem)?;
    let value = dge_carveout_value::<A>(size, offset)?;
    A::NX_LOCAL_REGS.sw_dge_carveout?.write(mmio, w, value)
}

/// The DMA-mapping value `(hi << 16) | lo`, no checks (bits of `lo` above 15
/// are kept, as the C `|`).
const fn dge_dma_mapping_value(hi: u32, lo: u32) -> u32 {
    (hi << 16) | lo
}

/// `get_dge_dma_mapping_register_offset_and_val(hi, lo)`: no I/O.
pub fn get_dge_dma_mapping_register_offset_and_val<A: DgeRegs + NxLocal>(
    hi: u32,
    lo: u32,
) -> Result<DgeWrite> {
    Ok(DgeWrite {
        offset: Offset(A::NX_LOCAL_REGS.sw_dge_dma_mapping?.offset()),
        value: dge_dma_mapping_value(hi, lo),
    })
}

/// `set_dge_dma_mapping(mem, hi, lo)`: one W of `(hi << 16) | lo`.
pub fn set_dge_dma_mapping<A: DgeRegs + NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    hi: u32,
    lo: u32,
) -> Result<()> {
    let w = pool_window::<A>(mem)?;
    A::NX_LOCAL_REGS
        .sw_dge_dma_mapping?
        .write(mmio, w, dge_dma_mapping_value(hi, lo))
}
