//! Fuzz `khal decode`'s address decoder: the CLI library's `decode` and the
//! map walk it uses (`khal_cli::decode`, `khal_cli::map`).
//!
//! Properties: for any arch, any 64-bit address and any window, decoding
//! returns a non-empty text and never panics (no overflow in the range
//! arithmetic, no slicing past an end); the places it names are exactly
//! those an independent linear model finds (cli/tests/decode_model: every
//! described place, offsets from its own base, host-visible twins at value +
//! the rebase); every base the map walk prints decodes back to an answer
//! naming its item; `parse_addr` never panics on any string and round-trips
//! every `0x…` rendering.
#![no_main]
#![allow(dead_code)]

use khal_cli::{decode, map, ArchArg};
use khal_fuzz::Input;
use libfuzzer_sys::fuzz_target;

#[path = "../../cli/tests/decode_model/mod.rs"]
mod decode_model;

const ARCHES: [ArchArg; 3] = [ArchArg::Sunda, ArchArg::Cayman, ArchArg::Mariana];
const WINDOWS: [Option<decode::Window>; 4] = [
    None,
    Some(decode::Window::NxLocal),
    Some(decode::Window::XtLocal),
    Some(decode::Window::Notific),
];

/// Every printed address of `A` (`true` = host-visible) and the model's places.
fn model_places<A: khal::family::Arch>() -> Vec<decode_model::Place> {
    let printed: Vec<(String, u64, bool)> = map::walk::<A>()
        .into_iter()
        .filter_map(|it| match it.val {
            map::Val::Addr(a, form) => Some((it.item, a, form == map::Form::HostVisible)),
            _ => None,
        })
        .collect();
    decode_model::places::<A>(&printed)
}

fn bases(arch: ArchArg) -> Vec<(String, u64)> {
    let items = match arch {
        ArchArg::Sunda => map::walk::<khal::Sunda>(),
        ArchArg::Cayman => map::walk::<khal::Cayman>(),
        ArchArg::Mariana => map::walk::<khal::Mariana>(),
    };
    items
        .into_iter()
        .filter_map(|it| match it.val {
            map::Val::Addr(a, map::Form::Device) => Some((it.item, a)),
            _ => None,
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    let arch = ARCHES[inp.u8() as usize % 3];
    let window = WINDOWS[inp.u8() as usize % 4];
    // Either a raw address, or one near a traced base (so the range checks
    // at the edges of every region are reached).
    let address = if inp.bool() {
        inp.u64()
    } else {
        let b = bases(arch);
        if b.is_empty() {
            inp.u64()
        } else {
            let (_, base) = &b[inp.u16() as usize % b.len()];
            base.wrapping_add((inp.u32() as i32) as i64 as u64)
        }
    };
    // The decoder's places against the linear model's.
    let places = match arch {
        ArchArg::Sunda => model_places::<khal::Sunda>(),
        ArchArg::Cayman => model_places::<khal::Cayman>(),
        ArchArg::Mariana => model_places::<khal::Mariana>(),
    };
    let hits = decode::hits(arch.id(), address);
    let got: std::collections::BTreeSet<decode_model::Answer> =
        hits.iter().map(|h| (h.item.clone(), h.offset)).collect();
    assert_eq!(got.len(), hits.len(), "{address:#x}: an answer repeated");
    assert_eq!(
        got,
        decode_model::expected(&places, address),
        "{address:#x}"
    );
    for (item, twin) in decode_model::twins(&places, address) {
        let h = hits.iter().find(|h| h.item == item).expect("named");
        let says = if twin == address {
            "same as device-full".to_string()
        } else {
            format!("device-full {twin:#x}")
        };
        assert!(
            h.detail.contains(&says),
            "{address:#x} {item}: {}",
            h.detail
        );
    }

    let args = decode::DecodeArgs {
        arch,
        window,
        address,
    };
    let out = decode::run(&args).expect("decode never fails on a parsed address");
    assert!(!out.is_empty());
    assert!(
        out.lines().count() >= 2,
        "a header and at least one answer line"
    );

    // Bases decode back to their item (checked on a fuzz-chosen one).
    let b = bases(arch);
    if !b.is_empty() {
        let (item, base) = &b[inp.u16() as usize % b.len()];
        let out = decode::run(&decode::DecodeArgs {
            arch,
            window: None,
            address: *base,
        })
        .expect("decode of a base");
        assert!(
            out.contains(item.as_str()),
            "{base:#x} does not decode to {item}:\n{out}"
        );
    }

    // The address parser: any text, and the round trip of a rendering.
    let text = String::from_utf8_lossy(inp.bytes(24));
    let _ = decode::parse_addr(&text);
    assert_eq!(decode::parse_addr(&format!("{address:#x}")), Ok(address));
    assert_eq!(decode::parse_addr(&address.to_string()), Ok(address));
});
