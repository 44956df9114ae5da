//! A real browser for the tests: headless Chromium driven by chromedriver over the W3C
//! WebDriver HTTP protocol (JSON over loopback, sent with `ureq`).
//!
//! Without chromedriver on PATH, [`Browser::start`] says so on stderr and returns `None`, so
//! `cargo test` passes on a machine without a browser; `SKILLPKG_REQUIRE_BROWSER=1` (which
//! `.ci/run` sets) makes that a failure instead.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The W3C name of an element reference in JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A headless Chromium session; the browser and its driver end when dropped.
pub(crate) struct Browser {
    driver: Child,
    session: String,
    agent: ureq::Agent,
}

/// A program on PATH, if there is one.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    })
}

/// A free port on loopback (the driver binds it a moment later).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    /// A browser whose window (or, under 500 pixels wide, emulated phone screen) is `width` ×
    /// `height` CSS pixels, or `None` (with a message) when chromedriver is not installed and
    /// the browser is not required.
    #[allow(
        clippy::print_stderr,
        reason = "the skip must be seen in the test output"
    )]
    pub(crate) fn start(test: &str, width: u32, height: u32) -> Option<Self> {
        let Some(chromedriver) = on_path("chromedriver") else {
            assert!(
                std::env::var("SKILLPKG_REQUIRE_BROWSER").as_deref() != Ok("1"),
                "{test}: chromedriver is not on PATH and SKILLPKG_REQUIRE_BROWSER=1: install \
                 Debian's `chromium` and `chromium-driver` packages"
            );
            eprintln!(
                "skipping {test}: chromedriver is not on PATH (install Debian's `chromium` and \
                 `chromium-driver`; SKILLPKG_REQUIRE_BROWSER=1 makes this a failure)"
            );
            return None;
        };
        let port = free_port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = agent
                .get(&format!("{base}/status"))
                .call()
                .ok()
                .and_then(|mut response| response.body_mut().read_json::<Value>().ok())
                .is_some_and(|status| status["value"]["ready"] == json!(true));
            if ready {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut options = json!({
            "args": [
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                format!("--window-size={width},{height}"),
            ],
        });
        if let Some(chromium) = on_path("chromium") {
            options["binary"] = json!(chromium);
        }
        // A window is at least 500 pixels wide; a phone's screen is emulated, touch and all.
        if width < 500 {
            options["mobileEmulation"] = json!({
                "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2, "mobile": true, "touch": true },
            });
        }
        let mut browser = Self {
            driver,
            session: String::new(),
            agent,
        };
        let created = browser.send(
            "POST",
            &format!("{base}/session"),
            Some(&json!({
                "capabilities": {
                    "alwaysMatch": {
                        "browserName": "chrome",
                        // The test registry may serve HTTPS with a generated certificate.
                        "acceptInsecureCerts": true,
                        "goog:chromeOptions": options,
                    }
                }
            })),
        );
        let id = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"));
        browser.session = format!("{base}/session/{id}");
        Some(browser)
    }

    /// Sends one command and returns its `value`; a WebDriver error fails the test.
    fn send(&self, method: &str, url: &str, body: Option<&Value>) -> Value {
        let mut response = match (method, body) {
            ("GET", _) => self.agent.get(url).call(),
            ("DELETE", _) => self.agent.delete(url).call(),
            (_, Some(body)) => self.agent.post(url).send_json(body),
            (_, None) => self.agent.post(url).send_json(json!({})),
        }
        .unwrap_or_else(|error| panic!("{method} {url}: {error}"));
        let status = response.status().as_u16();
        let answer: Value = response.body_mut().read_json().unwrap();
        assert!(status == 200, "{method} {url}: {status} {answer}");
        answer["value"].clone()
    }

    fn command(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        self.send(method, &format!("{}{path}", self.session), body)
    }

    /// Opens `url` and waits for it to load.
    pub(crate) fn goto(&self, url: &str) {
        self.command("POST", "/url", Some(&json!({ "url": url })));
    }

    pub(crate) fn title(&self) -> String {
        self.command("GET", "/title", None)
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub(crate) fn url(&self) -> String {
        self.command("GET", "/url", None)
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Runs `script` (a function body; `arguments` holds `args`) in the page and returns
    /// what it returns.
    pub(crate) fn run(&self, script: &str, args: &[Value]) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(&json!({ "script": script, "args": args })),
        )
    }

    /// The text of the first element matching the CSS `selector`.
    pub(crate) fn text(&self, selector: &str) -> String {
        let element = self.find(selector);
        self.command("GET", &format!("/element/{element}/text"), None)
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The first element matching the CSS `selector`; fails the test when there is none.
    fn find(&self, selector: &str) -> String {
        let found = self.command(
            "POST",
            "/element",
            Some(&json!({ "using": "css selector", "value": selector })),
        );
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("{selector}: {found}"))
            .to_owned()
    }

    /// Clicks the link or button matching `selector` and waits (up to 10 s) for the page it
    /// leads to: WebDriver returns from a click before a form's navigation has begun.
    pub(crate) fn click(&self, selector: &str) {
        let before = self.url();
        let element = self.find(selector);
        self.command("POST", &format!("/element/{element}/click"), None);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            let loaded = self.run("return document.readyState", &[]) == json!("complete");
            if loaded && self.url() != before {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
    }

    /// Types `text` into the field matching `selector`.
    pub(crate) fn type_into(&self, selector: &str, text: &str) {
        let element = self.find(selector);
        self.command("POST", &format!("/element/{element}/clear"), None);
        self.command(
            "POST",
            &format!("/element/{element}/value"),
            Some(&json!({ "text": text })),
        );
    }

    /// Saves a screenshot of the window as a PNG at `path`.
    pub(crate) fn screenshot(&self, path: &Path) {
        let encoded = self.command("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap())
            .unwrap();
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        if let Some(folder) = path.parent() {
            fs_err::create_dir_all(folder).unwrap();
        }
        fs_err::write(path, png).unwrap();
    }

    /// Whether the page is wider than the window (a horizontal scroll bar).
    pub(crate) fn scrolls_sideways(&self) -> bool {
        self.run(
            "return document.documentElement.scrollWidth > window.innerWidth;",
            &[],
        ) == json!(true)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(&self.session).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Where the tests save screenshots: `target/screenshots/`.
pub(crate) fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("screenshots")
}
