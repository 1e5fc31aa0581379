//! Fuzz target: the seed's binary Pajé (libRastro) on arbitrary bytes.
//! The libRastro decoder walks every event; the Pajé reader (layout
//! detected, then forced both ways) feeds the simulator, and its errors
//! must name an offset inside the file. A trace read whole is written back
//! (both string modes) and read again: the same number of events must come
//! back, and writing that again must give them unchanged (the first writing
//! may normalize: a time the source held as text is stored as a double).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trama_rastro::paje::{
    read_rastro_paje, Error, Flavor, RastroPajeWriter, ReadOptions, StringMode, WriterOptions,
};
use trama_rastro::rst::{Decoder, Layout};
use trama_sim::{CountingSink, SimOptions, Simulator};

/// The events of a read, as (line, words), or the error's text.
fn events(data: &[u8], opts: &ReadOptions) -> Result<Vec<(u64, String)>, String> {
    let mut out = Vec::new();
    let mut sim = Simulator::new(CountingSink::default(), SimOptions::default());
    let r = read_rastro_paje(data, opts, |ev| -> Result<(), String> {
        assert_eq!(ev.word_count(), ev.def().field_count());
        for f in trama_events::Field::KNOWN {
            let _ = ev.get(f);
        }
        let _ = ev.extras().count();
        out.push((ev.line(), ev.contents()));
        // The simulator's verdict does not stop the read.
        let _ = sim.event(&ev);
        Ok(())
    });
    match r {
        Ok(stats) => {
            assert_eq!(stats.events as usize, out.len());
            Ok(out)
        }
        Err(Error::Format { offset, .. }) if offset > data.len() => {
            panic!("error at byte {offset} of {}", data.len())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Writes the events of `data` back as binary Pajé.
fn rewrite(data: &[u8], opts: &ReadOptions, strings: StringMode) -> Option<Vec<u8>> {
    let mut w =
        RastroPajeWriter::new(Vec::new(), WriterOptions::new(strings, Flavor::Trace)).ok()?;
    let mut failed = false;
    read_rastro_paje(data, opts, |ev| -> Result<(), ()> {
        if !failed && w.event(&ev).is_err() {
            failed = true;
        }
        Ok(())
    })
    .ok()?;
    if failed {
        return None;
    }
    w.finish().ok()
}

fuzz_target!(|data: &[u8]| {
    if let Ok(mut dec) = Decoder::detect(data) {
        let mut n = 0;
        while let Ok(Some(_)) = dec.next_event() {
            n += 1;
            if n > 1 << 20 {
                break;
            }
        }
    }
    let mut opts = ReadOptions::default();
    let detected = events(data, &opts);
    for layout in [Layout::Timed, Layout::Timeless] {
        opts.layout = Some(layout);
        let _ = events(data, &opts);
    }
    opts.layout = None;
    let Ok(first) = detected else { return };
    let words = |v: Vec<(u64, String)>| v.into_iter().map(|(_, w)| w).collect::<Vec<_>>();
    let read_back = |bytes: &[u8], strings: StringMode| {
        events(bytes, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{strings:?}: the rewritten trace does not read: {e}"))
    };
    for strings in [StringMode::Plain, StringMode::Interned] {
        let Some(again) = rewrite(data, &opts, strings) else {
            continue;
        };
        let back = read_back(&again, strings);
        assert_eq!(first.len(), back.len(), "{strings:?}: events lost or added");
        let twice = rewrite(&again, &ReadOptions::default(), strings)
            .unwrap_or_else(|| panic!("{strings:?}: a rewritten trace cannot be written again"));
        assert_eq!(
            words(back),
            words(read_back(&twice, strings)),
            "{strings:?}: writing twice changed the events"
        );
    }
});
