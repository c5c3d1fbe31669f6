//! Fixtures shared by the core's own tests and the test kit (fuzz seeds, cross-language
//! vectors), so that each is written once. Compiled for `cfg(test)` and with the `testing`
//! feature, which only `engram-testkit` turns on: nothing here ships in the wasm module.

use crate::error::Error;

pub mod fitted;

/// One error of every variant, for checks across languages: the test kit writes each one's
/// code and class to `tests/vectors/error-codes.json`, and the SDK's classes are tested
/// against it. A unit test of `error.rs` fails when a variant is missing here.
pub fn error_examples() -> Vec<Error> {
    let w = "example";
    vec![
        Error::InvalidInput { field: w, reason: w.into() },
        Error::DimensionMismatch { expected: 3, found: 4 },
        Error::BadEmbedding(w),
        Error::TextTooLarge { len: 2, max: 1 },
        Error::NotFound(w.into()),
        Error::BadMagic { what: w },
        Error::UnsupportedVersion { what: w, found: 2, supported: 1 },
        Error::Truncated { what: w },
        Error::Checksum { what: w },
        Error::Decode { what: w, reason: w.into() },
        Error::TokenTable(w.into()),
        Error::Tokenize(w.into()),
        Error::EmbedTable(w.into()),
        Error::EmbedModel(w.into()),
        Error::RedactionKey(w),
    ]
}

/// The vocabulary of [`tiny_bert`].
pub const TINY_BERT_VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nred\napple\n##s";

/// A 1-layer BERT of hidden size 4 with 2 heads (weights from a fixed pattern) as a
/// `safetensors` file, without the tensor named `skip` (`""` keeps them all).
pub fn tiny_bert(skip: &str) -> Vec<u8> {
    let (h, i, v, p) = (4usize, 8usize, 7usize, 6usize);
    let values = |n: usize, seed: usize| (0..n).map(|k| (((k * 7 + seed * 13) % 17) as f32 - 8.0) / 16.0).collect::<Vec<f32>>();
    let mut t = vec![
        ("embeddings.word_embeddings.weight".to_string(), vec![v, h], values(v * h, 1)),
        ("embeddings.position_embeddings.weight".to_string(), vec![p, h], values(p * h, 2)),
        ("embeddings.token_type_embeddings.weight".to_string(), vec![2, h], values(2 * h, 3)),
        ("embeddings.LayerNorm.weight".to_string(), vec![h], vec![1.0; h]),
        ("embeddings.LayerNorm.bias".to_string(), vec![h], vec![0.0; h]),
    ];
    let l = "encoder.layer.0";
    let linears = [("attention.self.query", h, h), ("attention.self.key", h, h), ("attention.self.value", h, h), ("attention.output.dense", h, h), ("intermediate.dense", i, h), ("output.dense", h, i)];
    for (seed, (name, outputs, inputs)) in linears.into_iter().enumerate() {
        t.push((format!("{l}.{name}.weight"), vec![outputs, inputs], values(outputs * inputs, 4 + seed)));
        t.push((format!("{l}.{name}.bias"), vec![outputs], values(outputs, 20 + seed)));
    }
    for n in ["attention.output.LayerNorm", "output.LayerNorm"] {
        t.push((format!("{l}.{n}.weight"), vec![h], vec![1.0; h]));
        t.push((format!("{l}.{n}.bias"), vec![h], vec![0.0; h]));
    }
    t.retain(|(name, _, _)| name != skip);
    let refs: Vec<(&str, Vec<usize>, Vec<f32>)> = t.iter().map(|(n, s, v)| (n.as_str(), s.clone(), v.clone())).collect();
    safetensors(&refs)
}

/// A `safetensors` file holding `tensors` (name, shape, values) as F32.
pub fn safetensors(tensors: &[(&str, Vec<usize>, Vec<f32>)]) -> Vec<u8> {
    let mut header = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
    let mut data = Vec::new();
    for (name, shape, values) in tensors {
        let start = data.len();
        data.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        let shape: Vec<String> = shape.iter().map(ToString::to_string).collect();
        header += &format!(",\"{name}\":{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{start},{}]}}", shape.join(","), data.len());
    }
    header.push('}');
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend(data);
    out
}
