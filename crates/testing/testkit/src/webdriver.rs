//! WebDriver helpers shared by the browser tests (the viewer's page under
//! `trama view`, and the offline report): Debian's Chromium, headless,
//! driven by chromedriver on loopback.
//!
//! Without chromedriver a test is skipped with a note, unless
//! `TRAMA_REQUIRE_BROWSER=1` (set by `.ci/run`), which makes it fail.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MouseActions, PointerAction, WheelAction, WheelActions};
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use trama_sim::{Trace, TypeKind};

/// chromedriver on a free port, killed when dropped.
pub struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(program))
            .find(|f| f.is_file())
    })
}

/// Starts chromedriver, or says why the test is skipped.
pub fn driver() -> Option<Driver> {
    let Some(exe) = find("chromedriver") else {
        let required = std::env::var_os("TRAMA_REQUIRE_BROWSER").is_some_and(|v| v == "1");
        assert!(
            !required,
            "TRAMA_REQUIRE_BROWSER=1 but chromedriver is not installed"
        );
        eprintln!("note: browser tests skipped: chromedriver is not installed (Debian: chromium chromium-driver)");
        return None;
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(exe)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Driver { child, port })
}

/// A headless Chromium session (1400×900) of the driver `d`.
pub async fn browser(d: &Driver) -> Client {
    let mut caps = serde_json::Map::new();
    let chrome = find("chromium").map(|p| p.to_string_lossy().into_owned());
    let mut opts = json!({
        "args": ["--headless", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1400,900"]
    });
    if let Some(c) = chrome {
        opts["binary"] = json!(c);
    }
    caps.insert("goog:chromeOptions".into(), opts);
    ClientBuilder::rustls()
        .unwrap()
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", d.port))
        .await
        .expect("a browser session")
}

/// What `script` returns, run in the page.
pub async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

/// Waits until `script` returns true.
pub async fn until(c: &Client, script: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if js(c, script).await == json!(true) {
            return;
        }
        let state = js(c, "return document.body.dataset.state + ' ' + (document.getElementById('error')?.textContent) + ' stats hidden=' + document.getElementById('stats')?.hidden + ' ' + document.body.dataset.stats + ' window ' + window.trama?.window()").await;
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what} (page: {state})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The timeline's time window, as the page says it.
pub async fn window(c: &Client) -> (f64, f64) {
    let w = js(c, "return window.trama.window()").await;
    (w[0].as_f64().unwrap(), w[1].as_f64().unwrap())
}

/// The pointer moved to client coordinates `(x, y)`.
pub async fn move_to(c: &Client, x: f64, y: f64) {
    let m = MouseActions::new("mouse".into()).then(PointerAction::MoveTo {
        duration: None,
        x,
        y,
    });
    c.perform_actions(m).await.unwrap();
}

/// A level-0 state of container `name` lasting long enough to point at:
/// its value's name and its middle.
pub fn a_state_of(trace: &Trace, name: &str) -> (String, f64) {
    let m = &trace.model;
    let c = (0..m.containers.len() as u32)
        .map(trama_sim::ContainerId)
        .find(|c| m.label(m.container(*c).name) == name)
        .unwrap();
    let span = trace.end_time() - trace.start_time();
    for &(ty, l) in &m.container(c).lists {
        if m.ty(ty).kind != TypeKind::State {
            continue;
        }
        let cols = &trace.lists[l.index()];
        let longest = (0..cols.len())
            .filter(|i| cols.level[*i] == 0)
            .max_by(|a, b| {
                (cols.end[*a] - cols.start[*a]).total_cmp(&(cols.end[*b] - cols.start[*b]))
            })
            .unwrap();
        let (s, e) = (cols.start[longest], cols.end[longest]);
        assert!(e - s > span / 50.0, "a state wide enough to point at");
        // Deeper states may cover the middle: the test points where only
        // level 0 is.
        let covered = |t: f64| {
            (0..cols.len()).any(|i| cols.level[i] > 0 && cols.start[i] <= t && cols.end[i] > t)
        };
        let t = (0..50)
            .map(|k| s + (e - s) * (k as f64 + 0.5) / 50.0)
            .find(|t| !covered(*t))
            .unwrap();
        return (m.label(m.value(cols.value[longest]).name), t);
    }
    panic!("{name} has no states");
}

/// The share of the timeline's pixels that are not white.
pub async fn inked(c: &Client) -> f64 {
    js(
        c,
        "const cv = document.getElementById('timeline');
         const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
         let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 240 || d[i+1] < 240 || d[i+2] < 240) n++;
         return n / (d.length / 4);",
    )
    .await
    .as_f64()
    .unwrap()
}

/// A click at client coordinates `(x, y)`.
pub async fn click(c: &Client, x: f64, y: f64) {
    let m = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x,
            y,
        })
        .then(PointerAction::Down {
            button: fantoccini::actions::MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::Up {
            button: fantoccini::actions::MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(m).await.unwrap();
}

/// The text of the details panel (what a click pins), once it shows
/// (`what` names the wait in a failure).
pub async fn details(c: &Client, what: &str) -> Value {
    until(c, "return !document.getElementById('details').hidden", what).await;
    js(
        c,
        "return document.getElementById('details-body').textContent",
    )
    .await
}

/// A turn of the wheel at `(x, y)` (`dy` < 0: zoom in).
pub async fn wheel(c: &Client, x: f64, y: f64, dy: i64) {
    let w = WheelActions::new("wheel".into()).then(WheelAction::Scroll {
        duration: None,
        x: x as i64,
        y: y as i64,
        delta_x: 0,
        delta_y: dy,
    });
    c.perform_actions(w).await.unwrap();
}

/// The client x of time `t` and y of the row labelled `label`.
pub async fn at(c: &Client, t: f64, label: &str) -> (f64, f64) {
    let x = js(c, &format!("return window.trama.x({t})"))
        .await
        .as_f64()
        .unwrap();
    let y = js(c, &format!("return window.trama.y({})", json!(label)))
        .await
        .as_f64()
        .unwrap_or_else(|| panic!("the row {label} is on screen"));
    (x, y)
}

/// A drag with the left button from `(x0, y0)` to `(x1, y1)`, in steps.
pub async fn drag(c: &Client, (x0, y0): (f64, f64), (x1, y1): (f64, f64)) {
    let mut m = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x: x0,
            y: y0,
        })
        .then(PointerAction::Down {
            button: fantoccini::actions::MOUSE_BUTTON_LEFT,
        });
    for k in 1..=5 {
        let f = k as f64 / 5.0;
        m = m.then(PointerAction::MoveTo {
            duration: Some(std::time::Duration::from_millis(20)),
            x: x0 + (x1 - x0) * f,
            y: y0 + (y1 - y0) * f,
        });
    }
    m = m.then(PointerAction::Up {
        button: fantoccini::actions::MOUSE_BUTTON_LEFT,
    });
    c.perform_actions(m).await.unwrap();
}

/// Sets a control of the page, as typing or choosing in it does.
pub async fn set(c: &Client, id: &str, value: &str) {
    js(
        c,
        &format!(
            "const e = document.getElementById('{id}'); e.value = {}; e.dispatchEvent(new Event('change')); return true;",
            json!(value)
        ),
    )
    .await;
}

/// Presses the button `id` of the page (as a click on it does).
pub async fn press(c: &Client, id: &str) {
    js(
        c,
        &format!("document.getElementById('{id}').click(); return true"),
    )
    .await;
}

/// A click on the element `id` of the page, by WebDriver (the pointer
/// moves there, as a user's would).
pub async fn click_id(c: &Client, id: &str) {
    c.find(fantoccini::Locator::Id(id))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// Opens `url` and waits until the page says it is ready (`what`: what
/// is waited for, for the message on timeout).
pub async fn open_ready(c: &Client, url: &str, what: &str) {
    c.goto(url).await.unwrap();
    until(c, "return document.body.dataset.state === 'ready'", what).await;
}

/// Asserts that no script of the page failed.
pub async fn no_script_error(c: &Client) {
    assert_eq!(
        js(c, "return document.body.dataset.jserror || null").await,
        Value::Null
    );
}

/// Opens the page of two runs compared at `url` (`trama view A B`'s, or
/// an offline comparison's file) and waits until both runs are drawn.
pub async fn open_compare(c: &Client, url: &str) {
    c.goto(url).await.unwrap();
    until(
        c,
        "return window.compare && window.compare.ready()",
        "both runs",
    )
    .await;
}

/// The difference lane of two runs compared (the page of `trama view A
/// B` or of `trama report A B`), once drawn for the window shown: the
/// stretches of A's time where group `group`'s time in `value` differs
/// in B, as (start, end, +1 when B spends more, -1 when less).
pub async fn lane_marks(c: &Client, group: &str, value: &str) -> Vec<(f64, f64, i64)> {
    until(
        c,
        "const w = window.compare.windows()[0]; return document.body.dataset.lane === `${w[0]},${w[1]}`",
        "the difference lane of the window",
    )
    .await;
    let marks = js(
        c,
        &format!("return window.compare.marked({group:?}, {value:?})"),
    )
    .await;
    let marks = marks.as_array().expect("the lane's marks");
    marks
        .iter()
        .map(|m| {
            let f = |k: &str| m[k].as_f64().unwrap();
            (f("t0"), f("t1"), m["sign"].as_i64().unwrap())
        })
        .collect()
}
