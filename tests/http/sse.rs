//! Reading a `text/event-stream` body (HTML Living Standard § 9.2.6
//! "Interpreting an event stream") into the data of its events.

/// The `data` of each event in `body`, in order. Lines end with CRLF, LF
/// or CR; `data:` lines of one event are joined with `\n`; one space after
/// the colon is dropped; comments and other fields are ignored; an event
/// without data is not dispatched, and neither is a last event that no
/// blank line ends.
pub fn events(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Option<String> = None;
    let normalized = body.replace("\r\n", "\n").replace('\r', "\n");
    for line in normalized.split('\n') {
        if line.is_empty() {
            out.extend(data.take());
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(String::from(value)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_with_data() {
        assert_eq!(
            events("data: {\"a\":1}\n\n: comment\nevent: message\nid: 7\ndata:{\"b\":\ndata: 2\n\nretry: 10\n\n"),
            vec![String::from("{\"a\":1}"), String::from("{\"b\":\n2")]
        );
        assert_eq!(events("data: x\r\n\r\ndata: y\r\rdata: z"), vec!["x", "y"]);
    }
}
