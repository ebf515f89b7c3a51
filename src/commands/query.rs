//! `egdb query`: a position's value, depth and moves, from a store on this
//! machine or from an `egdb serve` (the same answer either way).

use std::io::IsTerminal;
use std::path::Path;

use egdb_games::{printable, Game, GameSpec};

use egdb_proto::client::{endpoint_of, with_causes};
use egdb_proto::tls::{client_refusal, query_client_config};
use egdb_proto::v1::query_client::QueryClient;
use egdb_proto::v1::{InfoRequest, PositionRequest};
use egdb_serve::wire::answer_of;
use egdb_tablebase::{Answer, Tablebase};
use serde_json::json;
use tonic::transport::Endpoint;

use crate::cli::QueryArgs;
use crate::failure::Exit;
use crate::failure::Failure;
use crate::picture::picture;

pub fn run(args: QueryArgs) -> Exit {
    // Rules files' rules are known from a store, not from a server's spec.
    let (game, answer, rules) = match (&args.store, &args.server) {
        (Some(store), _) => {
            let tablebase = Tablebase::open(store)?;
            let answer = tablebase.answer(&args.position)?;
            let rules = match tablebase.game() {
                Game::Morris(g) => Some(*g.rules()),
                _ => None,
            };
            (tablebase.game().spec().to_string(), answer, rules)
        }
        (None, Some(server)) => {
            let (game, answer) = ask(server, args.tls_ca.as_deref(), &args.position)?;
            (game, answer, None)
        }
        (None, None) => return Err(Failure::bad_input("give --store or --server")),
    };
    if args.json {
        let moves: Vec<_> = answer
            .moves
            .iter()
            .map(|m| {
                json!({"move": m.mv, "after": m.after, "value": m.probe.value.as_str(),
                       "depth": m.probe.depth})
            })
            .collect();
        let out = json!({
            "game": game,
            "position": answer.position,
            "value": answer.probe.value.as_str(),
            "depth": answer.probe.depth,
            "moves": moves,
        });
        outln!("{out}")?;
        return Ok(0);
    }
    if !args.plain && std::io::stdout().is_terminal() {
        let drawn = game
            .parse::<GameSpec>()
            .ok()
            .and_then(|spec| picture(&spec, rules, &answer.position));
        if let Some(drawn) = drawn {
            outln!("{drawn}")?;
        }
    }
    // A server's strings may hold anything: no control character reaches
    // the terminal.
    outln!("{}: {}", printable(&answer.position), answer.probe)?;
    for m in &answer.moves {
        outln!("  {:<10} -> {}", printable(&m.mv), m.probe)?;
    }
    if answer.moves.is_empty() {
        outln!("  (no moves: the game is over)")?;
    }
    Ok(0)
}

/// Where an `egdb serve` listens: `http://` in clear, `https://` with the
/// CA that signed its certificate.
fn query_endpoint(url: &str, tls_ca: Option<&Path>) -> Result<Endpoint, Failure> {
    let endpoint = endpoint_of(url)
        .map_err(|e| Failure::bad_input(format!("`{url}` is not a server URL: {e}")))?;
    match (endpoint.uri().scheme_str(), tls_ca) {
        (Some("https"), Some(ca)) => {
            let config =
                query_client_config(ca).map_err(|e| Failure::bad_input(format!("TLS: {e}")))?;
            endpoint
                .tls_config(config)
                .map_err(|e| Failure::bad_input(format!("TLS: {e}")))
        }
        (Some("http"), None) => Ok(endpoint),
        (Some("https"), None) => Err(Failure::bad_input(format!(
            "`{url}`: an https:// server needs --tls-ca, the CA that signed its certificate"
        ))),
        _ => Err(Failure::bad_input(format!(
            "`{url}`: use http://host:port, or https://host:port with --tls-ca"
        ))),
    }
}

/// A connection failure with its causes: TLS refusals hide under
/// "transport error".
fn reason(error: &tonic::transport::Error) -> String {
    client_refusal(error).unwrap_or_else(|| with_causes(&error.to_string(), error))
}

/// The game and the answer of an `egdb serve` at `url`.
fn ask(url: &str, tls_ca: Option<&Path>, position: &str) -> Result<(String, Answer), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::failed(format!("no async runtime: {e}")))?;
    let refused = |e: tonic::Status| {
        if let Some(reason) = client_refusal(&e) {
            return Failure::bad_input(format!("{url}: {reason}"));
        }
        let message = format!("{url}: {}", e.message());
        match e.code() {
            tonic::Code::InvalidArgument => Failure::bad_input(message),
            _ => Failure::failed(message),
        }
    };
    runtime.block_on(async {
        let channel =
            query_endpoint(url, tls_ca)?
                .connect()
                .await
                .map_err(|e| match client_refusal(&e) {
                    Some(refusal) => Failure::bad_input(format!("{url}: {refusal}")),
                    None => Failure::failed(format!("cannot reach {url}: {}", reason(&e))),
                })?;
        let mut client = QueryClient::new(channel);
        let info = client
            .info(InfoRequest {})
            .await
            .map_err(refused)?
            .into_inner();
        let reply = client
            .moves(PositionRequest {
                position: position.to_string(),
            })
            .await
            .map_err(refused)?
            .into_inner();
        let answer =
            answer_of(&reply).map_err(|e| Failure::failed(format!("{url} answered badly: {e}")))?;
        Ok((info.game, answer))
    })
}
