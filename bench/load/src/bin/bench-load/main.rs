//! `bench-load`: runs every echo server, loads it, checks every response,
//! and prints the figures side by side with snodo/peer ratios.
//!
//! Each server runs in a child process pinned to core 0 (`taskset`, from
//! util-linux); run this program pinned to core 1 (`bench/run` does).
//!
//! - HTTP: at each concurrency level, that many keep-alive connections
//!   each send `tools/call echo` and wait for its answer before sending
//!   the next (no pipelining). Every response must be `200` and carry the
//!   request's id and its unique text. A warm-up precedes each level and
//!   is not counted. Requests/s, p50/p99 latency (from send to last byte
//!   read), errors, and the server's peak RSS (`VmHWM` from `/proc`).
//! - HTTP/2, for the servers that speak it (h2c, prior knowledge): at
//!   each level, that many concurrent streams on one connection, each
//!   sending the next call when its answer is in ([`h2load`]).
//! - stdio: N `tools/call echo` lines written as fast as the pipe takes
//!   them while the answers are read; the time from the first byte written
//!   to the last answer, and the server's peak RSS. Every answer is parsed
//!   and matched to its request.
//!
//! Every request is `tools/call echo` exactly as the released TypeScript
//! client writes it (see [`request`]): its member order, its `_meta`
//! (`clientInfo` and its declared capabilities beside the protocol
//! version) and, over HTTP, its header lines.
//!
//! Output: Markdown tables on stdout; progress on stderr.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

mod h2load;

/// `_meta` exactly as the released TypeScript client
/// (`@modelcontextprotocol/client` 2.4.0, the one `evidence/client-interop`
/// runs) writes it in every request: captured from its socket, with the
/// capabilities that lane declares. Realistic traffic carries `clientInfo`
/// and a non-empty `clientCapabilities`, not the two bare members.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"snodo-client-interop","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}"#;

/// One server under test.
#[derive(Clone)]
struct Server {
    /// Row label.
    label: &'static str,
    binary: &'static str,
    runtime: Option<&'static str>,
    /// Also measured over stdio.
    stdio: bool,
    /// Also measured over HTTP/2 (h2c).
    h2: bool,
    /// Started with `--auth`: the server prints a bearer token after its
    /// address, and every request carries it.
    auth: bool,
}

const SERVERS: &[Server] = &[
    Server {
        label: "snodo (tokio)",
        binary: "snodo-echo",
        runtime: Some("tokio"),
        stdio: true,
        h2: false,
        auth: false,
    },
    // The same server with authorization on (snodo-auth's JwtValidator,
    // RS256, static key, its cache of verified tokens): the client sends
    // one token on every request, as a client reusing its access token
    // does, so this row is the per-request cost of a cached validation.
    Server {
        label: "snodo (tokio, auth)",
        binary: "snodo-echo",
        runtime: Some("tokio"),
        stdio: false,
        h2: false,
        auth: true,
    },
    Server {
        label: "snodo (smol)",
        binary: "snodo-echo",
        runtime: Some("smol"),
        stdio: true,
        h2: false,
        auth: false,
    },
    Server {
        label: "snodo (blocking)",
        binary: "snodo-echo",
        runtime: Some("blocking"),
        stdio: true,
        h2: false,
        auth: false,
    },
    Server {
        label: "snodo (hyper)",
        binary: "snodo-echo",
        runtime: Some("hyper"),
        // An HTTP adapter only.
        stdio: false,
        h2: true,
        auth: false,
    },
    Server {
        label: "rmcp",
        binary: "rmcp-echo",
        runtime: None,
        stdio: true,
        h2: true,
        auth: false,
    },
    Server {
        label: "tower-mcp",
        binary: "tower-mcp-echo",
        runtime: None,
        stdio: true,
        h2: true,
        auth: false,
    },
    Server {
        label: "bare floor",
        binary: "floor-echo",
        runtime: None,
        stdio: false,
        h2: false,
        auth: false,
    },
];

struct Config {
    levels: Vec<usize>,
    duration: Duration,
    warmup: Duration,
    stdio_calls: usize,
    bin_dir: PathBuf,
    only: Vec<String>,
    server_cpu: String,
    /// Load a server that is already running (for profiling it).
    target: Option<std::net::SocketAddr>,
    /// Every server is measured this many times, in turn, each time for
    /// `duration / rounds`: other load on the machine then falls on all
    /// of them alike, and the median round is reported.
    rounds: u32,
}

impl Config {
    fn from_args() -> Config {
        let exe = std::env::current_exe().expect("own path");
        let mut c = Config {
            levels: vec![1, 16, 64],
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(1),
            stdio_calls: 100_000,
            bin_dir: exe.parent().expect("a directory").to_path_buf(),
            only: Vec::new(),
            server_cpu: String::from("0"),
            target: None,
            rounds: 5,
        };
        let mut it = std::env::args().skip(1);
        while let Some(a) = it.next() {
            let mut value = || {
                it.next()
                    .unwrap_or_else(|| usage(&format!("{a} needs a value")))
            };
            match a.as_str() {
                "--quick" => {
                    c.duration = Duration::from_secs(2);
                    c.warmup = Duration::from_millis(500);
                    c.stdio_calls = 20_000;
                    c.rounds = 1;
                }
                "--rounds" => {
                    c.rounds = value()
                        .parse()
                        .ok()
                        .filter(|&r| r > 0)
                        .unwrap_or_else(|| usage("bad --rounds"))
                }
                "--duration" => c.duration = Duration::from_secs_f64(secs(&value())),
                "--warmup" => c.warmup = Duration::from_secs_f64(secs(&value())),
                "--levels" => {
                    c.levels = value()
                        .split(',')
                        .map(|l| l.parse().unwrap_or_else(|_| usage("bad --levels")))
                        .collect()
                }
                "--stdio-calls" => {
                    c.stdio_calls = value()
                        .parse()
                        .unwrap_or_else(|_| usage("bad --stdio-calls"))
                }
                "--bin-dir" => c.bin_dir = PathBuf::from(value()),
                "--only" => c.only.push(value()),
                "--server-cpu" => c.server_cpu = value(),
                "--target" => {
                    c.target = Some(value().parse().unwrap_or_else(|_| usage("bad --target")))
                }
                _ => usage(&format!("unknown argument {a:?}")),
            }
        }
        c
    }
}

fn secs(v: &str) -> f64 {
    v.parse()
        .unwrap_or_else(|_| usage("a duration is a number of seconds"))
}

fn usage(why: &str) -> ! {
    eprintln!(
        "{why}\nusage: bench-load [--quick] [--duration S] [--warmup S] [--levels 1,16,64] \
         [--stdio-calls N] [--rounds N] [--only LABEL]... [--bin-dir DIR] [--server-cpu N] [--target ADDR]"
    );
    std::process::exit(2)
}

/// One level's figures.
#[derive(Clone, Debug, Default)]
struct Level {
    concurrency: usize,
    rps: f64,
    p50_us: u32,
    p99_us: u32,
    errors: u64,
    /// Requests answered in the whole run, warm-up included.
    answered: u64,
    /// Server CPU time (all threads, user + system) per answered request,
    /// in microseconds: less sensitive to other load on the machine than
    /// requests/s.
    cpu_us: f64,
    /// Every measured latency, sorted.
    lat: Vec<u32>,
    /// Share of the run the load generator's own thread was on a CPU: near
    /// 100% would mean the client, not the server, set the pace.
    client_busy: f64,
}

#[derive(Clone, Debug, Default)]
struct StdioRun {
    calls: usize,
    seconds: f64,
    rss_kib: u64,
    errors: u64,
    cpu_us: f64,
}

#[derive(Default)]
struct Results {
    http: HashMap<&'static str, (Vec<Level>, u64)>,
    /// The HTTP/2 levels of the servers that speak it.
    http2: HashMap<&'static str, (Vec<Level>, u64)>,
    stdio: HashMap<&'static str, StdioRun>,
}

fn main() {
    let config = Config::from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let results = rt.block_on(run_all(&config));
    print_tables(&config, &results);
}

async fn run_all(config: &Config) -> Results {
    let mut results = Results::default();
    if let Some(addr) = config.target {
        // Only load a running server: no spawning, no RSS.
        for &c in &config.levels {
            match load(addr, Wire::H1, c, config.warmup, config.duration, "").await {
                Ok(l) => eprintln!(
                    "{addr}: HTTP c={} {:.0} req/s, p50 {} us, p99 {} us, {} answered, {} errors",
                    l.concurrency, l.rps, l.p50_us, l.p99_us, l.answered, l.errors
                ),
                Err(e) => eprintln!("{addr}: {e}"),
            }
        }
        return results;
    }
    let mut http: HashMap<&'static str, Vec<(Vec<Level>, u64)>> = HashMap::new();
    let mut http2: HashMap<&'static str, Vec<(Vec<Level>, u64)>> = HashMap::new();
    let mut stdio: HashMap<&'static str, Vec<StdioRun>> = HashMap::new();
    let per_round = config.duration / config.rounds;
    for round in 1..=config.rounds {
        eprintln!("== round {round} of {}", config.rounds);
        for server in SERVERS {
            if !config.only.is_empty()
                && !config
                    .only
                    .iter()
                    .any(|o| server.label.contains(o.as_str()))
            {
                continue;
            }
            match http_series(config, server, per_round, round == 1).await {
                Ok((h1, h2, rss)) => {
                    http.entry(server.label).or_default().push((h1, rss));
                    if server.h2 {
                        http2.entry(server.label).or_default().push((h2, rss));
                    }
                }
                Err(e) => eprintln!("{}: HTTP run failed: {e}", server.label),
            }
            if server.stdio {
                match stdio_run(config, server).await {
                    Ok(r) => stdio.entry(server.label).or_default().push(r),
                    Err(e) => eprintln!("{}: stdio run failed: {e}", server.label),
                }
            }
        }
    }
    for (label, runs) in http {
        results.http.insert(label, combine_http(runs));
    }
    for (label, runs) in http2 {
        results.http2.insert(label, combine_http(runs));
    }
    for (label, runs) in stdio {
        results.stdio.insert(label, combine_stdio(runs));
    }
    results
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Rounds of one server: the median round's requests/s, latency
/// percentiles over every sample, CPU per request over every request, the
/// highest peak RSS.
fn combine_http(runs: Vec<(Vec<Level>, u64)>) -> (Vec<Level>, u64) {
    let rss = runs.iter().map(|r| r.1).max().unwrap_or(0);
    let levels = runs.first().map_or(0, |r| r.0.len());
    let mut out = Vec::new();
    for i in 0..levels {
        let of_level: Vec<&Level> = runs.iter().filter_map(|r| r.0.get(i)).collect();
        let mut lat: Vec<u32> = of_level
            .iter()
            .flat_map(|l| l.lat.iter().copied())
            .collect();
        lat.sort_unstable();
        let answered: u64 = of_level.iter().map(|l| l.answered).sum();
        let cpu: f64 = of_level.iter().map(|l| l.cpu_us * l.answered as f64).sum();
        out.push(Level {
            concurrency: of_level[0].concurrency,
            rps: median(of_level.iter().map(|l| l.rps).collect()),
            p50_us: percentile(&lat, 0.50),
            p99_us: percentile(&lat, 0.99),
            errors: of_level.iter().map(|l| l.errors).sum(),
            answered,
            cpu_us: cpu / answered.max(1) as f64,
            lat: Vec::new(),
            client_busy: median(of_level.iter().map(|l| l.client_busy).collect()),
        });
    }
    (out, rss)
}

/// Rounds of one server on stdio: the median time and CPU, the highest
/// peak RSS, every error.
fn combine_stdio(runs: Vec<StdioRun>) -> StdioRun {
    StdioRun {
        calls: runs.first().map_or(0, |r| r.calls),
        seconds: median(runs.iter().map(|r| r.seconds).collect()),
        rss_kib: runs.iter().map(|r| r.rss_kib).max().unwrap_or(0),
        errors: runs.iter().map(|r| r.errors).sum(),
        cpu_us: median(runs.iter().map(|r| r.cpu_us).collect()),
    }
}

fn percentile(sorted: &[u32], p: f64) -> u32 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0)
}

fn spawn(config: &Config, server: &Server, mode: &[&str]) -> std::io::Result<Child> {
    let binary = config.bin_dir.join(server.binary);
    let mut cmd = Command::new("taskset");
    cmd.arg("-c")
        .arg(&config.server_cpu)
        .arg(&binary)
        .args(mode);
    if let Some(rt) = server.runtime {
        cmd.args(["--runtime", rt]);
    }
    if server.auth && mode.contains(&"--listen") {
        cmd.arg("--auth");
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .env("RUST_LOG", "error")
        .kill_on_drop(true);
    cmd.spawn()
}

/// CPU time `pid` has spent so far, user + system, in nanoseconds: the
/// process-wide figure of `/proc/PID/stat`, which also keeps the time of
/// threads that have ended (the blocking adapter's per-connection
/// threads). Clock ticks of 10 ms (`CLK_TCK` is 100 on Linux).
fn cpu_ns(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesized command name; utime and stime are
    // fields 14 and 15 of the line, so 12th and 13th after it.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let mut fields = after.split_whitespace().skip(11);
    let ticks = |f: Option<&str>| f.and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    let (utime, stime) = (ticks(fields.next()), ticks(fields.next()));
    (utime + stime) * 10_000_000
}

/// Peak resident set of `pid` so far, in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn http_series(
    config: &Config,
    server: &Server,
    duration: Duration,
    show_first: bool,
) -> Result<(Vec<Level>, Vec<Level>, u64), String> {
    let mut child =
        spawn(config, server, &["--listen", "127.0.0.1:0"]).map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("no pid")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    // Kept open until the server is killed.
    let mut stdout = BufReader::new(stdout);
    tokio::time::timeout(Duration::from_secs(10), stdout.read_line(&mut line))
        .await
        .map_err(|_| "the server did not print its address")?
        .map_err(|e| e.to_string())?;
    let addr: std::net::SocketAddr = line
        .trim()
        .parse()
        .map_err(|_| format!("bad address line {line:?}"))?;
    // With `--auth`, the token line; every request carries it.
    let mut auth = String::new();
    if server.auth {
        let mut token = String::new();
        tokio::time::timeout(Duration::from_secs(10), stdout.read_line(&mut token))
            .await
            .map_err(|_| "the server did not print its token")?
            .map_err(|e| e.to_string())?;
        auth = format!("authorization: Bearer {}\r\n", token.trim());
    }
    check_first(addr, server.label, show_first, &auth).await?;
    let mut levels = Vec::new();
    let mut levels_h2 = Vec::new();
    let wires: &[Wire] = if server.h2 {
        &[Wire::H1, Wire::H2]
    } else {
        &[Wire::H1]
    };
    for (&wire, &c) in wires
        .iter()
        .flat_map(|w| config.levels.iter().map(move |c| (w, c)))
    {
        eprint!("{}: {} c={c} ... ", server.label, wire.name());
        let cpu_before = cpu_ns(pid);
        let client_before = cpu_ns(std::process::id());
        let started = Instant::now();
        let mut level = load(addr, wire, c, config.warmup, duration, &auth).await?;
        level.client_busy = cpu_ns(std::process::id()).saturating_sub(client_before) as f64
            / started.elapsed().as_nanos() as f64;
        level.cpu_us =
            cpu_ns(pid).saturating_sub(cpu_before) as f64 / 1000.0 / level.answered.max(1) as f64;
        eprintln!(
            "{:.0} req/s, p50 {} us, p99 {} us, {:.1} us CPU/req, client busy {:.0}%, {} errors",
            level.rps,
            level.p50_us,
            level.p99_us,
            level.cpu_us,
            100.0 * level.client_busy,
            level.errors
        );
        match wire {
            Wire::H1 => levels.push(level),
            Wire::H2 => levels_h2.push(level),
        }
    }
    let rss = peak_rss_kib(pid);
    let _ = child.kill().await;
    Ok((levels, levels_h2, rss))
}

/// How the load reaches the server.
#[derive(Clone, Copy)]
enum Wire {
    /// A keep-alive HTTP/1.1 connection per concurrent caller.
    H1,
    /// One h2c connection, a stream per concurrent caller.
    H2,
}

impl Wire {
    fn name(self) -> &'static str {
        match self {
            Wire::H1 => "HTTP",
            Wire::H2 => "HTTP/2",
        }
    }
}

/// The request for call `seq` on connection `conn` (`body` is scratch):
/// `tools/call echo` as the released TypeScript client sends it over
/// Streamable HTTP, its members in its order and the header lines Node's
/// `fetch` writes under it, in their order (captured from its socket).
/// `auth` is an `authorization` header line, or empty.
fn request(out: &mut Vec<u8>, body: &mut Vec<u8>, host: &str, auth: &str, conn: usize, seq: u64) {
    out.clear();
    call_body(body, conn, seq);
    let _ = write!(
        out,
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\n{auth}connection: keep-alive\r\n\
         mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: echo\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         accept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\n\
         accept-encoding: gzip, deflate\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    out.extend_from_slice(body);
}

/// The JSON body of call `seq` on connection (or stream) `conn`.
fn call_body(body: &mut Vec<u8>, conn: usize, seq: u64) {
    body.clear();
    let _ = write!(
        body,
        r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"c{conn}-{seq}"}},{META}}},"jsonrpc":"2.0","id":{seq}}}"#
    );
}

/// The members of a stdio answer that are checked.
#[derive(serde::Deserialize)]
struct Answer<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<AnswerResult<'a>>,
}

#[derive(serde::Deserialize)]
struct AnswerResult<'a> {
    #[serde(borrow)]
    content: Vec<Block<'a>>,
}

#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
}

/// One HTTP response read off a keep-alive connection.
struct Response {
    status: u16,
    body: Vec<u8>,
}

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    filled: usize,
    /// A body buffer handed back by the caller, reused.
    spare: Vec<u8>,
}

impl Conn {
    async fn open(addr: std::net::SocketAddr) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            buf: vec![0; 64 * 1024],
            filled: 0,
            spare: Vec::with_capacity(1024),
        })
    }

    async fn fill(&mut self) -> Result<(), String> {
        if self.filled == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = self
            .stream
            .read(&mut self.buf[self.filled..])
            .await
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(String::from("connection closed by the server"));
        }
        self.filled += n;
        Ok(())
    }

    fn consume(&mut self, n: usize) {
        self.buf.copy_within(n..self.filled, 0);
        self.filled -= n;
    }

    /// Read one response: a `Content-Length` body or a chunked one.
    async fn response(&mut self) -> Result<Response, String> {
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut resp = httparse::Response::new(&mut headers);
            match resp.parse(&self.buf[..self.filled]) {
                Ok(httparse::Status::Complete(head)) => {
                    let status = resp.code.unwrap_or(0);
                    // No allocation per response: the client must stay
                    // cheaper than the fastest server it measures.
                    let header = |name: &str| {
                        resp.headers
                            .iter()
                            .find(|h| h.name.eq_ignore_ascii_case(name))
                            .map(|h| h.value)
                    };
                    let length = header("content-length")
                        .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse::<usize>().ok());
                    let chunked = header("transfer-encoding")
                        .is_some_and(|v| v.windows(7).any(|w| w.eq_ignore_ascii_case(b"chunked")));
                    if status == 100 {
                        self.consume(head);
                        continue;
                    }
                    return match (length, chunked) {
                        (Some(len), false) => {
                            while self.filled < head + len {
                                self.fill().await?;
                            }
                            let mut body = std::mem::take(&mut self.spare);
                            body.clear();
                            body.extend_from_slice(&self.buf[head..head + len]);
                            self.consume(head + len);
                            Ok(Response { status, body })
                        }
                        (_, true) => {
                            self.consume(head);
                            let body = self.chunked().await?;
                            Ok(Response { status, body })
                        }
                        (None, false) => Err(format!("status {status} without a body length")),
                    };
                }
                Ok(httparse::Status::Partial) => self.fill().await?,
                Err(e) => return Err(format!("bad response head: {e}")),
            }
        }
    }

    async fn chunked(&mut self) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(i) = self.buf[..self.filled]
                    .windows(2)
                    .position(|w| w == b"\r\n")
                {
                    break i;
                }
                self.fill().await?;
            };
            let size_text = String::from_utf8_lossy(&self.buf[..line_end]).to_string();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| format!("bad chunk size {size_text:?}"))?;
            let need = line_end + 2 + size + 2;
            while self.filled < need {
                self.fill().await?;
            }
            body.extend_from_slice(&self.buf[line_end + 2..line_end + 2 + size]);
            self.consume(need);
            if size == 0 {
                return Ok(body);
            }
        }
    }
}

/// Whether `body` (a JSON body, or an SSE body of `data:` lines) answers
/// call `seq` of connection `conn` with its echoed text.
fn answers(body: &[u8], conn: usize, seq: u64, needle: &mut Vec<u8>) -> bool {
    needle.clear();
    let _ = write!(needle, "\"text\":\"c{conn}-{seq}\"");
    if !contains(body, needle) {
        return false;
    }
    needle.clear();
    let _ = write!(needle, "\"id\":{seq},");
    contains(body, needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The first answer is checked in full, and shown.
async fn check_first(
    addr: std::net::SocketAddr,
    label: &str,
    show: bool,
    auth: &str,
) -> Result<(), String> {
    let mut conn = Conn::open(addr).await.map_err(|e| e.to_string())?;
    let mut req = Vec::new();
    request(&mut req, &mut Vec::new(), &addr.to_string(), auth, 0, 1);
    conn.stream
        .write_all(&req)
        .await
        .map_err(|e| e.to_string())?;
    let resp = conn.response().await?;
    let text = String::from_utf8_lossy(&resp.body).to_string();
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .unwrap_or(text.trim());
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("{label}: {e}: {text}"))?;
    let ok = resp.status == 200
        && v["id"] == 1
        && v["result"]["content"][0]["type"] == "text"
        && v["result"]["content"][0]["text"] == "c0-1";
    if show {
        eprintln!("{label}: first answer: {json}");
    }
    if ok {
        Ok(())
    } else {
        Err(format!(
            "unexpected answer (status {}): {text}",
            resp.status
        ))
    }
}

/// One caller's count: latencies of the answers sent and received inside
/// the measured window, errors, and answers in all.
struct Tally {
    measure_from: Instant,
    end: Instant,
    lat: Vec<u32>,
    errors: u64,
    answered: u64,
}

impl Tally {
    fn record(&mut self, sent: Instant, done: Instant, ok: bool) {
        self.answered += 1;
        if !ok {
            self.errors += 1;
        } else if sent >= self.measure_from && done <= self.end {
            self.lat
                .push(u32::try_from(done.duration_since(sent).as_micros()).unwrap_or(u32::MAX));
        }
    }
}

async fn load(
    addr: std::net::SocketAddr,
    wire: Wire,
    concurrency: usize,
    warmup: Duration,
    duration: Duration,
    auth: &str,
) -> Result<Level, String> {
    let start = Instant::now();
    let measure_from = start + warmup;
    let end = measure_from + duration;
    let host = addr.to_string();
    let link = match wire {
        Wire::H1 => None,
        Wire::H2 => Some(h2load::connect(addr).await?),
    };
    let mut tasks = Vec::new();
    for conn_no in 0..concurrency {
        let host = host.clone();
        let link = link.clone();
        let auth = auth.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut tally = Tally {
                measure_from,
                end,
                lat: Vec::with_capacity(1 << 16),
                errors: 0,
                answered: 0,
            };
            let mut req = Vec::with_capacity(512);
            let mut body = Vec::with_capacity(256);
            let mut needle = Vec::with_capacity(64);
            let mut seq = 0_u64;
            if let Some(mut link) = link {
                let mut answer = Vec::with_capacity(1024);
                loop {
                    let sent = Instant::now();
                    if sent >= end {
                        break;
                    }
                    seq += 1;
                    call_body(&mut body, conn_no, seq);
                    let status = h2load::call(&mut link, &host, &body, &mut answer).await?;
                    let ok = status == 200 && answers(&answer, conn_no, seq, &mut needle);
                    tally.record(sent, Instant::now(), ok);
                }
                return Ok::<_, String>(tally);
            }
            let mut conn = Conn::open(addr).await.map_err(|e| e.to_string())?;
            loop {
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                seq += 1;
                request(&mut req, &mut body, &host, &auth, conn_no, seq);
                conn.stream
                    .write_all(&req)
                    .await
                    .map_err(|e| e.to_string())?;
                let resp = conn.response().await?;
                let ok = resp.status == 200 && answers(&resp.body, conn_no, seq, &mut needle);
                tally.record(sent, Instant::now(), ok);
                conn.spare = resp.body;
            }
            Ok(tally)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    let mut answered = 0;
    for t in tasks {
        let tally = t.await.map_err(|e| e.to_string())??;
        all.extend(tally.lat);
        errors += tally.errors;
        answered += tally.answered;
    }
    all.sort_unstable();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0)
    };
    Ok(Level {
        concurrency,
        rps: all.len() as f64 / duration.as_secs_f64(),
        p50_us: pct(0.50),
        p99_us: pct(0.99),
        errors,
        answered,
        cpu_us: 0.0,
        lat: all,
        client_busy: 0.0,
    })
}

async fn stdio_run(config: &Config, server: &Server) -> Result<StdioRun, String> {
    let n = config.stdio_calls;
    eprint!("{}: stdio {n} pipelined calls ... ", server.label);
    let mut child = spawn(config, server, &["--stdio"]).map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("no pid")?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut payload = Vec::with_capacity(n * 220);
    for seq in 1..=n {
        let _ = writeln!(
            payload,
            r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"s{seq}"}},{META}}},"jsonrpc":"2.0","id":{seq}}}"#
        );
    }
    let start = Instant::now();
    let writer = tokio::spawn(async move {
        stdin.write_all(&payload).await.map_err(|e| e.to_string())?;
        stdin.flush().await.map_err(|e| e.to_string())?;
        Ok::<_, String>(stdin)
    });
    let mut reader = BufReader::with_capacity(256 * 1024, stdout);
    let mut line = Vec::with_capacity(512);
    let mut expected = String::with_capacity(16);
    let mut seen = vec![false; n + 1];
    let mut answered = 0;
    let mut errors = 0_u64;
    let deadline = Duration::from_secs(300);
    while answered < n {
        line.clear();
        let read = tokio::time::timeout(deadline, reader.read_until(b'\n', &mut line))
            .await
            .map_err(|_| format!("stalled after {answered} answers"))?
            .map_err(|e| e.to_string())?;
        if read == 0 {
            return Err(format!("output ended after {answered} answers"));
        }
        // A borrowed, typed parse: the client must stay cheaper than the
        // fastest server it measures.
        let answer: Option<Answer> = serde_json::from_slice(&line).ok();
        let Some((id, text)) = answer.and_then(|a| {
            let id = usize::try_from(a.id?).ok().filter(|&i| i >= 1 && i <= n)?;
            let text = a.result?.content.into_iter().next()?.text?;
            Some((id, text))
        }) else {
            // A notification, an error, or something else without our id.
            errors += 1;
            if errors < 3 {
                eprintln!("unexpected line: {}", String::from_utf8_lossy(&line));
            }
            continue;
        };
        expected.clear();
        let _ = std::fmt::Write::write_fmt(&mut expected, format_args!("s{id}"));
        if seen[id] || text != expected {
            errors += 1;
            if errors < 3 {
                eprintln!("unexpected answer: {}", String::from_utf8_lossy(&line));
            }
        }
        seen[id] = true;
        answered += 1;
    }
    let seconds = start.elapsed().as_secs_f64();
    let rss_kib = peak_rss_kib(pid);
    let cpu_us = cpu_ns(pid) as f64 / 1000.0 / n as f64;
    let stdin = writer.await.map_err(|e| e.to_string())??;
    drop(stdin);
    if tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    eprintln!(
        "{seconds:.3} s ({:.0} calls/s), peak RSS {:.1} MiB, {cpu_us:.1} us CPU/call, {errors} errors",
        n as f64 / seconds,
        rss_kib as f64 / 1024.0
    );
    Ok(StdioRun {
        calls: n,
        seconds,
        rss_kib,
        errors,
        cpu_us,
    })
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn thousands(v: f64) -> String {
    let s = format!("{:.0}", v);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn ms(us: u32) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

/// One table of req/s at every level, then the top level's latency, CPU
/// per request and errors; `full` adds the load generator's busy share
/// and the peak RSS (measured once per server process, so only for the
/// HTTP/1.1 table).
fn level_table(levels: &[usize], runs: &HashMap<&'static str, (Vec<Level>, u64)>, full: bool) {
    let top = *levels.last().unwrap_or(&1);
    let mut head = String::from("| server |");
    let mut rule = String::from("|---|");
    for c in levels {
        head += &format!(" c={c} req/s |");
        rule += "---:|";
    }
    head += &format!(" p50 @ c={top} | p99 @ c={top} | server CPU/req @ c={top} |");
    rule += "---:|---:|---:|";
    if full {
        head += &format!(" load generator busy @ c={top} | peak RSS |");
        rule += "---:|---:|";
    }
    head += " errors |";
    rule += "---:|";
    println!("{head}\n{rule}");
    for s in SERVERS {
        let Some((lv, rss)) = runs.get(s.label) else {
            continue;
        };
        let mut row = format!("| {} |", s.label);
        for l in lv {
            row += &format!(" {} |", thousands(l.rps));
        }
        let last = lv.last().cloned().unwrap_or_default();
        row += &format!(
            " {} | {} | {:.1} µs |",
            ms(last.p50_us),
            ms(last.p99_us),
            last.cpu_us
        );
        if full {
            row += &format!(" {:.0}% | {} |", 100.0 * last.client_busy, mib(*rss));
        }
        let errors: u64 = lv.iter().map(|l| l.errors).sum();
        row += &format!(" {errors} |");
        println!("{row}");
    }
}

fn print_tables(config: &Config, r: &Results) {
    let levels = &config.levels;
    let top = *levels.last().unwrap_or(&1);
    println!(
        "HTTP `tools/call echo`, keep-alive, no pipelining, {} s per level in {} rounds (servers \
         measured in turn each round, {} s warm-up each; req/s is the median round, latency over \
         every sample); server pinned to CPU {}, load generator to another; every response checked.\n",
        config.duration.as_secs_f64(),
        config.rounds,
        config.warmup.as_secs_f64(),
        config.server_cpu
    );
    level_table(levels, &r.http, true);

    println!("\nLatency at every level (p50 / p99):\n");
    let mut head = String::from("| server |");
    let mut rule = String::from("|---|");
    for c in levels {
        head += &format!(" c={c} |");
        rule += "---:|";
    }
    println!("{head}\n{rule}");
    for s in SERVERS {
        let Some((lv, _)) = r.http.get(s.label) else {
            continue;
        };
        let mut row = format!("| {} |", s.label);
        for l in lv {
            row += &format!(" {} / {} |", ms(l.p50_us), ms(l.p99_us));
        }
        println!("{row}");
    }

    if !r.http2.is_empty() {
        println!(
            "\nHTTP/2 (h2c, prior knowledge) `tools/call echo`: at each level that many concurrent \
             streams on one connection, each sending its next call when its answer is in; same \
             rounds, windows and checks as above:\n"
        );
        level_table(levels, &r.http2, false);
    }

    if !r.stdio.is_empty() {
        println!(
            "\nstdio: {} pipelined `tools/call echo` lines, every answer matched to its request \
             (median of {} rounds; peak RSS the highest):\n",
            config.stdio_calls, config.rounds
        );
        println!("| server | time | calls/s | server CPU/call | peak RSS | errors |\n|---|---:|---:|---:|---:|---:|");
        for s in SERVERS {
            let Some(st) = r.stdio.get(s.label) else {
                continue;
            };
            println!(
                "| {} | {:.3} s | {} | {:.1} µs | {} | {} |",
                s.label,
                st.seconds,
                thousands(st.calls as f64 / st.seconds),
                st.cpu_us,
                mib(st.rss_kib),
                st.errors
            );
        }
    }

    println!("\nRatios from this run (snodo on tokio unless named):\n");
    println!("| ratio | value |\n|---|---:|");
    let rps = |label: &str| {
        r.http
            .get(label)
            .and_then(|(lv, _)| lv.last().map(|l| l.rps))
    };
    let p99 = |label: &str| {
        r.http
            .get(label)
            .and_then(|(lv, _)| lv.last().map(|l| l.p99_us))
    };
    let rss = |label: &str| r.http.get(label).map(|(_, rss)| *rss);
    let cpu = |label: &str| {
        r.http
            .get(label)
            .and_then(|(lv, _)| lv.last().map(|l| l.cpu_us))
    };
    let snodo = "snodo (tokio)";
    let fastest_peer = ["rmcp", "tower-mcp"]
        .into_iter()
        .filter_map(|p| rps(p).map(|v| (p, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(s), Some((peer, p))) = (rps(snodo), fastest_peer) {
        println!(
            "| req/s @ c={top}: snodo / faster peer ({peer}) | {:.2}x |",
            s / p
        );
    }
    for peer in ["rmcp", "tower-mcp"] {
        if let (Some(s), Some(p)) = (rps(snodo), rps(peer)) {
            println!("| req/s @ c={top}: snodo / {peer} | {:.2}x |", s / p);
        }
    }
    for peer in ["rmcp", "tower-mcp", "bare floor"] {
        if let (Some(s), Some(p)) = (cpu(snodo), cpu(peer)) {
            println!(
                "| server CPU per request @ c={top}: {peer} / snodo | {:.2}x |",
                p / s
            );
        }
    }
    if let (Some(s), Some(f)) = (rps(snodo), rps("bare floor")) {
        println!(
            "| req/s @ c={top}: snodo / bare floor | {:.0}% |",
            100.0 * s / f
        );
    }
    // What authorization costs per request, the cached JWT validation
    // included: the auth row against the no-auth row of this same run.
    let auth = "snodo (tokio, auth)";
    if let (Some(a), Some(t)) = (rps(auth), rps(snodo)) {
        println!(
            "| req/s @ c={top}: tokio with auth / without | {:.0}% |",
            100.0 * a / t
        );
    }
    if let (Some(a), Some(t)) = (cpu(auth), cpu(snodo)) {
        println!(
            "| server CPU per request @ c={top}: with auth / without | {:.2}x (+{:.1} us) |",
            a / t,
            a - t
        );
    }
    if let (Some(m), Some(t)) = (rps("snodo (smol)"), rps(snodo)) {
        println!("| req/s @ c={top}: smol / tokio | {:.0}% |", 100.0 * m / t);
    }
    if let (Some(m), Some(t)) = (rps("snodo (blocking)"), rps(snodo)) {
        println!(
            "| req/s @ c={top}: blocking / tokio | {:.0}% |",
            100.0 * m / t
        );
    }
    for peer in ["rmcp", "tower-mcp"] {
        if let (Some(s), Some(p)) = (p99(snodo), p99(peer)) {
            println!(
                "| p99 @ c={top}: snodo / {peer} | {:.2}x |",
                s as f64 / p as f64
            );
        }
        if let (Some(s), Some(p)) = (rss(snodo), rss(peer)) {
            println!(
                "| HTTP peak RSS: snodo / {peer} | {:.2}x |",
                s as f64 / p as f64
            );
        }
    }
    let hyper = "snodo (hyper)";
    let rps2 = |label: &str| {
        r.http2
            .get(label)
            .and_then(|(lv, _)| lv.last().map(|l| l.rps))
    };
    for peer in ["rmcp", "tower-mcp"] {
        if let (Some(s), Some(p)) = (rps(hyper), rps(peer)) {
            println!(
                "| req/s @ c={top}: snodo (hyper) / {peer} | {:.2}x |",
                s / p
            );
        }
        if let (Some(s), Some(p)) = (rps2(hyper), rps2(peer)) {
            println!(
                "| HTTP/2 req/s @ c={top} streams: snodo (hyper) / {peer} | {:.2}x |",
                s / p
            );
        }
    }
    if let (Some(h2), Some(h1)) = (rps2(hyper), rps(hyper)) {
        println!(
            "| req/s @ c={top}: snodo (hyper) HTTP/2 / HTTP/1.1 | {:.0}% |",
            100.0 * h2 / h1
        );
    }
    let stdio_s = |label: &str| r.stdio.get(label).map(|s| s.seconds);
    let stdio_rss = |label: &str| r.stdio.get(label).map(|s| s.rss_kib);
    let faster_stdio_peer = ["rmcp", "tower-mcp"]
        .into_iter()
        .filter_map(|p| stdio_s(p).map(|v| (p, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some(s), Some((peer, p))) = (stdio_s(snodo), faster_stdio_peer) {
        println!(
            "| stdio time: faster peer ({peer}) / snodo | {:.2}x |",
            p / s
        );
    }
    for peer in ["rmcp", "tower-mcp"] {
        if let (Some(s), Some(p)) = (stdio_rss(snodo), stdio_rss(peer)) {
            println!(
                "| stdio peak RSS: snodo / {peer} | {:.3}x |",
                s as f64 / p as f64
            );
        }
    }
}
