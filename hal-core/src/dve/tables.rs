//! The DVE table set and its SHA-256 fingerprint, the config's identity [000 §4].
//!
//! Five tables in the notes' order: opcode, control_fast, control_slow,
//! datapath, param_ram. SUNDA has no control-slow micro-table (Trn1-class
//! silicon lacks it): its set is four, `control_slow` is `None` [000 §4 QUIRK].
//! The fingerprint is SHA-256 over the tables' bytes concatenated in that order,
//! skipping the absent control_slow; it deduplicates identical configs across
//! loads, it is not a security check [000 §4 NOTE].

use core::fmt;

use sha2::{Digest, Sha256};

use super::param_ram::DEFAULT_PARAM_RAM;

/// Which DVE table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TableId {
    /// The opcode table.
    Opcode,
    /// The control-fast table.
    ControlFast,
    /// The control-slow table (absent on SUNDA).
    ControlSlow,
    /// The datapath table.
    Datapath,
    /// The parameter RAM (`bn_param_ram`).
    ParamRam,
}

impl TableId {
    /// All five, in the notes' load and hash order [000 §4].
    pub(crate) const ALL: [TableId; 5] = [
        TableId::Opcode,
        TableId::ControlFast,
        TableId::ControlSlow,
        TableId::Datapath,
        TableId::ParamRam,
    ];

    /// The spec's name (`opcode`, `control_fast`, …).
    pub const fn name(self) -> &'static str {
        match self {
            TableId::Opcode => "opcode",
            TableId::ControlFast => "control_fast",
            TableId::ControlSlow => "control_slow",
            TableId::Datapath => "datapath",
            TableId::ParamRam => "param_ram",
        }
    }
}

display_name!(TableId);

/// The caller's DVE tables. The notes do not give the default opcode, control
/// and datapath contents (`get_dve_default_bins` is not traced), so the caller
/// supplies them; the parameter RAM has a known default, 256 reciprocals
/// `1/(i+1)` as little-endian f32 [000 §4], which [`Self::four`] and
/// [`Self::five`] load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DveTableSet<'a> {
    /// The opcode table.
    pub opcode: &'a [u8],
    /// The control-fast table.
    pub control_fast: &'a [u8],
    /// The control-slow table: `None` on SUNDA, required on CAYMAN/MARIANA.
    pub control_slow: Option<&'a [u8]>,
    /// The datapath table.
    pub datapath: &'a [u8],
    /// The parameter RAM image (0x400 bytes).
    pub param_ram: &'a [u8],
}

impl<'a> DveTableSet<'a> {
    /// SUNDA's four tables, with the default parameter RAM.
    pub const fn four(opcode: &'a [u8], control_fast: &'a [u8], datapath: &'a [u8]) -> Self {
        DveTableSet {
            opcode,
            control_fast,
            control_slow: None,
            datapath,
            param_ram: &DEFAULT_PARAM_RAM,
        }
    }

    /// CAYMAN's and MARIANA's five tables, with the default parameter RAM.
    pub const fn five(
        opcode: &'a [u8],
        control_fast: &'a [u8],
        control_slow: &'a [u8],
        datapath: &'a [u8],
    ) -> Self {
        DveTableSet {
            control_slow: Some(control_slow),
            ..Self::four(opcode, control_fast, datapath)
        }
    }

    /// The same tables with another parameter RAM image.
    pub const fn with_param_ram(mut self, param_ram: &'a [u8]) -> Self {
        self.param_ram = param_ram;
        self
    }

    /// The table `id`, `None` for an absent control_slow.
    pub const fn get(&self, id: TableId) -> Option<&'a [u8]> {
        match id {
            TableId::Opcode => Some(self.opcode),
            TableId::ControlFast => Some(self.control_fast),
            TableId::ControlSlow => self.control_slow,
            TableId::Datapath => Some(self.datapath),
            TableId::ParamRam => Some(self.param_ram),
        }
    }

    /// The present tables in the notes' order (4 on SUNDA, 5 otherwise).
    pub fn iter(&self) -> impl Iterator<Item = (TableId, &'a [u8])> + '_ {
        TableId::ALL
            .into_iter()
            .filter_map(|id| self.get(id).map(|t| (id, t)))
    }

    /// SHA-256 over the present tables in the notes' order: the config's
    /// identity (`dve_tbl_hash`) [000 §4].
    pub fn fingerprint(&self) -> Fingerprint {
        let mut h = Sha256::new();
        for (_, t) in self.iter() {
            h.update(t);
        }
        Fingerprint(h.finalize().into())
    }
}

/// A DVE config fingerprint: SHA-256 of its tables [000 §4].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {}

/// Lowercase hex, as `sha256sum` prints it.
impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// Lowercase hex, as `Display` prints it.
#[cfg(feature = "defmt")]
impl defmt::Format for Fingerprint {
    fn format(&self, f: defmt::Formatter<'_>) {
        for b in self.0 {
            defmt::write!(f, "{=u8:02x}", b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_the_sunda_gap() {
        let t = DveTableSet::five(b"op", b"cf", b"cs", b"dp");
        let ids: std::vec::Vec<_> = t.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, TableId::ALL);
        let s = DveTableSet::four(b"op", b"cf", b"dp");
        let ids: std::vec::Vec<_> = s.iter().map(|(id, _)| id).collect();
        assert_eq!(
            ids,
            [
                TableId::Opcode,
                TableId::ControlFast,
                TableId::Datapath,
                TableId::ParamRam
            ]
        );
        assert_eq!(s.get(TableId::ControlSlow), None);
    }

    #[test]
    fn names_and_display_are_the_spec_names() {
        // [000 §4]: the tables' names, in the notes' order; Display prints them
        // (error messages and the CLI name a table this way).
        let names = [
            "opcode",
            "control_fast",
            "control_slow",
            "datapath",
            "param_ram",
        ];
        for (id, name) in TableId::ALL.into_iter().zip(names) {
            assert_eq!(id.name(), name);
            assert_eq!(std::format!("{id}"), name);
        }
    }

    #[test]
    fn the_bytes_are_the_digest() {
        // SHA-256("abc") (FIPS 180-2 appendix B.1): first and last bytes.
        let f = DveTableSet::four(b"abc", b"", b"")
            .with_param_ram(b"")
            .fingerprint();
        assert_eq!(f.0[..4], [0xba, 0x78, 0x16, 0xbf]);
        assert_eq!(f.0[28..], [0xf2, 0x00, 0x15, 0xad]);
    }

    #[test]
    fn fingerprint_is_sha256_of_the_concatenation() {
        // SHA-256("abc") (FIPS 180-2 appendix B.1), split over the tables.
        let t = DveTableSet::five(b"a", b"", b"b", b"c").with_param_ram(b"");
        assert_eq!(
            std::format!("{}", t.fingerprint()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // SUNDA skips control_slow: "a" + "" + "bc" + "" is the same "abc".
        let s = DveTableSet::four(b"a", b"", b"bc").with_param_ram(b"");
        assert_eq!(s.fingerprint(), t.fingerprint());
        // …while SHA-256("") differs.
        let e = DveTableSet::four(b"", b"", b"").with_param_ram(b"");
        assert_eq!(
            std::format!("{:?}", e.fingerprint()),
            "Fingerprint(e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855)"
        );
    }
}
