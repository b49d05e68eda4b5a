//! `khal decode` against an independent linear model (tests/decode_model):
//! at both edges of every described place, inside it and one past it, and
//! at pseudo-random addresses, the decoder names exactly the places that
//! hold the address, each with the offset from its own base, and each
//! host-visible base with its device-full twin. The decoder and the map walk
//! are the CLI library's (`khal_cli::decode`, `khal_cli::map`), as in the
//! fuzz target.

use std::collections::BTreeSet;

use khal::family::Arch;
use khal_cli::{decode, map};

#[path = "decode_model/mod.rs"]
mod decode_model;

fn printed<A: Arch>() -> Vec<(String, u64, bool)> {
    map::walk::<A>()
        .into_iter()
        .filter_map(|it| match it.val {
            map::Val::Addr(a, form) => Some((it.item, a, form == map::Form::HostVisible)),
            _ => None,
        })
        .collect()
}

fn check<A: Arch>() -> usize {
    let places = decode_model::places::<A>(&printed::<A>());
    let mut addrs = decode_model::probes(&places);
    // A fixed pseudo-random walk over the whole 64-bit space and the low 48 bits.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        addrs.push(x);
        addrs.push(x & 0xFFFF_FFFF_FFFF);
        addrs.push(x & 0xF_FFFF_FFFF);
    }
    for &addr in &addrs {
        let hits = decode::hits(A::ID, addr);
        let got: BTreeSet<decode_model::Answer> =
            hits.iter().map(|h| (h.item.clone(), h.offset)).collect();
        assert_eq!(got.len(), hits.len(), "{addr:#x}: an answer repeated");
        let want = decode_model::expected(&places, addr);
        assert_eq!(got, want, "{} {addr:#x}", A::ID.name());
        for (item, twin) in decode_model::twins(&places, addr) {
            let h = hits.iter().find(|h| h.item == item).expect("named");
            let says = if twin == addr {
                "same as device-full".to_string()
            } else {
                format!("device-full {twin:#x}")
            };
            assert!(h.detail.contains(&says), "{addr:#x} {item}: {}", h.detail);
        }
    }
    addrs.len()
}

#[test]
fn decoder_agrees_with_the_linear_model_on_every_arch() {
    assert!(check::<khal::Sunda>() > 6000);
    assert!(check::<khal::Cayman>() > 6000);
    assert!(check::<khal::Mariana>() > 6000);
}
