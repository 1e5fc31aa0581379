//! How the viewer serves ([`ViewerOptions`]).

use std::ffi::OsStr;
use std::net::{IpAddr, Ipv4Addr};

use crate::blocks;
use crate::limit::Limits;

/// How [`crate::start`] serves.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ViewerOptions {
    /// The address to bind (default 127.0.0.1).
    pub address: IpAddr,
    /// The port; `None`: the first free one from 8060.
    pub port: Option<u16>,
    /// The token; `None`: 128 random bits.
    pub token: Option<String>,
    /// The trace's name, shown in the page.
    pub name: String,
    /// A trace read by blocks replays at most this many blocks for a
    /// window; a wider window is answered from the summary of the whole
    /// trace (default 16).
    pub max_blocks: usize,
    /// The field of the links holding a message's size in bytes, for the
    /// effective rates of the traffic animation; `None`: guessed from a
    /// trace held whole (see [`trama_analysis::guess_size_field`]).
    pub size_field: Option<String>,
    /// The player's rate, seconds of execution per second of playback;
    /// `None`: the visible window in 30 s.
    pub rate: Option<f64>,
    /// The player's wall seconds per frame; `None`: 0.1.
    pub play_speed: Option<f64>,
    /// The node/arc view's nodes: a container type (`None`: see
    /// [`trama_analysis::NodeStage::new`]).
    pub node_level: Option<String>,
    /// The node/arc view's arcs (`--arcs-type`, see
    /// [`trama_analysis::ArcKind::parse`]); `None`: every arc.
    pub arcs_type: Option<trama_analysis::ArcKind>,
    /// The style of the nodes' status indicators: 0, bars; 1, sectors.
    pub sbars_style: u8,
    /// What the statistics panel says of the run (command, start time, …),
    /// as (label, value) pairs.
    pub run_info: Vec<(String, String)>,
    /// How much the server takes on at once: requests computed and
    /// waiting, connections, the time to send a request's head.
    pub limits: Limits,
    /// A second run to compare with the first (`trama view A B`).
    pub compare: Option<Compare>,
}

/// A second run (B) compared with the first (A): `trama view A B` shows
/// both timelines, coupled, with their difference.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Compare {
    /// Where B is read from (with A's reading options).
    pub other: trama_open::Source,
    /// What reading B needs (as A's).
    pub needs: trama_open::Needs,
    /// The state value marking an iteration (`--iteration`), for the
    /// runs aligned at one of them.
    pub iteration: Option<String>,
}

impl Compare {
    /// B read from the file `other` (`-`: standard input), when there is
    /// one, with `needs`, iterations marked by `iteration`.
    pub fn of(
        other: Option<&OsStr>,
        needs: &trama_open::Needs,
        iteration: &Option<String>,
    ) -> Option<Compare> {
        Some(Compare {
            other: trama_open::Source::from_arg(Some(other?)),
            needs: needs.clone(),
            iteration: iteration.clone(),
        })
    }
}

/// A run's name as the page shows it: its file's name (without the
/// folders), or `standard input`.
pub fn run_name(file: Option<&OsStr>) -> String {
    file.and_then(|p| std::path::Path::new(p).file_name())
        .map_or("standard input".into(), |n| {
            n.to_string_lossy().into_owned()
        })
}

impl Default for ViewerOptions {
    fn default() -> ViewerOptions {
        ViewerOptions {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: None,
            token: None,
            name: String::new(),
            max_blocks: blocks::MAX_BLOCKS,
            size_field: None,
            rate: None,
            play_speed: None,
            node_level: None,
            arcs_type: None,
            sbars_style: 0,
            run_info: Vec::new(),
            limits: Limits::default(),
            compare: None,
        }
    }
}
