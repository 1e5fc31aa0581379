//! Recordings of the animated views: the frame count asked for, and each
//! frame's squares in the colour of the state the frame model gives at its
//! interval (which `tests/frames.rs` of trama-analysis checks against the
//! analyses), whether GIF or animated PNG.

mod common;

use trama_views::{
    draw_process_frame, record, value_colors, Animation, Film, RecordOptions, Recording,
};

use common::{gif_frames, rgb};

fn apng_frames(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut d = png::Decoder::new(bytes).read_info().unwrap();
    let n = d
        .info()
        .animation_control
        .expect("an animated PNG")
        .num_frames;
    let mut out = Vec::new();
    for _ in 0..n {
        let mut buf = vec![0; d.output_buffer_size()];
        d.next_frame(&mut buf).unwrap();
        out.push(buf);
    }
    out
}

#[test]
fn recordings_have_the_frames_asked_for_coloured_by_the_frame_model() {
    let text = trama_gen::generate(4, &trama_gen::GenOptions::varied(4, 20_000));
    let traces = [common::ring(), common::simulate(&text)];
    let mut squares = 0;
    for (i, trace) in traces.iter().enumerate() {
        for format in [Recording::Gif, Recording::Apng] {
            let mut o = RecordOptions::default();
            (o.frames, o.width, o.height) = (7, 480, 360);
            let window = trama_analysis::Window::of(trace);
            let mut bytes = Vec::new();
            let mut seen = 0;
            record(
                trace,
                Animation::Processes,
                window,
                format,
                &o,
                &mut bytes,
                &mut |k| seen = k,
            )
            .unwrap();
            assert_eq!(seen, 7, "progress reaches the last frame");
            let frames = match format {
                Recording::Gif => gif_frames(&bytes),
                _ => apng_frames(&bytes),
            };
            assert_eq!(frames.len(), 7, "trace {i}, {format:?}");
            let film = Film::new(trace, window, &o).unwrap();
            let colors = value_colors(&trace.model);
            for (k, px) in frames.iter().enumerate() {
                let f = film.frame(trace, k);
                let at = draw_process_frame(
                    trace,
                    &film.stage,
                    &f,
                    &colors,
                    o.width,
                    o.height,
                    &mut std::io::sink(),
                )
                .unwrap();
                for (p, sq) in at.iter().enumerate() {
                    let (Some(sq), Some(v)) = (sq, f.states[p].value) else {
                        continue;
                    };
                    // Above the band of shares, away from the name.
                    let (x, y) = (
                        (sq.x + sq.side * 0.8) as usize,
                        (sq.y + sq.side * 0.55) as usize,
                    );
                    let o4 = (y * o.width as usize + x) * 4;
                    let got = &px[o4..o4 + 3];
                    let want = rgb(&colors[v as usize]);
                    let close = got.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 12);
                    assert!(
                        close,
                        "trace {i}, {format:?}, frame {k}, process {}: pixel {got:?}, state colour {want:?}",
                        film.stage.processes[p].name
                    );
                    squares += 1;
                }
            }
        }
    }
    assert!(squares > 100, "squares checked: {squares}");
}
