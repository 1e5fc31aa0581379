//! Defaults that fit real traces (SimGrid's), and the warnings of `check`.

use std::path::{Path, PathBuf};

mod common;

use common::{trama, write_in};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// SimGrid's master-workers run, if the shared samples are there.
fn masterworkers() -> Option<PathBuf> {
    let p = common::shared_dir()?
        .join("samples/paje-real/simgrid/pajengr-simgrid-3.20.90-masterworkers.trace");
    p.exists().then_some(p)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn stats_wait_counts_simgrid_receive_and_names_it() {
    let Some(mw) = masterworkers() else { return };
    let out = trama(&["stats", "wait", s(&mw)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("worker-2"), "{t}");
    assert!(t.contains("(states counted as waiting: receive)"), "{t}");
    // JSON: the states counted are in the document, the note on stderr.
    let out = trama(&["stats", "wait", s(&mw), "--format", "json"]);
    let t = text(&out.stdout);
    assert!(
        t.contains("\"waiting_states\": [\n    \"receive\"\n  ]"),
        "{t}"
    );
    assert!(text(&out.stderr).contains("states counted as waiting: receive"));
}

#[test]
fn stats_wait_says_when_nothing_matched() {
    let Some(mw) = masterworkers() else { return };
    let out = trama(&["stats", "wait", s(&mw), "--waiting", "nothing-like-this"]);
    assert!(out.status.success());
    let t = text(&out.stdout);
    assert!(
        t.contains("no state matched the waiting patterns (nothing-like-this)"),
        "{t}"
    );
}

#[test]
fn host_level_is_chosen_for_kiviat_mapping_order_and_report() {
    let Some(mw) = masterworkers() else { return };
    let dir = tempfile::tempdir().unwrap();
    for view in ["kiviat", "mapping"] {
        let svg = dir.path().join(format!("{view}.svg"));
        let out = trama(&["render", view, s(&mw), "-o", s(&svg)]);
        assert!(out.status.success(), "{view}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("hosts: the 7 containers of type HOST"),
            "{}",
            text(&out.stderr)
        );
        let picture = std::fs::read_to_string(&svg).unwrap();
        assert!(picture.contains("Tremblay"), "{view}");
        if view == "mapping" {
            // The actors sit on their hosts even without messages.
            assert!(picture.contains("master-1"), "{picture}");
        }
    }
    let out = trama(&["stats", "kiviat", s(&mw)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("per HOST"));
    // --level overrides the choice.
    let out = trama(&["stats", "order", s(&mw), "--level", "ACTOR"]);
    assert!(
        text(&out.stdout).contains("(hosts: ACTOR)"),
        "{}",
        text(&out.stdout)
    );
    assert!(!text(&out.stdout).contains("chosen from the trace"));
    let html = dir.path().join("r.html");
    let out = trama(&["report", s(&mw), "-o", s(&html)]);
    assert!(out.status.success());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("hosts: the 7 containers of type HOST"));
    assert!(page.contains("Network share per HOST"));
}

#[test]
fn host_level_absent_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = write_in(
        dir.path(),
        "flat.paje",
        "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 1\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         0 P 0 Proc\n1 0 p1 P 0 p1\n1 1 p2 P 0 p2\n",
    );
    let out = trama(&["stats", "kiviat", s(&t)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no hosts can be chosen from the trace"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_warns_of_pushes_never_popped_and_stats_flags_nested_totals() {
    let Some(mw) = masterworkers() else { return };
    let out = trama(&["check", s(&mw)]);
    assert!(out.status.success());
    let w = "50 state(s) of type 'ACTOR_STATE' pushed and never popped, in 6 container(s)";
    assert!(text(&out.stdout).contains(w), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains(w), "{}", text(&out.stderr));
    let out = trama(&["stats", "states", s(&mw)]);
    let t = text(&out.stdout);
    assert!(
        t.contains(
            "(total exceeds the 5.133855 s window for 6 row(s): send of master-1 (74.774635 s)"
        ),
        "{t}"
    );
    // Every share stays within 100 %.
    for l in t.lines().filter(|l| l.ends_with('%')) {
        let share: f64 = l
            .rsplit(' ')
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap();
        assert!(share <= 100.0, "{l}");
    }
}

#[test]
fn check_warns_of_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = write_in(dir.path(), "empty.paje", "");
    let out = trama(&["check", s(&t)]);
    assert!(out.status.success());
    let o = text(&out.stdout);
    assert!(o.contains("time span   none (no timed event)"), "{o}");
    assert!(!o.contains(".. -1"), "{o}");
    assert!(text(&out.stderr).contains("empty.paje: the file is empty"));
}

#[test]
fn check_lists_links_never_ended() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let t = shared.join("conformance/pajeng/incomplete_link_z.trace");
    let out = trama(&["check", "-z", s(&t)]);
    assert!(out.status.success());
    assert!(
        text(&out.stdout)
            .contains("    1 incomplete link(s) of type 'Comm' in container '0' ignored (-z)"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn output_error_names_the_file_and_says_why() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples/ring.paje");
    let out = trama(&["dump", s(&example), "-o", "/proc/version"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot create /proc/version: no file can be made in /proc to write it"),
        "{err}"
    );
}

/// The cells of the first HTML table after `heading` in `page`, row by row.
fn html_table(page: &str, heading: &str) -> Vec<Vec<String>> {
    let at = page.find(heading).expect("the heading");
    let body = &page[at..];
    let body = &body[..body.find("</table>").expect("a table")];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            // Pieces `td class="t">cell`, `/td>`, …: the cells follow the
            // opening tags.
            row.split('<')
                .filter(|p| p.starts_with("td") || p.starts_with("th"))
                .map(|p| p[p.find('>').unwrap() + 1..].to_string())
                .map(|c| {
                    c.replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// Regression: the report's time per state rolled processes up to their
/// hosts (master-1 and worker-2 under Tremblay) and showed the inclusive
/// share beside the exclusive time; it is the table of `stats states`.
#[test]
fn report_time_per_state_equals_stats_states() {
    let Some(mw) = masterworkers() else { return };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let out = trama(&["report", s(&mw), "-o", s(&html)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    let report = html_table(&page, "<h2>Time per state</h2>");
    let out = trama(&["stats", "states", s(&mw)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let stats: Vec<Vec<String>> = stdout
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    assert!(stats.len() > 5, "{stdout}");
    assert_eq!(report, stats, "report:\n{report:?}\nstats:\n{stdout}");
}
