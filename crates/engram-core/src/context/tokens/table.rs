//! The compact rank-table file: every token's bytes in rank order, loaded from bytes at
//! run time so the wasm never links a vocabulary.
//!
//! Layout (little-endian): `ENGRTOK1` · u16 version · u16 name length · name ·
//! u32 token count · u16 special count · specials (u32 rank, u16 length, bytes) ·
//! token lengths as LEB128 · token bytes · u32 CRC-32 of everything before it.
//! Loading is one pass over the lengths plus one hash-table insert per token.

use core::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::error::{Error, Result};

/// The hash of a token's bytes that the table is keyed by.
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    FxBuildHasher.hash_one(bytes)
}

const MAGIC: &[u8; 8] = b"ENGRTOK1";
const VERSION: u16 = 1;
const WHAT: &str = "token table";

/// A BPE vocabulary: token bytes by rank, and the reverse lookup.
pub struct RankTable {
    name: String,
    bytes: Vec<u8>,
    /// `offsets[r]..offsets[r + 1]` are the bytes of rank `r`.
    offsets: Vec<u32>,
    lookup: HashTable<u32>,
    specials: Vec<(String, u32)>,
}

impl core::fmt::Debug for RankTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RankTable").field("name", &self.name).field("tokens", &self.len()).finish()
    }
}

impl RankTable {
    /// Build from tokens in rank order (rank = index). Used by the exporter and tests.
    pub fn from_tokens(name: &str, tokens: &[Vec<u8>], specials: Vec<(String, u32)>) -> Result<Self> {
        let total: usize = tokens.iter().map(Vec::len).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(tokens.len() + 1);
        offsets.push(0);
        for t in tokens {
            if t.is_empty() {
                return Err(Error::TokenTable("empty token".into()));
            }
            bytes.extend_from_slice(t);
            offsets.push(u32::try_from(bytes.len()).map_err(|_| Error::TokenTable("table too large".into()))?);
        }
        Self::index(name.to_owned(), bytes, offsets, specials)
    }

    fn index(name: String, bytes: Vec<u8>, offsets: Vec<u32>, specials: Vec<(String, u32)>) -> Result<Self> {
        let n = offsets.len().saturating_sub(1);
        let mut lookup = HashTable::with_capacity(n);
        for rank in 0..n {
            let (s, e) = (offsets[rank] as usize, offsets[rank + 1] as usize);
            let tok = &bytes[s..e];
            let h = FxBuildHasher.hash_one(tok);
            let dup = lookup
                .find(h, |&r: &u32| {
                    let r = r as usize;
                    &bytes[offsets[r] as usize..offsets[r + 1] as usize] == tok
                })
                .is_some();
            if dup {
                return Err(Error::TokenTable(format!("duplicate token at rank {rank}")));
            }
            lookup.insert_unique(h, rank as u32, |&r| {
                let r = r as usize;
                FxBuildHasher.hash_one(&bytes[offsets[r] as usize..offsets[r + 1] as usize])
            });
        }
        Ok(RankTable { name, bytes, offsets, lookup, specials })
    }

    /// The encoding's name, e.g. `o200k_base`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of ordinary tokens.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True for a table without tokens.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Special tokens (name, rank); ordinary encoding never produces them.
    pub fn specials(&self) -> &[(String, u32)] {
        &self.specials
    }

    /// The rank of exactly these bytes, if they are a token.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        self.rank_hashed(piece, hash(piece))
    }

    /// [`Self::rank`] with the piece's [`hash`] already computed (a caller that keeps its
    /// own table of pieces hashes each once).
    #[inline]
    pub fn rank_hashed(&self, piece: &[u8], h: u64) -> Option<u32> {
        self.lookup.find(h, |&r| self.token(r) == piece).copied()
    }

    /// The bytes of `rank`. Panics only on an out-of-range rank, which the encoder never makes.
    #[inline]
    pub fn token(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        &self.bytes[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// Serialize to the compact file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + self.len() * 2 + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.name.len() as u16).to_le_bytes());
        out.extend_from_slice(self.name.as_bytes());
        out.extend_from_slice(&(self.len() as u32).to_le_bytes());
        out.extend_from_slice(&(self.specials.len() as u16).to_le_bytes());
        for (s, r) in &self.specials {
            out.extend_from_slice(&r.to_le_bytes());
            out.extend_from_slice(&(s.len() as u16).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        for w in self.offsets.windows(2) {
            let mut len = w[1] - w[0];
            loop {
                let byte = (len & 0x7f) as u8;
                len >>= 7;
                if len == 0 {
                    out.push(byte);
                    break;
                }
                out.push(byte | 0x80);
            }
        }
        out.extend_from_slice(&self.bytes);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Load the compact file format. Corrupt, truncated or future-version input is an error.
    pub fn from_bytes(data: &[u8]) -> Result<Self> {
        if data.len() < MAGIC.len() + 4 || &data[..8] != MAGIC {
            return Err(Error::BadMagic { what: WHAT });
        }
        let (body, crc) = data.split_at(data.len() - 4);
        let mut r = Reader { data: body, pos: 8 };
        let version = r.u16()?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion { what: WHAT, found: version, supported: VERSION });
        }
        let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        if crc32fast::hash(body) != stored {
            return Err(Error::Checksum { what: WHAT });
        }
        let name_len = r.u16()? as usize;
        let name = r.utf8(name_len)?;
        let n = r.u32()? as usize;
        let n_specials = r.u16()? as usize;
        let mut specials = Vec::with_capacity(n_specials);
        for _ in 0..n_specials {
            let rank = r.u32()?;
            let len = r.u16()? as usize;
            specials.push((r.utf8(len)?, rank));
        }
        if n > body.len() {
            return Err(Error::Truncated { what: WHAT });
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut acc: u32 = 0;
        offsets.push(0);
        for _ in 0..n {
            let len = r.leb128()?;
            if len == 0 {
                return Err(Error::TokenTable("empty token".into()));
            }
            acc = acc.checked_add(len).ok_or(Error::Truncated { what: WHAT })?;
            offsets.push(acc);
        }
        let rest = &body[r.pos..];
        if rest.len() != acc as usize {
            return Err(Error::Truncated { what: WHAT });
        }
        Self::index(name, rest.to_vec(), offsets, specials)
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len()).ok_or(Error::Truncated { what: WHAT })?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn utf8(&mut self, n: usize) -> Result<String> {
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| Error::TokenTable("name is not UTF-8".into()))
    }
    fn leb128(&mut self) -> Result<u32> {
        let mut v: u32 = 0;
        for shift in [0u32, 7, 14, 21, 28] {
            let b = self.take(1)?[0];
            v |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Error::TokenTable("length varint too long".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> RankTable {
        let toks: Vec<Vec<u8>> = (0u8..=255).map(|b| vec![b]).chain([b"ab".to_vec(), b"abc".to_vec()]).collect();
        RankTable::from_tokens("tiny", &toks, vec![("<|end|>".into(), 300)]).expect("valid table")
    }

    #[test]
    fn table_roundtrips_through_its_file_format() {
        let t = tiny();
        let back = RankTable::from_bytes(&t.to_bytes()).expect("roundtrip");
        assert_eq!(back.name(), "tiny");
        assert_eq!(back.len(), 258);
        assert_eq!(back.rank(b"abc"), Some(257));
        assert_eq!(back.token(256), b"ab");
        assert_eq!(back.specials(), &[("<|end|>".to_string(), 300)]);
    }

    #[test]
    fn every_single_byte_flip_is_detected() {
        let bytes = tiny().to_bytes();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert!(RankTable::from_bytes(&b).is_err(), "flip at {i} went unnoticed");
        }
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = tiny().to_bytes();
        for cut in 0..bytes.len() {
            assert!(RankTable::from_bytes(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn a_future_version_is_refused_with_its_number() {
        let mut bytes = tiny().to_bytes();
        bytes[8] = 9;
        let n = bytes.len();
        let crc = crc32fast::hash(&bytes[..n - 4]);
        bytes[n - 4..].copy_from_slice(&crc.to_le_bytes());
        assert_eq!(
            RankTable::from_bytes(&bytes).err(),
            Some(Error::UnsupportedVersion { what: WHAT, found: 9, supported: 1 })
        );
    }
}
