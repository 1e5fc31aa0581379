//! Helpers shared by the tests of damaged files.

/// CRC-32 (ISO-HDLC), bit by bit: the tests do not trust the crate's code.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The checksum of a frame (version 5): its header's first 12 bytes, then
/// its stored payload.
pub fn frame_crc(header: &[u8], payload: &[u8]) -> u32 {
    let mut all = header[..12].to_vec();
    all.extend_from_slice(payload);
    crc32(&all)
}
