//! A task's progress (`tasks.md` § Tasks: `statusMessage` carries
//! "progress descriptions for `working`"; § Task Status Notifications: no
//! `notifications/progress` for tasks). A run's handler reports progress
//! as any handler does; the runner shows the latest report as the task's
//! `statusMessage` in its lease renewals: the first at once, later ones at
//! the next renewal, each change published to listen streams once, and no
//! store write beyond the renewals a run costs anyway.

#[allow(unused_macros)]
mod contract;
mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use snodo_tasks::MemoryStore;
use support::{lit, req, task_id, World, DECLARED};

const SERVER: &str = r#"{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

fn get(w: &mut World, n: u64, id: &str) -> Value {
    let answer = w.call(&req(
        n,
        "tasks/get",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    answer["result"].clone()
}

/// What the listen stream got since last asked.
fn notes(w: &mut World) -> Vec<Value> {
    w.conn.handle_changes(w.now);
    w.drain_conn()
}

#[test]
fn a_runs_progress_is_its_tasks_status_message_written_with_its_renewals() {
    let store = Arc::new(contract::Counting::new(Arc::new(MemoryStore::new())));
    let mut w = World::new(store.clone());
    // No progressToken: a task's progress never depends on one.
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"steps""#, DECLARED)));
    let ack = w.call(&req(
        2,
        "subscriptions/listen",
        &format!(r#""notifications":{{"taskIds":["{id}"]}}"#),
        DECLARED,
    ));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let _ = notes(&mut w);

    w.tick();
    assert_eq!(w.held.len(), 1, "claimed");
    let claimed = store.writes();
    // The run reports 1 of 3 and pauses.
    w.start_held();
    assert_eq!(store.writes(), claimed, "a report alone writes nothing");
    // The runner, rung, writes the first report at once: one renewal.
    w.advance(5);
    w.tick();
    assert_eq!(store.writes(), claimed + 1);
    let working = get(&mut w, 3, &id);
    assert_eq!(
        working,
        lit(
            &format!(
                r#"{{"_meta":{SERVER},"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.005Z","pollIntervalMs":250,"resultType":"complete","status":"working","statusMessage":"1 of 3 steps","taskId":"{{id}}","ttlMs":60000}}"#
            ),
            &id
        )
    );
    let published = notes(&mut w);
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(
        published[0],
        lit(
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.005Z","pollIntervalMs":250,"status":"working","statusMessage":"1 of 3 steps","taskId":"{id}","ttlMs":60000}}"#,
            &id
        )
    );

    // 2 and 3 of 3: coalesced until the next renewal, 3 s on.
    w.poll_started();
    w.advance(1_000);
    w.tick();
    assert_eq!(store.writes(), claimed + 1, "no write between renewals");
    assert_eq!(get(&mut w, 4, &id)["statusMessage"], "1 of 3 steps");
    assert_eq!(notes(&mut w), Vec::<Value>::new());
    w.advance(2_005);
    w.tick();
    assert_eq!(
        store.writes(),
        claimed + 2,
        "the renewal carries the latest"
    );
    let later = get(&mut w, 5, &id);
    assert_eq!(
        (&later["statusMessage"], &later["lastUpdatedAt"]),
        (&json!("3 of 3 steps"), &json!("2026-07-28T00:00:03.010Z"))
    );
    let published = notes(&mut w);
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0]["params"]["statusMessage"], "3 of 3 steps");

    // Nothing new: the next renewal is the lease alone, nothing published.
    w.advance(3_000);
    w.tick();
    assert_eq!(store.writes(), claimed + 3);
    assert_eq!(notes(&mut w), Vec::<Value>::new());
    assert_eq!(
        get(&mut w, 6, &id)["lastUpdatedAt"],
        "2026-07-28T00:00:03.010Z"
    );

    // Done: the result replaces the progress.
    w.poll_started();
    let done = get(&mut w, 7, &id);
    assert_eq!(done["status"], "completed");
    assert_eq!(done.get("statusMessage"), None);
    assert_eq!(
        done["result"]["content"],
        json!([{"type":"text","text":"stepped"}])
    );
    let published = notes(&mut w);
    assert_eq!(published.len(), 1, "{published:?}");
    assert_eq!(published[0]["params"]["status"], "completed");
}

#[test]
fn a_run_that_reports_nothing_costs_only_its_renewals() {
    let store = Arc::new(contract::Counting::new(Arc::new(MemoryStore::new())));
    let mut w = World::new(store.clone());
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"x"}"#,
        DECLARED,
    )));
    w.tick();
    let claimed = store.writes();
    // Held, not run: a tick before the renewal is due writes nothing.
    w.advance(2_999);
    w.tick();
    assert_eq!(store.writes(), claimed);
    w.advance(1);
    w.tick();
    assert_eq!(store.writes(), claimed + 1, "the renewal");
    assert_eq!(get(&mut w, 2, &id).get("statusMessage"), None);
    w.run_held();
    assert_eq!(store.writes(), claimed + 2, "the commit");
    assert_eq!(get(&mut w, 3, &id)["status"], "completed");
}

/// A run that dies leaves its last report behind; the run that recovers
/// the task has reported nothing yet, so the task shows no progress until
/// it does (the dead run's "1 of 3" would describe work being redone).
#[test]
fn a_recovered_task_drops_the_dead_runs_progress() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"steps""#, DECLARED)));
    w.tick();
    w.start_held();
    w.advance(5);
    w.tick();
    assert_eq!(get(&mut w, 2, &id)["statusMessage"], "1 of 3 steps");
    // The run stops renewing (its worker died) and its lease (10 s) lapses.
    w.started.clear();
    w.runner = w.other_runner();
    w.advance(11_000);
    w.tick();
    assert_eq!(w.held.len(), 1, "recovered");
    let recovered = get(&mut w, 3, &id);
    assert_eq!(recovered["status"], "working");
    assert_eq!(recovered.get("statusMessage"), None, "{recovered}");
    // The new run's own report shows as before.
    w.start_held();
    w.advance(5);
    w.tick();
    assert_eq!(get(&mut w, 4, &id)["statusMessage"], "1 of 3 steps");
}
