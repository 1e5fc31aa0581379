//! Recordings of the node/arc view (`trama render node-view`): the frame
//! count asked for, and in each frame every status indicator of every node
//! drawn to the height (bars) or radius (sectors) its value gives, in its
//! colour, from the frame model (checked against the analyses in
//! trama-analysis's `tests/nodes.rs`).

use trama_analysis::{node_frame, Indicators, NodeLinks, NodeStage, Window, TASK_STATES};
use trama_views::{node_place, record, Animation, RecordOptions, Recording, TASK_COLORS};

mod common;

use common::{gif_frames, rgb};

fn opents() -> trama_sim::Trace {
    let path = trama_testkit::traces::opents_sample();
    let mut o = trama_open::LoadOptions::default();
    o.keep_extras = true;
    trama_open::load(&trama_open::Source::Path(path), &o).unwrap()
}

#[test]
fn recorded_indicators_follow_the_node_frames() {
    let trace = opents();
    let window = Window::of(&trace);
    let stage = NodeStage::new(&trace, None, None, true).unwrap();
    let links = NodeLinks::new(&trace, &stage);
    let Indicators::Variables { variables, labels } = &stage.indicators else {
        panic!("task counts expected");
    };
    let mut checked = (0, 0);
    for style in [0u8, 1] {
        let mut o = RecordOptions::default();
        (o.frames, o.width, o.height, o.sbars_style) = (4, 640, 480, style);
        let mut bytes = Vec::new();
        record(
            &trace,
            Animation::Nodes,
            window,
            Recording::Gif,
            &o,
            &mut bytes,
            &mut |_| {},
        )
        .unwrap();
        let frames = gif_frames(&bytes);
        assert_eq!(frames.len(), 4);
        let dt = window.len() / 4.0;
        let n = stage.nodes.len();
        let k_ind = variables.len() as f64;
        for (k, px) in frames.iter().enumerate() {
            let f = node_frame(&trace, &stage, &links, window.start + k as f64 * dt, dt);
            let at = |x: f64, y: f64| {
                let o4 = (y as usize * o.width as usize + x as usize) * 4;
                [px[o4], px[o4 + 1], px[o4 + 2]]
            };
            let near = |a: [u8; 3], b: [u8; 3]| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 14);
            for i in 0..n {
                let (cx, cy, r) = node_place(i, n, o.width, o.height);
                for (j, v) in variables.iter().enumerate() {
                    let share = (f.nodes[i].variables[*v as usize].unwrap_or(0.0)
                        / stage.maxima[*v as usize])
                        .clamp(0.0, 1.0);
                    // Each state its colour, whatever states the run has.
                    let state = TASK_STATES.iter().position(|s| *s == labels[j]).unwrap();
                    let color = rgb(TASK_COLORS[state]);
                    let what = format!("style {style}, frame {k}, node {i}, indicator {j}");
                    if style == 0 {
                        let side = r * std::f64::consts::SQRT_2 * 0.92;
                        let bw = side / k_ind;
                        let x = cx - side / 2.0 + (j as f64 + 0.5) * bw;
                        let base = cy + side / 2.0;
                        let h = share * side;
                        if h > 4.0 {
                            assert!(near(at(x, base - h / 2.0), color), "{what}: inside the bar");
                            checked.0 += 1;
                        }
                        if h < side - 4.0 {
                            let above = at(x, base - h - 3.0);
                            assert!(
                                near(above, [255, 255, 255]),
                                "{what}: above the bar {above:?}"
                            );
                            checked.1 += 1;
                        }
                    } else {
                        let r0 = r - 2.0;
                        let rr = share.sqrt() * r0;
                        let a = -std::f64::consts::FRAC_PI_2
                            + std::f64::consts::TAU * (j as f64 + 0.5) / k_ind;
                        if rr > 6.0 {
                            let p = at(cx + rr / 2.0 * a.cos(), cy + rr / 2.0 * a.sin());
                            assert!(near(p, color), "{what}: inside the sector {p:?}");
                            checked.0 += 1;
                        }
                        if rr < r0 - 6.0 {
                            let q = (rr + r0) / 2.0;
                            let p = at(cx + q * a.cos(), cy + q * a.sin());
                            assert!(near(p, [255, 255, 255]), "{what}: beyond the sector {p:?}");
                            checked.1 += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked.0 >= 10 && checked.1 >= 10, "checked {checked:?}");
}
