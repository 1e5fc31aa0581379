//! The host level chosen from the trace.
#![allow(clippy::result_large_err)]

use trama_analysis::{host_level, Messages};
use trama_sim::Trace;

mod common;

/// A zone holding hosts holding actors that exchange a message (as
/// SimGrid's traces: `L1` > `HOST` > `ACTOR`), with the names given.
fn simgrid_like(zone: &str, host: &str, actor: &str, hosts: usize) -> Trace {
    let mut s = common::states_and_links()
        + &format!(
        "0 Z 0 {zone}\n0 H Z {host}\n0 A H {actor}\n1 S A State\n2 L 0 A A Msg\n3 0 z Z 0 zone0\n"
    );
    for h in 0..hosts {
        s += &format!("3 0 h{h} H z host{h}\n3 0 a{h} A h{h} actor{h}\n");
    }
    s += "4 0 S a0 send\n6 0 L 0 a0 m k\n";
    let last = hosts - 1;
    s += &format!("7 1 L 0 a{last} m k\n5 1 S a0\n");
    common::simulate(&s, false)
}

#[test]
fn host_level_is_the_host_type_not_the_zone() {
    let t = simgrid_like("L1", "HOST", "ACTOR", 3);
    let h = host_level(&t, &Messages::all()).expect("a host level");
    assert_eq!(h.name, "HOST");
    assert_eq!(h.hosts, 3);
    assert_eq!(h.processes, "the ends of messages");
    assert!(h.note().contains("type HOST"), "{}", h.note());
}

#[test]
fn host_level_without_a_host_name_is_the_nearest_type_with_many_containers() {
    let t = simgrid_like("Site", "Box", "Rank", 2);
    assert_eq!(host_level(&t, &Messages::all()).unwrap().name, "Box");
    // A single box: the zone has one container too; the nearest wins.
    let t = simgrid_like("Site", "Box", "Rank", 1);
    assert_eq!(host_level(&t, &Messages::all()).unwrap().name, "Box");
}

#[test]
fn host_level_is_none_when_processes_sit_at_the_root() {
    let s = common::defs(&[
        "PajeDefineContainerType",
        "PajeDefineStateType",
        "PajeCreateContainer",
        "PajePushState",
        "PajePopState",
    ]) + "0 P 0 MPI\n1 S P State\n2 0 p0 P 0 rank-0\n3 0 S p0 compute\n4 1 S p0\n";
    let t = common::simulate(&s, false);
    assert_eq!(host_level(&t, &Messages::all()), None);
}
