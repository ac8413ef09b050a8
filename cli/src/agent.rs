//! The OAuth step that needs the user (`basic/authorization/index.mdx`
//! § Authorization Code Grant), in a terminal: the authorization URL is
//! printed on stderr, the user opens it in a browser, signs in, and pastes
//! back the URL the browser was redirected to (a page that need not load:
//! nothing listens on the redirect URI).

use std::io::BufRead;

use snodo_oauth_client::{OAuthError, UserAgent};

/// Asks on stderr, reads the answer from stdin.
pub struct TerminalAgent;

impl UserAgent for TerminalAgent {
    fn authorize(&self, url: &str, redirect_uri: &str) -> Result<String, OAuthError> {
        eprintln!("snodo: the server asks for authorization. Open this URL in a browser:");
        eprintln!();
        eprintln!("  {url}");
        eprintln!();
        eprintln!("then paste here the URL it redirected to (it starts with {redirect_uri}):");
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| OAuthError::Authorization(format!("reading the redirect: {e}")))?;
        let line = line.trim();
        if !line.starts_with(redirect_uri) {
            return Err(OAuthError::Authorization(format!(
                "{line:?} is not a URL under the redirect URI {redirect_uri}"
            )));
        }
        Ok(line.to_owned())
    }
}
