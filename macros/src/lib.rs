//! `#[tool]` and `#[tools]`: a Rust function, or the methods of an
//! application's type, as MCP tools of a snodo service.
//!
//! The macros write the registration a server would otherwise write by
//! hand with `ServiceBuilder::tool`, and nothing else: the tool's
//! `inputSchema` is generated from the function's parameters, its
//! `outputSchema` from its return type, and its description from its doc
//! comment. snodo is fully usable without them; they read better when a
//! server has many tools.
//!
//! ```
//! use snodo::prelude::*;
//!
//! /// Add two numbers.
//! #[tool(read_only)]
//! async fn add(
//!     /// The first addend.
//!     a: i64,
//!     /// The second addend.
//!     b: i64,
//! ) -> String {
//!     (a + b).to_string()
//! }
//!
//! # fn main() -> Result<(), BuildError> {
//! let service = add_tool(Service::builder()).build()?;
//! # Ok(())
//! # }
//! ```
//!
//! With `snodo`'s feature `macros` (`snodo = { version = "0.1", features
//! = ["macros"] }`), `#[tool]` and `#[tools]` are in its prelude. The
//! arguments type the macro derives uses snodo's own serde and schemars,
//! so the application needs neither as a dependency.
//!
//! # Parameters
//!
//! Each parameter is one of three things, decided by a rule a reader can
//! apply by eye (a macro sees names, not types):
//!
//! - **An extractor** when its type is named like one of snodo's:
//!   `Context`, `State<S>`, `Principal`, `Meta`, `Reporter`, `CancelFlag`,
//!   `Attached<T>`, `Extension<T>` (snodo-hyper), or an `Option` of one;
//!   or when it is marked `#[extract]` (an application's own
//!   `FromCallParts`). Extractors come in any order, as in a closure.
//! - **The whole arguments object** when marked `#[args]`: a type of the
//!   application's deriving `Deserialize` and `JsonSchema`. Then no other
//!   parameter is an argument.
//! - **One argument** otherwise: a property of the arguments object, named
//!   as the parameter, typed by its type, described by its doc comment,
//!   required unless an `Option`. `#[serde(...)]` and `#[schemars(...)]`
//!   on the parameter apply to that property (`rename`, `default`, ...).
//!   `#[arg]` makes one of a type that shares an extractor's name.
//!
//! The function returns what a handler returns (anything
//! `IntoToolOutcome`: text, `Json<T>`, a `CallToolResult`, a `Result` of
//! those), and may be `async` or not. It is kept as written, callable as
//! before.
//!
//! # Options
//!
//! `#[tool(name = "...", title = "...", description = "...", read_only,
//! destructive, idempotent, open_world, icon = expr, crate = path)]`: the name defaults
//! to the function's and is checked at compile time against
//! `server/tools.mdx` § Tool Names; the description defaults to the doc
//! comment, and one of the two is required (a model chooses tools by
//! their descriptions); the four hints set `ToolAnnotations` (`= false`
//! states the opposite); each `icon` is an expression of type `Icon`,
//! evaluated when the tool is registered. The generated code names `::snodo::proto`; a
//! crate that depends on `snodo-proto` directly says `crate = snodo_proto`.
//!
//! # What is generated
//!
//! `#[tool]` on `fn add` adds `fn add_tool<R: RegisterTool>(registry: R) -> R`
//! beside it, with the function's visibility: it registers the tool on a
//! `ServiceBuilder`, or on a live registry's `Change` at run time.
//! `#[tools]` on an `impl App` block registers every method marked
//! `#[tool]` (taking `&self` or `self: Arc<Self>`) with
//! `App::tools(self: &Arc<Self>, registry)`, each call on that value.
//!
//! # Mistakes it refuses at compile time
//!
//! A tool without a description:
//!
//! ```compile_fail
//! use snodo::prelude::*;
//! #[tool]
//! async fn undocumented() -> &'static str { "" }
//! ```
//!
//! A name `tools/list` would not carry (§ Tool Names):
//!
//! ```compile_fail
//! use snodo::prelude::*;
//! /// Spaces are not allowed.
//! #[tool(name = "two words")]
//! async fn spaced() -> &'static str { "" }
//! ```
//!
//! A borrowed argument (arguments are deserialized into owned values):
//!
//! ```compile_fail
//! use snodo::prelude::*;
//! /// Echo.
//! #[tool]
//! async fn echo(text: &str) -> String { text.to_owned() }
//! ```
//!
//! A method that would need exclusive access while calls run at once:
//!
//! ```compile_fail
//! use snodo::prelude::*;
//! struct App;
//! #[tools]
//! impl App {
//!     /// Mutate.
//!     #[tool]
//!     async fn mutate(&mut self) -> &'static str { "" }
//! }
//! ```
//!
//! An argument whose type cannot be deserialized (here a type that is
//! neither an argument nor marked `#[extract]`):
//!
//! ```compile_fail
//! use snodo::prelude::*;
//! struct NotAnArgument;
//! /// Take it.
//! #[tool]
//! async fn take(x: NotAnArgument) -> &'static str { "" }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod expand;
mod options;
mod params;

/// A function as a tool: generates `<name>_tool(registry)` beside it. See
/// the [crate documentation](crate).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(item as syn::ItemFn);
    expand::free(attr.into(), item)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The methods marked `#[tool]` of an `impl` block as tools: generates
/// `tools(self: &Arc<Self>, registry)`. See the [crate
/// documentation](crate).
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(item as syn::ItemImpl);
    expand::methods(attr.into(), item)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The README's program, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
