//! TLS for `https://` endpoints, on rustls (ring provider): which roots a
//! server's certificate must chain to, and the connection each transport
//! runs HTTP/1.1 over (`basic/transports/streamable-http.mdx` § Security
//! Warning: servers are reached over HTTPS beyond loopback).
//!
//! rustls checks the certificate chain against the roots and the
//! endpoint's host name (sent as SNI) against the certificate; a failure
//! is [`TransportError::Tls`](crate::TransportError::Tls), saying why.
//! ALPN offers `http/1.1` only: the transports speak HTTP/1.1, and a
//! server that would have offered `h2` still speaks it.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

/// Which servers a transport trusts over `https://`.
#[derive(Clone, Debug)]
pub struct TlsConfig {
    roots: RootCertStore,
}

impl Default for TlsConfig {
    /// The web's roots ([`TlsConfig::webpki_roots`]).
    fn default() -> Self {
        TlsConfig::webpki_roots()
    }
}

impl TlsConfig {
    /// Mozilla's root program, as the `webpki-roots` crate carries it:
    /// the roots a browser trusts, the same on every machine.
    pub fn webpki_roots() -> Self {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        TlsConfig { roots }
    }

    /// The platform's roots: the system's certificate store on macOS and
    /// Windows, the distribution's bundle on Linux (or the file and
    /// directory `SSL_CERT_FILE` and `SSL_CERT_DIR` name), as
    /// `rustls-native-certs` finds them: for a server whose certificate
    /// chains to a root the machine's administrator added (a corporate
    /// CA). Certificates that do not load are skipped; `Err` only when
    /// none does.
    pub fn platform_roots() -> Result<Self, rustls::Error> {
        let found = rustls_native_certs::load_native_certs();
        let mut roots = RootCertStore::empty();
        let (added, _) = roots.add_parsable_certificates(found.certs);
        if added == 0 {
            let why = match found.errors.first() {
                Some(e) => format!("no platform root certificate loaded: {e}"),
                None => String::from("no platform root certificate found"),
            };
            return Err(rustls::Error::General(why));
        }
        Ok(TlsConfig { roots })
    }

    /// No roots at all: only those added with
    /// [`with_root_certificate`](Self::with_root_certificate) are trusted
    /// (a private CA's servers, and nothing else).
    pub fn no_roots() -> Self {
        TlsConfig {
            roots: RootCertStore::empty(),
        }
    }

    /// Trust `der` (a DER-encoded root CA certificate) as well.
    pub fn with_root_certificate(mut self, der: &[u8]) -> Result<Self, rustls::Error> {
        self.roots.add(CertificateDer::from(der.to_vec()))?;
        Ok(self)
    }

    /// Trust every certificate of `pem` (one or more `CERTIFICATE`
    /// blocks) as a root CA as well.
    pub fn with_root_pem(mut self, pem: &[u8]) -> Result<Self, rustls::Error> {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| rustls::Error::General(format!("PEM: {e}")))?;
            self.roots.add(cert)?;
            added += 1;
        }
        if added == 0 {
            return Err(rustls::Error::General(String::from(
                "PEM: no CERTIFICATE block",
            )));
        }
        Ok(self)
    }

    /// The rustls configuration: these roots, no client certificate,
    /// ALPN `http/1.1`. Also for other HTTP clients that should trust
    /// the same servers (the OAuth client's `UreqHttp::with_tls`).
    pub fn rustls_config(&self) -> Arc<ClientConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("ring supports the default versions")
            .with_root_certificates(self.roots.clone())
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }
}

/// What a transport needs to open TLS to one endpoint.
#[derive(Clone, Debug)]
pub(crate) struct TlsTarget {
    pub config: Arc<ClientConfig>,
    /// The host as SNI names it and the certificate must.
    pub name: ServerName<'static>,
}

impl TlsTarget {
    /// A new client connection (nothing sent yet).
    pub fn connection(&self) -> io::Result<ClientConnection> {
        ClientConnection::new(self.config.clone(), self.name.clone()).map_err(tls_error)
    }
}

/// `error` as the `io::Error` the byte streams carry; the transports turn
/// it back into [`TransportError::Tls`](crate::TransportError::Tls).
pub(crate) fn tls_error(error: rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// A blocking connection, plain or TLS.
pub(crate) enum Conn {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Conn {
    /// The socket under it (timeouts, shutdown).
    pub fn socket(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            // A server that closes without `close_notify` (many do, after
            // a framed answer) is at its end: the HTTP framing, not the
            // TLS close, says whether the answer was whole.
            Conn::Tls(s) => match s.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
                other => other,
            },
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}
