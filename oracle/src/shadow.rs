//! The shadow stack: the frames the emulator knows to be true, and what a correct SFrame row
//! must recover for each.
//!
//! A frame is pushed when a followed call enters a function of the file: at that moment the
//! SP, the return address (AMD64: the word at SP; AArch64, s390x: the link register) and the
//! frame pointer are the caller's, so they are the truth for every PC of the frame,
//! whatever the function does to its registers and stack afterwards. A jump into another
//! function (tail call, `.cold` part) keeps the frame and its truth; a return to the
//! frame's return address with the caller's SP pops it.

use serde::Serialize;

/// One frame of the emulated program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TrueFrame {
    /// Index of the function the frame is executing (changes on tail calls).
    pub function: usize,
    /// The canonical frame address: SP at entry plus the ABI's adjustment.
    pub cfa: u64,
    /// The return address into the caller.
    pub ra: u64,
    /// The caller's frame pointer.
    pub fp: u64,
    /// SP at entry.
    pub entry_sp: u64,
}

/// Frames of a run, outermost first.
#[derive(Debug, Clone, Default)]
pub struct ShadowStack {
    frames: Vec<TrueFrame>,
}

impl ShadowStack {
    pub fn clear(&mut self) {
        self.frames.clear();
    }
    pub fn push(&mut self, f: TrueFrame) {
        self.frames.push(f);
    }
    pub fn pop(&mut self) -> Option<TrueFrame> {
        self.frames.pop()
    }
    /// The executing frame.
    pub fn top(&self) -> Option<&TrueFrame> {
        self.frames.last()
    }
    pub fn top_mut(&mut self) -> Option<&mut TrueFrame> {
        self.frames.last_mut()
    }
    pub fn depth(&self) -> usize {
        self.frames.len()
    }
    /// Innermost first.
    pub fn innermost_first(&self) -> impl Iterator<Item = &TrueFrame> {
        self.frames.iter().rev()
    }
}
