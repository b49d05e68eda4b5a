//! Where each DVE table lands: TPB AXI base + the arch's table offset [000 §4].
//!
//! The loader computes `axi = aws_hal_stpb_get_axi_offset(ctx)` (the tile's TPB
//! base, `get_axi_offset(tpb, rel) = rel + tpb_base(tpb)` [FACTS §5]) and sends
//! every table, the parameter RAM included, to `axi + off` [000 §4]: the
//! offsets of `get_dve_table_offsets` and the base of
//! `get_dve_parameter_ram_params` are all relative to the TPB AXI base.
//!
//! SUNDA has no table-offset getter [000 §3] (its offsets are implicit in code
//! the notes do not trace): [`DvePlacement::for_tile`] answers
//! [`Error::NotTraced`] there, and a caller who knows the SUNDA offsets gives
//! them to [`DvePlacement::for_tile_with`]. The parameter-RAM base is traced on
//! every arch and always comes from the arch.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Arch, Offset, Tile};

use super::tables::TableId;

/// The absolute destination of every table of one DVE tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DvePlacement {
    /// The TPB AXI base the offsets were added to.
    pub axi_base: DeviceAddr,
    /// `axi + opcode offset`.
    pub opcode: DeviceAddr,
    /// `axi + control_fast offset`.
    pub control_fast: DeviceAddr,
    /// `axi + control_slow offset`; `None` on SUNDA (no control-slow table).
    pub control_slow: Option<DeviceAddr>,
    /// `axi + datapath offset`.
    pub datapath: DeviceAddr,
    /// `axi + parameter-RAM base`.
    pub param_ram: DeviceAddr,
    /// The parameter-RAM size in bytes (0x400 on every arch) [FACTS §3.4].
    pub param_ram_size: u64,
}

impl DvePlacement {
    /// The placement on `tile` from the arch's own table offsets and
    /// parameter-RAM params [000 §3, §4].
    ///
    /// SUNDA (no offset getter): [`Error::NotTraced`]; use
    /// [`DvePlacement::for_tile_with`].
    pub fn for_tile<A: Arch>(tile: Tile<A>) -> Result<Self> {
        let o = A::DVE_TABLES.offsets.ok_or(Error::NotTraced(
            "DVE table offsets on this arch (SUNDA has no offset getter [000 §3])",
        ))?;
        let slow = A::DVE_TABLES.loads_control_slow.then_some(o.control_slow);
        Self::for_tile_with(tile, o.opcode, o.control_fast, slow, o.datapath)
    }

    /// The placement on `tile` from caller-supplied table offsets (relative to
    /// the TPB AXI base) and the arch's parameter-RAM params.
    ///
    /// `control_slow` must be given exactly when the arch loads that table
    /// (CAYMAN, MARIANA) and be `None` on SUNDA: [`Error::InvalidArgument`]
    /// otherwise. An offset that carries the address past `u64::MAX` is refused.
    pub fn for_tile_with<A: Arch>(
        tile: Tile<A>,
        opcode: Offset,
        control_fast: Offset,
        control_slow: Option<Offset>,
        datapath: Offset,
    ) -> Result<Self> {
        if A::DVE_TABLES.loads_control_slow != control_slow.is_some() {
            return Err(Error::InvalidArgument(if control_slow.is_none() {
                "control_slow offset missing (this arch loads five DVE tables)"
            } else {
                "control_slow offset given on an arch without a control-slow table (SUNDA)"
            }));
        }
        Self::from_parts(
            A::tpb_base(tile),
            [opcode, control_fast],
            control_slow,
            datapath,
            A::DVE_TABLES.param_ram_base,
            A::DVE_TABLES.param_ram_size,
        )
    }

    /// The placement from raw parts: every destination is `axi_base + offset`
    /// (overflow past `u64::MAX` → [`Error::InvalidArgument`]).
    pub(crate) fn from_parts(
        axi_base: DeviceAddr,
        [opcode, control_fast]: [Offset; 2],
        control_slow: Option<Offset>,
        datapath: Offset,
        param_ram: Offset,
        param_ram_size: u64,
    ) -> Result<Self> {
        let at = |o: Offset| {
            axi_base.checked_add(o.get(), "DVE table offset overflows the TPB AXI base")
        };
        Ok(DvePlacement {
            axi_base,
            opcode: at(opcode)?,
            control_fast: at(control_fast)?,
            control_slow: control_slow.map(at).transpose()?,
            datapath: at(datapath)?,
            param_ram: at(param_ram)?,
            param_ram_size,
        })
    }

    /// The destination of table `id`; `None` for an absent control_slow.
    pub const fn dest(&self, id: TableId) -> Option<DeviceAddr> {
        match id {
            TableId::Opcode => Some(self.opcode),
            TableId::ControlFast => Some(self.control_fast),
            TableId::ControlSlow => self.control_slow,
            TableId::Datapath => Some(self.datapath),
            TableId::ParamRam => Some(self.param_ram),
        }
    }

    /// Number of tables this placement loads (4 on SUNDA, 5 otherwise).
    pub(crate) const fn table_count(&self) -> usize {
        4 + self.control_slow.is_some() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every destination is `axi_base + offset`, and one past `u64::MAX`
    /// refuses the placement; SUNDA's has four tables, the others five.
    #[test]
    fn destinations_and_their_overflow() {
        let off = |o| Offset(o);
        let p = DvePlacement::from_parts(
            DeviceAddr(0x1000),
            [off(0x10), off(0x20)],
            None,
            off(0x30),
            off(0x40),
            0x400,
        )
        .unwrap();
        assert_eq!(p.dest(TableId::Datapath), Some(DeviceAddr(0x1030)));
        assert_eq!(p.dest(TableId::ControlSlow), None);
        assert_eq!(p.table_count(), 4);
        let wraps = DvePlacement::from_parts(
            DeviceAddr(u64::MAX - 4),
            [off(0), off(0x10)],
            None,
            off(0x20),
            off(0x30),
            0x400,
        );
        assert!(matches!(wraps, Err(Error::InvalidArgument(_))));
    }
}
