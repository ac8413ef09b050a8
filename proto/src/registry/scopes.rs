//! A [`View`] by OAuth scope: each caller sees the tools, prompts,
//! resources and templates its authenticated principal holds every scope
//! of, and nothing else (`basic/authorization/index.mdx` § Scope
//! Challenge Handling lets a server require scopes per operation;
//! `server/tools.mdx` § Listing Tools lets the list vary with the
//! authorization presented).
//!
//! What a caller lacks the scopes for is answered as what the registry
//! does not hold (an unknown tool, an unknown prompt, a resource not
//! found): it learns nothing of what it may not use. To let a caller
//! discover that more scopes would help (step-up authorization, answered
//! 403 `insufficient_scope`), leave the entry visible and give it scopes
//! with [`Authorization::tool_scopes`](crate::Authorization::tool_scopes),
//! [`prompt_scopes`](crate::Authorization::prompt_scopes) or
//! [`resource_scopes`](crate::Authorization::resource_scopes) instead.
//!
//! The view a caller gets is named by the scopes it holds among those the
//! policy mentions, so callers with the same relevant scopes share their
//! lists.
//! A request without a principal (no authorization; stdio, which takes no
//! tokens) holds no scope.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::view::{Caller, View};
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};

/// Shows each entry only to callers holding all its scopes. Entries it
/// names no scopes for are shown to every caller.
#[derive(Clone, Debug, Default)]
pub struct ScopeView {
    tools: BTreeMap<String, Vec<String>>,
    prompts: BTreeMap<String, Vec<String>>,
    resources: BTreeMap<String, Vec<String>>,
    templates: BTreeMap<String, Vec<String>>,
    /// Every scope named above.
    mentioned: BTreeSet<String>,
}

impl ScopeView {
    /// A view that hides nothing yet.
    pub fn new() -> Self {
        ScopeView::default()
    }

    /// Show the tool `name` only to callers holding every one of `scopes`.
    pub fn tool(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.with(|v| &mut v.tools, name.into(), scopes)
    }

    /// Show the prompt `name` only to callers holding every one of `scopes`.
    pub fn prompt(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.with(|v| &mut v.prompts, name.into(), scopes)
    }

    /// Show the resource `uri` only to callers holding every one of `scopes`.
    pub fn resource(
        self,
        uri: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.with(|v| &mut v.resources, uri.into(), scopes)
    }

    /// Show the resource template `uri_template` (and the reads it
    /// serves) only to callers holding every one of `scopes`.
    pub fn template(
        self,
        uri_template: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.with(|v| &mut v.templates, uri_template.into(), scopes)
    }

    fn with(
        mut self,
        table: impl FnOnce(&mut Self) -> &mut BTreeMap<String, Vec<String>>,
        key: String,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        self.mentioned.extend(scopes.iter().cloned());
        table(&mut self).insert(key, scopes);
        self
    }

    /// Whether the view named `view` holds an entry needing `needed`.
    fn holds(view: &str, needed: Option<&Vec<String>>) -> bool {
        needed.is_none_or(|needed| {
            needed
                .iter()
                .all(|scope| view.split(' ').any(|held| held == scope))
        })
    }
}

impl View for ScopeView {
    /// The relevant scopes the caller holds, sorted, joined by spaces (a
    /// scope token has none: RFC 6749 § 3.3). Always a view, even for a
    /// caller holding every scope: a view's lists are marked
    /// `cacheScope: "private"`, so no shared cache hands them to a caller
    /// that holds fewer.
    fn name(&self, caller: &Caller<'_>) -> Option<String> {
        let held: Vec<&str> = match caller.principal() {
            Some(p) => self
                .mentioned
                .iter()
                .filter(|s| p.has_scope(s))
                .map(String::as_str)
                .collect(),
            None => Vec::new(),
        };
        Some(held.join(" "))
    }

    fn tool(&self, view: &str, tool: &Tool) -> bool {
        Self::holds(view, self.tools.get(&tool.name))
    }

    fn prompt(&self, view: &str, prompt: &Prompt) -> bool {
        Self::holds(view, self.prompts.get(&prompt.name))
    }

    fn resource(&self, view: &str, resource: &Resource) -> bool {
        Self::holds(view, self.resources.get(&resource.uri))
    }

    fn template(&self, view: &str, template: &ResourceTemplate) -> bool {
        Self::holds(view, self.templates.get(&template.uri_template))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Principal;
    use crate::meta::RequestMeta;
    use alloc::sync::Arc;

    fn view() -> ScopeView {
        ScopeView::new()
            .tool("w", ["write"])
            .prompt("p", ["read", "write"])
            .resource("test://r", ["read"])
            .template("test://{x}", ["admin"])
    }

    fn name(principal: Option<Principal>) -> Option<String> {
        let meta = RequestMeta {
            principal: principal.map(Arc::new),
            ..RequestMeta::default()
        };
        view().name(&Caller::new(&meta))
    }

    #[test]
    fn a_view_is_named_by_the_relevant_scopes_held() {
        assert_eq!(name(None), Some(String::new()));
        let reader = Principal::new("a", ["read", "unrelated"]);
        assert_eq!(name(Some(reader)).as_deref(), Some("read"));
        let all = Principal::new("b", ["write", "admin", "read"]);
        assert_eq!(name(Some(all)).as_deref(), Some("admin read write"));
    }

    // The builder methods share their names with the trait's: call these
    // through the trait.
    #[test]
    fn each_kind_needs_all_its_scopes_and_unnamed_entries_show() {
        let v = view();
        assert!(!View::tool(&v, "read", &Tool::new("w", "")));
        assert!(View::tool(&v, "read write", &Tool::new("w", "")));
        assert!(View::tool(&v, "", &Tool::new("free", "")));
        assert!(!View::prompt(&v, "read", &Prompt::new("p", "")));
        assert!(View::prompt(&v, "read write", &Prompt::new("p", "")));
        assert!(!View::resource(&v, "", &Resource::new("test://r", "r")));
        assert!(View::resource(&v, "read", &Resource::new("test://r", "r")));
        assert!(!View::template(
            &v,
            "read write",
            &ResourceTemplate::new("test://{x}", "x")
        ));
        assert!(View::template(
            &v,
            "admin",
            &ResourceTemplate::new("test://{x}", "x")
        ));
        // A scope is matched whole, not as a prefix of a held one.
        assert!(!View::tool(&v, "writer", &Tool::new("w", "")));
    }
}
