//! Short annotated hex excerpts around a byte offset.

/// Lines of hex around `offset` (16 bytes a line, the line before and the line of the
/// offset), with the byte at `offset` bracketed.
pub fn excerpt(bytes: &[u8], offset: usize) -> Vec<String> {
    let line_of = offset / 16 * 16;
    let first = line_of.saturating_sub(16);
    let mut lines = Vec::new();
    let mut at = first;
    while at <= line_of && at < bytes.len().max(1) {
        let mut s = format!("{at:#07x}:");
        for (i, b) in bytes.iter().enumerate().take(at + 16).skip(at) {
            if i == offset {
                s.push_str(&format!("[{b:02x}]"));
            } else if i == offset + 1 {
                s.push_str(&format!("{b:02x}"));
            } else {
                s.push_str(&format!(" {b:02x}"));
            }
        }
        if offset >= bytes.len() && at == line_of {
            s.push_str(" [end of section]");
        }
        lines.push(s);
        at += 16;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn brackets_the_offset() {
        let b: Vec<u8> = (0..40).collect();
        let l = excerpt(&b, 20);
        assert_eq!(l.len(), 2);
        assert!(l[1].contains("[14]15"), "{l:?}");
        assert!(excerpt(&b, 45)
            .last()
            .unwrap()
            .ends_with("[end of section]"));
        assert_eq!(excerpt(&[], 0).len(), 1);
    }
}
