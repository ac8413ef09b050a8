//! HTTP/2 load: `c` concurrent streams multiplexed on one h2c connection
//! (prior knowledge, RFC 9113 § 3.3), as a gateway or an agent host that
//! pools one connection per upstream sends them. Each stream carries the
//! same `tools/call echo` as the HTTP/1.1 load, with the released
//! TypeScript client's header fields (lower-case, as HTTP/2 requires).

use ::h2::client::SendRequest;
use bytes::Bytes;
use tokio::net::TcpStream;

/// One client connection; clone it for each stream's task.
pub type Link = SendRequest<Bytes>;

/// Open the connection: the preface, SETTINGS, and windows large enough
/// that flow control never paces a small echo.
pub async fn connect(addr: std::net::SocketAddr) -> Result<Link, String> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let (link, connection) = ::h2::client::Builder::new()
        .initial_window_size(1 << 20)
        .initial_connection_window_size(1 << 24)
        .handshake(tcp)
        .await
        .map_err(|e| format!("h2 handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(link)
}

/// Send `body` as one request on a new stream of `link`; the status and
/// the whole response body (`out` is cleared first).
pub async fn call(
    link: &mut Link,
    authority: &str,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Result<u16, String> {
    let request = http::Request::post(format!("http://{authority}/mcp"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("accept-language", "*")
        .header("sec-fetch-mode", "cors")
        .header("user-agent", "node")
        .header("accept-encoding", "gzip, deflate")
        .header("content-length", body.len())
        .body(())
        .map_err(|e| e.to_string())?;
    // Wait for the server's stream limit, as a client must.
    std::future::poll_fn(|cx| link.poll_ready(cx))
        .await
        .map_err(|e| e.to_string())?;
    let (response, mut send) = link
        .send_request(request, false)
        .map_err(|e| e.to_string())?;
    send.send_data(Bytes::copy_from_slice(body), true)
        .map_err(|e| e.to_string())?;
    let response = response.await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let mut recv = response.into_body();
    out.clear();
    while let Some(chunk) = recv.data().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        let _ = recv.flow_control().release_capacity(chunk.len());
        out.extend_from_slice(&chunk);
    }
    Ok(status)
}
