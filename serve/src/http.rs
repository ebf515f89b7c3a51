//! The Query service as JSON over HTTP (`egdb serve --http ADDR`), for
//! browsers and scripts: `GET /api/v1/info`, `/api/v1/probe?position=…`,
//! `/api/v1/moves?position=…` and `/api/v1/line?position=…&max_plies=…`;
//! and at `/` the web explorer that draws them (`explorer/`).
//!
//! Every handler asks [`QueryService`] what its gRPC handler asks (the
//! reader's answer, or a status) and turns that into JSON, once, so both
//! protocols give the same answers and the same errors: a status code becomes an HTTP status (400 a bad
//! position, 404 no such slice, 503 a slice still being built, 500 damaged
//! data, naming slice and block). Replies allow any origin (CORS); those
//! of a finished store may be cached, as its answers never change.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use egdb_proto::v1::query_server::Query as _;
use egdb_proto::v1::InfoRequest;
use serde_json::{json, Value as Json};
use tonic::{Code, Request, Status};

use super::board::board_json;
use super::http1::HARDENING;
use super::{Limits, QueryService};
use egdb_games::spec::whole_number;
use egdb_games::Value;
use egdb_tablebase::{Answer, Probe};

/// How long a browser or proxy may keep a finished store's answer.
const FINISHED_MAX_AGE: &str = "public, max-age=86400, immutable";

/// The HTTP routes over `service`.
pub fn router(service: Arc<QueryService>) -> Router {
    Router::new()
        .route("/api/v1/info", get(info))
        .route("/api/v1/probe", get(probe))
        .route("/api/v1/moves", get(moves))
        .route("/api/v1/line", get(line))
        .route(
            "/",
            get(|| asset(EXPLORER_HTML, "text/html; charset=utf-8")),
        )
        .route(
            "/explorer.js",
            get(|| asset(EXPLORER_JS, "text/javascript; charset=utf-8")),
        )
        .route(
            "/explorer.css",
            get(|| asset(EXPLORER_CSS, "text/css; charset=utf-8")),
        )
        .route("/favicon.svg", get(|| asset(FAVICON, "image/svg+xml")))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::middleware::map_response(hardened))
        .with_state(service)
}

async fn hardened(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in HARDENING {
        headers.insert(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    response
}

/// Serves `service` over HTTP on `listener` until `shutdown` completes,
/// within `limits` (header timeout, connections).
///
/// # Errors
/// The server fails.
pub async fn serve_http(
    service: Arc<QueryService>,
    listener: tokio::net::TcpListener,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    super::http1::serve_http1(router(service), listener, limits, shutdown).await
}

/// The web explorer: four files inside the binary, nothing from elsewhere.
const EXPLORER_HTML: &str = include_str!("explorer/index.html");
const EXPLORER_JS: &str = include_str!("explorer/explorer.js");
const EXPLORER_CSS: &str = include_str!("explorer/explorer.css");
/// Named by the page, so that browsers do not ask for `/favicon.ico`.
const FAVICON: &str = include_str!("explorer/favicon.svg");

/// One of the explorer's files (its policy: [`hardened`]).
async fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

async fn info(State(service): State<Arc<QueryService>>) -> Response {
    let tablebase = service.tablebase();
    let complete = tablebase.is_complete();
    let board = board_json(tablebase.game());
    drop(tablebase);
    let reply = service.info(Request::new(InfoRequest {})).await;
    respond(
        complete,
        reply.map(|r| {
            let r = r.into_inner();
            json!({
                "game": r.game,
                "complete": r.complete,
                "slices": r.slices,
                "positions": r.positions,
                "depth": r.depth,
                "built": r.built,
                "missing": r.missing,
                "board": board,
            })
        }),
    )
}

async fn probe(State(service): State<Arc<QueryService>>, params: Params) -> Response {
    let complete = service.tablebase().is_complete();
    let reply = match position(&params) {
        Ok(position) => service.probe_text(position).await,
        Err(status) => Err(status),
    };
    respond(
        complete,
        reply.map(|(position, probe)| probe_fields(&position, probe)),
    )
}

async fn moves(State(service): State<Arc<QueryService>>, params: Params) -> Response {
    let complete = service.tablebase().is_complete();
    let reply = match position(&params) {
        Ok(position) => service.answer_text(position).await,
        Err(status) => Err(status),
    };
    respond(complete, reply.map(moves_json))
}

async fn line(State(service): State<Arc<QueryService>>, params: Params) -> Response {
    let complete = service.tablebase().is_complete();
    let asked = position(&params).and_then(|position| {
        let plies = match params.as_ref().ok().and_then(|q| q.get("max_plies")) {
            None => 0,
            Some(text) => whole_number::<u32>(text).ok_or_else(|| {
                Status::invalid_argument(format!("max_plies is a number of plies, not {text:?}"))
            })?,
        };
        Ok((position, plies))
    });
    let line = match asked {
        Ok((position, plies)) => service.line_text(position, plies).await,
        Err(status) => Err(status),
    };
    respond(
        complete,
        line.map(|((position, probe), steps)| {
            let steps: Vec<Json> = steps
                .iter()
                .map(|step| {
                    let mut json = probe_fields(&step.position, step.probe);
                    json["move"] = Json::from(step.mv.clone());
                    json
                })
                .collect();
            json!({"start": probe_fields(&position, probe), "steps": steps})
        }),
    )
}

/// The methods the API answers, as preflights and 405s name them.
const METHODS: &str = "GET, HEAD, OPTIONS";

/// Any method but GET and HEAD: a CORS preflight is answered (GET from
/// any origin, no credentials), the others refused with 405 in JSON.
async fn not_allowed(method: axum::http::Method) -> Response {
    if method == axum::http::Method::OPTIONS {
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(METHODS),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
        return response;
    }
    let mut response = respond(
        false,
        Err(Status::unimplemented(format!(
            "{method} is not served: the API answers GET (and HEAD)"
        ))),
    );
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(METHODS));
    response
}

async fn not_found() -> Response {
    respond(
        false,
        Err(Status::not_found(
            "no such page; the API is /api/v1/info, probe, moves and line",
        )),
    )
}

/// The `position` parameter, present and bounded.
fn position(params: &Params) -> Result<String, Status> {
    let query = params
        .as_ref()
        .map_err(|e| Status::invalid_argument(format!("bad query string: {e}")))?;
    let text = query
        .get("position")
        .ok_or_else(|| Status::invalid_argument("no position given (?position=…)"))?;
    super::bounded(text)?;
    Ok(text.clone())
}

fn probe_fields(position: &str, probe: Probe) -> Json {
    json!({
        "position": position,
        "value": probe.value.as_str(),
        "depth": probe.depth,
    })
}

fn moves_json(mut answer: Answer) -> Json {
    answer.moves.sort_by_key(|m| best_first(m.probe));
    let moves: Vec<Json> = answer
        .moves
        .iter()
        .map(|m| {
            json!({
                "move": m.mv,
                "after": m.after,
                "value": m.probe.value.as_str(),
                "depth": m.probe.depth,
            })
        })
        .collect();
    let mut json = probe_fields(&answer.position, answer.probe);
    json["moves"] = Json::from(moves);
    json
}

/// Orders moves best first for the side to move, by what they lead to (the
/// next mover's value): a loss there, fastest first; a draw; a win there,
/// slowest first. Moves equal by that keep the game's order.
fn best_first(after: Probe) -> (u8, i64) {
    let depth = i64::from(after.depth.unwrap_or(0));
    match after.value {
        Value::Loss => (0, depth),
        Value::Draw => (1, 0),
        Value::Win => (2, -depth),
    }
}

/// The HTTP status of a gRPC status code.
fn http_status(code: Code) -> StatusCode {
    match code {
        Code::InvalidArgument => StatusCode::BAD_REQUEST,
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::Unavailable | Code::ResourceExhausted => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The JSON reply, or the error as `{"error": …, "code": …}` with its
/// status; CORS for every origin; a finished store's answers may be kept
/// for good, errors never (a fixed server may answer them otherwise);
/// "busy" says when to come back.
fn respond(complete: bool, outcome: Result<Json, Status>) -> Response {
    let (status, body, cacheable) = match outcome {
        Ok(json) => (StatusCode::OK, json, complete),
        Err(e) => {
            let status = http_status(e.code());
            let body = json!({"error": e.message(), "code": format!("{:?}", e.code())});
            (status, body, false)
        }
    };
    let mut response = (status, axum::Json(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if cacheable {
            FINISHED_MAX_AGE
        } else {
            "no-store"
        }),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}
