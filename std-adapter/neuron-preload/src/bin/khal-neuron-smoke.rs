//! The real `/dev/neuronN` code path end to end, for the `LD_PRELOAD`
//! smoke: run with `libkhal_neuron_preload.so` preloaded, it opens
//! `/dev/neuron0` through `DevNode` (libc's `open`, `ioctl`, `mmap`,
//! `munmap`) and checks what the conformance tests check on the in-process
//! fake: the info, a register written and read back through BAR_WRITE /
//! BAR_READ, a 150-dword burst and read, a window's end, a DMA chunk, NQ
//! sizes, an NC reset. Exit 0 and one line when every check passes;
//! otherwise the failed check on stderr and exit 1.

use std::process::ExitCode;

use khal_core::dma::DmaMemory;
use khal_core::{DeviceAddr, Error, Mmio};
use khal_std::neuron::nq::RESET_BUDGET;
use khal_std::neuron::{abi, HostAlloc, Neuron, NeuronError, NqDevType, NqId, NqType};
use khal_std::StdDelay;

fn check(what: &str, ok: bool, n: &mut u32) -> Result<(), String> {
    *n += 1;
    if ok {
        Ok(())
    } else {
        Err(format!("check failed: {what}"))
    }
}

fn smoke() -> Result<u32, String> {
    let e = |e: NeuronError| e.to_string();
    let k = |e: Error| e.to_string();
    let mut n = 0;
    let dev = Neuron::open(0).map_err(e)?;
    let want = std::env::var("KHAL_FAKE_ARCH").unwrap_or_else(|_| "cayman".into());
    check("arch", dev.arch().name() == want, &mut n)?;
    let w = *dev.bar0_map().windows().first().ok_or("no BAR0 window")?;
    let base = DeviceAddr(w.device);
    dev.write32(base.add(0x1000), 0xC0DE_0001).map_err(k)?;
    check(
        "a register reads back",
        dev.read32(base.add(0x1000)) == Ok(0xC0DE_0001),
        &mut n,
    )?;
    let words: Vec<u32> = (0..150).map(|i| 0x5000 + i).collect();
    dev.write_burst(base.add(0x2000), &words).map_err(k)?;
    let mut back = [0u32; 150];
    dev.read_run(base.add(0x2000), &mut back).map_err(e)?;
    check(
        "a 150-dword burst reads back",
        back.to_vec() == words,
        &mut n,
    )?;
    let last = base.add(w.size - 4);
    dev.write32(last, 7).map_err(k)?;
    check("a window's last dword", dev.read32(last) == Ok(7), &mut n)?;
    check(
        "the next dword is refused",
        dev.read32(last.add(4)) == Err(Error::out_of_window(last.get() + 4)),
        &mut n,
    )?;
    let chunk = dev.alloc_host(8192, HostAlloc::default()).map_err(e)?;
    chunk.write(100, &[1, 2, 3]).map_err(k)?;
    let mut b = [0u8; 3];
    chunk.read(100, &mut b).map_err(k)?;
    check(
        "a DMA chunk reads back",
        b == [1, 2, 3] && chunk.len() == 8192,
        &mut n,
    )?;
    drop(chunk);
    let nq = NqId {
        dev_type: NqDevType::NeuronCore,
        dev_id: 0,
        nq_type: NqType::Notify,
        engine_index: 0,
    };
    check(
        "nq size 1000 refused",
        dev.notifications_init(nq, 1000).is_err(),
        &mut n,
    )?;
    let ring = dev.notifications_init(nq, 1024).map_err(e)?;
    check("nq size 1024 mapped", ring.len() >= 1024, &mut n)?;
    drop(ring);
    dev.nc_reset(abi::NC_MAP_ALL, &mut StdDelay, RESET_BUDGET)
        .map_err(e)?;
    Ok(n)
}

fn main() -> ExitCode {
    match smoke() {
        Ok(n) => {
            println!("neuron smoke: /dev/neuron0 through libc, {n} checks ok");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("neuron smoke: {msg}");
            ExitCode::from(1)
        }
    }
}
