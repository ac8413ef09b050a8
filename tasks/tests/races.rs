//! Races played out in each order: a run completing against a cancel, an
//! update against a completion, a worker whose lease lapsed against the one
//! that recovered its task. Whatever the order, a terminal task never
//! changes again and a stale claim's commit is fenced out.

mod support;

use std::sync::Arc;

use serde_json::json;
use snodo_proto::Outcome;
use snodo_tasks::{Commit, Committed, MemoryStore, RunnerOutput, Status, TaskId};
use support::{block_on, req, task_id, World, DECLARED};

fn get(w: &mut World, id: &str) -> serde_json::Value {
    w.call(&req(
        90,
        "tasks/get",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ))["result"]
        .clone()
}

#[test]
fn cancel_wins_over_a_run_that_finishes_after_it() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"late"}"#,
        DECLARED,
    )));
    w.tick();
    assert_eq!(w.held.len(), 1, "the run is out");
    let work = w.held.remove(0);
    let work_id = work.id;
    let flag = work.cancel_flag();
    // The cancel lands while the run is out.
    w.call(&req(
        2,
        "tasks/cancel",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    w.tick();
    assert_eq!(w.aborted, vec![work_id], "the runner aborts the run");
    // The run finishes anyway (a handler that ignored its flag).
    let outcome = block_on(work.run());
    assert!(flag.is_cancelled());
    w.runner.complete(work_id, outcome, w.now);
    let t = get(&mut w, &id);
    assert_eq!(t["status"], "cancelled");
    assert!(t.get("result").is_none());
}

#[test]
fn a_run_that_finishes_first_wins_over_a_later_cancel() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"first"}"#,
        DECLARED,
    )));
    w.tick();
    w.run_held();
    let ack = w.call(&req(
        2,
        "tasks/cancel",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    assert_eq!(ack["result"]["resultType"], "complete");
    let t = get(&mut w, &id);
    assert_eq!(t["status"], "completed");
    assert_eq!(
        t["result"]["content"],
        json!([{"type":"text","text":"first"}])
    );
}

#[test]
fn update_and_completion_in_either_order() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask""#, DECLARED)));
    w.settle();
    assert_eq!(get(&mut w, &id)["status"], "input_required");
    let answer = req(
        2,
        "tasks/update",
        &format!(
            r#""taskId":"{id}","inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":true}}}}}}"#
        ),
        DECLARED,
    );
    w.call(&answer);
    // The re-run is out; the same answer arrives again (a client retry).
    w.tick();
    assert_eq!(w.held.len(), 1);
    assert_eq!(w.call(&answer)["result"]["resultType"], "complete");
    assert_eq!(
        get(&mut w, &id)["status"],
        "working",
        "a duplicate update changes nothing"
    );
    w.run_held();
    let done = get(&mut w, &id);
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["result"]["content"],
        json!([{"type":"text","text":"confirmed"}])
    );
    // And after completion: acknowledged, ignored.
    assert_eq!(w.call(&answer)["result"]["resultType"], "complete");
    assert_eq!(get(&mut w, &id), done);
}

#[test]
fn a_lapsed_lease_is_recovered_and_the_stale_worker_is_fenced() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"once"}"#,
        DECLARED,
    )));
    w.tick();
    let stale = w.held.remove(0);
    // Worker A stalls past its lease (10 s) without renewing.
    w.advance(11_000);
    let mut b = w.other_runner();
    b.handle_timeout(w.now);
    let Some(RunnerOutput::Run(fresh)) = b.poll_output() else {
        panic!("the other runner recovers the task");
    };
    assert_eq!(fresh.task.as_str(), id);
    // A's renewal now fails: it aborts its own run.
    w.tick();
    assert_eq!(w.aborted, vec![stale.id]);
    // A's commit (were it made) is fenced; B's applies.
    let engine = w.runner.engine().clone();
    let task = TaskId::parse(&id).unwrap();
    assert_eq!(
        engine
            .commit(
                &task,
                1,
                Commit::Complete(serde_json::Map::new()),
                w.now,
                None
            )
            .unwrap(),
        Committed::Fenced
    );
    let fresh_id = fresh.id;
    let outcome = block_on(fresh.run());
    b.complete(fresh_id, outcome, w.now);
    let t = get(&mut w, &id);
    assert_eq!(t["status"], "completed");
    assert_eq!(
        t["result"]["content"],
        json!([{"type":"text","text":"once"}])
    );
    let record = engine.store().get(&task).unwrap().unwrap();
    assert_eq!((record.attempts, record.generation), (2, 2));
    // The stale run completing late changes nothing either.
    let outcome = block_on(stale.run());
    w.runner
        .complete(snodo_tasks::WorkId::clone(&stale_id(&w)), outcome, w.now);
    assert_eq!(get(&mut w, &id), t);
}

fn stale_id(w: &World) -> snodo_tasks::WorkId {
    w.aborted[0]
}

#[test]
fn leases_are_renewed_while_a_run_is_out() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"slow"}"#,
        DECLARED,
    )));
    w.tick();
    assert_eq!(w.held.len(), 1);
    // 30 s of renewals every 3 s: the lease never lapses, nobody else claims.
    let mut b = w.other_runner();
    for _ in 0..10 {
        w.advance(3_000);
        w.tick();
        b.handle_timeout(w.now);
        assert!(b.poll_output().is_none(), "claimed while renewed");
    }
    assert!(w.aborted.is_empty());
    w.run_held();
    assert_eq!(get(&mut w, &id)["status"], "completed");
}

#[test]
fn a_reused_input_key_with_another_request_fails_the_task_and_an_identical_one_replays() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask""#, DECLARED)));
    w.settle();
    let task = TaskId::parse(&id).unwrap();
    let engine = w.runner.engine().clone();
    let asked = engine.store().get(&task).unwrap().unwrap().inputs["confirm"]
        .request
        .clone();
    w.call(&req(2, "tasks/update", &format!(r#""taskId":"{id}","inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":true}}}}}}"#), DECLARED));
    // A recovered run asks the identical request again: the stored answer
    // is replayed, the client is not asked twice, the task stays working.
    let claim = engine
        .claim(
            w.now,
            std::time::Duration::from_secs(10),
            &Default::default(),
        )
        .unwrap()
        .unwrap();
    let mut requests = serde_json::Map::new();
    requests.insert("confirm".into(), asked.clone());
    let replay = engine
        .commit(
            &task,
            claim.generation,
            Commit::Input {
                requests: requests.clone(),
                state: None,
            },
            w.now,
            None,
        )
        .unwrap();
    assert_eq!(replay, Committed::Applied(Status::Working));
    let record = engine.store().get(&task).unwrap().unwrap();
    assert_eq!(
        record.resume.unwrap().responses["confirm"],
        json!({"action":"accept","content":{"confirm":true}})
    );
    // A run that uses the key for a different request fails the task.
    let claim = engine
        .claim(
            w.now,
            std::time::Duration::from_secs(10),
            &Default::default(),
        )
        .unwrap()
        .unwrap();
    let mut changed = requests;
    changed.insert("confirm".into(), json!({"method":"elicitation/create","params":{"mode":"form","message":"Something else?","requestedSchema":{"type":"object","properties":{}}}}));
    let refused = engine
        .commit(
            &task,
            claim.generation,
            Commit::Input {
                requests: changed,
                state: None,
            },
            w.now,
            None,
        )
        .unwrap();
    assert_eq!(refused, Committed::Applied(Status::Failed));
    let t = get(&mut w, &id);
    assert_eq!(
        t["error"],
        json!({"code":-32603,"message":"The tool reused an input request key for a different request"})
    );
}

#[test]
fn a_panicking_or_missing_outcome_does_not_wedge_a_task() {
    // An outcome of the wrong kind for a tool fails the task with -32603.
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"x"}"#,
        DECLARED,
    )));
    w.tick();
    let work = w.held.remove(0);
    w.runner
        .complete(work.id, Outcome::Extension(serde_json::Map::new()), w.now);
    let t = get(&mut w, &id);
    assert_eq!(t["status"], "failed");
    assert_eq!(
        t["error"],
        json!({"code":-32603,"message":"Internal error"})
    );
}
