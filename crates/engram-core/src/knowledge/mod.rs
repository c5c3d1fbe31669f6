//! What engram knows beyond what was said: facts extracted from turns ([`extract`]) and the
//! graph of entities and relations ([`graph`], written through [`relations`]). The tenant's
//! procedures (procedural memory) are a room of their own: [`crate::procedures`].

pub mod extract;
pub mod graph;
pub mod relations;
