//! The client side of the Model Context Protocol, sans-I/O.

pub mod auth;
