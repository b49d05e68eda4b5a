//! `<eng>_hw_decode_table_init`: the CAM image, then the PROFILE image, then
//! `disable_hw_decode` [hw-decode §1–§4], [FACTS §13.5].
//!
//! Per engine (CAYMAN; MARIANA's bases are NOT TRACED): params(eng); CAM image
//! larger than its aperture → error; `write_padded(cam_base, CAM)`; PROFILE
//! image larger than its aperture → error; `write_padded(table_base,
//! PROFILE)`; then `disable_hw_decode(v)` in POOL's XT/NX window
//! `xt_local(mem, 2, 1)` for every engine, the window [FACTS §13.4] tables
//! for the leaf on every arch (MED on CAYMAN and MARIANA), with
//! `v = eng_info.disable_hw_decode` (MED [arch-stpb §1]). The images are the
//! caller's data (the vendor's v3/v4 sets are not in the sources). The C
//! return code of "too big" is NOT TRACED: here `OutOfRange`, which has no C
//! code. Every value the program needs is resolved before its first write.
//! The destinations are the TPB memory handle + the getter's offsets
//! (interpretation MED: the page gives the offsets, not the composition).

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Gated, HwDecode, NxLocal};
use crate::ids::Engine;
use crate::Mmio;

use super::padded::write_padded;
use super::run_stall::{disable_hw_decode, pool_window};

/// The two HW-decode images of an engine (`eng_info +0x40`: profile, cam).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwDecodeImages<'a> {
    /// The CAM image (`0x400` B = 64 × {opcode, mask, enable, 0} on the
    /// vendor's sets).
    pub cam: &'a [u8],
    /// The PROFILE image (`0x2000` B = 64 × 128 B on the vendor's sets).
    pub profile: &'a [u8],
}

/// The refusal of a CAM image larger than its aperture (its C code NOT TRACED).
const CAM_TOO_BIG: &str = "HW decode CAM table too big!";
/// The refusal of a PROFILE image larger than its aperture.
const PROFILE_TOO_BIG: &str = "HW decode PROFILE table too big!";

/// `<eng>_hw_decode_table_init(mem, eng, images, disable)` [hw-decode §4].
pub fn hw_decode_table_init<A: HwDecode + NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    eng: Engine,
    images: HwDecodeImages<'_>,
    disable: u32,
) -> Result<()> {
    let p = A::hw_decode_table_params(eng)?;
    let window = pool_window::<A>(mem)?;
    // Everything the program touches lies below 2^64, checked before its
    // first write: the CAM image, then the PROFILE image above it
    // (`table_base = cam_base + 0x1000` [hw-decode §2]), then the control
    // register.
    mem.check_span(
        p.table_base.get().saturating_add(p.table_size),
        "hw decode tables past 2^64 from the memory handle",
    )?;
    if let Gated::Present(ctrl) = A::NX_LOCAL_REGS.hw_decode_control? {
        window.check_span(
            ctrl.offset().saturating_add(4),
            "hw decode control past 2^64 from its window",
        )?;
    }
    // The CAM image, then the PROFILE image, each refused before its write
    // when larger than its aperture [hw-decode §4].
    let tables = [
        (p.cam_base, images.cam, p.cam_size, CAM_TOO_BIG),
        (p.table_base, images.profile, p.table_size, PROFILE_TOO_BIG),
    ];
    for (base, image, size, too_big) in tables {
        if image.len() as u64 > size {
            error!("{} {}", eng.name(), too_big);
            return Err(Error::out_of_range(too_big, image.len() as u64, size + 1));
        }
        write_padded(mmio, mem.add(base.get()), image, size)?;
    }
    disable_hw_decode::<A, M>(mmio, window, disable)
}
