//! The accurate embedder: a BERT encoder run in full (all-MiniLM-L6-v2 and other
//! sentence-transformers models of BERT shape), read from the model's own `safetensors`
//! weights and `vocab.txt`. Text → `[CLS]` WordPiece `[SEP]` → embeddings + layer norm →
//! N × (self-attention, feed-forward with exact GELU, residuals and layer norms) → mean of
//! the token states → unit length. It reproduces sentence-transformers' vectors (cosine
//! ≥ 0.9999, see the parity test) at the cost of ~20 MFLOP per token: opt-in, for users
//! who want the full model's recall rather than the default table's speed.

use crate::embed::safetensors::Tensors;
use crate::embed::wordpiece::WordPiece;
use crate::error::{Error, Result};
use crate::index::vector::kernel::{dot, dot4};

fn bad(reason: impl Into<String>) -> Error {
    Error::EmbedModel(reason.into())
}

/// What the weights do not say about the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BertConfig {
    /// Attention heads per layer (the hidden size must divide by it).
    pub heads: usize,
    /// Tokens read per text, `[CLS]` and `[SEP]` included; longer texts are truncated.
    pub max_tokens: usize,
}

impl BertConfig {
    /// all-MiniLM-L6-v2 as sentence-transformers runs it: 12 heads, 256 tokens.
    pub const MINILM_L6: BertConfig = BertConfig { heads: 12, max_tokens: 256 };
}

/// LayerNorm epsilon of BERT models.
const LAYER_NORM_EPS: f32 = 1e-12;

#[derive(Debug)]
struct Linear {
    /// `out × in`, row-major (PyTorch's layout).
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
}

impl Linear {
    fn load(t: &Tensors<'_>, name: &str, inputs: usize, outputs: usize) -> Result<Self> {
        Ok(Linear { weight: t.f32(&format!("{name}.weight"), &[outputs, inputs])?, bias: t.f32(&format!("{name}.bias"), &[outputs])?, inputs })
    }

    /// `x · Wᵀ + b` for `x` of `rows × inputs`.
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let outputs = self.bias.len();
        let rows = x.len() / self.inputs;
        let mut y = vec![0.0; rows * outputs];
        let n = self.inputs;
        let blocks = x.chunks_exact(4 * n);
        let tail_at = rows - blocks.remainder().len() / n;
        for (o, (w, &b)) in self.weight.chunks_exact(n).zip(&self.bias).enumerate() {
            // Four token rows per pass over the weight row (in wasm the SIMD kernel is
            // ~1.5× faster than four single dot products), then the rest one by one.
            for (block, xb) in blocks.clone().enumerate() {
                let four = dot4(w, [&xb[..n], &xb[n..2 * n], &xb[2 * n..3 * n], &xb[3 * n..]]);
                for (k, v) in four.into_iter().enumerate() {
                    y[(4 * block + k) * outputs + o] = v + b;
                }
            }
            for (k, xr) in blocks.remainder().chunks_exact(n).enumerate() {
                y[(tail_at + k) * outputs + o] = dot(xr, w) + b;
            }
        }
        y
    }
}

#[derive(Debug)]
struct LayerNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

impl LayerNorm {
    fn load(t: &Tensors<'_>, name: &str, hidden: usize) -> Result<Self> {
        Ok(LayerNorm { gamma: t.f32(&format!("{name}.weight"), &[hidden])?, beta: t.f32(&format!("{name}.bias"), &[hidden])? })
    }

    fn apply(&self, x: &mut [f32]) {
        let h = self.gamma.len();
        for row in x.chunks_exact_mut(h) {
            let mean = row.iter().sum::<f32>() / h as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
            let inv = 1.0 / (var + LAYER_NORM_EPS).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

#[derive(Debug)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// A BERT sentence encoder with mean pooling.
#[derive(Debug)]
pub struct BertEmbedder {
    vocab: WordPiece,
    cls: u32,
    sep: u32,
    hidden: usize,
    config: BertConfig,
    /// `vocab × hidden`.
    words: Vec<f32>,
    /// `positions × hidden`.
    positions: Vec<f32>,
    /// Token type 0 (every token of a single text).
    token_type: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    checksum: u32,
}

impl BertEmbedder {
    /// Load a model from its `safetensors` weights and `vocab.txt` (one token per line,
    /// line i = token id i). Missing tensors, wrong shapes, a vocabulary that does not
    /// match the embeddings, or a config the weights contradict are `EMBED_MODEL` errors.
    pub fn from_safetensors(weights: &[u8], vocab: &str, config: BertConfig) -> Result<Self> {
        let t = Tensors::parse(weights)?;
        let prefix = if t.has("embeddings.word_embeddings.weight") { "" } else { "bert." };
        let name = |n: &str| format!("{prefix}{n}");
        let &[vocab_rows, hidden] = t.shape(&name("embeddings.word_embeddings.weight"))? else {
            return Err(bad("word embeddings are not a matrix"));
        };
        if hidden == 0 {
            return Err(bad("word embeddings of width 0"));
        }
        if config.heads == 0 || hidden % config.heads != 0 {
            return Err(bad(format!("{} heads do not divide the hidden size {hidden}", config.heads)));
        }
        let tokens: Vec<&str> = vocab.lines().collect();
        if tokens.len() != vocab_rows {
            return Err(bad(format!("the vocabulary has {} tokens, the embeddings {vocab_rows} rows", tokens.len())));
        }
        let id_of = |tok: &str| tokens.iter().position(|&t| t == tok).map(|i| i as u32).ok_or_else(|| bad(format!("the vocabulary has no {tok}")));
        let (cls, sep) = (id_of("[CLS]")?, id_of("[SEP]")?);
        let &[max_positions, _] = t.shape(&name("embeddings.position_embeddings.weight"))? else {
            return Err(bad("position embeddings are not a matrix"));
        };
        if config.max_tokens < 2 || config.max_tokens > max_positions {
            return Err(bad(format!("max_tokens {} outside 2..={max_positions}", config.max_tokens)));
        }
        let intermediate = t.shape(&name("encoder.layer.0.intermediate.dense.weight"))?.first().copied().unwrap_or(0);
        if intermediate == 0 {
            return Err(bad("feed-forward layer of width 0"));
        }
        let mut layers = Vec::new();
        while t.has(&name(&format!("encoder.layer.{}.attention.self.query.weight", layers.len()))) {
            let l = |n: &str| name(&format!("encoder.layer.{}.{n}", layers.len()));
            layers.push(Layer {
                query: Linear::load(&t, &l("attention.self.query"), hidden, hidden)?,
                key: Linear::load(&t, &l("attention.self.key"), hidden, hidden)?,
                value: Linear::load(&t, &l("attention.self.value"), hidden, hidden)?,
                attention_out: Linear::load(&t, &l("attention.output.dense"), hidden, hidden)?,
                attention_norm: LayerNorm::load(&t, &l("attention.output.LayerNorm"), hidden)?,
                intermediate: Linear::load(&t, &l("intermediate.dense"), hidden, intermediate)?,
                output: Linear::load(&t, &l("output.dense"), intermediate, hidden)?,
                output_norm: LayerNorm::load(&t, &l("output.LayerNorm"), hidden)?,
            });
        }
        if layers.is_empty() {
            return Err(bad("no encoder layers"));
        }
        let token_types = t.f32(&name("embeddings.token_type_embeddings.weight"), &[2, hidden]).or_else(|_| t.f32(&name("embeddings.token_type_embeddings.weight"), &[1, hidden]))?;
        Ok(BertEmbedder {
            vocab: WordPiece::new(tokens.iter().copied()),
            cls,
            sep,
            hidden,
            config,
            words: t.f32(&name("embeddings.word_embeddings.weight"), &[vocab_rows, hidden])?,
            positions: t.f32(&name("embeddings.position_embeddings.weight"), &[max_positions, hidden])?,
            token_type: token_types[..hidden].to_vec(),
            embedding_norm: LayerNorm::load(&t, &name("embeddings.LayerNorm"), hidden)?,
            layers,
            checksum: crc32fast::hash(weights),
        })
    }

    /// Dimensions of the vectors (the hidden size).
    pub fn dim(&self) -> usize {
        self.hidden
    }

    /// The embedder's identity for [`crate::EmbedderInfo`]: changes with the weights.
    pub fn id(&self) -> String {
        format!("engram-bert-{}x{}-{:08x}", self.layers.len(), self.hidden, self.checksum)
    }

    /// The token ids the model reads: `[CLS]`, WordPiece (`[UNK]` kept), `[SEP]`.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        // `encode` counts the ids already in the vector: `[CLS]` + pieces ≤ max − 1.
        self.vocab.encode(text, self.config.max_tokens - 1, &mut ids);
        ids.push(self.sep);
        ids
    }

    /// The unit-length embedding of `text` into `out` (`dim` long).
    pub fn embed_into(&self, text: &str, out: &mut [f32]) -> Result<()> {
        if out.len() != self.hidden {
            return Err(Error::DimensionMismatch { expected: self.hidden, found: out.len() });
        }
        let ids = self.tokenize(text);
        let states = self.encode(&ids);
        out.fill(0.0);
        for row in states.chunks_exact(self.hidden) {
            out.iter_mut().zip(row).for_each(|(o, v)| *o += v);
        }
        let norm = out.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            out.iter_mut().for_each(|x| *x /= norm);
        } else {
            // Weights that overflow or hold NaN: "no vector" rather than a poisoned one.
            out.fill(0.0);
        }
        Ok(())
    }

    /// The unit-length embedding of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0; self.hidden];
        // `v` has exactly `dim` entries, the only way `embed_into` fails.
        let _ = self.embed_into(text, &mut v);
        v
    }

    /// The last layer's states of `ids` (`ids.len() × hidden`).
    fn encode(&self, ids: &[u32]) -> Vec<f32> {
        let h = self.hidden;
        let mut x = Vec::with_capacity(ids.len() * h);
        for (pos, &id) in ids.iter().enumerate() {
            let word = &self.words[id as usize * h..][..h];
            let position = &self.positions[pos * h..][..h];
            x.extend(word.iter().zip(position).zip(&self.token_type).map(|((w, p), t)| w + p + t));
        }
        self.embedding_norm.apply(&mut x);
        for layer in &self.layers {
            let mut attended = layer.attention_out.apply(&self.attention(layer, &x, ids.len()));
            attended.iter_mut().zip(&x).for_each(|(a, r)| *a += r);
            layer.attention_norm.apply(&mut attended);
            let mut inner = layer.intermediate.apply(&attended);
            inner.iter_mut().for_each(|v| *v = gelu(*v));
            let mut y = layer.output.apply(&inner);
            y.iter_mut().zip(&attended).for_each(|(a, r)| *a += r);
            layer.output_norm.apply(&mut y);
            x = y;
        }
        x
    }

    /// Multi-head self-attention over all `n` tokens (no padding: one text at a time).
    fn attention(&self, layer: &Layer, x: &[f32], n: usize) -> Vec<f32> {
        let (h, heads) = (self.hidden, self.config.heads);
        let d = h / heads;
        let (q, k, v) = (layer.query.apply(x), layer.key.apply(x), layer.value.apply(x));
        let scale = 1.0 / (d as f32).sqrt();
        let mut context = vec![0.0; n * h];
        let mut scores = vec![0.0; n];
        for head in 0..heads {
            let at = head * d;
            for i in 0..n {
                let qi = &q[i * h + at..][..d];
                for (j, s) in scores.iter_mut().enumerate() {
                    *s = dot(qi, &k[j * h + at..][..d]) * scale;
                }
                let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0.0;
                scores.iter_mut().for_each(|s| {
                    *s = (*s - max).exp();
                    sum += *s;
                });
                let ci = &mut context[i * h + at..][..d];
                for (j, s) in scores.iter().enumerate() {
                    let p = s / sum;
                    ci.iter_mut().zip(&v[j * h + at..][..d]).for_each(|(c, vj)| *c += p * vj);
                }
            }
        }
        context
    }
}

/// BERT's GELU: `x · Φ(x)` with the exact normal CDF.
fn gelu(x: f32) -> f32 {
    let x = f64::from(x);
    (0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))) as f32
}

/// The error function, to ~1.2e-7 relative (Numerical Recipes' `erfc` Chebyshev fit).
fn erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06 + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    if x >= 0.0 {
        1.0 - erfc
    } else {
        erfc - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{safetensors as file, tiny_bert as tiny, TINY_BERT_VOCAB as VOCAB};

    const CONFIG: BertConfig = BertConfig { heads: 2, max_tokens: 6 };

    #[test]
    fn a_text_embeds_to_a_unit_vector_that_depends_on_word_order_and_truncates_at_the_window() {
        let m = BertEmbedder::from_safetensors(&tiny(""), VOCAB, CONFIG).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.tokenize("Red apples"), vec![2, 4, 5, 6, 3]);
        assert_eq!(m.tokenize("red red red red red red red"), vec![2, 4, 4, 4, 4, 3], "[CLS] + 4 pieces + [SEP] = the 6-token window");
        let v = m.embed("red apple");
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5, "{v:?}");
        assert!(v.iter().all(|x| x.is_finite()));
        assert_eq!(v, m.embed("red apple"), "deterministic");
        assert_ne!(v, m.embed("apple red"), "positions matter: not a bag of words");
        assert!(m.embed("").iter().all(|x| x.is_finite()), "the empty text is [CLS] [SEP]");
        let mut short = [0.0; 3];
        assert_eq!(m.embed_into("red", &mut short).map_err(|e| e.code()), Err("DIMENSION_MISMATCH"));
    }

    #[test]
    fn missing_tensors_and_mismatched_vocabularies_are_typed_errors() {
        let code = |w: &[u8], v: &str, c: BertConfig| BertEmbedder::from_safetensors(w, v, c).map(|_| ()).map_err(|e| e.code());
        assert_eq!(code(&tiny(""), VOCAB, CONFIG), Ok(()));
        for skip in ["encoder.layer.0.output.dense.bias", "embeddings.LayerNorm.weight", "embeddings.position_embeddings.weight", "encoder.layer.0.attention.self.query.weight"] {
            assert_eq!(code(&tiny(skip), VOCAB, CONFIG), Err("EMBED_MODEL"), "without {skip}");
        }
        assert_eq!(code(&tiny(""), "[PAD]\n[UNK]", CONFIG), Err("EMBED_MODEL"), "fewer tokens than rows");
        assert_eq!(code(&tiny(""), &VOCAB.replace("[CLS]", "[XLS]"), CONFIG), Err("EMBED_MODEL"), "no [CLS]");
        assert_eq!(code(&tiny(""), VOCAB, BertConfig { heads: 3, max_tokens: 6 }), Err("EMBED_MODEL"));
        assert_eq!(code(&tiny(""), VOCAB, BertConfig { heads: 2, max_tokens: 7 }), Err("EMBED_MODEL"), "past the 6 positions");
        assert_eq!(code(&tiny(""), VOCAB, BertConfig { heads: 0, max_tokens: 6 }), Err("EMBED_MODEL"));
        let zero_width = file(&[("embeddings.word_embeddings.weight", vec![7, 0], vec![])]);
        assert_eq!(code(&zero_width, VOCAB, CONFIG), Err("EMBED_MODEL"), "width 0 never reaches a kernel");
    }

    #[test]
    fn weights_that_hold_nan_give_no_vector_rather_than_a_poisoned_one() {
        let mut w = tiny("");
        // The last 4 bytes are the last LayerNorm bias value: make it NaN.
        let n = w.len();
        w[n - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
        let m = BertEmbedder::from_safetensors(&w, VOCAB, CONFIG).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.embed("red apple"), vec![0.0; 4]);
    }
}
