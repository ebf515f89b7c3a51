//! One file per command: each turns its arguments into calls of the
//! library crates and their answers into output and an exit status. No
//! command imports another; what several share lives beside `main.rs`.

pub mod bench;
pub mod bench_cache;
pub mod bench_query;
pub mod bench_store;
pub mod book;
pub mod build;
pub mod compare;
pub mod coordinator;
pub mod plan;
pub mod query;
pub mod restore;
pub mod results;
pub mod serve;
pub mod stats;
pub mod status;
pub mod tls;
pub mod verify;
pub mod worker;
