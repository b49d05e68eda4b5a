//! The facade re-exports the vocabulary and all three arches in a host build.

#[test]
fn facade_reexports() {
    assert_eq!(khal::ArchId::try_from(4), Ok(khal::ArchId::Mariana));
    assert_eq!(khal::MESH_HIGH_BIT, 1 << 47);
}
