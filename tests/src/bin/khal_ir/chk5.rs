//! The fifth checker's CSR window kernels (issue 12, CSR row): an
//! independent re-check of `Csr::window` / `CsrWindow` ([000 §1], resolved
//! once) against raw pointers, with routines written apart from chk4.rs.
//!
//! Scenarios (every answer checked against a model; `ops=` is the accesses
//! attempted, a refused one included):
//! - `k5eng:<win|raw|csr>:<layout>`: an engine holding three blocks as
//!   fields (`ctl` 32 B, `irq` 16 B, `q` 12 B) brings itself up through
//!   `&self`: a read-modify-write, a status poll of at most 8 reads (one
//!   call in four times out: [`Error::Timeout`]), writes whose values depend
//!   on the reads. Each access at the block's start plus a constant offset,
//!   as a driver writes it. `win`: each block a `CsrWindow`; `raw`: a device
//!   base pointer per block (C's `volatile u32 *`); `csr`: `csr_read` /
//!   `csr_write` through the default `Csr<_, 8>`. Kernels `ir_k5_eng_*`.
//! - `k5ch:<win|raw>:<layout>:<K>[:miss<M>]`: `K` = 2, 3, 4 or 16 accesses
//!   (read, read, write, ...; values chained) at addresses the caller
//!   passes, each through its own window (a random sub-block of its region)
//!   or through raw pointers with one fixed translation; `miss<M>`: one call
//!   in `M` has one address outside its window (the routine stops there).
//!   Kernels `ir_k5_ch_win`, `ir_k5_ch_raw`.
//! - `k5fill:<win|raw|burst|winn|rawn>`: 16 consecutive registers written
//!   in a loop through one window (`winn` / `rawn`: a count the caller
//!   passes, 1 to 16; `burst`: one `write_burst` of 16). Kernels
//!   `ir_k5_fill_*`.
//!
//! Layouts (`(start, length, device)` per region): `e3` three identity
//! regions 1 MiB apart at 0x20_0000_0000; `odd`: lengths of 4k+2 bytes and
//! translations 2 mod 4 (every window starts 2 bytes in); `top`: regions in
//! the last 64 KiB of the 64-bit space (the last one ending at `u64::MAX`),
//! forwarded low.

use std::cell::{Cell, RefCell};
use std::hint::black_box;

use khal_core::csr::{Csr, CsrRegion, CsrWindow, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::kernels::{Sink, N};

/// `(start, length, device)` per region.
type Layout = Vec<(u64, u64, u64)>;

fn layout(name: &str) -> Option<Layout> {
    Some(match name {
        "e3" => (0..3u64)
            .map(|k| {
                let s = 0x20_0000_0000 + k * 0x10_0000;
                (s, 0x1000, s)
            })
            .collect(),
        "odd" => (0..3u64)
            .map(|k| (0x31_0000_0002 + k * 0x4_0000, 0x402, 0x7_0002 + k * 0x1000))
            .collect(),
        "top" => (0..3u64)
            .map(|k| {
                let s = u64::MAX - 0x3000 * (3 - k) + 1;
                // The last region ends at u64::MAX (its last 3 bytes are
                // not a dword).
                let n = if k == 2 { 0x2FFF } else { 0x2000 };
                (s, n, 0x9000 + k * 0x3000)
            })
            .collect(),
        _ => return None,
    })
}

fn table(l: &Layout) -> Option<RegionTable<8>> {
    let mut t = RegionTable::<8>::new();
    for (k, &(s, n, d)) in l.iter().enumerate().rev() {
        let r = CsrRegion::new(DeviceAddr(s), DeviceAddr(s + n), DeviceAddr(d), k as u32);
        t.insert(r.ok()?).ok()?;
    }
    Some(t)
}

/// The first address of region `k` whose translation is dword aligned.
fn aligned_start(l: &Layout, k: usize) -> u64 {
    let (s, _, d) = l[k];
    s + (d.wrapping_neg() & 3)
}

/// An LCG (the same run every time).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 17
    }
}

/// The sink's slot of a device address (it keeps `addr & 0xFFFC`).
fn slot(t: u64) -> usize {
    ((t & 0xFFFC) / 4) as usize
}

// ------------------------------------------------------------ the engine

/// A register block as an engine holds it: a read or write at a constant
/// offset from its start.
trait Blk {
    fn rd(&self, off: u64) -> Result<u32>;
    fn wr(&self, off: u64, v: u32) -> Result<()>;
}

impl Blk for CsrWindow<'_, Sink> {
    #[inline(always)]
    fn rd(&self, off: u64) -> Result<u32> {
        self.read32(self.start().add(off))
    }
    #[inline(always)]
    fn wr(&self, off: u64, v: u32) -> Result<()> {
        self.write32(self.start().add(off), v)
    }
}

/// C's `volatile u32 *base` of a block: no check.
pub struct RawBlk<'s> {
    sink: &'s Sink,
    base: u64,
}

impl Blk for RawBlk<'_> {
    #[inline(always)]
    fn rd(&self, off: u64) -> Result<u32> {
        Ok(self.sink.load(self.base.wrapping_add(off)))
    }
    #[inline(always)]
    fn wr(&self, off: u64, v: u32) -> Result<()> {
        self.sink.store(self.base.wrapping_add(off), v);
        Ok(())
    }
}

/// The table per access: `csr_read` / `csr_write` at the block's start
/// plus the offset.
pub struct CsrBlk<'c> {
    csr: &'c Csr<Sink, 8>,
    start: u64,
}

impl Blk for CsrBlk<'_> {
    #[inline(always)]
    fn rd(&self, off: u64) -> Result<u32> {
        self.csr.csr_read(DeviceAddr(self.start.wrapping_add(off)))
    }
    #[inline(always)]
    fn wr(&self, off: u64, v: u32) -> Result<()> {
        self.csr
            .csr_write(DeviceAddr(self.start.wrapping_add(off)), v)
    }
}

/// The model of a block: `[0, bytes)` in dwords, at `dev`, over the model
/// memory; counts every access.
struct ModelBlk<'m> {
    mem: &'m RefCell<Vec<u32>>,
    made: &'m Cell<u64>,
    start: u64,
    bytes: u64,
    dev: u64,
}

impl ModelBlk<'_> {
    fn at(&self, off: u64) -> Result<usize> {
        self.made.set(self.made.get() + 1);
        if !off.is_multiple_of(4) || off + 4 > self.bytes {
            return Err(Error::out_of_window(self.start.wrapping_add(off)));
        }
        Ok(slot(self.dev + off))
    }
}

impl Blk for ModelBlk<'_> {
    fn rd(&self, off: u64) -> Result<u32> {
        let i = self.at(off)?;
        Ok(self.mem.borrow()[i])
    }
    fn wr(&self, off: u64, v: u32) -> Result<()> {
        let i = self.at(off)?;
        self.mem.borrow_mut()[i] = v;
        Ok(())
    }
}

/// An engine's three blocks.
pub struct Eng<B> {
    ctl: B,
    irq: B,
    q: B,
}

impl<B> Eng<B> {
    /// The engine of blocks 0 (`ctl`), 1 (`irq`) and 2 (`q`).
    fn of(f: impl Fn(usize) -> Option<B>) -> Option<Self> {
        Some(Eng {
            ctl: f(0)?,
            irq: f(1)?,
            q: f(2)?,
        })
    }
}

// The blocks' registers (offsets) and sizes.
const CTL: u64 = 0x0;
const STS: u64 = 0x4;
const DB: u64 = 0x1C;
const MASK: u64 = 0x0;
const PEND: u64 = 0x4;
const ACK: u64 = 0x8;
const QLO: u64 = 0x0;
const QHI: u64 = 0x4;
const QSZ: u64 = 0x8;
const BYTES: [u64; 3] = [0x20, 0x10, 0xC];
/// Status reads before the bring-up gives up.
const POLLS: u32 = 8;

/// The bring-up: enable (read-modify-write), wait for ready (a bounded
/// poll), program the queue and the interrupt from what was read, ring.
#[inline(always)]
fn bring_up<B: Blk>(e: &Eng<B>, cfg: u32) -> Result<u32> {
    let c = e.ctl.rd(CTL)?;
    e.ctl.wr(CTL, (c & !0xF0) | (cfg & 0xF0) | 1)?;
    let mut n = 0;
    let s = loop {
        let s = e.ctl.rd(STS)?;
        if s & 1 != 0 {
            break s;
        }
        n += 1;
        if n == POLLS {
            return Err(Error::Timeout("k5: engine not ready"));
        }
    };
    e.q.wr(QLO, cfg)?;
    e.q.wr(QHI, s >> 1)?;
    e.q.wr(QSZ, (s ^ c) & 0xFFFF)?;
    e.irq.wr(MASK, !cfg)?;
    let p = e.irq.rd(PEND)?;
    e.irq.wr(ACK, p)?;
    e.ctl.wr(DB, p ^ c)?;
    Ok(p ^ c)
}

#[inline(never)]
pub fn ir_k5_eng_win(e: &Eng<CsrWindow<'_, Sink>>, cfg: u32) -> Result<u32> {
    bring_up(e, cfg)
}

#[inline(never)]
pub fn ir_k5_eng_raw(e: &Eng<RawBlk<'_>>, cfg: u32) -> Result<u32> {
    bring_up(e, cfg)
}

#[inline(never)]
pub fn ir_k5_eng_csr(e: &Eng<CsrBlk<'_>>, cfg: u32) -> Result<u32> {
    bring_up(e, cfg)
}

/// Where each block sits: `(start, device)`, the block of region `k` at
/// `0x40 * k` past its first aligned dword.
fn blocks(l: &Layout) -> [(u64, u64); 3] {
    core::array::from_fn(|k| {
        let s = aligned_start(l, k) + 0x40 * k as u64;
        (s, l[k].2 + (s - l[k].0))
    })
}

fn run_eng(kind: &str, l: &Layout) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table(l)?);
    let bl = blocks(l);
    let mem = RefCell::new(vec![0u32; 0x4000]);
    let made = Cell::new(0u64);
    let model = Eng::of(|k| {
        Some(ModelBlk {
            mem: &mem,
            made: &made,
            start: bl[k].0,
            bytes: BYTES[k],
            dev: bl[k].1,
        })
    })?;
    let weng = Eng::of(|k| csr.window(DeviceAddr(bl[k].0), BYTES[k]).ok())?;
    let sink = csr.inner();
    let reng = Eng::of(|k| {
        Some(RawBlk {
            sink,
            base: bl[k].1,
        })
    })?;
    let ceng = Eng::of(|k| {
        Some(CsrBlk {
            csr: &csr,
            start: bl[k].0,
        })
    })?;
    let mut x = Lcg(0x5EED_0005);
    let (sts, pend) = (slot(bl[0].1 + STS), slot(bl[1].1 + PEND));
    for c in 0..N {
        // The device's side between calls: ready three calls in four, a
        // pending word.
        let s = (x.next() as u32 & !1) | u32::from(c % 4 != 3);
        let p = x.next() as u32;
        for (i, v) in [(sts, s), (pend, p)] {
            mem.borrow_mut()[i] = v;
            sink.store((i * 4) as u64, v);
        }
        let cfg = x.next() as u32;
        let got = match kind {
            "win" => ir_k5_eng_win(black_box(&weng), black_box(cfg)),
            "raw" => ir_k5_eng_raw(black_box(&reng), black_box(cfg)),
            "csr" => ir_k5_eng_csr(black_box(&ceng), black_box(cfg)),
            _ => return None,
        };
        let want = bring_up(&model, cfg);
        if got != want {
            eprintln!("k5eng {kind} call {c}: {got:?}, model {want:?}");
            return None;
        }
    }
    // Every register the model wrote holds the same value in the sink.
    let m = mem.borrow();
    if (0..m.len()).any(|i| sink.load((i * 4) as u64) != m[i]) {
        eprintln!("k5eng {kind}: the sink's memory differs from the model's");
        return None;
    }
    Some(made.get())
}

// ------------------------------------------------------------ the chain

/// `K` accesses at the caller's addresses: two reads folded into the
/// value, then a write of it, and again; the first refusal ends it.
#[inline(always)]
fn chain<const K: usize>(
    a: &[DeviceAddr; K],
    rd: impl Fn(usize, DeviceAddr) -> Result<u32>,
    wr: impl Fn(usize, DeviceAddr, u32) -> Result<()>,
) -> Result<u32> {
    let mut v = 0x9E37_79B9u32;
    for (i, &p) in a.iter().enumerate() {
        if i % 3 == 2 {
            wr(i, p, v.rotate_left(i as u32))?;
        } else {
            v = v.wrapping_mul(33) ^ rd(i, p)?;
        }
    }
    Ok(v)
}

#[inline(never)]
pub fn ir_k5_ch_win<const K: usize>(
    w: &[CsrWindow<'_, Sink>; K],
    a: &[DeviceAddr; K],
) -> Result<u32> {
    chain(a, |i, p| w[i].read32(p), |i, p, v| w[i].write32(p, v))
}

#[inline(never)]
pub fn ir_k5_ch_raw<const K: usize>(sink: &Sink, a: &[DeviceAddr; K], delta: u64) -> Result<u32> {
    chain(
        a,
        |_, p| Ok(sink.load(p.get().wrapping_add(delta))),
        |_, p, v| {
            sink.store(p.get().wrapping_add(delta), v);
            Ok(())
        },
    )
}

/// One call's accesses: `(window start, window bytes, address, the
/// window's device address)` each, a
/// random sub-block of a random region and an address in it; with `miss`
/// one address leaves its window (past it, before it, or 1 to 3 bytes
/// into its last dword).
fn call<const K: usize>(l: &Layout, x: &mut Lcg, miss: bool) -> [(u64, u64, u64, u64); K] {
    let mut v: [(u64, u64, u64, u64); K] = core::array::from_fn(|_| {
        let k = (x.next() % l.len() as u64) as usize;
        let (s, n, d) = l[k];
        let a = aligned_start(l, k);
        let dwords = (s + n - a) / 4;
        let first = x.next() % dwords;
        let count = 1 + x.next() % (dwords - first).min(32);
        let ws = a + 4 * first;
        (ws, 4 * count, ws + 4 * (x.next() % count), d + (ws - s))
    });
    if miss {
        let i = (x.next() % K as u64) as usize;
        let (ws, wb, _, _) = v[i];
        v[i].2 = match x.next() % 3 {
            0 => ws + wb + 4 * (x.next() % 4),
            1 => ws.wrapping_sub(4 * (1 + x.next() % 4)),
            _ => ws + wb - 3 + x.next() % 3,
        };
    }
    v
}

fn run_chain<const K: usize>(kind: &str, l: &Layout, miss_every: u64) -> Option<u64> {
    let csr = Csr::new(Sink::new(), table(l)?);
    let sink = csr.inner();
    let mut x = Lcg(0xC4A1_0005 ^ K as u64);
    let mut mem = vec![0u32; 0x4000];
    let mut made = 0u64;
    // Raw: one fixed translation, region 0's (its cost does not depend on
    // the delta; the model applies the same one).
    let delta = l[0].2.wrapping_sub(l[0].0);
    for c in 0..N as u64 / K as u64 {
        let miss = miss_every > 0 && c % miss_every == 0;
        let spec = call::<K>(l, &mut x, miss);
        let a: [DeviceAddr; K] = core::array::from_fn(|i| DeviceAddr(spec[i].2));
        let got = match kind {
            "win" => {
                let ws: Vec<CsrWindow<'_, Sink>> = spec
                    .iter()
                    .map(|&(s, b, _, _)| csr.window(DeviceAddr(s), b).ok())
                    .collect::<Option<_>>()?;
                let ws: &[CsrWindow<'_, Sink>; K] = ws.as_slice().try_into().ok()?;
                ir_k5_ch_win(black_box(ws), black_box(&a))
            }
            "raw" if miss_every == 0 => {
                ir_k5_ch_raw(black_box(sink), black_box(&a), black_box(delta))
            }
            _ => return None,
        };
        // The model: the window answers `p + (dev - start)` when
        // `start <= p <= start + bytes - 4` and `p - start` is a multiple
        // of 4, else OutOfWindow(p) (raw: `p + delta` always).
        let tr = |i: usize, p: DeviceAddr| -> Result<u64> {
            if kind == "raw" {
                return Ok(p.get().wrapping_add(delta));
            }
            let (s, b, _, wd) = spec[i];
            let o = p.get().wrapping_sub(s);
            if !o.is_multiple_of(4) || o > b - 4 {
                return Err(Error::out_of_window(p.get()));
            }
            Ok(wd + o)
        };
        let n = Cell::new(0u64);
        let m = RefCell::new(&mut mem);
        let want = chain(
            &a,
            |i, p| {
                n.set(n.get() + 1);
                Ok(m.borrow()[slot(tr(i, p)?)])
            },
            |i, p, v| {
                n.set(n.get() + 1);
                m.borrow_mut()[slot(tr(i, p)?)] = v;
                Ok(())
            },
        );
        made += n.get();
        if got != want {
            eprintln!("k5ch {kind} {a:x?}: {got:?}, model {want:?}");
            return None;
        }
    }
    Some(made)
}

// ------------------------------------------------------------ the fill

const FILL: usize = 16;

#[inline(never)]
pub fn ir_k5_fill_win(w: &CsrWindow<'_, Sink>, v: &[u32; FILL]) -> Result<()> {
    for (i, &x) in v.iter().enumerate() {
        w.write32(w.start().add(4 * i as u64), x)?;
    }
    Ok(())
}

#[inline(never)]
pub fn ir_k5_fill_raw(sink: &Sink, base: u64, v: &[u32; FILL]) -> Result<()> {
    for (i, &x) in v.iter().enumerate() {
        sink.store(base + 4 * i as u64, x);
    }
    Ok(())
}

#[inline(never)]
pub fn ir_k5_fill_winn(w: &CsrWindow<'_, Sink>, v: &[u32]) -> Result<()> {
    for (i, &x) in v.iter().enumerate() {
        w.write32(w.start().add(4 * i as u64), x)?;
    }
    Ok(())
}

#[inline(never)]
pub fn ir_k5_fill_rawn(sink: &Sink, base: u64, v: &[u32]) -> Result<()> {
    for (i, &x) in v.iter().enumerate() {
        sink.store(base + 4 * i as u64, x);
    }
    Ok(())
}

#[inline(never)]
pub fn ir_k5_fill_burst(w: &CsrWindow<'_, Sink>, v: &[u32; FILL]) -> Result<()> {
    w.write_burst(w.start(), v)
}

fn run_fill(kind: &str) -> Option<u64> {
    let l = layout("e3")?;
    let csr = Csr::new(Sink::new(), table(&l)?);
    let sink = csr.inner();
    let (s, d) = (l[1].0 + 0x100, l[1].2 + 0x100);
    let w = csr.window(DeviceAddr(s), 4 * FILL as u64).ok()?;
    let mut x = Lcg(0xF111_0005);
    let mut made = 0u64;
    for _ in 0..N as usize / FILL {
        let v: [u32; FILL] = core::array::from_fn(|_| x.next() as u32);
        let n = match kind {
            "winn" | "rawn" => 1 + (x.next() % FILL as u64) as usize,
            _ => FILL,
        };
        let r = match kind {
            "win" => ir_k5_fill_win(black_box(&w), black_box(&v)),
            "raw" => ir_k5_fill_raw(black_box(sink), black_box(d), black_box(&v)),
            "burst" => ir_k5_fill_burst(black_box(&w), black_box(&v)),
            "winn" => ir_k5_fill_winn(black_box(&w), black_box(&v[..n])),
            "rawn" => ir_k5_fill_rawn(black_box(sink), black_box(d), black_box(&v[..n])),
            _ => return None,
        };
        if r.is_err() || (0..n).any(|i| sink.load(d + 4 * i as u64) != v[i]) {
            eprintln!("k5fill {kind}: {r:?} or a register not written");
            return None;
        }
        made += n as u64;
    }
    Some(made)
}

/// `k5eng:<kind>:<layout>`, `k5ch:<kind>:<layout>:<K>[:miss<M>]`,
/// `k5fill:<kind>`.
pub fn scenario(spec: &str) -> Option<u64> {
    let f: Vec<&str> = spec.split(':').collect();
    match *f.first()? {
        "k5eng" => run_eng(f.get(1)?, &layout(f.get(2)?)?),
        "k5fill" => run_fill(f.get(1)?),
        "k5ch" => {
            let l = layout(f.get(2)?)?;
            let miss = match f.get(4) {
                Some(m) => m.strip_prefix("miss")?.parse().ok()?,
                None => 0,
            };
            let kind = *f.get(1)?;
            match *f.get(3)? {
                "2" => run_chain::<2>(kind, &l, miss),
                "3" => run_chain::<3>(kind, &l, miss),
                "4" => run_chain::<4>(kind, &l, miss),
                "16" => run_chain::<16>(kind, &l, miss),
                _ => None,
            }
        }
        _ => None,
    }
}
