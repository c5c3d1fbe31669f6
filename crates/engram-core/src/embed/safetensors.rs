//! A reader of the `safetensors` format (the format Hugging Face models ship their weights
//! in): u64 little-endian header length, a JSON header naming each tensor's dtype, shape and
//! byte range, then the data. Only what an encoder needs: `F32` tensors by name.
//!
//! The header is parsed by a small JSON reader of its own so the core takes no JSON
//! dependency; anything unexpected is an `EMBED_MODEL` error, never a panic.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};

/// Largest header accepted (real ones are a few tens of kB).
const MAX_HEADER: usize = 16 << 20;

fn bad(reason: impl Into<String>) -> Error {
    Error::EmbedModel(reason.into())
}

/// One tensor's entry in the header.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    start: usize,
    end: usize,
}

/// The tensors of one `safetensors` file, read in place.
#[derive(Debug)]
pub(crate) struct Tensors<'a> {
    data: &'a [u8],
    entries: FxHashMap<String, Entry>,
}

impl<'a> Tensors<'a> {
    /// Parse the header of `bytes`; every entry's range must lie inside the data.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self> {
        let len = bytes.get(..8).ok_or_else(|| bad("not a safetensors file: shorter than its header length"))?;
        let len = u64::from_le_bytes([len[0], len[1], len[2], len[3], len[4], len[5], len[6], len[7]]);
        let len = usize::try_from(len).ok().filter(|&l| l <= MAX_HEADER).ok_or_else(|| bad(format!("header of {len} bytes")))?;
        let header = bytes.get(8..8 + len).ok_or_else(|| bad("truncated header"))?;
        let header = std::str::from_utf8(header).map_err(|_| bad("header is not UTF-8"))?;
        let data = &bytes[8 + len..];
        let Json::Object(fields) = Reader { s: header.as_bytes(), at: 0 }.document()? else {
            return Err(bad("header is not a JSON object"));
        };
        let mut entries = FxHashMap::default();
        for (name, value) in fields {
            if name == "__metadata__" {
                continue;
            }
            let entry = entry(&value).ok_or_else(|| bad(format!("tensor {name}: malformed entry")))?;
            if entry.start > entry.end || entry.end > data.len() {
                return Err(bad(format!("tensor {name}: bytes {}..{} outside the {} bytes of data", entry.start, entry.end, data.len())));
            }
            entries.insert(name, entry);
        }
        Ok(Tensors { data, entries })
    }

    /// Whether a tensor of that name exists.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// The shape of a tensor.
    pub(crate) fn shape(&self, name: &str) -> Result<&[usize]> {
        Ok(&self.entries.get(name).ok_or_else(|| bad(format!("no tensor {name}")))?.shape)
    }

    /// The values of an `F32` tensor of exactly `shape`, row-major.
    pub(crate) fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let e = self.entries.get(name).ok_or_else(|| bad(format!("no tensor {name}")))?;
        if e.dtype != "F32" {
            return Err(bad(format!("tensor {name} is {}, expected F32", e.dtype)));
        }
        if e.shape != shape {
            return Err(bad(format!("tensor {name} has shape {:?}, expected {shape:?}", e.shape)));
        }
        let count = shape.iter().product::<usize>();
        if e.end - e.start != count * 4 {
            return Err(bad(format!("tensor {name}: {} bytes for {count} values", e.end - e.start)));
        }
        Ok(self.data[e.start..e.end].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
}

fn entry(value: &Json) -> Option<Entry> {
    let Json::Object(fields) = value else { return None };
    let field = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let Some(Json::String(dtype)) = field("dtype") else { return None };
    let numbers = |v: Option<&Json>| -> Option<Vec<usize>> {
        let Some(Json::Array(items)) = v else { return None };
        items.iter().map(|i| if let Json::Number(n) = i { Some(*n) } else { None }).collect()
    };
    let shape = numbers(field("shape"))?;
    let offsets = numbers(field("data_offsets"))?;
    let [start, end] = offsets[..] else { return None };
    Some(Entry { dtype: dtype.clone(), shape, start, end })
}

/// The JSON a header can hold. Numbers are non-negative integers (all a header needs);
/// anything else numeric is an error.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    String(String),
    Number(usize),
    Literal,
}

/// Nesting deeper than this is refused (a header nests three levels).
const MAX_DEPTH: usize = 16;

struct Reader<'s> {
    s: &'s [u8],
    at: usize,
}

impl Reader<'_> {
    fn document(mut self) -> Result<Json> {
        let v = self.value(0)?;
        self.space();
        if self.at != self.s.len() {
            return Err(bad(format!("header: unexpected data at byte {}", self.at)));
        }
        Ok(v)
    }

    fn space(&mut self) {
        while matches!(self.s.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        self.space();
        if self.s.get(self.at) != Some(&c) {
            return Err(bad(format!("header: expected '{}' at byte {}", c as char, self.at)));
        }
        self.at += 1;
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > MAX_DEPTH {
            return Err(bad("header nests too deeply"));
        }
        self.space();
        match self.s.get(self.at) {
            Some(b'{') => self.sequence(b'}', depth, |r, d| {
                let k = r.string()?;
                r.expect(b':')?;
                Ok((k, r.value(d)?))
            })
            .map(Json::Object),
            Some(b'[') => self.sequence(b']', depth, |r, d| r.value(d)).map(Json::Array),
            Some(b'"') => self.string().map(Json::String),
            Some(b'0'..=b'9') => {
                let start = self.at;
                while matches!(self.s.get(self.at), Some(b'0'..=b'9')) {
                    self.at += 1;
                }
                // Digits are ASCII: the slice is valid UTF-8.
                let digits = std::str::from_utf8(&self.s[start..self.at]).unwrap_or_default();
                digits.parse().map(Json::Number).map_err(|_| bad(format!("header: number {digits} too large")))
            }
            _ => {
                for word in [&b"true"[..], b"false", b"null"] {
                    if self.s[self.at..].starts_with(word) {
                        self.at += word.len();
                        return Ok(Json::Literal);
                    }
                }
                Err(bad(format!("header: unexpected byte at {}", self.at)))
            }
        }
    }

    /// `open item (, item)* close`, the opening byte under the cursor.
    fn sequence<T>(&mut self, close: u8, depth: usize, mut item: impl FnMut(&mut Self, usize) -> Result<T>) -> Result<Vec<T>> {
        self.at += 1;
        let mut out = Vec::new();
        self.space();
        if self.s.get(self.at) == Some(&close) {
            self.at += 1;
            return Ok(out);
        }
        loop {
            out.push(item(self, depth + 1)?);
            self.space();
            match self.s.get(self.at) {
                Some(b',') => self.at += 1,
                Some(&c) if c == close => {
                    self.at += 1;
                    return Ok(out);
                }
                _ => return Err(bad(format!("header: expected ',' or '{}' at byte {}", close as char, self.at))),
            }
        }
    }

    fn string(&mut self) -> Result<String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.at) {
                None => return Err(bad("header: unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => {
                    let c = self.s.get(self.at + 1).ok_or_else(|| bad("header: unterminated string"))?;
                    out.push(match c {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'"' | b'\\' | b'/' => *c,
                        _ => return Err(bad(format!("header: unsupported escape at byte {}", self.at))),
                    });
                    self.at += 2;
                }
                Some(&c) => {
                    out.push(c);
                    self.at += 1;
                }
            }
        }
        self.at += 1;
        String::from_utf8(out).map_err(|_| bad("header: string is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::safetensors as file;

    #[test]
    fn tensors_read_back_by_name_and_shape() {
        let f = file(&[("a", vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]), ("b", vec![1], vec![-0.5])]);
        let t = Tensors::parse(&f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.f32("a", &[2, 2]).ok(), Some(vec![1.0, 2.0, 3.0, 4.0]));
        assert_eq!(t.f32("b", &[1]).ok(), Some(vec![-0.5]));
        assert_eq!(t.shape("a").ok(), Some(&[2usize, 2][..]));
        assert_eq!(t.f32("a", &[4]).map_err(|e| e.code()), Err("EMBED_MODEL"), "wrong shape");
        assert_eq!(t.f32("c", &[1]).map_err(|e| e.code()), Err("EMBED_MODEL"), "missing");
    }

    #[test]
    fn any_truncation_or_corruption_is_a_typed_error_and_never_a_panic() {
        let f = file(&[("a", vec![2], vec![1.0, 2.0])]);
        for cut in 0..f.len() {
            let read = Tensors::parse(&f[..cut]).and_then(|t| t.f32("a", &[2]));
            assert_eq!(read.map_err(|e| e.code()), Err("EMBED_MODEL"), "cut at {cut}");
        }
        for at in 0..f.len() {
            for flip in [0x01u8, 0x20, 0x80] {
                let mut g = f.clone();
                g[at] ^= flip;
                let _ = Tensors::parse(&g).map(|t| t.f32("a", &[2]));
            }
        }
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let mut g = (deep.len() as u64).to_le_bytes().to_vec();
        g.extend_from_slice(deep.as_bytes());
        assert_eq!(Tensors::parse(&g).map(|_| ()).map_err(|e| e.code()), Err("EMBED_MODEL"));
    }
}
