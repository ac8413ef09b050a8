//! # The adapter suite
//!
//! One suite for every runtime's entry points: each test is written once,
//! generic over [`harness::Rt`], and [`suite!`] instantiates it for tokio,
//! smol and blocking (`cargo test -p snodo-tests --test adapters smol::`
//! runs one runtime). Requests are literal JSON lines and raw HTTP bytes;
//! expectations are the literal messages and bytes a client must receive.
//!
//! What runs the same on every runtime is tested once, elsewhere: the
//! protocol in `proto/tests`, the driver's output buffer in
//! `driver/src/outbox.rs`. This suite tests what a runtime adds: its
//! tasks, timers, sockets and pipes under the shared driver.

mod auth;
mod client;
mod harness;
mod http;
mod layers;
mod offload;
mod pipe;
mod regressions;
mod service;
mod stdio;

/// `#[test] fn name() { module::name::<Runtime>() }` for each test.
macro_rules! instantiate {
    ($rt:ident: $($(#[$meta:meta])* $module:ident::$test:ident),* $(,)?) => {
        $(
            #[test]
            $(#[$meta])*
            fn $test() {
                crate::$module::$test::<crate::harness::$rt>();
            }
        )*
    };
}

/// Every test, once per runtime: `tokio::name`, `smol::name`, `blocking::name`.
macro_rules! suite {
    ($($(#[$meta:meta])* $module:ident::$test:ident),* $(,)?) => {
        mod tokio {
            instantiate!(Tokio: $($(#[$meta])* $module::$test),*);
        }
        mod smol {
            instantiate!(Smol: $($(#[$meta])* $module::$test),*);
        }
        mod blocking {
            instantiate!(Blocking: $($(#[$meta])* $module::$test),*);
        }
    };
}

suite! {
    stdio::stdio_discover_is_answered_and_eof_ends_serve,
    stdio::stdio_a_tool_call_is_answered,
    stdio::stdio_two_messages_in_one_write_and_one_split_across_writes,
    stdio::stdio_errors_are_answered_and_the_next_line_is_read,
    stdio::stdio_concurrent_calls_are_answered_in_completion_order,
    stdio::stdio_a_later_call_overtakes_one_still_running,
    stdio::stdio_a_cancelled_call_is_dropped_and_never_answered,
    stdio::stdio_a_panicking_handler_fails_only_its_call,
    stdio::stdio_progress_is_written_before_the_result,
    stdio::stdio_eof_answers_the_calls_in_flight_then_ends,
    stdio::stdio_eof_with_nothing_in_flight_ends_at_once,
    stdio::stdio_an_unterminated_last_line_is_answered_at_eof,
    stdio::stdio_calls_outliving_the_grace_after_eof_are_cancelled,
    stdio::stdio_a_call_past_its_timeout_is_answered_and_dropped,
    stdio::stdio_a_full_call_queue_stops_reading_input,
    stdio::stdio_a_queued_call_cancelled_before_it_starts_is_never_answered,
    stdio::stdio_a_backed_up_output_stops_reading_input,
    stdio::stdio_a_read_error_is_returned_after_the_calls_are_answered,
    stdio::stdio_a_write_error_ends_serve_with_it,
    stdio::stdio_a_registry_commit_reaches_a_listen_stream,
    http::http_discover_is_answered,
    http::http_keep_alive_serves_requests_in_turn,
    http::http_pipelined_requests_are_answered_in_order,
    http::http_connection_close_is_honoured,
    http::http_refused_requests_are_answered_and_the_connection_closed,
    http::http_a_panicking_handler_fails_only_its_request,
    http::http_progress_turns_the_response_into_an_sse_stream,
    http::http_sse_events_reach_the_client_while_the_call_runs,
    http::http_a_client_hanging_up_cancels_its_call_and_others_are_served,
    http::http_a_session_call_outlives_its_clients_disconnect,
    http::http_a_call_past_its_timeout_is_answered_and_dropped,
    http::http_three_hundred_concurrent_connections_are_all_answered,
    http::http_at_the_cap_a_new_connection_takes_an_idle_place_or_is_closed,
    http::http_shutdown_grace_expiry_cancels_what_is_left,
    http::http_a_disconnect_during_shutdown_still_cancels_the_call,
    http::http_an_idle_deadline_moved_later_by_a_request_is_kept,
    http::http_a_listen_stream_carries_events_and_ends_on_shutdown,
    http::http_a_registry_commit_reaches_a_listen_stream,
    http::http_a_session_get_stream_resumes_after_its_client_vanished,
    http::http_a_session_get_stream_resume_takes_over_an_open_stream,
    http::http_a_session_post_stream_resumes_after_its_client_vanished,
    http::tcp_line_framed_clients_are_served_independently,
    auth::http_a_deferred_authenticator_is_run_and_its_request_answered,
    auth::http_a_client_leaving_while_its_token_is_checked_drops_the_future,
    auth::stdio_a_principal_without_a_tools_scope_is_refused_in_every_era,
    regressions::stdio_unread_output_holds_up_neither_timeouts_nor_cancellations,
    regressions::http_unread_output_holds_up_no_call_timeout,
    regressions::http_unread_output_holds_up_no_cancellation,
    regressions::http_shutdown_with_calls_in_flight_ends_the_same_way,
    offload::stdio_blocking_work_runs_off_the_polling_thread,
    offload::stdio_a_cancelled_call_interrupts_its_blocking_work,
    offload::stdio_a_panic_in_blocking_work_fails_only_its_call,
    offload::http_blocking_work_runs_off_the_polling_thread,
    offload::http_a_client_hanging_up_interrupts_its_blocking_work,
    layers::stdio_a_tool_timeout_is_its_calls_deadline,
    layers::http_a_tool_timeout_is_its_calls_deadline,
    layers::stdio_a_concurrency_limit_queues_calls_and_a_cancelled_waiter_leaves,
    layers::http_a_concurrency_limit_holds_across_connections,
}
