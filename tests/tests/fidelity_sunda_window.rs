//! SUNDA's one compact XT/NX window, register by register: every offset the
//! sources decode for it and the name khal gives it [004 §5], [q7 §5a, §6c],
//! [hw-decode §5b], [arch-stpb §1, §3], [000r1 §3]. The whole description is
//! compared, so a moved, renamed, missing or extra register fails.

use khal::family::NxLocal;
use khal::Sunda;

#[test]
fn the_compact_window_holds_exactly_the_decoded_registers() {
    let want: [(u64, &str); 17] = [
        (0x04, "release_run_stall"),
        (0x14, "run_state"),
        (0x28, "engine_base_address_lo"),
        (0x2C, "engine_base_address_hi"),
        (0x40, "dma_ctrl"),
        (0x58, "dma_rx_ring_head"),
        (0x5C, "dma_rx_ring_tail"),
        (0x70, "dma_tx_ring_base"),
        (0x74, "dma_tx_ring_length"),
        (0x210, "mem_window2_lo"),
        (0x214, "mem_window2_hi"),
        (0x804, "instr_dbg_ctrl"),
        (0x808, "events_semaphores_notific_ctrl"),
        (0x838, "q7_intr_info"),
        (0x83C, "nx_rsvd_space0"),
        (0x840, "nx_rsvd_space1"),
        (0x844, "nx_rsvd_space2"),
    ];
    let block = Sunda::NX_LOCAL_BLOCK.unwrap();
    let mut got: Vec<(u64, &str)> = block
        .regs
        .iter()
        .filter(|r| r.offset < 0x1000)
        .map(|r| (r.offset, r.name))
        .collect();
    got.sort();
    assert_eq!(got, want);
    for (off, name) in want {
        assert_eq!(block.lookup(off).map(|n| n.reg), Some(name), "{off:#x}");
    }
    // The XT part of the same window: iram_cache_block_size at +0x1260.
    assert_eq!(
        Sunda::NX_LOCAL_REGS.iram_cache_block_size.unwrap().offset(),
        0x1260
    );
    assert_eq!(
        block.lookup(0x1260).map(|n| n.to_string()),
        Some("tpb_nx_local.iram_cache_block_size".to_string())
    );
    // The SW-queue selectors are tpb_regs' (FACTS §13.10 #8), not this window's.
    assert_eq!(block.lookup(0xA0C), None);
    assert_eq!(
        Sunda::NX_LOCAL_REGS.notific_sw_queue_num3.unwrap().offset(),
        0xA0C
    );
    assert_eq!(Sunda::NX_LOCAL_REGS.dma_ctrl.unwrap().offset(), 0x40);
}
