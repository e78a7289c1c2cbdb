//! The session on standard input and output. The command's `out` and
//! `err` are locked by the thread that runs it, so the server's messages
//! and its tools' notes come back to that thread, which writes them.

use std::io::Write;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::AsyncReadExt;
use tokio::sync::{Semaphore, mpsc};

use super::{Server, Tool};
use crate::error::Error;

/// The longest request line read; a longer one is dropped unread (a
/// request is a few hundred bytes).
const MAX_LINE: usize = 1 << 20;

/// Serves `tools` until standard input ends; `instructions` tell the
/// client what the server is for.
pub fn serve(
    tools: Vec<Tool>,
    instructions: &'static str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (log, logged) = mpsc::unbounded_channel();
    let server = Server {
        tools: Arc::from(tools),
        running: Semaphore::new(cores),
        log,
        instructions,
    };
    let ended = runtime.block_on(session(server, logged, out, err));
    // Standard input's reader may be blocked in a read nothing will end.
    runtime.shutdown_background();
    ended
}

async fn session(
    server: Server,
    mut logged: mpsc::UnboundedReceiver<Vec<u8>>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let (answers, mut written) = tokio::io::duplex(64 * 1024);
    let transport =
        AsyncRwTransport::new_server(tokio::io::stdin(), answers).with_max_line_length(MAX_LINE);
    let running = tokio::spawn(async move {
        match server.serve(transport).await {
            Ok(service) => service.waiting().await.map(drop).map_err(|e| e.to_string()),
            // The client left before it began.
            Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    let mut buffer = vec![0; 64 * 1024];
    let (mut answering, mut logging) = (true, true);
    while answering || logging {
        tokio::select! {
            read = written.read(&mut buffer), if answering => match read {
                Ok(0) | Err(_) => answering = false,
                Ok(n) => out
                    .write_all(&buffer[..n])
                    .and_then(|()| out.flush())
                    .map_err(Error::output)?,
            },
            notes = logged.recv(), if logging => match notes {
                Some(notes) => {
                    let _ = err.write_all(&notes);
                }
                None => logging = false,
            },
        }
    }
    match running.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Error::Usage(format!("the MCP session failed: {e}"))),
        Err(e) => Err(Error::Usage(format!("the MCP session failed: {e}"))),
    }
}
