//! The one hex codec of the workspace: section bytes in the JSON-lines protocol, in stack
//! snapshots and in failure messages.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of `bytes`, two digits a byte.
pub fn encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Bytes of a hex string (either case), or `None` when it is not hex.
pub fn decode(s: &str) -> Option<Vec<u8>> {
    let s = s.as_bytes();
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.chunks(2)
        .map(|p| Some((digit(p[0])? << 4) | digit(p[1])?))
        .collect()
}

/// [`encode`] of at most the first `max` bytes, with the length after `...` when there are
/// more: for messages.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let shown = encode(&bytes[..bytes.len().min(max)]);
    if bytes.len() > max {
        format!("{shown}... ({} bytes)", bytes.len())
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let b = [0u8, 1, 0xde, 0xe2, 0xff];
        assert_eq!(encode(&b), "0001dee2ff");
        assert_eq!(decode("0001DEe2ff").as_deref(), Some(&b[..]));
        assert_eq!(decode("0"), None);
        assert_eq!(decode("zz"), None);
        assert_eq!(excerpt(&b, 2), "0001... (5 bytes)");
        assert_eq!(excerpt(&b, 5), "0001dee2ff");
    }
}
