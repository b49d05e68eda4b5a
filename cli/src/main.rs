//! The `khal` command (subcommands are added by the CLI work).

fn main() {
    println!("khal {}", env!("CARGO_PKG_VERSION"));
}
