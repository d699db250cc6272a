//! A small WebDriver client for the browser tests: ChromeDriver drives headless Chromium over
//! JSON and HTTP (W3C WebDriver), so reqwest and serde_json are all it takes.
//!
//! Chromium and ChromeDriver come from the Debian packages `chromium` and `chromium-driver`.
//! Without them the browser tests fail, unless the developer opted out
//! (`STOREFRONT_TEST_SKIP=browser`, see [`crate::skips`]), like the PostgreSQL variants.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key under which WebDriver names an element.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub const PHONE: (u32, u32) = (390, 844);
pub const LAPTOP: (u32, u32) = (1366, 900);

fn find_binary(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A Chromium session through its own ChromeDriver and a fresh profile; both end with it.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// `None` only when Chromium or ChromeDriver is missing and the run opted out of browser
    /// tests (the skip is reported); missing otherwise, the test fails.
    pub async fn start(size: (u32, u32)) -> Option<Self> {
        Self::start_with(size, &[]).await
    }

    /// A browser with JavaScript turned off for pages (WebDriver's own scripts still run, so
    /// a test can inspect the page and run axe-core in it).
    pub async fn start_without_javascript(size: (u32, u32)) -> Option<Self> {
        Self::start_with(size, &["--blink-settings=scriptEnabled=false"]).await
    }

    /// [`Self::start`] with more Chromium arguments.
    pub async fn start_with(size: (u32, u32), extra_args: &[&str]) -> Option<Self> {
        let (Some(driver), Some(chromium)) = (
            find_binary(&["chromedriver"]),
            find_binary(&["chromium", "chromium-browser", "google-chrome"]),
        ) else {
            crate::skips::missing(
                crate::skips::Needed::Browser,
                "chromium and chromedriver were not found on PATH (Debian: apt-get install \
                 chromium chromium-driver)",
            );
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let driver = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let profile = tempfile::tempdir().expect("profile dir");
        let mut browser = Self {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            http: reqwest::Client::new(),
            _profile: profile,
        };
        browser.wait_for_driver().await;
        let mut args = vec![
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            format!("--window-size={},{}", size.0, size.1),
            format!("--user-data-dir={}", browser._profile.path().display()),
        ];
        args.extend(extra_args.iter().map(|a| (*a).to_string()));
        let answer = browser
            .call(
                reqwest::Method::POST,
                "/session",
                Some(json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {"binary": chromium, "args": args},
                }}})),
            )
            .await;
        browser.session = answer["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        Some(browser)
    }

    async fn wait_for_driver(&self) {
        let started = Instant::now();
        loop {
            if let Ok(res) = self.http.get(format!("{}/status", self.base)).send().await
                && let Ok(body) = res.json::<Value>().await
                && body["value"]["ready"] == json!(true)
            {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "chromedriver did not start"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// One WebDriver command; its `value`. A WebDriver error fails the test with its message.
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let mut request = self.http.request(method.clone(), &url);
        if let Some(body) = body {
            request = request.json(&body);
        } else if method == reqwest::Method::POST {
            request = request.json(&json!({}));
        }
        let res = request.send().await.expect("chromedriver answers");
        let status = res.status();
        let body: Value = res.json().await.expect("a JSON answer");
        assert!(status.is_success(), "WebDriver {method} {path}: {body}");
        body["value"].clone()
    }

    fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub async fn goto(&self, url: &str) {
        self.call(
            reqwest::Method::POST,
            &self.session_path("/url"),
            Some(json!({"url": url})),
        )
        .await;
    }

    pub async fn current_url(&self) -> String {
        let value = self
            .call(reqwest::Method::GET, &self.session_path("/url"), None)
            .await;
        value.as_str().unwrap_or_default().to_string()
    }

    /// The first element matching `css`.
    pub async fn find(&self, css: &str) -> String {
        let value = self
            .call(
                reqwest::Method::POST,
                &self.session_path("/element"),
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        value[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element id for {css}: {value}"))
            .to_string()
    }

    pub async fn click(&self, css: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &self.session_path(&format!("/element/{element}/click")),
            None,
        )
        .await;
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &self.session_path(&format!("/element/{element}/value")),
            Some(json!({"text": text})),
        )
        .await;
    }

    pub async fn source(&self) -> String {
        let value = self
            .call(reqwest::Method::GET, &self.session_path("/source"), None)
            .await;
        value.as_str().unwrap_or_default().to_string()
    }

    /// The visible text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        let element = self.find(css).await;
        let value = self
            .call(
                reqwest::Method::GET,
                &self.session_path(&format!("/element/{element}/text")),
                None,
            )
            .await;
        value.as_str().unwrap_or_default().to_string()
    }

    /// Waits until the page source contains `needle`; returns the source.
    pub async fn wait_for(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let source = self.source().await;
            if source.contains(needle) {
                return source;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the page never showed {needle:?}: {source}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub async fn execute(&self, script: &str) -> Value {
        self.execute_with(script, json!([])).await
    }

    /// [`Self::execute`] with `arguments` for the script.
    pub async fn execute_with(&self, script: &str, arguments: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            &self.session_path("/execute/sync"),
            Some(json!({"script": script, "args": arguments})),
        )
        .await
    }

    /// Runs `script` (a function body whose last argument is the callback to call with the
    /// result) in the page and returns what it passed to the callback.
    pub async fn execute_async(&self, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            &self.session_path("/execute/async"),
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Types `keys` into the element that has the focus (WebDriver key codes such as
    /// `\u{E007}`, Enter, included).
    pub async fn keys_to_focused(&self, keys: &str) {
        let value = self
            .call(
                reqwest::Method::GET,
                &self.session_path("/element/active"),
                None,
            )
            .await;
        let element = value[ELEMENT].as_str().unwrap_or_default().to_string();
        self.call(
            reqwest::Method::POST,
            &self.session_path(&format!("/element/{element}/value")),
            Some(json!({"text": keys})),
        )
        .await;
    }

    /// Deletes every cookie of the current site: the browser becomes another device.
    pub async fn delete_cookies(&self) {
        self.call(reqwest::Method::DELETE, &self.session_path("/cookie"), None)
            .await;
    }

    /// A screenshot that reports failure instead of failing the test: for a test that is
    /// already failing.
    pub async fn try_screenshot(&self, path: &Path) -> Result<(), String> {
        let res = self
            .http
            .get(format!("{}{}", self.base, self.session_path("/screenshot")))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let body: Value = res.json().await.map_err(|e| e.to_string())?;
        let png = decode_base64(body["value"].as_str().ok_or("no screenshot")?);
        std::fs::write(path, png).map_err(|e| e.to_string())
    }

    /// Elements wider than the viewport make the whole page scroll sideways: the ones that
    /// stick out (tag, class and width), none when the page fits.
    pub async fn overflowing(&self) -> Vec<String> {
        let value = self
            .execute(
                "const width = document.documentElement.clientWidth; \
                 if (document.documentElement.scrollWidth <= width) return []; \
                 const scrolls = e => e.closest('.table-wrap, pre') !== null; \
                 return Array.from(document.querySelectorAll('body *')) \
                   .filter(e => !scrolls(e) && e.getBoundingClientRect().right > width + 1) \
                   .map(e => e.tagName + '.' + e.className + ' ' + \
                        Math.round(e.getBoundingClientRect().right));",
            )
            .await;
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub async fn set_size(&self, (width, height): (u32, u32)) {
        self.call(
            reqwest::Method::POST,
            &self.session_path("/window/rect"),
            Some(json!({"width": width, "height": height})),
        )
        .await;
    }

    pub async fn window_handles(&self) -> Vec<String> {
        let value = self
            .call(
                reqwest::Method::GET,
                &self.session_path("/window/handles"),
                None,
            )
            .await;
        value
            .as_array()
            .map(|handles| {
                handles
                    .iter()
                    .filter_map(|h| h.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub async fn window_handle(&self) -> String {
        let value = self
            .call(reqwest::Method::GET, &self.session_path("/window"), None)
            .await;
        value.as_str().unwrap_or_default().to_string()
    }

    pub async fn switch_to(&self, handle: &str) {
        self.call(
            reqwest::Method::POST,
            &self.session_path("/window"),
            Some(json!({"handle": handle})),
        )
        .await;
    }

    /// Saves a PNG of the viewport to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let value = self
            .call(
                reqwest::Method::GET,
                &self.session_path("/screenshot"),
                None,
            )
            .await;
        let png = decode_base64(value.as_str().expect("base64 screenshot"));
        std::fs::write(path, png).expect("write screenshot");
    }
}

impl Browser {
    /// Ends the session (the browser exits), then the driver.
    pub async fn quit(self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.base, self.session))
            .send()
            .await;
    }
}

/// Standard base64 (WebDriver's screenshots), without pulling in a crate for it.
fn decode_base64(text: &str) -> Vec<u8> {
    fn value(c: u8) -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    }
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits =
            chunk.iter().fold(0u32, |acc, c| (acc << 6) | value(*c)) << (6 * (4 - chunk.len()));
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the driver ends the browser it started; the profile folder goes with the
        // value.
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[test]
fn base64_decodes_with_and_without_padding() {
    assert_eq!(decode_base64("aGk="), b"hi");
    assert_eq!(decode_base64("aGk"), b"hi");
    assert_eq!(decode_base64("aGVsbG8h"), b"hello!");
    assert_eq!(decode_base64("+/8="), [0xfb, 0xff]);
}
