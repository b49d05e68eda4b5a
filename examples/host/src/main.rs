//! khal on a host: the generic bring-up of the firmware examples
//! (`common/bring_up.rs`), unchanged, over two host register windows.
//!
//! 1. A file-backed `MmapMmio` window (a plain file standing in for a PCI BAR's
//!    sysfs `resourceN`): after the bring-up the file holds what init, queue
//!    config and enable wrote [004 §2, §3]; nothing is behind a file to post
//!    notifications, so the drain finds none.
//! 2. The device model: it posts notifications into the ring (phase byte
//!    last, tail moved) and the drain gets every one, in order.
//!
//! Run: `cargo run -p khal-example-host` (in examples/).

#[path = "../../common/bring_up.rs"]
mod bring_up;

use std::process::ExitCode;
use std::sync::Arc;

use khal::notific::{Flavour, NotificBlocks, NqEntry};
use khal::std_adapter::mmap::MmapMmio;
use khal::std_adapter::model::notific::{entry_seq, NotificModel};
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::{DmaBuf, SimDelay, StdDelay};
use khal::{Cayman, DeviceAddr, Mmio};

/// The notification engine's block: the device address the window answers from.
const NOTIFIC: DeviceAddr = DeviceAddr(0x3053_5000);
/// Its size [FACTS §6].
const NOTIFIC_BYTES: u64 = khal::notific::NOTIFIC_BLOCK_BYTES;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    match file_window().and_then(|()| device_model()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("khal host example failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Part 1: the bring-up over a file-backed window.
fn file_window() -> Res<()> {
    let path = std::env::temp_dir().join(format!("khal-example-{}.bin", std::process::id()));
    std::fs::File::create(&path)?.set_len(NOTIFIC_BYTES)?;
    let result = (|| -> Res<()> {
        let window = MmapMmio::open(&path, NOTIFIC)?;
        let ring = DmaBuf::new(bring_up::RING_BYTES, 64)?;
        let ens_blocks = NotificBlocks::new();
        let mut ens = ens_blocks.take(NOTIFIC)?;
        let mut up =
            bring_up::bring_up::<Cayman, _, _, _>(&window, &mut ens, &ring, &mut StdDelay)?;
        let mut out = [NqEntry::default(); 16];
        let n = bring_up::drain(&mut up, &mut StdDelay, &mut out)?;
        let reg = |off: u64| window.read32(NOTIFIC.add(off));
        let nq = 0x100 + 40 * u64::from(bring_up::NQ);
        println!("file window {}:", path.display());
        println!("  coal_timer  (+0xB4)  {:#x}", reg(0xB4)?);
        println!("  wob_ctrl    (+0xBC)  {:#x}", reg(0xBC)?);
        println!("  sw_bp       (+0x08)  {:#x}", reg(0x08)?);
        println!("  nq_enable   (+0x14)  {:#x}", reg(0x14)?);
        println!(
            "  nq{} base / size       {:#x}{:08x} / {}",
            bring_up::NQ,
            reg(nq + 4)?,
            reg(nq)?,
            reg(nq + 8)?
        );
        println!("  drained               {n} (nothing behind a file posts)");
        Ok(())
    })();
    std::fs::remove_file(&path)?;
    result
}

/// Part 2: the same bring-up over the device model, which posts notifications.
fn device_model() -> Res<()> {
    let device = DeviceModel::new();
    device.mount(NOTIFIC, NotificModel::new(Flavour::TenQueue))?;
    let ring = Arc::new(DmaBuf::new(bring_up::RING_BYTES, 4096)?);
    device.attach_host(ring.clone());
    let mut delay = SimDelay::new(&device);
    let ens_blocks = NotificBlocks::new();
    let mut ens = ens_blocks.take(NOTIFIC)?;
    let mut up = bring_up::bring_up::<Cayman, _, _, _>(&device, &mut ens, &*ring, &mut delay)?;
    let mut out = [NqEntry::default(); 16];
    let (mut posted, mut drained) = (0u64, 0u64);
    let mut seq = None;
    // Five bursts of 40 (more than three wraps of the 64-entry ring).
    for _ in 0..5 {
        posted += u64::from(
            device
                .with_block(NOTIFIC, |nm: &mut NotificModel, bus| {
                    nm.post(bus, bring_up::NQ, 40)
                })
                .ok_or("no notific block mounted")??,
        );
        loop {
            let n = bring_up::drain(&mut up, &mut delay, &mut out)?;
            for e in out.iter().take(n) {
                let s = entry_seq(e.bytes());
                if seq.is_some_and(|prev| s != prev + 1) {
                    return Err(format!("out of order: {s} after {seq:?}").into());
                }
                seq = Some(s);
            }
            drained += n as u64;
            if n == 0 {
                break;
            }
        }
    }
    println!(
        "device model: posted {posted}, drained {drained}, lost {}",
        posted - drained
    );
    if drained != posted {
        return Err("notifications lost".into());
    }
    Ok(())
}
