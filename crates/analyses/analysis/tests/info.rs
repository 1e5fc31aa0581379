//! The seed's Info file agrees with the ordering (hosts, processes and the
//! messages put on the network) and with the communication matrix (the
//! adjacency list).

mod common;

use std::collections::HashMap;

use trama_analysis::{comm_matrix, host_level, info, order, Messages, Window};

/// The (host, process) names of `hosts` in order; `of` gives a host's name
/// and its processes (a name first).
fn pairs<H, T>(
    hosts: &[H],
    of: impl Fn(&H) -> (&String, &Vec<(String, T)>),
) -> Vec<(String, String)> {
    hosts
        .iter()
        .flat_map(|h| {
            let (host, processes) = of(h);
            processes.iter().map(move |p| (host.clone(), p.0.clone()))
        })
        .collect()
}

#[test]
fn info_agrees_with_the_ordering_and_the_matrix() {
    let mut compared = 0;
    for seed in 1u64..=8 {
        let mut g = trama_gen::GenOptions::varied(seed, 30_000);
        g.links = true;
        let trace = common::simulate(&trama_gen::generate(seed, &g), false);
        let msgs = Messages::select(&trace, &[]).unwrap();
        let Some(level) = host_level(&trace, &msgs) else {
            continue;
        };
        let w = Window::of(&trace);
        let i = info(&trace, w, &msgs, &level.name).unwrap();
        let o = order(&trace, w, &msgs, &level.name).unwrap();
        // Hosts and processes, in order, numbered from 0.
        assert_eq!(i.hosts, o.hosts.len());
        let names = pairs(&o.hosts, |h| (&h.host, &h.processes));
        assert_eq!(i.processes, names.len());
        let listed = pairs(&i.order, |h| (&h.host, &h.processes));
        assert_eq!(listed, names);
        let numbers: Vec<u32> = i
            .order
            .iter()
            .flat_map(|h| h.processes.iter().map(|p| p.1))
            .collect();
        assert_eq!(numbers, (0..names.len() as u32).collect::<Vec<_>>());
        // The network's messages: what the hosts put on it.
        let off: u64 = o.hosts.iter().map(|h| h.sent_off_host).sum();
        assert_eq!(i.network_messages, off, "seed {seed}");
        // The adjacency list: the matrix's pairs between processes (by
        // name, when names are unique).
        let m = comm_matrix(&trace, w, &msgs, None, None).unwrap();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for c in &trace.model.containers {
            *seen.entry(trace.model.label(c.name)).or_default() += 1;
        }
        let name_of = |n: u32| names[n as usize].1.clone();
        for s in &i.adjacency {
            for (to, n) in &s.to {
                let (a, b) = (name_of(s.from), name_of(*to));
                if seen.get(&a) != Some(&1) || seen.get(&b) != Some(&1) {
                    continue;
                }
                let pair = m.pairs.iter().find(|p| p.from == a && p.to == b).unwrap();
                assert_eq!(pair.count, *n, "seed {seed}: {a} -> {b}");
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "pairs compared: {compared}");
}
