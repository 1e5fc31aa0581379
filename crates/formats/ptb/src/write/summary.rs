//! A summary frame added to a file written (see the format's
//! specification, "Summary frame"): put between the footer and the
//! trailer, where readers that do not look for it never read.

use std::io::{self, Read, Seek, SeekFrom, Write};

use super::output::write_frame;
use crate::format::*;

/// Adds the summary frame holding `payload` (stored as is) to the `.ptb`
/// `file` (opened for reading and writing), which must end with its
/// footer and trailer and hold no summary frame yet: the trailer is
/// written again after the frame. Anything else is left as it is and
/// refused.
pub fn add_summary(file: &mut std::fs::File, payload: &[u8]) -> io::Result<()> {
    let refused = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_string());
    let len = file.seek(SeekFrom::End(0))?;
    if len < (HEADER_LEN + FRAME_HEADER_LEN + TRAILER_LEN) as u64 {
        return Err(refused("not a .ptb file: too short"));
    }
    let t = len - TRAILER_LEN as u64;
    let mut trailer = [0u8; TRAILER_LEN];
    file.seek(SeekFrom::Start(t))?;
    file.read_exact(&mut trailer)?;
    let footer = u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes"));
    if trailer[8..] != END_MAGIC || footer > t.saturating_sub(FRAME_HEADER_LEN as u64) {
        return Err(refused("not a .ptb file: no trailer"));
    }
    let mut h = [0u8; FRAME_HEADER_LEN];
    file.seek(SeekFrom::Start(footer))?;
    file.read_exact(&mut h)?;
    let stored = u32::from_le_bytes(h[4..8].try_into().expect("4 bytes")) as u64;
    if h[0] != KIND_FOOTER || footer + FRAME_HEADER_LEN as u64 + stored != t {
        return Err(refused(
            "the .ptb's footer is not last (a summary frame already?)",
        ));
    }
    file.seek(SeekFrom::Start(t))?;
    let mut out = io::BufWriter::new(&mut *file);
    write_frame(
        &mut out,
        KIND_SUMMARY,
        CODEC_NONE,
        payload.len(),
        &[payload],
    )?;
    out.write_all(&trailer)?;
    out.flush()
}
