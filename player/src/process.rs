//! A search-worker process seen from the player, whatever it serves
//! (`crate::remote`'s search, `crate::unseen`'s GDL-II beliefs): started
//! with piped standard streams, told one line at a time, and killed with
//! its match.

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A search-worker process started with piped standard streams (its
/// standard error the player's): lines are sent to it, and it is killed
/// when dropped, so it never outlives its match.
pub struct WorkerProcess {
    child: Child,
    stdin: ChildStdin,
}

impl WorkerProcess {
    /// Starts `binary` with `args`; the process and its standard output.
    pub fn spawn<S: AsRef<OsStr>>(
        binary: &Path,
        args: impl IntoIterator<Item = S>,
    ) -> Result<(Self, ChildStdout), String> {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", binary.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("the worker's streams are not piped".into());
        };
        Ok((WorkerProcess { child, stdin }, stdout))
    }

    /// Sends `line` (ending in a newline); a worker gone is said on the
    /// standard error.
    pub fn send(&mut self, line: &str) {
        if let Err(e) = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
        {
            eprintln!("gdlc-player: the compiled search worker is gone: {e}");
        }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
