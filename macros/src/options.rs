//! What `#[tool(...)]` and `#[tools(...)]` say, read from their tokens.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, LitBool, LitStr, Meta, Path, Token};

/// The options of one `#[tool(...)]`.
#[derive(Default)]
pub struct ToolOptions {
    pub name: Option<LitStr>,
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    /// `icon = expr`, any number: expressions of type `Icon`, evaluated
    /// when the tool is registered.
    pub icons: Vec<Expr>,
    pub krate: Option<Path>,
}

const TOOL_OPTIONS: &str =
    "name, title, description, read_only, destructive, idempotent, open_world, icon, crate";

impl ToolOptions {
    pub fn parse(tokens: TokenStream) -> syn::Result<ToolOptions> {
        let mut o = ToolOptions::default();
        let parser = syn::meta::parser(|meta| {
            let string = |slot: &mut Option<LitStr>| -> syn::Result<()> {
                *slot = Some(meta.value()?.parse()?);
                Ok(())
            };
            // A hint alone is `true`; `= false` says so explicitly.
            let flag = |slot: &mut Option<bool>| -> syn::Result<()> {
                *slot = Some(if meta.input.peek(Token![=]) {
                    meta.value()?.parse::<LitBool>()?.value
                } else {
                    true
                });
                Ok(())
            };
            if meta.path.is_ident("name") {
                string(&mut o.name)
            } else if meta.path.is_ident("title") {
                string(&mut o.title)
            } else if meta.path.is_ident("description") {
                string(&mut o.description)
            } else if meta.path.is_ident("read_only") {
                flag(&mut o.read_only)
            } else if meta.path.is_ident("destructive") {
                flag(&mut o.destructive)
            } else if meta.path.is_ident("idempotent") {
                flag(&mut o.idempotent)
            } else if meta.path.is_ident("open_world") {
                flag(&mut o.open_world)
            } else if meta.path.is_ident("icon") {
                o.icons.push(meta.value()?.parse()?);
                Ok(())
            } else if meta.path.is_ident("crate") {
                o.krate = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error(format!("unknown option; expected one of {TOOL_OPTIONS}")))
            }
        });
        syn::parse::Parser::parse2(parser, tokens)?;
        if let Some(name) = &o.name {
            check_name(name)?;
        }
        Ok(o)
    }

    /// The path of `snodo-proto` in the generated code: `crate = ...`, or
    /// the facade's `::snodo::proto`.
    pub fn krate(&self, outer: Option<&Path>) -> TokenStream {
        match self.krate.as_ref().or(outer) {
            Some(path) => quote!(#path),
            None => quote!(::snodo::proto),
        }
    }
}

/// The options of `#[tools(...)]` on an impl block.
#[derive(Default)]
pub struct ImplOptions {
    pub krate: Option<Path>,
}

impl ImplOptions {
    pub fn parse(tokens: TokenStream) -> syn::Result<ImplOptions> {
        let mut o = ImplOptions::default();
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("crate") {
                o.krate = Some(meta.value()?.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown option; expected crate"))
            }
        });
        syn::parse::Parser::parse2(parser, tokens)?;
        Ok(o)
    }
}

/// `server/tools.mdx` § Tool Names: 1 to 128 characters of ASCII
/// letters, digits, `_`, `-` and `.`. Checked here so a bad name is an
/// error at its literal rather than when the service is built.
pub fn check_name(name: &LitStr) -> syn::Result<()> {
    let value = name.value();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if value.is_empty() || value.len() > 128 || !value.chars().all(allowed) {
        return Err(syn::Error::new(
            name.span(),
            "a tool name is 1 to 128 of A-Z, a-z, 0-9, `_`, `-` and `.` (server/tools.mdx § Tool Names)",
        ));
    }
    Ok(())
}

/// The text of the doc comments in `attrs`: what rustdoc would show,
/// each line without the one space after `///`.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// The tool's name and description, checked.
pub fn name_and_description(
    options: &ToolOptions,
    ident: &syn::Ident,
    attrs: &[Attribute],
) -> syn::Result<(LitStr, LitStr)> {
    let name = match &options.name {
        Some(name) => name.clone(),
        None => {
            let raw = ident.to_string();
            let name = LitStr::new(raw.strip_prefix("r#").unwrap_or(&raw), ident.span());
            check_name(&name)?;
            name
        }
    };
    // A model picks tools by their descriptions (server/tools.mdx § Tool):
    // one without is a mistake worth a compile error.
    let description = match (&options.description, doc_text(attrs)) {
        (Some(d), _) => d.clone(),
        (None, Some(doc)) => LitStr::new(&doc, Span::call_site()),
        (None, None) => return Err(syn::Error::new(
            ident.span(),
            "a tool needs a description: a doc comment on the function, or `description = \"...\"`",
        )),
    };
    Ok((name, description))
}
