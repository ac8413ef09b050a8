//! The client side of the protocol. On this branch it holds only the
//! authorization hook that an HTTP transport asks for credentials
//! (`basic/authorization/index.mdx` § Access Token Usage).

pub mod auth;
