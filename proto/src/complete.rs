//! Completion by argument (`server/utilities/completion.mdx`): a handler
//! registered for one prompt argument or one template variable
//! ([`ServiceBuilder::prompt_completion`](crate::ServiceBuilder::prompt_completion),
//! [`ServiceBuilder::template_completion`](crate::ServiceBuilder::template_completion))
//! instead of one completer that switches on every reference and name.
//!
//! The engine keeps one completer: the routes and the general completer
//! (if any) are composed into it when the service is built, so a request
//! passes the same admission, reference check and layers whichever
//! handler answers it. A route answers its argument; the general completer
//! answers the rest; without one, the rest complete to no values (the spec
//! has no error for an argument that has no suggestions).

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::handler::{BoxFuture, CompleteFn, Context, Outcome};
use crate::model::{Completion, CompletionRef, CompletionRequest, Prompt, ResourceTemplate};
use crate::service::BuildError;
use crate::uri_template::UriTemplate;

/// What a route completes: a prompt's argument or a template's variable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    /// A prompt, by name.
    Prompt(String),
    /// A resource template, by its URI template.
    Template(String),
}

impl Target {
    fn of(reference: &CompletionRef) -> Target {
        match reference {
            CompletionRef::Prompt { name } => Target::Prompt(name.clone()),
            CompletionRef::Resource { uri } => Target::Template(uri.clone()),
        }
    }

    fn reference(&self) -> CompletionRef {
        match self {
            Target::Prompt(name) => CompletionRef::Prompt { name: name.clone() },
            Target::Template(uri) => CompletionRef::Resource { uri: uri.clone() },
        }
    }
}

/// One registered route.
pub(crate) struct Route {
    pub(crate) target: Target,
    pub(crate) argument: String,
    pub(crate) handler: Arc<CompleteFn>,
}

/// The service's completer: `general` (the builder's `completer`
/// setting: unset, declared, or a handler) with `routes` in front of it.
/// Each route must name an argument of a prompt or template registered
/// on the builder: a route that can never be asked for is a typo.
pub(crate) fn compose(
    general: Option<Option<Arc<CompleteFn>>>,
    routes: Vec<Route>,
    prompts: &[(Prompt, Option<Arc<crate::handler::PromptFn>>)],
    templates: &[(ResourceTemplate, Option<Arc<crate::handler::ResourceFn>>)],
) -> Result<Option<Option<Arc<CompleteFn>>>, BuildError> {
    if routes.is_empty() {
        return Ok(general);
    }
    let mut table = BTreeMap::new();
    for route in routes {
        let known = match &route.target {
            Target::Prompt(name) => prompts.iter().any(|(p, _)| {
                p.name == *name
                    && p.arguments
                        .iter()
                        .flatten()
                        .any(|a| a.name == route.argument)
            }),
            Target::Template(uri) => templates.iter().any(|(t, _)| {
                t.uri_template == *uri
                    && UriTemplate::parse(uri)
                        .is_ok_and(|parsed| parsed.variables().any(|v| v == route.argument))
            }),
        };
        let unknown = || BuildError::UnknownCompletion {
            reference: route.target.reference(),
            argument: route.argument.clone(),
        };
        if !known {
            return Err(unknown());
        }
        let key = (route.target.clone(), route.argument.clone());
        if table.insert(key, route.handler.clone()).is_some() {
            return Err(BuildError::DuplicateCompletion {
                reference: route.target.reference(),
                argument: route.argument,
            });
        }
    }
    let fallback = match general {
        // Answered by hand: routes cannot sit in front of the embedder.
        Some(None) => return Err(BuildError::CompletionDeclared),
        Some(Some(handler)) => Some(handler),
        None => None,
    };
    let router = move |request: CompletionRequest, ctx: Context| -> BoxFuture<Outcome> {
        let key = (Target::of(&request.reference), request.argument.clone());
        match table.get(&key).or(fallback.as_ref()) {
            Some(handler) => handler(request, ctx),
            None => Box::pin(core::future::ready(Outcome::Complete(Completion::new(
                Vec::new(),
            )))),
        }
    };
    Ok(Some(Some(Arc::new(router))))
}
