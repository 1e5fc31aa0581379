//! The wait table in a terminal: a matrix for a few senders, the pairs
//! that waited most for many.

use trama_analysis::{WaitMatrix, WaitMethod, WaitRow, Window};
use trama_report::{write_wait, Format};

/// `n` containers, each waiting `(i * n + j) ms` for sender `j`.
fn matrix(n: usize) -> WaitMatrix {
    let senders: Vec<String> = (0..n).map(|j| format!("rank-{j}")).collect();
    let rows = (0..n)
        .map(|i| {
            let seconds: Vec<f64> = (0..n).map(|j| ((i * n + j) as f64) / 1000.0).collect();
            let waiting: f64 = seconds.iter().sum();
            WaitRow {
                container: format!("rank-{i}"),
                time: 10.0,
                waiting,
                share_of_time: seconds.iter().map(|s| s / 10.0).collect(),
                waiting_share: waiting / 10.0,
                share_of_waiting: seconds.iter().map(|s| s / waiting.max(1e-9)).collect(),
                seconds,
            }
        })
        .collect();
    WaitMatrix {
        window: Window {
            start: 0.0,
            end: 10.0,
        },
        method: WaitMethod::LastMessage,
        patterns: vec!["wait".into()],
        waiting_states: vec!["MPI_Wait".into()],
        senders,
        rows,
    }
}

fn table(m: &WaitMatrix) -> String {
    let mut out = Vec::new();
    write_wait(m, Format::Table, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn many_senders_give_the_pairs_that_waited_most() {
    let t = table(&matrix(64));
    let lines: Vec<&str> = t.lines().collect();
    // Title, header, 20 pairs, what is left out.
    assert_eq!(lines.len(), 1 + 1 + 20 + 1, "{t}");
    assert!(
        lines[2].starts_with("rank-63") && lines[2].contains("rank-63"),
        "{}",
        lines[2]
    );
    let secs: Vec<f64> = lines[2..22]
        .iter()
        .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
        .collect();
    assert!(secs.windows(2).all(|w| w[0] >= w[1]), "{secs:?}");
    assert!(
        lines[22].contains(&format!("{} more pairs", 64 * 64 - 1 - 20)),
        "{}",
        lines[22]
    );
    assert!(
        lines.iter().all(|l| l.chars().count() < 100),
        "fits a terminal"
    );
}

#[test]
fn a_few_senders_give_the_matrix() {
    let t = table(&matrix(4));
    let head = t.lines().nth(1).unwrap();
    for j in 0..4 {
        assert!(head.contains(&format!("rank-{j}")), "{head}");
    }
    assert!(head.contains("total"));
    assert_eq!(t.lines().count(), 2 + 4);
}
