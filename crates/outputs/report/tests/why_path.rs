//! The CSV, JSON and table forms of the critical path and the delay
//! costs, from results made by hand.

use trama_report::{
    write_critical_path, write_delays, By, CriticalPath, DelayRow, Delays, Format, PathProcessRow,
    PathRegionRow, PathSegmentRow,
};

/// A path of 5 s: `compute` 4 s on rank-0, 1 s outside any state on rank-1.
fn path() -> CriticalPath {
    let region = |value: Option<&str>, seconds, mean, imbalance| PathRegionRow {
        value: value.map(String::from),
        seconds,
        mean,
        imbalance,
    };
    let process = |name: &str, seconds: f64, imbalance| PathProcessRow {
        container: name.into(),
        seconds,
        share: seconds / 5.0,
        imbalance,
    };
    let segment = |name: &str, value: Option<&str>, start, end| PathSegmentRow {
        container: name.into(),
        value: value.map(String::from),
        start,
        end,
    };
    CriticalPath {
        start: 0.0,
        end: 5.0,
        regions: vec![
            region(Some("compute, fast"), 4.0, 3.0, 1.0),
            region(None, 1.0, 1.5, 0.0),
        ],
        processes: vec![process("rank-0", 4.0, 1.0), process("rank-1", 1.0, 0.0)],
        segments: vec![
            segment("rank-0", Some("compute, fast"), 0.0, 4.0),
            segment("rank-1", None, 4.0, 5.0),
        ],
    }
}

fn written(f: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    f(&mut out);
    String::from_utf8(out).unwrap()
}

/// Regression: the critical path's CSV per region is `value,seconds`,
/// names quoted as CSV wants, the time outside states an empty value.
#[test]
fn critical_path_csv_columns() {
    let cp = path();
    let csv = written(|o| write_critical_path(&cp, By::Region, Format::Csv, o).unwrap());
    assert_eq!(csv, "value,seconds\n\"compute, fast\",4\n,1\n");
    let csv = written(|o| write_critical_path(&cp, By::Container, Format::Csv, o).unwrap());
    assert_eq!(
        csv,
        "container,seconds,share,imbalance\nrank-0,4,0.8,1\nrank-1,1,0.2,0\n"
    );
}

/// Regression: the JSON form holds the regions (null outside states),
/// the processes and the segments.
#[test]
fn critical_path_json_document() {
    let cp = path();
    let text = written(|o| write_critical_path(&cp, By::Region, Format::Json, o).unwrap());
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["regions"][1]["value"], serde_json::Value::Null);
    assert_eq!(doc["regions"][0]["imbalance"], 1.0);
    assert_eq!(doc["processes"][0]["share"], 0.8);
    assert_eq!(doc["segments"][1]["start"], 4.0);
}

/// Regression: the table names the time outside states and gives each
/// region's share of the run.
#[test]
fn critical_path_table() {
    let cp = path();
    let text = written(|o| write_critical_path(&cp, By::Region, Format::Table, o).unwrap());
    assert!(text.contains("(no state)"), "{text}");
    assert!(text.contains("80.0%"), "{text}");
}

/// Regression: the delays' CSV is `container,value,short_term,long_term`
/// in the given order; the table sorts by total cost.
#[test]
fn delays_csv_and_table() {
    let row = |c: &str, v: &str, s, l| DelayRow {
        container: c.into(),
        value: v.into(),
        short_term: s,
        long_term: l,
    };
    let d = Delays {
        waiting: 4.0,
        rows: vec![
            row("rank-0", "compute", 1.0, 0.5),
            row("rank-1", "io", 2.0, 0.0),
        ],
    };
    let csv = written(|o| write_delays(&d, Format::Csv, o).unwrap());
    assert_eq!(
        csv,
        "container,value,short_term,long_term\nrank-0,compute,1,0.5\nrank-1,io,2,0\n"
    );
    let table = written(|o| write_delays(&d, Format::Table, o).unwrap());
    let io = table.find("io").unwrap();
    let compute = table.find("compute").unwrap();
    assert!(io < compute, "{table}");
    assert!(table.contains("3.500000 s explained"), "{table}");
}
