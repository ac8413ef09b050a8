//! The scopes each tool, prompt, resource and resource template needs
//! (`basic/authorization/index.mdx` § Scope Challenge Handling: a server
//! MAY require scopes per operation), set once on the
//! [`Authorization`](crate::Authorization) and held to in two places that
//! cannot disagree, because both read this table:
//!
//! - **lists** show each caller only what it holds every scope of
//!   (`server/tools.mdx` § Listing Tools lets a list vary with the
//!   authorization presented), unless the application opts in to listing
//!   everything with [`Authorization::list_unauthorized`](crate::Authorization::list_unauthorized);
//! - **requests** that name an entry the caller lacks scopes for are
//!   refused with 403 `insufficient_scope` naming them (§ Runtime
//!   Insufficient Scope Errors), so a client can step up its
//!   authorization. Such a caller learns that the entry exists and what it
//!   needs; an application that must not even say that installs its own
//!   [`View`](super::View), whose hidden entries are answered as unknown.
//!
//! A template's scopes hold for every URI it matches, whichever entry
//! serves the read. A request without a principal (stdio without
//! [`ServiceBuilder::stdio_principal`](crate::ServiceBuilder::stdio_principal))
//! holds no scope.
//!
//! A listed view is named by the scopes a caller holds among those the
//! table mentions, so callers with the same relevant scopes share their
//! lists (paged once per snapshot).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::view::{Caller, View};
use crate::auth::Principal;
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};
use crate::uri_template::UriTemplate;

/// What each entry needs. Entries it names no scopes for need none.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scopes {
    tools: BTreeMap<String, Vec<String>>,
    prompts: BTreeMap<String, Vec<String>>,
    resources: BTreeMap<String, Vec<String>>,
    templates: Vec<(String, UriTemplate, Vec<String>)>,
    /// Every scope named above.
    mentioned: BTreeSet<String>,
}

/// Which kind of entry a scope is set for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Scopes {
    pub(crate) fn set(&mut self, kind: Kind, key: String, scopes: Vec<String>) {
        self.mentioned.extend(scopes.iter().cloned());
        let table = match kind {
            Kind::Tool => &mut self.tools,
            Kind::Prompt => &mut self.prompts,
            Kind::Resource => &mut self.resources,
        };
        table.insert(key, scopes);
    }

    /// The scopes of the template `template`; `Err` when it is not a URI
    /// template.
    pub(crate) fn set_template(
        &mut self,
        template: String,
        scopes: Vec<String>,
    ) -> Result<(), String> {
        let parsed = UriTemplate::parse(&template)?;
        self.mentioned.extend(scopes.iter().cloned());
        self.templates.retain(|(t, ..)| *t != template);
        self.templates.push((template, parsed, scopes));
        Ok(())
    }

    /// Whether any entry needs a scope.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn is_empty(&self) -> bool {
        self.mentioned.is_empty()
    }

    /// What calling the tool `name` needs.
    pub(crate) fn tool(&self, name: &str) -> &[String] {
        self.tools.get(name).map_or(&[], Vec::as_slice)
    }

    /// What getting (or completing an argument of) the prompt `name` needs.
    pub(crate) fn prompt(&self, name: &str) -> &[String] {
        self.prompts.get(name).map_or(&[], Vec::as_slice)
    }

    /// What reading (or subscribing to) `uri` needs: its own scopes and
    /// those of every scoped template it matches.
    pub(crate) fn resource<'a>(&'a self, uri: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        let own = self.resources.get(uri).into_iter().flatten();
        let templates = self
            .templates
            .iter()
            .filter(move |(_, parsed, _)| parsed.matches(uri).is_some())
            .flat_map(|(.., scopes)| scopes);
        own.chain(templates)
    }

    /// What completing a variable of the template (or resource) `uri`
    /// needs: the template's own scopes, named by its text.
    pub(crate) fn completion_of<'a>(
        &'a self,
        uri: &'a str,
    ) -> impl Iterator<Item = &'a String> + 'a {
        let own = self.resources.get(uri).into_iter().flatten();
        let templates = self
            .templates
            .iter()
            .filter(move |(t, ..)| t == uri)
            .flat_map(|(.., scopes)| scopes);
        own.chain(templates)
    }

    /// The scopes of `needed` that `principal` lacks, each once, in the
    /// order first needed.
    pub(crate) fn missing<'a>(
        principal: Option<&Principal>,
        needed: impl IntoIterator<Item = &'a String>,
    ) -> Vec<String> {
        let mut missing: Vec<String> = Vec::new();
        for scope in needed {
            if !principal.is_some_and(|p| p.has_scope(scope)) && !missing.contains(scope) {
                missing.push(scope.clone());
            }
        }
        missing
    }

    /// The relevant scopes `caller` holds, sorted, joined by spaces (a
    /// scope token has none: RFC 6749 § 3.3).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    fn held(&self, caller: &Caller<'_>) -> String {
        let held: Vec<&str> = match caller.principal() {
            Some(p) => self
                .mentioned
                .iter()
                .filter(|s| p.has_scope(s))
                .map(String::as_str)
                .collect(),
            None => Vec::new(),
        };
        held.join(" ")
    }

    /// Whether a caller holding `held` (a [`Scopes::held`]) has `needed`.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    fn holds<'a>(held: &str, needed: impl IntoIterator<Item = &'a String>) -> bool {
        needed
            .into_iter()
            .all(|scope| held.split(' ').any(|h| h == scope))
    }
}

/// What the lists show: the entries a caller holds the scopes of, within
/// the application's own [`View`] if it installed one. A list view's name
/// is the relevant scopes held, then, after a line feed (which no scope
/// token contains), the application view's name.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) struct Listing {
    pub(crate) scopes: Arc<Scopes>,
    pub(crate) view: Option<Arc<dyn View>>,
}

#[cfg_attr(not(feature = "std"), allow(dead_code))]
impl Listing {
    /// The two names a listing name joins.
    fn split<'a>(&self, name: &'a str) -> (&'a str, Option<&'a str>) {
        match name.split_once('\n') {
            Some((held, view)) => (held, Some(view)),
            None => (name, None),
        }
    }

    /// Whether the listing `name` shows an entry that needs `needed` and
    /// that the application's view `holds`.
    fn shows<'a>(
        &self,
        name: &str,
        needed: impl IntoIterator<Item = &'a String>,
        holds: impl FnOnce(&dyn View, &str) -> bool,
    ) -> bool {
        let (held, view) = self.split(name);
        Scopes::holds(held, needed)
            && match (&self.view, view) {
                (Some(v), Some(view)) => holds(&**v, view),
                _ => true,
            }
    }
}

impl View for Listing {
    /// Always a name, even for a caller holding every scope: a view's
    /// lists are marked `cacheScope: "private"`, so no shared cache hands
    /// them to a caller that holds fewer.
    fn name(&self, caller: &Caller<'_>) -> Option<String> {
        let mut name = self.scopes.held(caller);
        if let Some(view) = self.view.as_ref().and_then(|v| v.name(caller)) {
            name.push('\n');
            name.push_str(&view);
        }
        Some(name)
    }

    fn tool(&self, name: &str, tool: &Tool) -> bool {
        self.shows(name, self.scopes.tool(&tool.name), |v, n| v.tool(n, tool))
    }

    fn prompt(&self, name: &str, prompt: &Prompt) -> bool {
        self.shows(name, self.scopes.prompt(&prompt.name), |v, n| {
            v.prompt(n, prompt)
        })
    }

    fn resource(&self, name: &str, resource: &Resource) -> bool {
        let needed = self.scopes.resource(&resource.uri);
        self.shows(name, needed, |v, n| v.resource(n, resource))
    }

    fn template(&self, name: &str, template: &ResourceTemplate) -> bool {
        let needed = self.scopes.completion_of(&template.uri_template);
        self.shows(name, needed, |v, n| v.template(n, template))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::RequestMeta;

    fn scopes() -> Scopes {
        let mut s = Scopes::default();
        let v = |a: &[&str]| a.iter().map(|s| String::from(*s)).collect();
        s.set(Kind::Tool, "w".into(), v(&["write"]));
        s.set(Kind::Prompt, "p".into(), v(&["read", "write"]));
        s.set(Kind::Resource, "test://r".into(), v(&["read"]));
        s.set_template("test://t/{x}".into(), v(&["admin"]))
            .unwrap();
        s
    }

    fn listing() -> Listing {
        Listing {
            scopes: Arc::new(scopes()),
            view: None,
        }
    }

    fn name(principal: Option<Principal>) -> Option<String> {
        let meta = RequestMeta {
            principal: principal.map(Arc::new),
            ..RequestMeta::default()
        };
        listing().name(&Caller::new(&meta))
    }

    #[test]
    fn a_listing_is_named_by_the_relevant_scopes_held() {
        assert_eq!(name(None), Some(String::new()));
        let reader = Principal::new("a", ["read", "unrelated"]);
        assert_eq!(name(Some(reader)).as_deref(), Some("read"));
        let all = Principal::new("b", ["write", "admin", "read"]);
        assert_eq!(name(Some(all)).as_deref(), Some("admin read write"));
    }

    // The trait's methods share their names with the tables' lookups:
    // call these through the trait.
    #[test]
    fn each_kind_needs_all_its_scopes_and_unnamed_entries_show() {
        let v = listing();
        assert!(!View::tool(&v, "read", &Tool::new("w", "")));
        assert!(View::tool(&v, "read write", &Tool::new("w", "")));
        assert!(View::tool(&v, "", &Tool::new("free", "")));
        assert!(!View::prompt(&v, "read", &Prompt::new("p", "")));
        assert!(View::prompt(&v, "read write", &Prompt::new("p", "")));
        assert!(!View::resource(&v, "", &Resource::new("test://r", "r")));
        assert!(View::resource(&v, "read", &Resource::new("test://r", "r")));
        // A resource under a scoped template needs the template's scopes.
        assert!(!View::resource(
            &v,
            "read",
            &Resource::new("test://t/1", "t")
        ));
        assert!(View::resource(
            &v,
            "admin",
            &Resource::new("test://t/1", "t")
        ));
        let t = ResourceTemplate::new("test://t/{x}", "x");
        assert!(!View::template(&v, "read write", &t));
        assert!(View::template(&v, "admin", &t));
        // A scope is matched whole, not as a prefix of a held one.
        assert!(!View::tool(&v, "writer", &Tool::new("w", "")));
    }

    #[test]
    fn missing_scopes_are_each_named_once() {
        let s = scopes();
        let reader = Principal::new("a", ["read"]);
        assert_eq!(Scopes::missing(Some(&reader), s.prompt("p")), ["write"]);
        assert_eq!(Scopes::missing(None, s.prompt("p")), ["read", "write"]);
        assert!(Scopes::missing(Some(&reader), s.resource("test://r")).is_empty());
        assert_eq!(
            Scopes::missing(Some(&reader), s.resource("test://t/9")),
            ["admin"]
        );
        assert!(Scopes::missing(None, s.tool("free")).is_empty());
    }

    /// An application view that shows only tools whose name starts with
    /// the view's name.
    struct Prefix;

    impl View for Prefix {
        fn name(&self, caller: &Caller<'_>) -> Option<String> {
            caller.principal().map(|p| p.subject.clone())
        }
        fn tool(&self, view: &str, tool: &Tool) -> bool {
            tool.name.starts_with(view)
        }
    }

    #[test]
    fn a_listing_within_an_application_view_shows_what_both_show() {
        let v = Listing {
            scopes: Arc::new(scopes()),
            view: Some(Arc::new(Prefix)),
        };
        let meta = RequestMeta {
            principal: Some(Arc::new(Principal::new("w", ["read"]))),
            ..RequestMeta::default()
        };
        let name = v.name(&Caller::new(&meta)).unwrap();
        assert_eq!(name, "read\nw");
        // The scopes refuse `w`, the application's view `free`.
        assert!(!View::tool(&v, &name, &Tool::new("w", "")));
        assert!(!View::tool(&v, &name, &Tool::new("free", "")));
        assert!(View::tool(&v, &name, &Tool::new("wide", "")));
        assert!(View::tool(&v, "write\nw", &Tool::new("w", "")));
        // A caller the application's view names nothing for sees the
        // whole registry within its scopes.
        let anonymous = RequestMeta::default();
        let name = v.name(&Caller::new(&anonymous)).unwrap();
        assert_eq!(name, "");
        assert!(View::tool(&v, &name, &Tool::new("free", "")));
        assert!(!View::tool(&v, &name, &Tool::new("w", "")));
    }

    #[test]
    fn a_template_set_again_replaces_its_scopes() {
        let mut s = scopes();
        s.set_template("test://t/{x}".into(), alloc::vec!["read".into()])
            .unwrap();
        let reader = Principal::new("a", ["read"]);
        assert!(Scopes::missing(Some(&reader), s.resource("test://t/9")).is_empty());
        assert_eq!(s.completion_of("test://t/{x}").count(), 1);
        assert!(s.set_template("test://t/{".into(), Vec::new()).is_err());
    }
}
