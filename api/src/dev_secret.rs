//! The development JWT secret of the embedded default.
//!
//! When `DATABASE_URL` is unset (the embedded SQLite file) and `DJAMBI_JWT_SECRET` too, the
//! server signs access tokens with a secret kept in `jwt-secret` beside the SQLite file: made
//! once from the OS's random source, written with owner-only permissions (0600), and read
//! back on every later start, so restarting `cargo run --release` does not log everyone
//! out. Production sets `DJAMBI_JWT_SECRET` (and `DATABASE_URL`) and never gets here.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{Config, MIN_JWT_SECRET_BYTES, Secret, SecretSource};

/// The file name, in the SQLite file's directory.
pub const FILE_NAME: &str = "jwt-secret";

/// Where the development secret of a configuration lives (`None` unless the configuration
/// is the embedded default without a configured secret).
pub fn path_for(config: &Config) -> Option<PathBuf> {
    if !config.database.is_embedded_default
        || config.jwt_secret_source != SecretSource::GeneratedForDevelopment
    {
        return None;
    }
    Some(path_for_database(&config.database.url))
}

/// The `jwt-secret` file beside an SQLite database file.
pub fn path_for_database(sqlite_path: &str) -> PathBuf {
    let db = Path::new(sqlite_path);
    let dir = db.parent().filter(|d| !d.as_os_str().is_empty());
    dir.unwrap_or(Path::new(".")).join(FILE_NAME)
}

/// On the embedded default, replaces the random per-start secret with the stored one
/// (creating it on first use). Does nothing otherwise. Call after the SQLite file's
/// directory exists.
pub fn apply(config: &mut Config) -> Result<(), String> {
    let Some(path) = path_for(config) else {
        return Ok(());
    };
    let secret = load_or_create(&path, config.jwt_secret.expose())?;
    config.jwt_secret = Secret::new(secret);
    config.jwt_secret_source = SecretSource::StoredForDevelopment;
    Ok(())
}

/// The development VAPID key's file name, beside the SQLite file.
pub const VAPID_FILE_NAME: &str = "vapid-private-key";

/// On the embedded default without `DJAMBI_VAPID_PRIVATE_KEY`, a Web Push key made once
/// and kept in `vapid-private-key` beside the SQLite file (like the JWT secret), so the
/// browsers' subscriptions survive restarts. Does nothing otherwise.
pub fn apply_vapid(config: &mut Config) -> Result<(), String> {
    use crate::config::parse::{Parse, VapidKey};
    if !config.database.is_embedded_default || config.notify.vapid.is_some() {
        return Ok(());
    }
    let path = path_for_database(&config.database.url).with_file_name(VAPID_FILE_NAME);
    let fresh = {
        use base64::Engine;
        let key = p256::SecretKey::random(&mut rand::rngs::OsRng);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key.to_bytes())
    };
    let text = load_or_create(&path, &fresh)?;
    let private_key = VapidKey::parse(&text)
        .map_err(|e| format!("the development VAPID key `{}`: {e}", path.display()))?;
    config.notify.vapid = Some(crate::config::notify::VapidConfig {
        private_key,
        subject: config.notify.vapid_subject.clone(),
        generated: true,
    });
    Ok(())
}

/// Reads the secret at `path`, or writes `fresh` there (0600, created exclusively, so two
/// processes starting at once agree on one) and returns it.
pub fn load_or_create(path: &Path, fresh: &str) -> Result<String, String> {
    let shown = path.display();
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode_owner_only()
        .open(path)
    {
        Ok(mut file) => {
            file.write_all(fresh.as_bytes())
                .and_then(|()| file.write_all(b"\n"))
                .and_then(|()| file.sync_all())
                .map_err(|e| format!("cannot write the development secret `{shown}`: {e}"))?;
            tracing::info!(path = %shown, "development secret created (owner-only file)");
            return Ok(fresh.to_string());
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(format!(
                "cannot create the development secret `{shown}`: {e}"
            ));
        }
    }
    // Written by another start a moment ago: wait for its content.
    for _ in 0..50 {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the development secret `{shown}`: {e}"))?;
        let secret = text.trim();
        if secret.len() >= MIN_JWT_SECRET_BYTES {
            warn_if_readable_by_others(path);
            tracing::info!(path = %shown, "development secret loaded");
            return Ok(secret.to_string());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Err(format!(
        "the development secret `{shown}` is shorter than {MIN_JWT_SECRET_BYTES} bytes: \
         delete it to have a new one made"
    ))
}

trait OwnerOnly {
    fn mode_owner_only(&mut self) -> &mut Self;
}

impl OwnerOnly for std::fs::OpenOptions {
    #[cfg(unix)]
    fn mode_owner_only(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
    #[cfg(not(unix))]
    fn mode_owner_only(&mut self) -> &mut Self {
        self
    }
}

#[cfg(unix)]
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        tracing::warn!(
            path = %path.display(),
            "the development JWT secret is readable by other users (chmod 600 it)"
        );
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_: &Path) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedded(dir: &Path) -> Config {
        let url = format!("sqlite://{}", dir.join("djambi.sqlite").display());
        let mut c = Config::from_lookup(|_| None).unwrap();
        let (path, _) = crate::config::parse_database_url(&url).unwrap();
        c.database.url = path;
        c
    }

    #[test]
    fn the_secret_survives_a_restart_and_is_owner_only() {
        let dir = std::env::temp_dir().join(format!("djambi-dev-secret-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = embedded(&dir);
        apply(&mut first).unwrap();
        assert_eq!(first.jwt_secret_source, SecretSource::StoredForDevelopment);
        let mut second = embedded(&dir);
        assert_ne!(
            second.jwt_secret, first.jwt_secret,
            "each parse makes a random one"
        );
        apply(&mut second).unwrap();
        assert_eq!(second.jwt_secret, first.jwt_secret);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(FILE_NAME))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn configured_secrets_and_databases_use_no_file() {
        let secret = "0123456789abcdef0123456789abcdef";
        let c = Config::from_lookup(|k| (k == "DJAMBI_JWT_SECRET").then(|| secret.into())).unwrap();
        assert_eq!(path_for(&c), None);
        let c = Config::from_lookup(|k| match k {
            "DJAMBI_JWT_SECRET" => Some(secret.into()),
            "DATABASE_URL" => Some("postgres://x@localhost/db".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(path_for(&c), None);
    }
}
