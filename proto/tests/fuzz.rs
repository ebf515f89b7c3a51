//! Fuzzing what crosses the network or comes from files: `egdb.v1`
//! messages as bytes, check reports and worker names, the shard streams
//! both ways (a result sent to the coordinator's server, a shard fetched by
//! the worker's client), shards in a store, coordinator URLs and PEM files.
//! Each is fed arbitrary input and valid input with edits; it must answer
//! Ok or Err, never panic, and what it accepts must be what was sent.
//!
//! `PROPTEST_CASES` sets the cases per target: 256 unless set,
//! `deploy/fuzz.sh` runs a million.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use egdb_db_format::{block_len, max_record_len, MAX_BLOCK_BYTES};
use egdb_games::checked::{Probe, EXAMPLES};
use egdb_proto::check::MAX_TEXT;
use egdb_proto::client::RemoteCoordinator;
use egdb_proto::server::{bind, incoming, serve, Service};
use egdb_proto::shard::MIN_WIRE_BLOCK_BYTES;
use egdb_proto::tls::{client_config, query_client_config, ServerTls, TlsFiles};
use egdb_proto::v1::coordination_client::CoordinationClient;
use egdb_proto::v1::coordination_server::{Coordination, CoordinationServer};
use egdb_proto::v1::{
    self, result_part, shard_part, Caller, CheckMismatch, CheckReport, CheckedProbe, Empty,
    FailRequest, FetchRequest, HeartbeatReply, HeartbeatRequest, LeaseReply, LeaseRequest,
    RegisterReply, RegisterRequest, ResultHeader, ResultPart, Shard, ShardBlock, ShardPart,
    SliceList, SliceResult, SliceTask, StatusReply, StatusRequest,
};
use egdb_proto::{
    worker_name_fault, Coordinator, LinkError, LinkKind, Registration, WorkerInfo, MAX_WORKER_NAME,
    PROTOCOL_VERSION,
};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use prost::Message;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

#[path = "../../tests/common/fuzz_edits.rs"]
mod fuzz_edits;
use fuzz_edits::*;

// ---- Bytes, text and edits ----

/// Text edited as bytes, read back lossily (the parsers take `&str`).
fn edited_text(text: &str, edits: &[ByteEdit]) -> String {
    String::from_utf8_lossy(&edited(text.as_bytes(), edits)).into_owned()
}

/// Short text, text near a bound, and arbitrary text.
fn text(near: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9._:@-]{0,12}",
        (near - 2..near + 3, select(&['x', 'é', '\u{1F600}'][..]))
            .prop_map(|(n, c)| std::iter::repeat_n(c, n).collect::<String>()),
        any::<String>(),
    ]
}

// ---- Messages as bytes ----

fn shard_block() -> impl Strategy<Value = ShardBlock> {
    (0u32..4, prop::collection::vec(any::<u8>(), 0..40))
        .prop_map(|(index, record)| ShardBlock { index, record })
}

/// Mostly a slice id, sometimes text no slice id can be (refused as it
/// comes in), so that streams of valid shards are common enough to test.
fn slice_id() -> impl Strategy<Value = String> {
    prop_oneof![3 => "[a-z0-9_-]{1,12}", 1 => text(64)]
}

fn shard() -> impl Strategy<Value = Shard> {
    (
        slice_id(),
        0u32..5,
        prop_oneof![3 => 0u64..200, 2 => 0u64..3000, 1 => any::<u64>()],
        any::<u32>(),
        // Blocks too small for a shard of several (refused), and of about
        // the least size taken.
        prop_oneof![3 => 1u64..=64, 2 => 1000u64..=1100, 1 => any::<u64>()],
        prop::collection::vec(shard_block(), 0..3),
    )
        .prop_map(
            |(slice_id, encoding, raw_len, raw_crc32, block_bytes, blocks)| Shard {
                slice_id,
                encoding,
                raw_len,
                raw_crc32,
                block_bytes,
                blocks,
            },
        )
}

fn caller() -> impl Strategy<Value = Caller> {
    (
        prop_oneof![4 => Just(PROTOCOL_VERSION), 1 => any::<u32>()],
        prop::option::weighted(0.9, prop_oneof![Just("token".to_string()), text(8)]),
        prop_oneof![4 => Just("w-1".to_string()), 1 => text(MAX_WORKER_NAME)],
    )
        .prop_map(|(protocol_version, token, worker)| Caller {
            protocol_version,
            token,
            worker,
        })
}

fn probe() -> impl Strategy<Value = CheckedProbe> {
    (prop_oneof![0i32..=4, any::<i32>()], any::<Option<u32>>())
        .prop_map(|(value, depth)| CheckedProbe { value, depth })
}

fn check_report() -> impl Strategy<Value = CheckReport> {
    let mismatch = (
        text(MAX_TEXT),
        prop::option::of(probe()),
        prop::option::weighted(0.9, probe()),
    )
        .prop_map(|(position, stored, expected)| CheckMismatch {
            position,
            stored,
            expected,
        });
    (
        prop::option::of(caller()),
        slice_id(),
        any::<[u64; 3]>(),
        prop::option::of(text(MAX_TEXT)),
        prop::collection::vec(mismatch, 0..EXAMPLES + 2),
        any::<f64>(),
        any::<u32>(),
    )
        .prop_map(
            |(
                caller,
                slice_id,
                [positions, mismatches, duplicates_with_values],
                corrupt,
                examples,
                seconds,
                raw_crc32,
            )| {
                CheckReport {
                    caller,
                    slice_id,
                    positions,
                    mismatches,
                    duplicates_with_values,
                    corrupt,
                    examples,
                    seconds,
                    raw_crc32,
                }
            },
        )
}

fn slice_result() -> impl Strategy<Value = SliceResult> {
    (prop::option::of(shard()), any::<bool>(), any::<f64>()).prop_map(
        |(shard, counts, solve_seconds)| SliceResult {
            shard,
            counts: counts.then(|| v1::SliceCounts {
                positions: 10,
                max_depth: Some(3),
                ..v1::SliceCounts::default()
            }),
            solve_seconds,
        },
    )
}

/// Encoded messages of the types a coordinator or a worker receives.
fn encoded() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        shard().prop_map(|m| m.encode_to_vec()),
        shard().prop_map(|m| ShardPart {
            part: Some(shard_part::Part::Header(m))
        }
        .encode_to_vec()),
        (prop::option::of(caller()), prop::option::of(slice_result())).prop_map(
            |(caller, result)| {
                ResultPart {
                    part: Some(result_part::Part::Header(ResultHeader { caller, result })),
                }
                .encode_to_vec()
            }
        ),
        check_report().prop_map(|m| m.encode_to_vec()),
        (text(64), text(64), any::<bool>()).prop_map(|(game, slice_id, depth)| {
            LeaseReply {
                task: Some(SliceTask {
                    game,
                    game_definition: Some("cells = 3".to_string()),
                    slice_id,
                    depth,
                    dependencies: vec!["outer-00".to_string()],
                    verify: false,
                    zstd_only: depth,
                    memory: 1 << 30,
                }),
                stop: false,
                still_read: Some(SliceList {
                    slices: vec!["move-03-03".to_string()],
                }),
            }
            .encode_to_vec()
        }),
        (caller(), any::<u64>(), any::<u64>(), any::<Option<u64>>()).prop_map(
            |(c, memory, instance, replaces)| RegisterRequest {
                caller: Some(c),
                threads: 4,
                memory,
                version: "0.1.0".to_string(),
                game: None,
                instance,
                replaces,
            }
            .encode_to_vec()
        ),
    ]
}

/// Decodes `bytes` as `M`; what decodes encodes to bytes that decode to
/// the same encoding (compared as bytes: NaN is not equal to itself).
fn decodes_stably<M: Message + Default>(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(message) = M::decode(bytes) {
        let once = message.encode_to_vec();
        let again = M::decode(once.as_slice()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(again.encode_to_vec(), once);
    }
    Ok(())
}

fn decode_all(bytes: &[u8]) -> Result<(), TestCaseError> {
    decodes_stably::<Shard>(bytes)?;
    decodes_stably::<ShardPart>(bytes)?;
    decodes_stably::<ResultPart>(bytes)?;
    decodes_stably::<SliceResult>(bytes)?;
    decodes_stably::<CheckReport>(bytes)?;
    decodes_stably::<LeaseReply>(bytes)?;
    decodes_stably::<SliceTask>(bytes)?;
    decodes_stably::<RegisterRequest>(bytes)?;
    decodes_stably::<RegisterReply>(bytes)?;
    decodes_stably::<FetchRequest>(bytes)?;
    decodes_stably::<HeartbeatRequest>(bytes)?;
    decodes_stably::<FailRequest>(bytes)?;
    decodes_stably::<StatusReply>(bytes)?;
    decodes_stably::<v1::PositionRequest>(bytes)?;
    decodes_stably::<v1::LineRequest>(bytes)?;
    decodes_stably::<v1::BatchRequest>(bytes)?;
    decodes_stably::<v1::ProbeReply>(bytes)?;
    decodes_stably::<v1::MovesReply>(bytes)?;
    decodes_stably::<v1::InfoReply>(bytes)?;
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn messages_arbitrary(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        decode_all(&bytes)?;
    }

    #[test]
    fn messages_edited(bytes in encoded(), edits in byte_edits()) {
        decode_all(&edited(&bytes, &edits))?;
    }
}

// ---- Check reports, worker names, counts ----

#[test]
fn report_seeds_convert() {
    let report = CheckReport {
        slice_id: "move-03-03".to_string(),
        examples: vec![CheckMismatch {
            position: "start".to_string(),
            stored: None,
            expected: Some(CheckedProbe {
                value: 3,
                depth: Some(1),
            }),
        }],
        ..CheckReport::default()
    };
    let taken = egdb_proto::CheckReport::try_from(report).unwrap();
    let expected = Probe {
        value: egdb_games::Value::Win,
        depth: Some(1),
    };
    assert_eq!(taken.check.examples[0].expected, expected);
    let again = egdb_proto::CheckReport::try_from(v1::CheckReport::from(taken.clone()));
    assert_eq!(again, Ok(taken));
    assert_eq!(worker_name_fault("host-12:3@x_y.z"), None);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn check_reports(report in check_report()) {
        if let Ok(taken) = egdb_proto::CheckReport::try_from(report) {
            prop_assert!(taken.check.examples.len() <= EXAMPLES);
            prop_assert!(egdb_proto::SliceId::parse(taken.check.slice.as_str()).is_ok());
            prop_assert!(taken.seconds.is_finite() && taken.seconds >= 0.0);
            let again = egdb_proto::CheckReport::try_from(v1::CheckReport::from(taken.clone()));
            prop_assert_eq!(again, Ok(taken));
        }
    }

    #[test]
    fn worker_names(name in text(MAX_WORKER_NAME), edits in prop::option::of(byte_edits())) {
        let name = edits.map_or(name.clone(), |e| edited_text(&name, &e));
        if worker_name_fault(&name).is_none() {
            prop_assert!((1..=MAX_WORKER_NAME).contains(&name.len()));
            prop_assert!(name.bytes().all(|b| b.is_ascii_alphanumeric() || b".-_:@".contains(&b)));
        }
    }

    #[test]
    fn slice_counts(
        counts in (any::<[u64; 4]>(), any::<[Option<u64>; 4]>(), any::<Option<u32>>()),
    ) {
        let ([positions, win, loss, draw], c, max_depth) = counts;
        let wire = v1::SliceCounts {
            positions,
            win,
            loss,
            draw,
            canonical_positions: c[0],
            canonical_win: c[1],
            canonical_loss: c[2],
            canonical_draw: c[3],
            max_depth,
        };
        let stored = egdb_db_format::SliceCounts::from(&wire);
        prop_assert_eq!(v1::SliceCounts::from(&stored), wire);
    }
}

// ---- Panics on the servers' threads ----

/// Panics anywhere in this process: a panic on a server's thread ends its
/// task, not the test, so each case looks at this count.
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
}

/// A runtime serving on a free port until dropped.
struct Served {
    runtime: tokio::runtime::Runtime,
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Resolves when a [`Served`] is dropped.
type Stopped = tokio::sync::oneshot::Receiver<()>;

impl Served {
    /// Runs the server `serve` makes of a listener and a stop signal.
    fn start<F, Fut>(serve: F) -> Served
    where
        F: FnOnce(tokio::net::TcpListener, Stopped) -> Fut,
        Fut: std::future::Future<Output = Result<(), tonic::transport::Error>> + Send + 'static,
    {
        count_panics();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let (listener, address) = runtime.block_on(bind("127.0.0.1:0")).expect("binds");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(serve(listener, stopped));
        Served {
            runtime,
            url: format!("http://{address}"),
            stop: Some(stop),
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

// ---- A result streamed to the coordinator's server ----

/// What the server handed to the coordinator.
#[derive(Debug, Clone)]
struct Handed {
    admitted_header: Option<egdb_proto::Shard>,
    completed: Option<egdb_proto::SliceResult>,
}

/// A coordinator that takes what the server hands it, and admits a
/// result's header or not as told.
struct Taker {
    admit: AtomicBool,
    handed: Mutex<Handed>,
}

impl Taker {
    fn handed(&self) -> std::sync::MutexGuard<'_, Handed> {
        self.handed.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Coordinator for Taker {
    fn register(&self, _: &WorkerInfo) -> Result<Registration, LinkError> {
        Err(LinkError::internal("not here"))
    }
    fn lease(&self, _: &str) -> Result<egdb_proto::Lease, LinkError> {
        Err(LinkError::internal("not here"))
    }
    fn heartbeat(&self, _: &str, _: &egdb_proto::SliceId) -> Result<bool, LinkError> {
        Ok(false)
    }
    fn fetch_shard(
        &self,
        _: &str,
        _: &egdb_proto::SliceId,
    ) -> Result<egdb_proto::Shard, LinkError> {
        Err(LinkError::new(LinkKind::NotFound, "not here"))
    }
    fn admit_result(&self, _: &str, header: &egdb_proto::Shard) -> Result<(), LinkError> {
        self.handed().admitted_header = Some(header.clone());
        if self.admit.load(Ordering::SeqCst) {
            Ok(())
        } else {
            Err(LinkError::refused("not leased"))
        }
    }
    fn complete(&self, _: &str, result: egdb_proto::SliceResult) -> Result<(), LinkError> {
        self.handed().completed = Some(result);
        Ok(())
    }
    fn fail(&self, _: &str, _: &egdb_proto::SliceId, _: &str) -> Result<(), LinkError> {
        Ok(())
    }
    fn status(&self) -> Result<egdb_proto::BuildStatus, LinkError> {
        Err(LinkError::internal("not here"))
    }
    fn checked(&self, _: &str, _: egdb_proto::CheckReport) -> Result<(), LinkError> {
        Ok(())
    }
}

/// A result stream: mostly a header then its blocks, as a worker sends it.
fn result_parts() -> impl Strategy<Value = Vec<ResultPart>> {
    let header_shard = (
        prop_oneof![4 => Just("outer-03".to_string()), 1 => text(64)],
        prop_oneof![0u64..5000, any::<u64>()],
        prop_oneof![0u64..2000, any::<u64>()],
        // A header carries no blocks, unless it breaks the rule.
        prop_oneof![8 => Just(Vec::new()), 1 => prop::collection::vec(shard_block(), 1..3)],
    )
        .prop_map(|(slice_id, raw_len, block_bytes, blocks)| Shard {
            slice_id,
            encoding: 1,
            raw_len,
            raw_crc32: 0,
            block_bytes,
            blocks,
        });
    let header = (
        prop::option::weighted(0.95, caller()),
        prop::option::weighted(
            0.95,
            (
                prop::option::weighted(0.95, header_shard),
                prop::option::weighted(0.95, Just(v1::SliceCounts::default())),
                prop_oneof![4 => 0.0..1e6, 1 => any::<f64>()],
            ),
        ),
    )
        .prop_map(|(caller, result)| ResultPart {
            part: Some(result_part::Part::Header(ResultHeader {
                caller,
                result: result.map(|(shard, counts, solve_seconds)| SliceResult {
                    shard,
                    counts,
                    solve_seconds,
                }),
            })),
        })
        .boxed();
    let block = shard_block().prop_map(|b| ResultPart {
        part: Some(result_part::Part::Block(b)),
    });
    let stray = prop_oneof![Just(ResultPart { part: None }), header.clone(),];
    // Mostly blocks in order, as a worker sends them: random indices alone
    // are so rarely in order that few results would ever go through.
    let in_order = prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..12)
        .prop_map(|records| {
            (0u32..)
                .zip(records)
                .map(|(index, record)| ResultPart {
                    part: Some(result_part::Part::Block(ShardBlock { index, record })),
                })
                .collect::<Vec<_>>()
        });
    let blocks = prop_oneof![3 => in_order, 1 => prop::collection::vec(block, 0..12)];
    (
        prop::option::weighted(0.95, header),
        blocks,
        prop::option::weighted(0.1, (any::<Index>(), stray)),
    )
        .prop_map(|(header, blocks, stray)| {
            let mut parts: Vec<ResultPart> = header.into_iter().chain(blocks).collect();
            if let Some((at, part)) = stray {
                parts.insert(at.index(parts.len() + 1), part);
            }
            parts
        })
}

#[test]
fn results_streamed_to_the_server() {
    let taker = Arc::new(Taker {
        admit: AtomicBool::new(true),
        handed: Mutex::new(Handed {
            admitted_header: None,
            completed: None,
        }),
    });
    let service = Service::new(taker.clone(), Some("token".to_string()));
    let served = Served::start(|listener, stopped| {
        serve(service, listener, None, async {
            let _ = stopped.await;
        })
    });
    let client = served
        .runtime
        .block_on(CoordinationClient::connect(served.url.clone()))
        .expect("connects");
    let completed = AtomicUsize::new(0);
    run(
        (result_parts(), prop::bool::weighted(0.8)),
        |(parts, admit)| {
            let panics = PANICS.load(Ordering::SeqCst);
            taker.admit.store(admit, Ordering::SeqCst);
            *taker.handed() = Handed {
                admitted_header: None,
                completed: None,
            };
            let mut client = client.clone();
            let sent = parts.clone();
            let answer = served
                .runtime
                .block_on(async move { client.complete(tokio_stream::iter(sent)).await });
            prop_assert_eq!(PANICS.load(Ordering::SeqCst), panics, "the server panicked");
            let handed = taker.handed().clone();
            let Some(result) = handed.completed else {
                return Ok(());
            };
            prop_assert!(answer.is_ok(), "{:?}", answer.err());
            // Handed over: a header that was admitted, then at most its blocks.
            prop_assert!(admit);
            let header = handed.admitted_header.expect("admitted before completed");
            prop_assert!(header.blocks.is_empty());
            let shard = result.shard;
            prop_assert!(
                shard.blocks.len() as u64 <= header.raw_len.div_ceil(header.block_bytes.max(1))
            );
            let Some(result_part::Part::Header(first)) = &parts[0].part else {
                return Err(TestCaseError::fail("completed without a header first"));
            };
            let caller = first.caller.as_ref().expect("a caller");
            prop_assert!(worker_name_fault(&caller.worker).is_none());
            prop_assert_eq!(caller.protocol_version, PROTOCOL_VERSION);
            prop_assert_eq!(caller.token.as_deref(), Some("token"));
            let blocks: Vec<ShardBlock> = parts[1..]
                .iter()
                .filter_map(|p| match &p.part {
                    Some(result_part::Part::Block(b)) => Some(b.clone()),
                    _ => None,
                })
                .collect();
            // In order, each where its index says.
            prop_assert!(blocks.iter().zip(0u32..).all(|(b, i)| b.index == i));
            let records: Vec<Vec<u8>> = blocks.into_iter().map(|b| b.record).collect();
            prop_assert_eq!(shard.blocks, records);
            completed.fetch_add(1, Ordering::SeqCst);
            Ok(())
        },
    );
    // Valid results must have gone through, not only refusals.
    assert!(completed.load(Ordering::SeqCst) > 0);
}

// ---- A shard streamed to the worker's client ----

/// A coordinator's server that streams whatever parts it is given.
struct Streamer {
    parts: Arc<Mutex<Vec<Result<ShardPart, Status>>>>,
}

type PartStream = Pin<Box<dyn Stream<Item = Result<ShardPart, Status>> + Send>>;

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("fuzz server"))
}

#[tonic::async_trait]
impl Coordination for Streamer {
    async fn register(
        &self,
        _: Request<RegisterRequest>,
    ) -> Result<Response<RegisterReply>, Status> {
        unimplemented()
    }
    async fn lease(&self, _: Request<LeaseRequest>) -> Result<Response<LeaseReply>, Status> {
        unimplemented()
    }
    async fn heartbeat(
        &self,
        _: Request<HeartbeatRequest>,
    ) -> Result<Response<HeartbeatReply>, Status> {
        unimplemented()
    }
    type FetchShardStream = PartStream;
    async fn fetch_shard(&self, _: Request<FetchRequest>) -> Result<Response<PartStream>, Status> {
        let parts = self.parts.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Ok(Response::new(Box::pin(tokio_stream::iter(parts))))
    }
    async fn complete(&self, _: Request<Streaming<ResultPart>>) -> Result<Response<Empty>, Status> {
        unimplemented()
    }
    async fn fail(&self, _: Request<FailRequest>) -> Result<Response<Empty>, Status> {
        unimplemented()
    }
    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<StatusReply>, Status> {
        unimplemented()
    }
    async fn checked(&self, _: Request<CheckReport>) -> Result<Response<Empty>, Status> {
        unimplemented()
    }
}

/// A shard stream: mostly a header then blocks, sometimes out of order,
/// empty parts, or an error (of a kind the client does not retry).
fn shard_parts() -> impl Strategy<Value = Vec<Result<ShardPart, Status>>> {
    let header = shard()
        .prop_map(|s| ShardPart {
            part: Some(shard_part::Part::Header(Shard {
                blocks: Vec::new(),
                ..s
            })),
        })
        .boxed();
    let block = shard_block()
        .prop_map(|b| ShardPart {
            part: Some(shard_part::Part::Block(b)),
        })
        .boxed();
    let stray = prop_oneof![
        Just(Ok(ShardPart { part: None })),
        header.clone().prop_map(Ok),
        block.clone().prop_map(Ok),
        select(
            &[
                tonic::Code::DataLoss,
                tonic::Code::Internal,
                tonic::Code::NotFound
            ][..]
        )
        .prop_map(|code| Err(Status::new(code, "fuzz"))),
    ];
    (
        prop::option::weighted(0.95, header),
        prop::collection::vec(block, 0..8),
        prop::option::weighted(0.15, (any::<Index>(), stray)),
        prop::bool::weighted(0.7),
    )
        .prop_map(|(header, mut blocks, stray, in_order)| {
            // Numbered as a server numbers them, most of the time, so that
            // streams the client must take are common.
            if in_order {
                for (index, block) in (0u32..).zip(blocks.iter_mut()) {
                    if let Some(shard_part::Part::Block(b)) = block.part.as_mut() {
                        b.index = index;
                    }
                }
            }
            let mut parts: Vec<Result<ShardPart, Status>> =
                header.into_iter().chain(blocks).map(Ok).collect();
            if let Some((at, part)) = stray {
                parts.insert(at.index(parts.len() + 1), part);
            }
            parts
        })
}

/// The most raw bytes the client below takes in a shard (a worker's
/// memory for one slice): less than some of the headers announce.
const MAX_SHARD_BYTES: u64 = 2500;

/// The shard `parts` make, if they are a header of a possible layout (one
/// block, or blocks of at least [`MIN_WIRE_BLOCK_BYTES`]), no larger than
/// [`MAX_SHARD_BYTES`], and no more blocks than it gives, none longer than
/// zstd can make of its raw bytes, and it converts (a known encoding,
/// blocks in order).
fn assembled(parts: &[Result<ShardPart, Status>]) -> Option<egdb_proto::Shard> {
    let mut shard: Option<Shard> = None;
    for part in parts {
        match (part.as_ref().ok()?.part.as_ref()?, shard.as_mut()) {
            (shard_part::Part::Header(h), None) => {
                if !(1..=MAX_BLOCK_BYTES).contains(&h.block_bytes)
                    || h.raw_len > MAX_SHARD_BYTES
                    || (h.raw_len > h.block_bytes && h.block_bytes < MIN_WIRE_BLOCK_BYTES)
                {
                    return None;
                }
                shard = Some(h.clone());
            }
            (shard_part::Part::Block(b), Some(s)) => {
                let index = s.blocks.len() as u64;
                if index >= s.raw_len.div_ceil(s.block_bytes) {
                    return None;
                }
                let raw = block_len(s.raw_len, s.block_bytes, u32::try_from(index).ok()?);
                if b.record.len() as u64 > max_record_len(raw) {
                    return None;
                }
                s.blocks.push(b.clone());
            }
            _ => return None,
        }
    }
    egdb_proto::Shard::try_from(shard?).ok()
}

#[test]
fn shards_streamed_to_the_client() {
    let parts = Arc::new(Mutex::new(Vec::new()));
    let streamer = Streamer {
        parts: parts.clone(),
    };
    let served = Served::start(|listener, stopped| {
        tonic::transport::Server::builder().serve_with_incoming_shutdown(
            CoordinationServer::new(streamer),
            incoming(listener),
            async {
                let _ = stopped.await;
            },
        )
    });
    let link = RemoteCoordinator::new(&served.url, None, Duration::ZERO, None)
        .expect("a client")
        .with_deadline(Duration::from_secs(20))
        .with_max_shard_bytes(MAX_SHARD_BYTES);
    let fetched = AtomicUsize::new(0);
    run(shard_parts(), |sent| {
        let panics = PANICS.load(Ordering::SeqCst);
        *parts.lock().unwrap_or_else(|p| p.into_inner()) = sent
            .iter()
            .map(|p| match p {
                Ok(part) => Ok(part.clone()),
                Err(status) => Err(Status::new(status.code(), status.message())),
            })
            .collect();
        let got = link.fetch_shard("w-1", &egdb_proto::SliceId::new("outer-03"));
        prop_assert_eq!(
            PANICS.load(Ordering::SeqCst),
            panics,
            "the client or server panicked"
        );
        let expected = assembled(&sent);
        prop_assert_eq!(
            got.as_ref().ok(),
            expected.as_ref(),
            "{:?}",
            got.as_ref().err()
        );
        fetched.fetch_add(usize::from(got.is_ok()), Ordering::SeqCst);
        Ok(())
    });
    assert!(fetched.load(Ordering::SeqCst) > 0);
}

// ---- Shards in a store ----

#[cfg(feature = "store")]
mod stored {
    use super::*;
    use egdb_db_format::{encode_block, CellEncoding, Packing, SliceCounts, Store, StoreIdentity};
    use egdb_proto::stored::{read_shard, write_shard};

    /// A valid shard of `raw`, its blocks then edited or not.
    fn written() -> impl Strategy<Value = (Shard, bool)> {
        (
            select(&["outer-00", "move-03-03", "", "a/b"][..]),
            prop_oneof![8 => 1u32..=3, 1 => any::<u32>()],
            prop::collection::vec(any::<u8>(), 0..3000),
            1usize..=1200,
            prop::option::weighted(0.5, (any::<Index>(), byte_edits())),
        )
            .prop_map(|(id, encoding, raw, block_bytes, damage)| {
                let cells = u8::try_from(encoding).ok().and_then(CellEncoding::from_tag);
                let mut blocks: Vec<ShardBlock> = raw
                    .chunks(block_bytes)
                    .enumerate()
                    .map(|(i, chunk)| ShardBlock {
                        index: i as u32,
                        record: encode_block(
                            i as u32,
                            cells.unwrap_or(CellEncoding::WinBits),
                            chunk,
                            Packing::Small(1),
                        )
                        .expect("encodes"),
                    })
                    .collect();
                let damaged = damage.is_some() && !blocks.is_empty();
                if let Some((at, edits)) = damage.filter(|_| !blocks.is_empty()) {
                    let n = blocks.len();
                    let block = &mut blocks[at.index(n)];
                    block.record = edited(&block.record, &edits);
                }
                let shard = Shard {
                    slice_id: id.to_string(),
                    encoding,
                    raw_len: raw.len() as u64,
                    // Not read back here: stores keep it as it came.
                    raw_crc32: raw.len() as u32,
                    block_bytes: block_bytes as u64,
                    blocks,
                };
                (shard, damaged)
            })
    }

    #[test]
    fn shards_stored_and_read_back() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let identity = StoreIdentity {
            game: "fuzz".to_string(),
            fingerprint: 1,
            definition: None,
            depth: false,
        };
        let store = Store::create_or_open(&dir.path().join("s"), &identity).expect("a store");
        let whole = AtomicUsize::new(0);
        run(written(), |(shard, damaged)| {
            let known = u8::try_from(shard.encoding)
                .ok()
                .and_then(CellEncoding::from_tag)
                .is_some();
            // "" and "a/b" are no slice ids: refused as they come in.
            let id = egdb_proto::SliceId::parse(&shard.slice_id).is_ok();
            let Ok(shard) = egdb_proto::Shard::try_from(shard) else {
                prop_assert!(!known || !id);
                return Ok(());
            };
            write_shard(&store, &shard, SliceCounts::default())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let read = read_shard(&store, &shard.slice_id);
            if !damaged {
                prop_assert_eq!(read.ok().flatten(), Some(shard));
                whole.fetch_add(1, Ordering::SeqCst);
            }
            Ok(())
        });
        assert!(whole.load(Ordering::SeqCst) > 0);
    }
}

// ---- Coordinator URLs ----

proptest! {
    #![proptest_config(config())]

    #[test]
    fn coordinator_urls(
        url in prop_oneof![
            select(&["http://127.0.0.1:1", "https://coordinator:7000", "http://[::1]:5", "http://h"][..])
                .prop_map(String::from),
            text(16),
        ],
        edits in prop::option::weighted(0.7, byte_edits()),
    ) {
        let url = edits.map_or(url.clone(), |e| edited_text(&url, &e));
        // Nothing is sent before the first call: only the URL is read.
        let _ = RemoteCoordinator::new(&url, None, Duration::ZERO, None);
    }
}

// ---- PEM files ----

/// A certificate and key made for these tests (trusted by nothing).
const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBgDCCASWgAwIBAgIUZT+bGboV+toLMDXpA4gQhdvMmQAwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJZWdkYiBmdXp6MCAXDTI2MTEyMzIzMTM1N1oYDzIxMjYxMDMw
MjMxMzU3WjAUMRIwEAYDVQQDDAllZ2RiIGZ1enowWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASpAU+GIDByE/evHDInqx5Yx8bd+UOjFBv65ZJKZ8vxAastSSychjJ9
ZXO6x2XFkf9rel5AiDPvlj2h/Yl/pcZUo1MwUTAdBgNVHQ4EFgQUQVRbNIAXciip
RL5Kxhmbpo/n5VIwHwYDVR0jBBgwFoAUQVRbNIAXciipRL5Kxhmbpo/n5VIwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAnp3myXe+0u99DFe9FiEL
xKWidrPMK/TuIxJX/xD5JgcCIQD7CbKatNMa/7IwM0b++G3rydy9fB4wNpW+nv7n
R+wqfA==
-----END CERTIFICATE-----
";

const KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVegJbm/WTg6Shq2C
ehjq+Nacwy6I2GVxY5oW0dXDsV2hRANCAASpAU+GIDByE/evHDInqx5Yx8bd+UOj
FBv65ZJKZ8vxAastSSychjJ9ZXO6x2XFkf9rel5AiDPvlj2h/Yl/pcZU
-----END PRIVATE KEY-----
";

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_decode(text: &str) -> Vec<u8> {
    let digits: Vec<u32> = text
        .bytes()
        .filter_map(|b| BASE64.iter().position(|&d| d == b).map(|i| i as u32))
        .collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk.iter().fold(0u32, |n, &d| n << 6 | d) << (6 * (4 - chunk.len()));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| n << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        out.push_str(&"=".repeat(3 - chunk.len()));
    }
    out
}

/// `pem` with its DER edited and armoured again, or its text edited.
fn pem_edited(
    pem: &str,
    label: &str,
    der_edits: Option<Vec<ByteEdit>>,
    text_edits: Option<Vec<ByteEdit>>,
) -> String {
    let pem = match der_edits {
        Some(edits) => {
            let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
            let der = edited(&base64_decode(&body), &edits);
            let lines: Vec<String> = base64_encode(&der)
                .as_bytes()
                .chunks(64)
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect();
            format!(
                "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
                lines.join("\n")
            )
        }
        None => pem.to_string(),
    };
    text_edits.map_or(pem.clone(), |e| edited_text(&pem, &e))
}

#[test]
fn pem_seeds_load() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
    assert_eq!(base64_encode(&base64_decode("TWFu")), "TWFu");
    std::fs::write(
        &cert,
        pem_edited(CERT, "CERTIFICATE", Some(Vec::new()), None),
    )
    .unwrap();
    std::fs::write(&key, pem_edited(KEY, "PRIVATE KEY", Some(Vec::new()), None)).unwrap();
    let files = TlsFiles {
        cert: cert.clone(),
        key: key.clone(),
        ca: cert.clone(),
    };
    assert!(ServerTls::server_only(&cert, &key).is_ok());
    assert!(ServerTls::mutual(&files).is_ok());
    assert!(client_config(&files).is_ok());
    assert!(query_client_config(&cert).is_ok());
}

#[test]
fn pem_files() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (cert, key) = (dir.path().join("c.pem"), dir.path().join("k.pem"));
    let files = TlsFiles {
        cert: cert.clone(),
        key: key.clone(),
        ca: cert.clone(),
    };
    // Per file: its DER edited, its text edited, or bytes instead.
    let side = || {
        (
            prop::option::weighted(0.6, byte_edits()),
            prop::option::weighted(0.3, byte_edits()),
            prop::option::weighted(0.05, prop::collection::vec(any::<u8>(), 0..200)),
        )
    };
    run(
        (side(), side()),
        |((cert_der, cert_text, cert_bytes), (key_der, key_text, key_bytes))| {
            let cert_pem = cert_bytes.unwrap_or_else(|| {
                pem_edited(CERT, "CERTIFICATE", cert_der, cert_text).into_bytes()
            });
            let key_pem = key_bytes
                .unwrap_or_else(|| pem_edited(KEY, "PRIVATE KEY", key_der, key_text).into_bytes());
            std::fs::write(&cert, cert_pem).expect("writes");
            std::fs::write(&key, key_pem).expect("writes");
            let _ = ServerTls::server_only(&cert, &key);
            let _ = ServerTls::mutual(&files);
            let _ = client_config(&files);
            let _ = query_client_config(&cert);
            Ok(())
        },
    );
}
