//! Asking a running [`serve_http`](crate::serve_http) to shut down, from any
//! thread.
//!
//! The acceptor sits in a blocking `accept`, which `std` offers no way to
//! interrupt. So the request is a flag plus a wake-up: after raising the
//! flag, [`ShutdownHandle::shutdown`] opens (and drops) a connection to
//! each listener it watches, and the acceptor checks the flag after every
//! accept. This keeps accepting instant (no polling interval) and needs no
//! platform-specific calls; its one requirement is that the server can
//! connect to its own listening address, which loopback and the host's own
//! addresses allow. A flood of connections wakes the acceptor just as well.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long a wake-up connection may take to be accepted by the kernel.
const WAKE_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct Inner {
    requested: AtomicBool,
    /// Addresses of the listeners served with this handle.
    listeners: Mutex<Vec<SocketAddr>>,
}

/// Tells [`serve_http`](crate::serve_http) to stop: clone it, pass one
/// clone to `serve_http`, and call [`shutdown`](ShutdownHandle::shutdown)
/// on another from any thread (a signal handler thread, a test).
///
/// Once requested, a shutdown cannot be withdrawn: a server started later
/// with the same handle returns at once.
#[derive(Clone, Debug, Default)]
pub struct ShutdownHandle {
    inner: Arc<Inner>,
}

/// A listener's registration with the handle, withdrawn on drop.
pub(crate) struct Watch<'h> {
    handle: &'h ShutdownHandle,
    addr: SocketAddr,
}

impl ShutdownHandle {
    /// A handle with no shutdown requested.
    pub fn new() -> Self {
        Self::default()
    }

    /// Request the shutdown: every server using this handle stops accepting,
    /// lets calls in flight finish within its grace period, closes its
    /// connections and returns. Returns at once; safe to call repeatedly.
    pub fn shutdown(&self) {
        self.inner.requested.store(true, Ordering::SeqCst);
        let listeners = self.listeners().clone();
        for addr in listeners {
            match TcpStream::connect_timeout(&addr, WAKE_TIMEOUT) {
                Ok(_) => tracing::debug!(%addr, "woke the acceptor"),
                Err(e) => tracing::warn!(
                    %addr,
                    error = %e,
                    "could not connect to the listener to wake it; it stops at its next connection"
                ),
            }
        }
    }

    /// Whether [`shutdown`](ShutdownHandle::shutdown) was called.
    pub fn is_requested(&self) -> bool {
        self.inner.requested.load(Ordering::SeqCst)
    }

    fn listeners(&self) -> MutexGuard<'_, Vec<SocketAddr>> {
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Have [`shutdown`](ShutdownHandle::shutdown) wake the acceptor of the
    /// listener bound to `local`. Registered before the acceptor first
    /// checks the flag, so a request is either seen by that check or wakes
    /// the `accept` that follows it.
    pub(crate) fn watch(&self, local: SocketAddr) -> Watch<'_> {
        let addr = reachable(local);
        self.listeners().push(addr);
        Watch { handle: self, addr }
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let mut listeners = self.handle.listeners();
        if let Some(i) = listeners.iter().position(|a| *a == self.addr) {
            listeners.swap_remove(i);
        }
    }
}

/// Where to connect to reach a listener bound to `local`: a wildcard bind
/// is reached on loopback of the same family.
fn reachable(local: SocketAddr) -> SocketAddr {
    let ip = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, local.port())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn wildcard_binds_are_reached_on_loopback() {
        let any4: SocketAddr = "0.0.0.0:4000".parse().unwrap();
        let any6: SocketAddr = "[::]:4000".parse().unwrap();
        let some: SocketAddr = "192.0.2.7:4000".parse().unwrap();
        assert_eq!(reachable(any4), "127.0.0.1:4000".parse().unwrap());
        assert_eq!(reachable(any6), "[::1]:4000".parse().unwrap());
        assert_eq!(reachable(some), some);
    }

    #[test]
    fn shutdown_raises_the_flag_and_connects_to_watched_listeners() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let handle = ShutdownHandle::new();
        let watch = handle.watch(listener.local_addr().unwrap());
        assert!(!handle.is_requested());
        handle.clone().shutdown();
        assert!(handle.is_requested());
        listener.set_nonblocking(true).unwrap();
        assert!(listener.accept().is_ok(), "the wake-up connection arrived");
        drop(watch);
        assert!(handle.listeners().is_empty(), "unwatched on drop");
    }
}
