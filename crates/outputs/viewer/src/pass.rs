//! A `.ptb` read by blocks ([`Blocks`]) as the first pass over a whole
//! trace reads it ([`trama_lod::gather`]).

use trama_lod::gather::BlockSource;
use trama_sim::Trace;

use crate::blocks::Blocks;

impl BlockSource for Blocks {
    fn frames(&self) -> &[(f64, f64)] {
        Blocks::frames(self)
    }

    fn model(&self) -> Result<Trace, String> {
        Blocks::model(self)
    }

    fn replay(&self, t0: f64, t1: f64) -> Result<Trace, String> {
        let trace = Blocks::replay(self, t0, t1);
        self.release();
        trace
    }
}
