//! An independent linear model of what `khal decode` must answer for an
//! address, shared by `cli/tests/decode_model_check.rs` and the `decode` fuzz
//! target (both include it by path).
//!
//! It does not reuse the decoder's region list: it walks every described
//! place once, straight from the family traits (ranges) and from the printed
//! map (exact bases), and keeps each place whose `[start, start + len)` holds
//! the address, with the offset from that place's own base. A host-visible
//! base's device-full place is the value plus `0x8_0000_0000` on CAYMAN and
//! MARIANA and the value itself on SUNDA [000 §2], [FACTS §3.2]. The HBM BAR
//! window is a size, never a range of addresses [000 §3 GOTCHA], so it adds
//! no place.

use std::collections::BTreeSet;

use khal::family::{Arch, Q7Owner, Tile};
use khal::{ArchId, Engine};

/// One expected answer: the item and the offset from its base.
pub type Answer = (String, u64);

/// A described place.
#[derive(Debug, Clone)]
pub struct Place {
    /// The item the decoder must name.
    pub item: String,
    /// First address.
    pub start: u64,
    /// Length in bytes (1 for an exact base).
    pub len: u64,
    /// For a host-visible base: the device-full address it stands for.
    pub twin: Option<u64>,
}

/// The host-visible rebase per arch, as FACTS §3.2 states it.
pub fn rebase(arch: ArchId) -> u64 {
    match arch {
        ArchId::Sunda => 0,
        ArchId::Cayman | ArchId::Mariana => 0x8_0000_0000,
    }
}

/// Every place of `A`, in no particular order.
pub fn places<A: Arch>(printed: &[(String, u64, bool)]) -> Vec<Place> {
    let mut v = Vec::new();
    // Exact bases: every address `khal map` prints (`bool` = host-visible).
    for (item, a, hv) in printed {
        v.push(Place {
            item: item.clone(),
            start: *a,
            len: 1,
            twin: hv.then(|| a.wrapping_add(rebase(A::ID))),
        });
    }
    // HBM: channel base + usable size [000 §3].
    let usable = A::HBM.usable_size.0;
    for (i, base) in A::HBM.channel_bases.iter().enumerate() {
        v.push(Place {
            item: format!("hbm[{i}]"),
            start: base.get(),
            len: usable,
            twin: None,
        });
    }
    // PREPROC windows [kdrv v3].
    if let (Ok(bases), Ok(size)) = (A::PREPROC_BASES, A::PREPROC_SIZE) {
        for (i, b) in bases.iter().enumerate() {
            v.push(Place {
                item: format!("preproc[{i}]"),
                start: b.get(),
                len: size,
                twin: None,
            });
        }
    }
    // DVE tables (offset + size, member order) and parameter RAM, per tile.
    let s = A::DVE_TABLES.sizes;
    let sizes = [s.opcode, s.control_fast, s.control_slow, s.datapath];
    for t in Tile::<A>::all() {
        let base = A::tpb_base(t).get();
        if let Some(o) = A::DVE_TABLES.offsets {
            let offs = [o.opcode, o.control_fast, o.control_slow, o.datapath];
            let names = ["opcode", "control_fast", "control_slow", "datapath"];
            for k in 0..4 {
                v.push(Place {
                    item: format!("tpb[{}] + dve table {}", t.index(), names[k]),
                    start: base.wrapping_add(offs[k].get()),
                    len: sizes[k],
                    twin: None,
                });
            }
        }
        // FACTS §13.1, §13.3, §13.5 in the device view (tile + bit 35):
        // CAYMAN, MARIANA; SUNDA has no device map.
        if A::ID != ArchId::Sunda {
            let dev = base + 0x8_0000_0000;
            let engines = [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve];
            for (i, e) in engines.into_iter().enumerate() {
                if let Ok(w) = A::xt_local_reg_offset(i as u32, 1) {
                    v.push(Place {
                        item: format!("tpb[{}] + xt/nx window {e}", t.index()),
                        start: dev + w.get(),
                        len: 0x1_0000,
                        twin: None,
                    });
                }
                if let Ok(p) = A::hw_decode_table_params(e) {
                    v.push(Place {
                        item: format!("tpb[{}] + hw_decode cam {e}", t.index()),
                        start: dev + p.cam_base.get(),
                        len: p.cam_size,
                        twin: None,
                    });
                    v.push(Place {
                        item: format!("tpb[{}] + hw_decode profile {e}", t.index()),
                        start: dev + p.table_base.get(),
                        len: p.table_size,
                        twin: None,
                    });
                }
            }
            if let Ok(q) = A::q7_params(Q7Owner::Pooling) {
                let stride = q.iram_size + q.iram_rsvd + q.dram_size + q.dram_rsvd;
                for k in 0..u64::from(q.num_q7) {
                    let iram = dev + q.base.get() + k * stride;
                    v.push(Place {
                        item: format!("tpb[{}] + q7 core {k} iram", t.index()),
                        start: iram,
                        len: q.iram_size,
                        twin: None,
                    });
                    v.push(Place {
                        item: format!("tpb[{}] + q7 core {k} dram", t.index()),
                        start: iram + q.iram_size + q.iram_rsvd,
                        len: q.dram_size,
                        twin: None,
                    });
                }
            }
        }
        v.push(Place {
            item: format!("tpb[{}] + dve param ram", t.index()),
            start: base.wrapping_add(A::DVE_TABLES.param_ram_base.get()),
            len: A::DVE_TABLES.param_ram_size,
            twin: None,
        });
    }
    v
}

/// The answers the decoder must give for `addr`: a linear scan.
pub fn expected(places: &[Place], addr: u64) -> BTreeSet<Answer> {
    places
        .iter()
        .filter(|p| addr >= p.start && addr - p.start < p.len)
        .map(|p| (p.item.clone(), addr - p.start))
        .collect()
}

/// The host-visible places holding `addr`, with their device-full twins.
pub fn twins(places: &[Place], addr: u64) -> Vec<(String, u64)> {
    places
        .iter()
        .filter(|p| p.start == addr)
        .filter_map(|p| p.twin.map(|t| (p.item.clone(), t)))
        .collect()
}

/// Addresses worth checking: both edges of every place, one inside, one past.
pub fn probes(places: &[Place]) -> Vec<u64> {
    let mut v = Vec::new();
    for p in places {
        v.push(p.start.wrapping_sub(1));
        v.push(p.start);
        v.push(p.start.wrapping_add(p.len / 2));
        v.push(p.start.wrapping_add(p.len.saturating_sub(1)));
        v.push(p.start.wrapping_add(p.len));
    }
    v
}
