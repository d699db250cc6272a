//! `storefront admin create-user`: the way the first owner (and every later account) comes to
//! exist. The password never appears on the command line (it would show in `ps` and shell
//! history): it is read from standard input, without echo on a terminal. `reset-totp` removes an
//! account's second factor when nobody can do it from the console.

use std::io::{BufRead, IsTerminal, Write};

use crate::config::DatabaseUrl;
use crate::db::Db;
use crate::staff::{self, AccountsError, NewPassword, Role};

use super::CliError;

pub async fn create_user(url: DatabaseUrl, email: &str, role: &str) -> Result<(), CliError> {
    let email = staff::admin_email(email).map_err(|e| CliError::Input(format!("--email: {e}")))?;
    let role = Role::parse(role)
        .ok_or_else(|| CliError::Input("--role must be owner or support".into()))?;
    let password = read_password()?;
    let password = NewPassword::parse(&password)
        .map_err(|e| CliError::Input(format!("password refused: {e}")))?;
    let db = Db::open_for_command(&url, 2)?;
    super::patiently(db.migrate()).await?;
    match super::patiently(staff::create_user(&db, &email, role, password, "cli")).await {
        Ok(_) => {
            println!("created {role} account {}", email.as_str());
            let required = staff::totp::is_required_for_all(&staff::Staff::new(db.clone())).await?;
            println!(
                "two-factor sign-in (TOTP): not set up; {}",
                if required {
                    "required for every account, so the console asks for it right after the first login"
                } else {
                    "set it up in the console under \"Your account\" (owners should)"
                }
            );
            Ok(())
        }
        Err(AccountsError::EmailTaken) => Err(CliError::Input(format!(
            "an account with the email {} already exists",
            email.as_str()
        ))),
        Err(AccountsError::Db(e)) => Err(CliError::Db(e)),
        Err(other) => Err(CliError::Io(other.to_string())),
    }
}

/// `storefront admin reset-totp`: removes the account's TOTP and recovery codes.
pub async fn reset_totp(url: DatabaseUrl, email: &str) -> Result<(), CliError> {
    let email = staff::admin_email(email).map_err(|e| CliError::Input(format!("--email: {e}")))?;
    let db = Db::open_for_command(&url, 2)?;
    super::patiently(db.migrate()).await?;
    match super::patiently(staff::totp::reset_from_cli(&db, email.as_str())).await? {
        None => Err(CliError::Input(format!(
            "there is no account with the email {}",
            email.as_str()
        ))),
        Some(had) => {
            if had {
                println!(
                    "two-factor sign-in of {} removed and its sessions ended; it sets up a new authenticator at its next login",
                    email.as_str()
                );
            } else {
                println!(
                    "{} had no two-factor sign-in; its sessions were ended",
                    email.as_str()
                );
            }
            Ok(())
        }
    }
}

/// One line from standard input; on a terminal, asked twice without echo.
fn read_password() -> Result<String, CliError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::Io(format!("cannot read the password from stdin: {e}")))?;
        return Ok(trim_newline(line));
    }
    let first = prompt("Password (at least 12 characters): ")?;
    let second = prompt("Repeat the password: ")?;
    if first != second {
        return Err(CliError::Input("the two passwords differ".into()));
    }
    Ok(first)
}

fn trim_newline(mut line: String) -> String {
    while line.ends_with('\n') || line.ends_with('\r') {
        line.pop();
    }
    line
}

fn prompt(label: &str) -> Result<String, CliError> {
    let mut stderr = std::io::stderr();
    let _ = stderr.write_all(label.as_bytes());
    let _ = stderr.flush();
    let echo_off = set_echo(false);
    let mut line = String::new();
    let read = std::io::stdin().lock().read_line(&mut line);
    if echo_off {
        set_echo(true);
    }
    let _ = stderr.write_all(b"\n");
    read.map_err(|e| CliError::Io(format!("cannot read the password: {e}")))?;
    Ok(trim_newline(line))
}

/// Turns terminal echo on or off with `stty` (on the terminal that is our stdin); false when
/// that is not possible, in which case the password is typed visibly.
fn set_echo(on: bool) -> bool {
    std::process::Command::new("stty")
        .arg(if on { "echo" } else { "-echo" })
        .stdin(std::process::Stdio::inherit())
        .status()
        .is_ok_and(|s| s.success())
}
