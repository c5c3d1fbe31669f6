//! Counts of a labelled evaluation and the scores derived from them.

/// True positives, false positives and false negatives.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub true_pos: usize,
    pub false_pos: usize,
    pub false_neg: usize,
}

impl Counts {
    /// Add one case's counts.
    pub fn add(&mut self, tp: usize, fp: usize, fneg: usize) {
        self.true_pos += tp;
        self.false_pos += fp;
        self.false_neg += fneg;
    }
    pub fn precision(&self) -> f64 {
        self.true_pos as f64 / (self.true_pos + self.false_pos).max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        self.true_pos as f64 / (self.true_pos + self.false_neg).max(1) as f64
    }
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}
