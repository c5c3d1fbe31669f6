//! What reaches the prompt: [`build`] assembles the context in priority order under an
//! exact token budget ([`tokens`]), and [`render`] writes each memory as quoted data so
//! that none can act as an instruction.

pub mod build;
pub mod render;
pub mod tokens;
