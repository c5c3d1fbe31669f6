//! A pre-filter for the exact scan of a large int8 index: every row's sign code (one bit
//! per dimension, `x > c` for the index's centre `c`: 48 bytes a row at 384-d, an eighth of
//! the int8 row) is compared with the query's by Hamming distance, and only the nearest
//! [`pool`] rows are scored exactly. The Hamming distance of sign codes estimates the angle
//! between two vectors (Charikar's SimHash, with the coordinate axes as hyperplanes), and
//! centring them on the rows' mean spreads the codes of embeddings that share a common
//! direction. Parity with the full scan is tested in `tests.rs` and in the test kit.

/// At or above this many rows an int8 index keeps sign codes and pre-filters its scans:
/// below, the int8 scan of every row is already under a millisecond in wasm.
pub const MIN_ROWS: usize = 20_000;

/// How many rows of `rows` are scored exactly after the pre-filter: a twenty-fifth of them
/// (4%), at least 2,048 and at least eight times the candidates the caller keeps.
pub fn pool(rows: usize, want: usize) -> usize {
    (rows / 25).max(2_048).max(want.saturating_mul(8))
}

/// Sign codes of an index's rows, in row order.
#[derive(Debug, Clone)]
pub struct SignCodes {
    centre: Vec<f32>,
    words: usize,
    bits: Vec<u64>,
}

impl SignCodes {
    /// Codes of `rows` (dequantized vectors, `None` for removed rows), centred on the mean
    /// of the live ones.
    pub fn build(dim: usize, rows: impl Iterator<Item = Option<Vec<f32>>> + Clone) -> Self {
        let mut centre = vec![0.0f32; dim];
        let mut n = 0usize;
        for v in rows.clone().flatten() {
            for (c, x) in centre.iter_mut().zip(&v) {
                *c += x;
            }
            n += 1;
        }
        for c in &mut centre {
            *c /= n.max(1) as f32;
        }
        let mut codes = SignCodes { centre, words: dim.div_ceil(64), bits: Vec::new() };
        for v in rows {
            codes.push(v.as_deref());
        }
        codes
    }

    /// Append the code of one row (`None`: a removed row, all zeros, never read).
    pub fn push(&mut self, v: Option<&[f32]>) {
        let start = self.bits.len();
        self.bits.resize(start + self.words, 0);
        if let Some(v) = v {
            self.write_code(v, start);
        }
    }

    fn write_code(&mut self, v: &[f32], at: usize) {
        for (i, (x, c)) in v.iter().zip(&self.centre).enumerate() {
            if x > c {
                self.bits[at + i / 64] |= 1 << (i % 64);
            }
        }
    }

    /// The code of a query.
    pub fn code(&self, q: &[f32]) -> Vec<u64> {
        let mut out = vec![0u64; self.words];
        for (i, (x, c)) in q.iter().zip(&self.centre).enumerate() {
            if x > c {
                out[i / 64] |= 1 << (i % 64);
            }
        }
        out
    }

    /// The rows nearest to `q` by Hamming distance among those `live` allows: the `pool`
    /// nearest, with every row tied at the cut (so the result does not depend on row order
    /// among equals), in row order.
    pub fn nearest(&self, q: &[u64], rows: usize, live: impl Fn(usize) -> bool, pool: usize) -> Vec<u32> {
        let w = self.words;
        let max = (w * 64) as u16;
        // The distances and, in the same pass, a counting sort's histogram of the live ones.
        let mut hist = vec![0usize; usize::from(max) + 1];
        // The pass reads every row's code: for the common widths (256-d and 384-d) the words
        // of a code are summed written out, where a loop over them (even a fixed array's)
        // stays a loop per row in the size-optimized build: a third of a recall at 1M.
        let dist = self.distances(w, rows, &live, &mut hist, |code: &[u64]| match (code, q) {
            (&[a, b, c, d], &[e, f, g, h]) => (a ^ e).count_ones() + (b ^ f).count_ones() + (c ^ g).count_ones() + (d ^ h).count_ones(),
            (&[a, b, c, d, e, f], &[g, h, i, j, k, l]) => {
                (a ^ g).count_ones() + (b ^ h).count_ones() + (c ^ i).count_ones() + (d ^ j).count_ones() + (e ^ k).count_ones() + (f ^ l).count_ones()
            }
            _ => code.iter().zip(q).map(|(a, b)| (a ^ b).count_ones()).sum(),
        });
        // The smallest distance `cut` that keeps `pool` rows.
        let (mut cut, mut seen) = (max, 0usize);
        for (d, n) in hist.iter().enumerate() {
            seen += n;
            if seen >= pool {
                cut = d as u16;
                break;
            }
        }
        dist.iter().enumerate().filter(|&(_, &d)| d <= cut).map(|(row, _)| row as u32).collect()
    }

    /// The `distance` to the query of each of the first `rows` codes of `w` words
    /// (`u16::MAX` for a row `live` refuses), counting the live ones' in `hist`.
    fn distances(&self, w: usize, rows: usize, live: &impl Fn(usize) -> bool, hist: &mut [usize], distance: impl Fn(&[u64]) -> u32) -> Vec<u16> {
        let mut out = Vec::with_capacity(rows);
        for (row, code) in self.bits.chunks_exact(w).take(rows).enumerate() {
            if !live(row) {
                out.push(u16::MAX);
                continue;
            }
            let d = distance(code);
            hist[d as usize] += 1;
            out.push(d as u16);
        }
        out
    }
}
