//! What engram knows beyond what was said: the graph of entities and relations ([`graph`],
//! written through [`relations`]) that facts extracted from turns ([`crate::extract`]) link
//! into. The tenant's procedures (procedural memory) are a room of their own:
//! [`crate::procedures`].

pub mod graph;
pub mod relations;
