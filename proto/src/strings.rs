//! Typed values from string maps: a resource template's variables
//! (`server/resources.mdx` § Resource Templates, RFC 6570) and a prompt's
//! arguments (`server/prompts.mdx` § Getting a Prompt) are strings on the
//! wire, and an application wants them as its own types.
//!
//! Each string is read as what the target field asks for: a number, a
//! `bool`, a `char`, a unit enum variant, an `Option` (a present value is
//! `Some`), or a sequence split at commas (a list variable, `{list}` or
//! `{list*}`, expands to comma-separated values). Anything else receives
//! the string itself.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::str::FromStr;
use serde::de::value::{Error, MapDeserializer, SeqDeserializer};
use serde::de::{DeserializeOwned, Error as _, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

/// Deserialize `T` from `map`, each value read as its field asks.
pub(crate) fn from_strings<T: DeserializeOwned>(
    map: &BTreeMap<String, String>,
) -> Result<T, Error> {
    T::deserialize(MapDeserializer::new(
        map.iter().map(|(k, v)| (k.as_str(), Str(v.as_str()))),
    ))
}

/// One string value, read as the visitor asks.
#[derive(Clone, Copy)]
struct Str<'a>(&'a str);

impl<'de> IntoDeserializer<'de, Error> for Str<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'a> Str<'a> {
    fn parse<T: FromStr>(self, what: &str) -> Result<T, Error> {
        self.0
            .parse()
            .map_err(|_| Error::custom(alloc::format!("{:?} is not {what}", self.0)))
    }
}

macro_rules! parsed {
    ($($method:ident => $visit:ident: $ty:ty, $what:literal;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                visitor.$visit(self.parse::<$ty>($what)?)
            }
        )*
    };
}

impl<'de> serde::Deserializer<'de> for Str<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    parsed! {
        deserialize_bool => visit_bool: bool, "a boolean";
        deserialize_i8 => visit_i8: i8, "an integer";
        deserialize_i16 => visit_i16: i16, "an integer";
        deserialize_i32 => visit_i32: i32, "an integer";
        deserialize_i64 => visit_i64: i64, "an integer";
        deserialize_u8 => visit_u8: u8, "a non-negative integer";
        deserialize_u16 => visit_u16: u16, "a non-negative integer";
        deserialize_u32 => visit_u32: u32, "a non-negative integer";
        deserialize_u64 => visit_u64: u64, "a non-negative integer";
        deserialize_f32 => visit_f32: f32, "a number";
        deserialize_f64 => visit_f64: f64, "a number";
        deserialize_char => visit_char: char, "one character";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let items = self.0.split(',').filter(|s| !s.is_empty()).map(Str);
        let mut seq = SeqDeserializer::new(items);
        let value = visitor.visit_seq(&mut seq)?;
        seq.end()?;
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    forward_to_deserialize_any! {
        i128 u128 str string bytes byte_buf unit unit_struct tuple
        tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use alloc::vec::Vec;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Format {
        Json,
        Text,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Vars {
        name: String,
        page: u32,
        exact: bool,
        format: Format,
        tags: Vec<String>,
        limit: Option<u8>,
        missing: Option<String>,
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (String::from(*k), String::from(*v)))
            .collect()
    }

    #[test]
    fn strings_are_read_as_their_fields_ask() {
        let vars: Vars = from_strings(&map(&[
            ("name", "serde"),
            ("page", "3"),
            ("exact", "true"),
            ("format", "json"),
            ("tags", "a,b,c"),
            ("limit", "7"),
        ]))
        .unwrap();
        assert_eq!(
            vars,
            Vars {
                name: "serde".into(),
                page: 3,
                exact: true,
                format: Format::Json,
                tags: vec!["a".into(), "b".into(), "c".into()],
                limit: Some(7),
                missing: None,
            }
        );
    }

    #[test]
    fn a_value_that_is_not_its_fields_type_is_an_error_naming_it() {
        let e = from_strings::<Vars>(&map(&[
            ("name", "x"),
            ("page", "-1"),
            ("exact", "true"),
            ("format", "text"),
            ("tags", ""),
        ]))
        .unwrap_err();
        assert_eq!(e.to_string(), r#""-1" is not a non-negative integer"#);
        let e = from_strings::<Vars>(&map(&[("name", "x")])).unwrap_err();
        assert_eq!(e.to_string(), "missing field `page`");
    }
}
