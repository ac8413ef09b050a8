//! The `SubscriptionFilter` of a `subscriptions/listen` request
//! (`schema.ts` SubscriptionFilter), narrowed to what the server declared.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::{ChangeEvent, Notifications};
use crate::error::ErrorObject;
use crate::extension::Subscribed;

/// Most URIs one stream may subscribe to.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

/// The `SubscriptionFilter` members the core defines; extensions may add
/// others, never these.
pub const CORE_KEYS: &[&str] = &[
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
    "resourceSubscriptions",
];

/// What one listen stream receives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// `toolsListChanged`.
    pub tools_list_changed: bool,
    /// `promptsListChanged`.
    pub prompts_list_changed: bool,
    /// `resourcesListChanged`.
    pub resources_list_changed: bool,
    /// `resourceSubscriptions`, or `None` when not subscribed.
    pub resource_subscriptions: Option<BTreeSet<String>>,
    /// What extensions' own members subscribed to.
    pub extensions: Vec<Subscribed>,
}

impl Filter {
    /// Parse `params.notifications`. Unknown members are ignored (an
    /// extension may define them); known ones must have the schema's types.
    pub fn parse(params: &Map<String, Value>) -> Result<Filter, ErrorObject> {
        let notifications = match params.get("notifications") {
            Some(Value::Object(n)) => n,
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "notifications must be an object",
                ))
            }
            None => {
                return Err(ErrorObject::invalid_params(
                    "Missing required parameter notifications",
                ))
            }
        };
        let flag = |key: &str| -> Result<bool, ErrorObject> {
            match notifications.get(key) {
                None | Some(Value::Null) => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(ErrorObject::invalid_params(alloc::format!(
                    "notifications.{key} must be a boolean"
                ))),
            }
        };
        let resource_subscriptions = match notifications.get("resourceSubscriptions") {
            None | Some(Value::Null) => None,
            Some(Value::Array(uris)) => {
                if uris.len() > MAX_RESOURCE_SUBSCRIPTIONS {
                    return Err(ErrorObject::invalid_params(alloc::format!(
                        "notifications.resourceSubscriptions lists more than {MAX_RESOURCE_SUBSCRIPTIONS} URIs"
                    )));
                }
                let mut set = BTreeSet::new();
                for u in uris {
                    let Value::String(u) = u else {
                        return Err(ErrorObject::invalid_params(
                            "notifications.resourceSubscriptions must be an array of strings",
                        ));
                    };
                    set.insert(u.clone());
                }
                Some(set)
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "notifications.resourceSubscriptions must be an array of strings",
                ))
            }
        };
        Ok(Filter {
            tools_list_changed: flag("toolsListChanged")?,
            prompts_list_changed: flag("promptsListChanged")?,
            resources_list_changed: flag("resourcesListChanged")?,
            resource_subscriptions,
            extensions: Vec::new(),
        })
    }

    /// The subset the server agreed to honour (`§ Acknowledgment`: types the
    /// server does not support are omitted).
    pub fn narrow(self, declared: &Notifications) -> Filter {
        Filter {
            tools_list_changed: self.tools_list_changed && declared.tools_list_changed,
            prompts_list_changed: self.prompts_list_changed && declared.prompts_list_changed,
            resources_list_changed: self.resources_list_changed && declared.resources_list_changed,
            resource_subscriptions: self
                .resource_subscriptions
                .filter(|_| declared.resource_updates),
            extensions: self.extensions,
        }
    }

    /// Whether this stream wants `event`.
    pub fn wants(&self, event: &ChangeEvent) -> bool {
        match event {
            ChangeEvent::ToolsListChanged => self.tools_list_changed,
            ChangeEvent::PromptsListChanged => self.prompts_list_changed,
            ChangeEvent::ResourcesListChanged => self.resources_list_changed,
            ChangeEvent::ResourceUpdated { uri } => self
                .resource_subscriptions
                .as_ref()
                .is_some_and(|s| s.contains(uri)),
            ChangeEvent::Extension(e) => self.extensions.iter().any(|s| {
                s.extension == e.extension && s.scope == e.scope && s.topics.contains(&e.topic)
            }),
            ChangeEvent::ElicitationComplete { .. } => false,
        }
    }

    /// The filter as the acknowledgement publishes it: only what is honoured.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if self.tools_list_changed {
            m.insert(String::from("toolsListChanged"), Value::Bool(true));
        }
        if self.prompts_list_changed {
            m.insert(String::from("promptsListChanged"), Value::Bool(true));
        }
        if self.resources_list_changed {
            m.insert(String::from("resourcesListChanged"), Value::Bool(true));
        }
        if let Some(uris) = &self.resource_subscriptions {
            m.insert(
                String::from("resourceSubscriptions"),
                Value::Array(uris.iter().cloned().map(Value::String).collect()),
            );
        }
        for sub in &self.extensions {
            for (k, v) in &sub.ack {
                m.insert(k.clone(), v.clone());
            }
        }
        Value::Object(m)
    }
}

/// The notification method and params (without `_meta`) for `event`.
pub fn notification_for(event: &ChangeEvent) -> (&str, Map<String, Value>) {
    let mut params = Map::new();
    let method = match event {
        ChangeEvent::Extension(e) => return (&e.method, e.params()),
        ChangeEvent::ToolsListChanged => "notifications/tools/list_changed",
        ChangeEvent::PromptsListChanged => "notifications/prompts/list_changed",
        ChangeEvent::ResourcesListChanged => "notifications/resources/list_changed",
        ChangeEvent::ResourceUpdated { uri } => {
            params.insert(String::from("uri"), Value::String(uri.clone()));
            "notifications/resources/updated"
        }
        ChangeEvent::ElicitationComplete { elicitation_id } => {
            let id = Value::String(elicitation_id.clone());
            params.insert(String::from("elicitationId"), id);
            "notifications/elicitation/complete"
        }
    };
    (method, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Filter, ErrorObject> {
        Filter::parse(v.as_object().unwrap())
    }

    #[test]
    fn parses_and_narrows() {
        let f = parse(json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["a://1", "a://1"], "x": 1}})).unwrap();
        let declared = Notifications {
            tools_list_changed: true,
            ..Default::default()
        };
        let n = f.narrow(&declared);
        assert_eq!(n.to_json(), json!({"toolsListChanged": true}));
        assert!(n.wants(&ChangeEvent::ToolsListChanged));
        assert!(!n.wants(&ChangeEvent::PromptsListChanged));
        assert!(!n.wants(&ChangeEvent::ResourceUpdated {
            uri: "a://1".into()
        }));
    }

    #[test]
    fn resource_subscriptions_match_exact_uris() {
        let declared = Notifications {
            resource_updates: true,
            ..Default::default()
        };
        let f = parse(json!({"notifications": {"resourceSubscriptions": ["a://1"]}}))
            .unwrap()
            .narrow(&declared);
        assert!(f.wants(&ChangeEvent::ResourceUpdated {
            uri: "a://1".into()
        }));
        assert!(!f.wants(&ChangeEvent::ResourceUpdated {
            uri: "a://2".into()
        }));
        assert_eq!(f.to_json(), json!({"resourceSubscriptions": ["a://1"]}));
    }

    #[test]
    fn refuses_wrong_types() {
        assert!(parse(json!({})).is_err());
        assert!(parse(json!({"notifications": []})).is_err());
        assert!(parse(json!({"notifications": {"toolsListChanged": "yes"}})).is_err());
        assert!(parse(json!({"notifications": {"resourceSubscriptions": [1]}})).is_err());
        assert!(parse(json!({"notifications": {"resourceSubscriptions": "a"}})).is_err());
        assert_eq!(
            parse(json!({"notifications": {}})).unwrap(),
            Filter::default()
        );
    }
}
