//! Which of a function's parameters are the tool's arguments and which
//! are extractors.
//!
//! A macro sees names, not types, so the rule is one a reader can apply
//! too: a parameter whose type is one of snodo's extractors by name
//! ([`EXTRACTORS`], or an `Option` of one) is an extractor, and so is one
//! marked `#[extract]` (an application's own `FromCallParts`); a parameter
//! marked `#[args]` is the whole arguments type; every other parameter is
//! one argument, a field of the arguments object (`#[arg]` forces that for
//! a type that shares an extractor's name).

use syn::{Attribute, FnArg, Ident, Pat, Type};

/// snodo's extractors (`snodo_proto::extract`, and `snodo_hyper`'s
/// `Extension`), by the last segment of their path.
pub const EXTRACTORS: &[&str] = &[
    "Context",
    "State",
    "Principal",
    "Meta",
    "Reporter",
    "CancelFlag",
    "Attached",
    "Extension",
];

/// One parameter of the tool's function, in order.
pub enum Param {
    /// Taken from the call's parts.
    Extract(Box<Type>),
    /// One named argument: a field of the generated arguments type,
    /// with the doc comment and `serde`/`schemars` attributes written on
    /// the parameter.
    Arg {
        ident: Ident,
        ty: Box<Type>,
        attrs: Vec<Attribute>,
    },
    /// The whole arguments object, as the application's own type.
    Args(Box<Type>),
}

/// The parameters of `inputs`, with the attributes the macro reads
/// removed from the function (a doc comment or `#[serde]` on a parameter
/// would not compile); a receiver is left for the caller to check.
pub fn classify(
    inputs: &mut syn::punctuated::Punctuated<FnArg, syn::Token![,]>,
) -> syn::Result<Vec<Param>> {
    let mut params = Vec::new();
    let mut errors: Option<syn::Error> = None;
    let mut push_error = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for input in inputs.iter_mut() {
        let FnArg::Typed(pt) = input else { continue };
        let mut marker: Option<&'static str> = None;
        let mut field_attrs = Vec::new();
        let mut kept = Vec::new();
        for attr in pt.attrs.drain(..) {
            let path = attr.path();
            let named = ["extract", "arg", "args"]
                .into_iter()
                .find(|m| path.is_ident(m));
            if let Some(m) = named {
                if let Some(other) = marker {
                    push_error(syn::Error::new_spanned(
                        &attr,
                        format!("a parameter is `#[{other}]` or `#[{m}]`, not both"),
                    ));
                }
                if let Err(e) = attr.meta.require_path_only() {
                    push_error(e);
                }
                marker = Some(m);
            } else if path.is_ident("doc") || path.is_ident("serde") || path.is_ident("schemars") {
                field_attrs.push(attr);
            } else {
                kept.push(attr);
            }
        }
        pt.attrs = kept;
        let ty = pt.ty.clone();
        let kind = match marker {
            Some("extract") => "extract",
            Some("args") => "args",
            Some(_) => "arg",
            None if is_extractor(&ty) => "extract",
            None => "arg",
        };
        if kind != "arg" && !field_attrs.is_empty() {
            let attr = &field_attrs[0];
            if !attr.path().is_ident("doc") {
                push_error(syn::Error::new_spanned(
                    attr,
                    "`serde` and `schemars` attributes belong on an argument, not an extractor",
                ));
            }
        }
        match kind {
            "extract" => params.push(Param::Extract(ty)),
            "args" => params.push(Param::Args(ty)),
            _ => {
                if let Type::Reference(r) = &*ty {
                    push_error(syn::Error::new_spanned(
                        r,
                        "an argument is an owned value (`String`, not `&str`): it is deserialized from the call",
                    ));
                    continue;
                }
                match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        params.push(Param::Arg {
                            ident: p.ident.clone(),
                            ty,
                            attrs: field_attrs,
                        })
                    }
                    other => push_error(syn::Error::new_spanned(
                        other,
                        "an argument is a plain name (it is the argument's name on the wire); mark an extractor `#[extract]`",
                    )),
                }
            }
        }
    }
    let whole = params
        .iter()
        .filter(|p| matches!(p, Param::Args(_)))
        .count();
    let named = params
        .iter()
        .filter(|p| matches!(p, Param::Arg { .. }))
        .count();
    if whole > 1 || (whole == 1 && named > 0) {
        push_error(syn::Error::new(
            proc_macro2::Span::call_site(),
            "a tool's arguments are either one `#[args]` parameter or named parameters, not both",
        ));
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(params),
    }
}

/// A type named like one of [`EXTRACTORS`], or an `Option` of one.
fn is_extractor(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    if last.ident == "Option" {
        if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
            if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                return is_extractor(inner);
            }
        }
        return false;
    }
    EXTRACTORS.iter().any(|name| last.ident == name)
}
