//! The folder transport: one `.eml` file per message, for `storefront demo`, development and
//! tests (`STOREFRONT_MAIL_DIR`).
//!
//! We write the files ourselves rather than use lettre's file transport so that a file appears
//! whole or not at all (written under a hidden temporary name, then renamed), names sort by
//! time (`20250102T030405123Z-<random>.eml`), and the files are readable by their owner only:
//! they hold private order links.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use rand::RngCore;

use super::MailError;

#[derive(Debug, Clone)]
pub(crate) struct DirSender {
    dir: PathBuf,
}

impl DirSender {
    /// Creates the folder (and its parents) if it is missing.
    pub(crate) fn new(dir: PathBuf) -> Result<Self, MailError> {
        fs::create_dir_all(&dir).map_err(|e| {
            MailError::Settings(format!(
                "STOREFRONT_MAIL_DIR {} cannot be created: {e}",
                dir.display()
            ))
        })?;
        Ok(Self { dir })
    }

    /// Writes `formatted` (a complete RFC 5322 message) and returns the file's path.
    pub(crate) async fn send(&self, formatted: Vec<u8>) -> Result<PathBuf, MailError> {
        let dir = self.dir.clone();
        let write_error = |source| MailError::Write {
            dir: self.dir.clone(),
            source,
        };
        tokio::task::spawn_blocking(move || write_message(&dir, &formatted))
            .await
            .map_err(|join| write_error(std::io::Error::other(join.to_string())))?
            .map_err(write_error)
    }
}

fn write_message(dir: &Path, formatted: &[u8]) -> std::io::Result<PathBuf> {
    // Recreated on every write: someone may have emptied the demo's data folder meanwhile.
    fs::create_dir_all(dir)?;
    let name = unique_name();
    let temporary = dir.join(format!(".{name}.tmp"));
    let path = dir.join(&name);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(formatted)?;
        file.sync_all()
    });
    if let Err(err) = written.and_then(|()| fs::rename(&temporary, &path)) {
        let _ = fs::remove_file(&temporary);
        return Err(err);
    }
    Ok(path)
}

/// UTC time to the millisecond for ordering, plus 64 random bits so that two messages in the
/// same millisecond, or from two processes sharing the folder, never collide.
fn unique_name() -> String {
    let now = time::OffsetDateTime::now_utc();
    let mut random = [0u8; 8];
    rand::rng().fill_bytes(&mut random);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}{:03}Z-{}.eml",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond(),
        hex::encode(random)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sortable() {
        let a = unique_name();
        let b = unique_name();
        assert_ne!(a, b);
        assert!(a.ends_with(".eml") && a.len() == "20250102T030405123Z-".len() + 16 + 4);
    }

    #[tokio::test]
    async fn creates_the_folder_and_leaves_no_temporary_files() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("nested/mail");
        let sender = DirSender::new(dir.clone()).expect("create");
        fs::remove_dir_all(&dir).expect("remove");
        let path = sender
            .send(b"Subject: hi\r\n\r\nbody\r\n".to_vec())
            .await
            .expect("write");
        let names: Vec<_> = fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert_eq!(
            fs::read(&path).expect("read"),
            b"Subject: hi\r\n\r\nbody\r\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
