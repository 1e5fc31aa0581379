//! A writer of CLOG-2 logs in the layout the module documents, for crafting
//! logs (tests, examples) whose content is known exactly.

/// Builds a CLOG-2 log in memory: records are appended to blocks of
/// [`Clog2Writer::block_size`] bytes (a block that has no room left is
/// closed by an ENDBLOCK), and [`Clog2Writer::finish`] closes the last
/// block with ENDLOG, writes the preamble and a communicator table holding
/// `MPI_COMM_WORLD`.
#[derive(Clone, Debug)]
pub struct Clog2Writer {
    big: bool,
    /// Bytes per block.
    pub block_size: usize,
    /// `is_finalzed=` of the preamble.
    pub finalized: bool,
    /// `max_comm_world_size=`.
    pub world: u32,
    /// `max_thread_count=`.
    pub threads: u32,
    /// `user_stateID_count=`.
    pub user_states: u32,
    /// `user_solo_eventID_count=`.
    pub user_solo_events: u32,
    /// The time stamp of the ENDLOG record.
    pub end_time: f64,
    /// The host named by `MPI_COMM_WORLD`'s global id in the table.
    pub world_host: String,
    blocks: Vec<u8>,
    cur: Vec<u8>,
}

/// `s` as a NUL-padded field of `n` bytes.
fn text(s: &str, n: usize) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.resize(n, 0);
    v
}

impl Clog2Writer {
    /// A finalized log of `world` ranks, one thread each, in blocks of 512
    /// bytes, in big- or little-endian order.
    pub fn new(big_endian: bool, world: u32) -> Clog2Writer {
        Clog2Writer {
            big: big_endian,
            block_size: 512,
            finalized: true,
            world,
            threads: 1,
            user_states: 3,
            user_solo_events: 1,
            end_time: 1.0e8,
            world_host: "node".into(),
            blocks: Vec::new(),
            cur: Vec::new(),
        }
    }

    /// An `i32` in the log's byte order.
    pub fn i32(&self, v: i32) -> [u8; 4] {
        if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// An `f64` in the log's byte order.
    pub fn f64(&self, v: f64) -> [u8; 8] {
        if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }

    /// `i32`s in the log's byte order.
    pub fn ints(&self, vs: &[i32]) -> Vec<u8> {
        vs.iter().flat_map(|v| self.i32(*v)).collect()
    }

    fn header(&self, t: f64, icomm: i32, rank: i32, thread: i32, rectype: i32) -> Vec<u8> {
        let mut h = self.f64(t).to_vec();
        h.extend(self.ints(&[icomm, rank, thread, rectype]));
        h
    }

    /// Appends a record of type `rectype` with its body, moving to a new
    /// block when this one has no room left for it and a closing ENDBLOCK.
    pub fn record(
        &mut self,
        t: f64,
        icomm: i32,
        rank: i32,
        thread: i32,
        rectype: i32,
        body: &[u8],
    ) {
        if self.cur.len() + 24 + body.len() + 24 > self.block_size {
            self.end_block();
        }
        let h = self.header(t, icomm, rank, thread, rectype);
        self.cur.extend(h);
        self.cur.extend_from_slice(body);
    }

    /// Closes the current block with an ENDBLOCK.
    pub fn end_block(&mut self) {
        let h = self.header(0.0, 0, 0, 0, 1);
        self.cur.extend(h);
        self.cur.resize(self.block_size, 0);
        self.blocks.append(&mut self.cur);
    }

    /// A record of `rank` (thread 0) in `MPI_COMM_WORLD`.
    pub fn rec(&mut self, t: f64, rank: i32, rectype: i32, body: &[u8]) {
        self.record(t, 0, rank, 0, rectype, body);
    }

    /// STATEDEF: state `id` entered by event `start`, left by `end`.
    pub fn statedef(&mut self, t: f64, id: i32, start: i32, end: i32, color: &str, name: &str) {
        let mut b = self.ints(&[id, start, end, 0]);
        b.extend(text(color, 24));
        b.extend(text(name, 32));
        b.extend(text("", 40));
        self.rec(t, 0, 2, &b);
    }

    /// EVENTDEF: solo event `id`.
    pub fn eventdef(&mut self, t: f64, id: i32, color: &str, name: &str) {
        let mut b = self.ints(&[id, 0]);
        b.extend(text(color, 24));
        b.extend(text(name, 32));
        b.extend(text("", 40));
        self.rec(t, 0, 3, &b);
    }

    /// BARE: event `etype` of `rank`.
    pub fn bare(&mut self, t: f64, rank: i32, etype: i32) {
        let b = self.ints(&[etype, 0]);
        self.rec(t, rank, 5, &b);
    }

    /// CARGO: event `etype` of `rank` with its 32 bytes.
    pub fn cargo(&mut self, t: f64, rank: i32, etype: i32, bytes: &str) {
        let mut b = self.ints(&[etype, 0]);
        b.extend(text(bytes, 32));
        self.rec(t, rank, 6, &b);
    }

    /// MSG of the process `(icomm, rank)`: `etype` −101 (send) or −102
    /// (receive), with partner `prank` in `MPI_COMM_WORLD` (local id 0).
    #[allow(clippy::too_many_arguments)]
    pub fn msg(
        &mut self,
        t: f64,
        icomm: i32,
        rank: i32,
        etype: i32,
        prank: i32,
        tag: i32,
        size: i32,
    ) {
        let b = self.ints(&[etype, 0, prank, tag, size, 0]);
        self.record(t, icomm, rank, 0, 7, &b);
    }

    /// COMM: process `wrank` made communicator `icomm` (kind `etype`),
    /// where it has rank `rank`; the global id names `host`.
    pub fn comm(&mut self, t: f64, wrank: i32, etype: i32, icomm: i32, rank: i32, host: &str) {
        let mut b = self.ints(&[etype, icomm, rank, wrank]);
        b.extend(self.i32(12345));
        b.extend(self.f64(1.0e9));
        b.extend(text(host, 20));
        self.rec(t, wrank, 9, &b);
    }

    /// TIMESHIFT of `rank`.
    pub fn timeshift(&mut self, t: f64, rank: i32, shift: f64) {
        let b = self.f64(shift).to_vec();
        self.rec(t, rank, 11, &b);
    }

    /// Every rank's `MPI_COMM_WORLD` (local id 0), on host `node`.
    pub fn worlds(&mut self, t: f64) {
        for r in 0..self.world as i32 {
            self.comm(t, r, 0, 0, r, "node");
        }
    }

    /// The whole file: preamble, blocks (the last closed by ENDLOG), table.
    pub fn finish(mut self) -> Vec<u8> {
        let h = self.header(self.end_time, 0, 0, 0, 0);
        self.cur.extend(h);
        self.cur.resize(self.block_size, 0);
        self.blocks.append(&mut self.cur);
        let table_at = 1024 + self.blocks.len();
        let yes_no = |b: bool| if b { "TRUE " } else { "FALSE" };
        let bs = self.block_size.to_string();
        let world = self.world.to_string();
        let threads = self.threads.to_string();
        let states = self.user_states.to_string();
        let solo = self.user_solo_events.to_string();
        let fptr = table_at.to_string();
        let strings = [
            "CLOG-02.44",
            "is_big_endian=",
            yes_no(self.big),
            "is_finalzed=",
            yes_no(self.finalized),
            "block_size=",
            &bs,
            "num_buffered_blocks=",
            "128",
            "max_comm_world_size=",
            &world,
            "max_thread_count=",
            &threads,
            "known_eventID_start=",
            "0",
            "user_eventID_start=",
            "600",
            "known_solo_eventID_start=",
            "-10",
            "user_solo_eventID_start=",
            "5000",
            "known_stateID_count=",
            "300",
            "user_stateID_count=",
            &states,
            "known_solo_eventID_count=",
            "0",
            "user_solo_eventID_count=",
            &solo,
            "commtable_fptr=",
            "0",
            "1073741824",
            &fptr,
        ];
        let mut out = Vec::new();
        for s in strings {
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
        out.resize(1024, 0);
        out.extend(&self.blocks);
        // One communicator: MPI_COMM_WORLD, local id 0, intra.
        out.extend(self.i32(1));
        out.extend(self.i32(777));
        out.extend(self.f64(1.0e9));
        out.extend(text(&self.world_host, 20));
        out.extend(self.ints(&[0, 1]));
        out
    }
}
