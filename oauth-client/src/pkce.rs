//! PKCE (RFC 7636), S256 only (`basic/authorization/
//! security-considerations.mdx` § Authorization Code Protection: clients
//! MUST use `S256` when technically capable), and the random `state`.
//! No crypto of our own: SHA-256 from `sha2`, randomness from the
//! operating system through `getrandom`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::error::OAuthError;

/// A code verifier and its S256 challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// Sent to the token endpoint (`code_verifier`).
    pub verifier: String,
    /// Sent to the authorization endpoint (`code_challenge`).
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random octets, base64url (43 characters, the
    /// RFC 7636 § 4.1 recommendation).
    pub fn generate() -> Result<Self, OAuthError> {
        Ok(Pkce::from_verifier(random_token()?))
    }

    /// The pair for a given verifier: `BASE64URL(SHA256(ASCII(verifier)))`.
    pub fn from_verifier(verifier: String) -> Self {
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce {
            verifier,
            challenge,
        }
    }
}

/// 32 random octets, base64url: a PKCE verifier or a `state` value.
pub fn random_token() -> Result<String, OAuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| OAuthError::Random(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_of_a_known_verifier() {
        // Computed apart from this crate:
        // base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=")
        let p = Pkce::from_verifier("dBjftJeZ4CVP-mJ92K9qpvGxSvR0qdNQf9jtVmD4b8U".into());
        assert_eq!(p.challenge, "IxMde19vcqwWNBGIPpIzKoOytLwW4fd3KiN3qZTsXzs");
    }

    #[test]
    fn generated_verifiers_are_long_unreserved_and_distinct() {
        let a = Pkce::generate().unwrap();
        let b = Pkce::generate().unwrap();
        assert_eq!(a.verifier.len(), 43);
        assert!(a
            .verifier
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(Pkce::from_verifier(a.verifier.clone()), a);
    }
}
