//! Text made on a thread of its own and read through a pipe, so memory
//! stays bounded whatever the trace's size: a `.ptb` or a merge source read
//! as Pajé text, or Pajé text converted again.

use std::io::{self, Read};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The reading end of a pipe whose writer runs on a thread of its own. A
/// failure of the writer is an error at the end of the input, never a
/// silently short text.
pub struct TextPipe {
    reader: Option<io::PipeReader>,
    failure: Arc<Mutex<Option<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl TextPipe {
    /// Starts `produce` on a thread named `name`, writing into the pipe.
    /// It returns a message when it fails; a closed pipe (the reader
    /// stopped early) is not a failure.
    pub fn spawn(
        name: &str,
        produce: impl FnOnce(io::PipeWriter) -> Result<(), String> + Send + 'static,
    ) -> io::Result<TextPipe> {
        let (reader, writer) = io::pipe()?;
        let failure: Arc<Mutex<Option<String>>> = Arc::default();
        let slot = failure.clone();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                if let Err(e) = produce(writer) {
                    *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                }
            })?;
        Ok(TextPipe {
            reader: Some(reader),
            failure,
            thread: Some(thread),
        })
    }

    /// Waits for the writer; its failure, if any.
    pub fn finish(mut self) -> Result<(), String> {
        self.join()
    }

    fn join(&mut self) -> Result<(), String> {
        // Closing our end first stops a writer that is still writing.
        self.reader.take();
        if let Some(t) = self.thread.take() {
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
        match self
            .failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Whether `e` only says that the reader went away.
pub(crate) fn is_closed(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

impl Read for TextPipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(reader) = self.reader.as_mut() else {
            return Ok(0);
        };
        let n = reader.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.join().map_err(io::Error::other)?;
        }
        Ok(n)
    }
}

impl Drop for TextPipe {
    fn drop(&mut self) {
        self.reader.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
