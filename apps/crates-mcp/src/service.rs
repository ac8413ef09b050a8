//! The MCP surface: the application state, its tools (the methods of
//! [`App`] marked `#[tool]`, through `snodo-macros`), resources and
//! prompt, registered on a [`ServiceBuilder`] with typed arguments and
//! results (every schema is generated from the types below).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use snodo_macros::tools;
use snodo_proto::extract::State;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    BuildError, ChangeEvent, Completion, CompletionRequest, Content, Context, ErrorObject,
    GetPromptResult, Hub, Icon, Implementation, Notifications, Overflow, Prompt, PromptMessage,
    ReadResourceResult, ResourceArgs, ResourceContents, ResourceError, ResourceTemplate, Service,
    ServiceBuilder, ToolError,
};

use crate::cache::{self, Catalog, CrateVersion, Dependency};
use crate::source::{self, Match};

/// Longest resource text served, in bytes.
const MAX_RESOURCE: u64 = 4 * 1024 * 1024;

/// The application state every handler receives.
pub struct App {
    registry: PathBuf,
    catalog: RwLock<Arc<Catalog>>,
    hub: Hub,
    /// An `index_cache` is reading the cache (one at a time).
    indexing: AtomicBool,
}

impl App {
    /// Read the cache at `registry` (`$CARGO_HOME/registry`).
    pub fn open(registry: impl Into<PathBuf>) -> Arc<App> {
        let registry = registry.into();
        let catalog = cache::scan(&registry, |_, _| {});
        Arc::new(App {
            registry,
            catalog: RwLock::new(Arc::new(catalog)),
            hub: Hub::new(1024, Overflow::DropOldest),
            indexing: AtomicBool::new(false),
        })
    }

    /// The registry directory served.
    pub fn registry(&self) -> &std::path::Path {
        &self.registry
    }

    /// The catalog as last read.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The hub the service's listen streams are fed from.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Put `catalog` in place of the current one and tell listen streams
    /// what changed: `resources/updated` for the README of every crate
    /// version added, changed or removed.
    pub fn replace(&self, catalog: Catalog) {
        let old = {
            let mut slot = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            std::mem::replace(&mut *slot, Arc::new(catalog))
        };
        let new = self.catalog();
        let versions = |c: &Catalog| -> BTreeMap<(String, String), CrateVersion> {
            c.crates
                .values()
                .flatten()
                .map(|v| ((v.name.clone(), v.version.clone()), v.clone()))
                .collect()
        };
        let (before, after) = (versions(&old), versions(&new));
        let keys: BTreeSet<_> = before.keys().chain(after.keys()).collect();
        for key in keys {
            if before.get(key) != after.get(key) {
                self.hub.publish(ChangeEvent::ResourceUpdated {
                    uri: readme_uri(&key.0, &key.1),
                });
            }
        }
    }
}

/// The README resource of a crate version.
pub fn readme_uri(name: &str, version: &str) -> String {
    format!("crates://{name}/{version}/readme")
}

/// A source-file resource of a crate version.
pub fn file_uri(name: &str, version: &str, path: &str) -> String {
    format!("crates://{name}/{version}/file/{path}")
}

// ---------------------------------------------------------------- search

/// Arguments of `search_crates`.
#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for in crate names, keywords and descriptions
    /// (case-insensitive).
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// At most this many crates (default 20).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u16>,
}

/// A crate as search lists it.
#[derive(Serialize, JsonSchema)]
pub struct CrateSummary {
    /// Package name.
    pub name: String,
    /// Newest version in the cache.
    pub latest: String,
    /// Every version in the cache, oldest first.
    pub versions: Vec<String>,
    /// The newest version's description.
    pub description: Option<String>,
    /// The newest version's keywords.
    pub keywords: Vec<String>,
}

/// Result of `search_crates`.
#[derive(Serialize, JsonSchema)]
pub struct SearchResult {
    /// Best match first.
    pub crates: Vec<CrateSummary>,
    /// How many crates matched in all.
    pub total: usize,
}

/// How well `c` matches every word of `words` (lower is better), or
/// `None` if one word matches nowhere.
fn rank(c: &CrateVersion, words: &[String]) -> Option<u32> {
    let name = c.name.to_lowercase();
    let description = c.description.as_deref().unwrap_or("").to_lowercase();
    let mut score = 0;
    for w in words {
        score += if name == *w {
            0
        } else if name.starts_with(w.as_str()) {
            1
        } else if name.contains(w.as_str()) {
            2
        } else if c.keywords.iter().any(|k| k.to_lowercase() == *w) {
            3
        } else if description.contains(w.as_str()) {
            4
        } else {
            return None;
        };
    }
    Some(score)
}

fn search(catalog: &Catalog, args: &SearchArgs) -> SearchResult {
    let words: Vec<String> = args
        .query
        .split_whitespace()
        .map(str::to_lowercase)
        .collect();
    let mut hits: Vec<(u32, &CrateVersion, &Vec<CrateVersion>)> = catalog
        .crates
        .values()
        .filter_map(|versions| {
            let latest = versions.last()?;
            rank(latest, &words).map(|r| (r, latest, versions))
        })
        .collect();
    hits.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    let total = hits.len();
    let crates = hits
        .into_iter()
        .take(usize::from(args.limit.unwrap_or(20)))
        .map(|(_, latest, versions)| CrateSummary {
            name: latest.name.clone(),
            latest: latest.version.clone(),
            versions: versions.iter().map(|v| v.version.clone()).collect(),
            description: latest.description.clone(),
            keywords: latest.keywords.clone(),
        })
        .collect();
    SearchResult { crates, total }
}

// ------------------------------------------------------------------ info

/// Names one crate version.
#[derive(Deserialize, JsonSchema)]
pub struct CrateArgs {
    /// Package name, exactly.
    pub name: String,
    /// A version in the cache; the newest when left out.
    pub version: Option<String>,
}

/// Result of `crate_info`.
#[derive(Serialize, JsonSchema)]
pub struct CrateInfo {
    /// Package name.
    pub name: String,
    /// The version described.
    pub version: String,
    /// Every version in the cache, oldest first.
    pub versions: Vec<String>,
    /// Its description.
    pub description: Option<String>,
    /// Feature → the features and optional dependencies it enables.
    pub features: BTreeMap<String, Vec<String>>,
    /// Its dependencies, of every kind.
    pub dependencies: Vec<Dependency>,
    /// Its README as a resource, if it ships one.
    pub readme: Option<String>,
}

/// The crate version `name`/`version` names, or the tool error that tells
/// the model how to correct the call.
fn lookup<'c>(
    catalog: &'c Catalog,
    name: &str,
    version: Option<&str>,
) -> Result<&'c CrateVersion, ToolError> {
    let Some(versions) = catalog.crates.get(name) else {
        return Err(ToolError::from(format!(
            "No crate named {name:?} is in the local registry cache; search_crates finds names"
        )));
    };
    catalog.get(name, version).ok_or_else(|| {
        let known: Vec<&str> = versions.iter().map(|v| v.version.as_str()).collect();
        ToolError::from(format!(
            "{name} {} is not in the local registry cache; it has {}",
            version.unwrap_or_default(),
            known.join(", ")
        ))
    })
}

fn info(catalog: &Catalog, args: &CrateArgs) -> Result<CrateInfo, ToolError> {
    let c = lookup(catalog, &args.name, args.version.as_deref())?;
    Ok(CrateInfo {
        name: c.name.clone(),
        version: c.version.clone(),
        versions: catalog.crates[&c.name]
            .iter()
            .map(|v| v.version.clone())
            .collect(),
        description: c.description.clone(),
        features: c.features.clone(),
        dependencies: c.dependencies.clone(),
        readme: c.readme.as_ref().map(|_| readme_uri(&c.name, &c.version)),
    })
}

// ------------------------------------------------------------------ find

/// Arguments of `find_in_crate`.
#[derive(Deserialize, JsonSchema)]
pub struct FindArgs {
    /// Package name, exactly.
    pub name: String,
    /// A version in the cache; the newest when left out.
    pub version: Option<String>,
    /// The text to find (case-sensitive), or with `symbol` an item's name.
    #[schemars(length(min = 1, max = 200))]
    pub text: String,
    /// Find where an item (fn, struct, enum, trait, type, const, static,
    /// mod, macro) named `text` is defined, instead of every use.
    #[serde(default)]
    pub symbol: bool,
    /// At most this many matches (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u16>,
}

/// Result of `find_in_crate`.
#[derive(Serialize, JsonSchema)]
pub struct FindResult {
    /// The crate version searched.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Matching lines, by file and line; each file is the resource
    /// `crates://{name}/{version}/file/{file}`.
    pub matches: Vec<Match>,
    /// Whether more matches were left out.
    pub truncated: bool,
}

// --------------------------------------------------------------- compare

/// Arguments of `compare_versions`.
#[derive(Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// Package name, exactly.
    pub name: String,
    /// The version upgraded from.
    pub from: String,
    /// The version upgraded to.
    pub to: String,
}

/// Result of `compare_versions`.
#[derive(Serialize, JsonSchema)]
pub struct Comparison {
    /// Package name.
    pub name: String,
    /// The older version.
    pub from: String,
    /// The newer version.
    pub to: String,
    /// Public items (`kind module::name`) only `to` declares.
    pub added: Vec<String>,
    /// Public items only `from` declares: what the upgrade may break.
    pub removed: Vec<String>,
    /// Features only `to` has.
    pub features_added: Vec<String>,
    /// Features only `from` has.
    pub features_removed: Vec<String>,
}

fn compare(catalog: &Catalog, args: &CompareArgs) -> Result<Comparison, ToolError> {
    let from = lookup(catalog, &args.name, Some(&args.from))?;
    let to = lookup(catalog, &args.name, Some(&args.to))?;
    let (a, b) = (
        source::public_items(&from.source),
        source::public_items(&to.source),
    );
    let fa: BTreeSet<&String> = from.features.keys().collect();
    let fb: BTreeSet<&String> = to.features.keys().collect();
    Ok(Comparison {
        name: args.name.clone(),
        from: from.version.clone(),
        to: to.version.clone(),
        added: b.difference(&a).cloned().collect(),
        removed: a.difference(&b).cloned().collect(),
        features_added: fb.difference(&fa).map(|s| s.to_string()).collect(),
        features_removed: fa.difference(&fb).map(|s| s.to_string()).collect(),
    })
}

// ----------------------------------------------------------------- index

/// Result of `index_cache`.
#[derive(Serialize, JsonSchema)]
pub struct IndexSummary {
    /// Distinct crates.
    pub crates: usize,
    /// Crate versions.
    pub versions: usize,
    /// Unpacked directories whose manifest could not be read.
    pub skipped: usize,
}

/// Re-read the whole cache, reporting progress per crate version: as
/// `notifications/progress` to a caller that sent a `progressToken`, as its
/// `statusMessage` when it runs as a task.
///
/// The reading is blocking file I/O, seconds of it over a large cache, so
/// it runs on the runtime's blocking pool ([`Context::spawn_blocking`]),
/// not on the thread that polls the handler; it stops between crate
/// versions once the call is cancelled, leaving the catalog as it was. One
/// at a time, so calls cannot pile up blocking threads: a call while
/// another reads is a tool error saying so.
async fn index(app: Arc<App>, ctx: Context) -> Result<IndexSummary, ToolError> {
    if app.indexing.swap(true, Ordering::AcqRel) {
        return Err(ToolError::from(
            "The cache is being indexed already; call again when that finishes",
        ));
    }
    /// Lets the next index in, however this one ends: it moves into the
    /// blocking work, so a cancelled call whose work still reads keeps the
    /// next one out until the work has stopped.
    struct Done(Arc<App>);
    impl Drop for Done {
        fn drop(&mut self) {
            self.0.indexing.store(false, Ordering::Release);
        }
    }
    let done = Done(app);
    let reporter = ctx.clone();
    let summary = ctx
        .spawn_blocking(move |interrupt| {
            let app = &done.0;
            let catalog = cache::scan_until(&app.registry, |read, total| {
                reporter.progress(
                    read as f64,
                    Some(total as f64),
                    Some(format!("{read} of {total} crate versions read")),
                );
                if interrupt.is_set() {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })?;
            let summary = IndexSummary {
                crates: catalog.crates.len(),
                versions: catalog.len(),
                skipped: catalog.skipped.len(),
            };
            app.replace(catalog);
            Some(summary)
        })
        .await?;
    // Stopped only once nobody waits for the answer any more.
    summary.ok_or_else(|| ToolError::from("The indexing was cancelled"))
}

// ------------------------------------------------------------- resources

/// Read `rel` inside `c`, refusing paths that leave it.
fn read_text(c: &CrateVersion, rel: &str) -> Option<String> {
    c.source.read(rel, MAX_RESOURCE)
}

/// The variables of [`README`] and [`SOURCE_FILE`].
#[derive(Deserialize)]
struct VersionVars {
    name: String,
    version: String,
    /// Only in [`SOURCE_FILE`].
    path: Option<String>,
}

/// A crate version's README.
const README: &str = "crates://{name}/{version}/readme";
/// A file of a crate version's source.
const SOURCE_FILE: &str = "crates://{name}/{version}/file/{+path}";

fn read_resource(app: &App, args: &ResourceArgs) -> Result<ReadResourceResult, ResourceError> {
    let VersionVars {
        name,
        version,
        path,
    } = args.variables_as()?;
    let catalog = app.catalog();
    let c = catalog
        .get(&name, Some(&version))
        .ok_or(ResourceError::NotFound)?;
    let (text, mime) = match path.as_deref() {
        Some(path) => (read_text(c, path), mime_of(path)),
        None => (
            c.readme.as_deref().and_then(|r| read_text(c, r)),
            "text/markdown",
        ),
    };
    let text = text.ok_or(ResourceError::NotFound)?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        args.uri.clone(),
        mime,
        text,
    )]))
}

fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("rs") => "text/x-rust",
        Some("md") => "text/markdown",
        Some("toml") => "application/toml",
        Some("json") => "application/json",
        _ => "text/plain",
    }
}

// ---------------------------------------------------------------- prompt

/// Arguments of `review_upgrade`.
#[derive(Deserialize, JsonSchema)]
pub struct ReviewArgs {
    /// The dependency to upgrade.
    pub name: String,
    /// The version in use.
    pub from: String,
    /// The version to upgrade to.
    pub to: String,
}

fn review(app: &App, args: ReviewArgs) -> Result<GetPromptResult, ErrorObject> {
    let catalog = app.catalog();
    let compare_args = CompareArgs {
        name: args.name.clone(),
        from: args.from.clone(),
        to: args.to.clone(),
    };
    let comparison = compare(&catalog, &compare_args).map_err(|e| match e {
        ToolError::Execution(why) => ErrorObject::invalid_params(why),
        ToolError::Protocol(e) => e,
    })?;
    let summary = serde_json::to_string_pretty(&comparison).unwrap_or_default();
    let mut messages = vec![PromptMessage::user(Content::text(format!(
        "Review the upgrade of the dependency `{name}` from {from} to {to}.\n\n\
         Below is what changed in its public API and features, read from the \
         sources of both versions in the local registry cache. For each removed \
         item, say whether code using it breaks and what replaces it; for each \
         removed feature, what enabled it. Then say whether the upgrade is safe \
         as a semver-compatible bump, and what to test.\n\n```json\n{summary}\n```",
        name = args.name,
        from = comparison.from,
        to = comparison.to,
    )))];
    if let Some(c) = catalog.get(&args.name, Some(&args.to)) {
        if let Some(text) = c.readme.as_deref().and_then(|r| read_text(c, r)) {
            messages.push(PromptMessage::user(Content::resource(
                ResourceContents::text(readme_uri(&c.name, &c.version), "text/markdown", text),
            )));
        }
    }
    let mut result = GetPromptResult::new(messages);
    result.description = Some(format!(
        "Upgrade review of {} {} → {}",
        args.name, comparison.from, comparison.to
    ));
    Ok(result)
}

// ------------------------------------------------------------ completion

/// Completions for the prompt's and the templates' arguments: crate names
/// by prefix for `name`, and for `version`, `from` and `to` the versions of
/// the crate already chosen (`context.arguments.name`), newest first.
/// Crate names starting with the value: a `name` argument or variable.
async fn complete_names(
    app: State<App>,
    req: CompletionRequest,
) -> Result<Completion, ErrorObject> {
    let catalog = app.catalog();
    let names = catalog.crates.keys().filter(|n| n.starts_with(&req.value));
    Ok(first_hundred(names.cloned().collect()))
}

/// Versions of the crate already chosen (`context.arguments.name`),
/// newest first: a `version`, `from` or `to`.
async fn complete_versions(
    app: State<App>,
    req: CompletionRequest,
) -> Result<Completion, ErrorObject> {
    let catalog = app.catalog();
    let name = req
        .context
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let versions = catalog
        .crates
        .get(name)
        .map(|vs| {
            vs.iter()
                .rev()
                .map(|v| v.version.clone())
                .filter(|v| v.starts_with(&req.value))
                .collect()
        })
        .unwrap_or_default();
    Ok(first_hundred(versions))
}

/// At most 100 values, with the total (`server/utilities/completion.mdx`).
fn first_hundred(mut values: Vec<String>) -> Completion {
    let total = values.len();
    values.truncate(100);
    Completion {
        has_more: Some(total > values.len()),
        total: Some(total as u64),
        values,
    }
}

// --------------------------------------------------------------- service

/// An icon drawn in SVG, sent inline as a `data:` URI (`basic/index.mdx`
/// § `icons`: an `https:` or `data:` URI; inline, a client fetches
/// nothing from anywhere to show it).
fn icon(paths: &str) -> Icon {
    use base64::Engine as _;
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#6b7280" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{paths}</svg>"##
    );
    Icon::new(format!(
        "data:image/svg+xml;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(svg)
    ))
    .mime_type("image/svg+xml")
    .size("any")
}

/// A magnifying glass.
const SEARCH: &str = r#"<circle cx="10" cy="10" r="6"/><path d="M15 15l5 5"/>"#;
/// A box: a crate.
const CRATE: &str = r#"<path d="M3 7l9-4 9 4v10l-9 4-9-4z"/><path d="M3 7l9 4 9-4M12 11v10"/>"#;
/// Angle brackets under a lens: a search in source code.
const FIND: &str = r#"<path d="M7 8l-4 4 4 4M17 8l4 4-4 4"/><path d="M13 5l-2 14"/>"#;
/// Two opposed arrows: a comparison.
const COMPARE: &str = r#"<path d="M4 8h14l-4-4M20 16H6l4 4"/>"#;
/// A circular arrow: re-reading everything.
const INDEX: &str = r#"<path d="M20 12a8 8 0 1 1-3-6.2"/><path d="M20 4v5h-5"/>"#;
/// A checked list: a review.
const REVIEW: &str = r#"<path d="M9 6h11M9 12h11M9 18h11"/><path d="M3 6l1.5 1.5L7 5M3 12l1.5 1.5L7 11M3 18l1.5 1.5L7 17"/>"#;

/// The tools: each method's doc comment is its description, its
/// arguments type its `inputSchema` and its result its `outputSchema`.
/// Every tool only reads (the index re-reads what is on disk), gives the
/// same answer for the same cache, and looks at nothing beyond this
/// machine's cache: `read_only, idempotent, open_world = false`.
#[tools(crate = snodo_proto)]
impl App {
    /// Search the crates in the local cargo registry cache by name, keyword or description
    #[tool(name = "search_crates", title = "Search crates", icon = icon(SEARCH), read_only, idempotent, open_world = false)]
    async fn search_crates(&self, #[args] args: SearchArgs) -> Json<SearchResult> {
        Json(search(&self.catalog(), &args))
    }

    /// A crate version's versions, features and dependencies
    #[tool(name = "crate_info", title = "Crate info", icon = icon(CRATE), read_only, idempotent, open_world = false)]
    async fn crate_info(&self, #[args] args: CrateArgs) -> Result<Json<CrateInfo>, ToolError> {
        info(&self.catalog(), &args).map(Json)
    }

    /// Find a piece of text in a crate's Rust sources, or where an item is defined
    #[tool(name = "find_in_crate", title = "Find in crate", icon = icon(FIND), read_only, idempotent, open_world = false)]
    async fn find_in_crate(&self, #[args] args: FindArgs) -> Result<Json<FindResult>, ToolError> {
        let catalog = self.catalog();
        let c = lookup(&catalog, &args.name, args.version.as_deref())?;
        let limit = usize::from(args.limit.unwrap_or(50));
        let (matches, truncated) = source::find(&c.source, &args.text, args.symbol, limit);
        Ok(Json(FindResult {
            name: c.name.clone(),
            version: c.version.clone(),
            matches,
            truncated,
        }))
    }

    /// Compare the public items and features of two versions of a crate
    #[tool(name = "compare_versions", title = "Compare versions", icon = icon(COMPARE), read_only, idempotent, open_world = false)]
    async fn compare_versions(
        &self,
        #[args] args: CompareArgs,
    ) -> Result<Json<Comparison>, ToolError> {
        compare(&self.catalog(), &args).map(Json)
    }

    /// Re-read the whole registry cache, reporting progress; README subscribers hear of every change
    #[tool(name = "index_cache", title = "Index the cache", icon = icon(INDEX), read_only, idempotent, open_world = false)]
    async fn index_cache(self: Arc<Self>, ctx: Context) -> Result<Json<IndexSummary>, ToolError> {
        index(self, ctx).await.map(Json)
    }
}

/// The builder with everything registered, for callers that add to it
/// (the Tasks extension) before building.
pub fn builder(app: Arc<App>) -> ServiceBuilder {
    let builder = Service::builder()
        .server_info(Implementation::new(
            "snodo-crates",
            env!("CARGO_PKG_VERSION"),
        ))
        .instructions(
            "Knows the Rust crates in this machine's cargo registry cache: search them, \
             read their manifests, READMEs and sources, compare versions.",
        )
        .notifications(Notifications::default().resource_updates())
        .hub(app.hub.clone())
        .state_arc(app.clone());
    app.tools(builder)
        .resource_template(
            ResourceTemplate::new(README, "readme")
                .description("A crate version's README")
                .mime_type("text/markdown"),
            |app: State<App>, args: ResourceArgs| async move { read_resource(&app, &args) },
        )
        .resource_template(
            ResourceTemplate::new(SOURCE_FILE, "source-file")
                .description("A file of a crate version's source, by its path in the crate"),
            |app: State<App>, args: ResourceArgs| async move { read_resource(&app, &args) },
        )
        .prompt(
            Prompt::new(
                "review_upgrade",
                "Review upgrading a dependency from one version to another",
            )
            .title("Review an upgrade")
            .icon(icon(REVIEW)),
            |app: State<App>, args: ReviewArgs| async move { review(&app, args) },
        )
        .prompt_completion("review_upgrade", "name", complete_names)
        .prompt_completion("review_upgrade", "from", complete_versions)
        .prompt_completion("review_upgrade", "to", complete_versions)
        .template_completion(README, "name", complete_names)
        .template_completion(README, "version", complete_versions)
        .template_completion(SOURCE_FILE, "name", complete_names)
        .template_completion(SOURCE_FILE, "version", complete_versions)
}

/// The service over `app`.
pub fn service(app: Arc<App>) -> Result<Service, BuildError> {
    builder(app).build()
}

/// The service over `app` with the Tasks extension
/// (`io.modelcontextprotocol/tasks`, tasks kept in memory): `index_cache`
/// runs as a task for clients that declare the extension and ask, and as
/// a plain call for the rest. Run its tasks with a
/// [`snodo_tasks::TaskRunner`] (as [`serve`](crate::serve::serve) does).
pub fn service_with_tasks(app: Arc<App>) -> Result<Service, BuildError> {
    with_tasks(builder(app)).build()
}

/// `builder` with the Tasks extension of [`service_with_tasks`], for
/// callers that add to it (a layer) before building.
pub fn with_tasks(builder: ServiceBuilder) -> ServiceBuilder {
    builder.extension(
        snodo_tasks::Tasks::new(snodo_tasks::MemoryStore::new())
            .tool("index_cache", snodo_tasks::TaskSupport::Optional)
            .build(),
    )
}
