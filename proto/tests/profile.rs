//! The profile is data; this file freezes it. A change to the table must be
//! made here too, deliberately, with the spec section that justifies it.

use snodo_proto::profile::{
    ClientCapability as C, Direction, Gate, Kind, Lifecycle, Placement, ServerCapability as S,
    Status, REVISION_2026_07_28,
};

type Row = (
    &'static str,
    Kind,
    Direction,
    Placement,
    Lifecycle,
    Status,
    Gate,
);

/// Every method string of MCP 2026-07-28 (`schema.ts` ClientRequest,
/// ClientNotification, ServerNotification, InputRequest: 21 core strings;
/// the 4 Tasks strings belong to the extension, not here).
#[rustfmt::skip]
const FROZEN: &[Row] = &[
    ("server/discover", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::None),
    ("tools/list", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Tools)),
    ("tools/call", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Tools)),
    ("prompts/list", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Prompts)),
    ("prompts/get", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Prompts)),
    ("resources/list", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Resources)),
    ("resources/templates/list", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Resources)),
    ("resources/read", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Resources)),
    ("completion/complete", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Completions)),
    ("subscriptions/listen", Kind::Request, Direction::ClientToServer, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    ("notifications/cancelled", Kind::Notification, Direction::Both, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::None),
    ("notifications/progress", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::None),
    ("notifications/message", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Deprecated, Status::Implemented, Gate::Server(S::Logging)),
    ("notifications/resources/updated", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    ("notifications/resources/list_changed", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    ("notifications/tools/list_changed", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    ("notifications/prompts/list_changed", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    ("notifications/subscriptions/acknowledged", Kind::Notification, Direction::ServerToClient, Placement::TopLevel, Lifecycle::Active, Status::Implemented, Gate::Server(S::Subscriptions)),
    // Input requests, carried inside InputRequiredResult (`basic/patterns/mrtr.mdx`).
    ("elicitation/create", Kind::InputRequest, Direction::ServerToClient, Placement::Embedded, Lifecycle::Active, Status::Implemented, Gate::Client(C::Elicitation)),
    ("sampling/createMessage", Kind::InputRequest, Direction::ServerToClient, Placement::Embedded, Lifecycle::Deprecated, Status::Implemented, Gate::Client(C::Sampling)),
    ("roots/list", Kind::InputRequest, Direction::ServerToClient, Placement::Embedded, Lifecycle::Deprecated, Status::Implemented, Gate::Client(C::Roots)),
];

#[test]
fn profile_matches_frozen_copy() {
    let p = &REVISION_2026_07_28;
    assert_eq!(p.version, "2026-07-28");
    let actual: Vec<Row> = p
        .methods
        .iter()
        .map(|m| {
            (
                m.name,
                m.kind,
                m.direction,
                m.placement,
                m.lifecycle,
                m.status,
                m.gate,
            )
        })
        .collect();
    assert_eq!(
        actual.len(),
        21,
        "2026-07-28 defines 21 core method strings"
    );
    for (a, f) in actual.iter().zip(FROZEN) {
        assert_eq!(a, f, "profile row differs from the frozen copy");
    }
    assert_eq!(actual.as_slice(), FROZEN);
}

#[test]
fn method_names_are_unique_and_typed_names_agree() {
    let p = &REVISION_2026_07_28;
    let mut names: Vec<&str> = p.methods.iter().map(|m| m.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), p.methods.len());
    for m in p.methods {
        assert_eq!(p.lookup(m.name).map(|r| r.method), Some(m.method));
    }
}

#[test]
fn removed_methods_are_not_in_the_profile() {
    let p = &REVISION_2026_07_28;
    assert_eq!(
        p.removed,
        &[
            "initialize",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
            "tasks/result",
            "tasks/list",
            "notifications/initialized",
            "notifications/roots/list_changed",
            "notifications/elicitation/complete",
            "notifications/tasks/status",
        ]
    );
    for r in p.removed {
        assert!(
            p.lookup(r).is_none(),
            "{r} is removed but still in the profile"
        );
    }
    assert!(
        p.lookup("tasks/get").is_none(),
        "Tasks methods belong to the extension"
    );
}

#[test]
fn capabilities_and_limitations_are_stated() {
    let p = &REVISION_2026_07_28;
    assert_eq!(
        p.capabilities,
        &[
            S::Tools,
            S::Prompts,
            S::Resources,
            S::Completions,
            S::Logging,
            S::Subscriptions
        ]
    );
    // The registry changes at run time (`Registry`): nothing is declared
    // missing from 2026-07-28 with `std`. Each initialize-era limitation is
    // held to its wire behaviour in `legacy.rs`
    // (`each_declared_limitation_is_still_a_limitation`).
    assert!(p.limitations.is_empty(), "{:?}", p.limitations);
}

/// The initialize-era dialects (`mcp-2025-11-25/schema.ts`): the method
/// strings a server receives or sends, frozen by name, kind and direction.
#[test]
fn initialize_era_profiles_match_their_frozen_copies() {
    use snodo_proto::profile::{Dialect, Handshake, REVISION_2025_06_18, REVISION_2025_11_25};
    const SHARED: &[(&str, Kind, Direction)] = &[
        ("initialize", Kind::Request, Direction::ClientToServer),
        ("ping", Kind::Request, Direction::Both),
        ("tools/list", Kind::Request, Direction::ClientToServer),
        ("tools/call", Kind::Request, Direction::ClientToServer),
        ("prompts/list", Kind::Request, Direction::ClientToServer),
        ("prompts/get", Kind::Request, Direction::ClientToServer),
        ("resources/list", Kind::Request, Direction::ClientToServer),
        (
            "resources/templates/list",
            Kind::Request,
            Direction::ClientToServer,
        ),
        ("resources/read", Kind::Request, Direction::ClientToServer),
        (
            "resources/subscribe",
            Kind::Request,
            Direction::ClientToServer,
        ),
        (
            "resources/unsubscribe",
            Kind::Request,
            Direction::ClientToServer,
        ),
        (
            "completion/complete",
            Kind::Request,
            Direction::ClientToServer,
        ),
        ("logging/setLevel", Kind::Request, Direction::ClientToServer),
        (
            "notifications/initialized",
            Kind::Notification,
            Direction::ClientToServer,
        ),
        (
            "notifications/cancelled",
            Kind::Notification,
            Direction::Both,
        ),
        (
            "notifications/progress",
            Kind::Notification,
            Direction::Both,
        ),
        (
            "notifications/roots/list_changed",
            Kind::Notification,
            Direction::ClientToServer,
        ),
        (
            "notifications/message",
            Kind::Notification,
            Direction::ServerToClient,
        ),
        (
            "notifications/resources/updated",
            Kind::Notification,
            Direction::ServerToClient,
        ),
        (
            "notifications/resources/list_changed",
            Kind::Notification,
            Direction::ServerToClient,
        ),
        (
            "notifications/tools/list_changed",
            Kind::Notification,
            Direction::ServerToClient,
        ),
        (
            "notifications/prompts/list_changed",
            Kind::Notification,
            Direction::ServerToClient,
        ),
        (
            "elicitation/create",
            Kind::Request,
            Direction::ServerToClient,
        ),
        (
            "sampling/createMessage",
            Kind::Request,
            Direction::ServerToClient,
        ),
        ("roots/list", Kind::Request, Direction::ServerToClient),
    ];
    let rows = |p: &snodo_proto::Profile| -> Vec<(&'static str, Kind, Direction)> {
        p.methods
            .iter()
            .map(|m| (m.name, m.kind, m.direction))
            .collect()
    };
    assert_eq!(REVISION_2025_06_18.version, "2025-06-18");
    assert_eq!(REVISION_2025_06_18.handshake, Handshake::Initialize);
    assert_eq!(rows(&REVISION_2025_06_18), SHARED);
    assert_eq!(REVISION_2025_11_25.version, "2025-11-25");
    assert_eq!(REVISION_2025_11_25.handshake, Handshake::Initialize);
    let mut with_url_completion = SHARED.to_vec();
    with_url_completion.push((
        "notifications/elicitation/complete",
        Kind::Notification,
        Direction::ServerToClient,
    ));
    assert_eq!(rows(&REVISION_2025_11_25), with_url_completion);
    assert_eq!(REVISION_2026_07_28.handshake, Handshake::PerRequest);
    for d in Dialect::ALL {
        assert_eq!(d.drift(), None, "{} drifted", d.version);
    }
    let drifted = Dialect {
        version: "2025-06-18",
        profile: &REVISION_2026_07_28,
    };
    assert!(drifted.drift().is_some());
}
