//! The browser tests' handle on headless Chromium: ChromeDriver started per browser with a
//! fresh profile, driven over W3C WebDriver by `thirtyfour`.
//!
//! Chromium and ChromeDriver come from the Debian packages `chromium` and `chromium-driver`.
//! Without them the browser tests fail, unless the developer opted out
//! (`STOREFRONT_TEST_SKIP=browser`, see [`crate::skips`]), like the PostgreSQL variants.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thirtyfour::prelude::*;
use thirtyfour::{ChromiumLikeCapabilities, WindowHandle};

pub const PHONE: (u32, u32) = (390, 844);
pub const LAPTOP: (u32, u32) = (1366, 900);
/// What a browser started at [`PHONE`] size says it is, so the shop lays pages out for a phone
/// (the order page puts installing on that phone first).
pub const PHONE_USER_AGENT: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) \
    AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

fn find_binary(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Fails the test with what WebDriver said about `doing`.
trait Expect<T> {
    fn or_fail(self, doing: &str) -> T;
}

impl<T> Expect<T> for WebDriverResult<T> {
    #[track_caller]
    fn or_fail(self, doing: &str) -> T {
        self.unwrap_or_else(|err| panic!("WebDriver {doing}: {err}"))
    }
}

/// A Chromium session through its own ChromeDriver and a fresh profile; both end with it.
pub struct Browser {
    driver: Child,
    /// `None` once quit.
    session: Option<WebDriver>,
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
        let base = format!("http://127.0.0.1:{port}");
        wait_for_driver(&base).await;
        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(&chromium.display().to_string())
            .or_fail("chromium binary");
        let size_arg = format!("--window-size={},{}", size.0, size.1);
        let profile_arg = format!("--user-data-dir={}", profile.path().display());
        let phone_arg = format!("--user-agent={PHONE_USER_AGENT}");
        let phone = (size == PHONE).then_some(phone_arg.as_str());
        let args = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &size_arg,
            &profile_arg,
        ];
        for arg in args.iter().chain(phone.iter()).chain(extra_args) {
            caps.add_arg(arg).or_fail("chromium argument");
        }
        let session = WebDriver::new(base, caps).await.or_fail("new session");
        Some(Self {
            driver,
            session: Some(session),
            _profile: profile,
        })
    }

    fn session(&self) -> &WebDriver {
        self.session.as_ref().expect("a live session")
    }

    pub async fn goto(&self, url: &str) {
        self.session().goto(url).await.or_fail("goto");
    }

    pub async fn current_url(&self) -> String {
        self.session()
            .current_url()
            .await
            .or_fail("current url")
            .to_string()
    }

    /// The first element matching `css`.
    async fn find(&self, css: &str) -> WebElement {
        self.session()
            .find(By::Css(css))
            .await
            .unwrap_or_else(|err| panic!("no element for {css}: {err}"))
    }

    pub async fn click(&self, css: &str) {
        self.find(css).await.click().await.or_fail("click");
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        self.find(css).await.send_keys(text).await.or_fail("type");
    }

    pub async fn source(&self) -> String {
        self.session().source().await.or_fail("page source")
    }

    /// The visible text of the first element matching `css`.
    pub async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.or_fail("text")
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

    /// [`Self::execute`] with `arguments` (a JSON array) for the script.
    pub async fn execute_with(&self, script: &str, arguments: Value) -> Value {
        let arguments = match arguments {
            Value::Array(items) => items,
            other => vec![other],
        };
        self.session()
            .execute(script, arguments)
            .await
            .or_fail("script")
            .json()
            .clone()
    }

    /// Runs `script` (a function body whose last argument is the callback to call with the
    /// result) in the page and returns what it passed to the callback.
    pub async fn execute_async(&self, script: &str) -> Value {
        self.session()
            .execute_async(script, Vec::new())
            .await
            .or_fail("async script")
            .json()
            .clone()
    }

    /// Types `keys` into the element that has the focus (WebDriver key codes such as
    /// `\u{E007}`, Enter, included).
    pub async fn keys_to_focused(&self, keys: &str) {
        self.session()
            .active_element()
            .await
            .or_fail("focused element")
            .send_keys(keys)
            .await
            .or_fail("keys");
    }

    /// Deletes every cookie of the current site: the browser becomes another device.
    pub async fn delete_cookies(&self) {
        self.session()
            .delete_all_cookies()
            .await
            .or_fail("delete cookies");
    }

    /// A screenshot that reports failure instead of failing the test: for a test that is
    /// already failing.
    pub async fn try_screenshot(&self, path: &Path) -> Result<(), String> {
        let session = self.session.as_ref().ok_or("no session")?;
        let png = session
            .screenshot_as_png()
            .await
            .map_err(|e| e.to_string())?;
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

    /// Makes the page's viewport `width` × `height`, as `--window-size` does at start: a
    /// window resized through WebDriver counts the (invisible) browser frame too, so the frame
    /// is measured and added.
    pub async fn set_size(&self, (width, height): (u32, u32)) {
        self.session()
            .set_window_rect(0, 0, width, height)
            .await
            .or_fail("window size");
        let inner = self
            .execute("return [window.innerWidth, window.innerHeight];")
            .await;
        let frame = |i: usize, want: u32| {
            let got = inner[i].as_u64().unwrap_or(u64::from(want));
            u32::try_from(u64::from(want).saturating_sub(got)).unwrap_or(0)
        };
        let (extra_w, extra_h) = (frame(0, width), frame(1, height));
        if extra_w > 0 || extra_h > 0 {
            self.session()
                .set_window_rect(0, 0, width + extra_w, height + extra_h)
                .await
                .or_fail("window size");
        }
    }

    pub async fn window_handles(&self) -> Vec<String> {
        self.session()
            .windows()
            .await
            .or_fail("window handles")
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    pub async fn window_handle(&self) -> String {
        self.session()
            .window()
            .await
            .or_fail("window handle")
            .to_string()
    }

    pub async fn switch_to(&self, handle: &str) {
        self.session()
            .switch_to_window(WindowHandle::from(handle))
            .await
            .or_fail("switch window");
    }

    /// Saves a PNG of the viewport to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let png = self
            .session()
            .screenshot_as_png()
            .await
            .or_fail("screenshot");
        std::fs::write(path, png).expect("write screenshot");
    }

    /// Saves a PNG of the whole page to `path`: for the shot the window is as tall as the
    /// document (at most 8000 px), then it gets its size back.
    pub async fn screenshot_page(&self, path: &Path) {
        let size = self
            .execute(
                "return [window.innerWidth, window.innerHeight, \
                 document.documentElement.scrollHeight];",
            )
            .await;
        let get = |i: usize| {
            size[i]
                .as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(0)
        };
        let (width, height, full) = (get(0), get(1), get(2).min(8000));
        let taller = full > height;
        if taller {
            self.set_size((width, full)).await;
        }
        self.screenshot(path).await;
        if taller {
            self.set_size((width, height)).await;
        }
    }

    /// Ends the session (the browser exits), then the driver.
    pub async fn quit(mut self) {
        if let Some(session) = self.session.take() {
            let _ = session.quit().await;
        }
    }
}

/// Waits until the ChromeDriver at `base` says it is ready.
async fn wait_for_driver(base: &str) {
    let http = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(res) = http.get(format!("{base}/status")).send().await
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

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the driver ends the browser it started; the profile folder goes with the
        // value. A session not quit (a failing test) ends with its driver: forgetting it
        // spares a blocking `DELETE` to a driver that is gone.
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        if let Some(session) = self.session.take() {
            std::mem::forget(session);
        }
    }
}
