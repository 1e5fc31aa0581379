//! How a trace is read by a consumer that can read it by windows: the
//! decision taken by `trama_open::open_reading` from what it opened and
//! the consumer's needs; what a trace's head tells of its run.

use std::path::{Path, PathBuf};

use trama_open::{LoadOptions, Needs, Reading, Source};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje")
}

fn decide(path: &Path, load: &LoadOptions, needs: &Needs) -> (Reading, Vec<String>) {
    trama_open::open_reading(&Source::Path(path.to_path_buf()), load, needs).unwrap()
}

/// Regression: the command line checked a `.ptb`'s magic bytes and held
/// the whole/blocks/cache policy itself; trama-open decides now.
#[test]
fn trama_open_decides_how_a_trace_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("ring.paje");
    std::fs::copy(example(), &input).unwrap();
    let cache = dir.path().join("cache");
    let load = LoadOptions::default();
    // A small text trace is held whole.
    let (r, notes) = decide(&input, &load, &Needs::default());
    assert!(matches!(r, Reading::Whole(_)) && notes.is_empty());
    // Asked for blocks: converted into the cache first.
    let mut blocks = Needs::default();
    (blocks.blocks, blocks.cache) = (true, Some(cache.clone()));
    let (r, _) = decide(&input, &load, &blocks);
    let Reading::Convert { opened, entry } = r else {
        panic!("not converted");
    };
    assert_eq!(opened.format(), trama_open::Format::PajeText);
    assert_eq!(entry.parent(), Some(cache.as_path()));
    let name = entry.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("ring.paje-") && name.ends_with(".ptb"),
        "{name}"
    );
    assert!(cache.is_dir());
    // Nothing converted there yet.
    assert!(trama_open::cached(&entry).unwrap().is_none());
    // Reading options that change the simulation: whole, and said.
    let mut lenient = LoadOptions::default();
    lenient.lenient = true;
    let (r, notes) = decide(&input, &lenient, &blocks);
    assert!(matches!(r, Reading::Whole(_)));
    assert!(notes[0].contains("change the simulation"), "{notes:?}");
    // Asked to hold it whole, however large.
    let mut whole = blocks.clone();
    whole.whole = true;
    let (r, notes) = decide(&input, &load, &whole);
    assert!(matches!(r, Reading::Whole(_)) && notes.is_empty());
    // A file of the user's in the way of the entry is left alone.
    std::fs::write(&entry, "mine").unwrap();
    let e = trama_open::cached(&entry).err().expect("in the way");
    assert!(e.to_string().contains("in the way"), "{e}");
    assert_eq!(std::fs::read(&entry).unwrap(), b"mine");
}

/// Regression: what an OpenTS trace's header tells of its run was read by
/// opening the file a second time; it comes from the opened trace now.
#[test]
fn run_info_comes_from_the_opened_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fib.xml");
    let mut g = trama_gen::opents::OpentsGenOptions::default();
    (g.ranks, g.slices, g.cmd) = (3, 5, "fib 12".into());
    let mut f = std::fs::File::create(&path).unwrap();
    trama_gen::opents::write_opents(1, &g, &mut f).unwrap();
    drop(f);
    let opened = trama_open::open(&Source::Path(path.clone())).unwrap();
    let info = opened.run_info();
    let get = |k: &str| info.iter().find(|(l, _)| l == k).map(|(_, v)| v.as_str());
    assert_eq!(get("command"), Some(g.cmd.as_str()));
    assert_eq!(get("start time"), Some(g.start.as_str()));
    assert_eq!(get("ranks"), Some("3"));
    // Other formats tell nothing.
    let text = trama_open::open(&Source::Path(example())).unwrap();
    assert!(text.run_info().is_empty());
}
