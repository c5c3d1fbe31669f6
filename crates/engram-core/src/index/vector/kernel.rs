//! Dot-product kernels. On `wasm32` with `simd128` they use 128-bit lanes; elsewhere a
//! scalar loop with eight independent accumulators (which LLVM vectorizes natively).
//! Both orders of summation rank the same vectors the same way (see tests and the
//! wasm run in `.ci/run`).

/// `Σ a[i]·b[i]` over the common length.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_scalar(a, b)
    }
}

/// `Σ w[i]·x[k][i]` for four rows `x` at once (the inner step of a matrix product), over
/// the shortest length. With SIMD `w` is loaded once for the four.
#[inline]
pub fn dot4(w: &[f32], x: [&[f32]; 4]) -> [f32; 4] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot4(w, x)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot4_scalar(w, x)
    }
}

/// The portable four-row kernel: four [`dot_scalar`]s. (Natively, sharing the loads of `w`
/// across rows measured slower than this; in wasm the SIMD kernel is ~1.5× faster than
/// four SIMD `dot`s in the size-optimized build, ~3× at opt-level 3.)
pub fn dot4_scalar(w: &[f32], x: [&[f32]; 4]) -> [f32; 4] {
    x.map(|row| dot_scalar(w, row))
}

/// `Σ q[i]·v[i]` for an int8 row (the caller multiplies by the row's scale).
#[inline]
pub fn dot_i8(q: &[f32], v: &[i8]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot_i8(q, v)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_scalar(q, v)
    }
}

/// `Σ a[i]·b[i]` of two int8 rows, exact in i32 (rows up to 133k dimensions).
#[inline]
pub fn dot_i8_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot_i8_i8(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_i8_scalar(a, b)
    }
}

/// The portable int8×int8 kernel (LLVM turns it into `pmaddwd`-style code natively).
pub fn dot_i8_i8_scalar(a: &[i8], b: &[i8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0i32; 16];
    let mut ca = a.chunks_exact(16);
    let mut cb = b.chunks_exact(16);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let tail: i32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
    acc.iter().sum::<i32>() + tail
}

/// The portable kernel.
pub fn dot_scalar(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0f32; 8];
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut tail = 0f32;
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail += x * y;
    }
    (acc[0] + acc[4]) + (acc[1] + acc[5]) + (acc[2] + acc[6]) + (acc[3] + acc[7]) + tail
}

/// The portable int8 kernel.
pub fn dot_i8_scalar(q: &[f32], v: &[i8]) -> f32 {
    let n = q.len().min(v.len());
    let (q, v) = (&q[..n], &v[..n]);
    let mut acc = [0f32; 8];
    let mut cq = q.chunks_exact(8);
    let mut cv = v.chunks_exact(8);
    for (x, y) in (&mut cq).zip(&mut cv) {
        for i in 0..8 {
            acc[i] += x[i] * f32::from(y[i]);
        }
    }
    let mut tail = 0f32;
    for (x, y) in cq.remainder().iter().zip(cv.remainder()) {
        tail += x * f32::from(*y);
    }
    (acc[0] + acc[4]) + (acc[1] + acc[5]) + (acc[2] + acc[6]) + (acc[3] + acc[7]) + tail
}

/// Per-row symmetric int8 quantization: `v ≈ scale · q`, `scale = max|v| / 127`.
pub fn quantize(v: &[f32]) -> (f32, Vec<i8>) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    (scale, v.iter().map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8).collect())
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
mod simd {
    use core::arch::wasm32::*;

    // The loops below index by hand rather than zip chunk iterators: the wasm build is
    // optimized for size (opt-level "z"), which leaves iterator adapters as calls, one
    // per chunk — several times slower on a 10k-vector scan.

    pub fn dot(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (mut s0, mut s1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut i = 0;
        while i + 8 <= n {
            // SAFETY: i + 8 <= n <= both lengths, so each load reads 4 f32 inside its slice;
            // v128_load allows unaligned reads.
            unsafe {
                let (x, y) = (a.as_ptr().add(i), b.as_ptr().add(i));
                s0 = f32x4_add(s0, f32x4_mul(v128_load(x as *const v128), v128_load(y as *const v128)));
                s1 = f32x4_add(s1, f32x4_mul(v128_load(x.add(4) as *const v128), v128_load(y.add(4) as *const v128)));
            }
            i += 8;
        }
        let s = f32x4_add(s0, s1);
        let mut tail = 0f32;
        while i < n {
            tail += a[i] * b[i];
            i += 1;
        }
        f32x4_extract_lane::<0>(s) + f32x4_extract_lane::<1>(s) + f32x4_extract_lane::<2>(s) + f32x4_extract_lane::<3>(s) + tail
    }

    /// Written out by hand (no loop over the four rows): the wasm build is optimized for
    /// size and would otherwise keep the accumulators in memory.
    pub fn dot4(w: &[f32], x: [&[f32]; 4]) -> [f32; 4] {
        let n = x.iter().fold(w.len(), |n, r| n.min(r.len()));
        let [r0, r1, r2, r3] = x;
        let (mut a0, mut a1, mut a2, mut a3) = (f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0), f32x4_splat(0.0));
        let mut i = 0;
        while i + 4 <= n {
            // SAFETY: i + 4 <= n, and n is at most the length of `w` and of every row, so
            // each load reads 4 f32 inside its slice; unaligned loads are allowed.
            unsafe {
                let wv = v128_load(w.as_ptr().add(i) as *const v128);
                a0 = f32x4_add(a0, f32x4_mul(wv, v128_load(r0.as_ptr().add(i) as *const v128)));
                a1 = f32x4_add(a1, f32x4_mul(wv, v128_load(r1.as_ptr().add(i) as *const v128)));
                a2 = f32x4_add(a2, f32x4_mul(wv, v128_load(r2.as_ptr().add(i) as *const v128)));
                a3 = f32x4_add(a3, f32x4_mul(wv, v128_load(r3.as_ptr().add(i) as *const v128)));
            }
            i += 4;
        }
        let sum = |a: v128, row: &[f32]| {
            let tail: f32 = (i..n).map(|j| w[j] * row[j]).sum();
            (f32x4_extract_lane::<0>(a) + f32x4_extract_lane::<2>(a)) + (f32x4_extract_lane::<1>(a) + f32x4_extract_lane::<3>(a)) + tail
        };
        [sum(a0, r0), sum(a1, r1), sum(a2, r2), sum(a3, r3)]
    }

    pub fn dot_i8_i8(a: &[i8], b: &[i8]) -> i32 {
        let n = a.len().min(b.len());
        let mut acc = i32x4_splat(0);
        let mut other = i32x4_splat(0);
        let mut i = 0;
        // 32 bytes a step into two accumulators: the loop's own work is halved and the two
        // chains of adds run side by side (a 384-d row is 12 steps).
        while i + 32 <= n {
            // SAFETY: i + 32 <= n <= both lengths: each load reads 16 bytes inside its slice.
            unsafe {
                let x = v128_load(a.as_ptr().add(i) as *const v128);
                let y = v128_load(b.as_ptr().add(i) as *const v128);
                let u = v128_load(a.as_ptr().add(i + 16) as *const v128);
                let v = v128_load(b.as_ptr().add(i + 16) as *const v128);
                acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(x, y)));
                other = i32x4_add(other, i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(x, y)));
                acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(u, v)));
                other = i32x4_add(other, i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(u, v)));
            }
            i += 32;
        }
        acc = i32x4_add(acc, other);
        while i + 16 <= n {
            // SAFETY: i + 16 <= n <= both lengths: each load reads 16 bytes inside its slice;
            // unaligned loads are allowed.
            unsafe {
                let x = v128_load(a.as_ptr().add(i) as *const v128);
                let y = v128_load(b.as_ptr().add(i) as *const v128);
                // An i8 × i8 product fits an i16 (|−128 × −128| = 16384): widening
                // multiplies, then pairwise sums into i32 lanes — six operations per 16
                // bytes where extending both sides first took eight; the same integers.
                acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(i16x8_extmul_low_i8x16(x, y)));
                acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(i16x8_extmul_high_i8x16(x, y)));
            }
            i += 16;
        }
        let mut tail = 0i32;
        while i < n {
            tail += i32::from(a[i]) * i32::from(b[i]);
            i += 1;
        }
        i32x4_extract_lane::<0>(acc) + i32x4_extract_lane::<1>(acc) + i32x4_extract_lane::<2>(acc) + i32x4_extract_lane::<3>(acc) + tail
    }

    pub fn dot_i8(q: &[f32], v: &[i8]) -> f32 {
        let n = q.len().min(v.len());
        let mut acc = f32x4_splat(0.0);
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: i + 16 <= n <= both lengths: 16 bytes of `v` and 4 × 4 f32 of `q` from
            // `i`, inside their slices; unaligned loads are allowed.
            unsafe {
                let bytes = v128_load(v.as_ptr().add(i) as *const v128);
                let (lo, hi) = (i16x8_extend_low_i8x16(bytes), i16x8_extend_high_i8x16(bytes));
                let x = q.as_ptr().add(i);
                acc = f32x4_add(acc, f32x4_mul(v128_load(x as *const v128), f32x4_convert_i32x4(i32x4_extend_low_i16x8(lo))));
                acc = f32x4_add(acc, f32x4_mul(v128_load(x.add(4) as *const v128), f32x4_convert_i32x4(i32x4_extend_high_i16x8(lo))));
                acc = f32x4_add(acc, f32x4_mul(v128_load(x.add(8) as *const v128), f32x4_convert_i32x4(i32x4_extend_low_i16x8(hi))));
                acc = f32x4_add(acc, f32x4_mul(v128_load(x.add(12) as *const v128), f32x4_convert_i32x4(i32x4_extend_high_i16x8(hi))));
            }
            i += 16;
        }
        let mut tail = 0f32;
        while i < n {
            tail += q[i] * f32::from(v[i]);
            i += 1;
        }
        f32x4_extract_lane::<0>(acc) + f32x4_extract_lane::<1>(acc) + f32x4_extract_lane::<2>(acc) + f32x4_extract_lane::<3>(acc) + tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
    }

    #[test]
    fn the_four_row_kernel_agrees_with_four_dot_products_at_every_length() {
        let v = |n: usize, seed: usize| (0..n).map(|i| (((i * 31 + seed * 17) % 23) as f32 - 11.0) / 7.0).collect::<Vec<f32>>();
        for n in [0, 1, 3, 4, 5, 8, 13, 384, 1536] {
            let w = v(n, 1);
            let rows = [v(n, 2), v(n, 3), v(n, 4), v(n, 5)];
            let got = dot4(&w, [&rows[0], &rows[1], &rows[2], &rows[3]]);
            for (k, row) in rows.iter().enumerate() {
                let want = naive(&w, row);
                assert!((f64::from(got[k]) - want).abs() <= 1e-4 * (1.0 + want.abs()), "n {n} row {k}: {} vs {want}", got[k]);
                let portable = f64::from(dot4_scalar(&w, [&rows[0], &rows[1], &rows[2], &rows[3]])[k]);
                assert!((portable - want).abs() <= 1e-4 * (1.0 + want.abs()), "n {n} row {k}: portable {portable} vs {want}");
            }
        }
    }

    /// On wasm32 + simd128 `dot`/`dot_i8_i8` are the SIMD kernels; elsewhere this checks
    /// the dispatch. Either way the top 20 of 2,000 seeded vectors must be identical.
    #[test]
    fn simd_and_portable_kernels_rank_the_same_vectors_the_same_way() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let dim = 96;
        let rows: Vec<Vec<f32>> = (0..2000).map(|_| (0..dim).map(|_| next()).collect()).collect();
        let q: Vec<f32> = (0..dim).map(|_| next()).collect();
        let rank = |f: &dyn Fn(&[f32]) -> f32| {
            let mut v: Vec<(usize, f32)> = rows.iter().enumerate().map(|(i, r)| (i, f(r))).collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            v.into_iter().take(20).map(|(i, _)| i).collect::<Vec<_>>()
        };
        assert_eq!(rank(&|r| dot(&q, r)), rank(&|r| dot_scalar(&q, r)));
        let (_, qq) = quantize(&q);
        let rows_q: Vec<Vec<i8>> = rows.iter().map(|r| quantize(r).1).collect();
        let rank_i = |f: &dyn Fn(&[i8]) -> i32| {
            let mut v: Vec<(usize, i32)> = rows_q.iter().enumerate().map(|(i, r)| (i, f(r))).collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            v.into_iter().take(20).map(|(i, _)| i).collect::<Vec<_>>()
        };
        assert_eq!(rank_i(&|r| dot_i8_i8(&qq, r)), rank_i(&|r| dot_i8_i8_scalar(&qq, r)));
    }

    proptest! {
        #[test]
        fn kernels_agree_with_a_double_precision_sum(v in proptest::collection::vec((-1f32..1.0, -1f32..1.0), 0..300)) {
            let (a, b): (Vec<f32>, Vec<f32>) = v.into_iter().unzip();
            let exact = naive(&a, &b);
            prop_assert!((f64::from(dot(&a, &b)) - exact).abs() < 1e-3);
            prop_assert!((f64::from(dot_scalar(&a, &b)) - exact).abs() < 1e-3);
            let (scale, q) = quantize(&b);
            let approx = f64::from(dot_i8(&a, &q) * scale);
            let scalar = f64::from(dot_i8_scalar(&a, &q) * scale);
            prop_assert!((approx - scalar).abs() < 1e-3);
            // int8 rounding error is at most scale/2 per coordinate.
            let bound: f64 = a.iter().map(|x| f64::from(x.abs())).sum::<f64>() * f64::from(scale) / 2.0 + 1e-3;
            prop_assert!((approx - exact).abs() <= bound);
            let (qs, qa) = quantize(&a);
            let ints: i64 = qa.iter().zip(&q).map(|(x, y)| i64::from(*x) * i64::from(*y)).sum();
            prop_assert_eq!(i64::from(dot_i8_i8(&qa, &q)), ints);
            prop_assert_eq!(dot_i8_i8_scalar(&qa, &q), dot_i8_i8(&qa, &q));
            let _ = qs;
        }
    }
}
