//! The typed reader of CLOG-2 files: the preamble, the records block by
//! block, and the communicator table (layouts in the module documentation).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use crate::reading::open_file;
use trama_records::SourceError;

/// Size of the text preamble at the start of every CLOG-2 file.
pub const PREAMBLE_SIZE: usize = 1024;

/// The only CLOG-2 version read (MPE's last, with `max_thread_count`).
pub const SUPPORTED_VERSION: &str = "CLOG-02.44";

/// Size of a record header: f64 time and four i32 (icomm, rank, thread, rectype).
pub const HEADER_SIZE: usize = 24;

/// Size of a communicator's global id (`CLOG_Uuid_t`): i32 random number,
/// f64 time, 20 bytes of processor name.
pub const UUID_SIZE: usize = 32;

/// Size of one entry of the communicator table: a global id, i32 local id,
/// i32 kind.
pub const COMM_ENTRY_SIZE: usize = UUID_SIZE + 8;

/// Event type of a message record that sends (`CLOG_EVT_SENDMSG`).
pub const EVT_SEND: i32 = -101;
/// Event type of a message record that receives (`CLOG_EVT_RECVMSG`).
pub const EVT_RECV: i32 = -102;

/// Communicator event type: `MPI_COMM_WORLD` created (`CLOG_COMM_WORLD_CREATE`).
pub const COMM_WORLD_CREATE: i32 = 0;
/// Communicator event type: `MPI_COMM_SELF` created (`CLOG_COMM_SELF_CREATE`).
pub const COMM_SELF_CREATE: i32 = 1;
/// Communicator event type: a communicator freed (`CLOG_COMM_FREE`).
pub const COMM_FREE: i32 = 10;
/// The "no communicator" local id (`CLOG_COMM_LID_NULL`).
pub const COMM_LID_NULL: i32 = -999_999_999;

/// The largest block size MPE accepts (`ONE_GIGA`).
const MAX_BLOCK_SIZE: u32 = 1 << 30;

/// The preamble of a CLOG-2 file: 1024 bytes of NUL-terminated ASCII
/// strings, the version then `key=` / value pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preamble {
    /// The version string (`CLOG-02.44`).
    pub version: String,
    /// Whether the binary parts are big-endian (`is_big_endian=` `TRUE `/`FALSE`).
    pub is_big_endian: bool,
    /// Whether the file is a merged, finalized log rather than one
    /// process's local file (`is_finalzed=`, spelt so by MPE).
    pub is_finalized: bool,
    /// The size in bytes of every block of records.
    pub block_size: u32,
    /// Blocks buffered in memory by the logging library.
    pub num_buffered_blocks: u32,
    /// Size of `MPI_COMM_WORLD` (the largest among the merged processes).
    pub max_comm_world_size: u32,
    /// The largest number of threads of one process.
    pub max_thread_count: u32,
    /// First event id of the states MPE knows (MPI functions).
    pub known_eventid_start: i32,
    /// First event id of user states.
    pub user_eventid_start: i32,
    /// First event id of MPE's own solo events.
    pub known_solo_eventid_start: i32,
    /// First event id of user solo events.
    pub user_solo_eventid_start: i32,
    /// Number of state ids reserved for MPE's known states.
    pub known_stateid_count: u32,
    /// Number of user states defined.
    pub user_stateid_count: u32,
    /// Number of MPE's own solo events.
    pub known_solo_eventid_count: u32,
    /// Number of user solo events defined.
    pub user_solo_eventid_count: u32,
    /// File offset of the communicator table (0: none), written as three
    /// values `giga`, `unit`, `rest` meaning `giga * unit + rest`.
    pub commtable_fptr: u64,
}

/// A communicator's globally unique id (`CLOG_Uuid_t`).
#[derive(Clone, Debug, PartialEq)]
pub struct Uuid {
    /// A random number.
    pub rand: i32,
    /// `MPI_Wtime()` when it was made.
    pub time: f64,
    /// The processor name (`MPI_Get_processor_name`) of the process that
    /// made it, cut to 20 bytes.
    pub name: String,
}

/// A state definition (`CLOG_Rec_StateDef_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateDef {
    /// The state id.
    pub id: i32,
    /// The event id that enters the state.
    pub start: i32,
    /// The event id that leaves the state.
    pub end: i32,
    /// Its colour (an X11 colour name, usually).
    pub color: String,
    /// Its name.
    pub name: String,
    /// The format of the cargo bytes of its events.
    pub format: String,
}

/// A solo event definition (`CLOG_Rec_EventDef_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDef {
    /// The event id.
    pub id: i32,
    /// Its colour.
    pub color: String,
    /// Its name.
    pub name: String,
    /// The format of its cargo bytes.
    pub format: String,
}

/// What a CLOG-2 record holds after its header, one variant per record type
/// (`rectype`).
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// 0, `CLOG_REC_ENDLOG`: the end of the log.
    EndLog,
    /// 1, `CLOG_REC_ENDBLOCK`: the rest of the block is unused.
    EndBlock,
    /// 2, `CLOG_REC_STATEDEF`.
    StateDef(StateDef),
    /// 3, `CLOG_REC_EVENTDEF`.
    EventDef(EventDef),
    /// 4, `CLOG_REC_CONSTDEF`: a named constant (e.g. `MPI_ANY_TAG`).
    ConstDef {
        /// The event type (`CLOG_EVT_CONST`, -201).
        etype: i32,
        /// The constant's value.
        value: i32,
        /// Its name.
        name: String,
    },
    /// 5, `CLOG_REC_BAREEVT`: an event with no payload.
    Bare {
        /// The event id.
        etype: i32,
    },
    /// 6, `CLOG_REC_CARGOEVT`: an event with 32 bytes of payload.
    Cargo {
        /// The event id.
        etype: i32,
        /// The payload, laid out by the format of the event's definition.
        bytes: [u8; 32],
    },
    /// 7, `CLOG_REC_MSGEVT`: a point-to-point message sent or received.
    Msg {
        /// [`EVT_SEND`] or [`EVT_RECV`].
        etype: i32,
        /// The partner's communicator.
        icomm: i32,
        /// The partner's rank in it (destination of a send, source of a receive).
        rank: i32,
        /// The message tag.
        tag: i32,
        /// Its size in bytes.
        size: i32,
    },
    /// 8, `CLOG_REC_COLLEVT`: a collective operation.
    Coll {
        /// The kind of collective.
        etype: i32,
        /// Its root.
        root: i32,
        /// Its size in bytes.
        size: i32,
    },
    /// 9, `CLOG_REC_COMMEVT`: a communicator made or freed.
    Comm {
        /// What happened ([`COMM_WORLD_CREATE`], [`COMM_SELF_CREATE`], [`COMM_FREE`], 100...).
        etype: i32,
        /// The communicator's id.
        icomm: i32,
        /// The process's rank in it.
        rank: i32,
        /// The process's rank in `MPI_COMM_WORLD`.
        wrank: i32,
        /// The communicator's global id.
        gcomm: Uuid,
    },
    /// 10, `CLOG_REC_SRCLOC`: a source location.
    SrcLoc {
        /// Its id.
        id: i32,
        /// The line number.
        line: i32,
        /// The file name.
        file: String,
    },
    /// 11, `CLOG_REC_TIMESHIFT`: the clock correction of a process.
    TimeShift {
        /// The shift in seconds.
        shift: f64,
    },
}

impl Body {
    /// The record type number (`rectype`) of this body.
    pub fn rectype(&self) -> i32 {
        match self {
            Body::EndLog => 0,
            Body::EndBlock => 1,
            Body::StateDef(_) => 2,
            Body::EventDef(_) => 3,
            Body::ConstDef { .. } => 4,
            Body::Bare { .. } => 5,
            Body::Cargo { .. } => 6,
            Body::Msg { .. } => 7,
            Body::Coll { .. } => 8,
            Body::Comm { .. } => 9,
            Body::SrcLoc { .. } => 10,
            Body::TimeShift { .. } => 11,
        }
    }

    /// The record type's name (`ENDLOG`, `STATEDEF`, `CARGO`, `MSG`...).
    pub fn kind_name(&self) -> &'static str {
        RECTYPE_NAMES[self.rectype() as usize]
    }
}

const RECTYPE_NAMES: [&str; 12] = [
    "ENDLOG",
    "ENDBLOCK",
    "STATEDEF",
    "EVENTDEF",
    "CONSTDEF",
    "BARE",
    "CARGO",
    "MSG",
    "COLL",
    "COMM",
    "SRCLOC",
    "TIMESHIFT",
];

/// Size in bytes of the body of each record type (after the header).
const BODY_SIZES: [usize; 12] = [0, 0, 112, 104, 40, 8, 40, 24, 16, 48, 48, 8];

/// One record of a CLOG-2 file: its header and its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Clog2Record {
    /// The byte offset of the record in the file.
    pub offset: u64,
    /// Its time in seconds.
    pub time: f64,
    /// The communicator its rank refers to.
    pub icomm: i32,
    /// The process's rank in `icomm`.
    pub rank: i32,
    /// The process's local thread id.
    pub thread: i32,
    /// The rest of the record.
    pub body: Body,
}

/// One entry of the communicator table (`CLOG_CommIDs_t` as saved).
#[derive(Clone, Debug, PartialEq)]
pub struct CommEntry {
    /// The global id.
    pub gid: Uuid,
    /// The local id records use in `icomm`.
    pub lid: i32,
    /// Its kind: -1 unknown, 0 inter-, 1 intra-, 2 local, 3 remote communicator.
    pub kind: i32,
}

/// Reads a CLOG-2 file: the preamble at once, then the records one at a
/// time, one block in memory at a time.
pub struct Clog2Reader<R> {
    input: R,
    name: String,
    preamble: Preamble,
    /// The current block's bytes (empty: none loaded).
    block: Vec<u8>,
    /// The file offset of the current block.
    block_start: u64,
    /// The read position in the current block.
    pos: usize,
    /// Bytes consumed from the input so far.
    consumed: u64,
    /// An ENDLOG was read.
    ended: bool,
}

impl Clog2Reader<BufReader<File>> {
    /// Opens a file and reads its preamble.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        let (name, f) = open_file(path.as_ref(), "cannot open: ")?;
        Clog2Reader::from_reader(name, BufReader::with_capacity(1 << 16, f))
    }
}

impl<R: Read> Clog2Reader<R> {
    /// Reads the preamble from `input` (named `name` in messages).
    pub fn from_reader(name: impl Into<String>, mut input: R) -> Result<Self, SourceError> {
        let name = name.into();
        let mut buf = vec![0u8; PREAMBLE_SIZE];
        let n = read_full(&mut input, &mut buf).map_err(|e| SourceError::file(&name, e))?;
        if n == 0 {
            return Err(SourceError::file(&name, "empty file: not a CLOG-2 log"));
        }
        check_magic(&buf[..n], &name)?;
        if n < PREAMBLE_SIZE {
            return Err(SourceError::byte(
                &name,
                n as u64,
                format!("truncated preamble: the file ends after {n} of its {PREAMBLE_SIZE} bytes"),
            ));
        }
        let preamble = Preamble::parse(&buf, &name)?;
        Ok(Clog2Reader {
            input,
            name,
            preamble,
            block: Vec::new(),
            block_start: PREAMBLE_SIZE as u64,
            pos: 0,
            consumed: PREAMBLE_SIZE as u64,
            ended: false,
        })
    }

    /// The preamble.
    pub fn preamble(&self) -> &Preamble {
        &self.preamble
    }

    /// The input's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The next record (ENDBLOCK and ENDLOG included), `None` after ENDLOG.
    pub fn next_record(&mut self) -> Result<Option<Clog2Record>, SourceError> {
        if self.ended {
            return Ok(None);
        }
        if self.block.is_empty() {
            self.load_block()?;
        }
        let bs = self.block.len();
        let offset = self.block_start + self.pos as u64;
        if self.pos + HEADER_SIZE > bs {
            return Err(self.err(
                offset,
                format!(
                    "the block starting at byte {} has no ENDBLOCK or ENDLOG record before its end",
                    self.block_start
                ),
            ));
        }
        let big = self.preamble.is_big_endian;
        let h = &self.block[self.pos..self.pos + HEADER_SIZE];
        let time = f64_at(h, 0, big);
        let icomm = i32_at(h, 8, big);
        let rank = i32_at(h, 12, big);
        let thread = i32_at(h, 16, big);
        let rectype = i32_at(h, 20, big);
        if !(0..12).contains(&rectype) {
            return Err(self.err(
                offset,
                format!("unknown record type {rectype} (`{:02x?}`)", &h[20..24]),
            ));
        }
        let size = BODY_SIZES[rectype as usize];
        let start = self.pos + HEADER_SIZE;
        if start + size > bs {
            return Err(self.err(
                offset,
                format!(
                    "{} record runs past the end of its block (which ends at byte {})",
                    RECTYPE_NAMES[rectype as usize],
                    self.block_start + bs as u64
                ),
            ));
        }
        let body = parse_body(rectype, &self.block[start..start + size], big);
        self.pos = start + size;
        match body {
            Body::EndBlock => {
                self.block_start += bs as u64;
                self.block.clear();
                self.pos = 0;
            }
            Body::EndLog => self.ended = true,
            _ => {}
        }
        Ok(Some(Clog2Record {
            offset,
            time,
            icomm,
            rank,
            thread,
            body,
        }))
    }

    /// Reads the communicator table at the preamble's `commtable_fptr`
    /// (skipping whatever records were not read); empty when the preamble
    /// has no table (`commtable_fptr` 0).
    pub fn comm_table(mut self) -> Result<Vec<CommEntry>, SourceError> {
        let at = self.preamble.commtable_fptr;
        if at == 0 {
            return Ok(Vec::new());
        }
        if at < self.consumed {
            return Err(self.err(
                at,
                format!(
                    "the communicator table's offset {at} lies inside the blocks already read (up to byte {})",
                    self.consumed
                ),
            ));
        }
        let skip = at - self.consumed;
        let skipped = std::io::copy(&mut (&mut self.input).take(skip), &mut std::io::sink())
            .map_err(|e| SourceError::file(&self.name, format!("read error: {e}")))?;
        if skipped < skip {
            return Err(self.err(
                self.consumed + skipped,
                format!("the file ends before its communicator table (at byte {at})"),
            ));
        }
        let big = self.preamble.is_big_endian;
        let mut c = [0u8; 4];
        let n = read_full(&mut self.input, &mut c).map_err(|e| SourceError::file(&self.name, e))?;
        if n < 4 {
            return Err(self.err(at + n as u64, "truncated communicator table (no count)"));
        }
        let count = i32_at(&c, 0, big);
        if !(0..=1_000_000).contains(&count) {
            return Err(self.err(at, format!("implausible communicator count {count}")));
        }
        let mut buf = vec![0u8; count as usize * COMM_ENTRY_SIZE];
        let n =
            read_full(&mut self.input, &mut buf).map_err(|e| SourceError::file(&self.name, e))?;
        if n < buf.len() {
            return Err(self.err(
                at + 4 + n as u64,
                format!(
                    "truncated communicator table: {n} of the {} bytes of {count} entries",
                    buf.len()
                ),
            ));
        }
        Ok(buf
            .chunks_exact(COMM_ENTRY_SIZE)
            .map(|e| CommEntry {
                gid: uuid_at(e, 0, big),
                lid: i32_at(e, UUID_SIZE, big),
                kind: i32_at(e, UUID_SIZE + 4, big),
            })
            .collect())
    }

    fn load_block(&mut self) -> Result<(), SourceError> {
        let at = self.block_start;
        let table = self.preamble.commtable_fptr;
        if table != 0 && at >= table {
            return Err(self.err(
                at,
                format!("no ENDLOG record before the communicator table (at byte {table})"),
            ));
        }
        let bs = self.preamble.block_size as usize;
        let mut buf = vec![0u8; bs];
        let n =
            read_full(&mut self.input, &mut buf).map_err(|e| SourceError::file(&self.name, e))?;
        self.consumed += n as u64;
        if n == 0 {
            return Err(self.err(
                at,
                "the log ends without an ENDLOG record (truncated file?)",
            ));
        }
        if n < bs {
            return Err(self.err(
                at + n as u64,
                format!(
                    "truncated block: the file ends {n} bytes into the block starting at byte {at} (block_size {bs})"
                ),
            ));
        }
        self.block = buf;
        self.pos = 0;
        Ok(())
    }

    fn err(&self, offset: u64, msg: impl Into<String>) -> SourceError {
        SourceError::byte(&self.name, offset, msg)
    }
}

/// Rejects what is not a CLOG-2 file of the supported version, with the
/// reason (CLOG v1 logs have no preamble: they begin with a binary record).
fn check_magic(head: &[u8], name: &str) -> Result<(), SourceError> {
    if head.starts_with(b"CLOG-02.") {
        let v = c_string(&head[..head.len().min(12)]);
        if v != SUPPORTED_VERSION {
            return Err(SourceError::byte(
                name,
                0,
                format!("unsupported CLOG-2 version `{v}`: only {SUPPORTED_VERSION} is read"),
            ));
        }
        return Ok(());
    }
    let shown: Vec<String> = head.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let what = if head.starts_with(b"CLOG") {
        format!(
            "an unsupported CLOG version `{}`",
            c_string(&head[..head.len().min(12)])
        )
    } else {
        format!(
            "no `CLOG-02.` version string at its start (found bytes `{}`); CLOG v1 logs (.clog) \
             have no preamble and are not supported",
            shown.join(" ")
        )
    };
    Err(SourceError::byte(
        name,
        0,
        format!("not a CLOG-2 log: {what}"),
    ))
}

impl Preamble {
    /// Parses the 1024-byte preamble.
    pub fn parse(buf: &[u8], name: &str) -> Result<Preamble, SourceError> {
        check_magic(buf, name)?;
        // The NUL-terminated strings, with their offsets; the zero padding
        // ends them.
        let mut strings: Vec<(usize, String)> = Vec::new();
        let mut at = 0;
        while at < buf.len() && buf[at] != 0 {
            let end = memchr::memchr(0, &buf[at..]).map_or(buf.len(), |e| at + e);
            strings.push((at, String::from_utf8_lossy(&buf[at..end]).into_owned()));
            at = end + 1;
        }
        let version = strings[0].1.clone();
        // key= followed by its values.
        let mut pairs: Vec<(usize, String, Vec<String>)> = Vec::new();
        for (off, s) in strings.into_iter().skip(1) {
            if let Some(key) = s.strip_suffix('=') {
                pairs.push((off, key.to_string(), Vec::new()));
            } else if let Some(p) = pairs.last_mut() {
                p.2.push(s);
            } else {
                return Err(SourceError::byte(
                    name,
                    off as u64,
                    format!("preamble value `{s}` before any `key=`"),
                ));
            }
        }
        let find = |key: &str, alt: &str| -> Result<(usize, &Vec<String>), SourceError> {
            pairs
                .iter()
                .find(|p| p.1 == key || p.1 == alt)
                .map(|p| (p.0, &p.2))
                .ok_or_else(|| SourceError::byte(name, 0, format!("the preamble has no `{key}=`")))
        };
        let one = |key: &str, alt: &str| -> Result<(usize, String), SourceError> {
            let (off, v) = find(key, alt)?;
            match v.as_slice() {
                [x] => Ok((off, x.clone())),
                _ => Err(SourceError::byte(
                    name,
                    off as u64,
                    format!("preamble key `{key}=` has {} values, not 1", v.len()),
                )),
            }
        };
        let boolean = |key: &str, alt: &str| -> Result<bool, SourceError> {
            let (off, v) = one(key, alt)?;
            match v.trim() {
                "TRUE" => Ok(true),
                "FALSE" => Ok(false),
                _ => Err(SourceError::byte(
                    name,
                    off as u64,
                    format!("preamble `{key}=` is `{v}`, not TRUE or FALSE"),
                )),
            }
        };
        // An integer, with its offset for messages.
        let int = |key: &str| -> Result<(usize, i64), SourceError> {
            let (off, v) = one(key, key)?;
            Ok((off, number(&v, off, key, name)?))
        };
        let out_of_range = |key: &str, (off, v): (usize, i64)| {
            SourceError::byte(
                name,
                off as u64,
                format!("preamble `{key}=` {v} out of range"),
            )
        };
        let uint = |key: &str| -> Result<u32, SourceError> {
            let (off, v) = int(key)?;
            u32::try_from(v).map_err(|_| out_of_range(key, (off, v)))
        };
        let sint = |key: &str| -> Result<i32, SourceError> {
            let (off, v) = int(key)?;
            i32::try_from(v).map_err(|_| out_of_range(key, (off, v)))
        };
        let (foff, fv) = find("commtable_fptr", "commtable_fptr")?;
        let commtable_fptr = match fv.as_slice() {
            [giga, unit, rest] => {
                let g = number(giga, foff, "commtable_fptr", name)?;
                let u = number(unit, foff, "commtable_fptr", name)?;
                let r = number(rest, foff, "commtable_fptr", name)?;
                let total = g.checked_mul(u).and_then(|x| x.checked_add(r));
                match total {
                    Some(t) if g >= 0 && u >= 0 && r >= 0 => t as u64,
                    _ => {
                        return Err(SourceError::byte(
                            name,
                            foff as u64,
                            format!("preamble `commtable_fptr=` `{giga}` `{unit}` `{rest}` is not an offset"),
                        ))
                    }
                }
            }
            _ => {
                return Err(SourceError::byte(
                    name,
                    foff as u64,
                    format!(
                        "preamble `commtable_fptr=` has {} values, not 3 (giga, unit, rest)",
                        fv.len()
                    ),
                ))
            }
        };
        let p = Preamble {
            version,
            is_big_endian: boolean("is_big_endian", "is_big_endian")?,
            is_finalized: boolean("is_finalzed", "is_finalized")?,
            block_size: uint("block_size")?,
            num_buffered_blocks: uint("num_buffered_blocks")?,
            max_comm_world_size: uint("max_comm_world_size")?,
            max_thread_count: uint("max_thread_count")?,
            known_eventid_start: sint("known_eventID_start")?,
            user_eventid_start: sint("user_eventID_start")?,
            known_solo_eventid_start: sint("known_solo_eventID_start")?,
            user_solo_eventid_start: sint("user_solo_eventID_start")?,
            known_stateid_count: uint("known_stateID_count")?,
            user_stateid_count: uint("user_stateID_count")?,
            known_solo_eventid_count: uint("known_solo_eventID_count")?,
            user_solo_eventid_count: uint("user_solo_eventID_count")?,
            commtable_fptr,
        };
        let bs = p.block_size;
        if bs < HEADER_SIZE as u32 || bs > MAX_BLOCK_SIZE || !bs.is_multiple_of(8) {
            let (off, _) = find("block_size", "block_size")?;
            return Err(SourceError::byte(
                name,
                off as u64,
                format!("block_size {bs} is not a multiple of 8 between 24 and 2^30"),
            ));
        }
        if p.commtable_fptr != 0 && p.commtable_fptr < PREAMBLE_SIZE as u64 {
            return Err(SourceError::byte(
                name,
                foff as u64,
                format!(
                    "commtable_fptr {} points inside the preamble",
                    p.commtable_fptr
                ),
            ));
        }
        Ok(p)
    }
}

fn number(v: &str, off: usize, key: &str, name: &str) -> Result<i64, SourceError> {
    v.trim().parse::<i64>().map_err(|_| {
        SourceError::byte(
            name,
            off as u64,
            format!("preamble `{key}=` value `{v}` is not an integer"),
        )
    })
}

/// Reads until `buf` is full or the input ends; the number of bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> Result<usize, String> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("read error: {e}")),
        }
    }
    Ok(n)
}

fn i32_at(b: &[u8], at: usize, big: bool) -> i32 {
    let a: [u8; 4] = b[at..at + 4].try_into().expect("4 bytes");
    if big {
        i32::from_be_bytes(a)
    } else {
        i32::from_le_bytes(a)
    }
}

fn f64_at(b: &[u8], at: usize, big: bool) -> f64 {
    let a: [u8; 8] = b[at..at + 8].try_into().expect("8 bytes");
    if big {
        f64::from_be_bytes(a)
    } else {
        f64::from_le_bytes(a)
    }
}

/// A NUL-terminated (or full) fixed-size string.
fn c_string(b: &[u8]) -> String {
    let end = memchr::memchr(0, b).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn uuid_at(b: &[u8], at: usize, big: bool) -> Uuid {
    Uuid {
        rand: i32_at(b, at, big),
        time: f64_at(b, at + 4, big),
        name: c_string(&b[at + 12..at + UUID_SIZE]),
    }
}

/// Decodes a body of a known record type; `b` has exactly its size.
fn parse_body(rectype: i32, b: &[u8], big: bool) -> Body {
    let i = |at| i32_at(b, at, big);
    match rectype {
        0 => Body::EndLog,
        1 => Body::EndBlock,
        2 => Body::StateDef(StateDef {
            id: i(0),
            start: i(4),
            end: i(8),
            color: c_string(&b[16..40]),
            name: c_string(&b[40..72]),
            format: c_string(&b[72..112]),
        }),
        3 => Body::EventDef(EventDef {
            id: i(0),
            color: c_string(&b[8..32]),
            name: c_string(&b[32..64]),
            format: c_string(&b[64..104]),
        }),
        4 => Body::ConstDef {
            etype: i(0),
            value: i(4),
            name: c_string(&b[8..40]),
        },
        5 => Body::Bare { etype: i(0) },
        6 => Body::Cargo {
            etype: i(0),
            bytes: b[8..40].try_into().expect("32 bytes"),
        },
        7 => Body::Msg {
            etype: i(0),
            icomm: i(4),
            rank: i(8),
            tag: i(12),
            size: i(16),
        },
        8 => Body::Coll {
            etype: i(0),
            root: i(4),
            size: i(8),
        },
        9 => Body::Comm {
            etype: i(0),
            icomm: i(4),
            rank: i(8),
            wrank: i(12),
            gcomm: uuid_at(b, 16, big),
        },
        10 => Body::SrcLoc {
            id: i(0),
            line: i(4),
            file: c_string(&b[8..48]),
        },
        _ => Body::TimeShift {
            shift: f64_at(b, 0, big),
        },
    }
}
