//! The tower service: a request's parts in, an answer's parts out.

use http::{HeaderName, HeaderValue, Request, Response, StatusCode, Version};
use http_body::Body;
use http_body_util::{BodyExt, Limited};
use snodo_driver::{HostRequest, Part, Shutdown};
use snodo_proto::extract::{FromCallParts, Parts};
use snodo_proto::http::Head;
use snodo_proto::{BodyError, Context, ErrorObject, Host, Service};
use snodo_tokio::Tokio;
use std::borrow::Cow;
use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use crate::body::McpBody;

/// snodo's Streamable HTTP endpoint as a `tower::Service`. Cloning it is
/// cheap (the [`Service`] is shared). Handlers run as tokio tasks.
#[derive(Clone, Debug)]
pub struct McpService {
    service: Service,
    /// The host routes: every request that reaches this service is for the
    /// MCP endpoint, whatever path is left of it after the host's prefix.
    mounted: bool,
    /// Raised: answers in progress wind down (listen streams end).
    shutdown: Option<Shutdown>,
}

impl McpService {
    /// The service on its own: a request for any path but
    /// [`HttpConfig::endpoint`](snodo_proto::HttpConfig) is answered 404,
    /// as on the native listener. For a hyper server that serves nothing
    /// else.
    pub fn new(service: Service) -> Self {
        McpService {
            service,
            mounted: false,
            shutdown: None,
        }
    }

    /// The service behind a host's router (axum's `nest_service`, say),
    /// which has already chosen it by path: the path it sees is not
    /// checked again.
    pub fn mounted(service: Service) -> Self {
        McpService {
            service,
            mounted: true,
            shutdown: None,
        }
    }

    /// Wind down the answers in progress when `shutdown` is raised, as a
    /// native connection does: a listen stream ends with its result, calls
    /// get up to [`Limits::shutdown_grace`](snodo_proto::Limits) to finish.
    /// Raise it before the host server's own graceful shutdown, which waits
    /// for every answer to end.
    pub fn with_shutdown(mut self, shutdown: Shutdown) -> Self {
        self.shutdown = Some(shutdown);
        self
    }

    /// Answer one request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (mut parts, body) = request.into_parts();
        let extensions = std::mem::take(&mut parts.extensions);
        let path = if self.mounted {
            self.service.http_config().endpoint.as_str()
        } else {
            parts.uri.path()
        };
        let minor = u8::from(parts.version != Version::HTTP_10);
        // Sized for `:authority` too, and taken over by `Head::new` as is.
        let mut headers: Vec<(&str, &[u8])> = Vec::with_capacity(parts.headers.len() + 1);
        headers.extend(
            parts
                .headers
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_bytes())),
        );
        // RFC 9113 § 8.3.1: on HTTP/2 `:authority` stands for `Host`.
        let authority = parts.uri.authority().map(|a| a.as_str());
        if let (Some(a), false) = (authority, parts.headers.contains_key(http::header::HOST)) {
            headers.push(("host", a.as_bytes()));
        }
        let head = Head::new(parts.method.as_str(), path, minor, headers);
        let limit = self.service.limits().max_message_bytes;
        let deadline = self.service.http_config().request_timeout;
        let body = read_body(body, limit, deadline).await;
        let host: Host = Arc::new(extensions);
        let stop = self.shutdown.as_ref();
        let mut request = HostRequest::new(Tokio, &self.service, head, body, Some(host), stop);
        match poll_fn(|cx| request.poll_part(cx)).await {
            Some(Part::Head(head)) => {
                let length = head.content_length;
                let mut response = Response::new(McpBody::streaming(request, length));
                *response.status_mut() =
                    StatusCode::from_u16(head.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let map = response.headers_mut();
                for (name, value) in head.headers {
                    if let (Ok(n), Some(v)) =
                        (HeaderName::from_bytes(name.as_bytes()), value_of(value))
                    {
                        map.append(n, v);
                    }
                }
                // proto says when the connection must end (a refusal that
                // leaves the body unread, a shutdown); HTTP/2 streams have
                // no connection field (RFC 9113 § 8.2.2).
                if head.close && parts.version < Version::HTTP_2 {
                    map.insert(http::header::CONNECTION, HeaderValue::from_static("close"));
                }
                response
            }
            // proto answers every request; a connection closed without a
            // head is a fault of its own.
            _ => bare(StatusCode::INTERNAL_SERVER_ERROR),
        }
    }
}

/// Read a request's body: up to `limit` bytes (over it nothing more is
/// read, and proto answers 413: a declared length over it is refused
/// before a byte is read, as natively), within `deadline` of its head
/// (`HttpConfig::request_timeout`; proto answers 408 past it).
async fn read_body<B>(
    body: B,
    limit: usize,
    deadline: std::time::Duration,
) -> Result<bytes::Bytes, BodyError>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    // hyper gives a declared `Content-Length` (RFC 9112 § 6.2, RFC 9113
    // § 8.1.1) as the body's exact size hint.
    if body.size_hint().lower() > limit as u64 {
        return Err(BodyError::TooLarge);
    }
    let read = Limited::new(body, limit).collect();
    match tokio::time::timeout(deadline, read).await {
        Err(_) => Err(BodyError::TimedOut),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(BodyError::TooLarge),
        Ok(Err(_)) => Err(BodyError::Unreadable),
    }
}

/// A field value proto wrote: text it knows up front is not copied.
fn value_of(value: Cow<'static, str>) -> Option<HeaderValue> {
    match value {
        // The check `from_static` would panic on, made first.
        Cow::Borrowed(v) if v.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) => {
            Some(HeaderValue::from_static(v))
        }
        Cow::Borrowed(_) => None,
        Cow::Owned(v) => HeaderValue::try_from(v).ok(),
    }
}

fn bare(status: StatusCode) -> Response<McpBody> {
    let mut response = Response::new(McpBody::empty());
    *response.status_mut() = status;
    response
}

impl<B> tower_service::Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(request).await) })
    }
}

/// For `hyper::service::Service` users: the same, by reference.
impl<B> hyper::service::Service<Request<B>> for McpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn call(&self, request: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(request).await) })
    }
}

/// A handler's access to what tower middleware put on its request's
/// `http::Extensions` (the identity an auth layer established, a request
/// id, a tenant). `None` for a call that did not come through
/// [`McpService`].
pub trait RequestExtensions {
    /// The request's extension of type `T`.
    fn request_extension<T: Send + Sync + 'static>(&self) -> Option<&T>;
}

impl RequestExtensions for Context {
    fn request_extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.host::<http::Extensions>()?.get::<T>()
    }
}

/// A handler parameter: the value of type `T` that tower middleware put
/// on the request's `http::Extensions` (axum's `Extension`, for MCP
/// handlers). A call without one (it did not come through
/// [`McpService`], or no layer inserted a `T`) is refused `-32603`; take
/// `Option<Extension<T>>` where it is optional.
///
/// ```
/// use snodo_hyper::Extension;
/// use snodo_proto::{CallToolResult, Service, Tool};
///
/// #[derive(Clone)]
/// struct Tenant(String);
///
/// let service = Service::builder()
///     .tool(Tool::new("tenant", "Who is asking"), |Extension(t): Extension<Tenant>| async move {
///         CallToolResult::text(t.0)
///     })
///     .build()
///     .unwrap();
/// # drop(service);
/// ```
#[derive(Clone, Debug)]
pub struct Extension<T>(pub T);

impl<T: Clone + Send + Sync + 'static> FromCallParts for Extension<T> {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        parts
            .context()
            .request_extension::<T>()
            .cloned()
            .map(Extension)
            .ok_or_else(|| ErrorObject::internal("This call's request carries no such extension"))
    }
}
