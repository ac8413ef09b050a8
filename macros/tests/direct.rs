//! `crate = snodo_proto`: the macro in a crate that depends on
//! snodo-proto directly, as the repository's own applications do.

use serde_json::json;
use snodo::testkit::{block_on, TestClient};
use snodo_macros::tool;
use snodo_proto::extract::State;
use snodo_proto::{ErrorObject, Service};

struct Prefix {
    text: String,
}

/// Prefix a word.
#[tool(crate = snodo_proto)]
async fn prefix(prefix: State<Prefix>, word: String) -> Result<String, ErrorObject> {
    Ok(format!("{}{word}", prefix.text))
}

#[test]
fn the_registration_names_snodo_proto() {
    let service = prefix_tool(Service::builder().state(Prefix { text: "un".into() }))
        .build()
        .expect("service");
    let mut client = TestClient::new(&service);
    let result = block_on(client.request(
        "tools/call",
        json!({"name": "prefix", "arguments": {"word": "done"}}),
    ))
    .expect("tools/call");
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "undone"}])
    );
}
