//! The crate-knowledge server against the seeded registry cache in
//! `tests/registry` (three tiny crate versions: tinyjson 0.2.0 and
//! colorize 1.0.0 unpacked, tinyjson 0.1.0 only downloaded, a `.crate`
//! archive in `cache/`), through the in-process client: the catalog, every
//! tool's outcomes with its errors, the resources, the prompt, indexing
//! with progress, and change notifications. Expected answers are literal
//! JSON.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{json, Value};
use snodo_crates::watch::Watcher;
use snodo_crates::{service, App};
use snodo_testkit::{assert_json_schema_2020_12, assert_schema_valid, block_on, Gate, TestClient};

fn seeded() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/registry")
}

fn client() -> TestClient {
    TestClient::new(&service(App::open(seeded())).unwrap())
}

fn literal(text: &str) -> Value {
    serde_json::from_str(text).expect("the expected value is JSON")
}

/// The SVG an icon's `data:` URI carries.
fn svg_of(icon: &Value) -> String {
    use base64::Engine as _;
    let src = icon["src"].as_str().unwrap();
    let data = src
        .strip_prefix("data:image/svg+xml;base64,")
        .unwrap_or_else(|| panic!("not an inline SVG: {src}"));
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap(),
    )
    .unwrap()
}

/// `structuredContent` of a successful call.
fn structured(client: &mut TestClient, tool: &str, args: Value) -> Value {
    let result = block_on(client.call_tool(tool, args)).unwrap();
    assert_eq!(result.is_error, None, "{tool}: {:?}", result.content);
    result.structured_content.expect("a structured result")
}

/// The text of a tool execution error.
fn tool_error(client: &mut TestClient, tool: &str, args: Value) -> String {
    let result = block_on(client.call_tool(tool, args)).unwrap();
    assert_eq!(result.is_error, Some(true));
    serde_json::to_value(&result.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_catalog_lists_every_tool_with_generated_schemas_titles_and_annotations() {
    let mut c = client();
    let tools = block_on(c.list_tools()).unwrap();
    let summary: Vec<Value> = tools
        .iter()
        .map(|t| json!([t.name, t.title, t.annotations, t.input_schema["required"]]))
        .collect();
    let read_only = json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false});
    assert_eq!(
        summary,
        vec![
            json!(["search_crates", "Search crates", read_only, ["query"]]),
            json!(["crate_info", "Crate info", read_only, ["name"]]),
            json!([
                "find_in_crate",
                "Find in crate",
                read_only,
                ["name", "text"]
            ]),
            json!([
                "compare_versions",
                "Compare versions",
                read_only,
                ["name", "from", "to"]
            ]),
            json!(["index_cache", "Index the cache", read_only, null]),
        ]
    );
    // Each tool's icon is an SVG inline as a data: URI.
    for t in &tools {
        let icons = serde_json::to_value(&t.icons).unwrap();
        assert_eq!(
            (
                &icons[0]["mimeType"],
                &icons[0]["sizes"],
                icons.as_array().map(Vec::len)
            ),
            (&json!("image/svg+xml"), &json!(["any"]), Some(1)),
            "{}",
            t.name
        );
        let svg = svg_of(&icons[0]);
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24""#)
                && svg.ends_with("</svg>"),
            "{}: {svg}",
            t.name
        );
    }
    assert!(svg_of(&serde_json::to_value(&tools[0].icons).unwrap()[0])
        .contains(r#"<circle cx="10" cy="10" r="6"/><path d="M15 15l5 5"/>"#));
    for t in &tools {
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert_eq!(
            t.output_schema.as_ref().map(|s| s["type"].clone()),
            Some(json!("object")),
            "{}",
            t.name
        );
    }
    let templates: Vec<Value> =
        block_on(c.list_all("resources/templates/list", "resourceTemplates")).unwrap();
    assert_eq!(
        templates,
        vec![
            literal(
                r#"{"uriTemplate":"crates://{name}/{version}/readme","name":"readme","description":"A crate version's README","mimeType":"text/markdown"}"#
            ),
            literal(
                r#"{"uriTemplate":"crates://{name}/{version}/file/{+path}","name":"source-file","description":"A file of a crate version's source, by its path in the crate"}"#
            ),
        ]
    );
    let mut prompts: Vec<Value> = block_on(c.list_all("prompts/list", "prompts")).unwrap();
    let icon = prompts[0].as_object_mut().unwrap().remove("icons").unwrap();
    assert!(svg_of(&icon[0]).contains(r#"<path d="M9 6h11M9 12h11M9 18h11"/>"#));
    assert_eq!(
        prompts,
        vec![literal(
            r#"{"name":"review_upgrade","title":"Review an upgrade","description":"Review upgrading a dependency from one version to another",
                "arguments":[
                  {"name":"from","description":"The version in use.","required":true},
                  {"name":"name","description":"The dependency to upgrade.","required":true},
                  {"name":"to","description":"The version to upgrade to.","required":true}]}"#
        )]
    );
}

#[test]
fn the_catalog_is_valid_schema_json_and_every_generated_schema_is_2020_12() {
    let mut c = client();
    for (method, result) in [
        ("tools/list", "ListToolsResult"),
        ("prompts/list", "ListPromptsResult"),
        ("resources/templates/list", "ListResourceTemplatesResult"),
    ] {
        let page = block_on(c.request(method, json!({}))).unwrap();
        assert_schema_valid(result, &page);
    }
    for t in block_on(c.list_tools()).unwrap() {
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert_json_schema_2020_12(&format!("{}: inputSchema", t.name), &t.input_schema);
        let output = t.output_schema.expect("every tool's result is structured");
        assert_json_schema_2020_12(&format!("{}: outputSchema", t.name), &output);
    }
}

#[test]
fn search_ranks_names_before_keywords_before_descriptions() {
    let mut c = client();
    assert_eq!(
        structured(&mut c, "search_crates", json!({"query": "json"})),
        literal(
            r#"{"total":1,"crates":[{"name":"tinyjson","latest":"0.2.0","versions":["0.1.0","0.2.0"],
                "description":"A tiny JSON parser","keywords":["json","parser","serde"]}]}"#
        )
    );
    let names = |v: Value| -> Vec<String> {
        v["crates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    // "ansi" is only a keyword of colorize; "tiny" a name prefix.
    assert_eq!(
        names(structured(
            &mut c,
            "search_crates",
            json!({"query": "ansi"})
        )),
        ["colorize"]
    );
    assert_eq!(
        names(structured(
            &mut c,
            "search_crates",
            json!({"query": "TINY parser"})
        )),
        ["tinyjson"]
    );
    // Every word must match: none does both.
    assert_eq!(
        structured(&mut c, "search_crates", json!({"query": "json terminal"})),
        json!({"crates": [], "total": 0})
    );
    // "o" is in both names; the limit keeps the first.
    let v = structured(&mut c, "search_crates", json!({"query": "o", "limit": 1}));
    assert_eq!(
        (names(v.clone()), v["total"].clone()),
        (vec!["colorize".to_string()], json!(2))
    );
}

#[test]
fn search_arguments_outside_their_schema_are_invalid_params() {
    let mut c = client();
    let e = block_on(c.call_tool("search_crates", json!({"query": ""}))).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "Invalid arguments for tool search_crates: /query: \"\" is shorter than 1 character"
        )
    );
    let e = block_on(c.call_tool("search_crates", json!({"query": "x", "limit": 0}))).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "Invalid arguments for tool search_crates: /limit: 0 is less than the minimum of 1"
        )
    );
}

#[test]
fn crate_info_shows_versions_features_and_dependencies() {
    let mut c = client();
    assert_eq!(
        structured(&mut c, "crate_info", json!({"name": "tinyjson"})),
        literal(
            r#"{"name":"tinyjson","version":"0.2.0","versions":["0.1.0","0.2.0"],
                "description":"A tiny JSON parser",
                "features":{"default":["std"],"preserve_order":[],"std":[]},
                "dependencies":[],
                "readme":"crates://tinyjson/0.2.0/readme"}"#
        )
    );
    assert_eq!(
        structured(
            &mut c,
            "crate_info",
            json!({"name": "colorize", "version": "1.0.0"})
        ),
        literal(
            r#"{"name":"colorize","version":"1.0.0","versions":["1.0.0"],
                "description":"Colour terminal text",
                "features":{"default":[],"json":["dep:tinyjson"]},
                "dependencies":[
                  {"name":"tinyjson","req":"0.2","kind":"normal","optional":true},
                  {"name":"tinyjson","req":"0.2","kind":"dev","optional":false}],
                "readme":"crates://colorize/1.0.0/readme"}"#
        )
    );
    assert_eq!(
        tool_error(&mut c, "crate_info", json!({"name": "serde"})),
        "No crate named \"serde\" is in the local registry cache; search_crates finds names"
    );
    assert_eq!(
        tool_error(
            &mut c,
            "crate_info",
            json!({"name": "tinyjson", "version": "9.9.9"})
        ),
        "tinyjson 9.9.9 is not in the local registry cache; it has 0.1.0, 0.2.0"
    );
}

#[test]
fn find_in_crate_finds_text_and_definitions() {
    let mut c = client();
    assert_eq!(
        structured(
            &mut c,
            "find_in_crate",
            json!({"name": "tinyjson", "text": "Deserializer", "symbol": true})
        ),
        literal(
            r#"{"name":"tinyjson","version":"0.2.0","truncated":false,
                "matches":[{"file":"src/de/mod.rs","line":6,"text":"pub struct Deserializer<'a> {"}]}"#
        )
    );
    assert_eq!(
        structured(
            &mut c,
            "find_in_crate",
            json!({"name": "tinyjson", "version": "0.1.0", "text": "Value::Null", "limit": 1})
        ),
        literal(
            r#"{"name":"tinyjson","version":"0.1.0","truncated":true,
                "matches":[{"file":"src/lib.rs","line":14,"text":"\"null\" => Some(Value::Null),"}]}"#
        )
    );
    assert_eq!(
        structured(
            &mut c,
            "find_in_crate",
            json!({"name": "colorize", "text": "blue"})
        ),
        json!({"name": "colorize", "version": "1.0.0", "truncated": false, "matches": []})
    );
    assert_eq!(
        tool_error(
            &mut c,
            "find_in_crate",
            json!({"name": "nope", "text": "x"})
        ),
        "No crate named \"nope\" is in the local registry cache; search_crates finds names"
    );
}

#[test]
fn compare_versions_names_what_an_upgrade_adds_and_breaks() {
    let mut c = client();
    assert_eq!(
        structured(
            &mut c,
            "compare_versions",
            json!({"name": "tinyjson", "from": "0.1.0", "to": "0.2.0"})
        ),
        literal(
            r#"{"name":"tinyjson","from":"0.1.0","to":"0.2.0",
                "added":["fn de::new","fn de::value","fn to_writer","mod de","struct de::Deserializer"],
                "removed":["fn to_string"],
                "features_added":["preserve_order"],
                "features_removed":[]}"#
        )
    );
    assert_eq!(
        tool_error(
            &mut c,
            "compare_versions",
            json!({"name": "tinyjson", "from": "0.1.0", "to": "0.3.0"})
        ),
        "tinyjson 0.3.0 is not in the local registry cache; it has 0.1.0, 0.2.0"
    );
}

#[test]
fn readmes_and_source_files_are_resources() {
    let mut c = client();
    let readme = block_on(c.request(
        "resources/read",
        json!({"uri": "crates://colorize/1.0.0/readme"}),
    ))
    .unwrap();
    assert_eq!(
        readme["contents"],
        literal(
            r##"[{"uri":"crates://colorize/1.0.0/readme","mimeType":"text/markdown","text":"# colorize\n\n`red(\"text\")` wraps text in ANSI colour codes.\n"}]"##
        )
    );
    let file = block_on(c.read_resource("crates://tinyjson/0.2.0/file/src/de/mod.rs")).unwrap();
    let file = serde_json::to_value(&file.contents[0]).unwrap();
    assert_eq!(file["mimeType"], "text/x-rust");
    assert!(file["text"]
        .as_str()
        .unwrap()
        .starts_with("//! Reading JSON text.\n"));
    // Unknown crates, missing files and paths leaving the crate: not found
    // (`server/resources.mdx` § Error Handling: -32602 with the uri).
    for uri in [
        "crates://serde/1.0.0/readme",
        "crates://tinyjson/0.2.0/file/src/missing.rs",
        "crates://tinyjson/0.2.0/file/../colorize-1.0.0/src/lib.rs",
        "crates://tinyjson/0.2.0/file//etc/passwd",
    ] {
        let e = block_on(c.read_resource(uri)).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str(), e.data),
            (-32602, "Resource not found", Some(json!({ "uri": uri }))),
            "{uri}"
        );
    }
}

#[test]
fn the_upgrade_review_prompt_carries_the_comparison_and_the_new_readme() {
    let mut c = client();
    let prompt = block_on(c.request(
        "prompts/get",
        json!({"name": "review_upgrade", "arguments": {"name": "tinyjson", "from": "0.1.0", "to": "0.2.0"}}),
    ))
    .unwrap();
    assert_eq!(
        prompt["description"],
        "Upgrade review of tinyjson 0.1.0 → 0.2.0"
    );
    let messages = prompt["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    let first = messages[0]["content"]["text"].as_str().unwrap();
    assert!(
        first.starts_with("Review the upgrade of the dependency `tinyjson` from 0.1.0 to 0.2.0.")
    );
    assert!(
        first.contains("\"removed\": [\n    \"fn to_string\"\n  ]"),
        "{first}"
    );
    assert_eq!(
        messages[1],
        literal(
            r##"{"role":"user","content":{"type":"resource","resource":{"uri":"crates://tinyjson/0.2.0/readme","mimeType":"text/markdown",
                "text":"# tinyjson 0.2\n\nParse JSON text into a `Value`; write it with `to_writer`.\n`to_string` is gone: use `to_writer` with a `String`.\n"}}}"##
        )
    );
    let e = block_on(c.get_prompt(
        "review_upgrade",
        json!({"name": "tinyjson", "from": "0.1.0", "to": "7"}),
    ))
    .unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (
            -32602,
            "tinyjson 7 is not in the local registry cache; it has 0.1.0, 0.2.0"
        )
    );
    let e = block_on(c.get_prompt("review_upgrade", json!({"name": "tinyjson"}))).unwrap_err();
    assert_eq!(e.code, -32602);
}

/// A copy of the seeded registry the test may change.
fn scratch_registry() -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "snodo-crates-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&seeded(), &dir);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

const TINYJSON_02: &str = "src/index.crates.io-0000000000000000/tinyjson-0.2.0";

#[test]
fn indexing_reports_progress_and_tells_readme_subscribers_what_changed() {
    let registry = scratch_registry();
    let mut c = TestClient::new(&service(App::open(&registry)).unwrap());
    let stream = block_on(c.listen(json!({"resourceSubscriptions": ["crates://tinyjson/0.2.0/readme", "crates://colorize/1.0.0/readme"]}))).unwrap();
    assert_eq!(
        stream.honoured,
        json!({"resourceSubscriptions": ["crates://colorize/1.0.0/readme", "crates://tinyjson/0.2.0/readme"]})
    );

    // Unchanged: the index is the same, nothing is notified.
    let result = block_on(c.request(
        "tools/call",
        json!({"name": "index_cache", "arguments": {}, "_meta": {"progressToken": "ix"}}),
    ))
    .unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"crates": 2, "versions": 3, "skipped": 0})
    );
    let progress: Vec<Value> = c
        .take_notifications()
        .into_iter()
        .map(|n| n["params"].clone())
        .collect();
    assert_eq!(
        progress,
        vec![
            json!({"progressToken": "ix", "progress": 1.0, "total": 3.0, "message": "1 of 3 crate versions read"}),
            json!({"progressToken": "ix", "progress": 2.0, "total": 3.0, "message": "2 of 3 crate versions read"}),
            json!({"progressToken": "ix", "progress": 3.0, "total": 3.0, "message": "3 of 3 crate versions read"}),
        ]
    );
    assert_eq!(c.take_events(&stream), Vec::<Value>::new());

    // tinyjson 0.2.0's manifest changes and colorize goes away.
    let manifest = registry.join(TINYJSON_02).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("A tiny JSON parser", "A tinier JSON parser"),
    )
    .unwrap();
    std::fs::remove_dir_all(registry.join("src/index.crates.io-0000000000000000/colorize-1.0.0"))
        .unwrap();
    let result = block_on(c.call_tool("index_cache", json!({}))).unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"crates": 1, "versions": 2, "skipped": 0}))
    );
    let uris: Vec<Value> = (0..2)
        .map(|_| block_on(c.next_event(&stream))["params"]["uri"].clone())
        .collect();
    assert_eq!(
        uris,
        [
            json!("crates://colorize/1.0.0/readme"),
            json!("crates://tinyjson/0.2.0/readme")
        ]
    );
    let _ = std::fs::remove_dir_all(&registry);
}

#[test]
fn the_watcher_notices_a_new_crate_version_on_disk() {
    let registry = scratch_registry();
    let app = App::open(&registry);
    let mut c = TestClient::new(&service(app.clone()).unwrap());
    let stream =
        block_on(c.listen(json!({"resourceSubscriptions": ["crates://tinyjson/0.3.0/readme"]})))
            .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _watcher = {
        let _on = runtime.enter();
        Watcher::start(app, Duration::from_millis(100)).unwrap()
    };

    // cargo unpacks tinyjson 0.3.0.
    let from = registry.join(TINYJSON_02);
    let to = registry.join("src/index.crates.io-0000000000000000/tinyjson-0.3.0");
    copy_dir(&from, &to);
    let manifest = to.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("version = \"0.2.0\"", "version = \"0.3.0\""),
    )
    .unwrap();

    // Polled, not awaited: a watcher that missed the change fails the
    // test instead of hanging it.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let events = loop {
        let events = c.take_events(&stream);
        if !events.is_empty() || std::time::Instant::now() > deadline {
            break events;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        events[..],
        [literal(
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"crates://tinyjson/0.3.0/readme"}}"#
        )]
    );
    let info = structured(&mut c, "crate_info", json!({"name": "tinyjson"}));
    assert_eq!(info["versions"], json!(["0.1.0", "0.2.0", "0.3.0"]));
    let _ = std::fs::remove_dir_all(&registry);
}

/// `tasks/get` of `id` until `done` says it is what the test waits for.
fn poll_task(c: &mut TestClient, id: &Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let task = block_on(c.request("tasks/get", json!({"taskId": id}))).unwrap();
        if done(&task) || std::time::Instant::now() > deadline {
            return task;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn indexing_runs_as_a_task_for_a_client_that_asks_with_its_progress() {
    // The gate holds the index's answer until the test has seen the task's
    // progress: the run stays `working` whatever the machine's speed.
    let gate = Gate::closed();
    let service = snodo_crates::with_tasks(snodo_crates::builder(App::open(seeded())))
        .tool_layer("index_cache", gate.clone())
        .build()
        .unwrap();
    let runner = snodo_tasks::TaskRunner::new(&service, Default::default())
        .unwrap()
        .executor(snodo_testkit::blocking_threads());
    let _driver = snodo_tasks::drive::start(runner, snodo_tasks::drive::thread_spawner()).unwrap();
    let mut c = TestClient::new(&service)
        .with_capabilities(json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let created = block_on(c.request(
        "tools/call",
        json!({"name": "index_cache", "arguments": {}}),
    ))
    .unwrap();
    assert_eq!(
        (&created["resultType"], &created["status"]),
        (&json!("task"), &json!("working"))
    );
    assert_eq!(created.get("statusMessage"), None);
    let id = created["taskId"].clone();
    let working = poll_task(&mut c, &id, |t| t.get("statusMessage").is_some());
    assert_eq!(working["status"], "working");
    // The runner shows the latest report it has seen (`RunnerConfig::renew_every`).
    let message = working["statusMessage"].as_str().unwrap();
    assert!(
        ["1 of 3", "2 of 3", "3 of 3"]
            .map(|n| format!("{n} crate versions read"))
            .contains(&message.to_owned()),
        "{message}"
    );
    gate.open();
    let done = poll_task(&mut c, &id, |t| t["status"] != "working");
    assert_eq!(done["status"], "completed");
    assert_eq!(done.get("statusMessage"), None);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"crates": 2, "versions": 3, "skipped": 0})
    );
    // Without the extension declared it is a plain call.
    let mut plain = TestClient::new(&service);
    let result = block_on(plain.call_tool("index_cache", json!({}))).unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"crates": 2, "versions": 3, "skipped": 0}))
    );
}

#[test]
fn crate_names_and_versions_complete() {
    let mut c = client();
    let names = block_on(c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "review_upgrade"}, "argument": {"name": "name", "value": "ti"}}),
    ))
    .unwrap();
    assert_eq!(
        names["completion"],
        json!({"values": ["tinyjson"], "total": 1, "hasMore": false})
    );
    let versions = block_on(c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "crates://{name}/{version}/readme"},
               "argument": {"name": "version", "value": "0."},
               "context": {"arguments": {"name": "tinyjson"}}}),
    ))
    .unwrap();
    assert_eq!(
        versions["completion"],
        json!({"values": ["0.2.0", "0.1.0"], "total": 2, "hasMore": false})
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_inside_a_crate_does_not_lead_out_of_it() {
    let registry = scratch_registry();
    let secret = registry.join("secret.txt");
    std::fs::write(&secret, "not a crate file").unwrap();
    let crate_dir = registry.join(TINYJSON_02);
    std::os::unix::fs::symlink(&secret, crate_dir.join("src/leak.rs")).unwrap();
    std::os::unix::fs::symlink(&registry, crate_dir.join("up")).unwrap();
    let mut c = TestClient::new(&service(App::open(&registry)).unwrap());
    for uri in [
        "crates://tinyjson/0.2.0/file/src/leak.rs",
        "crates://tinyjson/0.2.0/file/up/secret.txt",
    ] {
        let e = block_on(c.read_resource(uri)).unwrap_err();
        assert_eq!(
            (e.code, e.data),
            (-32602, Some(json!({ "uri": uri }))),
            "{uri}"
        );
    }
    // A file inside still reads.
    block_on(c.read_resource("crates://tinyjson/0.2.0/file/src/lib.rs")).unwrap();
    let _ = std::fs::remove_dir_all(&registry);
}

const ARCHIVES: &str = "cache/index.crates.io-0000000000000000";

#[test]
fn a_crate_cargo_downloaded_but_did_not_unpack_is_read_from_its_archive() {
    let mut c = client();
    assert_eq!(
        structured(
            &mut c,
            "crate_info",
            json!({"name": "tinyjson", "version": "0.1.0"})
        ),
        literal(
            r#"{"name":"tinyjson","version":"0.1.0","versions":["0.1.0","0.2.0"],
                "description":"A tiny JSON parser",
                "features":{"default":["std"],"std":[]},
                "dependencies":[],
                "readme":"crates://tinyjson/0.1.0/readme"}"#
        )
    );
    let readme = block_on(c.request(
        "resources/read",
        json!({"uri": "crates://tinyjson/0.1.0/readme"}),
    ))
    .unwrap();
    assert_eq!(
        readme["contents"],
        literal(
            r##"[{"uri":"crates://tinyjson/0.1.0/readme","mimeType":"text/markdown",
                 "text":"# tinyjson 0.1\n\nParse JSON text into a `Value`, and write it back with `to_string`.\n"}]"##
        )
    );
    let file = block_on(c.read_resource("crates://tinyjson/0.1.0/file/src/lib.rs")).unwrap();
    let file = serde_json::to_value(&file.contents[0]).unwrap();
    assert_eq!(file["mimeType"], "text/x-rust");
    assert_eq!(
        file["text"].as_str().unwrap().lines().nth(13),
        Some("        \"null\" => Some(Value::Null),")
    );
    assert_eq!(
        structured(
            &mut c,
            "find_in_crate",
            json!({"name": "tinyjson", "version": "0.1.0", "text": "to_string", "symbol": true})
        ),
        literal(
            r#"{"name":"tinyjson","version":"0.1.0","truncated":false,
                "matches":[{"file":"src/lib.rs","line":22,"text":"pub fn to_string(value: &Value) -> String {"}]}"#
        )
    );
    for uri in [
        "crates://tinyjson/0.1.0/file/src/missing.rs",
        "crates://tinyjson/0.1.0/file/../tinyjson-0.2.0/src/lib.rs",
    ] {
        let e = block_on(c.read_resource(uri)).unwrap_err();
        assert_eq!(
            (e.code, e.data),
            (-32602, Some(json!({ "uri": uri }))),
            "{uri}"
        );
    }
}

#[test]
fn once_cargo_unpacks_an_archived_crate_its_directory_is_read() {
    let registry = scratch_registry();
    let unpacked = registry.join("src/index.crates.io-0000000000000000/tinyjson-0.1.0");
    std::fs::create_dir_all(unpacked.join("src")).unwrap();
    std::fs::write(
        unpacked.join("Cargo.toml"),
        "[package]\nname = \"tinyjson\"\nversion = \"0.1.0\"\ndescription = \"Unpacked\"\n",
    )
    .unwrap();
    let mut c = TestClient::new(&service(App::open(&registry)).unwrap());
    let info = structured(
        &mut c,
        "crate_info",
        json!({"name": "tinyjson", "version": "0.1.0"}),
    );
    assert_eq!(
        (&info["description"], &info["versions"]),
        (&json!("Unpacked"), &json!(["0.1.0", "0.2.0"]))
    );
    let _ = std::fs::remove_dir_all(&registry);
}

/// A gzipped tar of `entries` (raw path, type, contents), the paths
/// written into the headers as given.
fn crate_archive(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut tar = tar::Builder::new(Vec::new());
    for (path, kind, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.as_gnu_mut().unwrap().name[..path.len()].copy_from_slice(path.as_bytes());
        h.set_entry_type(*kind);
        h.set_mode(0o644);
        h.set_size(data.len() as u64);
        if *kind == tar::EntryType::Symlink {
            h.set_link_name("../../../../secret.txt").unwrap();
        }
        h.set_cksum();
        tar.append(&h, *data).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

#[test]
fn hostile_archives_are_read_only_inside_their_root_or_skipped() {
    let registry = scratch_registry();
    std::fs::write(registry.join("secret.txt"), "not a crate file").unwrap();
    let file = tar::EntryType::Regular;
    std::fs::write(
        registry.join(ARCHIVES).join("evil-0.1.0.crate"),
        crate_archive(&[
            (
                "evil-0.1.0/Cargo.toml",
                file,
                b"[package]\nname = \"evil\"\nversion = \"0.1.0\"\nreadme = \"../secret.txt\"\n",
            ),
            ("evil-0.1.0/src/lib.rs", file, b"pub fn inside() {}\n"),
            (
                "evil-0.1.0/../../../secret.txt",
                file,
                b"pub fn escaped() {}\n",
            ),
            ("/etc/evil.rs", file, b"pub fn absolute() {}\n"),
            ("evil-0.1.0/src/link.rs", tar::EntryType::Symlink, b""),
        ]),
    )
    .unwrap();
    // Not a gzipped tar at all: skipped, the rest of the cache is served.
    std::fs::write(registry.join(ARCHIVES).join("junk-1.0.0.crate"), b"junk").unwrap();
    let mut c = TestClient::new(&service(App::open(&registry)).unwrap());
    assert_eq!(
        structured(&mut c, "index_cache", json!({})),
        json!({"crates": 3, "versions": 4, "skipped": 1})
    );
    let info = structured(&mut c, "crate_info", json!({"name": "evil"}));
    assert_eq!(info["readme"], Value::Null);
    assert_eq!(
        structured(
            &mut c,
            "find_in_crate",
            json!({"name": "evil", "text": "pub fn"})
        )["matches"],
        json!([{"file": "src/lib.rs", "line": 1, "text": "pub fn inside() {}"}])
    );
    for uri in [
        "crates://evil/0.1.0/file/src/link.rs",
        "crates://evil/0.1.0/file/../secret.txt",
        "crates://evil/0.1.0/readme",
    ] {
        let e = block_on(c.read_resource(uri)).unwrap_err();
        assert_eq!(
            (e.code, e.data),
            (-32602, Some(json!({ "uri": uri }))),
            "{uri}"
        );
    }
    let _ = std::fs::remove_dir_all(&registry);
}

#[test]
fn the_watcher_notices_a_crate_archive_cargo_downloaded() {
    let registry = scratch_registry();
    let app = App::open(&registry);
    let mut c = TestClient::new(&service(app.clone()).unwrap());
    let stream =
        block_on(c.listen(json!({"resourceSubscriptions": ["crates://colorize/1.1.0/readme"]})))
            .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _watcher = {
        let _on = runtime.enter();
        Watcher::start(app, Duration::from_millis(100)).unwrap()
    };

    // `cargo fetch` downloads colorize 1.1.0 and does not unpack it. The
    // archive is put in place whole (written aside, then renamed), so the
    // watcher cannot catch it half-written.
    let file = tar::EntryType::Regular;
    let aside = registry.join("colorize-1.1.0.download");
    std::fs::write(
        &aside,
        crate_archive(&[
            (
                "colorize-1.1.0/Cargo.toml",
                file,
                b"[package]\nname = \"colorize\"\nversion = \"1.1.0\"\n",
            ),
            ("colorize-1.1.0/README.md", file, b"# colorize 1.1\n"),
        ]),
    )
    .unwrap();
    std::fs::rename(&aside, registry.join(ARCHIVES).join("colorize-1.1.0.crate")).unwrap();

    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let events = loop {
        let events = c.take_events(&stream);
        if !events.is_empty() || std::time::Instant::now() > deadline {
            break events;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(
        events[..],
        [literal(
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"crates://colorize/1.1.0/readme"}}"#
        )]
    );
    let readme = block_on(c.read_resource("crates://colorize/1.1.0/readme")).unwrap();
    assert_eq!(
        serde_json::to_value(&readme.contents[0]).unwrap()["text"],
        "# colorize 1.1\n"
    );
    let _ = std::fs::remove_dir_all(&registry);
}

#[test]
fn every_tool_refuses_arguments_outside_its_schema_as_invalid_params() {
    let mut c = client();
    let answers: Vec<(i64, String)> = [
        ("crate_info", json!({"version": "1.0.0"})),
        ("find_in_crate", json!({"name": "tinyjson", "text": ""})),
        (
            "compare_versions",
            json!({"name": "tinyjson", "from": "0.1.0"}),
        ),
        ("index_cache", json!({"full": true})),
    ]
    .into_iter()
    .map(|(tool, args)| {
        let e = block_on(c.call_tool(tool, args)).unwrap_err();
        (e.code, e.message)
    })
    .collect();
    assert_eq!(
        answers,
        [
            "crate_info: \"name\" is a required property",
            "find_in_crate: /text: \"\" is shorter than 1 character",
            "compare_versions: \"to\" is a required property",
            "index_cache: Additional properties are not allowed ('full' was unexpected)",
        ]
        .map(|why| (-32602, format!("Invalid arguments for tool {why}")))
    );
}

#[test]
fn the_watcher_needs_a_tokio_runtime_and_says_so() {
    let registry = scratch_registry();
    let app = App::open(&registry);
    let refused = Watcher::start(app, Duration::from_millis(100))
        .err()
        .unwrap();
    assert!(
        refused.to_string().starts_with("the watcher runs on tokio"),
        "{refused}"
    );
    let _ = std::fs::remove_dir_all(&registry);
}
