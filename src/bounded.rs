//! Bounded reads of the files a user names: configs, study files,
//! checkpoints, test sets, a run's logs and records. Every input is opened
//! without blocking and checked to be a regular file before a byte is read,
//! so a FIFO, a device or a socket at an input's path is refused at once
//! (a FIFO would hang the open, `/dev/zero` would be read until memory runs
//! out), and no file is read past the size its kind may have.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("bounded-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("small.txt");
//! std::fs::write(&path, "twelve bytes").unwrap();
//! assert_eq!(cube_oracle::bounded::read_regular(&path, 12).unwrap(), b"twelve bytes");
//! // Over its cap, a file is refused, not cut.
//! let e = cube_oracle::bounded::read_regular(&path, 11).unwrap_err();
//! assert!(e.to_string().contains("more than the 11 bytes"));
//! // A device is not a regular file.
//! let e = cube_oracle::bounded::read_regular(std::path::Path::new("/dev/zero"), 1 << 20).unwrap_err();
//! assert!(e.to_string().contains("a device, not a regular file"));
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// What the file type `t` is, in words, where it is not a regular file.
#[must_use]
pub fn not_regular(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_block_device() || t.is_char_device() {
        Some("a device")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("not a regular file")
    }
}

/// Opens `path` for reading if it is a regular file (following symbolic
/// links), without blocking on a FIFO.
///
/// # Errors
/// The open fails, or what is there is not a regular file
/// (`InvalidInput`, naming what it is).
pub fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = not_regular(meta.file_type()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{kind}, not a regular file")));
    }
    // A regular file never blocks; clear the flag for ordinary reads.
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    Ok(file)
}

/// The bytes of regular file `path`, at most `cap` of them.
///
/// # Errors
/// As [`open_regular`], or the file holds more than `cap` bytes
/// (`InvalidData`, stating the cap), or reading fails.
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let too_big = || io::Error::new(io::ErrorKind::InvalidData, format!("it holds more than the {cap} bytes allowed"));
    if file.metadata()?.len() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
///
/// # Errors
/// As [`read_regular`], or the bytes are not UTF-8 (`InvalidData`).
pub fn read_regular_text(path: &Path, cap: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, cap)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text ({e})")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifos_devices_and_folders_are_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer ever opens it: a blocking open would hang here.
        let e = read_regular(&fifo, 100).unwrap_err().to_string();
        assert!(e.contains("a FIFO, not a regular file"), "{e}");
        let e = read_regular(Path::new("/dev/zero"), 100).unwrap_err().to_string();
        assert!(e.contains("a device"), "{e}");
        let e = read_regular(&dir, 100).unwrap_err().to_string();
        assert!(e.contains("a directory"), "{e}");
        let file = dir.join("f");
        std::fs::write(&file, [0u8; 10]).unwrap();
        assert_eq!(read_regular(&file, 10).unwrap().len(), 10);
        assert!(read_regular(&file, 9).unwrap_err().to_string().contains("more than the 9 bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
