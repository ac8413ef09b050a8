//! A notes server written with `#[tools]` (feature `macros`): the methods
//! of `Notes` are its tools, their parameters the arguments, served on
//! stdio. The same server with the builder is `hello.rs`'s shape.
//!
//! ```text
//! cargo run -p snodo --features macros --example notes
//! ```

use std::sync::{Arc, Mutex};

use snodo::deps::tokio;
use snodo::prelude::*;

/// The application: calls share one value.
#[derive(Default)]
struct Notes {
    lines: Mutex<Vec<String>>,
}

#[tools]
impl Notes {
    /// Keep a note; answers how many notes there are.
    #[tool(name = "notes.add", title = "Add a note")]
    async fn add(
        &self,
        /// The note's text.
        text: String,
    ) -> Result<Json<usize>, ToolError> {
        if text.trim().is_empty() {
            // A tool execution error: the model reads it and retries.
            return Err(ToolError::from("text is empty: say what to note"));
        }
        let mut lines = self
            .lines
            .lock()
            .map_err(|_| ToolError::from("notes unavailable"))?;
        lines.push(text);
        Ok(Json(lines.len()))
    }

    /// The notes containing a word, oldest first.
    #[tool(name = "notes.find", read_only)]
    async fn find(
        &self,
        /// A word the notes contain; every note without it.
        word: Option<String>,
        /// At most this many.
        #[serde(default = "ten")]
        limit: usize,
    ) -> Json<Vec<String>> {
        let lines = self.lines.lock().map(|l| l.clone()).unwrap_or_default();
        let word = word.unwrap_or_default();
        Json(
            lines
                .into_iter()
                .filter(|l| l.contains(&word))
                .take(limit)
                .collect(),
        )
    }
}

fn ten() -> usize {
    10
}

#[tokio::main(crate = "snodo::deps::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let notes = Arc::new(Notes::default());
    let service = notes.tools(Service::builder()).build()?;
    serve_stdio(&service, Options::default()).await?;
    Ok(())
}
