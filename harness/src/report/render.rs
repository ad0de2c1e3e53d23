//! A prepared report as text: Markdown (the committed `report.md`, GitHub issues) or plain
//! fixed-width text for binutils' bugzilla (prose wrapped at 72 columns, commands and
//! outputs verbatim so that they paste back into a shell).

use super::{release, Content, Prepared, Project};
use crate::signature::Signal;
use crate::upstream_status::UpstreamStatus;

/// The output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Bugzilla,
}

impl Format {
    pub fn from_name(s: &str) -> Option<Format> {
        match s {
            "markdown" => Some(Format::Markdown),
            "bugzilla" => Some(Format::Bugzilla),
            _ => None,
        }
    }
    /// The file extension of a report written to a directory.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Bugzilla => "txt",
        }
    }
}

/// Builds the text block by block, in either format.
struct Doc {
    format: Format,
    out: String,
}

impl Doc {
    fn heading(&mut self, s: &str) {
        match self.format {
            Format::Markdown => self.out.push_str(&format!("## {s}\n\n")),
            Format::Bugzilla => {
                self.out
                    .push_str(&format!("{s}\n{}\n\n", "-".repeat(s.chars().count())));
            }
        }
    }
    fn para(&mut self, s: &str) {
        match self.format {
            Format::Markdown => self.out.push_str(&format!("{}\n\n", s.trim())),
            Format::Bugzilla => self.out.push_str(&format!("{}\n\n", wrap(s.trim(), 72))),
        }
    }
    /// Verbatim text: a fenced block in Markdown, the lines as they are in bugzilla.
    fn code(&mut self, lang: &str, s: &str) {
        let body = s.trim_end_matches('\n');
        match self.format {
            Format::Markdown => {
                let fence = if body.contains("```") { "````" } else { "```" };
                self.out
                    .push_str(&format!("{fence}{lang}\n{body}\n{fence}\n\n"));
            }
            Format::Bugzilla => self.out.push_str(&format!("{body}\n\n")),
        }
    }
    /// Inline code.
    fn ic(&self, s: &str) -> String {
        match self.format {
            Format::Markdown => format!("`{s}`"),
            Format::Bugzilla => s.to_string(),
        }
    }
}

/// Greedy word wrap at `width` columns, paragraph breaks (blank lines) kept.
pub fn wrap(s: &str, width: usize) -> String {
    let mut out = Vec::new();
    for para in s.split("\n\n") {
        let mut lines: Vec<String> = Vec::new();
        let mut line = String::new();
        for w in para.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
        }
        if !line.is_empty() {
            lines.push(line);
        }
        out.push(lines.join("\n"));
    }
    out.join("\n\n")
}

/// Standard base64 (RFC 4648, with padding), 76 characters a line, as `base64` writes it.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(c.get(1).copied().unwrap_or(0)) << 8)
            | u32::from(c.get(2).copied().unwrap_or(0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && i % 76 == 0 {
            out.push('\n');
        }
        out.push(ch);
    }
    out
}

/// The shell lines that write a reproducer's file.
pub fn file_script(name: &str, content: &Content) -> String {
    match content {
        Content::Text(t) => {
            let mut marker = "EOF".to_string();
            while t.lines().any(|l| l == marker) {
                marker.push('_');
            }
            let body = if t.ends_with('\n') {
                t.clone()
            } else {
                format!("{t}\n")
            };
            format!("cat > {name} <<'{marker}'\n{body}{marker}\n")
        }
        Content::Binary(b) => format!("base64 -d > {name} <<'EOF'\n{}\nEOF\n", base64(b)),
    }
}

/// The tools of `project` a reproducer needs, named as the report names them.
fn tool_names(p: &Prepared) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for s in &p.input.steps {
        if let Some(t) = s.run.first() {
            if !t.starts_with("./") && !names.contains(t) {
                names.push(t.clone());
            }
        }
    }
    names
}

fn releases_line(p: &Prepared) -> String {
    let project = p.input.project;
    let parts: Vec<String> = p
        .input
        .releases
        .iter()
        .filter_map(|r| release(project, r))
        .map(|r| match project {
            Project::Binutils => {
                format!("binutils {} (Debian {} {})", r.release, r.suite, r.debian)
            }
            Project::Llvm => format!(
                "LLVM {} (Debian {} llvm-{} {})",
                r.release, r.suite, r.release, r.debian
            ),
            Project::SimpleFrameRs => format!("simple-frame-rs {} ({})", r.release, r.suite),
            Project::Glibc => format!(
                "glibc {} (Debian {} source {})",
                r.release, r.suite, r.debian
            ),
        })
        .collect();
    parts.join(", ")
}

/// Releases grouped by identical output of one step, in the input's order.
fn grouped<'a>(
    p: &'a Prepared,
    step: &'a super::Step,
) -> Vec<(Vec<&'a str>, &'a [String], Signal)> {
    let mut groups: Vec<(Vec<&str>, &[String], Signal)> = Vec::new();
    for r in &p.input.releases {
        let shows = step.shows_on(r);
        let status = step.status_on(r);
        if shows.is_empty() && status == Signal::Exit(0) {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(_, s, st)| *s == shows && *st == status)
        {
            Some((rs, _, _)) => rs.push(r),
            None => groups.push((vec![r.as_str()], shows, status)),
        }
    }
    groups
}

/// `ends with exit 1`, `ends with signal 11 (SIGSEGV)`: a signal's number with its name.
fn status_words(status: &Signal) -> String {
    match status {
        Signal::Number(n) => match Signal::from_number(*n) {
            named @ Signal::Named(_) => format!("ends with {status} ({named})"),
            _ => format!("ends with {status}"),
        },
        s => format!("ends with {s}"),
    }
}

/// The report of `p` in `format`.
pub fn render(p: &Prepared, format: Format) -> String {
    let mut d = Doc {
        format,
        out: String::new(),
    };
    let f = &p.finding;
    let input = &p.input;
    let project = input.project;
    match format {
        Format::Markdown => d.out.push_str(&format!("# {}\n\n", input.summary)),
        Format::Bugzilla => d.out.push_str(&format!("Summary: {}\n\n", input.summary)),
    }
    let tried = releases_line(p);
    let component = match project {
        Project::SimpleFrameRs => String::new(),
        // glibc's bugzilla files backtrace() and its helpers under `libc`.
        Project::Glibc => ", component libc".to_string(),
        _ => format!(", component {}", component(&input.summary)),
    };
    d.para(&format!(
        "For {}{component}. Reproduced with {tried}{}.",
        project.tracker(),
        if input.triple.is_empty() {
            String::new()
        } else {
            format!(", tools for {}", input.triple)
        }
    ));
    let newest: Vec<String> = p
        .statuses
        .iter()
        .map(|s| format!("{}: {}", s.implementation, s.newest))
        .collect();
    d.para(&format!(
        "Newest source read: {}; the lines at fault are still there (quoted below).",
        newest.join("; ")
    ));
    for s in &p.also {
        d.para(&also_read(s));
    }

    d.heading("Problem");
    d.para(&input.problem);

    d.heading("Reproducer");
    let tools = tool_names(p);
    let tools_text: Vec<String> = tools.iter().map(|t| d.ic(t)).collect();
    d.para(&format!(
        "Needs only {}{}. Each command is the same for every release listed above.",
        tools_text.join(", "),
        if p.input.files.iter().any(|f| !f.elf_from.is_empty()) {
            format!(
                " and {} (the ELF file is a minimal ELF64 executable holding one .sframe section, written by sframe-conform)",
                d.ic("base64")
            )
        } else if p.files.iter().any(|(_, c)| matches!(c, Content::Binary(_))) {
            let raw: Vec<String> = p
                .input
                .files
                .iter()
                .filter(|f| !f.bytes_from.is_empty())
                .map(|f| d.ic(&f.name))
                .collect();
            format!(
                " and {} ({} {} the raw bytes of an SFrame section, as a PT_GNU_SFRAME segment holds them)",
                d.ic("base64"),
                raw.join(", "),
                if raw.len() == 1 { "holds" } else { "each hold" }
            )
        } else {
            String::new()
        }
    ));
    if tools.iter().any(|t| t == "cargo") {
        d.para(&format!(
            "The Rust program is a Cargo project of two files ({} names {} as its binary) that depends on {}; {} fetches the crate from crates.io. It reads the raw section with {} and prints what the crate answers.",
            d.ic("Cargo.toml"),
            d.ic("main.rs"),
            d.ic("simple-frame-rs = \"=0.3.0\""),
            d.ic("cargo run"),
            d.ic("SFrameSection::from(data, 0)"),
        ));
    }
    if project == Project::Glibc {
        let rel = p.input.releases.first().map_or("", String::as_str);
        d.para(&format!(
            "Run in a directory holding the glibc {rel} source tree unpacked as {} ({} or the release tarball). The reader has no API outside libc: the C program is linked with glibc's own {}, compiled unchanged, and calls only the reader's entry points, as {} ({}) does.",
            d.ic(&format!("glibc-{rel}")),
            d.ic("apt-get source glibc"),
            d.ic("sysdeps/generic/sframe-read.c"),
            d.ic("__stacktrace_sframe"),
            d.ic("sysdeps/generic/sframe.c"),
        ));
    } else if tools.iter().any(|t| t == "gcc") {
        d.para(&format!(
            "The C program is built against the installed libsframe headers and library ({}).",
            match p.input.releases.first().map(String::as_str) {
                Some("2.40") => "Debian: binutils-dev and libbinutils for 2.40; libsframe-dev for 2.44 and later",
                _ => "Debian: libsframe-dev",
            }
        ));
    }
    let mut script = String::new();
    for (name, content) in &p.files {
        script.push_str(&file_script(name, content));
    }
    for s in &input.steps {
        script.push_str(&s.command_line());
        script.push('\n');
    }
    d.code("sh", &script);

    d.heading("Actual");
    for s in &input.steps {
        for (releases, shows, status) in grouped(p, s) {
            let rel: Vec<String> = releases
                .iter()
                .map(|r| {
                    format!(
                        "{} {r}",
                        match project {
                            Project::Binutils => "binutils",
                            Project::Llvm => "LLVM",
                            Project::SimpleFrameRs => "simple-frame-rs",
                            Project::Glibc => "glibc",
                        }
                    )
                })
                .collect();
            let what = match (shows.is_empty(), status == Signal::Exit(0)) {
                (false, true) => "prints (excerpt):".to_string(),
                (false, false) => format!("{} and prints (excerpt):", status_words(&status)),
                (true, _) => format!("{}.", status_words(&status)),
            };
            d.para(&format!(
                "{}: {} {what}",
                rel.join(", "),
                d.ic(&s.command_line())
            ));
            if !shows.is_empty() {
                d.code("", &shows.join("\n"));
            }
        }
    }
    d.para(&input.actual);

    d.heading("Expected");
    d.para(&input.expected);
    for t in &input.decided_by {
        if let Ok((source, quote)) = t.resolve() {
            d.para(&format!("{source}: \"{quote}\""));
        }
    }

    d.heading("Source lines at fault");
    let lang = match project {
        Project::SimpleFrameRs => "rust",
        _ => "c",
    };
    let quote = |d: &mut Doc, whose: String, file: &str, function: &str, lines: &str| {
        let file = d.ic(file);
        d.para(&format!("{whose}, {file}, {function}:"));
        d.code(lang, lines);
    };
    // A crate's release under test that is also the newest source read (crates.io's newest)
    // is quoted once, as the latter.
    let again = |u: &crate::ledger::Upstream| {
        project == Project::SimpleFrameRs
            && p.statuses.iter().any(|s| {
                s.tree == u.source
                    && s.lines
                        .iter()
                        .any(|l| l.file == u.file && l.function == u.function && l.lines == u.lines)
            })
    };
    for u in f
        .upstream
        .iter()
        .filter(|u| source_of(&u.source, project) && !again(u))
    {
        let whose = format!("{} ({})", u.release, u.source);
        quote(&mut d, whose, &u.file, &u.function, &u.lines);
    }
    for s in &p.statuses {
        for l in &s.lines {
            let whose = format!("Newest source, {} ({})", s.implementation, s.newest);
            quote(&mut d, whose, &l.file, &l.function, &l.lines);
        }
    }

    if !p.sanitizer.is_empty() {
        d.heading("Sanitizer report");
        for (name, text) in &p.sanitizer {
            d.para(&format!("{}:", d.ic(name)));
            d.code("", text);
        }
    }

    d.out.push_str(&format!(
        "{}Found by sframe-conform (finding {}, {}); this report is its `sframe-conform report` output.\n",
        match format {
            Format::Markdown => "---\n\n",
            Format::Bugzilla => "-- \n",
        },
        f.id.get(..5).unwrap_or(&f.id),
        p.dir
    ));
    d.out
}

/// The component a summary names: `gas` of `gas: ...`, `[MC][SFrame]` of `[MC][SFrame] ...`.
fn component(summary: &str) -> &str {
    if summary.starts_with('[') {
        let end = summary.find("] ").map_or(summary.len(), |i| i + 1);
        &summary[..end]
    } else {
        summary.split(':').next().unwrap_or_default()
    }
}

/// Whether a quoted source tree (`binutils-2.44-3`, `llvm-toolchain-23-...`) is `project`'s.
fn source_of(tree: &str, project: Project) -> bool {
    match project {
        Project::Llvm => tree.starts_with("llvm"),
        Project::Binutils => tree.starts_with("binutils"),
        Project::SimpleFrameRs => tree.starts_with("simple-frame-rs"),
        Project::Glibc => tree.starts_with("glibc"),
    }
}

/// A further source read (a development branch), with what it says: present or fixed there,
/// and what else the reading found.
fn also_read(s: &UpstreamStatus) -> String {
    let mut t = format!("Also read: {}: {}", s.newest, s.status.name());
    for (label, text) in [("by", &s.change), ("since", &s.reason)] {
        if !text.is_empty() {
            t.push_str(&format!(" ({label} {text})"));
        }
    }
    t.push('.');
    if !s.note.is_empty() {
        t.push_str(&format!(" Note: {}.", s.note.trim_end_matches('.')));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_component_is_the_summary_prefix() {
        assert_eq!(component("gas: SFrame: x"), "gas");
        assert_eq!(component("[MC][SFrame] a .cfi_x: y"), "[MC][SFrame]");
    }

    #[test]
    fn base64_is_rfc_4648() {
        // RFC 4648 §10 test vectors.
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        assert_eq!(base64(&[0u8; 60]).lines().next().map(str::len), Some(76));
    }

    #[test]
    fn wrapping_keeps_words_and_paragraphs() {
        assert_eq!(wrap("aa bb cc", 5), "aa bb\ncc");
        assert_eq!(wrap("a\n\nb", 72), "a\n\nb");
    }

    #[test]
    fn a_text_file_is_written_with_a_marker_it_does_not_hold() {
        let s = file_script("r.s", &Content::Text("EOF\nnop".into()));
        assert_eq!(s, "cat > r.s <<'EOF_'\nEOF\nnop\nEOF_\n");
    }
    #[test]
    fn a_development_branch_read_besides_says_whether_it_is_fixed_there() {
        use crate::upstream_status::{Checked, Status};
        let mut s = UpstreamStatus::new(
            "simple-frame-rs",
            Status::Fixed,
            "master abc",
            Checked::Reproducer,
        );
        s.change = "commit abc 'Fix it'".into();
        s.run = "a throw-away crate".into();
        s.note = "FRE 0 still missed.".into();
        assert_eq!(
            also_read(&s),
            "Also read: master abc: fixed (by commit abc 'Fix it'). Note: FRE 0 still missed."
        );
        let p = UpstreamStatus::new(
            "simple-frame-rs",
            Status::Present,
            "master abc",
            Checked::Reading,
        );
        assert_eq!(also_read(&p), "Also read: master abc: present.");
    }
}
