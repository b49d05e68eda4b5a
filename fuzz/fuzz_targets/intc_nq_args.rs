//! Fuzz the argument validation of the MSI-X INTC [004 §4] and of the
//! notification engine and NQ configuration [004 §2, §3].
//!
//! For every call, the rule the docs state decides Ok or Err (checked
//! independently here), and a refused call writes NOTHING: the register log
//! is unchanged. Nothing panics, whatever the arguments.
#![no_main]

use khal_core::intc::{EnsNq, ErrtrigLine, Intc};
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqQueue, NqRing,
};
use khal_core::{DeviceAddr, Mmio};
use khal_fuzz::{Input, RecMmio, RingMem};
use libfuzzer_sys::fuzz_target;

const MSIX: DeviceAddr = DeviceAddr(0x0400_0000);
const ENS: DeviceAddr = DeviceAddr(0x3053_5000);

/// A small index that is often in range and sometimes just past it or huge.
fn idx(inp: &mut Input, limit: u32) -> u32 {
    match inp.u8() % 4 {
        0 => inp.u32(),
        1 => limit + (inp.u8() % 3) as u32,
        _ => inp.u8() as u32 % (limit + 2),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    let mmio = RecMmio::new();

    // NotificEngine::init: base present, 1 <= num_queues <= 10, bp_mode 0|1.
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(ENS).unwrap();
    let base = if inp.u8() < 16 { None } else { Some(ENS) };
    let nq = idx(&mut inp, 10);
    let bp = idx(&mut inp, 2);
    let uart = inp.u32();
    let ok = base.is_some() && (1..=10).contains(&nq) && bp <= 1;
    let raw = NotificEngine::init_raw(&mmio, base.map(|_| &mut block), nq, bp, uart).map(drop);
    assert_eq!(
        raw.is_ok(),
        ok,
        "init(base={base:?}, num_queues={nq}, bp={bp})"
    );
    if raw.is_err() {
        assert!(mmio.is_empty(), "a refused init wrote");
    }
    // The engine of the rest, on the same block (the raw one is gone): the
    // accepted config again, or after a refusal a valid one.
    let cfg = EngineConfig::from_raw(nq, bp, uart).unwrap_or(EngineConfig::tpb(BpMode::All));
    let mut ens = NotificEngine::init(&mmio, &mut block, cfg).expect("valid init");
    // The queues handed out so far (each once per engine).
    let mut taken = 0u32;

    // A handle per try; the last one that recorded its base is kept.
    let new = || Intc::<khal::Mariana>::new(MSIX).expect("the msix block fits");
    let (mut intc, mut based) = (new(), None);
    for _ in 0..4 {
        let b = idx(&mut inp, 56);
        let mut h = new();
        match h.set_errtrig_base(b, DeviceAddr(inp.u32() as u64 * 4)) {
            Ok(()) => {
                assert!(b < 56);
                (intc, based) = (h, Some(b));
            }
            Err(_) => assert!(b >= 56),
        }
    }

    for _ in 0..48 {
        if inp.is_empty() {
            break;
        }
        let before = mmio.len();
        let (ok, res) = match inp.u8() % 11 {
            0 => {
                let v = idx(&mut inp, 8);
                (v <= 7, intc.mask_vector(&mmio, v).map(|_| ()))
            }
            1 => {
                let v = idx(&mut inp, 8);
                (v <= 7, intc.unmask_vector(&mmio, v).map(|_| ()))
            }
            2 => {
                let p = idx(&mut inp, 16);
                (p < 16, intc.set_mod_timer_period(&mmio, p))
            }
            3 => {
                // grp < 8 and value <= 0xFF (the low-byte interval) [004r1 §4].
                let g = idx(&mut inp, 8);
                let v = idx(&mut inp, 0x100);
                (g < 8 && v <= 0xFF, intc.set_group_interval(&mmio, g, v))
            }
            4 => {
                let (b, g, s, bit) = (
                    idx(&mut inp, 56),
                    idx(&mut inp, 4),
                    idx(&mut inp, 64),
                    idx(&mut inp, 32),
                );
                let line = ErrtrigLine::new(b, g, s, bit);
                assert_eq!(line.is_ok(), b < 56 && g < 4 && s < 64 && bit < 32);
                let Ok(line) = line else { continue };
                let has_base = based == Some(b);
                let r = match inp.u8() % 7 {
                    0 => intc.set_cause(&mmio, line),
                    1 => intc.read_cause(&mmio, line).map(|_| ()),
                    2 => intc.mask_interrupt(&mmio, line),
                    3 => intc.unmask_interrupt(&mmio, line),
                    4 => intc.mask_notification(&mmio, line),
                    5 => intc.unmask_notification(&mmio, line),
                    _ => intc.read_cause(&mmio, line).map(|_| ()),
                };
                (has_base, r)
            }
            5 => {
                // The NQ comes from the handle's ENS of the block [004 §4]:
                // recorded (when valid) on a handle built for this call.
                let (q, b, s) = (idx(&mut inp, 10), idx(&mut inp, 8), idx(&mut inp, 8));
                // The single-queue flavour has queue 0 only; the 10-queue one 0..10.
                let q_ok = if ens.num_queues() == 1 {
                    q == 0
                } else {
                    q < 10
                };
                let nq = EnsNq::of(&ens, q);
                assert_eq!(nq.is_ok(), q_ok);
                let mut i = new();
                let has_ens = match nq {
                    Ok(nq) if inp.bool() => {
                        let r = i.set_ens_nq(b, nq);
                        assert_eq!(r.is_ok(), b < 56);
                        r.is_ok()
                    }
                    _ => false,
                };
                let r = i.set_notific_queue_base(&mmio, b, s).map(|_| ());
                (has_ens && b < 8 && s < 8, r)
            }
            6 => {
                let m = idx(&mut inp, 2);
                (
                    m <= 1,
                    BpMode::from_raw(m).and_then(|b| ens.set_bp_config(b)),
                )
            }
            7 => {
                let s = idx(&mut inp, 4);
                let ok = s < 4 && s < ens.num_queues();
                (ok, ens.set_coalescer_stream(s, inp.bool()))
            }
            8 => (true, ens.set_coalescer_bypass(inp.bool())),
            9 => (true, ens.update_wr_buf_enable(inp.u64(), inp.u64())),
            _ => {
                // NQ configuration: index < 10 (0 on the single-queue
                // flavour), size a non-zero multiple of 16 within the
                // memory, max_batch > 0.
                let index = idx(&mut inp, 10);
                let size = if inp.bool() {
                    inp.u16() as u32
                } else {
                    (inp.u8() as u32 % 8) * 16
                };
                let len = inp.u16() as usize % 2048;
                let tail = inp.bool();
                let mb = if inp.bool() {
                    Some(inp.u8() as u32 % 4)
                } else {
                    None
                };
                let mem = RingMem::new(len, len, 0x1000);
                let index_ok = if ens.num_queues() == 1 {
                    index == 0
                } else {
                    index < 10
                };
                // Each queue is handed out once: a queue an earlier ring took
                // (its token dropped with that ring or its refusal) is `QueueTaken`.
                let free = index_ok && taken & (1 << index) == 0;
                let ok =
                    free && size > 0 && size % 16 == 0 && size as usize <= len && mb != Some(0);
                let q = ens.queue(index);
                if q.is_ok() {
                    taken |= 1 << index;
                }
                let r = q.and_then(|q| {
                    if tail {
                        configure(&mem, q, NqConfig::tail(size), mb)
                    } else {
                        configure(&mem, q, NqConfig::phase(size), mb)
                    }
                });
                if index_ok && !free {
                    assert_eq!(r, Err(khal_core::Error::QueueTaken(index)));
                }
                (ok, r)
            }
        };
        assert_eq!(res.is_ok(), ok, "validation disagrees: {res:?}");
        if res.is_err() {
            assert_eq!(mmio.len(), before, "a refused call wrote: {res:?}");
        }
    }
});

/// `NqRing::configure_host` on `q` of `cfg` with the batch cap `mb`, the
/// ring dropped; a refusal's error (the refusal holds the token it was given).
fn configure<M: Mmio, K: ConsumeKind>(
    mem: &RingMem,
    q: NqQueue<'_, M>,
    cfg: NqConfig<K>,
    mb: Option<u32>,
) -> khal_core::Result<()> {
    let index = q.index();
    let cfg = match mb {
        Some(b) => cfg.with_max_batch(b),
        None => cfg,
    };
    NqRing::configure_host(mem, q, cfg)
        .map(|_| ())
        .map_err(|refused| {
            let error = refused.error();
            assert_eq!(refused.into_parts().1.index(), index);
            error
        })
}
