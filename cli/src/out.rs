//! Standard output of every command, through one buffered writer: when the reader of a pipe
//! has gone (`sframe-conform dump --json FILE | head -1`), the program ends at once,
//! quietly, with exit status 0, the reader having taken what it wanted.
//!
//! Commands write with [`out!`](crate::out!) and [`outln!`](crate::outln!) (in place of
//! `print!` and `println!`, which panic on a closed pipe), or hand [`stdout`] to a
//! serializer. The buffer is flushed by [`flush`], which `main` calls before it returns.

use std::io::{BufWriter, Stdout, Write};
use std::sync::{LazyLock, Mutex, MutexGuard};

static STDOUT: LazyLock<Mutex<BufWriter<Stdout>>> =
    LazyLock::new(|| Mutex::new(BufWriter::with_capacity(64 * 1024, std::io::stdout())));

/// The reader of standard output is gone: end quietly.
fn closed() -> ! {
    std::process::exit(0)
}

/// Standard output: a writer whose errors other than a closed pipe are returned, and a
/// closed pipe ends the program (see the module's documentation).
pub struct Out(MutexGuard<'static, BufWriter<Stdout>>);

/// Standard output, held until the returned writer is dropped.
pub fn stdout() -> Out {
    Out(STDOUT.lock().unwrap_or_else(|p| p.into_inner()))
}

fn guard<T>(r: std::io::Result<T>) -> std::io::Result<T> {
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => closed(),
        r => r,
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        guard(self.0.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        guard(self.0.flush())
    }
}

/// Write formatted text (the [`out!`](crate::out!) macro's body). An I/O error other than
/// a closed pipe (a full disk) is reported on stderr and ends the program with status 2.
pub fn print(args: std::fmt::Arguments<'_>) {
    if let Err(e) = stdout().write_fmt(args) {
        failed(&e)
    }
}

/// Flush standard output (before `main` returns: statics are not dropped).
pub fn flush() {
    if let Err(e) = stdout().flush() {
        failed(&e)
    }
}

/// Standard output failed other than by a closed pipe: say so and end.
pub fn failed(e: &dyn std::fmt::Display) -> ! {
    eprintln!("sframe-conform: cannot write to standard output: {e}");
    std::process::exit(2)
}

/// Serialize `v` as pretty JSON onto standard output, streaming (no intermediate string).
pub fn json<T: serde::Serialize + ?Sized>(v: &T) {
    let mut w = stdout();
    if let Err(e) = serde_json::to_writer_pretty(&mut w, v) {
        failed(&e)
    }
    if let Err(e) = w.write_all(b"\n") {
        failed(&e)
    }
}

/// `print!` onto [`stdout`](crate::out::stdout).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::out::print(format_args!($($arg)*)) };
}

/// `println!` onto [`stdout`](crate::out::stdout).
#[macro_export]
macro_rules! outln {
    () => { $crate::out::print(format_args!("\n")) };
    ($($arg:tt)*) => {{
        $crate::out::print(format_args!($($arg)*));
        $crate::out::print(format_args!("\n"));
    }};
}

/// A JSON object whose first member, an array, is written one element at a time:
/// `{"files": [ELEMENT, ...], "more": ...}`. Memory holds one element, never the array.
pub struct JsonStream {
    first: bool,
}

impl JsonStream {
    /// Start the object and its array member `key`.
    pub fn begin(key: &str) -> JsonStream {
        let key = serde_json::to_string(key).unwrap_or_default();
        print(format_args!("{{\n  {key}: [\n"));
        JsonStream { first: true }
    }

    /// One element of the array.
    pub fn item<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        let mut w = stdout();
        let sep: &[u8] = if self.first { b"" } else { b",\n" };
        self.first = false;
        if let Err(e) = w.write_all(sep) {
            failed(&e)
        }
        if let Err(e) = serde_json::to_writer_pretty(&mut w, v) {
            failed(&e)
        }
    }

    /// End the array, write the object's other members (in order) and end the object.
    pub fn end(self, rest: &[(&str, serde_json::Value)]) {
        let mut w = stdout();
        let mut write = || -> Result<(), serde_json::Error> {
            w.write_all(b"\n  ]").map_err(serde_json::Error::io)?;
            for (k, v) in rest {
                w.write_all(b",\n  ").map_err(serde_json::Error::io)?;
                serde_json::to_writer(&mut w, k)?;
                w.write_all(b": ").map_err(serde_json::Error::io)?;
                serde_json::to_writer_pretty(&mut w, v)?;
            }
            w.write_all(b"\n}\n").map_err(serde_json::Error::io)
        };
        if let Err(e) = write() {
            failed(&e)
        }
    }
}
