//! Fuzz the CSR region layer [000 §1]: random windows, random accesses.
//!
//! Properties, checked against an independent linear model of the table:
//! - a window is registered iff it is valid (`end - start >= 4`, no wrap of
//!   `device_addr + len`) and overlaps no registered window, and the table
//!   has room;
//! - `csr_read` / `csr_write` succeed iff the address lies in `[start, end-4]`
//!   of the window holding it and translates to an aligned inner address; a
//!   success touches exactly that inner dword, a failure touches nothing and
//!   is exactly the model's error (`NoRegion` or `OutOfWindow`, with the
//!   address), in the table fuzzed and in tables of capacity 8, 12 and 4
//!   holding the same windows, also after `remove_device`;
//! - the array forms and the bursts succeed only if every dword lies in
//!   `[start, end-4]` of the window of the FIRST address, and a refused batch
//!   is refused whole: nothing is accessed.
#![no_main]

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio};
use khal_fuzz::{Access, Input, RecMmio};
use libfuzzer_sys::fuzz_target;

const CAP: usize = 8;

#[derive(Clone, Copy, Debug)]
struct W {
    start: u64,
    end: u64,
    dev: u64,
    id: u32,
}

/// The inner address of a dword access at `p`, per the model.
fn expect(model: &[W], p: u64) -> Option<u64> {
    let w = model.iter().find(|w| w.start <= p && p < w.end)?;
    translate(w, p)
}

/// The exact answer of a single-dword access at `p`, per the model [000 §1].
fn answer(model: &[W], p: u64) -> Result<DeviceAddr, Error> {
    let w = model
        .iter()
        .find(|w| w.start <= p && p < w.end)
        .ok_or(Error::no_region(p))?;
    translate(w, p)
        .map(DeviceAddr)
        .ok_or(Error::out_of_window(p))
}

fn translate(w: &W, p: u64) -> Option<u64> {
    if p < w.start || p > w.end - 4 {
        return None;
    }
    let d = w.dev + (p - w.start);
    (d % 4 == 0).then_some(d)
}

/// An address near the interesting points of the model's windows, or random.
fn probe(inp: &mut Input, model: &[W]) -> u64 {
    let pick = inp.u8();
    if model.is_empty() || pick < 32 {
        return inp.u64();
    }
    let w = model[pick as usize % model.len()];
    let base = match inp.u8() % 6 {
        0 => w.start,
        1 => w.end.wrapping_sub(4),
        2 => w.end.wrapping_sub(3),
        3 => w.end,
        4 => w.start.wrapping_sub(1),
        _ => w.start.wrapping_add(inp.u16() as u64),
    };
    base.wrapping_add((inp.u8() as i8) as i64 as u64)
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    let mut table = RegionTable::<CAP>::new();
    let mut model: Vec<W> = Vec::new();

    // Windows: clustered in a small space so that overlaps and neighbours occur.
    let n = inp.u8() % 12;
    for _ in 0..n {
        let start = if inp.bool() {
            inp.u64()
        } else {
            0x1000 * (inp.u8() as u64 % 16) + inp.u8() as u64
        };
        let len = match inp.u8() % 4 {
            0 => inp.u8() as u64,
            1 => inp.u16() as u64,
            2 => 4,
            _ => inp.u64(),
        };
        let end = start.wrapping_add(len);
        let dev = if inp.bool() { start } else { inp.u64() };
        let id = u32::from(inp.u8() % 3);
        let r = CsrRegion::new(DeviceAddr(start), DeviceAddr(end), DeviceAddr(dev), id);
        let valid = end > start && end - start >= 4 && dev.checked_add(end - start).is_some();
        assert_eq!(
            r.is_ok(),
            valid,
            "region validity {start:#x}..{end:#x} -> {dev:#x}"
        );
        let Ok(r) = r else { continue };
        let overlaps = model.iter().any(|w| start < w.end && w.start < end);
        let res = table.insert(r);
        assert_eq!(
            res.is_ok(),
            !overlaps && model.len() < CAP,
            "insert {start:#x}..{end:#x}"
        );
        if res.is_ok() {
            model.push(W {
                start,
                end,
                dev,
                id,
            });
        }
    }
    assert_eq!(table.as_slice().len(), model.len());
    let starts: Vec<u64> = table.as_slice().iter().map(|r| r.start().get()).collect();
    assert!(starts.windows(2).all(|p| p[0] < p[1]), "table sorted");

    let csr = Csr::new(RecMmio::new(), table);
    for _ in 0..32 {
        if inp.is_empty() {
            break;
        }
        let before = csr.inner().len();
        match inp.u8() % 6 {
            0 => {
                let p = probe(&mut inp, &model);
                let r = csr.read32(DeviceAddr(p));
                match expect(&model, p) {
                    Some(d) => {
                        assert!(r.is_ok(), "read {p:#x} refused");
                        assert_eq!(csr.inner().since(before), vec![Access::Read(d)]);
                    }
                    None => {
                        assert!(r.is_err(), "read {p:#x} outside [start, end-4] succeeded");
                        assert_eq!(r.err(), answer(&model, p).err(), "read {p:#x}: the error");
                        assert_eq!(csr.inner().len(), before);
                    }
                }
            }
            1 => {
                let p = probe(&mut inp, &model);
                let v = inp.u32();
                let r = csr.write32(DeviceAddr(p), v);
                match expect(&model, p) {
                    Some(d) => {
                        assert!(r.is_ok());
                        assert_eq!(csr.inner().since(before), vec![Access::Write(d, v)]);
                    }
                    None => {
                        assert!(r.is_err(), "write {p:#x} outside [start, end-4] succeeded");
                        assert_eq!(r.err(), answer(&model, p).err(), "write {p:#x}: the error");
                        assert_eq!(csr.inner().len(), before);
                    }
                }
            }
            k @ (2 | 3) => {
                let cnt = inp.u8() % 6;
                let ptrs: Vec<DeviceAddr> = (0..cnt)
                    .map(|_| DeviceAddr(probe(&mut inp, &model)))
                    .collect();
                let vals: Vec<u32> = (0..cnt).map(|_| inp.u32()).collect();
                let w0 = ptrs
                    .first()
                    .and_then(|p| model.iter().find(|w| w.start <= p.get() && p.get() < w.end));
                let all: Option<Vec<u64>> = match (ptrs.first(), w0) {
                    (None, _) => Some(vec![]),
                    (Some(_), None) => None,
                    (Some(_), Some(w)) => ptrs.iter().map(|p| translate(w, p.get())).collect(),
                };
                let r = if k == 2 {
                    csr.csr_write_array(&ptrs, &vals)
                } else {
                    let mut out = vec![0u32; ptrs.len()];
                    csr.csr_read_array(&ptrs, &mut out)
                };
                match all {
                    Some(ds) => {
                        assert!(r.is_ok(), "array inside one window refused");
                        let got = csr.inner().since(before);
                        let want: Vec<Access> = ds
                            .iter()
                            .zip(&vals)
                            .map(|(&d, &v)| {
                                if k == 2 {
                                    Access::Write(d, v)
                                } else {
                                    Access::Read(d)
                                }
                            })
                            .collect();
                        assert_eq!(got, want);
                    }
                    None => {
                        assert!(r.is_err(), "array leaving its first window succeeded");
                        assert_eq!(
                            csr.inner().len(),
                            before,
                            "refused array accessed something"
                        );
                    }
                }
                // Mismatched lengths are refused whole too.
                if cnt > 0 {
                    let b = csr.inner().len();
                    assert!(csr.csr_write_array(&ptrs, &vals[1..]).is_err());
                    assert_eq!(csr.inner().len(), b);
                }
            }
            k => {
                let p = probe(&mut inp, &model);
                let cnt = (inp.u8() % 70) as usize;
                let w = model.iter().find(|w| w.start <= p && p < w.end);
                // Every dword of the run must be in [start, end-4] of p's window.
                let ok = w.and_then(|w| {
                    let last = p.checked_add(4 * (cnt.max(1) as u64 - 1))?;
                    translate(w, last)?;
                    translate(w, p)
                });
                let r = if k == 4 {
                    let words: Vec<u32> = (0..cnt as u32).collect();
                    csr.write_burst(DeviceAddr(p), &words)
                } else {
                    let mut out = vec![0u32; cnt];
                    csr.mem_read_buf(DeviceAddr(p), &mut out)
                };
                match ok {
                    Some(d) => {
                        assert!(r.is_ok(), "burst inside its window refused");
                        let got = csr.inner().since(before);
                        assert_eq!(got.len(), cnt);
                        for (i, a) in got.iter().enumerate() {
                            let want = d + 4 * i as u64;
                            match *a {
                                Access::Read(x) | Access::Write(x, _) => assert_eq!(x, want),
                            }
                        }
                    }
                    None => {
                        assert!(r.is_err(), "burst leaving its window succeeded");
                        assert_eq!(csr.inner().len(), before);
                    }
                }
            }
        }
    }
    // Through the Mmio trait the same rules hold.
    let p = probe(&mut inp, &model);
    let before = csr.inner().len();
    let r = Mmio::read32(&csr, DeviceAddr(p));
    assert_eq!(r.is_ok(), expect(&model, p).is_some());
    assert_eq!(csr.inner().len() - before, r.is_ok() as usize);

    // The lookup itself, exactly, after removing one device's windows (the
    // table re-sorted), and in tables of capacity 8, 12 and 4 holding the
    // same windows.
    let mut table = csr.regions().cloned().expect("registered");
    let gone = u32::from(inp.u8() % 3);
    let kept: Vec<W> = model.iter().copied().filter(|w| w.id != gone).collect();
    assert_eq!(table.remove_device(gone), model.len() - kept.len());
    // Capacity 8 and 12, every kept window.
    let mut tree8 = RegionTable::<CAP>::new();
    let mut tree12 = RegionTable::<12>::new();
    for w in &kept {
        let r = CsrRegion::new(
            DeviceAddr(w.start),
            DeviceAddr(w.end),
            DeviceAddr(w.dev),
            w.id,
        )
        .expect("valid");
        assert_eq!(tree8.insert(r), Ok(()));
        assert_eq!(tree12.insert(r), Ok(()));
    }
    let mut small = RegionTable::<4>::new();
    let mut in_small: Vec<W> = Vec::new();
    for w in kept.iter().take(4) {
        let r = CsrRegion::new(
            DeviceAddr(w.start),
            DeviceAddr(w.end),
            DeviceAddr(w.dev),
            w.id,
        );
        assert_eq!(small.insert(r.expect("valid")), Ok(()));
        in_small.push(*w);
    }
    for _ in 0..16 {
        if inp.is_empty() {
            break;
        }
        let p = probe(&mut inp, &kept);
        assert_eq!(
            table.translate(DeviceAddr(p)),
            answer(&kept, p),
            "after remove: {p:#x}"
        );
        assert_eq!(
            tree8.translate(DeviceAddr(p)),
            answer(&kept, p),
            "capacity 8, binary search: {p:#x}"
        );
        assert_eq!(
            tree12.translate(DeviceAddr(p)),
            answer(&kept, p),
            "capacity 12, binary search: {p:#x}"
        );
        assert_eq!(
            small.translate(DeviceAddr(p)),
            answer(&in_small, p),
            "capacity 4: {p:#x}"
        );
    }
});
