//! `sframe-conform report`: the exit status and messages around the reports
//! (`harness/tests/reports.rs` checks the reports themselves).

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .arg("report")
        .args(args)
        .output()
        .expect("run sframe-conform");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_present_bug_gets_its_report_in_either_format() {
    let (code, out, err) = run(&["F0180", "--format", "bugzilla"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Summary: gas: "), "{out}");
    assert!(out.contains("as --gsframe repro.s -o repro.o"));
    assert!(!out.contains("```"), "bugzilla text is plain");
    let (code, md, _) = run(&["F0180"]);
    assert_eq!(code, 0);
    assert!(md.starts_with("# gas: ") && md.contains("```sh"));
}

#[test]
fn findings_that_are_no_open_bug_are_refused_one_line_each_with_status_1() {
    // F0006: a spec ambiguity; F0101: fixed upstream; F0180: a report.
    let (code, out, err) = run(&["F0006", "F0101", "F0180"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("F0006") && lines[0].contains("spec-ambiguity"));
    assert!(lines[1].contains("F0101") && lines[1].contains("not present"));
    assert!(out.contains("# gas: "), "the eligible one is still written");
    let (code, _, err) = run(&["F9999"]);
    assert_eq!(code, 1);
    assert!(err.contains("F9999: no such finding"));
}

#[test]
fn usage_errors_are_status_2() {
    assert_eq!(run(&[]).0, 2);
    assert_eq!(run(&["F0180", "--all"]).0, 2);
    assert_eq!(run(&["F0180", "--format", "html"]).0, 2);
}

#[test]
fn out_writes_one_file_per_report() {
    let dir = std::env::temp_dir().join(format!("sframe-report-out-{}", std::process::id()));
    let (code, out, err) = run(&[
        "F0180",
        "F0201",
        "--format",
        "bugzilla",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2);
    assert!(names[0].starts_with("F0180-") && names[0].ends_with(".txt"));
    std::fs::remove_dir_all(&dir).unwrap();
}
