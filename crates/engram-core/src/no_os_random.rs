//! The core never asks the OS for randomness: seeds are parameters. `instant-distance`
//! depends on `rand`, which links `getrandom`; on `wasm32-unknown-unknown` getrandom needs
//! a backend. This one always fails, so any accidental use is an error, not hidden entropy.

use getrandom::{register_custom_getrandom, Error};

fn no_os_randomness(_buf: &mut [u8]) -> Result<(), Error> {
    Err(Error::UNSUPPORTED)
}

register_custom_getrandom!(no_os_randomness);
