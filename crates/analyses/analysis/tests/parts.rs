//! Statistics added up part by part equal those of the whole window.

mod common;

use trama_analysis::{
    comm_matrix, time_per_state, wait_matrix, Messages, Part, Window, WindowParts,
};

fn json<T: serde::Serialize>(x: &T) -> serde_json::Value {
    serde_json::to_value(x).unwrap()
}

#[test]
fn parts_add_up_to_the_whole_window() {
    let mut checked = [0; 3];
    for seed in 1u64..=12 {
        let text = trama_gen::generate(seed, &trama_gen::GenOptions::varied(seed, 100_000));
        let trace = common::simulate(&text, false);
        let msgs = Messages::select(&trace, &[]).unwrap();
        let all = Window::of(&trace);
        for (k, (a, b)) in [(0.0, 1.0), (0.2, 0.7), (0.45, 0.5)]
            .into_iter()
            .enumerate()
        {
            let w = Window {
                start: all.start + all.len() * a,
                end: all.start + all.len() * b,
            };
            let mut parts = WindowParts::new(&trace, w, &msgs);
            let cuts = 3 + k * 4;
            let at = |j: usize| w.start + w.len() * (j as f64 / cuts as f64).powf(1.3);
            for i in 0..cuts {
                let last = i + 1 == cuts;
                parts.add(
                    &trace,
                    &Part {
                        start: at(i),
                        end: if last { w.end } else { at(i + 1) },
                        last,
                    },
                );
            }
            let (s, c, wt) = parts.finish(&trace);
            let at = format!("seed {seed}, window {k}");
            let whole = time_per_state(&trace, w, None);
            checked[0] += whole.as_ref().map_or(0, |s| s.rows.len());
            trama_gen::json::assert_close(&json(&whole), &json(&s), &format!("{at}: states"));
            let wc = comm_matrix(&trace, w, &msgs, None, None).unwrap();
            checked[1] += wc.pairs.len();
            trama_gen::json::assert_close(&json(&wc), &json(&c), &format!("{at}: comm"));
            let ww = wait_matrix(&trace, w, &msgs, &[]);
            checked[2] += ww.rows.iter().filter(|r| r.waiting > 0.0).count();
            trama_gen::json::assert_close(&json(&ww), &json(&wt), &format!("{at}: wait"));
        }
    }
    assert!(
        checked.iter().all(|n| *n > 20),
        "rows compared: {checked:?}"
    );
}
