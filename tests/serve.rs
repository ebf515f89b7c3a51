//! `egdb serve` against the local store and against brute force: the same
//! answers over gRPC, and errors with the right status codes.

mod common;

use common::*;
use egdb_games::morris::oracle::Oracle;
use egdb_games::morris::{MorrisGame, Variant};
use egdb_games::nim::NimGame;
use egdb_games::{GameSpec, Value};
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{BatchRequest, LineRequest, PositionRequest};
use tonic::transport::Channel;

fn client(runtime: &tokio::runtime::Runtime, url: &str) -> QueryClient<Channel> {
    runtime
        .block_on(QueryClient::connect(url.to_string()))
        .unwrap()
        .max_decoding_message_size(64 << 20)
}

/// Bytes sent as they are: what a client that speaks no protobuf sends.
#[derive(Clone, Copy)]
struct RawBytes;

impl tonic::codec::Codec for RawBytes {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawBytes;
    type Decoder = RawBytes;

    fn encoder(&mut self) -> RawBytes {
        RawBytes
    }

    fn decoder(&mut self) -> RawBytes {
        RawBytes
    }
}

impl tonic::codec::Encoder for RawBytes {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        use bytes::BufMut;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawBytes {
    type Item = Vec<u8>;
    type Error = tonic::Status;

    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf;
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

fn value(tag: i32) -> Value {
    egdb_proto::values::value_of(tag).unwrap()
}

/// Probes `positions` in batches; (value, depth) of each.
fn batch(
    runtime: &tokio::runtime::Runtime,
    client: &mut QueryClient<Channel>,
    positions: &[String],
) -> Vec<(Value, Option<u32>)> {
    positions
        .chunks(10_000)
        .flat_map(|chunk| {
            let reply = runtime
                .block_on(client.batch_probe(BatchRequest {
                    positions: chunk.to_vec(),
                }))
                .unwrap()
                .into_inner();
            assert_eq!(reply.probes.len(), chunk.len());
            reply
                .probes
                .into_iter()
                .map(|p| (value(p.value), p.depth))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn nim_over_grpc_agrees_with_the_store_and_brute_force() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (spec, extra) in [
        ("nim:triangle:5:misere", &["--depth"][..]),
        ("nim:triangle:5:normal", &[][..]),
    ] {
        let store = dir.path().join(spec.replace(':', "-"));
        build(spec, &store, extra);
        assert_verified(&store);
        let server = serve(&store);
        let game = NimGame::from_spec(&spec.parse::<GameSpec>().unwrap()).unwrap();
        let truth = egdb_games::nim::oracle::solve(&game);
        let positions: Vec<String> = (0..truth.len() as u64)
            .map(|p| game.format_position(p))
            .collect();
        let mut client = client(&runtime, &server.url);
        let served = batch(&runtime, &mut client, &positions);
        for (i, ((v, d), (tv, td))) in served.iter().zip(&truth).enumerate() {
            assert_eq!(*v, *tv, "{spec} {}", positions[i]);
            if !extra.is_empty() {
                assert_eq!(*d, Some(*td), "{spec} {}", positions[i]);
            }
        }
        // A stream of single probes answers each in order, the same.
        let asked: Vec<PositionRequest> = positions
            .iter()
            .take(2000)
            .map(|p| PositionRequest {
                position: p.clone(),
            })
            .collect();
        let streamed: Vec<(Value, Option<u32>)> = runtime.block_on(async {
            let mut replies = client
                .probe_stream(tokio_stream::iter(asked))
                .await
                .unwrap()
                .into_inner();
            let mut out = Vec::new();
            while let Some(reply) = replies.message().await.unwrap() {
                out.push((value(reply.value), reply.depth));
            }
            out
        });
        assert_eq!(streamed, served[..2000].to_vec(), "{spec}");

        // The command line prints the same over the network as from the store.
        for position in ["start", "./o./.o./o.o./...o.", "o/../.../..../....."] {
            let remote = egdb(&["query", "--server", &server.url, position, "--json"]);
            assert!(remote.status.success(), "{}", stderr(&remote));
            let local = query_json(&store, position);
            let remote: serde_json::Value = serde_json::from_slice(&remote.stdout).unwrap();
            assert_eq!(remote, local, "{spec} {position}");
        }
    }
}

#[test]
fn morris_over_grpc_agrees_with_brute_force_and_lines_are_perfect_play() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tw3");
    build("morris:taiwan:3", &store, &[]);
    assert_verified(&store);
    let server = serve(&store);
    let game = MorrisGame::new(Variant::Taiwan, 3);
    let oracle = Oracle::whole_game(game.rules());
    let (positions, truth): (Vec<String>, Vec<(Value, u32)>) = oracle
        .solutions()
        .map(|(p, solution)| (p.to_string(), solution))
        .unzip();
    assert!(positions.len() > 10_000);
    let mut client = client(&runtime, &server.url);
    let served = batch(&runtime, &mut client, &positions);
    for (i, ((v, d), (tv, td))) in served.iter().zip(&truth).enumerate() {
        assert_eq!(*v, *tv, "{}", positions[i]);
        let expected_depth = (*tv != Value::Draw).then_some(*td);
        assert_eq!(*d, expected_depth, "{}", positions[i]);
    }

    // A line from a won position: the winner hurries, each step one shorter.
    let won = positions
        .iter()
        .zip(&truth)
        .find(|(_, (v, d))| *v == Value::Win && *d >= 5)
        .map(|(p, _)| p.clone())
        .unwrap();
    let line = runtime
        .block_on(client.line(LineRequest {
            position: won.clone(),
            max_plies: 0,
        }))
        .unwrap()
        .into_inner();
    let start = line.start.unwrap();
    let depth = start.depth.unwrap();
    assert_eq!(line.steps.len() as u32, depth, "{won}");
    for (i, step) in line.steps.iter().enumerate() {
        let after = step.after.as_ref().unwrap();
        assert_eq!(after.depth, Some(depth - 1 - i as u32));
        let expected = if i % 2 == 0 { Value::Loss } else { Value::Win };
        assert_eq!(
            value(after.value),
            expected,
            "step {i} of the line from {won}"
        );
    }
    let end = &line.steps.last().unwrap().after.as_ref().unwrap().position;
    let moves = runtime
        .block_on(client.moves(PositionRequest {
            position: end.clone(),
        }))
        .unwrap()
        .into_inner();
    assert!(moves.moves.is_empty(), "the line ends when the game does");
    // A line as long as the client likes would run on for billions of
    // plies after the client has gone: refused.
    let err = runtime
        .block_on(client.line(LineRequest {
            position: won,
            max_plies: u32::MAX,
        }))
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err}");
    assert!(err.message().contains("at most 10000"), "{err}");
}

#[test]
fn errors_carry_their_grpc_codes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial");
    build("nim:triangle:5:normal", &partial, &["--max-slices", "3"]);
    let server = serve(&partial);
    let mut client = client(&runtime, &server.url);
    let ask = |client: &mut QueryClient<Channel>, position: &str| {
        runtime
            .block_on(client.probe(PositionRequest {
                position: position.to_string(),
            }))
            .unwrap_err()
    };
    let bad = ask(&mut client, "o/oo/ooo/x");
    assert_eq!(bad.code(), tonic::Code::InvalidArgument, "{bad:?}");
    let missing = ask(&mut client, "start");
    assert_eq!(missing.code(), tonic::Code::Unavailable, "{missing:?}");
    assert!(missing.message().contains("not built yet"), "{missing:?}");
    let out = egdb(&["query", "--server", &server.url, "o/oo/ooo/x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A position text far over any notation is refused before it is parsed,
    // by every call that takes one.
    let huge = "o".repeat(1 << 20);
    let refused = |err: tonic::Status| {
        assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
        assert!(err.message().contains("at most 4096"), "{err:?}");
    };
    refused(ask(&mut client, &huge));
    let asked = || PositionRequest {
        position: huge.clone(),
    };
    refused(runtime.block_on(client.moves(asked())).unwrap_err());
    refused(
        runtime
            .block_on(client.line(LineRequest {
                position: huge.clone(),
                max_plies: 1,
            }))
            .unwrap_err(),
    );
    refused(
        runtime
            .block_on(client.batch_probe(BatchRequest {
                positions: vec!["start".to_string(), huge.clone()],
            }))
            .unwrap_err(),
    );
    let mut stream = runtime
        .block_on(client.probe_stream(tokio_stream::iter([asked()])))
        .unwrap()
        .into_inner();
    refused(runtime.block_on(stream.message()).unwrap_err());
    // A stream answers as a probe does: the slice is still to come.
    let mut stream = runtime
        .block_on(client.probe_stream(tokio_stream::iter([PositionRequest {
            position: "start".to_string(),
        }])))
        .unwrap()
        .into_inner();
    let coming = runtime.block_on(stream.message()).unwrap_err();
    assert_eq!(coming.code(), tonic::Code::Unavailable, "{coming:?}");
    assert!(coming.message().contains("not built yet"), "{coming:?}");

    // Bytes that are no protobuf message: the sender's fault, said so.
    let channel = runtime
        .block_on(
            tonic::transport::Endpoint::from_shared(server.url.clone())
                .unwrap()
                .connect(),
        )
        .unwrap();
    let mut raw = tonic::client::Grpc::new(channel);
    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/egdb.v1.Query/Probe");
    let garbled = runtime
        .block_on(async {
            raw.ready().await.unwrap();
            raw.unary(tonic::Request::new(vec![0xff; 4]), path, RawBytes)
                .await
        })
        .unwrap_err();
    assert_eq!(garbled.code(), tonic::Code::InvalidArgument, "{garbled:?}");
    assert!(
        garbled.message().contains("not an egdb.v1 message"),
        "{garbled:?}"
    );

    // The build finishes while the server runs: it catches up.
    build("nim:triangle:5:normal", &partial, &[]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let start = runtime
        .block_on(client.probe(PositionRequest {
            position: "start".to_string(),
        }))
        .unwrap()
        .into_inner();
    assert_eq!(value(start.value), Value::Win);

    // Every slice's first block damaged: answers are DATA_LOSS, never values.
    let damaged = dir.path().join("damaged");
    build("nim:triangle:5:normal", &damaged, &[]);
    damage_first_blocks(&damaged);
    let server = serve(&damaged);
    let mut client = self::client(&runtime, &server.url);
    let lost = ask(&mut client, "start");
    assert_eq!(lost.code(), tonic::Code::DataLoss, "{lost:?}");
    assert!(
        lost.message().contains("corrupt block 0 of slice"),
        "{lost:?}"
    );
}

#[test]
fn health_and_reflection_answer_for_grpcurl() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::HealthCheckRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("t4");
    build("nim:triangle:4:normal", &store, &[]);
    let server = serve(&store);
    runtime.block_on(async {
        let channel = Channel::from_shared(server.url.clone())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = HealthClient::new(channel.clone());
        let status = health
            .check(HealthCheckRequest {
                service: "egdb.v1.Query".to_string(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(status.status, 1, "SERVING");

        let mut reflection = ServerReflectionClient::new(channel);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut replies = reflection
            .server_reflection_info(tokio_stream::iter(vec![request]))
            .await
            .unwrap()
            .into_inner();
        let reply = replies.message().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
            panic!("{reply:?}");
        };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        assert!(names.contains(&"egdb.v1.Query".to_string()), "{names:?}");
    });
}

#[test]
fn a_store_rocksdb_finds_damaged_answers_data_loss_without_its_paths() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    build("nim:triangle:5:normal", &store, &[]);
    // Damage RocksDB's own files where block records lie (its tables are
    // not compressed here: the records' magic is in them as written), so
    // that its checksums fail, not ours.
    let mut damaged = 0;
    for entry in std::fs::read_dir(&store).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "sst") {
            continue;
        }
        let mut bytes = std::fs::read(&path).unwrap();
        let at: Vec<usize> = bytes
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == b"EGBK")
            .map(|(i, _)| i)
            .collect();
        for i in &at {
            bytes[i + 8] ^= 0x55;
        }
        damaged += at.len();
        std::fs::write(&path, bytes).unwrap();
    }
    assert!(damaged > 0, "no block record found in the store's tables");
    let server = serve(&store);
    let mut client = self::client(&runtime, &server.url);
    let lost = runtime
        .block_on(client.probe(PositionRequest {
            position: "start".to_string(),
        }))
        .unwrap_err();
    assert_eq!(lost.code(), tonic::Code::DataLoss, "{lost:?}");
    let path = store.to_str().unwrap();
    assert!(!lost.message().contains(path), "{lost:?}");
}
