use super::*;

/// The ledger's signature patterns and its untriaged signatures, as written.
fn ledger_texts() -> (Vec<String>, Vec<String>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings");
    let mut patterns = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path().join("finding.json");
        if p.is_file() {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            for s in v["signatures"].as_array().unwrap() {
                patterns.push(s.as_str().unwrap().to_string());
            }
        }
    }
    let u: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("untriaged.json")).unwrap())
            .unwrap();
    let untriaged = u["signatures"].as_array().unwrap();
    let untriaged = untriaged.iter().map(|s| s.as_str().unwrap().to_string());
    (patterns, untriaged.collect())
}

#[test]
fn every_signature_of_the_ledger_parses_and_prints_back() {
    let (patterns, untriaged) = ledger_texts();
    assert!(!patterns.is_empty());
    for s in &untriaged {
        let sig: Signature = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(&sig.to_string(), s);
    }
    for s in &patterns {
        let p: SignaturePattern = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(&p.to_string(), s);
    }
}

/// Patterns match as the string globbing they replace did, on every signature the ledger
/// and the pattern tests name.
#[test]
fn patterns_match_as_globs_did() {
    let (patterns, mut sigs) = ledger_texts();
    // The patterns with their open parts filled, as signatures.
    for p in &patterns {
        let filled = p
            .replace(":*:", ":v2:")
            .replace("v*-", "v3-pcrel-")
            .replace('*', "");
        if filled.parse::<Signature>().is_ok() {
            sigs.push(filled);
        }
    }
    let mut matched = 0;
    for s in &sigs {
        let sig: Signature = s.parse().unwrap();
        for p in &patterns {
            let typed: SignaturePattern = p.parse().unwrap();
            let glob = pattern::glob_matches(p, s);
            assert_eq!(typed.matches(&sig), glob, "{p} on {s}");
            matched += usize::from(glob);
        }
    }
    assert!(matched > 0);
}

#[test]
fn parts_are_typed() {
    let s: Signature = "crash:simple-frame-rs:v3-pcrel-aux:decode:panic:src/v3.rs:271"
        .parse()
        .unwrap();
    assert_eq!(
        s,
        Signature::Crash {
            imp: Tool {
                name: ToolKind::Known(ToolName::SimpleFrameRs),
                release: None
            },
            tag: LayoutTag {
                version: Some(sframe_spec::Version::V3),
                pcrel: true,
                aux: true,
                ..LayoutTag::default()
            },
            op: Op::Decode,
            signal: Signal::Panic,
            site: Some(CrashSite::Source("src/v3.rs:271".into())),
        }
    );
    let f: Field = "overlap.far.mask.missing.unsorted".parse().unwrap();
    assert!(f.overlap && f.far && f.mask && !f.wide && f.unsorted);
    assert_eq!(f.path, FieldPath::Missing);
    let o: Signature = "oracle:gnu-as-2.44+ld-2.44:aarch64-be:f:stack-step-error"
        .parse()
        .unwrap();
    assert!(matches!(o, Signature::Oracle { ref producer, .. } if producer.0.len() == 2));
    assert_eq!(
        "crash:libsframe-2.40:v1:decode:exit 127"
            .parse::<Signature>()
            .map(|s| s.to_string()),
        Ok("crash:libsframe-2.40:v1:decode:exit 127".to_string())
    );
}

#[test]
fn errors_name_what_is_wrong() {
    let e = |s: &str| s.parse::<Signature>().unwrap_err();
    assert_eq!(
        e("nonsense:a:b"),
        ParseError::UnknownClass("nonsense".into())
    );
    assert!(matches!(
        e("hang:libsframe-2.47:v2"),
        ParseError::Parts { .. }
    ));
    assert_eq!(
        e("hang:Frob 1:v2:decode"),
        ParseError::UnknownImplementation("Frob 1".into())
    );
    assert_eq!(
        e("hang:libsframe-2.47:v4:decode"),
        ParseError::BadTag("v4".into())
    );
    assert_eq!(
        e("hang:libsframe-2.47:v2-aux-pcrel:decode"),
        ParseError::BadTag("v2-aux-pcrel".into())
    );
    assert_eq!(
        e("hang:libsframe-2.47:v2:read"),
        ParseError::UnknownOp("read".into())
    );
    assert_eq!(
        e("diff:libsframe-2.47:v2:find_fre:mask.far.row.cfa"),
        ParseError::UnknownField("mask.far.row.cfa".into())
    );
    assert_eq!(
        e("diff:libsframe-2.47:v2:find_fre:row.cfa.unsorted"),
        ParseError::UnknownField("row.cfa.unsorted".into())
    );
    assert_eq!(
        e("accepted-invalid:libsframe-2.47:v2:invalid:NO-SUCH-RULE"),
        ParseError::UnknownRule("NO-SUCH-RULE".into())
    );
    assert_eq!(
        e("crash:libsframe-2.47:v2:decode:SEGV"),
        ParseError::UnknownSignal("SEGV".into())
    );
    let p = |s: &str| s.parse::<SignaturePattern>().unwrap_err();
    assert_eq!(
        p("diff:libsframe-2.47:v2:find_fre:row.cfa"),
        PatternError::ReaderValue
    );
    assert!(matches!(
        p("crash:libsframe-2.47:v1:decode:SIGSEGV:*"),
        PatternError::Open { part: 6, .. }
    ));
}

#[test]
fn llvm_mc_is_a_producer_with_a_release() {
    // `produce --producer llvm-mc-23`: not `llvm` with a release `mc-23`.
    let s: Signature = "oracle:llvm-mc-23:amd64:cfi-ra-undefined-cfa-slot:ra"
        .parse()
        .unwrap();
    let Signature::Oracle { producer, .. } = s else {
        panic!("an oracle signature")
    };
    assert_eq!(
        producer.0,
        vec![Tool {
            name: ToolKind::Known(ToolName::LlvmMc),
            release: Some("23".into())
        }]
    );
    assert_eq!(producer.to_string(), "llvm-mc-23");
    let t: Tool = "llvm-23".parse().unwrap();
    assert!(t.is(ToolName::Llvm));
}

#[test]
fn glibc_is_a_known_tool_written_as_before() {
    let t = Tool::named("glibc-2.43");
    assert!(t.is(ToolName::Glibc));
    assert_eq!(t.release.as_deref(), Some("2.43"));
    assert_eq!(t.to_string(), "glibc-2.43");
    let s: Signature = "crash:glibc-2.43:v2:decode:SIGSEGV".parse().unwrap();
    assert_eq!(s.to_string(), "crash:glibc-2.43:v2:decode:SIGSEGV");
}

#[test]
fn crosscheck_signatures_round_trip_and_match_any_abi() {
    let text = "crosscheck:gnu-as-2.44+ld-2.44:amd64:plt-cfi-cfa-sp-offset@unexpressible-cfa-expression:ra-mangled";
    let s: Signature = text.parse().unwrap();
    assert_eq!(
        s,
        Signature::Crosscheck {
            producer: "gnu-as-2.44+ld-2.44".parse().unwrap(),
            abi: OracleAbi::Amd64,
            shape: Shape {
                plt: true,
                rule: "cfi-cfa-sp-offset".into(),
                unexpressible: Some(Unexpressible::CfaExpression),
                unaligned: false,
            },
            kind: CrosscheckKind::RaMangled,
        }
    );
    assert_eq!(s.to_string(), text);
    assert_eq!(s.class(), Class::Crosscheck);
    let p: SignaturePattern = "crosscheck:gnu-as-2.44+ld-2.44:*:plt-cfi-cfa-sp-offset@unexpressible-cfa-expression:ra-mangled"
        .parse()
        .unwrap();
    assert!(p.matches(&s));
    assert_eq!(
        p.to_string(),
        "crosscheck:gnu-as-2.44+ld-2.44:*:plt-cfi-cfa-sp-offset@unexpressible-cfa-expression:ra-mangled"
    );
    // An oracle signature with the same parts is another class.
    let o: Signature = text
        .replacen("crosscheck", "oracle", 1)
        .replace("ra-mangled", "ra")
        .parse()
        .unwrap();
    assert!(!p.matches(&o));
    assert_eq!(
        "crosscheck:gnu-as-2.44:amd64:cfi-cfa-sp-offset:rsp".parse::<Signature>(),
        Err(ParseError::UnknownCrosscheckKind("rsp".into()))
    );
    assert_eq!(
        "crosscheck:gnu-as-2.44:amd64::cfa".parse::<Signature>(),
        Err(ParseError::Empty("shape"))
    );
    assert!(matches!(
        "crosscheck:gnu-as-2.44:*:cfi-*:cfa".parse::<SignaturePattern>(),
        Err(PatternError::Open { part: 4, .. })
    ));
}

/// The exact pattern of a signature matches it and prints as the signature does; a reader's
/// value disagreement has none.
#[test]
fn an_exact_pattern_names_its_signature_only() {
    for s in [
        "crash:libsframe-2.40:v1-fdeoff:decode:SIGSEGV:sframe_decode",
        "hang:libsframe-2.47:v2:decode",
        "oracle:gnu-as-2.40:amd64:_start:ra",
        "violation:FDE-SORTED:gcc/x86_64/basic.o",
        "diff:libsframe-2.47:v3:encode:header.flags",
    ] {
        let sig: Signature = s.parse().unwrap();
        let p = SignaturePattern::exact(&sig).unwrap();
        assert_eq!(p.to_string(), s);
        assert!(p.matches(&sig), "{s}");
        assert_eq!(p.imp(), sig.imp());
    }
    let other: Signature = "hang:libsframe-2.47:v2-pcrel:decode".parse().unwrap();
    let p = SignaturePattern::exact(&"hang:libsframe-2.47:v2:decode".parse().unwrap()).unwrap();
    assert!(!p.matches(&other));
    let value: Signature = "diff:libsframe-2.47:v2:find_fre:row.cfa".parse().unwrap();
    assert_eq!(
        SignaturePattern::exact(&value),
        Err(PatternError::ReaderValue)
    );
}
