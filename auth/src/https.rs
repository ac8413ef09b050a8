//! The validators' own HTTPS requests (a JWKS fetch, a token
//! introspection): rustls, trusting Mozilla's roots (webpki-roots) and
//! whatever root CAs the deployment adds, for an authorization server
//! behind a private CA. Hostnames are checked as always; no option turns
//! that off. A timeout bounds each request, and redirects are not
//! followed (a key set or an introspection answer that moved is a
//! configuration error, not something to chase).

#[cfg(feature = "https")]
use std::sync::Arc;
#[cfg(feature = "https")]
use std::time::Duration;

#[cfg(feature = "https")]
use crate::keys::KeyError;

/// Root certificates the validators' HTTPS requests trust: Mozilla's, and
/// any added with [`TrustRoots::with_pem`].
#[derive(Clone, Debug, Default)]
pub struct TrustRoots {
    #[cfg(feature = "https")]
    added: Vec<rustls::pki_types::CertificateDer<'static>>,
}

impl TrustRoots {
    /// Also trust every certificate of `pem` (one or more `CERTIFICATE`
    /// blocks): an authorization server's private CA.
    #[cfg(feature = "https")]
    pub fn with_pem(mut self, pem: &[u8]) -> Result<Self, KeyError> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::CertificateDer;
        let before = self.added.len();
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| KeyError::Invalid(format!("a root CA's PEM: {e}")))?;
            self.added.push(cert);
        }
        if self.added.len() == before {
            return Err(KeyError::Invalid(String::from(
                "a root CA's PEM has no CERTIFICATE block",
            )));
        }
        Ok(self)
    }

    /// The agent that makes the requests.
    #[cfg(feature = "https")]
    pub(crate) fn agent(&self, timeout: Duration) -> Result<ureq::Agent, KeyError> {
        let builder = ureq::AgentBuilder::new().timeout(timeout).redirects(0);
        if self.added.is_empty() {
            // ureq's own rustls configuration trusts Mozilla's roots.
            return Ok(builder.build());
        }
        let mut roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        for cert in &self.added {
            roots
                .add(cert.clone())
                .map_err(|e| KeyError::Invalid(format!("a root CA is unusable: {e}")))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| KeyError::Invalid(format!("TLS: {e}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(builder.tls_config(Arc::new(config)).build())
    }
}
