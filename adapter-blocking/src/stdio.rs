//! Serving one newline-delimited JSON-RPC stream: stdin/stdout, or any
//! pair of blocking byte streams (`basic/transports/stdio.mdx`).

use std::io::{self, Read, Write};
use std::sync::Arc;

use snodo_proto::{Service, Transport};

use crate::driver::{self, Mailbox, Wiring};
use crate::options::StdioOptions;
use crate::pool::Pool;

/// Serve `service` on this process's stdin and stdout until stdin ends and
/// every call is answered. See [`serve`].
pub fn serve_stdio(service: &Service, options: StdioOptions) -> io::Result<()> {
    serve(service, io::stdin(), io::stdout(), options)
}

/// Serve `service` on one newline-delimited JSON-RPC stream: requests are
/// read from `input`, messages written to `output`.
///
/// Returns `Ok` after end of input once every call has been answered and the
/// output flushed, or once [`StdioOptions::shutdown_grace`] has passed since
/// end of input (calls still running are then cancelled and not answered).
/// Returns the error of a failed write or flush at once, cancelling all
/// calls; a failed read ends input like EOF and its error is returned after
/// the graceful shutdown.
///
/// The reader thread is not joined, so `input` may stay blocked in `read`
/// after this returns; a worker stuck in blocking handler code likewise
/// finishes on its own.
pub fn serve<R, W>(service: &Service, input: R, output: W, options: StdioOptions) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let workers = options.worker_count(service.limits());
    let pool = Arc::new(Pool::start(workers)?);
    tracing::debug!(workers, "serving stdio");
    let wiring = Wiring {
        transport: Transport::Stdio,
        pool: Arc::clone(&pool),
        mailbox: Mailbox::new(workers),
        stop: None,
        settings: options.settings(),
    };
    let result = driver::run(service, input, output, None, wiring);
    pool.close();
    result
}
