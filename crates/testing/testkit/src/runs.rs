//! Runs with a delay injected where the tests know it: two runs of one
//! generator compared (`trama diff`, `trama view A B`).

/// A bulk-synchronous run of `ranks` ranks and `iterations` iterations as
/// Pajé text: per iteration (a state `iteration` around it) each rank
/// computes (`compute`, rank r for 1 + 0.1 r s) then enters an
/// `MPI_Barrier` that every rank leaves 0.01 s after the last one entered;
/// `delay` seconds more of computation on the last rank at iteration 1
/// (the second), so that every other rank waits that much longer in its
/// barrier.
pub fn bsp_run(ranks: usize, iterations: usize, delay: f64) -> String {
    let mut s = trama_gen::event_defs(
        "PajeDefineContainerType 0; PajeDefineStateType 1; PajeCreateContainer 2; \
         PajeDestroyContainer 3; PajePushState 4; PajePopState 5",
    );
    s.push_str("0 R 0 Rank\n1 S R State\n");
    for r in 0..ranks {
        s.push_str(&format!("2 0 r{r} R 0 rank-{r}\n"));
    }
    let mut t = 0.0;
    for i in 0..iterations {
        let compute = |r: usize| {
            let extra = if r == ranks - 1 && i == 1 { delay } else { 0.0 };
            1.0 + 0.1 * r as f64 + extra
        };
        let last = (0..ranks).map(compute).fold(0.0, f64::max);
        for r in 0..ranks {
            let c = compute(r);
            s.push_str(&format!("4 {t:.6} S r{r} iteration\n"));
            s.push_str(&format!("4 {t:.6} S r{r} compute\n5 {:.6} S r{r}\n", t + c));
            s.push_str(&format!("4 {:.6} S r{r} MPI_Barrier\n", t + c));
        }
        t += last + 0.01;
        for r in 0..ranks {
            s.push_str(&format!("5 {t:.6} S r{r}\n5 {t:.6} S r{r}\n"));
        }
    }
    for r in 0..ranks {
        s.push_str(&format!("3 {t:.6} R r{r}\n"));
    }
    s
}
