//! The single writer of protocol messages, and the responders that requests answer through.
//!
//! Every message goes through one channel to one writer thread, which writes it as one line
//! and flushes; nothing else touches the output. A [`Responder`] answers one request, either
//! straight to the writer or into the response array of the batch the request came in.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use serde_json::Value;

use super::jsonrpc::{Id, RpcError, error_response, result_response};

/// Messages queued for the writer before senders wait (backpressure on a slow reader); their
/// bytes are bounded too ([`Room`]).
const QUEUE: usize = 256;

/// The bytes of messages queued for the writer and not written yet, and their bound: a
/// sender waits while adding its message would pass it (a message alone may be larger), so a
/// client that does not read holds at most this much in the queue, however large the answers
/// it asks for.
struct Room {
    queued: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

impl Room {
    fn lock(&self) -> std::sync::MutexGuard<'_, usize> {
        self.queued.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until `bytes` more fit (or nothing is queued), and counts them.
    fn take(&self, bytes: usize) {
        let mut queued = self.lock();
        while *queued > 0 && queued.saturating_add(bytes) > self.limit {
            queued = self.freed.wait(queued).unwrap_or_else(|e| e.into_inner());
        }
        *queued += bytes;
    }

    /// `bytes` left the queue (written, or dropped after the output broke).
    fn free(&self, bytes: usize) {
        *self.lock() -= bytes;
        self.freed.notify_all();
    }
}

/// What the writer thread is given.
enum Item {
    /// One message, serialized (one line of JSON without its line end).
    Line(String),
    /// Signalled once everything queued before it has been written (or could not be).
    Written(Sender<()>),
}

/// A handle that queues messages for the writer thread. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: Sender<Item>,
    room: Arc<Room>,
}

impl Outbox {
    /// Queues one message, serialized (one line of JSON without its line end); waits while
    /// the queue is full, in messages or in bytes.
    pub(crate) fn send(&self, message: String) {
        self.room.take(message.len());
        // The writer only stops once every handle is gone, so this cannot fail.
        let _ = self.tx.send(Item::Line(message));
    }

    /// Queues one message like [`Outbox::send`]; the receiver gets a signal once it has been
    /// written (or could not be), so that a sender can tell a client that reads slowly.
    pub(crate) fn send_noting_written(&self, message: String) -> Receiver<()> {
        let (signal, written) = crossbeam_channel::bounded(1);
        self.send(message);
        self.signal_written(signal);
        written
    }

    /// Queues `signal`, sent once everything queued before it has been written.
    fn signal_written(&self, signal: Sender<()>) {
        let _ = self.tx.send(Item::Written(signal));
    }
}

/// The writer thread; [`Writer::finish`] waits until everything queued was written.
pub(crate) struct Writer {
    thread: JoinHandle<()>,
}

impl Writer {
    /// Starts the writer thread over `output`; senders wait while `max_queued_bytes` of
    /// messages are queued for it.
    pub(crate) fn start<W: Write + Send + 'static>(
        output: W,
        max_queued_bytes: usize,
    ) -> std::io::Result<(Outbox, Writer)> {
        let (tx, rx) = crossbeam_channel::bounded(QUEUE);
        let room = Arc::new(Room {
            queued: Mutex::new(0),
            freed: Condvar::new(),
            limit: max_queued_bytes,
        });
        let writer_room = room.clone();
        let thread = std::thread::Builder::new()
            .name("termloom-mcp-writer".into())
            .spawn(move || write_all(output, rx, &writer_room))?;
        Ok((Outbox { tx, room }, Writer { thread }))
    }

    /// Waits for the writer to drain; every [`Outbox`] must have been dropped first.
    pub(crate) fn finish(self) {
        let _ = self.thread.join();
    }
}

fn write_all<W: Write>(mut output: W, rx: Receiver<Item>, room: &Room) {
    let mut broken = false;
    for item in rx {
        let message = match item {
            Item::Line(message) => message,
            Item::Written(signal) => {
                let _ = signal.send(());
                continue;
            }
        };
        let bytes = message.len();
        if !broken {
            let mut line = message.into_bytes();
            line.push(b'\n');
            if let Err(err) = output.write_all(&line).and_then(|()| output.flush()) {
                log::error!(
                    "termloom mcp: cannot write to the client ({err}); dropping further output"
                );
                broken = true;
            }
        }
        room.free(bytes);
    }
}

/// Collects the responses of one batch and sends them as one array when the last is in.
pub(crate) struct Batch {
    outbox: Outbox,
    /// The bytes of responses past which the batch's further requests are not run
    /// ([`Batch::is_full`]).
    limit: usize,
    state: Mutex<BatchState>,
}

struct BatchState {
    /// Serialized responses.
    responses: Vec<String>,
    /// Their bytes.
    held: usize,
    /// Responders not yet done, plus one until the batch is sealed.
    pending: usize,
    /// Signalled once the batch's array has been written.
    waiting: Vec<Sender<()>>,
}

impl Batch {
    /// A batch whose responses go to `outbox`, full once they hold `limit` bytes.
    pub(crate) fn new(outbox: Outbox, limit: usize) -> Arc<Batch> {
        Arc::new(Batch {
            outbox,
            limit,
            state: Mutex::new(BatchState {
                responses: Vec::new(),
                held: 0,
                pending: 1,
                waiting: Vec::new(),
            }),
        })
    }

    /// Whether the responses in so far hold `limit` bytes or more: a request can ask for far
    /// more than its own bytes (`tools/list` in a few dozen bytes), and a batch's responses
    /// are all held until the last is in, so the batch's further requests are answered with
    /// a short error instead of being run.
    pub(crate) fn is_full(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).held >= self.limit
    }

    /// Says that no more responders will be made for this batch.
    pub(crate) fn seal(&self) {
        self.done(None);
    }

    fn done(&self, response: Option<String>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.held += response.as_ref().map_or(0, String::len);
        state.responses.extend(response);
        state.pending -= 1;
        if state.pending == 0 && !state.responses.is_empty() {
            let responses = std::mem::take(&mut state.responses);
            self.outbox.send(format!("[{}]", responses.join(",")));
        }
        if state.pending == 0 {
            for signal in state.waiting.drain(..) {
                self.outbox.signal_written(signal);
            }
        }
    }
}

/// Where a responder's answer goes.
enum Sink {
    Direct(Outbox),
    Batch(Arc<Batch>),
}

/// Answers one request exactly once: with a result, an error, or (cancelled) nothing.
pub(crate) struct Responder {
    id: Id,
    sink: Sink,
    answered: bool,
}

impl Responder {
    /// A responder writing straight to the output.
    pub(crate) fn direct(id: Id, outbox: Outbox) -> Responder {
        Responder { id, sink: Sink::Direct(outbox), answered: false }
    }

    /// A responder for a request that came in `batch`.
    pub(crate) fn in_batch(id: Id, batch: &Arc<Batch>) -> Responder {
        batch.state.lock().unwrap_or_else(|e| e.into_inner()).pending += 1;
        Responder { id, sink: Sink::Batch(batch.clone()), answered: false }
    }

    /// The request's id, as written.
    pub(crate) fn id(&self) -> &Id {
        &self.id
    }

    /// Whether the request came in a batch.
    pub(crate) fn is_batched(&self) -> bool {
        matches!(self.sink, Sink::Batch(_))
    }

    /// Sends a success response.
    pub(crate) fn result(mut self, result: Value) {
        let message = result_response(&self.id, &result);
        // Not held while the message waits for room in the queue.
        drop(result);
        self.deliver(Some(message));
    }

    /// Sends a success response; the receiver hears once it has been written out (for a
    /// request in a batch, once the batch's array has), so that what follows, such as the
    /// server stopping, cannot overtake the answer.
    pub(crate) fn result_written(mut self, result: Value) -> Receiver<()> {
        let (signal, written) = crossbeam_channel::bounded(1);
        let message = result_response(&self.id, &result);
        match &self.sink {
            Sink::Direct(outbox) => {
                let outbox = outbox.clone();
                self.deliver(Some(message));
                outbox.signal_written(signal);
            }
            Sink::Batch(batch) => {
                batch.state.lock().unwrap_or_else(|e| e.into_inner()).waiting.push(signal);
                self.deliver(Some(message));
            }
        }
        written
    }

    /// Sends an error response.
    pub(crate) fn error(mut self, error: &RpcError) {
        let message = error_response(&self.id, error);
        self.deliver(Some(message));
    }

    /// Sends nothing (the request was cancelled).
    pub(crate) fn silence(mut self) {
        self.deliver(None);
    }

    fn deliver(&mut self, message: Option<String>) {
        if self.answered {
            return;
        }
        self.answered = true;
        match &self.sink {
            Sink::Direct(outbox) => {
                if let Some(message) = message {
                    outbox.send(message);
                }
            }
            Sink::Batch(batch) => batch.done(message),
        }
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        // A responder dropped unanswered (a panicking worker) still releases its batch.
        self.deliver(None);
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    /// Output that takes its time, as a loaded machine's writer would.
    #[derive(Clone, Default)]
    struct SlowOutput(Arc<Mutex<Vec<u8>>>);

    impl Write for SlowOutput {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            std::thread::sleep(Duration::from_millis(50));
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl SlowOutput {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    const WAIT: Duration = Duration::from_secs(30);

    #[test]
    fn a_written_answer_is_in_the_output_when_its_receiver_hears() {
        let output = SlowOutput::default();
        let (outbox, writer) = Writer::start(output.clone(), usize::MAX).unwrap();
        outbox.send("{\"before\":1}".into());
        let written =
            Responder::direct(Id::parse(b"7").unwrap(), outbox.clone()).result_written(json!({}));
        written.recv_timeout(WAIT).expect("the writer signals");
        let text = output.text();
        assert!(text.starts_with("{\"before\":1}\n"), "{text}");
        assert!(text.contains("\"id\":7"), "{text}");
        drop(outbox);
        writer.finish();
    }

    #[test]
    fn a_written_answer_in_a_batch_waits_for_the_batchs_array() {
        let output = SlowOutput::default();
        let (outbox, writer) = Writer::start(output.clone(), usize::MAX).unwrap();
        let batch = Batch::new(outbox.clone(), usize::MAX);
        let other = Responder::in_batch(Id::parse(b"1").unwrap(), &batch);
        let written =
            Responder::in_batch(Id::parse(b"2").unwrap(), &batch).result_written(json!({}));
        batch.seal();
        assert!(
            written.recv_timeout(Duration::from_millis(300)).is_err(),
            "heard before the batch was complete"
        );
        assert_eq!(output.text(), "");
        other.result(json!({}));
        written.recv_timeout(WAIT).expect("the writer signals");
        let text = output.text();
        assert!(text.starts_with('[') && text.contains("\"id\":1") && text.contains("\"id\":2"));
        drop((outbox, batch));
        writer.finish();
    }

    /// Output a client that does not read: every write waits until the test opens the gate.
    #[derive(Clone, Default)]
    struct GatedOutput {
        written: Arc<Mutex<Vec<u8>>>,
        open: Arc<(Mutex<bool>, std::sync::Condvar)>,
    }

    impl Write for GatedOutput {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let (open, opened) = &*self.open;
            let mut open = open.lock().unwrap();
            while !*open {
                open = opened.wait(open).unwrap();
            }
            self.written.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Messages queued for a client that does not read are bounded in bytes: senders wait
    /// once `max_queued_bytes` are queued (a message alone may be larger), and everything is
    /// written, in order, once the client reads. Before, 256 messages of any size were held.
    #[test]
    fn a_client_that_does_not_read_holds_its_queue_s_bytes_at_most() {
        const MESSAGE: usize = 100 << 10;
        let output = GatedOutput::default();
        let (outbox, writer) = Writer::start(output.clone(), 4 * MESSAGE).unwrap();
        let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let sender = {
            let (outbox, sent) = (outbox.clone(), sent.clone());
            std::thread::spawn(move || {
                for i in 0..40 {
                    outbox.send(format!("{i:04}{}", "x".repeat(MESSAGE - 4)));
                    sent.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
        };
        std::thread::sleep(Duration::from_millis(300));
        // Four in the queue (the writer holds the first, waiting to write it), then the
        // sender waits; a message larger than the bound waits for the queue to empty.
        assert_eq!(sent.load(std::sync::atomic::Ordering::SeqCst), 4);
        assert_eq!(*outbox.room.lock(), 4 * MESSAGE);
        let (open, opened) = &*output.open;
        *open.lock().unwrap() = true;
        opened.notify_all();
        sender.join().unwrap();
        outbox.send("x".repeat(10 * MESSAGE));
        drop(outbox);
        writer.finish();
        let text = String::from_utf8(output.written.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 41);
        for (i, line) in lines[..40].iter().enumerate() {
            assert!(line.starts_with(&format!("{i:04}x")) && line.len() == MESSAGE, "{i}");
        }
        assert_eq!(lines[40].len(), 10 * MESSAGE);
    }
}
