//! Small helpers over quick-xml's events and a tag's bytes.

use std::borrow::Cow;

use quick_xml::events::Event;

/// Where the attribute `key` starts in a tag's bytes: after white space,
/// before white space or `=`.
pub(super) fn attr_offset(tag: &[u8], key: &[u8]) -> Option<usize> {
    memchr::memmem::find_iter(tag, key).find(|&i| {
        i > 0
            && tag[i - 1].is_ascii_whitespace()
            && tag
                .get(i + key.len())
                .is_some_and(|&b| b == b'=' || b.is_ascii_whitespace())
    })
}

/// `bytes` as text, invalid UTF-8 replaced (as `String::from_utf8_lossy`
/// does, quicker when valid).
pub(super) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Whether an event says nothing to the reader: a comment, the XML
/// declaration, a processing instruction, a doctype, blank text.
pub(super) fn ignored(ev: &Event) -> bool {
    match ev {
        Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => true,
        Event::Text(t) => t.iter().all(|b| b.is_ascii_whitespace()),
        _ => false,
    }
}

/// A short description of an event for an error message.
pub(super) fn describe(ev: &Event) -> String {
    match ev {
        Event::Start(e) | Event::Empty(e) => {
            format!("<{}>", String::from_utf8_lossy(e.name().as_ref()))
        }
        Event::End(e) => format!("</{}>", String::from_utf8_lossy(e.name().as_ref())),
        Event::Text(t) => String::from_utf8_lossy(t).trim().chars().take(40).collect(),
        Event::CData(_) => "CDATA".into(),
        Event::GeneralRef(r) => format!("&{};", String::from_utf8_lossy(r)),
        _ => "markup".into(),
    }
}
