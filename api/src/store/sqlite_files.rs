//! The SQLite database's files are the owner's only: they hold password hashes, addresses
//! and webhook secrets. A directory made for the database is created 0700, the database
//! file is created 0600 before SQLite opens it, and its `-wal`, `-shm` and `-journal`
//! files (which SQLite creates with the main file's permissions) are set 0600 too; the
//! modes are set explicitly, whatever the process's umask. For the embedded development
//! default (`./data`), a directory or files left readable by others by an older version
//! are tightened the same way.

use std::io;
use std::path::Path;

/// The files beside the database SQLite may create.
const SIDECARS: &[&str] = &["-wal", "-shm", "-journal"];

/// Creates the database's directory (0700) and file (0600) if missing; with `tighten`,
/// also takes the group's and others' access away from existing ones.
pub fn prepare(db: &Path, tighten: bool) -> io::Result<()> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            create_dir_owner_only(dir)?;
        } else if tighten {
            set_mode(dir, 0o700)?;
        }
    }
    match create_file_owner_only(db) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if tighten {
                set_mode(db, 0o600)?;
            }
        }
        Err(e) => return Err(e),
    }
    if tighten {
        sidecars_owner_only(db)?;
    }
    Ok(())
}

/// Sets the database's `-wal`, `-shm` and `-journal` files, those that exist, to 0600.
pub fn sidecars_owner_only(db: &Path) -> io::Result<()> {
    for suffix in SIDECARS {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let path = Path::new(&name);
        if path.exists() {
            set_mode(path, 0o600)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn create_dir_owner_only(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    // Parents made on the way get the usual mode; the database's own directory is 0700.
    if let Some(parent) = dir.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => set_mode(dir, 0o700),
        // Made by another start a moment ago.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(not(unix))]
fn create_dir_owner_only(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Creates an empty file 0600 (SQLite takes an empty file as a new database);
/// `AlreadyExists` if there is one.
#[cfg(unix)]
fn create_file_owner_only(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    set_mode(path, 0o600)
}

#[cfg(not(unix))]
fn create_file_owner_only(path: &Path) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map(|_| ())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path)?;
    if meta.permissions().mode() & 0o777 != mode {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn new_files_are_the_owners_and_old_ones_are_tightened() {
        let root = std::env::temp_dir().join(format!("djambi-files-{}", uuid::Uuid::new_v4()));
        let db = root.join("data").join("djambi.sqlite");
        prepare(&db, false).unwrap();
        assert_eq!(mode(&root.join("data")), 0o700);
        assert_eq!(mode(&db), 0o600);
        assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);

        // Left open by an older version: tightened only when asked.
        std::fs::set_permissions(root.join("data"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
        let wal = root.join("data").join("djambi.sqlite-wal");
        std::fs::write(&wal, b"").unwrap();
        std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o644)).unwrap();
        prepare(&db, false).unwrap();
        assert_eq!(mode(&db), 0o644);
        prepare(&db, true).unwrap();
        assert_eq!(mode(&root.join("data")), 0o700);
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&wal), 0o600);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
