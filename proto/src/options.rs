//! The builder methods of the public option structs, which are
//! `#[non_exhaustive]` (a new limit is not a breaking change), so a caller
//! outside the crate sets them one by one.

/// `Set [`field`](Type::field)` builder methods for an options struct, so
/// that a caller outside the crate can build one field by field (the
/// structs are `#[non_exhaustive]`: a new limit is not a breaking change).
macro_rules! setters {
    ($ty:ident { $($field:ident: $t:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Set [`", stringify!($field), "`](", stringify!($ty), "::", stringify!($field), ").")]
                pub fn $field(mut self, value: $t) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}
pub(crate) use setters;

/// For a set of flags, each off by default: `none()`, `all()`, and a
/// method per flag that turns it on (a builder takes no positional `bool`).
macro_rules! flags {
    ($ty:ident { $($(#[$doc:meta])* $field:ident),* $(,)? }) => {
        impl $ty {
            /// None of them (the default).
            pub const fn none() -> Self {
                $ty { $($field: false),* }
            }

            /// All of them.
            pub const fn all() -> Self {
                $ty { $($field: true),* }
            }

            $(
                $(#[$doc])*
                pub const fn $field(mut self) -> Self {
                    self.$field = true;
                    self
                }
            )*
        }
    };
}
pub(crate) use flags;
