//! What engram knows beyond what was said: facts extracted from turns ([`extract`]), the
//! graph of entities and relations ([`graph`], written through [`relations`]), and the
//! tenant's procedures ([`procedures`]).

pub mod extract;
pub mod graph;
pub mod procedures;
pub mod relations;
