//! The seed's "Info" file of a run (TFPS): how many processes and hosts,
//! each host in the seed's order with its processes (name and a number:
//! their position in that order, from 0), the messages put on the
//! network, and the adjacency list: per sender, its receivers with how
//! many messages each.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use trama_sim::{ContainerId, Trace};

use crate::comm::order;
use crate::read::{container_name, links};
use crate::window::Window;
use crate::Messages;

/// A host of [`Info`] and its processes `(name, number)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InfoHost {
    /// The host's name.
    pub host: String,
    /// Its processes in order: name and number.
    pub processes: Vec<(String, u32)>,
}

/// One sender of [`Info::adjacency`] and its receivers `(number, messages)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InfoSender {
    /// The sender's number.
    pub from: u32,
    /// Its receivers by number, with the messages sent to each.
    pub to: Vec<(u32, u64)>,
}

/// What [`info`] computes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Info {
    /// The window.
    pub window: Window,
    /// The container type of the hosts.
    pub level: String,
    /// Processes.
    pub processes: usize,
    /// Hosts.
    pub hosts: usize,
    /// Hosts in the seed's order with their processes.
    pub order: Vec<InfoHost>,
    /// Messages put on the network: between two hosts (counted at the
    /// sender's, as [`order`](crate::order) does).
    pub network_messages: u64,
    /// Messages between processes, per sender (by number, in order).
    pub adjacency: Vec<InfoSender>,
}

/// The Info file of `trama` over `window`, hosts being the containers of
/// type `level`; `None` when no container type is called `level`.
pub fn info(trace: &Trace, window: Window, msgs: &Messages, level: &str) -> Option<Info> {
    let o = order(trace, window, msgs, level)?;
    let mut number: HashMap<ContainerId, u32> = HashMap::new();
    let mut order_out = Vec::new();
    for oh in &o.hosts {
        let mut ps = Vec::new();
        for p in &oh.process_ids {
            let n = number.len() as u32;
            number.insert(*p, n);
            ps.push((container_name(trace, *p), n));
        }
        order_out.push(InfoHost {
            host: oh.host.clone(),
            processes: ps,
        });
    }
    let mut adjacency: BTreeMap<u32, BTreeMap<u32, u64>> = BTreeMap::new();
    // What the hosts put on the network (as the ordering counts it: any
    // message between two hosts).
    let network = o.hosts.iter().map(|h| h.sent_off_host).sum();
    for (e, from, to) in links(trace, msgs) {
        if !window.overlaps(e.start, e.end) {
            continue;
        }
        let (Some(a), Some(b)) = (number.get(&from), number.get(&to)) else {
            continue;
        };
        *adjacency.entry(*a).or_default().entry(*b).or_default() += 1;
    }
    Some(Info {
        window,
        level: o.level,
        processes: number.len(),
        hosts: o.hosts.len(),
        order: order_out,
        network_messages: network,
        adjacency: adjacency
            .into_iter()
            .map(|(from, to)| InfoSender {
                from,
                to: to.into_iter().collect(),
            })
            .collect(),
    })
}
