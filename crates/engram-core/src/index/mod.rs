//! The indexes a user's memories are found through: words ([`lexical`], BM25) and meaning
//! ([`vector`], exact scan with an HNSW option).

pub mod lexical;
pub mod vector;
