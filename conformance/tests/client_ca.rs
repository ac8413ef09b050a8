//! `snodo-conformance-client --ca PEM`: the roots its MCP transport and
//! its OAuth client trust on top of the web's (`evidence/oauth/snodo-client.mjs
//! --tls` runs the flows with it against an HTTPS authorization server). A
//! file that holds no CA certificate is refused before any request, with
//! exit 2 and the reason, rather than running with the web's roots alone.

use std::process::Command;

const CLIENT: &str = env!("CARGO_BIN_EXE_snodo-conformance-client");

/// Runs the client with `--ca path` against a port nothing listens on (the
/// discard port: it must not get that far); its exit code and stderr.
fn run_with_ca(path: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::new(CLIENT)
        .args(["--oauth", "--ca"])
        .arg(path)
        .arg("http://127.0.0.1:9/mcp")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_ca_file_without_a_certificate_is_refused_up_front() {
    let path = std::env::temp_dir().join(format!("snodo-ca-test-{}.pem", std::process::id()));
    // A private key, not a certificate: the wrong PEM for a root.
    std::fs::write(
        &path,
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIBmZ5QmYk1tYV7Wm7cUR7xp1bPqq1t1iGxHc5cX3ZQ9k\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let (code, stderr) = run_with_ca(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--ca "), "{stderr}");
    assert!(stderr.contains("PEM: no CERTIFICATE block"), "{stderr}");
}

#[test]
fn a_missing_ca_file_is_refused_up_front() {
    let path = std::env::temp_dir().join("snodo-ca-test-no-such-file.pem");
    let (code, stderr) = run_with_ca(&path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("snodo-ca-test-no-such-file.pem"),
        "{stderr}"
    );
}
