//! Running a program with bytes on its standard input, written on a
//! thread of their own so that the program can write its output meanwhile.

use std::io::{self, Write};
use std::process::{Command, Output, Stdio};

/// Runs `command` with `input` on its standard input and its standard
/// output and error captured; returns what it wrote and how the writing
/// of `input` went (a program may stop reading early).
pub fn run(command: &mut Command, input: Vec<u8>) -> (Output, io::Result<()>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    (out, writer.join().unwrap())
}
