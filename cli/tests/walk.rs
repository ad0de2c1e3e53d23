//! Every command that takes `FILE|DIR...` on a directory of every kind of file: each file is
//! reported, nothing stops the walk, and the exit status is the README's (0 clean, 1 a file
//! unreadable while others were read, 2 when no file had SFrame). A closed stdout pipe ends
//! the program quietly.
//!
//! Expected counts come from the files each test makes: one raw SFrame section (the
//! texts' layout, `common::valid_v2`) or a corpus object for the oracle, one text file, one
//! ELF file without `.sframe` (`/bin/true`, else this test binary), one FIFO, one link to
//! a directory, and for the unreadable case a dangling symbolic link.

mod common;
use common::run;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sframe-walk-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An ELF file without `.sframe`.
fn elf_without_sframe() -> PathBuf {
    let t = PathBuf::from("/bin/true");
    if t.is_file() {
        t
    } else {
        std::env::current_exe().unwrap()
    }
}

/// A small corpus object with SFrame whose oracle run is covered by the ledger.
fn corpus_object() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf/gnu-as-2.44/amd64/start.o")
}

/// The directory every test walks: `section` (the file with SFrame, named `good`), a text
/// file, an ELF file without `.sframe`, a FIFO and a link to a directory; `dangling` adds a
/// link to nowhere.
fn tree(name: &str, section: &[u8], dangling: bool) -> PathBuf {
    let d = scratch(name);
    std::fs::write(d.join("good"), section).unwrap();
    std::fs::write(d.join("notes.txt"), b"not a section\n").unwrap();
    std::fs::copy(elf_without_sframe(), d.join("plain-elf")).unwrap();
    let fifo = Command::new("mkfifo").arg(d.join("fifo")).status().unwrap();
    assert!(fifo.success(), "mkfifo");
    std::os::unix::fs::symlink(std::env::temp_dir(), d.join("to-tmp")).unwrap();
    if dangling {
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling")).unwrap();
    }
    d
}

/// The command line of `cmd` on `dir`, with options that keep it short.
fn args<'a>(cmd: &'a str, dir: &'a str, json: bool) -> Vec<&'a str> {
    let mut a = vec![cmd];
    match cmd {
        "oracle" => a.extend(["--runs", "1", "--jobs", "1", "--producer", "gnu-as-2.44"]),
        "diff" => a.extend(["--impl", "reference"]),
        _ => {}
    }
    if json {
        a.push("--json");
    }
    a.push(dir);
    a
}

fn section_for(cmd: &str) -> Vec<u8> {
    if cmd == "oracle" {
        std::fs::read(corpus_object()).unwrap()
    } else {
        common::valid_v2()
    }
}

const COMMANDS: [&str; 4] = ["check", "dump", "diff", "oracle"];

#[test]
fn every_command_reports_every_file_of_a_tree_and_exits_0_when_all_is_clean() {
    for cmd in COMMANDS {
        let d = tree(&format!("clean-{cmd}"), &section_for(cmd), false);
        let out = run(&args(cmd, d.to_str().unwrap(), false));
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {text}\n{err}");
        // 3 files read (good, notes.txt, plain-elf); the FIFO and the link are not opened.
        assert!(
            text.contains(
                "files: 3 read, 1 with SFrame, 2 without (1 not ELF or SFrame, 1 ELF without .sframe), 0 unreadable; skipped: 1 FIFO, 1 link to a directory"
            ),
            "{cmd}: {text}"
        );
    }
}

#[test]
fn an_unreadable_file_is_listed_and_the_walk_goes_on_with_status_1() {
    for cmd in COMMANDS {
        let d = tree(&format!("dangling-{cmd}"), &section_for(cmd), true);
        let out = run(&args(cmd, d.to_str().unwrap(), false));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {text}");
        assert!(
            text.contains("files: 4 read, 1 with SFrame, 2 without (1 not ELF or SFrame, 1 ELF without .sframe), 1 unreadable"),
            "{cmd}: {text}"
        );
        let dangling = d.join("dangling");
        assert!(
            text.contains(&format!("unreadable: {}: ", dangling.display())),
            "{cmd}: {text}"
        );
        // The section after the unreadable file in walk order ("good" sorts after
        // "dangling") was still read: the report says so.
        match cmd {
            "dump" => assert!(text.contains("SFRAME_VERSION_2"), "{text}"),
            "oracle" => assert!(text.contains("rows checked"), "{text}"),
            _ => {}
        }

        // The same as JSON: the walk's counts, and the unreadable file with its reason.
        let out = run(&args(cmd, d.to_str().unwrap(), true));
        assert_eq!(out.status.code(), Some(1), "{cmd} --json");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{cmd} --json: {e}: {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        let w = &v["walk"];
        assert_eq!(w["files"], 4, "{cmd}: {w}");
        assert_eq!(w["with_sframe"], 1, "{cmd}: {w}");
        assert_eq!(w["no_sframe"]["not-elf-or-sframe"], 1, "{cmd}: {w}");
        assert_eq!(w["no_sframe"]["no-sframe-section"], 1, "{cmd}: {w}");
        assert_eq!(w["skipped"]["fifo"], 1, "{cmd}: {w}");
        assert_eq!(
            w["unreadable"][0]["path"],
            dangling.to_str().unwrap(),
            "{cmd}: {w}"
        );
        if cmd != "diff" {
            assert_eq!(v["files"].as_array().map(Vec::len), Some(1), "{cmd}: {v}");
        }
    }
}

#[test]
fn a_directory_that_cannot_be_listed_is_reported_not_fatal() {
    // As root every directory can be listed: say so rather than pass silently.
    let probe = scratch("probe-root");
    std::fs::create_dir(probe.join("locked")).unwrap();
    set_mode(&probe.join("locked"), 0o000);
    let root = std::fs::read_dir(probe.join("locked")).is_ok();
    set_mode(&probe.join("locked"), 0o755);
    if root {
        eprintln!("SKIPPED: running as root, a mode-000 directory can still be listed (the dangling-link test covers unreadable entries)");
        return;
    }
    let d = tree("locked", &common::valid_v2(), false);
    std::fs::create_dir(d.join("locked")).unwrap();
    set_mode(&d.join("locked"), 0o000);
    let out = run(&["check", d.to_str().unwrap()]);
    set_mode(&d.join("locked"), 0o755);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("unreadable: {}: ", d.join("locked").display())),
        "{text}"
    );
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_tree_without_sframe_exits_2_after_reporting_every_file() {
    let d = scratch("none");
    std::fs::write(d.join("notes.txt"), b"text").unwrap();
    std::fs::copy(elf_without_sframe(), d.join("plain-elf")).unwrap();
    for cmd in ["check", "dump", "diff"] {
        let out = run(&args(cmd, d.to_str().unwrap(), false));
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {text}");
        assert!(
            text.contains("files: 2 read, 0 with SFrame, 2 without (1 not ELF or SFrame, 1 ELF without .sframe), 0 unreadable"),
            "{cmd}: {text}"
        );
        assert!(
            err.contains("no SFrame section in 2 file(s)"),
            "{cmd}: {err}"
        );
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

/// Run the command with stdout a pipe that is closed after its first line.
fn first_line_then_close(args: &[&str]) -> (Option<i32>, String, String) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    {
        let mut r = std::io::BufReader::new(child.stdout.take().unwrap());
        r.read_line(&mut line).unwrap();
        // Dropping the reader closes the pipe's read end.
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        line,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    // The same section named 2000 times: far more output than a pipe's buffer holds.
    let d = scratch("pipe");
    let p = d.join("good.sframe");
    std::fs::write(&p, common::valid_v2()).unwrap();
    let p = p.to_str().unwrap();
    for cmd in [["dump", "--json"], ["dump", "--"], ["check", "--verbose"]] {
        let mut a: Vec<&str> = cmd.iter().copied().filter(|a| *a != "--").collect();
        a.extend(std::iter::repeat_n(p, 2000));
        let (code, first, err) = first_line_then_close(&a);
        assert!(!first.is_empty(), "{cmd:?}: no output at all");
        assert_eq!(code, Some(0), "{cmd:?}: {err}");
        assert_eq!(err, "", "{cmd:?}");
    }
}
